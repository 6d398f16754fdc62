//! The portal's bell (issue 24): `/api/notification/…`. Each service keeps
//! its own items and their read marks (education: courses due; the wiki:
//! maintenance due, later clearances), so `get-mine` asks both at once and
//! merges, and `mark-read` sends each id to the service its prefix names
//! (`education:`, `wiki:`). A service that is away leaves its items out
//! (`complete: false`) rather than the whole bell; any other refusal is the
//! answer. `send-digests-now` is education's.

use crate::rest::route::{get, post};
use axum::extract::State;
use portal_proto::education::v1 as pb_education;
use portal_proto::education::v1::notification_service_client::NotificationServiceClient as EducationNotifications;
use portal_proto::wiki::v1 as pb_wiki;
use portal_proto::wiki::v1::notification_service_client::NotificationServiceClient as WikiNotifications;
use serde::{Deserialize, Serialize};
use tonic::{Code, Status};
use utoipa::ToSchema;

use super::forward::{forward, method};
use super::{ApiResult, AppState, Body, CallContext, Data, Endpoint, docs};
use crate::upstream::Balanced;

const EDUCATION_PREFIX: &str = "education:";
const WIKI_PREFIX: &str = "wiki:";

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/notification/get-mine",
            "Колокольчик: что у вызывающего подходит к сроку или просрочено (курсы, обслуживание оборудования), с отметками о прочтении",
            docs::none,
            get(get_mine),
        ),
        Endpoint::post(
            "/api/notification/mark-read",
            "Отметить уведомления прочитанными (не более 500 за раз)",
            docs::json::<MarkReadBody>(),
            post(mark_read),
        ),
        Endpoint::post(
            "/api/notification/send-digests-now",
            "Начать рассылку сегодняшних писем-напоминаний (каждому не более одного в день): она идёт в фоне, ответ сразу — alreadyRunning, если рассылка уже шла; UserManagement или EducationManagement",
            docs::Input::Empty,
            post(forward(
                |()| pb_education::SendDigestsNowRequest {},
                method!(education, send_digests_now),
                |reply| reply,
            )),
        ),
    ]
}

fn education(state: &AppState) -> EducationNotifications<Balanced> {
    EducationNotifications::new(state.upstreams.education.channel.clone())
}

fn wiki(state: &AppState) -> WikiNotifications<Balanced> {
    WikiNotifications::new(state.upstreams.wiki.channel.clone())
}

/// One item of the bell, whichever service listed it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Item {
    /// Stable; its prefix names the service that keeps its read mark.
    id: String,
    /// `course`, `maintenance` (later `clearance`).
    kind: String,
    title: String,
    /// The item's page in the web client.
    link: String,
    /// `YYYY-MM-DD`.
    due_date: String,
    overdue: bool,
    read: bool,
}

impl From<pb_education::Notification> for Item {
    fn from(n: pb_education::Notification) -> Item {
        Item {
            id: n.id,
            kind: n.kind,
            title: n.title,
            link: n.link,
            due_date: n.due_date,
            overdue: n.overdue,
            read: n.read,
        }
    }
}

impl From<pb_wiki::Notification> for Item {
    fn from(n: pb_wiki::Notification) -> Item {
        Item {
            id: n.id,
            kind: n.kind,
            title: n.title,
            link: n.link,
            due_date: n.due_date,
            overdue: n.overdue,
            read: n.read,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Mine {
    /// Overdue first, then the soonest due.
    notifications: Vec<Item>,
    /// How many are unread: the bell's count.
    unread: usize,
    /// False when a service did not answer and its items are missing.
    complete: bool,
}

/// An upstream away or too slow: its items are left out, not the bell.
fn is_away(status: &Status) -> bool {
    matches!(status.code(), Code::Unavailable | Code::DeadlineExceeded)
}

/// A service's items, or none when it is away; other refusals are errors.
fn items_or_away<T: Into<Item>>(
    answer: Result<Vec<T>, Status>,
    complete: &mut bool,
) -> Result<Vec<Item>, Status> {
    match answer {
        Ok(items) => Ok(items.into_iter().map(Into::into).collect()),
        Err(status) if is_away(&status) => {
            tracing::warn!(%status, "notifications: a service's items left out");
            *complete = false;
            Ok(Vec::new())
        }
        Err(status) => Err(status),
    }
}

async fn get_mine(State(state): State<AppState>, caller: CallContext) -> ApiResult<Mine> {
    let mut from_education = education(&state);
    let mut from_wiki = wiki(&state);
    let (courses, equipment) = tokio::join!(
        from_education
            .list_my_notifications(caller.request(pb_education::ListMyNotificationsRequest {})),
        from_wiki.list_my_notifications(caller.request(pb_wiki::ListMyNotificationsRequest {})),
    );
    let mut complete = true;
    let mut notifications = items_or_away(
        courses.map(|reply| reply.into_inner().notifications),
        &mut complete,
    )?;
    notifications.extend(items_or_away(
        equipment.map(|reply| reply.into_inner().notifications),
        &mut complete,
    )?);
    if notifications.is_empty() && !complete {
        return Err(Status::unavailable(portal_kit::error::MSG_UNAVAILABLE).into());
    }
    notifications
        .sort_by(|a, b| (!a.overdue, &a.due_date, &a.id).cmp(&(!b.overdue, &b.due_date, &b.id)));
    let unread = notifications.iter().filter(|item| !item.read).count();
    Ok(Data(Mine {
        notifications,
        unread,
        complete,
    }))
}

#[derive(Default, Deserialize, ToSchema)]
#[serde(default)]
struct MarkReadBody {
    /// Item ids as get-mine lists them.
    ids: Vec<String>,
}

async fn mark_read(
    State(state): State<AppState>,
    caller: CallContext,
    Body(body): Body<MarkReadBody>,
) -> ApiResult<()> {
    let (education_ids, wiki_ids): (Vec<String>, Vec<String>) = body
        .ids
        .into_iter()
        .filter(|id| id.starts_with(EDUCATION_PREFIX) || id.starts_with(WIKI_PREFIX))
        .partition(|id| id.starts_with(EDUCATION_PREFIX));
    if education_ids.len() + wiki_ids.len() > portal_kit::read_marks::MAX_MARKS {
        return Err(super::ApiError::new(
            http::StatusCode::BAD_REQUEST,
            portal_kit::read_marks::MSG_TOO_MANY_MARKS,
        ));
    }
    let mut to_education = education(&state);
    let mut to_wiki = wiki(&state);
    // Education is asked even with nothing of its own to mark: it checks
    // the caller (a blocked person's or a system's token is refused).
    let education_call = async {
        to_education
            .mark_notifications_read(
                caller.request(pb_education::MarkNotificationsReadRequest { ids: education_ids }),
            )
            .await
            .map(|_| ())
    };
    let wiki_call = async {
        if wiki_ids.is_empty() {
            return Ok(());
        }
        to_wiki
            .mark_notifications_read(
                caller.request(pb_wiki::MarkNotificationsReadRequest { ids: wiki_ids }),
            )
            .await
            .map(|_| ())
    };
    let (education_done, wiki_done) = tokio::join!(education_call, wiki_call);
    education_done?;
    wiki_done?;
    Ok(Data(()))
}

docs::typed!(Mine);
