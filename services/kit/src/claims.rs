//! What an access token says (DESIGN §6): a person's claims or a service
//! account's, the subjects auth signs them for, and the constants both sides
//! of a token agree on. Signing and verifying are in [`crate::token`]; who may
//! do what with these claims is in [`crate::access`].

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::rights::{Right, Scope};

pub const ISSUER: &str = "portal";
pub const AUDIENCE: &str = "portal";
pub const ACCESS_TOKEN_TTL: Duration = Duration::from_secs(15 * 60);
/// A service account's token lives shorter than a person's: a revoked secret
/// stops the tokens it got within this time (a disabled account's at once,
/// by its access version).
pub const SERVICE_TOKEN_TTL: Duration = Duration::from_secs(10 * 60);
/// `sub` of a service account's token: this prefix and the account id, so a
/// person's id can never be read from it.
pub const SERVICE_ACCOUNT_SUBJECT_PREFIX: &str = "svc:";
pub const MSG_SESSION_EXPIRED: &str = "Сессия истекла. Пожалуйста, войдите снова.";

/// The access token's claims (DESIGN §6). `sub` is the user id as a string, as JWT
/// requires; the web client reads `rights` and the names from it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Claims {
    #[serde(rename = "sub", with = "id_as_string")]
    pub user_id: i64,
    pub login: String,
    pub name: String,
    pub surname: String,
    #[serde(rename = "lastName")]
    pub last_name: String,
    pub rights: Vec<String>,
    pub departments: Vec<i64>,
    /// The person's access version when the token was signed
    /// ([`crate::revocation`]); a token from before versions existed has 0.
    #[serde(default)]
    pub ver: i64,
    /// The session (sign-in) the token was issued in, so the person's list of
    /// their devices knows which is theirs now; none in tokens from before
    /// sessions were listed, and in tests'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<i64>,
    pub iat: u64,
    pub exp: u64,
    pub iss: String,
    pub aud: String,
}

/// Who a token is for; the issuer adds the times, issuer and audience.
#[derive(Clone, Debug, PartialEq)]
pub struct Subject {
    pub user_id: i64,
    pub login: String,
    pub name: String,
    pub surname: String,
    pub last_name: String,
    pub rights: Vec<String>,
    pub departments: Vec<i64>,
    /// The person's access version, read before their rights and departments.
    pub access_version: i64,
}

impl Claims {
    /// The person's full name as the portal shows an author («Фамилия Имя
    /// Отчество»), else their login.
    pub fn display_name(&self) -> String {
        let name = [&self.surname, &self.name, &self.last_name]
            .into_iter()
            .filter(|part| !part.is_empty())
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ");
        if name.is_empty() {
            self.login.clone()
        } else {
            name
        }
    }

    /// Claims for tests of access rules; never signed.
    pub fn for_test(user_id: i64, rights: &[Right]) -> Claims {
        Claims {
            user_id,
            login: format!("user{user_id}"),
            name: String::new(),
            surname: String::new(),
            last_name: String::new(),
            rights: rights.iter().map(|r| r.as_str().to_owned()).collect(),
            departments: Vec::new(),
            ver: 0,
            sid: None,
            iat: 0,
            exp: u64::MAX,
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
        }
    }
}

/// The claims of a service account's token (issue 21): `sub` is
/// `svc:<account id>`, `scope` the granted scopes separated by spaces (as
/// RFC 9068 writes them); no rights, departments or names of a person.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ServiceAccountClaims {
    #[serde(rename = "sub", with = "service_account_subject")]
    pub account_id: i64,
    /// The account's name, for logs.
    pub name: String,
    #[serde(rename = "scope", with = "space_separated")]
    pub scopes: Vec<String>,
    /// The client id the token was issued to.
    pub client_id: String,
    /// The account's access version when the token was signed.
    #[serde(default)]
    pub ver: i64,
    pub iat: u64,
    pub exp: u64,
    pub iss: String,
    pub aud: String,
}

impl ServiceAccountClaims {
    pub fn has(&self, scope: Scope) -> bool {
        self.scopes.iter().any(|granted| granted == scope.as_str())
    }

    /// Claims for tests of access rules; never signed.
    pub fn for_test(account_id: i64, scopes: &[Scope]) -> ServiceAccountClaims {
        ServiceAccountClaims {
            account_id,
            name: format!("system{account_id}"),
            scopes: scopes.iter().map(|s| s.as_str().to_owned()).collect(),
            client_id: format!("client{account_id}"),
            ver: 0,
            iat: 0,
            exp: u64::MAX,
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
        }
    }
}

/// Which service account a token is for; the issuer adds the rest.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceAccountSubject {
    pub account_id: i64,
    pub name: String,
    pub client_id: String,
    pub scopes: Vec<Scope>,
    pub access_version: i64,
}

/// Whom a verified token names.
#[derive(Clone, Debug)]
pub enum Principal {
    Person(Arc<Claims>),
    ServiceAccount(Arc<ServiceAccountClaims>),
}

impl Principal {
    pub(crate) fn exp(&self) -> u64 {
        match self {
            Principal::Person(claims) => claims.exp,
            Principal::ServiceAccount(claims) => claims.exp,
        }
    }
}

mod service_account_subject {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    use super::SERVICE_ACCOUNT_SUBJECT_PREFIX;

    pub fn serialize<S: Serializer>(id: &i64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{SERVICE_ACCOUNT_SUBJECT_PREFIX}{id}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        let sub = String::deserialize(d)?;
        sub.strip_prefix(SERVICE_ACCOUNT_SUBJECT_PREFIX)
            .and_then(|id| id.parse().ok())
            .ok_or_else(|| D::Error::custom("not a service account's subject"))
    }
}

mod space_separated {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(words: &[String], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&words.join(" "))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        Ok(String::deserialize(d)?
            .split_whitespace()
            .map(str::to_owned)
            .collect())
    }
}

mod id_as_string {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(id: &i64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(id)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}
