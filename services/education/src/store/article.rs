//! Articles: their rows, their revisions and a restore of one (a save like
//! any other), and the checks of an article's links.

use portal_kit::audit::{AuditContext, entity};
use portal_kit::day::Day;
use portal_kit::revisions::Restore;
use portal_kit::rich_text;
use portal_kit::{ServiceError, ServiceResult};
use serde::Serialize;
use sqlx::{AnyConnection, FromRow};

use super::revision::{
    ARTICLE, ARTICLE_REVISIONS, RevisionRecord, WriteContext, keep_article_of_before,
    record_article, revision, revisions,
};
use super::search;
use super::{ARTICLES, Store, Viewer, record_change};
use crate::domain::article::{ArticleDraft, MSG_ARTICLE_NOT_FOUND};
use crate::domain::course::unknown_article;
use crate::domain::revision::{MSG_REVISION_NOT_FOUND, MSG_REVISION_WITHOUT_DEADLINE};

pub(super) const ARTICLE_COLUMNS: &str =
    "SELECT a.id, a.title, a.description, a.content, a.date_deadline, a.test_id FROM articles a";
const ARTICLE_REVISION_FIELDS: &str = "SELECT r.article_id AS id, r.title, r.description, r.content, r.date_deadline, r.test_id FROM article_revisions r WHERE r.article_id = $1 AND r.id = $2";

/// Serialized: its fields as the audit log compares them, the content by its
/// fingerprint.
#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArticleRecord {
    #[serde(skip)]
    pub id: i64,
    pub title: String,
    pub description: String,
    #[serde(serialize_with = "rich_text::serialize_fingerprint")]
    pub content: String,
    pub date_deadline: Option<String>,
    pub test_id: Option<i64>,
}

impl ArticleRecord {
    /// Article `id` as `draft` writes it: what a save records and answers,
    /// without reading its content (up to 10 MB) back.
    fn written(id: i64, draft: &ArticleDraft) -> ArticleRecord {
        ArticleRecord {
            id,
            title: draft.title.clone(),
            description: draft.description.clone(),
            content: draft.content.clone(),
            date_deadline: Some(draft.deadline.to_string()),
            test_id: draft.test_id,
        }
    }
}

impl Store {
    pub async fn articles(&self, viewer: Viewer) -> ServiceResult<Vec<ArticleRecord>> {
        self.visible_rows(&ARTICLES, viewer).await
    }

    /// The article if it exists and `viewer` may see it, else NOT_FOUND.
    pub async fn article(&self, viewer: Viewer, id: i64) -> ServiceResult<ArticleRecord> {
        self.visible_row(&ARTICLES, viewer, id).await
    }

    pub async fn create_article(
        &self,
        draft: &ArticleDraft,
        ctx: WriteContext<'_>,
        audit: &AuditContext,
    ) -> ServiceResult<ArticleRecord> {
        let mut tx = self.write().await?;
        check_test(&mut tx, draft.test_id).await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO articles (title, description, content, date_deadline, test_id, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(&draft.title)
        .bind(&draft.description)
        .bind(&draft.content)
        .bind(draft.deadline.to_string())
        .bind(draft.test_id)
        .bind(ctx.now)
        .fetch_one(&mut *tx)
        .await?;
        record_article(&mut tx, id, ctx.editor, ctx.now).await?;
        search::index(&mut tx, search::ARTICLE, id).await?;
        let created = ArticleRecord::written(id, draft);
        record_change(&mut tx, audit, (entity::ARTICLE, id), None, Some(&created)).await?;
        tx.commit().await?;
        Ok(created)
    }

    /// Cleans every article's content again with `clean`; answers how many
    /// changed.
    pub async fn reclean_articles(&self, clean: impl Fn(&str) -> String) -> ServiceResult<usize> {
        let stored = rich_text::Stored {
            table: "articles",
            column: "content",
            entity: entity::ARTICLE,
            field: "content",
        };
        let mut rows = rich_text::Recleaning::start(&self.pool, stored, clean).await?;
        let mut changed = 0;
        while let Some(row) = rows.next(&self.pool).await? {
            let mut tx = self.write().await?;
            let written = row.write(&mut tx).await;
            tx.end(written).await?;
            changed += 1;
        }
        Ok(changed)
    }

    pub async fn update_article(
        &self,
        id: i64,
        draft: &ArticleDraft,
        ctx: WriteContext<'_>,
        audit: &AuditContext,
    ) -> ServiceResult<ArticleRecord> {
        let mut tx = self.write().await?;
        let saved = save_article(&mut tx, id, draft, ctx, audit).await;
        tx.end(saved).await
    }

    /// An article's revisions, newest first; NOT_FOUND for an unknown article.
    pub async fn article_revisions(&self, article_id: i64) -> ServiceResult<Vec<RevisionRecord>> {
        let mut conn = self.pool.acquire().await?;
        require_article(&mut conn, article_id).await?;
        revisions(&mut conn, ARTICLE_REVISIONS, "article_id", article_id).await
    }

    /// One revision of an article with the article's fields as it saved them.
    pub async fn article_revision(
        &self,
        article_id: i64,
        revision_id: i64,
    ) -> ServiceResult<(RevisionRecord, ArticleRecord)> {
        let mut conn = self.pool.acquire().await?;
        require_article(&mut conn, article_id).await?;
        let revision = revision(
            &mut conn,
            ARTICLE_REVISIONS,
            "article_id",
            article_id,
            revision_id,
        )
        .await?;
        let fields = article_fields(&mut conn, article_id, revision_id).await?;
        Ok((revision, fields))
    }

    /// Saves a revision's fields as the article again: a new revision.
    pub async fn restore_article(
        &self,
        article_id: i64,
        revision_id: i64,
        ctx: WriteContext<'_>,
        audit: &AuditContext,
    ) -> ServiceResult<ArticleRecord> {
        let mut tx = self.write().await?;
        let restored = async {
            let fields = article_fields(&mut tx, article_id, revision_id).await?;
            let draft = ArticleDraft {
                title: fields.title,
                description: fields.description,
                content: fields.content,
                deadline: stored_day(fields.date_deadline.as_deref())?,
                test_id: fields.test_id,
            };
            let restore = Restore::begin(&mut tx, ARTICLE, article_id, revision_id).await?;
            let saved = save_article(&mut tx, article_id, &draft, ctx, audit).await?;
            restore.mark(&mut tx).await?;
            Ok(saved)
        }
        .await;
        tx.end(restored).await
    }
}

/// Replaces article `id`'s fields with `draft` in `conn`'s write transaction,
/// with its revision and search entry; NOT_FOUND for an unknown article. The
/// article as saved.
pub(super) async fn save_article(
    conn: &mut AnyConnection,
    id: i64,
    draft: &ArticleDraft,
    ctx: WriteContext<'_>,
    audit: &AuditContext,
) -> ServiceResult<ArticleRecord> {
    check_test(conn, draft.test_id).await?;
    let old: ArticleRecord = Store::row_in(conn, &ARTICLES, id).await?;
    keep_article_of_before(conn, id).await?;
    let updated = sqlx::query(
        "UPDATE articles SET title = $1, description = $2, content = $3, date_deadline = $4, test_id = $5 WHERE id = $6",
    )
    .bind(&draft.title)
    .bind(&draft.description)
    .bind(&draft.content)
    .bind(draft.deadline.to_string())
    .bind(draft.test_id)
    .bind(id)
    .execute(&mut *conn)
    .await?;
    if updated.rows_affected() == 0 {
        return Err(ServiceError::not_found(MSG_ARTICLE_NOT_FOUND));
    }
    record_article(conn, id, ctx.editor, ctx.now).await?;
    search::index(conn, search::ARTICLE, id).await?;
    let new = ArticleRecord::written(id, draft);
    record_change(conn, audit, (entity::ARTICLE, id), Some(&old), Some(&new)).await?;
    Ok(new)
}

/// INVALID unless `article_id`, if given, names an article.
pub(super) async fn check_article(
    conn: &mut AnyConnection,
    article_id: Option<i64>,
) -> ServiceResult<()> {
    let Some(article_id) = article_id else {
        return Ok(());
    };
    let found: Option<i64> = sqlx::query_scalar("SELECT id FROM articles WHERE id = $1")
        .bind(article_id)
        .fetch_optional(&mut *conn)
        .await?;
    found.map(|_| ()).ok_or_else(|| unknown_article(article_id))
}

/// INVALID unless `test_id`, if given, names a test.
async fn check_test(conn: &mut AnyConnection, test_id: Option<i64>) -> ServiceResult<()> {
    let Some(test_id) = test_id else {
        return Ok(());
    };
    let found: Option<i64> = sqlx::query_scalar("SELECT id FROM tests WHERE id = $1")
        .bind(test_id)
        .fetch_optional(&mut *conn)
        .await?;
    found.map(|_| ()).ok_or_else(|| {
        ServiceError::invalid(format!("Тест с идентификатором {test_id} не существует"))
    })
}

async fn require_article(conn: &mut AnyConnection, article_id: i64) -> ServiceResult<()> {
    let found: Option<i64> = sqlx::query_scalar("SELECT id FROM articles WHERE id = $1")
        .bind(article_id)
        .fetch_optional(&mut *conn)
        .await?;
    found
        .map(|_| ())
        .ok_or_else(|| ServiceError::not_found(MSG_ARTICLE_NOT_FOUND))
}

async fn article_fields(
    conn: &mut AnyConnection,
    article_id: i64,
    revision_id: i64,
) -> ServiceResult<ArticleRecord> {
    sqlx::query_as(ARTICLE_REVISION_FIELDS)
        .bind(article_id)
        .bind(revision_id)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or_else(|| ServiceError::not_found(MSG_REVISION_NOT_FOUND))
}

/// A stored deadline; articles written before deadlines were required may
/// have none, and a save needs one: such a revision cannot be restored.
fn stored_day(text: Option<&str>) -> ServiceResult<Day> {
    text.and_then(Day::stored)
        .ok_or_else(|| ServiceError::invalid(MSG_REVISION_WITHOUT_DEADLINE))
}
