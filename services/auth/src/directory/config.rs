//! The directory's settings (`PORTAL_LDAP_*`): read by clap with the rest of
//! auth's, checked once at start into [`DirectorySettings`], so a wrong one
//! stops the start with a sentence naming the variable rather than failing
//! every sign-in.

use std::path::PathBuf;
use std::sync::Arc;

use portal_kit::Right;
use portal_kit::start::StartError;
use rustls::ClientConfig;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use secrecy::SecretString;

/// Finds a person's entry by the login they typed: AD's `sAMAccountName` or
/// OpenLDAP's `uid`.
pub const DEFAULT_USER_FILTER: &str =
    "(&(objectClass=person)(|(sAMAccountName={login})(uid={login})))";
/// The entry's attribute that holds the HR employee number the staff sync keeps.
pub const DEFAULT_MATCH: &str = "employeeNumber";

/// Directory sign-in's part of the `portal` command line.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct DirectoryArgs {
    /// The directory that checks the passwords of people without a portal
    /// password: `ldaps://dc1.hospital.local` or `ldap://…` with
    /// PORTAL_LDAP_STARTTLS=true [default: off].
    #[arg(long, env = "PORTAL_LDAP_URL", value_name = "PORTAL_LDAP_URL")]
    pub ldap_url: Option<String>,
    /// Upgrade an `ldap://` connection with StartTLS.
    #[arg(
        long,
        env = "PORTAL_LDAP_STARTTLS",
        value_name = "PORTAL_LDAP_STARTTLS",
        default_value_t = false,
        action = clap::ArgAction::Set
    )]
    pub ldap_starttls: bool,
    /// The service account that searches for people's entries.
    #[arg(long, env = "PORTAL_LDAP_BIND_DN", value_name = "PORTAL_LDAP_BIND_DN")]
    pub ldap_bind_dn: Option<String>,
    /// The service account's password.
    #[arg(
        long,
        env = "PORTAL_LDAP_BIND_PASSWORD",
        value_name = "PORTAL_LDAP_BIND_PASSWORD",
        hide_env_values = true
    )]
    pub ldap_bind_password: Option<SecretString>,
    /// PORTAL_LDAP_BIND_PASSWORD read from this file.
    #[arg(
        long,
        env = "PORTAL_LDAP_BIND_PASSWORD_FILE",
        value_name = "PORTAL_LDAP_BIND_PASSWORD_FILE",
        value_parser = portal_kit::secret_file::parse,
        conflicts_with = "ldap_bind_password"
    )]
    pub ldap_bind_password_file: Option<SecretString>,
    /// Where people's entries are searched (subtree).
    #[arg(
        long,
        env = "PORTAL_LDAP_USER_BASE",
        value_name = "PORTAL_LDAP_USER_BASE"
    )]
    pub ldap_user_base: Option<String>,
    /// The search filter; `{login}` stands for the typed login, escaped.
    #[arg(
        long,
        env = "PORTAL_LDAP_USER_FILTER",
        value_name = "PORTAL_LDAP_USER_FILTER",
        default_value = DEFAULT_USER_FILTER
    )]
    pub ldap_user_filter: String,
    /// The CA (PEM) that signed the directory's certificate [default: the
    /// public roots compiled in].
    #[arg(long, env = "PORTAL_LDAP_CA_FILE", value_name = "PORTAL_LDAP_CA_FILE")]
    pub ldap_ca_file: Option<PathBuf>,
    /// The entry's attribute matched to a person's employee number (then the login).
    #[arg(
        long,
        env = "PORTAL_LDAP_MATCH",
        value_name = "PORTAL_LDAP_MATCH",
        default_value = DEFAULT_MATCH
    )]
    pub ldap_match: String,
    /// Create a person (with no rights) for an entry the portal does not know.
    #[arg(
        long,
        env = "PORTAL_LDAP_CREATE_PEOPLE",
        value_name = "PORTAL_LDAP_CREATE_PEOPLE",
        default_value_t = false,
        action = clap::ArgAction::Set
    )]
    pub ldap_create_people: bool,
    /// Rights held by membership of groups, set at each sign-in:
    /// `GROUP_DN=Right;GROUP_DN=Right`.
    #[arg(
        long,
        env = "PORTAL_LDAP_GROUP_RIGHTS",
        value_name = "PORTAL_LDAP_GROUP_RIGHTS"
    )]
    pub ldap_group_rights: Option<String>,
    /// Where people whose password the directory checks change a forgotten one.
    #[arg(
        long,
        env = "PORTAL_LDAP_PASSWORD_RESET_URL",
        value_name = "PORTAL_LDAP_PASSWORD_RESET_URL"
    )]
    pub ldap_password_reset_url: Option<String>,
}

/// The directory's settings, checked.
#[derive(Clone)]
pub struct DirectorySettings {
    pub url: String,
    pub starttls: bool,
    pub bind_dn: String,
    pub bind_password: SecretString,
    pub user_base: String,
    pub user_filter: String,
    pub match_attribute: String,
    pub create_people: bool,
    pub group_rights: GroupRights,
    pub password_reset_url: Option<String>,
    /// Verifies the server's certificate against the CA file or the public roots.
    pub tls: Arc<ClientConfig>,
}

impl std::fmt::Debug for DirectorySettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectorySettings")
            .field("url", &self.url)
            .field("starttls", &self.starttls)
            .field("bind_dn", &self.bind_dn)
            .field("user_base", &self.user_base)
            .field("user_filter", &self.user_filter)
            .field("match_attribute", &self.match_attribute)
            .field("create_people", &self.create_people)
            .field("group_rights", &self.group_rights)
            .finish_non_exhaustive()
    }
}

impl DirectoryArgs {
    /// The settings, or `None` when PORTAL_LDAP_URL is not set.
    pub fn settings(&self) -> Result<Option<DirectorySettings>, StartError> {
        let Some(url) = self.ldap_url.as_deref().map(str::trim) else {
            return Ok(None);
        };
        check_url(url, self.ldap_starttls)?;
        let bind_dn = required(self.ldap_bind_dn.as_deref(), "PORTAL_LDAP_BIND_DN")?;
        let bind_password = self
            .ldap_bind_password
            .clone()
            .or_else(|| self.ldap_bind_password_file.clone())
            .ok_or_else(|| {
                setting("PORTAL_LDAP_BIND_PASSWORD (or PORTAL_LDAP_BIND_PASSWORD_FILE) must be set with PORTAL_LDAP_URL")
            })?;
        let user_base = required(self.ldap_user_base.as_deref(), "PORTAL_LDAP_USER_BASE")?;
        if !self.ldap_user_filter.contains("{login}") {
            return Err(setting(
                "PORTAL_LDAP_USER_FILTER must contain {login}, where the typed login goes",
            ));
        }
        ldap3::parse_filter(self.ldap_user_filter.replace("{login}", "x"))
            .map_err(|_| setting("PORTAL_LDAP_USER_FILTER is not an LDAP filter (RFC 4515)"))?;
        let match_attribute = self.ldap_match.trim();
        if match_attribute.is_empty() || match_attribute.contains(char::is_whitespace) {
            return Err(setting("PORTAL_LDAP_MATCH must name one attribute"));
        }
        let group_rights = GroupRights::parse(self.ldap_group_rights.as_deref().unwrap_or(""))
            .map_err(|e| setting(&format!("PORTAL_LDAP_GROUP_RIGHTS: {e}")))?;
        Ok(Some(DirectorySettings {
            url: url.to_owned(),
            starttls: self.ldap_starttls,
            bind_dn,
            bind_password,
            user_base,
            user_filter: self.ldap_user_filter.clone(),
            match_attribute: match_attribute.to_owned(),
            create_people: self.ldap_create_people,
            group_rights,
            password_reset_url: self
                .ldap_password_reset_url
                .as_deref()
                .map(str::trim)
                .filter(|url| !url.is_empty())
                .map(str::to_owned),
            tls: tls_config(self.ldap_ca_file.as_deref())?,
        }))
    }
}

/// Passwords cross the connection: it must be TLS from its start or after StartTLS.
fn check_url(url: &str, starttls: bool) -> Result<(), StartError> {
    let (scheme, rest) = url.split_once("://").ok_or_else(|| {
        setting("PORTAL_LDAP_URL must be ldaps://host[:port] or ldap://host[:port]")
    })?;
    let host = rest.split(['/', ':']).next().unwrap_or_default();
    if host.is_empty() {
        return Err(setting("PORTAL_LDAP_URL names no host"));
    }
    match (scheme.to_ascii_lowercase().as_str(), starttls) {
        ("ldaps", false) | ("ldap", true) => Ok(()),
        ("ldaps", true) => Err(setting(
            "PORTAL_LDAP_STARTTLS=true is for ldap:// URLs; an ldaps:// connection is TLS already",
        )),
        ("ldap", false) => Err(setting(
            "PORTAL_LDAP_URL is ldap:// without PORTAL_LDAP_STARTTLS=true: passwords would cross the network in the clear",
        )),
        _ => Err(setting("PORTAL_LDAP_URL must be ldaps:// or ldap://")),
    }
}

/// The TLS client: the server's certificate is always verified, by the CA of
/// `ca_file` when given, else by the public roots (as the portal's other TLS).
fn tls_config(ca_file: Option<&std::path::Path>) -> Result<Arc<ClientConfig>, StartError> {
    let mut roots = rustls::RootCertStore::empty();
    match ca_file {
        Some(path) => {
            let shown = path.display();
            let certificates: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .map_err(|e| setting(&format!("PORTAL_LDAP_CA_FILE {shown}: cannot read it: {e}")))?
                .collect::<Result<_, _>>()
                .map_err(|e| {
                    setting(&format!(
                        "PORTAL_LDAP_CA_FILE {shown}: not PEM certificates: {e}"
                    ))
                })?;
            if certificates.is_empty() {
                return Err(setting(&format!(
                    "PORTAL_LDAP_CA_FILE {shown} holds no certificate"
                )));
            }
            for certificate in certificates {
                roots.add(certificate).map_err(|e| {
                    setting(&format!(
                        "PORTAL_LDAP_CA_FILE {shown}: a certificate is unusable: {e}"
                    ))
                })?;
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| setting(&format!("PORTAL_LDAP_URL: TLS cannot be set up: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

fn required(value: Option<&str>, name: &str) -> Result<String, StartError> {
    required_with(value, name, "PORTAL_LDAP_URL")
}

/// The setting `name`, trimmed, which `switch` (the setting that turns its
/// part on) needs; single sign-on's settings are read the same way.
pub(crate) fn required_with(
    value: Option<&str>,
    name: &str,
    switch: &str,
) -> Result<String, StartError> {
    value
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| setting(&format!("{name} must be set with {switch}")))
}

pub(crate) fn setting(message: &str) -> StartError {
    StartError::Setting(message.to_owned())
}

/// Which right membership of which group gives (`PORTAL_LDAP_GROUP_RIGHTS`).
/// A right named here is the directory's to give or take at each sign-in;
/// rights named nowhere stay as administrators set them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupRights(Vec<(String, Right)>);

impl GroupRights {
    /// `cn=portal-admins,ou=groups,dc=hospital,dc=local=UserManagement;…`:
    /// pairs split by `;`, each at its last `=` (a right's name has none, a
    /// DN has several).
    pub fn parse(text: &str) -> Result<GroupRights, String> {
        GroupRights::parse_with(text, true)
    }

    /// `/portal-admins=UserManagement;…`: the same, of a provider's group
    /// names (the `groups` claim), which need not be DNs.
    pub fn parse_names(text: &str) -> Result<GroupRights, String> {
        GroupRights::parse_with(text, false)
    }

    fn parse_with(text: &str, dns: bool) -> Result<GroupRights, String> {
        let mut pairs = Vec::new();
        for pair in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (group, right) = pair
                .rsplit_once('=')
                .ok_or_else(|| format!("`{pair}` is not GROUP_DN=Right"))?;
            let group = group.trim();
            if group.is_empty() || (dns && !group.contains('=')) {
                return Err(format!("`{pair}` names no group DN"));
            }
            let right = Right::parse(right.trim()).ok_or_else(|| {
                let known: Vec<_> = Right::ALL.iter().map(|r| r.as_str()).collect();
                format!(
                    "`{}` is not a right (one of {})",
                    right.trim(),
                    known.join(", ")
                )
            })?;
            pairs.push((group.to_owned(), right));
        }
        Ok(GroupRights(pairs))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every group named, once each.
    pub fn groups(&self) -> Vec<&str> {
        let mut groups: Vec<&str> = self.0.iter().map(|(group, _)| group.as_str()).collect();
        groups.sort_unstable();
        groups.dedup();
        groups
    }

    /// The rights the directory gives and takes.
    pub fn managed(&self) -> Vec<Right> {
        let mut rights: Vec<Right> = self.0.iter().map(|(_, right)| *right).collect();
        rights.sort_unstable_by_key(|r| r.as_str());
        rights.dedup();
        rights
    }

    /// The rights membership of `groups` gives.
    pub fn given(&self, groups: &[String]) -> Vec<Right> {
        let mut rights: Vec<Right> = self
            .0
            .iter()
            .filter(|(group, _)| groups.iter().any(|g| g.eq_ignore_ascii_case(group)))
            .map(|(_, right)| *right)
            .collect();
        rights.sort_unstable_by_key(|r| r.as_str());
        rights.dedup();
        rights
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(url: &str) -> DirectoryArgs {
        DirectoryArgs {
            ldap_url: Some(url.into()),
            ldap_bind_dn: Some("cn=portal,dc=hospital,dc=local".into()),
            ldap_bind_password: Some("bind-secret".into()),
            ldap_user_base: Some("ou=people,dc=hospital,dc=local".into()),
            ldap_user_filter: DEFAULT_USER_FILTER.into(),
            ldap_match: DEFAULT_MATCH.into(),
            ..DirectoryArgs::default()
        }
    }

    fn refusal(args: &DirectoryArgs) -> String {
        match args.settings() {
            Err(error) => error.to_string(),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn no_url_is_no_directory() {
        assert!(DirectoryArgs::default().settings().unwrap().is_none());
    }

    #[test]
    fn a_clear_text_connection_is_refused() {
        let text = refusal(&args("ldap://dc1.hospital.local"));
        assert!(text.contains("in the clear"), "{text}");
        let starttls = DirectoryArgs {
            ldap_starttls: true,
            ..args("ldap://dc1.hospital.local")
        };
        assert!(starttls.settings().unwrap().is_some());
        let both = DirectoryArgs {
            ldap_starttls: true,
            ..args("ldaps://dc1.hospital.local")
        };
        assert!(refusal(&both).contains("TLS already"));
    }

    #[test]
    fn each_missing_setting_is_named() {
        let no_dn = DirectoryArgs {
            ldap_bind_dn: None,
            ..args("ldaps://dc1")
        };
        assert!(refusal(&no_dn).contains("PORTAL_LDAP_BIND_DN"));
        let no_password = DirectoryArgs {
            ldap_bind_password: None,
            ..args("ldaps://dc1")
        };
        assert!(refusal(&no_password).contains("PORTAL_LDAP_BIND_PASSWORD"));
        let no_placeholder = DirectoryArgs {
            ldap_user_filter: "(uid=admin)".into(),
            ..args("ldaps://dc1")
        };
        assert!(refusal(&no_placeholder).contains("{login}"));
        let missing_ca = DirectoryArgs {
            ldap_ca_file: Some("/nonexistent/ca.pem".into()),
            ..args("ldaps://dc1")
        };
        assert!(refusal(&missing_ca).contains("PORTAL_LDAP_CA_FILE /nonexistent/ca.pem"));
    }

    #[test]
    fn the_settings_never_print_the_bind_password() {
        let settings = args("ldaps://dc1").settings().unwrap().unwrap();
        let printed = format!("{settings:?}");
        assert!(!printed.contains("bind-secret"), "{printed}");
    }

    #[test]
    fn group_rights_split_at_the_last_equals_sign() {
        let rights = GroupRights::parse(
            "cn=admins,ou=groups,dc=h=UserManagement; cn=edu,ou=groups,dc=h=EducationManagement;cn=admins,ou=groups,dc=h=EducationManagement",
        )
        .unwrap();
        assert_eq!(
            rights.groups(),
            ["cn=admins,ou=groups,dc=h", "cn=edu,ou=groups,dc=h"]
        );
        assert_eq!(
            rights.given(&["CN=admins,ou=groups,dc=h".into()]),
            [Right::EducationManagement, Right::UserManagement]
        );
        assert_eq!(
            rights.managed(),
            [Right::EducationManagement, Right::UserManagement]
        );
        assert!(
            GroupRights::parse("cn=x,dc=h=Superuser")
                .unwrap_err()
                .contains("Superuser")
        );
        assert!(GroupRights::parse("UserManagement").is_err());
        assert!(GroupRights::parse("").unwrap().is_empty());
    }
}
