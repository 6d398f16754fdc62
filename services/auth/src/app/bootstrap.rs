//! The bootstrap admin: what an empty database gets at start, so that someone
//! can sign in and create the others.

use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::{ServiceError, ServiceResult};

use crate::domain::ids::IdSet;
use crate::domain::login::Login;
use crate::domain::password::{Password, Passwords};
use crate::domain::user::{Email, EmployeeNumberEdit, NamePart, PersonName, Profile};
use crate::store::Store;

const WORKING_STATUS: &str = "Работает";

/// Creates `login` with every right when no user exists at all. Without a
/// configured password a random one is generated and printed once to stdout.
pub async fn admin(
    store: &Store,
    passwords: &Passwords,
    login: &Login,
    password: Option<Password>,
) -> ServiceResult<()> {
    if store.count_users().await? > 0 {
        return Ok(());
    }
    let generated = password.is_none();
    let password = password.unwrap_or_else(Password::generate);
    let rights = store
        .rights()
        .await?
        .into_iter()
        .map(|right| right.id)
        .collect();
    let profile = Profile {
        name: PersonName::parse("Администратор", NamePart::Name, true)?,
        surname: PersonName::parse("Системный", NamePart::Surname, true)?,
        last_name: PersonName::parse("", NamePart::Patronymic, false)?,
        login: login.clone(),
        email: Email::parse("")?,
        status_id: store.status_named(WORKING_STATUS).await?,
        departments: IdSet::default(),
        positions: IdSet::default(),
        rights,
        employee_number: EmployeeNumberEdit::Keep,
    };
    let hash = passwords.hash(&password).await?;
    match store
        .create_user(&AuditContext::system(), &profile, &hash, now_millis())
        .await
    {
        Ok(user) => {
            tracing::info!(login = %login, user_id = user.id, "bootstrap admin created with every right");
            if generated {
                println!(
                    "Bootstrap admin created: login {login} password {}",
                    password.expose()
                );
            }
            Ok(())
        }
        // Another replica created it between the count and the insert.
        Err(ServiceError::Conflict(_)) => Ok(()),
        Err(error) => Err(error),
    }
}
