//! Users: the profile an administrator fills in, and what creating or editing
//! one requires (spec §5: editing needs name, surname and login; creating needs
//! a login and a password; a blank password on edit keeps the old one).

use portal_kit::ServiceError;
use portal_kit::text::{Field, Shape};
use portal_proto::auth::v1::UserDraft;

use super::common_passwords;
use super::hr_key::{HrKey, KeyOf};
use super::ids::IdSet;
use super::login::Login;
use super::password::Password;

pub const MAX_NAME_CHARS: usize = 100;
pub const MAX_EMAIL_CHARS: usize = 254;

pub const MSG_USER_NOT_FOUND: &str = "Пользователь не найден";
pub const MSG_LOGIN_TAKEN: &str = "Пользователь с таким логином уже существует";
pub const MSG_EMPLOYEE_NUMBER_TAKEN: &str =
    "Этот табельный номер уже указан у другого пользователя";
pub const REASON_EMPLOYEE_NUMBER_TAKEN: &str = "employee-number-taken";
/// Someone must always be able to manage users: the bootstrap admin is only
/// created on an empty database.
pub const MSG_LAST_USER_MANAGER: &str = "Нельзя отнять право управления пользователями у последнего, кто им обладает, или заблокировать его";
pub const MSG_EMAIL_INVALID: &str = "Некорректный адрес электронной почты";
pub const MSG_NAME_HIDDEN_CHARS: &str =
    "Фамилия, имя и отчество не должны содержать невидимых и управляющих символов";

/// The three parts of a Russian full name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamePart {
    Name,
    Surname,
    /// Отчество, `lastName` in the spec.
    Patronymic,
}

impl NamePart {
    fn field(self) -> &'static Field {
        const fn part(required: &'static str, too_long: &'static str) -> Field {
            Field {
                required,
                too_long,
                hidden: MSG_NAME_HIDDEN_CHARS,
                max_chars: MAX_NAME_CHARS,
                shape: Shape::Line,
            }
        }
        const NAME: Field = part("Введите имя", "Имя не должно превышать 100 символов");
        const SURNAME: Field = part(
            "Введите фамилию",
            "Фамилия не должна превышать 100 символов",
        );
        const PATRONYMIC: Field = part(
            "Введите отчество",
            "Отчество не должно превышать 100 символов",
        );
        match self {
            NamePart::Name => &NAME,
            NamePart::Surname => &SURNAME,
            NamePart::Patronymic => &PATRONYMIC,
        }
    }
}

/// One part of a person's name: trimmed, at most [`MAX_NAME_CHARS`]; empty only
/// where the form allows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersonName(String);

impl PersonName {
    pub fn parse(input: &str, part: NamePart, required: bool) -> Result<PersonName, ServiceError> {
        let field = part.field();
        let name = if required {
            field.required(input)?
        } else {
            field.optional(input)?
        };
        Ok(PersonName(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An e-mail address, or none (empty): one the digest's mailer can send to
/// (lettre's `Address`, `local@domain`, no name or brackets around it), so
/// what is refused later is refused at the door; whether mail arrives is not
/// this service's business.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(input: &str) -> Result<Email, ServiceError> {
        let email = input.trim();
        if email.is_empty() {
            return Ok(Email(String::new()));
        }
        let well_formed = email.chars().count() <= MAX_EMAIL_CHARS
            && !email.chars().any(|c| c.is_whitespace() || c.is_control())
            && email.parse::<lettre::Address>().is_ok();
        if well_formed {
            Ok(Email(email.to_owned()))
        } else {
            Err(ServiceError::invalid(MSG_EMAIL_INVALID))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Everything about a user but the password.
#[derive(Clone, Debug)]
pub struct Profile {
    pub name: PersonName,
    pub surname: PersonName,
    pub last_name: PersonName,
    pub login: Login,
    pub email: Email,
    pub status_id: Option<i64>,
    pub departments: IdSet,
    pub positions: IdSet,
    pub rights: IdSet,
    pub employee_number: EmployeeNumberEdit,
}

/// What a user form says of the person's employee number (табельный номер).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmployeeNumberEdit {
    /// Not sent: none on create, unchanged on update (clients that predate
    /// the field).
    Keep,
    /// Sent empty: the person is linked to no number; the staff sync leaves
    /// them alone.
    Unlink,
    /// An administrator links the person to this number: the staff sync
    /// keeps them in step by it.
    Link(HrKey),
}

impl EmployeeNumberEdit {
    fn parse(input: Option<&str>) -> Result<EmployeeNumberEdit, ServiceError> {
        Ok(match input {
            None => EmployeeNumberEdit::Keep,
            Some(number) if number.trim().is_empty() => EmployeeNumberEdit::Unlink,
            Some(number) => EmployeeNumberEdit::Link(HrKey::parse(number, KeyOf::Person)?),
        })
    }

    /// The number the person has after the edit, given the one they had.
    pub fn applied_to<'a>(&'a self, stored: Option<&'a str>) -> Option<&'a str> {
        match self {
            EmployeeNumberEdit::Keep => stored,
            EmployeeNumberEdit::Unlink => None,
            EmployeeNumberEdit::Link(number) => Some(number.as_str()),
        }
    }
}

impl Profile {
    fn parse(input: &UserDraft, names_required: bool) -> Result<Profile, ServiceError> {
        Ok(Profile {
            name: PersonName::parse(&input.name, NamePart::Name, names_required)?,
            surname: PersonName::parse(&input.surname, NamePart::Surname, names_required)?,
            last_name: PersonName::parse(&input.last_name, NamePart::Patronymic, false)?,
            login: Login::parse(&input.login)?,
            email: Email::parse(&input.email)?,
            status_id: (input.status_id != 0).then_some(input.status_id),
            departments: IdSet::from_request(&input.department_ids),
            positions: IdSet::from_request(&input.position_ids),
            rights: IdSet::from_request(&input.right_ids),
            employee_number: EmployeeNumberEdit::parse(input.employee_number.as_deref())?,
        })
    }
}

/// A user to create: a login and a password are required, the rest may wait.
#[derive(Clone, Debug)]
pub struct NewUser {
    pub profile: Profile,
    pub password: Password,
}

impl NewUser {
    pub fn parse(draft: &UserDraft) -> Result<NewUser, ServiceError> {
        let profile = Profile::parse(draft, false)?;
        Ok(NewUser {
            profile,
            password: common_passwords::chosen(&draft.password)?,
        })
    }
}

/// An edit of a user: the whole profile, and a new password only if one was typed.
#[derive(Clone, Debug)]
pub struct UserUpdate {
    pub id: i64,
    pub profile: Profile,
    pub password: Option<Password>,
}

impl UserUpdate {
    pub fn parse(id: i64, draft: &UserDraft) -> Result<UserUpdate, ServiceError> {
        let profile = Profile::parse(draft, true)?;
        let password = if draft.password.trim().is_empty() {
            None
        } else {
            Some(common_passwords::chosen(&draft.password)?)
        };
        Ok(UserUpdate {
            id,
            profile,
            password,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::login::MSG_LOGIN_REQUIRED;
    use crate::domain::password::MSG_PASSWORD_TOO_SHORT;

    /// A draft with every profile field filled and the given password.
    fn complete(password: &str) -> UserDraft {
        UserDraft {
            name: "Анна".into(),
            surname: "Иванова".into(),
            last_name: "Петровна".into(),
            login: "ivanova".into(),
            email: "ivanova@hospital.example".into(),
            password: password.into(),
            ..UserDraft::default()
        }
    }

    fn message<T: std::fmt::Debug>(result: Result<T, ServiceError>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn a_new_user_needs_only_a_login_and_a_password() {
        let draft = UserDraft {
            login: "petrov".into(),
            password: "long enough".into(),
            ..UserDraft::default()
        };
        let user = NewUser::parse(&draft).unwrap();
        assert_eq!(user.profile.name.as_str(), "");
        assert_eq!(user.profile.status_id, None);
        let no_login = UserDraft {
            login: String::new(),
            ..draft.clone()
        };
        assert_eq!(message(NewUser::parse(&no_login)), MSG_LOGIN_REQUIRED);
        let no_password = UserDraft {
            password: String::new(),
            ..draft
        };
        assert_eq!(message(NewUser::parse(&no_password)), "Введите пароль");
    }

    #[test]
    fn a_new_users_password_has_at_least_eight_characters() {
        assert_eq!(
            message(NewUser::parse(&complete("short"))),
            MSG_PASSWORD_TOO_SHORT
        );
    }

    #[test]
    fn an_edit_needs_name_surname_and_login() {
        assert!(UserUpdate::parse(1, &complete("")).is_ok());
        let edit = |change: fn(&mut UserDraft)| {
            let mut draft = complete("");
            change(&mut draft);
            UserUpdate::parse(1, &draft)
        };
        assert_eq!(message(edit(|d| d.name = " ".into())), "Введите имя");
        assert_eq!(message(edit(|d| d.surname.clear())), "Введите фамилию");
        assert_eq!(message(edit(|d| d.login.clear())), MSG_LOGIN_REQUIRED);
        assert!(edit(|d| d.last_name.clear()).is_ok());
    }

    #[test]
    fn a_blank_password_on_edit_keeps_the_old_one() {
        let password_of = |typed: &str| UserUpdate::parse(1, &complete(typed)).map(|u| u.password);
        assert!(password_of("").unwrap().is_none());
        assert!(password_of("   ").unwrap().is_none());
        assert!(password_of("new password").unwrap().is_some());
        assert_eq!(message(password_of("short")), MSG_PASSWORD_TOO_SHORT);
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        let padded = UserDraft {
            name: "  Анна ".into(),
            ..complete("long enough")
        };
        assert_eq!(
            NewUser::parse(&padded).unwrap().profile.name.as_str(),
            "Анна"
        );
        let long = UserDraft {
            surname: "А".repeat(MAX_NAME_CHARS + 1),
            ..complete("long enough")
        };
        assert_eq!(
            message(NewUser::parse(&long)),
            "Фамилия не должна превышать 100 символов"
        );
    }

    #[test]
    fn an_email_is_optional_but_well_formed() {
        assert_eq!(Email::parse("").unwrap().as_str(), "");
        assert_eq!(Email::parse(" a@b ").unwrap().as_str(), "a@b");
        for bad in [
            "ivanova",
            "@hospital",
            "ivanova@",
            "a b@c",
            "a@b@c",
            "<evil@evil.example>",
            "Ivanova <ivanova@hospital.example>",
            "ivanova@hospital..example",
            "ivanova@-hospital.example",
        ] {
            assert_eq!(message(Email::parse(bad)), MSG_EMAIL_INVALID, "{bad}");
        }
    }

    #[test]
    fn status_zero_means_none_and_links_are_sets() {
        let draft = UserDraft {
            status_id: 0,
            department_ids: vec![2, 2, 1],
            ..complete("long enough")
        };
        let user = NewUser::parse(&draft).unwrap();
        assert_eq!(user.profile.status_id, None);
        assert_eq!(user.profile.departments.iter().collect::<Vec<_>>(), [1, 2]);
        let with_status = UserDraft {
            status_id: 3,
            ..complete("long enough")
        };
        assert_eq!(
            NewUser::parse(&with_status).unwrap().profile.status_id,
            Some(3)
        );
    }
}
