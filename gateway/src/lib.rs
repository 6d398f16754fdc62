//! The `portal` binary's library: the targets it runs and the gateway itself
//! (REST translation, gRPC and grpc-web forwarding, the web client).

pub mod backup;
mod client_address;
mod config;
mod grpc;
pub mod migrate;
mod observe;
mod rest;
mod server;
mod slow_body;
mod sqlite_snapshot;
mod targets;
mod upstream;
mod web;

pub use config::{Command, Config, GatewayArgs, Target};
pub use targets::{Running, run, start};
/// Replicas balanced behind one name (the balancing test drives them).
pub use upstream::{Discovery, Resolve, Upstream};
