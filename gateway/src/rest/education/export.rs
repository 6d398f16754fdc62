//! The statistics as a CSV file, filtered as on the statistics page: read page
//! by page from the education service and streamed, so a million results never
//! sit in memory. The service checks `EducationManagement` on every page; the
//! first page is read before anything is sent, so a refusal is the usual
//! envelope with its status.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::StreamExt;
use futures_util::stream;
use portal_proto::auth::v1 as auth_pb;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use portal_proto::education::v1 as pb;
use serde::Deserialize;
use time::{OffsetDateTime, UtcOffset};
use utoipa::IntoParams;

use super::super::csv;
use super::super::{ApiError, AppState, CallContext, Query};
use super::client;

/// Results read per call to the service (its largest page).
const PAGE_SIZE: i32 = 1000;
const MSG_BAD_OFFSET: &str = "Некорректный часовой пояс";
const HEADER: [&str; 7] = [
    "Тест",
    "Сотрудник",
    "Отделения",
    "Баллы",
    "Из",
    "Пройден",
    "Дата завершения",
];

/// The statistics page's filters (every one optional), and the reader's time
/// zone as minutes east of UTC (Moscow: 180), for the completion times.
#[derive(Deserialize, Default, IntoParams)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct ExportFilter {
    test_id: i64,
    department_id: i64,
    user_id: i64,
    date_from: String,
    date_to: String,
    utc_offset: i32,
}

/// What every row needs besides its result.
struct Sheet {
    people: HashMap<i64, Person>,
    offset: UtcOffset,
}

struct Person {
    name: String,
    departments: Vec<String>,
}

pub(super) async fn export_test_results(
    State(state): State<AppState>,
    caller: CallContext,
    Query(filter): Query<ExportFilter>,
) -> Result<Response, ApiError> {
    let offset = filter
        .utc_offset
        .checked_mul(60)
        .and_then(|seconds| UtcOffset::from_whole_seconds(seconds).ok())
        .ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, MSG_BAD_OFFSET))?;
    let mut request = pb::ListAllTestResultsRequest {
        test_id: filter.test_id,
        department_id: filter.department_id,
        user_id: filter.user_id,
        date_from: filter.date_from,
        date_to: filter.date_to,
        page_size: PAGE_SIZE,
        page_token: String::new(),
    };
    let mut education = client(&state);
    let first = education
        .list_all_test_results(caller.request(request.clone()))
        .await?
        .into_inner();
    // Names and departments as they are now: education keeps only user ids.
    // Every admin-type right may read them, EducationManagement included.
    let departments = AuthServiceClient::new(state.upstreams.auth.channel.clone())
        .list_departments_with_users(caller.request(auth_pb::ListDepartmentsWithUsersRequest {}))
        .await?
        .into_inner()
        .departments;
    let sheet = Arc::new(Sheet {
        people: people(departments),
        offset,
    });

    let mut head = String::from(csv::BOM);
    head.push_str(&csv::record(HEADER));
    head.push_str(&sheet.rows(&first.results));
    let rest = stream::unfold(first.next_page_token, move |token| {
        let sheet = Arc::clone(&sheet);
        let caller = caller.clone();
        request.page_token = token;
        let page = request.clone();
        let mut education = education.clone();
        async move {
            if page.page_token.is_empty() {
                return None;
            }
            match education.list_all_test_results(caller.request(page)).await {
                Ok(reply) => {
                    let reply = reply.into_inner();
                    Some((Ok(sheet.rows(&reply.results)), reply.next_page_token))
                }
                Err(status) => {
                    // The answer has begun: all that is left is to cut it short,
                    // which the browser reports as a failed download.
                    tracing::warn!(%status, "statistics export stopped");
                    Some((Err(std::io::Error::other("export stopped")), String::new()))
                }
            }
        }
    });
    // Fused: the compression layer polls once more after the end, which an
    // unfold alone answers with a panic.
    let body = stream::once(async { Ok(head) }).chain(rest).fuse();
    Ok(csv::download(
        "Статистика тестов",
        "statistics",
        offset,
        axum::body::Body::from_stream(body),
    ))
}

/// Each member's name (surname, name, patronymic) and departments' titles.
fn people(departments: Vec<auth_pb::DepartmentWithUsers>) -> HashMap<i64, Person> {
    let mut people: HashMap<i64, Person> = HashMap::new();
    for department in departments {
        for member in department.users {
            let person = people.entry(member.id).or_insert_with(|| Person {
                name: [&member.surname, &member.name, &member.last_name]
                    .into_iter()
                    .filter(|part| !part.is_empty())
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
                departments: Vec::new(),
            });
            person.departments.push(department.title.clone());
        }
    }
    people
}

impl Sheet {
    fn rows(&self, results: &[pb::TestResult]) -> String {
        results.iter().map(|result| self.row(result)).collect()
    }

    fn row(&self, result: &pb::TestResult) -> String {
        let person = self.people.get(&result.user_id);
        let name = person.map_or_else(
            || format!("Сотрудник №{}", result.user_id),
            |person| person.name.clone(),
        );
        let departments = person.map(|person| person.departments.join(", "));
        let completed = result
            .date_completion
            .as_ref()
            .and_then(|at| OffsetDateTime::from_unix_timestamp(at.seconds).ok())
            .map(|at| completion_time(at, self.offset))
            .unwrap_or_default();
        let test = result.test.as_ref().map_or("", |test| test.title.as_str());
        csv::record([
            test,
            &name,
            departments.as_deref().unwrap_or(""),
            &result.total_point.to_string(),
            &result.total_points_possible.to_string(),
            if result.is_passed { "Да" } else { "Нет" },
            &completed,
        ])
    }
}

/// `DD.MM.YYYY HH:MM` in the reader's zone: what Russian Excel takes for a date
/// and time, so the column sorts and filters as dates.
fn completion_time(at: OffsetDateTime, offset: UtcOffset) -> String {
    let local = at.to_offset(offset);
    format!(
        "{:02}.{:02}.{:04} {:02}:{:02}",
        local.day(),
        u8::from(local.month()),
        local.year(),
        local.hour(),
        local.minute()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_times_are_shown_in_the_readers_zone() {
        let at = OffsetDateTime::from_unix_timestamp(1_795_000_000).unwrap();
        let moscow = UtcOffset::from_whole_seconds(3 * 3600).unwrap();
        assert_eq!(completion_time(at, UtcOffset::UTC), "18.11.2026 11:06");
        assert_eq!(completion_time(at, moscow), "18.11.2026 14:06");
    }
}
