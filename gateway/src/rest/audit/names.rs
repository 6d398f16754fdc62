//! What the ids in audit records name, as people read them.

use std::collections::HashMap;

use portal_proto::audit::v1 as pb;
use portal_proto::auth::v1 as auth_pb;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::{ActorJson, ChangeJson, RecordJson};
use crate::rest::{AppState, CallContext};

type Named = HashMap<i64, String>;

/// Names by id of what audit records link to: people (auth's ListUsers, which
/// UserManagement, the journal's readers, may call), statuses, departments
/// and positions. What auth does not answer stays an id («№5»).
#[derive(Default)]
pub(super) struct Names {
    people: Named,
    statuses: Named,
    departments: Named,
    positions: Named,
}

/// Ids and names of an answer, or none when auth did not give it.
fn named<T>(
    answer: Result<tonic::Response<T>, tonic::Status>,
    list: impl FnOnce(T) -> Named,
) -> Named {
    match answer {
        Ok(reply) => list(reply.into_inner()),
        Err(status) => {
            tracing::warn!(code = ?status.code(), "audit log: ids left unnamed");
            Named::new()
        }
    }
}

impl Names {
    pub(super) async fn of(state: &AppState, caller: &CallContext) -> Names {
        let auth = AuthServiceClient::new(state.upstreams.auth.channel.clone())
            .max_decoding_message_size(crate::rest::MAX_ANSWER_BYTES);
        let (mut users, mut statuses, mut departments, mut positions) =
            (auth.clone(), auth.clone(), auth.clone(), auth);
        let (users, statuses, departments, positions) = tokio::join!(
            users.list_users(caller.request(auth_pb::ListUsersRequest {})),
            statuses.list_statuses(caller.request(auth_pb::ListStatusesRequest {})),
            departments.list_departments(caller.request(auth_pb::ListDepartmentsRequest {})),
            positions.list_positions(caller.request(auth_pb::ListPositionsRequest {})),
        );
        Names {
            people: named(users, |reply| {
                reply
                    .users
                    .into_iter()
                    .map(|user| {
                        let name = [user.surname, user.name, user.last_name]
                            .into_iter()
                            .filter(|part| !part.is_empty())
                            .collect::<Vec<_>>()
                            .join(" ");
                        (user.id, name)
                    })
                    .collect()
            }),
            statuses: named(statuses, |reply| {
                reply.statuses.into_iter().map(|s| (s.id, s.name)).collect()
            }),
            departments: named(departments, |reply| {
                reply
                    .departments
                    .into_iter()
                    .map(|d| (d.id, d.title))
                    .collect()
            }),
            positions: named(positions, |reply| {
                reply
                    .positions
                    .into_iter()
                    .map(|p| (p.id, p.title))
                    .collect()
            }),
        }
    }

    pub(super) fn name(&self, user_id: i64) -> Option<String> {
        self.people.get(&user_id).cloned()
    }

    /// The names of the ids `field` holds, where it holds ids of a kind
    /// named here.
    fn of_field(&self, field: &str) -> Option<&Named> {
        match field {
            "statusId" => Some(&self.statuses),
            "departmentIds" | "departmentId" => Some(&self.departments),
            "positionIds" => Some(&self.positions),
            "userIds" | "userId" | "ownerId" => Some(&self.people),
            _ => None,
        }
    }

    /// A changed value of `field` as a person reads it: text without quotes,
    /// none as «—», ids by name («№5» when unknown).
    pub(super) fn shown(&self, field: &str, value: &serde_json::Value) -> String {
        use serde_json::Value;
        let by_name = |id: &Value| match (self.of_field(field), id.as_i64()) {
            (Some(named), Some(id)) => Some(named.get(&id).cloned().unwrap_or(format!("№{id}"))),
            _ => None,
        };
        if field == "rights"
            && let Value::Array(rights) = value
        {
            let named: Vec<&str> = rights
                .iter()
                .filter_map(Value::as_str)
                .map(super::labels::right_label)
                .collect();
            return if named.is_empty() {
                "—".to_owned()
            } else {
                named.join(", ")
            };
        }
        match value {
            Value::Null => "—".to_owned(),
            Value::Array(items) if items.is_empty() && self.of_field(field).is_some() => {
                "—".to_owned()
            }
            Value::Array(items) if self.of_field(field).is_some() => items
                .iter()
                .map(|item| by_name(item).unwrap_or_else(|| item.to_string()))
                .collect::<Vec<_>>()
                .join(", "),
            Value::Number(_) if self.of_field(field).is_some() => {
                by_name(value).unwrap_or_else(|| value.to_string())
            }
            Value::String(text) if field == "staffLink" => {
                super::labels::staff_link_label(text).to_owned()
            }
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }

    pub(super) fn json(&self, service: &'static str, record: pb::AuditRecord) -> RecordJson {
        let actor = record.actor.unwrap_or_default();
        let entity_name = match (record.entity.as_str(), record.entity_id) {
            ("user", Some(id)) => self.name(id),
            _ => None,
        };
        RecordJson {
            service,
            id: record.id,
            time: record
                .time
                .and_then(|t| {
                    OffsetDateTime::from_unix_timestamp(t.seconds)
                        .ok()
                        .map(|at| at + time::Duration::nanoseconds(i64::from(t.nanos)))
                })
                .and_then(|at| at.format(&Rfc3339).ok())
                .unwrap_or_default(),
            actor: ActorJson {
                name: actor.user_id.and_then(|id| self.name(id)),
                kind: actor.kind,
                user_id: actor.user_id,
                client_id: actor.client_id,
                login: actor.login,
            },
            address: record.address,
            request_id: record.request_id,
            entity: record.entity,
            entity_id: record.entity_id,
            entity_name,
            action: record.action,
            changes: record
                .changes
                .into_iter()
                .map(|change| ChangeJson {
                    old: serde_json::from_str(&change.old).unwrap_or(serde_json::Value::Null),
                    new: serde_json::from_str(&change.new).unwrap_or(serde_json::Value::Null),
                    field: change.field,
                })
                .collect(),
            reason: record.reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_shown_by_name_and_an_unknown_one_by_its_number() {
        let names = Names {
            people: [(7, "Иванова Анна".to_owned())].into(),
            statuses: [(1, "Работает".to_owned()), (4, "Уволен".to_owned())].into(),
            departments: [(2, "Кардиология".to_owned())].into(),
            positions: Named::new(),
        };
        let shown = |field, value: serde_json::Value| names.shown(field, &value);
        assert_eq!(shown("statusId", 1.into()), "Работает");
        assert_eq!(shown("statusId", 9.into()), "№9");
        assert_eq!(shown("departmentIds", serde_json::json!([])), "—");
        assert_eq!(
            shown("departmentIds", serde_json::json!([2, 5])),
            "Кардиология, №5"
        );
        assert_eq!(shown("ownerId", 7.into()), "Иванова Анна");
        assert_eq!(
            shown(
                "rights",
                serde_json::json!(["UserManagement", "EquipmentEditing"])
            ),
            "Управление пользователями, Редактирование оборудования"
        );
        // Not an id: as it is.
        assert_eq!(shown("numberOfTries", 3.into()), "3");
        assert_eq!(shown("title", "СЛР".into()), "СЛР");
        assert_eq!(shown("title", serde_json::Value::Null), "—");
        assert_eq!(shown("staffLink", "admin".into()), "связан администратором");
    }
}
