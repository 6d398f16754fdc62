//! What a call does beyond one store call: the use cases that combine several
//! reads with education's rules, and the housekeeping run at start-up.

pub mod attempts;
pub mod compliance;
pub mod housekeeping;
pub mod my_tests;
