//! Service accounts: other hospital systems as clients (issue 21). A name, a
//! description, the person responsible, the scopes granted, and credentials:
//! a client id with client secrets ([`super::secret`]) or a registered public
//! key ([`super::client_assertion`]). Not a user: no login, rights or
//! departments.

use portal_kit::ServiceError;
use portal_kit::access::Scope;
use portal_kit::text::{Field, Shape, name_key};
use rand::RngCore;

pub const MAX_NAME_CHARS: usize = 200;
pub const MAX_DESCRIPTION_CHARS: usize = 5_000;
/// Secrets alive at once: the current one and the one rotating in.
pub const MAX_SECRETS: i64 = 2;
/// What every client id starts with.
pub const CLIENT_ID_PREFIX: &str = "svc-";

pub const MSG_NAME_REQUIRED: &str = "Введите название внешней системы";
pub const MSG_NAME_TOO_LONG: &str = "Название внешней системы не должно превышать 200 символов";
pub const MSG_NAME_HIDDEN_CHARS: &str =
    "Название внешней системы не должно содержать невидимых и управляющих символов";
pub const MSG_DESCRIPTION_TOO_LONG: &str =
    "Описание внешней системы не должно превышать 5000 символов";
pub const MSG_DESCRIPTION_HIDDEN_CHARS: &str =
    "Описание внешней системы не должно содержать невидимых и управляющих символов";
pub const MSG_NAME_TAKEN: &str = "Внешняя система с таким названием уже существует";
pub const MSG_SERVICE_ACCOUNT_NOT_FOUND: &str = "Внешняя система не найдена";
pub const MSG_SECRET_NOT_FOUND: &str = "Секрет внешней системы не найден";

const NAME: Field = Field {
    required: MSG_NAME_REQUIRED,
    too_long: MSG_NAME_TOO_LONG,
    hidden: MSG_NAME_HIDDEN_CHARS,
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};

const DESCRIPTION: Field = Field {
    required: "",
    too_long: MSG_DESCRIPTION_TOO_LONG,
    hidden: MSG_DESCRIPTION_HIDDEN_CHARS,
    max_chars: MAX_DESCRIPTION_CHARS,
    shape: Shape::Lines,
};

/// The message for a scope string that is none of [`Scope::ALL`].
fn unknown_scope(name: &str) -> ServiceError {
    let shown: String = name.chars().take(40).collect();
    ServiceError::invalid(format!("Неизвестная область доступа «{shown}»"))
}

/// A set of scopes, each once, in the order of [`Scope::ALL`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scopes(Vec<Scope>);

impl Scopes {
    /// Scope strings as a request names them; an unknown one is refused.
    pub fn parse<S: AsRef<str>>(names: &[S]) -> Result<Scopes, ServiceError> {
        let mut wanted = Vec::new();
        for name in names {
            let name = name.as_ref().trim();
            wanted.push(Scope::parse(name).ok_or_else(|| unknown_scope(name))?);
        }
        Ok(Scopes::of(&wanted))
    }

    pub fn of(scopes: &[Scope]) -> Scopes {
        Scopes(
            Scope::ALL
                .into_iter()
                .filter(|scope| scopes.contains(scope))
                .collect(),
        )
    }

    /// As stored: separated by spaces. Unknown words (a scope of a later
    /// release read by an older one) are left out.
    pub fn from_stored(stored: &str) -> Scopes {
        let known: Vec<Scope> = stored.split_whitespace().filter_map(Scope::parse).collect();
        Scopes::of(&known)
    }

    pub fn to_stored(&self) -> String {
        self.names().collect::<Vec<_>>().join(" ")
    }

    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(|scope| scope.as_str())
    }

    pub fn as_slice(&self) -> &[Scope] {
        &self.0
    }

    pub fn contains(&self, scope: Scope) -> bool {
        self.0.contains(&scope)
    }
}

/// What creating or updating an account writes.
#[derive(Clone, Debug)]
pub struct ServiceAccountDraft {
    pub name: String,
    pub description: String,
    pub scopes: Scopes,
    pub owner_id: i64,
}

impl ServiceAccountDraft {
    /// `owner_id` 0 is `caller_id`, the admin registering the system.
    pub fn parse<S: AsRef<str>>(
        name: &str,
        description: &str,
        scopes: &[S],
        owner_id: i64,
        caller_id: i64,
    ) -> Result<ServiceAccountDraft, ServiceError> {
        Ok(ServiceAccountDraft {
            name: NAME.required(name)?,
            description: DESCRIPTION.optional(description)?,
            scopes: Scopes::parse(scopes)?,
            owner_id: if owner_id == 0 { caller_id } else { owner_id },
        })
    }

    /// What makes two names one system to the people choosing from a list.
    pub fn name_key(&self) -> String {
        name_key(&self.name)
    }
}

/// A new client id: [`CLIENT_ID_PREFIX`] and 64 random bits in hex, readable
/// in a configuration file and never reused in practice (the unique index
/// refuses a repeat).
pub fn new_client_id() -> String {
    let mut bytes = [0_u8; 8];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    format!("{CLIENT_ID_PREFIX}{}", hex::encode(bytes))
}

/// The person responsible, as lists show them: surname, name, patronymic.
pub fn full_name(surname: &str, name: &str, last_name: &str) -> String {
    [surname, name, last_name]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_kept_once_in_the_lists_order_and_unknown_ones_refused() {
        let scopes = Scopes::parse(&["training.read", "staff.read", "training.read"]).unwrap();
        assert_eq!(scopes.to_stored(), "staff.read training.read");
        assert_eq!(Scopes::from_stored(&scopes.to_stored()), scopes);
        assert_eq!(
            Scopes::parse(&["staff.read", "admin"])
                .unwrap_err()
                .to_string(),
            "Неизвестная область доступа «admin»"
        );
        assert_eq!(
            Scopes::from_stored("equipment.write later.scope").to_stored(),
            "equipment.write"
        );
    }

    #[test]
    fn a_draft_needs_a_name_and_its_owner_defaults_to_the_caller() {
        let draft =
            ServiceAccountDraft::parse("  МИС  больницы ", "", &["staff.read"], 0, 7).unwrap();
        assert_eq!((draft.name.as_str(), draft.owner_id), ("МИС больницы", 7));
        assert_eq!(draft.name_key(), "мис больницы");
        let other = ServiceAccountDraft::parse("МИС", "", &[] as &[&str], 9, 7).unwrap();
        assert_eq!(other.owner_id, 9);
        for (name, message) in [
            ("  ", MSG_NAME_REQUIRED),
            ("x\u{200B}", MSG_NAME_HIDDEN_CHARS),
        ] {
            let refused = ServiceAccountDraft::parse(name, "", &[] as &[&str], 0, 1).unwrap_err();
            assert_eq!(refused.to_string(), message);
        }
        let long = "ж".repeat(MAX_DESCRIPTION_CHARS + 1);
        let refused = ServiceAccountDraft::parse("МИС", &long, &[] as &[&str], 0, 1).unwrap_err();
        assert_eq!(refused.to_string(), MSG_DESCRIPTION_TOO_LONG);
    }

    #[test]
    fn a_client_id_is_the_prefix_and_16_hex_digits() {
        let id = new_client_id();
        let hex = id.strip_prefix(CLIENT_ID_PREFIX).unwrap();
        assert_eq!(hex.len(), 16);
        assert!(hex.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(new_client_id(), id);
    }
}
