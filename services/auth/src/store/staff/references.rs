//! The departments and positions of a sync written as
//! [`KnownReferences`] decides: created, retitled, or adopted by title when
//! they have no code yet.

use std::collections::HashMap;

use portal_kit::db::WriteError;
use portal_kit::text::name_key;
use sqlx::AnyConnection;

use super::super::search;
use super::{ReferenceChange, ReferenceCounts};
use crate::domain::staff::{ReferenceRow, RowError};
use crate::domain::staff_plan::Action;
use crate::domain::staff_plan::references::{
    KnownReference, KnownReferences, Reference, ReferenceStep,
};

// The tables of departments and positions: the store's half of `Reference`.
impl Reference {
    fn select_all(self) -> &'static str {
        match self {
            Reference::Department => "SELECT id, title, COALESCE(code, '') FROM departments",
            Reference::Position => "SELECT id, title, COALESCE(code, '') FROM positions",
        }
    }

    async fn insert(
        self,
        conn: &mut AnyConnection,
        code: &str,
        title: &str,
        now: i64,
    ) -> Result<i64, WriteError> {
        let query = match self {
            Reference::Department => sqlx::query_scalar(
                "INSERT INTO departments (title, title_key, code, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
            )
            .bind(title.to_owned())
            .bind(name_key(title))
            .bind(code.to_owned())
            .bind(now),
            Reference::Position => {
                sqlx::query_scalar("INSERT INTO positions (title, code) VALUES ($1, $2) RETURNING id")
                    .bind(title.to_owned())
                    .bind(code.to_owned())
            }
        };
        let id = query.fetch_one(&mut *conn).await?;
        if let Reference::Department = self {
            search::index_department(conn, id).await?;
        }
        Ok(id)
    }

    async fn update(
        self,
        conn: &mut AnyConnection,
        id: i64,
        code: &str,
        title: &str,
    ) -> Result<(), WriteError> {
        let query = match self {
            Reference::Department => sqlx::query(
                "UPDATE departments SET title = $1, title_key = $2, code = $3 WHERE id = $4",
            )
            .bind(title.to_owned())
            .bind(name_key(title))
            .bind(code.to_owned())
            .bind(id),
            Reference::Position => {
                sqlx::query("UPDATE positions SET title = $1, code = $2 WHERE id = $3")
                    .bind(title.to_owned())
                    .bind(code.to_owned())
                    .bind(id)
            }
        };
        query.execute(&mut *conn).await?;
        if let Reference::Department = self {
            search::index_department(conn, id).await?;
        }
        Ok(())
    }
}

/// What syncing one list of departments or positions left: the id of every
/// code (sent or known before).
#[derive(Default)]
pub(super) struct ReferencesSynced {
    pub(super) by_code: HashMap<String, i64>,
    pub(super) changes: Vec<ReferenceChange>,
    pub(super) counts: ReferenceCounts,
    pub(super) written: Vec<ReferenceWritten>,
}

/// A department or position the sync created or changed, for its audit
/// record: its title and code before (none: created) and after.
pub(super) struct ReferenceWritten {
    pub(super) id: i64,
    pub(super) before: Option<(String, String)>,
    pub(super) title: String,
    pub(super) code: String,
}

impl ReferencesSynced {
    fn created(&mut self, id: i64, row: &ReferenceRow) {
        let code = row.code.as_str().to_owned();
        self.counts.created += 1;
        self.written.push(ReferenceWritten {
            id,
            before: None,
            title: row.title.clone(),
            code: code.clone(),
        });
        self.changes.push(ReferenceChange {
            code,
            action: Action::Created,
            changed: Vec::new(),
            id,
        });
    }

    fn changed(
        &mut self,
        id: i64,
        before: (String, String),
        row: &ReferenceRow,
        changed: Vec<&'static str>,
    ) {
        let code = row.code.as_str().to_owned();
        self.counts.changed += 1;
        self.written.push(ReferenceWritten {
            id,
            before: Some(before),
            title: row.title.clone(),
            code: code.clone(),
        });
        self.changes.push(ReferenceChange {
            code,
            action: Action::Changed,
            changed,
            id,
        });
    }
}

/// Creates, retitles or adopts (by title) the departments or positions of
/// `rows`, as [`KnownReferences`] decides row by row.
pub(super) async fn sync_references(
    conn: &mut AnyConnection,
    reference: Reference,
    rows: &[ReferenceRow],
    now: i64,
    errors: &mut Vec<RowError>,
) -> Result<ReferencesSynced, WriteError> {
    let stored: Vec<(i64, String, String)> = sqlx::query_as(reference.select_all())
        .fetch_all(&mut *conn)
        .await?;
    let mut known = KnownReferences::new(
        reference,
        stored
            .into_iter()
            .map(|(id, title, code)| KnownReference { id, title, code })
            .collect(),
    );
    let mut synced = ReferencesSynced::default();
    for row in rows {
        let code = row.code.as_str();
        match known.step(row) {
            ReferenceStep::Unchanged => synced.counts.unchanged += 1,
            ReferenceStep::Refused => errors.push(known.refusal(row)),
            ReferenceStep::Create => {
                // The id links people within the transaction, even in
                // a dry run; the answer shows none for what is undone.
                let id = reference.insert(conn, code, &row.title, now).await?;
                known.created(id, row);
                synced.created(id, row);
            }
            ReferenceStep::Update { at, changed } => {
                let id = known.id(at);
                reference.update(conn, id, code, &row.title).await?;
                let before = known.updated(at, row);
                synced.changed(id, before, row, changed);
            }
        }
    }
    synced.by_code = known.ids_by_code();
    Ok(synced)
}
