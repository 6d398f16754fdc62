//! The integration APIs other hospital systems call (issue 21), under
//! `/api/integration`, in the spec's style: the envelope, camelCase, one RPC
//! per route on the service that owns the data, called with the system's
//! bearer token (a service account's, or a person's with the matching right).
//! Request bodies are the contract's messages themselves.
//!
//! Each group of routes below is self-contained (its endpoints, limits and
//! client): staff from HR (auth's SyncStaff).

use crate::rest::route::post;
use axum::extract::{DefaultBodyLimit, State};
use portal_proto::auth::v1 as pb;
use prost::Message as _;

use super::{ApiResult, AppState, Body, CallContext, Data, Endpoint, docs};

pub fn endpoints() -> Vec<Endpoint> {
    staff_endpoints()
}

// --- Staff from HR (auth) ---

/// The largest body of sync-staff: the 50,000 people a batch may hold (about
/// 12 MB as JSON) with room to spare. Beyond it, 413.
pub const MAX_SYNC_STAFF_BYTES: usize = 32 * 1024 * 1024;

/// The most a batch goes to auth as one SyncStaff message: within the 4 MB
/// auth's gRPC server takes. A larger one goes as chunks of SyncStaffStream
/// (one transaction at the end, the same answer).
const MAX_UNARY_SYNC_BYTES: usize = 3 * 1024 * 1024;
/// People in one chunk of a stream: a few hundred KB each.
const PEOPLE_PER_CHUNK: usize = 5_000;

fn staff_endpoints() -> Vec<Endpoint> {
    vec![Endpoint::post(
        "/api/integration/sync-staff",
        "Синхронизация сотрудников, отделений и должностей с кадровой системой (staff.write или UserManagement; до 50 000 сотрудников за раз)",
        docs::Input::Message("portal.auth.v1.SyncStaffRequest"),
        post(sync_staff).layer(DefaultBodyLimit::max(MAX_SYNC_STAFF_BYTES)),
    )]
}

/// One SyncStaff call as long as the batch fits one message (and keeps its
/// `Idempotency-Key`), else SyncStaffStream in chunks: the REST route takes
/// every batch the contract does.
async fn sync_staff(
    State(state): State<AppState>,
    caller: CallContext,
    Body(batch): Body<pb::SyncStaffRequest>,
) -> ApiResult<pb::SyncStaffResponse> {
    let mut auth = super::auth::client(&state);
    if batch.encoded_len() <= MAX_UNARY_SYNC_BYTES {
        let reply = auth.sync_staff(caller.request(batch)).await?;
        return Ok(Data(reply.into_inner()));
    }
    let chunks = chunks_of(batch)
        .into_iter()
        .map(|chunk| pb::SyncStaffStreamRequest { chunk: Some(chunk) });
    let reply = auth
        .sync_staff_stream(caller.request(tokio_stream::iter(chunks)))
        .await?;
    Ok(Data(reply.into_inner().result.unwrap_or_default()))
}

/// The batch as chunks of a stream: the flags, departments and positions in
/// the first, the people [`PEOPLE_PER_CHUNK`] at a time.
fn chunks_of(batch: pb::SyncStaffRequest) -> Vec<pb::SyncStaffRequest> {
    let flags = pb::SyncStaffRequest {
        dry_run: batch.dry_run,
        full: batch.full,
        allow_mass_block: batch.allow_mass_block,
        invite: batch.invite,
        ..pb::SyncStaffRequest::default()
    };
    let mut chunks = vec![pb::SyncStaffRequest {
        departments: batch.departments,
        positions: batch.positions,
        ..flags.clone()
    }];
    chunks.extend(
        batch
            .people
            .chunks(PEOPLE_PER_CHUNK)
            .map(|people| pb::SyncStaffRequest {
                people: people.to_vec(),
                ..flags.clone()
            }),
    );
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_batch_goes_as_chunks_holding_every_row_and_the_flags_in_each() {
        let batch = pb::SyncStaffRequest {
            dry_run: true,
            full: true,
            allow_mass_block: true,
            invite: true,
            departments: vec![pb::StaffDepartment::default(); 3],
            positions: vec![pb::StaffPosition::default(); 2],
            people: (0..12_001)
                .map(|n| pb::StaffPerson {
                    employee_number: n.to_string(),
                    ..pb::StaffPerson::default()
                })
                .collect(),
        };
        let chunks = chunks_of(batch.clone());
        assert_eq!(chunks.len(), 4);
        assert!(
            chunks
                .iter()
                .all(|c| c.dry_run && c.full && c.allow_mass_block && c.invite)
        );
        assert_eq!(
            (chunks[0].departments.len(), chunks[0].positions.len()),
            (3, 2)
        );
        let people: Vec<pb::StaffPerson> = chunks.into_iter().flat_map(|c| c.people).collect();
        assert_eq!(people, batch.people);
    }
}
