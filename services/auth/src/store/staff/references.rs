//! The departments and positions of a sync: created, retitled, or adopted by
//! title when they have no code yet.

use std::collections::HashMap;

use portal_kit::db::WriteError;
use portal_kit::text::name_key;
use sqlx::AnyConnection;

use super::super::search;
use super::{Action, ReferenceChange, ReferenceCounts};
use crate::domain::department::MSG_TITLE_TAKEN;
use crate::domain::staff::{MSG_POSITION_TITLE_TAKEN, ReferenceRow, RowError, Section, reason};

/// Departments and positions, kept alike by code.
#[derive(Clone, Copy, Debug)]
pub(super) enum Reference {
    Department,
    Position,
}

impl Reference {
    fn section(self) -> Section {
        match self {
            Reference::Department => Section::Departments,
            Reference::Position => Section::Positions,
        }
    }

    fn select_all(self) -> &'static str {
        match self {
            Reference::Department => "SELECT id, title, COALESCE(code, '') FROM departments",
            Reference::Position => "SELECT id, title, COALESCE(code, '') FROM positions",
        }
    }

    /// What must be unique among titles: departments' as people read them,
    /// positions' as written (the tables' unique indexes).
    fn title_key(self, title: &str) -> String {
        match self {
            Reference::Department => name_key(title),
            Reference::Position => title.to_owned(),
        }
    }

    fn title_taken(self) -> &'static str {
        match self {
            Reference::Department => MSG_TITLE_TAKEN,
            Reference::Position => MSG_POSITION_TITLE_TAKEN,
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

/// A department or position as stored.
struct KnownReference {
    id: i64,
    title: String,
    /// Empty when it has none.
    code: String,
}

/// What syncing one list of departments or positions left: the id of every
/// code (sent or known before).
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

/// Creates, retitles or adopts (by title) the departments or positions of `rows`.
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
    let mut known: Vec<KnownReference> = stored
        .into_iter()
        .map(|(id, title, code)| KnownReference { id, title, code })
        .collect();
    let mut by_code: HashMap<String, usize> = HashMap::new();
    let mut by_title: HashMap<String, usize> = HashMap::new();
    for (at, record) in known.iter().enumerate() {
        if !record.code.is_empty() {
            by_code.insert(record.code.clone(), at);
        }
        by_title.insert(reference.title_key(&record.title), at);
    }
    let mut changes = Vec::new();
    let mut counts = ReferenceCounts::default();
    let mut written = Vec::new();
    for row in rows {
        let code = row.code.as_str();
        let title_key = reference.title_key(&row.title);
        let titled = by_title.get(&title_key).copied();
        let (at, changed) = match by_code.get(code).copied() {
            Some(at) if known[at].title == row.title => {
                counts.unchanged += 1;
                continue;
            }
            Some(at) if titled.is_none_or(|holder| holder == at) => (at, vec!["title"]),
            None => match titled {
                Some(at) if known[at].code.is_empty() => {
                    let mut changed = vec!["code"];
                    if known[at].title != row.title {
                        changed.push("title");
                    }
                    (at, changed)
                }
                Some(_) => {
                    refuse_reference(errors, reference, row);
                    continue;
                }
                None => {
                    // The id links people within the transaction, even in
                    // a dry run; the answer shows none for what is undone.
                    let id = reference.insert(conn, code, &row.title, now).await?;
                    known.push(KnownReference {
                        id,
                        title: row.title.clone(),
                        code: code.to_owned(),
                    });
                    by_code.insert(code.to_owned(), known.len() - 1);
                    by_title.insert(title_key, known.len() - 1);
                    counts.created += 1;
                    written.push(ReferenceWritten {
                        id,
                        before: None,
                        title: row.title.clone(),
                        code: code.to_owned(),
                    });
                    changes.push(ReferenceChange {
                        code: code.to_owned(),
                        action: Action::Created,
                        changed: Vec::new(),
                        id,
                    });
                    continue;
                }
            },
            Some(_) => {
                refuse_reference(errors, reference, row);
                continue;
            }
        };
        reference
            .update(conn, known[at].id, code, &row.title)
            .await?;
        by_title.remove(&reference.title_key(&known[at].title));
        by_title.insert(title_key, at);
        by_code.insert(code.to_owned(), at);
        let before = (
            std::mem::replace(&mut known[at].title, row.title.clone()),
            std::mem::replace(&mut known[at].code, code.to_owned()),
        );
        written.push(ReferenceWritten {
            id: known[at].id,
            before: Some(before),
            title: row.title.clone(),
            code: code.to_owned(),
        });
        counts.changed += 1;
        changes.push(ReferenceChange {
            code: code.to_owned(),
            action: Action::Changed,
            changed,
            id: known[at].id,
        });
    }
    Ok(ReferencesSynced {
        by_code: by_code
            .into_iter()
            .map(|(code, at)| (code, known[at].id))
            .collect(),
        changes,
        counts,
        written,
    })
}

fn refuse_reference(errors: &mut Vec<RowError>, reference: Reference, row: &ReferenceRow) {
    errors.push(RowError {
        section: reference.section(),
        index: Some(row.index),
        key: row.code.as_str().to_owned(),
        message: reference.title_taken().to_owned(),
        reason: reason::TITLE_TAKEN,
    });
}
