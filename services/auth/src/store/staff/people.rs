//! The people of a sync: everyone read at once, for
//! [`plan_people`](crate::domain::staff_plan::people::plan_people) to decide on.

use portal_kit::ServiceResult;
use sqlx::{AnyConnection, FromRow};

use super::super::{Link, all_links};
use crate::domain::staff_plan::people::{Staff, StaffRead, StoredPerson};

/// A person as the sync reads them.
#[derive(FromRow)]
struct PersonRecord {
    id: i64,
    employee_number: Option<String>,
    name: String,
    surname: String,
    last_name: String,
    login: String,
    login_key: String,
    email: String,
    status_id: Option<i64>,
    blocked: i64,
    hr_link: Option<String>,
}

impl From<PersonRecord> for StoredPerson {
    fn from(row: PersonRecord) -> Self {
        StoredPerson {
            id: row.id,
            employee_number: row.employee_number,
            name: row.name,
            surname: row.surname,
            last_name: row.last_name,
            login: row.login,
            login_key: row.login_key,
            email: row.email,
            status_id: row.status_id,
            blocked: row.blocked != 0,
            hr_link: row.hr_link,
        }
    }
}

/// Everything the sync reads before it decides: every person (a hospital's
/// staff is thousands, one query), their department and position links, the
/// rights they hold, and the statuses.
pub(super) async fn read_staff(conn: &mut AnyConnection) -> ServiceResult<Staff> {
    let people: Vec<PersonRecord> = sqlx::query_as(
        "SELECT u.id, u.employee_number, u.name, u.surname, u.last_name, u.login, u.login_key, u.email, \
         u.status_id, COALESCE(s.blocks_sign_in, 0) AS blocked, u.hr_link \
         FROM users u LEFT JOIN statuses s ON s.id = u.status_id ORDER BY u.id",
    )
    .fetch_all(&mut *conn)
    .await?;
    let statuses: Vec<(i64, i64)> =
        sqlx::query_as("SELECT id, blocks_sign_in FROM statuses ORDER BY id")
            .fetch_all(&mut *conn)
            .await?;
    let rights: Vec<(i64, String)> = sqlx::query_as(
        "SELECT ur.user_id, r.name FROM user_rights ur JOIN rights r ON r.id = ur.right_id",
    )
    .fetch_all(&mut *conn)
    .await?;
    Staff::new(StaffRead {
        people: people.into_iter().map(StoredPerson::from).collect(),
        departments: all_links(conn, Link::UserDepartments).await?,
        positions: all_links(conn, Link::UserPositions).await?,
        rights,
        statuses: statuses
            .into_iter()
            .map(|(id, blocks)| (id, blocks != 0))
            .collect(),
    })
}
