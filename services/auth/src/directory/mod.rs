//! Directory sign-in (issue 39.1): a person's password checked by a bind
//! against the hospital's LDAP directory or Active Directory. A service bind
//! finds the entry of the typed login, a bind as that entry checks the
//! password, and the service account reads the entry's groups.
//!
//! One connection per sign-in, closed after it: sign-ins are a few a second
//! at a ward's busiest, and a connection of its own per attempt cannot carry
//! one person's bind into another's search.

pub mod config;

use std::time::Duration;

use ldap3::{LdapConnAsync, LdapConnSettings, LdapError, Scope, SearchEntry, ldap_escape};
use portal_kit::ServiceError;
use secrecy::ExposeSecret;

pub use config::{DirectoryArgs, DirectorySettings, GroupRights};

/// What a person reads while the directory cannot answer: a 503, never a
/// wrong password, and nothing counted against them.
pub const MSG_DIRECTORY_UNAVAILABLE: &str = "Не удаётся проверить пароль: служба каталога (домен) недоступна. Попробуйте войти позже или обратитесь в ИТ-отдел.";
pub const REASON_DIRECTORY_UNAVAILABLE: &str = "directory-unavailable";
/// How long a connection may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a whole check (connection, binds, searches) may take.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(10);
/// `invalidCredentials` (RFC 4511): a wrong password, or a disabled or
/// expired AD account, which AD refuses the same way.
const INVALID_CREDENTIALS: u32 = 49;
/// AD's `userAccountControl` flag ACCOUNTDISABLE.
const ACCOUNT_DISABLE: i64 = 0x2;
const USER_ACCOUNT_CONTROL: &str = "userAccountControl";

/// A person's entry whose password was right.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub dn: String,
    /// The value of the matched attribute (`PORTAL_LDAP_MATCH`), if it has one.
    pub match_value: Option<String>,
    /// `userAccountControl` has ACCOUNTDISABLE.
    pub disabled: bool,
    pub given_name: Option<String>,
    pub surname: Option<String>,
    /// The groups of `PORTAL_LDAP_GROUP_RIGHTS` the entry is a member of.
    pub groups: Vec<String>,
}

/// The directory of `PORTAL_LDAP_URL`.
#[derive(Clone, Debug)]
pub struct Directory {
    settings: DirectorySettings,
}

impl Directory {
    pub fn new(settings: DirectorySettings) -> Directory {
        Directory { settings }
    }

    pub fn settings(&self) -> &DirectorySettings {
        &self.settings
    }

    /// The entry of `login` if `password` is its own; `None` for no such
    /// entry, several, or a wrong password. The directory away or refusing
    /// the service account is [`ServiceError::Unavailable`].
    pub async fn authenticate(
        &self,
        login: &str,
        password: &str,
    ) -> Result<Option<Entry>, ServiceError> {
        // An empty password makes a simple bind "unauthenticated", which
        // many servers answer with success (RFC 4513 §5.1.2).
        if password.is_empty() || login.trim().is_empty() {
            return Ok(None);
        }
        let url = &self.settings.url;
        match tokio::time::timeout(SIGN_IN_TIMEOUT, self.check(login.trim(), password)).await {
            Ok(checked) => checked.map_err(|error| unavailable(url, &error)),
            Err(_) => Err(unavailable(url, &"no answer in time")),
        }
    }

    async fn check(&self, login: &str, password: &str) -> Result<Option<Entry>, LdapError> {
        let settings = &self.settings;
        let mut ldap = self.connect().await?;
        let bind_password = settings.bind_password.expose_secret();
        ldap.simple_bind(&settings.bind_dn, bind_password)
            .await?
            .success()?;
        let filter = settings.user_filter.replace("{login}", &ldap_escape(login));
        let attributes = [
            settings.match_attribute.as_str(),
            USER_ACCOUNT_CONTROL,
            "givenName",
            "sn",
        ];
        let (entries, _) = ldap
            .search(&settings.user_base, Scope::Subtree, &filter, attributes)
            .await?
            .success()?;
        // AD answers a search from the domain's root with references to its
        // other partitions too: they are not entries.
        let mut entries = entries
            .into_iter()
            .filter(|entry| !entry.is_ref() && !entry.is_intermediate())
            .map(SearchEntry::construct);
        let (Some(entry), None) = (entries.next(), entries.next()) else {
            tracing::info!("directory sign-in: no single entry for the login");
            let _ = ldap.unbind().await;
            return Ok(None);
        };
        let bound = ldap.simple_bind(&entry.dn, password).await?;
        if bound.rc == INVALID_CREDENTIALS {
            let _ = ldap.unbind().await;
            return Ok(None);
        }
        bound.success()?;
        // The groups are read as the service account: a person may not be
        // allowed to read them.
        let groups = if settings.group_rights.is_empty() {
            Vec::new()
        } else {
            ldap.simple_bind(&settings.bind_dn, bind_password)
                .await?
                .success()?;
            self.groups_of(&mut ldap, &entry.dn).await?
        };
        let _ = ldap.unbind().await;
        Ok(Some(Entry {
            match_value: first(&entry, &settings.match_attribute),
            disabled: first(&entry, USER_ACCOUNT_CONTROL)
                .and_then(|flags| flags.parse::<i64>().ok())
                .is_some_and(|flags| flags & ACCOUNT_DISABLE != 0),
            given_name: first(&entry, "givenName"),
            surname: first(&entry, "sn"),
            dn: entry.dn,
            groups,
        }))
    }

    /// A connection's handle, its driver running beside it.
    async fn connect(&self) -> Result<ldap3::Ldap, LdapError> {
        let connection = LdapConnSettings::new()
            .set_conn_timeout(CONNECT_TIMEOUT)
            .set_starttls(self.settings.starttls)
            .set_config(self.settings.tls.clone());
        let (driver, ldap) = LdapConnAsync::with_settings(connection, &self.settings.url).await?;
        tokio::spawn(async move {
            if let Err(error) = driver.drive().await {
                tracing::debug!(%error, "a directory connection ended with an error");
            }
        });
        Ok(ldap)
    }

    /// Which of the mapped groups list `dn` as a `member` (groupOfNames, AD's
    /// group): each asked by its own DN, so neither a `memberOf` overlay nor
    /// a search base for groups is needed.
    async fn groups_of(&self, ldap: &mut ldap3::Ldap, dn: &str) -> Result<Vec<String>, LdapError> {
        let filter = format!("(member={})", ldap_escape(dn));
        let mut groups = Vec::new();
        for group in self.settings.group_rights.groups() {
            let found = ldap.search(group, Scope::Base, &filter, ["1.1"]).await?;
            // A group that is not there (renamed, deleted) gives no right.
            const NO_SUCH_OBJECT: u32 = 32;
            if found.1.rc == NO_SUCH_OBJECT {
                tracing::warn!(
                    group,
                    "a group of PORTAL_LDAP_GROUP_RIGHTS is not in the directory"
                );
                continue;
            }
            let (entries, _) = found.success()?;
            if !entries.is_empty() {
                groups.push(group.to_owned());
            }
        }
        Ok(groups)
    }
}

fn first(entry: &SearchEntry, attribute: &str) -> Option<String> {
    entry
        .attrs
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(attribute))
        .and_then(|(_, values)| values.first())
        .map(|value| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}

fn unavailable(url: &str, error: &dyn std::fmt::Display) -> ServiceError {
    tracing::warn!(url, %error, "the directory cannot check a password");
    metrics::counter!("portal_directory_errors_total").increment(1);
    ServiceError::Unavailable(MSG_DIRECTORY_UNAVAILABLE.into())
        .because(REASON_DIRECTORY_UNAVAILABLE)
}
