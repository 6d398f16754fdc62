//! What every Portal service shares: the settings common to all of them, one
//! database layer, one error model, access-token handling, telemetry, the gRPC
//! serving scaffold, and calls to other services (each with its deadline; the
//! gateway balances them over the replicas).

pub mod access;
pub mod account_limits;
pub mod audit;
pub mod claims;
pub mod config;
pub mod day;
pub mod db;
pub mod deadline;
pub mod error;
pub mod housekeeping;
pub mod idempotency;
pub mod internal;
pub mod key_file;
pub mod metrics;
pub mod net;
pub mod on_behalf;
pub mod private_fs;
pub mod qr;
pub mod read_marks;
pub mod readiness;
pub mod revisions;
pub mod revocation;
pub mod rich_text;
pub mod rights;
pub use db::schema;
pub mod search;
pub mod secret_file;
pub mod serve;
pub mod start;
pub mod telemetry;
pub mod text;
pub mod token;
pub mod traces;

#[cfg(any(test, feature = "testing"))]
pub mod smtp_sink;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use access::{Caller, Right};
pub use error::{ServiceError, ServiceResult};
