//! The departments and positions of a sync: for each row, whether to create
//! it, retitle the one with its code, or adopt one by title that has no code
//! yet. Decided row by row against what is known, which grows as the store
//! writes each step (a created one's id comes from its insert).

use std::collections::HashMap;

use portal_kit::text::name_key;

use crate::domain::department::MSG_TITLE_TAKEN;
use crate::domain::staff::{MSG_POSITION_TITLE_TAKEN, ReferenceRow, RowError, Section, reason};

/// Departments and positions, kept alike by code.
#[derive(Clone, Copy, Debug)]
pub enum Reference {
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
}

/// A department or position as stored.
pub struct KnownReference {
    pub id: i64,
    pub title: String,
    /// Empty when it has none.
    pub code: String,
}

/// What the sync does with one row.
#[derive(Debug, PartialEq, Eq)]
pub enum ReferenceStep {
    /// The one with the row's code has its title already.
    Unchanged,
    /// Another one has the title: the row is refused.
    Refused,
    Create,
    /// Retitle the one at `at` that has the row's code, or give the row's
    /// code to the one at `at` that has its title and no code.
    Update {
        at: usize,
        changed: Vec<&'static str>,
    },
}

/// The departments or positions as the sync has left them so far.
pub struct KnownReferences {
    reference: Reference,
    known: Vec<KnownReference>,
    by_code: HashMap<String, usize>,
    by_title: HashMap<String, usize>,
}

impl KnownReferences {
    pub fn new(reference: Reference, known: Vec<KnownReference>) -> Self {
        let mut by_code = HashMap::new();
        let mut by_title = HashMap::new();
        for (at, record) in known.iter().enumerate() {
            if !record.code.is_empty() {
                by_code.insert(record.code.clone(), at);
            }
            by_title.insert(reference.title_key(&record.title), at);
        }
        KnownReferences {
            reference,
            known,
            by_code,
            by_title,
        }
    }

    /// What to do with `row`.
    pub fn step(&self, row: &ReferenceRow) -> ReferenceStep {
        let titled = self
            .by_title
            .get(&self.reference.title_key(&row.title))
            .copied();
        match self.by_code.get(row.code.as_str()).copied() {
            Some(at) if self.known[at].title == row.title => ReferenceStep::Unchanged,
            Some(at) if titled.is_none_or(|holder| holder == at) => ReferenceStep::Update {
                at,
                changed: vec!["title"],
            },
            Some(_) => ReferenceStep::Refused,
            None => match titled {
                Some(at) if self.known[at].code.is_empty() => {
                    let mut changed = vec!["code"];
                    if self.known[at].title != row.title {
                        changed.push("title");
                    }
                    ReferenceStep::Update { at, changed }
                }
                Some(_) => ReferenceStep::Refused,
                None => ReferenceStep::Create,
            },
        }
    }

    /// The id of the one at `at`.
    pub fn id(&self, at: usize) -> i64 {
        self.known[at].id
    }

    /// Knows `row` as created with `id`.
    pub fn created(&mut self, id: i64, row: &ReferenceRow) {
        let code = row.code.as_str();
        self.known.push(KnownReference {
            id,
            title: row.title.clone(),
            code: code.to_owned(),
        });
        self.by_code.insert(code.to_owned(), self.known.len() - 1);
        self.by_title
            .insert(self.reference.title_key(&row.title), self.known.len() - 1);
    }

    /// Knows the one at `at` as having `row`'s title and code; answers its
    /// title and code before.
    pub fn updated(&mut self, at: usize, row: &ReferenceRow) -> (String, String) {
        let code = row.code.as_str();
        self.by_title
            .remove(&self.reference.title_key(&self.known[at].title));
        self.by_title
            .insert(self.reference.title_key(&row.title), at);
        self.by_code.insert(code.to_owned(), at);
        (
            std::mem::replace(&mut self.known[at].title, row.title.clone()),
            std::mem::replace(&mut self.known[at].code, code.to_owned()),
        )
    }

    /// The refusal of `row` ([`ReferenceStep::Refused`]).
    pub fn refusal(&self, row: &ReferenceRow) -> RowError {
        RowError {
            section: self.reference.section(),
            index: Some(row.index),
            key: row.code.as_str().to_owned(),
            message: self.reference.title_taken().to_owned(),
            reason: reason::TITLE_TAKEN,
        }
    }

    /// The id of every code, sent or known before.
    pub fn ids_by_code(&self) -> HashMap<String, i64> {
        self.by_code
            .iter()
            .map(|(code, &at)| (code.clone(), self.known[at].id))
            .collect()
    }
}
