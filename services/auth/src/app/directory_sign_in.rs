//! The directory's part of a sign-in (issue 39.1): the password checked by
//! [`Directory`], the entry matched to a portal person (or one created), and
//! the rights of its groups set. Which people it checks is
//! [`crate::app::password_check`]'s rule.

use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::{ServiceError, ServiceResult};

use crate::app::checked::{Checked, Method};
use crate::directory::Directory;
use crate::domain::hr_key::{HrKey, KeyOf};
use crate::domain::login::{Login, LoginKey};
use crate::domain::password::PasswordHash;
use crate::domain::user::{
    Email, EmployeeNumberEdit, MSG_LOGIN_TAKEN, NamePart, PersonName, Profile,
    REASON_EMPLOYEE_NUMBER_TAKEN,
};
use crate::store::Store;
use crate::store::user::Credentials;

/// Shown only after the directory took the password, so it tells a guesser nothing.
pub const MSG_NOT_IN_PORTAL: &str =
    "Пароль верный, но вашей учётной записи нет на портале. Обратитесь к администратору портала.";
pub const MSG_DIRECTORY_DISABLED: &str =
    "Учётная запись отключена в домене. Обратитесь в ИТ-отдел.";
/// Audit reasons of the refusals after a right directory password.
pub const REASON_NOT_IN_PORTAL: &str = "not-in-portal";
pub const REASON_DIRECTORY_DISABLED: &str = "directory-disabled";

#[derive(Clone)]
pub struct DirectorySignIn {
    directory: Directory,
    store: Store,
}

impl DirectorySignIn {
    pub fn new(directory: Directory, store: Store) -> DirectorySignIn {
        DirectorySignIn { directory, store }
    }

    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    /// Checks `password` for `login` with the directory; `tried` is the
    /// request as the anonymous person trying, for the records it writes.
    pub async fn check(
        &self,
        login: &str,
        password: &str,
        tried: &AuditContext,
    ) -> ServiceResult<Checked> {
        let key = LoginKey::of(login);
        let Some(entry) = self.directory.authenticate(login, password).await? else {
            let known = self.store.user_id_by_login(&key).await?;
            return Ok(Checked::Wrong { known });
        };
        if entry.disabled {
            let known = self.store.user_id_by_login(&key).await?;
            return Ok(Checked::Refused {
                user_id: known,
                reason: REASON_DIRECTORY_DISABLED,
                message: MSG_DIRECTORY_DISABLED,
            });
        }
        let settings = self.directory.settings();
        let user = match self
            .store
            .directory_person(entry.match_value.as_deref(), &key)
            .await?
        {
            Some(user) => user,
            None if settings.create_people => {
                let person = NewPerson {
                    login,
                    given_name: entry.given_name.as_deref(),
                    surname: entry.surname.as_deref(),
                    employee_number: entry.match_value.as_deref(),
                };
                create_person(&self.store, &person, tried).await?
            }
            None => {
                return Ok(Checked::Refused {
                    user_id: None,
                    reason: REASON_NOT_IN_PORTAL,
                    message: MSG_NOT_IN_PORTAL,
                });
            }
        };
        // A blocked person's sign-in is refused next: their rights stay.
        if !user.blocked && !settings.group_rights.is_empty() {
            let rights = &settings.group_rights;
            let given = rights.given(&entry.groups);
            let acting = tried.acting_as(portal_kit::audit::AuditActor::Person(user.user_id));
            self.store
                .set_directory_rights(
                    &acting,
                    user.user_id,
                    &given,
                    &rights.managed(),
                    now_millis(),
                )
                .await?;
        }
        Ok(Checked::Right {
            user,
            method: Method::Directory,
        })
    }
}

/// A person the directory or the OpenID provider knows and the portal does
/// not yet: their login and what the other system says of them.
pub struct NewPerson<'a> {
    pub login: &'a str,
    pub given_name: Option<&'a str>,
    pub surname: Option<&'a str>,
    pub employee_number: Option<&'a str>,
}

/// A person with no rights, linked to their employee number
/// (`PORTAL_LDAP_CREATE_PEOPLE=true`, `PORTAL_OIDC_CREATE_PEOPLE=true`); or,
/// when a parallel first sign-in of the same person created them first (the
/// login or employee number is then taken), that person: both sign-ins are
/// let in as one person.
pub async fn create_person(
    store: &Store,
    person: &NewPerson<'_>,
    tried: &AuditContext,
) -> ServiceResult<Credentials> {
    let error = match create(store, person, tried).await {
        Ok(user) => return Ok(user),
        Err(error) => error,
    };
    let taken = matches!(&error, ServiceError::Conflict(message) if message == MSG_LOGIN_TAKEN)
        || error.reason() == Some(REASON_EMPLOYEE_NUMBER_TAKEN);
    if !taken {
        return Err(error);
    }
    let key = LoginKey::of(person.login);
    match store.directory_person(person.employee_number, &key).await? {
        Some(user) => {
            tracing::info!(
                user_id = user.user_id,
                "a parallel first sign-in created the person: signed in as them"
            );
            Ok(user)
        }
        // Taken by someone who is not this person: refused as before.
        None => Err(error),
    }
}

async fn create(
    store: &Store,
    person: &NewPerson<'_>,
    tried: &AuditContext,
) -> ServiceResult<Credentials> {
    let login = Login::parse(person.login.trim())?;
    // A directory's names may be missing or long: the login stands in.
    let name = |value: Option<&str>| {
        value
            .and_then(|v| PersonName::parse(v, NamePart::Name, true).ok())
            .map_or_else(
                || PersonName::parse(login.as_str(), NamePart::Name, true),
                Ok,
            )
    };
    let employee_number = match person
        .employee_number
        .and_then(|v| HrKey::parse(v, KeyOf::Person).ok())
    {
        Some(number) => EmployeeNumberEdit::Link(number),
        None => EmployeeNumberEdit::Keep,
    };
    let profile = Profile {
        name: name(person.given_name)?,
        surname: name(person.surname)?,
        last_name: PersonName::parse("", NamePart::Patronymic, false)?,
        login,
        email: Email::parse("")?,
        status_id: None,
        departments: Default::default(),
        positions: Default::default(),
        rights: Default::default(),
        employee_number,
    };
    let user = store
        .create_user(tried, &profile, &PasswordHash::none(), now_millis())
        .await?;
    tracing::info!(
        user_id = user.id,
        "a person was created at their first sign-in by another system"
    );
    Ok(Credentials {
        user_id: user.id,
        password_hash: PasswordHash::none(),
        blocked: false,
        second_factor: false,
    })
}
