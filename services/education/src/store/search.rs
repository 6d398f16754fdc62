//! The search index of courses, articles and tests (issue 25): each written
//! in the transaction of the item's own write, and found only among what the
//! reader may open. An entry's scope is the item's own id, so a learner's
//! allowed scopes are the ids assigned to them, the same `assigned_ids` the
//! reads use.

use portal_kit::ServiceResult;
use portal_kit::search::{self, Allowed, Asked, Entry, Found, Hit};
use sqlx::AnyConnection;

use super::{ARTICLES, Assignable, COURSES, Store, TESTS, Viewer};

pub const COURSE: &str = "course";
pub const ARTICLE: &str = "article";
pub const TEST: &str = "test";
/// The kinds education finds.
pub const KINDS: [&str; 3] = [COURSE, ARTICLE, TEST];

/// Each kind: the rows it indexes (id, title, then the text's parts, rich
/// text last) and whose assigned ids scope it.
const INDEXED: [(&str, &str, &Assignable); 3] = [
    (
        COURSE,
        "SELECT id, title, description, '' AS content FROM courses",
        &COURSES,
    ),
    (
        ARTICLE,
        "SELECT id, title, description, content FROM articles",
        &ARTICLES,
    ),
    (
        TEST,
        "SELECT id, title, description, '' AS content FROM tests",
        &TESTS,
    ),
];

/// Indexes the `kind` item `id` as it now stands in `conn`'s transaction.
pub(super) async fn index(conn: &mut AnyConnection, kind: &str, id: i64) -> ServiceResult<()> {
    let Some((_, rows, _)) = INDEXED.iter().find(|(k, _, _)| *k == kind) else {
        return Ok(());
    };
    let row: Option<(i64, String, String, String)> =
        sqlx::query_as(sqlx::AssertSqlSafe(format!("{rows} WHERE id = $1")))
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    let Some((id, title, description, content)) = row else {
        return Ok(search::remove(conn, kind, id).await?);
    };
    let body = format!("{description} {}", search::plain_text(&content));
    search::put(
        conn,
        &Entry {
            kind,
            entity_id: id,
            scope: Some(id),
            title: &title,
            body: &body,
        },
    )
    .await?;
    Ok(())
}

impl Store {
    /// Indexes every course, article and test the index lacks (those written
    /// before it existed); answers how many.
    pub async fn index_missing(&self) -> ServiceResult<usize> {
        let mut tx = self.write().await?;
        let mut indexed = 0;
        for (kind, rows, _) in INDEXED {
            for id in search::unindexed(&mut tx, kind, rows).await? {
                index(&mut tx, kind, id).await?;
                indexed += 1;
            }
        }
        tx.commit().await?;
        Ok(indexed)
    }

    /// What `viewer` may open of what `asked` finds, best first.
    pub async fn search(&self, viewer: Viewer, asked: &Asked) -> ServiceResult<Vec<Found>> {
        let mut conn = self.pool.acquire().await?;
        let mut scopes = Vec::new();
        for (kind, _, assignable) in INDEXED.iter().filter(|(k, _, _)| asked.wants(k)) {
            let ids = match viewer {
                Viewer::Everything => None,
                Viewer::Assignee(user_id) => {
                    let mut query = sqlx::query_scalar(assignable.assigned_ids);
                    for _ in 0..assignable.user_binds {
                        query = query.bind(user_id);
                    }
                    Some(query.fetch_all(&mut *conn).await?)
                }
            };
            scopes.push((*kind, ids));
        }
        let allowed: Vec<Allowed> = scopes
            .iter()
            .map(|(kind, ids)| Allowed {
                kind,
                scopes: ids.as_deref(),
            })
            .collect();
        let hits =
            search::find(&mut conn, self.backend, &asked.query, &allowed, asked.limit).await?;
        let mut found = Vec::with_capacity(hits.len());
        for hit in hits {
            let path_ids = path_ids(&mut conn, viewer, &hit).await?;
            found.push(Found { hit, path_ids });
        }
        Ok(found)
    }
}

/// The course (and for a test its article) through which `viewer` opens the
/// hit: the first by id; none when it is in no course (a manager's draft).
async fn path_ids(conn: &mut AnyConnection, viewer: Viewer, hit: &Hit) -> ServiceResult<Vec<i64>> {
    let (of_article, binds) = match hit.kind.as_str() {
        ARTICLE => ("a.id = $1", 1),
        TEST => (
            "(a.test_id = $1 OR a.id = (SELECT t.article_id FROM tests t WHERE t.id = $2))",
            2,
        ),
        _ => return Ok(Vec::new()),
    };
    let assigned = match viewer {
        Viewer::Everything => String::new(),
        Viewer::Assignee(_) => format!(
            " AND ca.course_id IN (SELECT cu.course_id FROM course_users cu WHERE cu.user_id = ${})",
            binds + 1
        ),
    };
    let sql = format!(
        "SELECT ca.course_id, a.id FROM articles a JOIN course_articles ca ON ca.article_id = a.id WHERE {of_article}{assigned} ORDER BY ca.course_id, a.id LIMIT 1"
    );
    let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(hit.entity_id);
    for _ in 1..binds {
        query = query.bind(hit.entity_id);
    }
    if let Viewer::Assignee(user_id) = viewer {
        query = query.bind(user_id);
    }
    let path: Option<(i64, i64)> = query.fetch_optional(&mut *conn).await?;
    Ok(match (path, hit.kind.as_str()) {
        (Some((course_id, _)), ARTICLE) => vec![course_id],
        (Some((course_id, article_id)), _) => vec![course_id, article_id],
        (None, _) => Vec::new(),
    })
}
