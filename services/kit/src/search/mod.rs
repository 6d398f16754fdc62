//! Finding a service's own rows by a word (issue 25): the same analysis of
//! Russian text on SQLite and PostgreSQL, so a query finds the same rows on
//! both and on any number of replicas.
//!
//! Words are analysed here, in Rust, not by either database: lowercased, `ё`
//! read as `е`, Latin letters that look Cyrillic (a typed `c`, `o`, `p`, `x`…)
//! read as Cyrillic inside a word that has Cyrillic, and stemmed with
//! Snowball's Russian stemmer (English for Latin words), so `дефибрилляторы`
//! and «Дефибриллятор» meet at `дефибриллятор`. The stems are what the
//! database indexes: SQLite's FTS5 and PostgreSQL's `tsvector` with the
//! `simple` configuration, which only split them again on spaces. The last
//! word of a query is a prefix while it may still be being typed (results as
//! one types, a prefix of an inventory number; see [`Query`]); every word
//! must match.
//!
//! A service keeps one row per item in `search_entries` (its migration holds
//! the table, [`SQLITE_SCHEMA`] / [`POSTGRES_SCHEMA`]) and writes it in the
//! same transaction as the item ([`put`], [`remove`]). A row's `scope` is what
//! the service's access rule filters on (the course of an article, the
//! department of a unit); [`find`] takes the scopes the reader may open, so a
//! hit the reader may not open is never read, let alone returned.

use snippet::{rank, snippet};
use std::collections::HashSet;
use std::ops::Range;
use std::sync::LazyLock;

mod rpc;
mod snippet;
mod typos;

pub use rpc::{answer, answer_deprecated};

use rust_stemmers::{Algorithm, Stemmer};
use sqlx::AnyConnection;

use crate::db::Backend;

/// The table a service's migration creates, on SQLite: the rows, and an FTS5
/// index of their stems kept in step by triggers.
pub const SQLITE_SCHEMA: &str = "
CREATE TABLE search_entries (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    entity_id BIGINT NOT NULL,
    scope BIGINT,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    terms TEXT NOT NULL,
    UNIQUE (kind, entity_id)
);
CREATE VIRTUAL TABLE search_terms USING fts5(
    terms, content = 'search_entries', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 0'
);
CREATE TRIGGER search_entries_added AFTER INSERT ON search_entries BEGIN
    INSERT INTO search_terms (rowid, terms) VALUES (new.id, new.terms);
END;
CREATE TRIGGER search_entries_removed AFTER DELETE ON search_entries BEGIN
    INSERT INTO search_terms (search_terms, rowid, terms) VALUES ('delete', old.id, old.terms);
END;
CREATE TRIGGER search_entries_changed AFTER UPDATE ON search_entries BEGIN
    INSERT INTO search_terms (search_terms, rowid, terms) VALUES ('delete', old.id, old.terms);
    INSERT INTO search_terms (rowid, terms) VALUES (new.id, new.terms);
END;
";

/// The same on PostgreSQL: the stems as a generated `tsvector` with a GIN index.
pub const POSTGRES_SCHEMA: &str = "
CREATE TABLE search_entries (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    entity_id BIGINT NOT NULL,
    scope BIGINT,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    terms TEXT NOT NULL,
    terms_vector TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED,
    UNIQUE (kind, entity_id)
);
CREATE INDEX search_entries_terms ON search_entries USING GIN (terms_vector);
";

/// Words of a query beyond this are ignored: nobody types more, and each is a
/// condition the index checks.
const MAX_QUERY_WORDS: usize = 8;
/// Letters of a word that count, in the index and in a query alike (so a
/// prefix still matches): no word of a hospital's is longer, and a pasted
/// run of thousands of letters must not become one term of that size.
const MAX_WORD_CHARS: usize = 64;
/// Characters of a snippet around its first marked word.
const SNIPPET_CHARS: usize = 160;

static RUSSIAN: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::Russian));
static ENGLISH: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// One item as a service indexes it.
#[derive(Clone, Debug)]
pub struct Entry<'a> {
    pub kind: &'a str,
    pub entity_id: i64,
    /// What the service's access rule filters on; `None` for an item anyone
    /// who may search this kind may open.
    pub scope: Option<i64>,
    pub title: &'a str,
    /// Plain text (a rich text's words, not its HTML).
    pub body: &'a str,
}

impl Entry<'_> {
    /// The stems the index stores for it: its title's, then its text's.
    pub fn terms(&self) -> String {
        format!("{} {}", terms(self.title), terms(self.body))
    }
}

/// An item a query found.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub kind: String,
    pub entity_id: i64,
    pub title: String,
    /// Plain text around the first matching word, HTML-escaped, each matching
    /// word in `<mark>`.
    pub snippet: String,
    /// Higher is better, comparable across services: query words found in
    /// the title count twice those found only in the text.
    pub rank: f64,
}

/// A query as typed, analysed: its words' stems, the last one a prefix.
///
/// A last word the stemmer shortened was typed whole (`пациента`), so it
/// matches its stem, or a longer word that starts with it as typed; only a
/// word still as typed (`пацие`, an inventory number's start) is a prefix
/// of stems. A prefix costs the full-text index every match of every stem
/// it begins (all of a common word's, on either backend), a stem only its
/// own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    stems: Vec<String>,
    /// The last word as typed (folded), when its stem is shorter.
    last_typed: Option<String>,
    /// For each word, the other stems it is read as: none, but in a query
    /// asked again with a typo forgiven ([`typos`]), where each longer word
    /// also matches the stems one edit away.
    near: Vec<Vec<String>>,
}

impl Query {
    /// `None` when the text has no word to look for.
    pub fn parse(text: &str) -> Option<Query> {
        let mut seen = HashSet::new();
        let analysed: Vec<(String, String)> = words(text)
            .map(|(_, word)| {
                let stem = stem(&word);
                (word, stem)
            })
            .filter(|(_, stem)| seen.insert(stem.clone()))
            .take(MAX_QUERY_WORDS)
            .collect();
        let (last_word, last_stem) = analysed.last()?;
        let last_typed = (last_word != last_stem).then(|| last_word.clone());
        let stems: Vec<String> = analysed.into_iter().map(|(_, stem)| stem).collect();
        Some(Query {
            near: vec![Vec::new(); stems.len()],
            stems,
            last_typed,
        })
    }

    /// The query with one typo forgiven in each word long enough to have
    /// one ([`typos`]); `None` when no word is.
    fn forgiving(&self) -> Option<Query> {
        let near: Vec<Vec<String>> = self.stems.iter().map(|s| typos::neighbours(s)).collect();
        near.iter().any(|n| !n.is_empty()).then(|| Query {
            stems: self.stems.clone(),
            last_typed: self.last_typed.clone(),
            near,
        })
    }

    /// The starts a folded word must have to match one of the query's
    /// words, to test before it is stemmed (stemming every word of a long
    /// text is a search's main cost): a stem keeps its word's start, all but
    /// the letter an English stem may change (`happy` → `happi`).
    fn starts(&self) -> Vec<&str> {
        self.stems
            .iter()
            .map(|stem| &stem[..stem.char_indices().last().map_or(0, |(i, _)| i)])
            .collect()
    }

    /// Whether an analysed word of an item matches one of the query's words.
    fn matches(&self, word_stem: &str) -> bool {
        (0..self.stems.len()).any(|i| self.word_matches(i, word_stem))
    }

    /// Whether it matches the query's word `i`: the whole stem, or for the
    /// last word its start (see [`Query`]).
    fn word_matches(&self, i: usize, word_stem: &str) -> bool {
        let stem = self.stems[i].as_str();
        if self.near[i].iter().any(|near| near == word_stem) {
            return true;
        }
        if i < self.stems.len() - 1 {
            return word_stem == stem;
        }
        match &self.last_typed {
            Some(typed) => word_stem == stem || word_stem.starts_with(typed.as_str()),
            None => word_stem.starts_with(stem),
        }
    }

    /// FTS5's query: every word, the last as [`Query`] says. Stems and
    /// words hold only letters and digits, so quoting them is all the
    /// escaping they need.
    fn fts5(&self) -> String {
        self.written(&Syntax {
            quote: '"',
            prefix: "*",
            or: " OR ",
            and: " AND ",
        })
    }

    /// PostgreSQL's `tsquery` in the `simple` configuration, the same query.
    fn tsquery(&self) -> String {
        self.written(&Syntax {
            quote: '\'',
            prefix: ":*",
            or: " | ",
            and: " & ",
        })
    }

    /// The query in `syntax`: every stem whole, but the last as [`Query`]
    /// says: its stem or the word as typed as a prefix, or a prefix itself.
    fn written(&self, syntax: &Syntax) -> String {
        let Syntax {
            quote: q,
            prefix,
            or,
            and,
        } = syntax;
        let last = self.stems.len().saturating_sub(1);
        self.stems
            .iter()
            .zip(&self.near)
            .enumerate()
            .map(|(i, (stem, near))| {
                if !near.is_empty() {
                    // Read as itself or any word one edit away: whole words.
                    let any: Vec<String> = [stem]
                        .into_iter()
                        .chain(near)
                        .map(|word| format!("{q}{word}{q}"))
                        .collect();
                    format!("({})", any.join(or))
                } else if i < last {
                    format!("{q}{stem}{q}")
                } else {
                    match &self.last_typed {
                        Some(typed) => format!("({q}{stem}{q}{or}{q}{typed}{q}{prefix})"),
                        None => format!("{q}{stem}{q}{prefix}"),
                    }
                }
            })
            .collect::<Vec<_>>()
            .join(and)
    }
}

/// How a full-text query language writes a word, a prefix and the two joins.
struct Syntax {
    quote: char,
    prefix: &'static str,
    or: &'static str,
    and: &'static str,
}

/// The stems of `text`, space-separated: what the index stores.
pub fn terms(text: &str) -> String {
    words(text)
        .map(|(_, word)| stem(&word))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Indexes `entry`, replacing what was indexed for it before.
pub async fn put(connection: &mut AnyConnection, entry: &Entry<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO search_entries (kind, entity_id, scope, title, body, terms)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (kind, entity_id) DO UPDATE SET scope = excluded.scope,
             title = excluded.title, body = excluded.body, terms = excluded.terms",
    )
    .bind(entry.kind)
    .bind(entry.entity_id)
    .bind(entry.scope)
    .bind(entry.title)
    .bind(entry.body)
    .bind(entry.terms())
    .execute(connection)
    .await?;
    Ok(())
}

/// Forgets an item; nothing happens when it was never indexed.
pub async fn remove(
    connection: &mut AnyConnection,
    kind: &str,
    entity_id: i64,
) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM search_entries WHERE kind = $1 AND entity_id = $2")
        .bind(kind)
        .bind(entity_id)
        .execute(connection)
        .await?;
    Ok(())
}

/// The reason code of a search without a word to look for.
pub const REASON_EMPTY_QUERY: &str = "search-query-empty";
pub const MSG_EMPTY_QUERY: &str = "Введите слово для поиска";
pub const REASON_UNKNOWN_KIND: &str = "search-kind-unknown";
pub const MSG_UNKNOWN_KIND: &str = "Неизвестный вид результатов поиска";
/// Every kind of hit the portal has, across its services.
pub const KINDS: [&str; 8] = [
    "course",
    "article",
    "test",
    "environment-model",
    "environment",
    "document",
    "user",
    "department",
];
/// Hits of one search when the caller names no limit, and at most.
pub const DEFAULT_LIMIT: usize = 20;
pub const MAX_LIMIT: usize = 50;

/// A `Search` call's request as a service reads it: the query analysed, the
/// kinds asked for among those the service has, and the limit.
#[derive(Clone, Debug)]
pub struct Asked {
    pub query: Query,
    kinds: Vec<&'static str>,
    pub limit: usize,
}

/// `kinds` as asked, each one of [`KINDS`]; a misspelt kind is refused
/// rather than silently finding nothing.
pub fn known_kinds<S: AsRef<str>>(kinds: &[S]) -> Result<&[S], crate::ServiceError> {
    match kinds.iter().find(|kind| !KINDS.contains(&kind.as_ref())) {
        Some(unknown) => Err(crate::ServiceError::invalid(format!(
            "{MSG_UNKNOWN_KIND}: {}",
            unknown.as_ref()
        ))
        .because(REASON_UNKNOWN_KIND)),
        None => Ok(kinds),
    }
}

impl Asked {
    /// `kinds` empty asks for every one of `offered`; a kind the service does
    /// not have is ignored (the gateway sends one list to every service), a
    /// kind the portal does not have is refused ([`known_kinds`]).
    pub fn parse(
        query: &str,
        kinds: &[String],
        limit: i32,
        offered: &[&'static str],
    ) -> Result<Asked, crate::ServiceError> {
        let query = Query::parse(query).ok_or_else(|| {
            crate::ServiceError::invalid(MSG_EMPTY_QUERY).because(REASON_EMPTY_QUERY)
        })?;
        let kinds = known_kinds(kinds)?;
        let kinds = offered
            .iter()
            .copied()
            .filter(|kind| kinds.is_empty() || kinds.iter().any(|k| k == kind))
            .collect();
        let limit = usize::try_from(limit)
            .ok()
            .filter(|limit| *limit > 0)
            .map_or(DEFAULT_LIMIT, |limit| limit.min(MAX_LIMIT));
        Ok(Asked {
            query,
            kinds,
            limit,
        })
    }

    pub fn wants(&self, kind: &str) -> bool {
        self.kinds.contains(&kind)
    }
}

/// A hit as a service answers it: with the ids above the item on its web
/// page's path, outermost first, from which the gateway makes its link.
#[derive(Clone, Debug)]
pub struct Found {
    pub hit: Hit,
    pub path_ids: Vec<i64>,
}

/// The words of a rich text (sanitised HTML) for the index: tags dropped,
/// the entities the sanitiser writes read back as characters.
pub fn plain_text(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The ids of `table`'s rows (`SELECT id FROM …` with its own conditions)
/// not indexed as `kind`: what a start indexes of rows written before the
/// index existed. Cheap when nothing is missing.
pub async fn unindexed(
    connection: &mut AnyConnection,
    kind: &str,
    rows: &'static str,
) -> sqlx::Result<Vec<i64>> {
    let sql = format!(
        "SELECT r.id FROM ({rows}) r WHERE NOT EXISTS (SELECT 1 FROM search_entries s WHERE s.kind = $1 AND s.entity_id = r.id) ORDER BY r.id"
    );
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(kind)
        .fetch_all(connection)
        .await
}

/// What a reader may find of one kind: everything of it, or only the items
/// whose scope is among these.
#[derive(Clone, Debug)]
pub struct Allowed<'a> {
    pub kind: &'a str,
    pub scopes: Option<&'a [i64]>,
}

/// The best `limit` items of the allowed kinds matching `query`, best first;
/// when none does, those matching it with one typo forgiven ([`typos`]).
pub async fn find(
    connection: &mut AnyConnection,
    backend: Backend,
    query: &Query,
    allowed: &[Allowed<'_>],
    limit: usize,
) -> sqlx::Result<Vec<Hit>> {
    let hits = find_as(connection, backend, query, allowed, limit).await?;
    let Some(forgiving) = query.forgiving().filter(|_| hits.is_empty()) else {
        return Ok(hits);
    };
    let mut hits = find_as(connection, backend, &forgiving, allowed, limit).await?;
    // Below any other service's hit of the query as typed.
    for hit in &mut hits {
        hit.rank /= 2.0;
    }
    Ok(hits)
}

/// The hits of `query` exactly as it reads.
async fn find_as(
    connection: &mut AnyConnection,
    backend: Backend,
    query: &Query,
    allowed: &[Allowed<'_>],
    limit: usize,
) -> sqlx::Result<Vec<Hit>> {
    let query_text = match backend {
        Backend::Sqlite => query.fts5(),
        Backend::Postgres => query.tsquery(),
    };
    let mut candidates = Vec::new();
    for kind in allowed {
        let scopes = kind.scopes.unwrap_or_default();
        if kind.scopes.is_some() && scopes.is_empty() {
            continue;
        }
        let sql = select_sql(backend, scopes.len());
        let mut select =
            sqlx::query_as::<_, (String, i64, String, String)>(sqlx::AssertSqlSafe(sql))
                .bind(&query_text)
                .bind(kind.kind);
        for scope in scopes {
            select = select.bind(*scope);
        }
        let rows = select
            .bind(candidates_of(limit))
            .fetch_all(&mut *connection)
            .await?;
        candidates.extend(rows.into_iter().map(|(kind, entity_id, title, body)| {
            (rank(query, &title), kind, entity_id, title, body)
        }));
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.3.cmp(&b.3)));
    candidates.truncate(limit);
    // Only the hits kept get a snippet: it reads the whole text, a PDF's too.
    Ok(candidates
        .into_iter()
        .map(|(rank, kind, entity_id, title, body)| Hit {
            snippet: snippet(query, &title, &body),
            rank,
            kind,
            entity_id,
            title,
        })
        .collect())
}

/// One kind's candidates: `$1` the query, `$2` the kind, then the scopes, then
/// how many. The database's own rank picks them among the newest
/// [`RANKED`] matches; the final order is ours, the same on both backends.
///
/// On SQLite the full-text index is the outer loop, checking each match's
/// kind and scope against the rows of that kind (the covering index of
/// `UNIQUE (kind, entity_id)`, read once), not by reading each match's
/// row; the unary `+` keeps the planner from handing that list to FTS5,
/// which would run the whole full-text query once per row (a minute over
/// 10,000 rows whose words are common). Only the top rows' text is read.
fn select_sql(backend: Backend, scopes: usize) -> String {
    let in_scopes = |alias: &str| {
        if scopes == 0 {
            String::new()
        } else {
            let list: Vec<String> = (3..3 + scopes).map(|n| format!("${n}")).collect();
            format!(" AND {alias}.scope IN ({})", list.join(", "))
        }
    };
    let limit = 3 + scopes;
    match backend {
        Backend::Sqlite => format!(
            "SELECT e.kind, e.entity_id, e.title, e.body FROM (
                 SELECT search_terms.rowid AS id, bm25(search_terms) AS score FROM search_terms
                 WHERE search_terms MATCH $1 AND +search_terms.rowid IN
                     (SELECT s.id FROM search_entries s WHERE s.kind = $2{})
                 ORDER BY search_terms.rowid DESC LIMIT {RANKED}
             ) ranked CROSS JOIN search_entries e ON e.id = ranked.id
             ORDER BY ranked.score LIMIT ${limit}",
            in_scopes("s")
        ),
        Backend::Postgres => format!(
            "SELECT e.kind, e.entity_id, e.title, e.body FROM (
                 SELECT m.id, m.terms_vector FROM search_entries m
                 WHERE m.terms_vector @@ to_tsquery('simple', $1) AND m.kind = $2{}
                 ORDER BY m.id DESC LIMIT {RANKED}
             ) ranked JOIN search_entries e ON e.id = ranked.id
             ORDER BY ts_rank(ranked.terms_vector, to_tsquery('simple', $1)) DESC LIMIT ${limit}",
            in_scopes("m")
        ),
    }
}

/// Matches of one kind the database ranks, the newest: a word in more items
/// than this (one nearly every text has) tells them apart no better by a
/// rank over all of them, and ranking every match took 0.4–1.5 s at 50,000
/// (issue 25's bench); a query with fewer matches is ranked whole.
const RANKED: usize = 500;

/// Rows the database hands over for each kind: more than asked, so our own
/// order can still put a title match ahead of the database's choice.
fn candidates_of(limit: usize) -> i64 {
    i64::try_from(limit.saturating_mul(4).max(20)).unwrap_or(i64::MAX)
}

/// Each word of `text` (a run of letters and digits) with where it stands,
/// lowercased and folded.
fn words(text: &str) -> impl Iterator<Item = (Range<usize>, String)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        while chars.next_if(|(_, c)| !c.is_alphanumeric()).is_some() {}
        let (start, _) = *chars.peek()?;
        let mut end = start;
        while let Some((i, c)) = chars.next_if(|(_, c)| c.is_alphanumeric()) {
            end = i + c.len_utf8();
        }
        let word: String = text[start..end].chars().take(MAX_WORD_CHARS).collect();
        Some((start..end, fold(&word)))
    })
}

/// Lowercased, `ё` as `е`, and in a word with Cyrillic, Latin lookalikes as
/// the Cyrillic letters they pass for.
fn fold(word: &str) -> String {
    let lower = word.to_lowercase();
    let cyrillic = lower.chars().any(is_cyrillic);
    lower
        .chars()
        .map(|c| match c {
            'ё' => 'е',
            c if cyrillic => cyrillic_lookalike(c).unwrap_or(c),
            c => c,
        })
        .collect()
}

fn is_cyrillic(c: char) -> bool {
    matches!(c, '\u{0400}'..='\u{04FF}')
}

/// The Cyrillic letter a lowercased Latin one is typed for.
fn cyrillic_lookalike(c: char) -> Option<char> {
    Some(match c {
        'a' => 'а',
        'b' => 'в',
        'c' => 'с',
        'e' => 'е',
        'h' => 'н',
        'k' => 'к',
        'm' => 'м',
        'o' => 'о',
        'p' => 'р',
        't' => 'т',
        'x' => 'х',
        'y' => 'у',
        _ => return None,
    })
}

/// A folded word's stem; digits and mixed tokens (inventory numbers) stay whole.
fn stem(word: &str) -> String {
    if word.chars().any(|c| c.is_ascii_digit()) {
        word.to_owned()
    } else if word.chars().any(is_cyrillic) {
        RUSSIAN.stem(word).into_owned()
    } else {
        ENGLISH.stem(word).into_owned()
    }
}

#[cfg(test)]
mod tests;
