//! Black-box tests of the wiki service: each spawns the real service on a
//! random port with a fresh database (on every backend of the run) and calls it
//! through the generated gRPC client.

mod access;
mod audit;
mod clearance;
mod content;
mod equipment;
mod helpers;
mod logbook;
mod notifications;
mod register;
mod revisions;
mod search;
