//! The audit log as a CSV file (`GET /api/audit/export`), streamed as it is
//! merged, its words in Russian and its ids named.

use axum::extract::State;
use axum::response::Response;
use futures_util::{StreamExt, stream};
use portal_proto::audit::v1 as pb;
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

use super::labels::{action_label, entity_label, field_label, reason_label};
use super::names::Names;
use super::{AuditQuery, CHUNK, Merged, RecordJson};
use crate::rest::{ApiError, AppState, CallContext, Query, csv};

const HEADER: [&str; 10] = [
    "Время",
    "Кто",
    "Адрес",
    "Идентификатор запроса",
    "Служба",
    "Объект",
    "Номер объекта",
    "Действие",
    "Изменения",
    "Причина",
];

/// Records written per piece of the streamed file.
const ROWS_PER_PIECE: usize = 500;

pub(super) async fn export(
    State(state): State<AppState>,
    caller: CallContext,
    Query(query): Query<AuditQuery>,
) -> Result<Response, ApiError> {
    let offset = query.offset()?;
    let filters = pb::ListAuditRecordsRequest {
        skip_total: true,
        ..query.request()?
    };
    let merged = Merged::start(&state, caller.clone(), filters, CHUNK, None).await?;
    let names = Names::of(&state, &caller).await;
    let mut head = String::from(csv::BOM);
    head.push_str(&csv::record(HEADER));
    if !merged.missing.is_empty() {
        // Said in the file itself: a reader of the file never saw the page's flag.
        let note = format!("Нет записей служб: {}", merged.missing.join(", "));
        head.push_str(&csv::record([note.as_str()]));
    }
    let rows = stream::unfold(Some((merged, names)), move |state| async move {
        let (mut merged, names) = state?;
        let mut piece = String::new();
        for _ in 0..ROWS_PER_PIECE {
            match merged.next().await {
                Ok(Some((service, record))) => {
                    piece.push_str(&row(&names.json(service, record), &names, offset));
                }
                Ok(None) => {
                    return (!piece.is_empty()).then_some((Ok(piece), None));
                }
                Err(status) => {
                    // The answer has begun: all that is left is to cut it short,
                    // which the browser reports as a failed download.
                    tracing::warn!(%status, "audit export stopped");
                    return Some((Err(std::io::Error::other("export stopped")), None));
                }
            }
        }
        Some((Ok(piece), Some((merged, names))))
    });
    // Fused: the compression layer polls once more after the end.
    let body = stream::once(async { Ok::<_, std::io::Error>(head) })
        .chain(rows)
        .fuse();
    Ok(csv::download(
        "Журнал действий",
        "audit",
        offset,
        axum::body::Body::from_stream(body),
    ))
}

/// A record as a line of the file, its words in Russian.
fn row(record: &RecordJson, names: &Names, offset: UtcOffset) -> String {
    let at = OffsetDateTime::parse(&record.time, &Rfc3339)
        .map(|at| {
            let local = at.to_offset(offset);
            format!(
                "{:02}.{:02}.{:04} {:02}:{:02}:{:02}",
                local.day(),
                u8::from(local.month()),
                local.year(),
                local.hour(),
                local.minute(),
                local.second()
            )
        })
        .unwrap_or_default();
    let actor = &record.actor;
    let who = match actor.kind.as_str() {
        "person" => actor
            .name
            .clone()
            .unwrap_or_else(|| format!("Сотрудник №{}", actor.user_id.unwrap_or_default())),
        "service-account" => format!("Внешняя система {}", actor.client_id),
        "anonymous" if !actor.login.is_empty() => format!("Не вошедший (логин «{}»)", actor.login),
        "anonymous" => "Не вошедший".to_owned(),
        _ => "Портал".to_owned(),
    };
    let entity_id = record
        .entity_id
        .map(|id| id.to_string())
        .unwrap_or_default();
    let entity = match &record.entity_name {
        Some(name) => format!("{} «{name}»", entity_label(&record.entity)),
        None => entity_label(&record.entity).to_owned(),
    };
    let changes = record
        .changes
        .iter()
        .map(|change| {
            format!(
                "{}: {} → {}",
                field_label(&record.entity, &change.field),
                names.shown(&change.field, &change.old),
                names.shown(&change.field, &change.new)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    csv::record([
        at.as_str(),
        &who,
        &record.address,
        &record.request_id,
        record.service,
        &entity,
        &entity_id,
        action_label(&record.action),
        &changes,
        &reason_label(&record.reason),
    ])
}

#[cfg(test)]
mod tests {
    use super::super::{ActorJson, ChangeJson};
    use super::*;

    #[test]
    fn a_line_of_the_file_says_who_did_what_in_russian() {
        let record = RecordJson {
            service: "auth",
            id: 1,
            time: "2026-11-18T11:06:40Z".into(),
            actor: ActorJson {
                kind: "person".into(),
                user_id: Some(1),
                name: Some("Системный Администратор".into()),
                client_id: String::new(),
                login: String::new(),
            },
            address: "192.0.2.10".into(),
            request_id: "r-1".into(),
            entity: "user".into(),
            entity_id: Some(5),
            entity_name: Some("Иванова Анна".into()),
            action: "grant".into(),
            changes: vec![ChangeJson {
                field: "rights".into(),
                old: serde_json::json!([]),
                new: serde_json::json!(["UserManagement"]),
            }],
            reason: String::new(),
        };
        let moscow = UtcOffset::from_whole_seconds(3 * 3600).unwrap();
        assert_eq!(
            row(&record, &Names::default(), moscow),
            "18.11.2026 14:06:40;Системный Администратор;192.0.2.10;r-1;auth;Сотрудник «Иванова Анна»;5;Выдача прав;Права: — → Управление пользователями;\r\n"
        );
    }
}
