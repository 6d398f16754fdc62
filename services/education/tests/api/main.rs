//! Black-box tests of the education service: each spawns the real service on a
//! random port with a fresh database (on every backend of the run) and calls it
//! through the generated gRPC client.

mod access;
mod attempts;
mod audit;
mod complete_alone;
mod content;
mod helpers;
mod idempotency;
mod integration;
mod notification_access;
mod notifications;
mod passes;
mod recertification;
mod revisions;
mod search;
mod statistics;
