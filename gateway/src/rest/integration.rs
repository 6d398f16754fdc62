//! The integration APIs other hospital systems call (issue 21), under
//! `/api/integration`, in the spec's style: the envelope, camelCase, one RPC
//! per route on the service that owns the data, called with the system's
//! bearer token (a service account's, or a person's with the matching right).
//! Request bodies are the contract's messages themselves.
//!
//! Each group of routes below is self-contained (its endpoints, limits and
//! client): staff from HR (auth's SyncStaff).

use axum::extract::DefaultBodyLimit;
use axum::routing::post;
use portal_proto::auth::v1 as pb;

use super::forward::{forward, method};
use super::{Body, Endpoint, docs};

pub fn endpoints() -> Vec<Endpoint> {
    staff_endpoints()
}

// --- Staff from HR (auth) ---

/// The largest body of sync-staff: about 20,000 people as JSON (5,000 take
/// 1–2 MB), and as protobuf still within the 4 MB message auth's gRPC server
/// takes. A larger batch is refused with 413, and goes as the gRPC stream
/// SyncStaffStream instead.
pub const MAX_SYNC_STAFF_BYTES: usize = 6 * 1024 * 1024;

fn staff_endpoints() -> Vec<Endpoint> {
    use super::auth::client;
    vec![Endpoint::post(
        "/api/integration/sync-staff",
        "Синхронизация сотрудников, отделений и должностей с кадровой системой (staff.write или UserManagement)",
        docs::Input::Message("portal.auth.v1.SyncStaffRequest"),
        post(forward(
            |Body(body): Body<pb::SyncStaffRequest>| body,
            method!(client, sync_staff),
            |reply| reply,
        ))
        .layer(DefaultBodyLimit::max(MAX_SYNC_STAFF_BYTES)),
    )]
}
