//! Black-box tests of the auth service: each spawns the real service on a random
//! port with a fresh database (on every backend of the run) and calls it through
//! the generated gRPC client.

mod access;
mod audit;
mod bootstrap;
mod directory;
mod directory_mfa;
mod helpers;
mod idempotency;
mod idempotent_secrets;
mod invitations;
mod mail;
mod mfa;
mod mfa_access;
mod mfa_devices;
mod oidc_provider;
mod own_sessions;
mod password_reset;
mod search;
mod service_accounts;
mod sessions;
mod slapd;
mod sso;
mod staff_links;
mod staff_sync;
mod validation;
