//! The `portal` binary's library: the targets it runs and the gateway itself
//! (REST translation, gRPC and grpc-web forwarding, the web client).

mod client_address;
mod grpc;
mod observe;
mod rest;
mod server;
mod targets;
pub mod upstream;
mod web;

pub use targets::{Running, run, start};
