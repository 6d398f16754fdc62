//! The audit log (issue 25): `GET /api/audit/get-records` and
//! `GET /api/audit/export`. Every service keeps the records of its own writes
//! and serves them through the same `portal.audit.v1.AuditService`; the
//! gateway asks all four at once, on the caller's behalf (each checks
//! UserManagement itself), and merges them newest first. A service that is
//! down or too slow is left out and named (`incomplete`, `missing`), as
//! search does, rather than failing the whole log. Records carry user ids;
//! the names shown are auth's, as they are now.
//!
//! A page deep in the log costs what the first does: `nextCursor` carries each
//! service's position in the merge (the `before_id` each is asked from next)
//! and the first page's total, so the page after it reads a page's worth from
//! each service and counts nothing again; `page=` still works, at the cost of
//! reading every record before the page.
//!
//! [`names`] says what the ids in records name, [`export`] writes the CSV
//! file, [`labels`] its words.

mod export;
mod labels;
mod names;

use std::cmp::Reverse;
use std::collections::VecDeque;

use crate::rest::route::get;
use axum::extract::State;
use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use portal_proto::audit::v1 as pb;
use portal_proto::audit::v1::audit_service_client::AuditServiceClient;
use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime, UtcOffset};
use tonic::Status;
use utoipa::{IntoParams, ToSchema};

use self::names::Names;
use super::{
    ApiError, ApiResult, AppState, CallContext, Data, Endpoint, Query, csv, docs, left_out,
};
use crate::upstream::Balanced;

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/audit/get-records",
            "Журнал действий: записи всех служб (кто, когда, откуда, что и какие поля изменил), новые первыми, по страницам; следующая страница — по nextCursor (cursor=), не дороже первой; только UserManagement",
            docs::query::<AuditQuery>,
            get(get_records),
        ),
        Endpoint::download(
            "/api/audit/export",
            "Журнал действий в CSV для Excel (UTF-8 с BOM, разделитель «;»), с теми же фильтрами; utcOffset — часовой пояс читателя в минутах к востоку от UTC",
            docs::query::<AuditQuery>,
            csv::CONTENT_TYPE,
            axum::routing::get(export::export),
        ),
    ]
}

/// Records on a page when the caller names no size, and at most.
const PAGE_SIZE: u32 = 50;
const MAX_PAGE_SIZE: u32 = 200;
/// Records asked of a service at once (the contract's largest page).
pub(super) const CHUNK: u32 = 1000;
/// The deepest page: beyond it a narrower period is the better question.
const MAX_PAGE: u32 = 1000;
const MSG_BAD_TIME: &str = "ожидается дата (ГГГГ-ММ-ДД) или время в формате RFC 3339";
const MSG_BAD_OFFSET: &str = "Некорректный часовой пояс";
const MSG_PAGE_TOO_DEEP: &str = "Слишком далёкая страница: сузьте период";
const MSG_BAD_CURSOR: &str = "Некорректная позиция в журнале: откройте журнал с первой страницы";
/// The `errorCode` of a cursor this gateway did not give (or cut short).
const REASON_BAD_CURSOR: &str = "audit-cursor-invalid";
/// The services asked, in the order that breaks a tie of time and id.
const SERVICES: [&str; 4] = ["auth", "education", "wiki", "files"];

/// The filters of the journal (each left out = any) and the page.
#[derive(Deserialize, Default, IntoParams)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct AuditQuery {
    /// The entity kind: `user`, `department`, `service-account`, `course`,
    /// `article`, `test`, `environment-model`, `environment`, `document`.
    entity: Option<String>,
    /// The entity's id (with `entity`).
    entity_id: Option<i64>,
    /// Records of what this person did (their user id).
    user_id: Option<i64>,
    /// `create`, `update`, `delete`, `block`, `sign-in`, `sign-out`,
    /// `sign-in-refused`, `grant`, `revoke`, `download`.
    action: Option<String>,
    /// From: an RFC 3339 instant, or a day `YYYY-MM-DD` (from its start in
    /// the reader's zone, `utcOffset`).
    from: Option<String>,
    /// To: an RFC 3339 instant (exclusive), or a day `YYYY-MM-DD` (inclusive).
    to: Option<String>,
    /// The page, from 1 (get-records only; each page reads all before it:
    /// for the next page, `cursor`).
    page: Option<u32>,
    /// Records per page, 1..200; 50 when left out (get-records only).
    page_size: Option<u32>,
    /// The previous page's `nextCursor`, as it came (opaque), with the same
    /// filters: the page after it, read from where each service stopped.
    /// `page` is then ignored and the page's `total` is the walk's first
    /// page's, not counted again. One this gateway did not give is a 400 with
    /// `errorCode` `audit-cursor-invalid` (get-records only).
    cursor: Option<String>,
    /// The reader's time zone in minutes east of UTC (Moscow: 180) for days
    /// and the export's times; 0 when left out.
    utc_offset: Option<i32>,
}

impl AuditQuery {
    fn offset(&self) -> Result<UtcOffset, ApiError> {
        self.utc_offset
            .unwrap_or(0)
            .checked_mul(60)
            .and_then(|seconds| UtcOffset::from_whole_seconds(seconds).ok())
            .ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, MSG_BAD_OFFSET))
    }

    /// The contract's request of these filters (no limit, no cursor yet).
    fn request(&self) -> Result<pb::ListAuditRecordsRequest, ApiError> {
        let offset = self.offset()?;
        Ok(pb::ListAuditRecordsRequest {
            entity: self.entity.clone().unwrap_or_default(),
            entity_id: self.entity_id,
            user_id: self.user_id,
            action: self.action.clone().unwrap_or_default(),
            from: instant("from", self.from.as_deref(), offset, false)?,
            to: instant("to", self.to.as_deref(), offset, true)?,
            limit: 0,
            before_id: None,
            skip_total: false,
        })
    }

    /// The walk's position the query names, if any.
    fn cursor(&self) -> Result<Option<Cursor>, ApiError> {
        match self.cursor.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(text) => Cursor::decode(text).map(Some).ok_or_else(|| {
                ApiError::new(StatusCode::BAD_REQUEST, MSG_BAD_CURSOR).with_code(REASON_BAD_CURSOR)
            }),
        }
    }
}

/// A record's place in the merge: its time (seconds, nanos), its id and its
/// service's index in `SERVICES`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Key(i64, i32, i64, usize);

impl Key {
    fn of(service: usize, record: &pb::AuditRecord) -> Key {
        let time = record.time.unwrap_or_default();
        Key(time.seconds, time.nanos, record.id, service)
    }

    /// Larger is newer: by time, then by id within a service; a tie across
    /// services goes to the earlier one.
    fn rank(self) -> (i64, i32, i64, Reverse<usize>) {
        (self.0, self.1, self.2, Reverse(self.3))
    }
}

/// Where a walk of the journal stands after a page: `nextCursor`, the JSON of
/// this in base64url, which a client hands back as it came.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Cursor {
    /// Each service's last record shown (`SERVICES` order): the next page asks
    /// it for records below that one; none = none of its records shown yet.
    #[serde(rename = "p")]
    positions: [Option<i64>; 4],
    /// The last record shown. Nothing not older is shown again: a service
    /// left out of an earlier page and back now does not jump in with records
    /// that page should have had.
    #[serde(rename = "k")]
    last: Key,
    /// The first page's total.
    #[serde(rename = "t")]
    total: i64,
    /// The number of the page it opens.
    #[serde(rename = "n")]
    page: u32,
}

impl Cursor {
    fn encode(&self) -> String {
        // A struct of numbers always serializes.
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).unwrap_or_default())
    }

    /// None for anything `encode` did not write.
    fn decode(text: &str) -> Option<Cursor> {
        let bytes = URL_SAFE_NO_PAD.decode(text).ok()?;
        let cursor: Cursor = serde_json::from_slice(&bytes).ok()?;
        let valid = (0..1_000_000_000).contains(&cursor.last.1)
            && cursor.last.3 < SERVICES.len()
            && cursor.page >= 2
            && cursor.total >= 0;
        valid.then_some(cursor)
    }

    /// The end of the period left to read: just after the last record shown
    /// (records are kept to the millisecond), or the filter's own end if
    /// earlier.
    fn to(&self, to: Option<prost_types::Timestamp>) -> prost_types::Timestamp {
        let Key(seconds, nanos, _, _) = self.last;
        let nanos = nanos + 1_000_000;
        let after = prost_types::Timestamp {
            seconds: seconds + i64::from(nanos / 1_000_000_000),
            nanos: nanos % 1_000_000_000,
        };
        match to {
            Some(to) if (to.seconds, to.nanos) < (after.seconds, after.nanos) => to,
            _ => after,
        }
    }
}

/// A filter's time: an RFC 3339 instant, or a day's start in `offset` (for
/// the end of a period, the next day's, so the day itself is in).
fn instant(
    field: &str,
    value: Option<&str>,
    offset: UtcOffset,
    end: bool,
) -> Result<Option<prost_types::Timestamp>, ApiError> {
    let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
        return Ok(None);
    };
    let refused = || {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("Поле «{field}»: {MSG_BAD_TIME}"),
        )
    };
    let at = match OffsetDateTime::parse(value, &Rfc3339) {
        Ok(at) => at,
        Err(_) => {
            let format = time::macros::format_description!("[year]-[month]-[day]");
            let day = Date::parse(value, &format).map_err(|_| refused())?;
            let day = if end {
                day.next_day().ok_or_else(refused)?
            } else {
                day
            };
            day.midnight().assume_offset(offset)
        }
    };
    Ok(Some(prost_types::Timestamp {
        seconds: at.unix_timestamp(),
        nanos: i32::try_from(at.nanosecond()).unwrap_or_default(),
    }))
}

/// One service's records, read a chunk at a time newest first.
struct Source {
    /// Its index in `SERVICES`.
    order: usize,
    client: AuditServiceClient<Balanced>,
    waiting: VecDeque<pb::AuditRecord>,
    /// The oldest record read so far: the next chunk starts below it.
    before_id: Option<i64>,
    exhausted: bool,
}

/// The four services' records merged newest first.
pub(super) struct Merged {
    sources: Vec<Source>,
    filters: pb::ListAuditRecordsRequest,
    caller: CallContext,
    chunk: u32,
    /// Only records older than this one: a cursor's last, shown before.
    below: Option<Key>,
    /// Each service's last record taken, as a cursor says it.
    positions: [Option<i64>; 4],
    /// The last record taken.
    last: Option<Key>,
    /// The services left out (down, too slow, or without the log yet).
    missing: Vec<&'static str>,
    /// How many records match in all, over the services that answered
    /// (0 when the filters asked them not to count).
    total: i64,
}

impl Merged {
    /// Asks every service for its first `chunk` records at once, from the
    /// newest or from where `cursor` left each. A refusal of the caller (no
    /// right, an expired token) is the answer; a service that cannot answer
    /// is left out.
    async fn start(
        state: &AppState,
        caller: CallContext,
        mut filters: pb::ListAuditRecordsRequest,
        chunk: u32,
        cursor: Option<&Cursor>,
    ) -> Result<Merged, ApiError> {
        let upstreams = &state.upstreams;
        let positions = cursor.map_or([None; 4], |cursor| cursor.positions);
        if let Some(cursor) = cursor {
            filters.to = Some(cursor.to(filters.to));
            filters.skip_total = true;
        }
        let mut sources: Vec<Source> = [
            &upstreams.auth,
            &upstreams.education,
            &upstreams.wiki,
            &upstreams.files,
        ]
        .into_iter()
        .enumerate()
        .map(|(order, upstream)| Source {
            order,
            client: AuditServiceClient::new(upstream.channel.clone()),
            waiting: VecDeque::new(),
            before_id: positions[order],
            exhausted: false,
        })
        .collect();
        let mut merged = Merged {
            sources: Vec::new(),
            filters,
            caller,
            chunk,
            below: cursor.map(|cursor| cursor.last),
            positions,
            last: cursor.map(|cursor| cursor.last),
            missing: Vec::new(),
            total: 0,
        };
        let firsts = futures_util::future::join_all(sources.iter_mut().map(|source| {
            read_chunk(source, &merged.caller, &merged.filters, chunk, merged.below)
        }))
        .await;
        for (source, first) in sources.into_iter().zip(firsts) {
            match first {
                Ok(total) => {
                    merged.total += total;
                    merged.sources.push(source);
                }
                Err(status) if left_out(&status) => {
                    let service = SERVICES[source.order];
                    tracing::warn!(service, code = ?status.code(), cause = %status.message(), "audit log left a service out");
                    merged.missing.push(service);
                }
                Err(status) => return Err(status.into()),
            }
        }
        Ok(merged)
    }

    /// The newest record not yet taken, with its service; `None` after the
    /// last. A service failing mid-way is an error for the caller to decide.
    async fn next(&mut self) -> Result<Option<(&'static str, pb::AuditRecord)>, Status> {
        for source in &mut self.sources {
            // A loop: a chunk can be all records shown before (`below`).
            while source.waiting.is_empty() && !source.exhausted {
                read_chunk(source, &self.caller, &self.filters, self.chunk, self.below).await?;
            }
        }
        let newest = self
            .sources
            .iter()
            .enumerate()
            .filter_map(|(index, source)| {
                let record = source.waiting.front()?;
                Some((index, Key::of(source.order, record)))
            })
            .max_by_key(|(_, key)| key.rank());
        Ok(newest.and_then(|(index, key)| {
            let source = &mut self.sources[index];
            let record = source.waiting.pop_front()?;
            self.positions[source.order] = Some(record.id);
            self.last = Some(key);
            Some((SERVICES[source.order], record))
        }))
    }

    /// Whether a record may follow the last taken (a service not read to its
    /// end may have more).
    fn has_more(&self) -> bool {
        self.sources
            .iter()
            .any(|source| !source.waiting.is_empty() || !source.exhausted)
    }

    /// The position after the last record taken, for page `page` of a walk
    /// whose first page found `total`; none at the end.
    fn cursor(&self, total: i64, page: u32) -> Option<String> {
        let last = self.last.filter(|_| self.has_more())?;
        Some(
            Cursor {
                positions: self.positions,
                last,
                total,
                page,
            }
            .encode(),
        )
    }
}

/// Reads `source`'s next chunk into its queue, but for records not older
/// than `below`; answers the total matching.
async fn read_chunk(
    source: &mut Source,
    caller: &CallContext,
    filters: &pb::ListAuditRecordsRequest,
    chunk: u32,
    below: Option<Key>,
) -> Result<i64, Status> {
    let request = pb::ListAuditRecordsRequest {
        limit: i32::try_from(chunk).unwrap_or(i32::MAX),
        before_id: source.before_id,
        ..filters.clone()
    };
    let reply = source
        .client
        .list_audit_records(caller.request(request))
        .await?
        .into_inner();
    source.exhausted = reply.records.len() < chunk as usize;
    source.before_id = reply
        .records
        .last()
        .map(|record| record.id)
        .or(source.before_id);
    let order = source.order;
    source.waiting.extend(
        reply.records.into_iter().filter(|record| {
            below.is_none_or(|below| Key::of(order, record).rank() < below.rank())
        }),
    );
    Ok(reply.total)
}

/// A page of the journal.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct RecordsPage {
    records: Vec<RecordJson>,
    /// Records matching in all, over the services that answered; on a page
    /// opened by a cursor, the walk's first page's.
    total: i64,
    /// The page's number, also when a cursor opened it.
    page: u32,
    page_size: u32,
    /// The next page's `cursor`; none after the last page.
    next_cursor: Option<String>,
    /// Some service could not be asked: its records are missing.
    incomplete: bool,
    missing: Vec<&'static str>,
}

/// One record as the web shows it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct RecordJson {
    /// The service that keeps it (`auth`, `education`, `wiki`, `files`).
    pub(super) service: &'static str,
    pub(super) id: i64,
    /// RFC 3339.
    pub(super) time: String,
    pub(super) actor: ActorJson,
    pub(super) address: String,
    pub(super) request_id: String,
    pub(super) entity: String,
    pub(super) entity_id: Option<i64>,
    /// The entity's name where the gateway knows it (a person's).
    pub(super) entity_name: Option<String>,
    pub(super) action: String,
    pub(super) changes: Vec<ChangeJson>,
    pub(super) reason: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ActorJson {
    /// `person`, `service-account`, `anonymous`, `system`.
    pub(super) kind: String,
    pub(super) user_id: Option<i64>,
    /// The person's full name as auth has it now.
    pub(super) name: Option<String>,
    pub(super) client_id: String,
    /// The login a refused sign-in tried.
    pub(super) login: String,
}

#[derive(Serialize, ToSchema)]
pub(super) struct ChangeJson {
    pub(super) field: String,
    /// JSON; `"***"` for a secret.
    #[schema(value_type = Value)]
    pub(super) old: serde_json::Value,
    #[schema(value_type = Value)]
    pub(super) new: serde_json::Value,
}

async fn get_records(
    State(state): State<AppState>,
    caller: CallContext,
    Query(query): Query<AuditQuery>,
) -> ApiResult<RecordsPage> {
    let filters = query.request()?;
    let cursor = query.cursor()?;
    let page_size = query.page_size.unwrap_or(PAGE_SIZE).clamp(1, MAX_PAGE_SIZE);
    let page = match &cursor {
        Some(cursor) => cursor.page,
        None => query.page.unwrap_or(1).max(1),
    };
    if cursor.is_none() && page > MAX_PAGE {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, MSG_PAGE_TOO_DEEP));
    }
    // Records to pass over first: a cursor has passed them already.
    let skipped = if cursor.is_some() {
        0
    } else {
        (page - 1) * page_size
    };
    let wanted = skipped + page_size;
    // One more than the page: whether there is a next page is then known
    // without asking again.
    let chunk = (wanted + 1).min(CHUNK);
    let mut merged = Merged::start(&state, caller.clone(), filters, chunk, cursor.as_ref()).await?;
    let names = Names::of(&state, &caller).await;
    let mut records = Vec::new();
    let mut taken = 0;
    while taken < wanted {
        match merged.next().await {
            Ok(Some((service, record))) => {
                taken += 1;
                if taken > skipped {
                    records.push(names.json(service, record));
                }
            }
            Ok(None) => break,
            // A service that went away while read fails the page: a page with
            // a hole in its middle would mislead.
            Err(status) => return Err(status.into()),
        }
    }
    let total = cursor.map_or(merged.total, |cursor| cursor.total);
    Ok(Data(RecordsPage {
        records,
        total,
        page,
        page_size,
        next_cursor: merged.cursor(total, page.saturating_add(1)),
        incomplete: !merged.missing.is_empty(),
        missing: merged.missing,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_read_in_the_readers_zone_and_an_end_day_is_included() {
        let moscow = UtcOffset::from_whole_seconds(3 * 3600).unwrap();
        let from = instant("from", Some("2026-11-01"), moscow, false)
            .unwrap()
            .unwrap();
        let to = instant("to", Some("2026-11-01"), moscow, true)
            .unwrap()
            .unwrap();
        assert_eq!(to.seconds - from.seconds, 24 * 3600);
        assert_eq!(from.seconds, 1_793_480_400, "2026-10-31T21:00:00Z");
        let exact = instant("to", Some("2026-11-01T10:00:00Z"), moscow, true)
            .unwrap()
            .unwrap();
        assert_eq!(exact.seconds, 1_793_527_200);
        assert!(instant("from", Some("01.11.2026"), moscow, false).is_err());
        assert_eq!(instant("from", Some(" "), moscow, false).unwrap(), None);
    }

    #[test]
    fn a_cursor_comes_back_as_it_went_and_nothing_else_passes() {
        let cursor = Cursor {
            positions: [Some(41), None, Some(7), None],
            last: Key(1_793_527_200, 999_000_000, 7, 2),
            total: 120,
            page: 3,
        };
        assert_eq!(Cursor::decode(&cursor.encode()), Some(cursor));
        let forged = |json: &str| Cursor::decode(&URL_SAFE_NO_PAD.encode(json));
        assert_eq!(
            forged(r#"{"p":[null,null,null,null],"k":[0,0,1,4],"t":0,"n":2}"#),
            None
        );
        assert_eq!(
            forged(r#"{"p":[null,null,null,null],"k":[0,0,1,0],"t":0,"n":1}"#),
            None
        );
        assert_eq!(forged(r#"{"p":[],"k":[0,0,1,0],"t":0,"n":2}"#), None);
        assert_eq!(Cursor::decode("not a cursor"), None);
    }

    #[test]
    fn a_cursor_reads_on_from_just_after_its_last_record_or_the_filters_end() {
        let cursor = Cursor {
            positions: [None; 4],
            last: Key(100, 999_500_000, 7, 0),
            total: 0,
            page: 2,
        };
        let at = |seconds, nanos| prost_types::Timestamp { seconds, nanos };
        assert_eq!(cursor.to(None), at(101, 500_000));
        assert_eq!(cursor.to(Some(at(200, 0))), at(101, 500_000));
        assert_eq!(cursor.to(Some(at(50, 0))), at(50, 0));
    }

    #[test]
    fn the_newer_record_leads_and_a_tie_goes_to_the_earlier_service() {
        assert!(Key(10, 0, 1, 3).rank() > Key(9, 999, 500, 0).rank());
        assert!(Key(10, 0, 2, 3).rank() > Key(10, 0, 1, 0).rank());
        assert!(Key(10, 0, 1, 0).rank() > Key(10, 0, 1, 3).rank());
    }
}

docs::typed!(RecordsPage);
