//! What a call does beyond one store call: the use cases that combine several
//! reads with education's rules, the calls to auth, and the housekeeping run
//! at start-up.

pub mod attempts;
pub mod clearance;
pub mod compliance;
pub mod digest;
pub mod equipment_items;
pub mod housekeeping;
pub mod integration;
pub mod my_tests;
pub mod notifications;
pub mod passes;
pub mod staff;
