//! The `portal` binary's library: the targets it runs and the gateway itself
//! (REST translation, gRPC and grpc-web forwarding, the web client).

mod client_address;
mod grpc;
mod rest;
mod server;
mod targets;
mod upstream;
mod web;

pub use targets::{Running, run, start};
pub use upstream::Upstreams;
