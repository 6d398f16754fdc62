//! What every Portal service shares: one configuration, one database layer, one
//! error model, access-token handling, telemetry and the gRPC serving scaffold.

pub mod access;
pub mod config;
pub mod day;
pub mod db;
pub mod error;
pub mod metrics;
pub mod net;
pub mod revocation;
pub mod rich_text;
pub mod serve;
pub mod start;
pub mod telemetry;
pub mod text;
pub mod token;

#[cfg(feature = "testing")]
pub mod testing;

pub use access::{Caller, Right};
pub use error::{ServiceError, ServiceResult};
