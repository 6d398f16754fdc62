//! Courses: their rows, their assignees and their articles in order.

use portal_kit::audit::{AuditContext, entity};
use portal_kit::{ServiceError, ServiceResult};
use serde::Serialize;
use sqlx::{AnyConnection, FromRow};

use super::article::{ARTICLE_COLUMNS, ArticleRecord, check_article};
use super::assignment::insert_assignee;
use super::search;
use super::{COURSES, Store, Viewer, record_change};
use crate::domain::course::{CourseDraft, MSG_COURSE_NOT_FOUND};
use crate::domain::integration::Author;

pub(super) const COURSE_COLUMNS: &str = "SELECT c.id, c.title, c.description, c.date_creation, c.date_deadline, c.validity_months FROM courses c";

/// Serialized: its fields as the audit log compares them.
#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CourseRecord {
    #[serde(skip)]
    pub id: i64,
    pub title: String,
    pub description: String,
    #[serde(skip)]
    pub date_creation: i64,
    pub date_deadline: String,
    /// 0: passes never expire.
    pub validity_months: i64,
}

/// A course as the audit log compares it: its fields, its assignees (user
/// ids, ascending) and its articles in order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AuditedCourse {
    #[serde(flatten)]
    course: CourseRecord,
    assignees: Vec<i64>,
    articles: Vec<i64>,
}

impl AuditedCourse {
    /// Course `id` as `conn`'s transaction sees it.
    async fn read(conn: &mut AnyConnection, id: i64) -> ServiceResult<AuditedCourse> {
        let course = Store::row_in(conn, &COURSES, id).await?;
        let assignees = sqlx::query_scalar(
            "SELECT user_id FROM course_users WHERE course_id = $1 ORDER BY user_id",
        )
        .bind(id)
        .fetch_all(&mut *conn)
        .await?;
        let articles = sqlx::query_scalar(
            "SELECT article_id FROM course_articles WHERE course_id = $1 ORDER BY position",
        )
        .bind(id)
        .fetch_all(&mut *conn)
        .await?;
        Ok(AuditedCourse {
            course,
            assignees,
            articles,
        })
    }
}

impl Store {
    pub async fn courses(&self, viewer: Viewer) -> ServiceResult<Vec<CourseRecord>> {
        self.visible_rows(&COURSES, viewer).await
    }

    /// The course if it exists and `viewer` may see it, else NOT_FOUND.
    pub async fn course(&self, viewer: Viewer, id: i64) -> ServiceResult<CourseRecord> {
        self.visible_row(&COURSES, viewer, id).await
    }

    pub async fn course_assignees(&self, course_id: i64) -> ServiceResult<Vec<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT user_id FROM course_users WHERE course_id = $1 ORDER BY user_id",
        )
        .bind(course_id)
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn course_articles(&self, course_id: i64) -> ServiceResult<Vec<ArticleRecord>> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{ARTICLE_COLUMNS} JOIN course_articles ca ON ca.article_id = a.id WHERE ca.course_id = $1 ORDER BY ca.position"
        )))
        .bind(course_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// A new course; its assignees are recorded as assigned by `author`.
    pub async fn create_course(
        &self,
        draft: &CourseDraft,
        author: Author,
        now: i64,
        audit: &AuditContext,
    ) -> ServiceResult<CourseRecord> {
        let mut tx = self.write().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO courses (title, description, date_creation, date_deadline, validity_months) VALUES ($1, $2, $3, $4, $5) RETURNING id",
        )
        .bind(&draft.title)
        .bind(&draft.description)
        .bind(now)
        .bind(draft.deadline.to_string())
        .bind(draft.validity_months.unwrap_or(0))
        .fetch_one(&mut *tx)
        .await?;
        write_course_links(&mut tx, id, draft, author, now).await?;
        search::index(&mut tx, search::COURSE, id).await?;
        let created = AuditedCourse::read(&mut tx, id).await?;
        record_change(&mut tx, audit, (entity::COURSE, id), None, Some(&created)).await?;
        tx.commit().await?;
        Ok(created.course)
    }

    /// Replaces the course's fields, assignees and articles. An assignee who
    /// stays keeps their row (their own deadline and who assigned them); one
    /// added is recorded as assigned by `author`.
    pub async fn update_course(
        &self,
        id: i64,
        draft: &CourseDraft,
        author: Author,
        now: i64,
        audit: &AuditContext,
    ) -> ServiceResult<CourseRecord> {
        let mut tx = self.write().await?;
        let old = AuditedCourse::read(&mut tx, id).await?;
        let updated = sqlx::query(
            "UPDATE courses SET title = $1, description = $2, date_deadline = $3, validity_months = COALESCE($4, validity_months) WHERE id = $5",
        )
        .bind(&draft.title)
        .bind(&draft.description)
        .bind(draft.deadline.to_string())
        .bind(draft.validity_months)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Err(ServiceError::not_found(MSG_COURSE_NOT_FOUND));
        }
        for user_id in old
            .assignees
            .iter()
            .copied()
            .filter(|user_id| !draft.assignees.contains(user_id))
        {
            sqlx::query("DELETE FROM course_users WHERE course_id = $1 AND user_id = $2")
                .bind(id)
                .bind(user_id)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query("DELETE FROM course_articles WHERE course_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        write_course_links(&mut tx, id, draft, author, now).await?;
        search::index(&mut tx, search::COURSE, id).await?;
        let new = AuditedCourse::read(&mut tx, id).await?;
        record_change(&mut tx, audit, (entity::COURSE, id), Some(&old), Some(&new)).await?;
        tx.commit().await?;
        Ok(new.course)
    }
}

/// Adds the draft's assignees not yet assigned, and its articles in order.
async fn write_course_links(
    conn: &mut AnyConnection,
    course_id: i64,
    draft: &CourseDraft,
    author: Author,
    now: i64,
) -> ServiceResult<()> {
    for user_id in &draft.assignees {
        insert_assignee(conn, course_id, *user_id, None, author, now).await?;
    }
    for (position, article_id) in (0_i64..).zip(&draft.articles) {
        check_article(conn, Some(*article_id)).await?;
        sqlx::query(
            "INSERT INTO course_articles (course_id, article_id, position) VALUES ($1, $2, $3)",
        )
        .bind(course_id)
        .bind(*article_id)
        .bind(position)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}
