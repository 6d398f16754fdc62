//! A first sign-in without an administrator typing a password (issue 39.3):
//! invitations by e-mail and printed first sign-in codes, kept as the
//! one-time tokens of «Забыли пароль?» are ([`super::password_reset`]) with
//! a purpose of their own.

use std::time::Duration;

use portal_kit::audit::{self, AuditActor, AuditContext, Event, action, entity};
use portal_kit::db::placeholders;
use portal_kit::{ServiceError, ServiceResult};
use sqlx::AnyConnection;

use super::Store;
use super::password_reset::{
    Counted, RESET_WINDOW_MILLIS, SPENT_LINKS_KEPT_MILLIS, is_blocked, set_password, store_token,
};
use crate::domain::invitation::{
    Candidate, REASON_WRONG_CODE, Skip, code_invalid, full_name, too_many_codes,
};
use crate::domain::login::LoginKey;
use crate::domain::one_time::Purpose;
use crate::domain::password::PasswordHash;
use crate::domain::secret::{SecretHash, SecretToken};
use crate::domain::user::MSG_USER_NOT_FOUND;

/// People read per statement: far below either backend's limit of binds.
const PEOPLE_CHUNK: usize = 500;

/// A person an invitation or a code is for, as answers name them.
#[derive(Clone, Debug)]
pub struct Invitee {
    pub user_id: i64,
    pub login: String,
    pub full_name: String,
    /// Name and patronymic: how a letter greets them.
    pub addressed_as: String,
    pub employee_number: String,
    pub email: String,
}

/// An invitation stored, its link's token to mail.
#[derive(Debug)]
pub struct Invited {
    pub person: Invitee,
    pub token: SecretToken,
    pub expires_at: i64,
}

/// Who was invited and who was skipped and why, by full name.
#[derive(Debug, Default)]
pub struct Invitations {
    pub sent: Vec<Invited>,
    pub skipped: Vec<(Invitee, Skip)>,
}

/// A printed code's person and when it stops working.
#[derive(Debug)]
pub struct CodeMade {
    pub person: Invitee,
    pub expires_at: i64,
}

/// A code as entered: whose login, the code's hash, from where.
pub struct CodeEntered<'a> {
    pub login: &'a LoginKey,
    pub code: &'a SecretHash,
    /// The client address's limit key.
    pub address: &'a str,
    pub now: i64,
}

type PersonRow = (
    i64,
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    i64,
);

/// A person with what decides whether they may be invited.
struct Person {
    invitee: Invitee,
    has_password: bool,
    blocked: bool,
}

impl Person {
    fn of(row: PersonRow) -> Person {
        let (user_id, login, surname, name, last_name, employee_number, email, hash, blocked) = row;
        Person {
            invitee: Invitee {
                user_id,
                login,
                full_name: full_name(&surname, &name, &last_name),
                addressed_as: full_name("", &name, &last_name),
                employee_number,
                email,
            },
            has_password: !PasswordHash::from_stored(hash).is_none(),
            blocked: blocked != 0,
        }
    }

    fn candidate(&self) -> Candidate<'_> {
        Candidate {
            has_password: self.has_password,
            email: &self.invitee.email,
            blocked: self.blocked,
        }
    }
}

const SELECT_PEOPLE: &str = "SELECT u.id, u.login, u.surname, u.name, u.last_name, \
     COALESCE(u.employee_number, ''), u.email, u.password_hash, COALESCE(s.blocks_sign_in, 0) \
     FROM users u LEFT JOIN statuses s ON s.id = u.status_id";

/// The people of `user_ids` that exist, by surname, name and id.
async fn people(conn: &mut AnyConnection, user_ids: &[i64]) -> ServiceResult<Vec<Person>> {
    let mut found = Vec::with_capacity(user_ids.len());
    for chunk in user_ids.chunks(PEOPLE_CHUNK) {
        let statement = format!(
            "{SELECT_PEOPLE} WHERE u.id IN {}",
            placeholders(1, chunk.len())
        );
        let mut query = sqlx::query_as::<_, PersonRow>(sqlx::AssertSqlSafe(statement));
        for id in chunk {
            query = query.bind(*id);
        }
        found.extend(
            query
                .fetch_all(&mut *conn)
                .await?
                .into_iter()
                .map(Person::of),
        );
    }
    found.sort_by(|a, b| {
        (&a.invitee.full_name, a.invitee.user_id).cmp(&(&b.invitee.full_name, b.invitee.user_id))
    });
    Ok(found)
}

/// Voids the person's unused tokens of `purpose`: a newer one replaces them.
async fn void_older(
    conn: &mut AnyConnection,
    user_id: i64,
    purpose: Purpose,
    now: i64,
) -> ServiceResult<()> {
    sqlx::query(
        "UPDATE password_reset_tokens SET used_at = $1 \
         WHERE user_id = $2 AND purpose = $3 AND used_at IS NULL",
    )
    .bind(now)
    .bind(user_id)
    .bind(purpose.as_str())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

impl Store {
    /// Stores an invitation for each of `user_ids` who may be invited (see
    /// [`Candidate::for_invitation`]), voiding their older ones, and records
    /// each in the audit log; skips the others and unknown ids.
    pub async fn invite(
        &self,
        context: &AuditContext,
        user_ids: &[i64],
        mail_on: bool,
        now: i64,
    ) -> ServiceResult<Invitations> {
        let mut tx = self.write().await?;
        let mut done = Invitations::default();
        for person in people(&mut tx, user_ids).await? {
            if let Err(skip) = person.candidate().for_invitation(mail_on) {
                done.skipped.push((person.invitee, skip));
                continue;
            }
            let user_id = person.invitee.user_id;
            void_older(&mut tx, user_id, Purpose::Invitation, now).await?;
            let token = SecretToken::generate();
            let expires_at =
                store_token(&mut tx, user_id, Purpose::Invitation, &token.hash(), now).await?;
            done.sent.push(Invited {
                person: person.invitee,
                token,
                expires_at,
            });
        }
        let events: Vec<Event> = done
            .sent
            .iter()
            .map(|i| Event::new(entity::USER, i.person.user_id, action::INVITATION_SENT))
            .collect();
        audit::record_all(&mut tx, context, &events).await?;
        tx.commit().await?;
        Ok(done)
    }

    /// The members of a department, NOT_FOUND if it is unknown.
    pub async fn member_ids(&self, department_id: i64) -> ServiceResult<Vec<i64>> {
        let department = self.department_with_members(department_id).await?;
        Ok(department.members.iter().map(|m| m.id).collect())
    }

    /// The people of these HR employee numbers that exist.
    pub async fn ids_of_employees(&self, numbers: &[String]) -> ServiceResult<Vec<i64>> {
        let mut conn = self.read().await?;
        let mut ids = Vec::with_capacity(numbers.len());
        for chunk in numbers.chunks(PEOPLE_CHUNK) {
            let statement = format!(
                "SELECT id FROM users WHERE employee_number IN {}",
                placeholders(1, chunk.len())
            );
            let mut query = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(statement));
            for number in chunk {
                query = query.bind(number.as_str());
            }
            ids.extend(query.fetch_all(&mut *conn).await?);
        }
        Ok(ids)
    }

    /// Stores a printed code's hash for a person without a password, voiding
    /// their older code. NOT_FOUND for an unknown person.
    pub async fn make_first_sign_in_code(
        &self,
        context: &AuditContext,
        user_id: i64,
        code: &SecretHash,
        now: i64,
    ) -> ServiceResult<CodeMade> {
        let mut tx = self.write().await?;
        let person = people(&mut tx, &[user_id])
            .await?
            .pop()
            .ok_or_else(|| ServiceError::not_found(MSG_USER_NOT_FOUND))?;
        person.candidate().for_code().map_err(Skip::refusal)?;
        void_older(&mut tx, user_id, Purpose::FirstSignInCode, now).await?;
        let expires_at = store_token(&mut tx, user_id, Purpose::FirstSignInCode, code, now).await?;
        let event = Event::new(entity::USER, user_id, action::FIRST_SIGN_IN_CODE_MADE);
        audit::record(&mut tx, context, event).await?;
        tx.commit().await?;
        Ok(CodeMade {
            person: person.invitee,
            expires_at,
        })
    }

    /// Whose code was entered, if it still works; read before the new
    /// password is hashed. A wrong one counts against the limits (and is
    /// recorded for a known login); beyond them nothing is looked at.
    pub async fn first_sign_in_user(
        &self,
        context: &AuditContext,
        entered: &CodeEntered<'_>,
    ) -> ServiceResult<i64> {
        let mut tx = self.write().await?;
        let counted = Counted {
            purpose: Purpose::FirstSignInCode,
            login: entered.login.as_str(),
            address: entered.address,
            now: entered.now,
        };
        if counted.over_limit(&mut tx).await? {
            tx.commit().await?;
            let window = u64::try_from(RESET_WINDOW_MILLIS).unwrap_or(0);
            return Err(too_many_codes(Duration::from_millis(window)));
        }
        let found: Option<i64> = sqlx::query_scalar(
            "SELECT t.user_id FROM password_reset_tokens t JOIN users u ON u.id = t.user_id \
             WHERE u.login_key = $1 AND t.token_hash = $2 AND t.purpose = $3 \
             AND t.used_at IS NULL AND t.expires_at > $4",
        )
        .bind(entered.login.as_str())
        .bind(entered.code.as_str())
        .bind(Purpose::FirstSignInCode.as_str())
        .bind(entered.now)
        .fetch_optional(&mut *tx)
        .await?;
        let user_id = match found {
            Some(user_id) if !is_blocked(&mut tx, user_id).await? => user_id,
            _ => {
                counted.record(&mut tx).await?;
                self.record_wrong_first_sign_in_code(&mut tx, context, entered.login)
                    .await?;
                tx.commit().await?;
                return Err(code_invalid());
            }
        };
        tx.commit().await?;
        Ok(user_id)
    }

    async fn record_wrong_first_sign_in_code(
        &self,
        conn: &mut AnyConnection,
        context: &AuditContext,
        login: &LoginKey,
    ) -> ServiceResult<()> {
        let known: Option<i64> = sqlx::query_scalar("SELECT id FROM users WHERE login_key = $1")
            .bind(login.as_str())
            .fetch_optional(&mut *conn)
            .await?;
        let Some(user_id) = known else {
            return Ok(());
        };
        let tried = context.acting_as(AuditActor::Anonymous {
            login: Some(login.as_str().to_owned()),
        });
        let event = Event::new(entity::USER, user_id, action::FIRST_SIGN_IN_CODE_REFUSED)
            .reason(REASON_WRONG_CODE);
        audit::record(conn, &tried, event).await?;
        Ok(())
    }

    /// Sets the first password of the code's person once (as a reset link
    /// does: every token of theirs used up, sessions ended). Returns the
    /// person and their new access version.
    pub async fn first_sign_in(
        &self,
        context: &AuditContext,
        entered: &CodeEntered<'_>,
        password: &PasswordHash,
    ) -> ServiceResult<(i64, i64)> {
        let now = entered.now;
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM password_reset_tokens WHERE expires_at <= $1")
            .bind(now - SPENT_LINKS_KEPT_MILLIS)
            .execute(&mut *tx)
            .await?;
        let used: Option<i64> = sqlx::query_scalar(
            "UPDATE password_reset_tokens SET used_at = $1 \
             WHERE token_hash = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > $4 \
             AND user_id = (SELECT id FROM users WHERE login_key = $5) RETURNING user_id",
        )
        .bind(now)
        .bind(entered.code.as_str())
        .bind(Purpose::FirstSignInCode.as_str())
        .bind(now)
        .bind(entered.login.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let user_id = used.ok_or_else(code_invalid)?;
        if is_blocked(&mut tx, user_id).await? {
            return Err(code_invalid());
        }
        let version = set_password(&mut tx, user_id, password, now).await?;
        let event = Event::new(entity::USER, user_id, action::FIRST_SIGN_IN_CODE_USED);
        audit::record(&mut tx, context, event).await?;
        tx.commit().await?;
        Ok((user_id, version))
    }
}
