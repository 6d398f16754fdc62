//! Education's rules and the types that carry them. A value of these types is
//! valid by construction: handlers parse requests into them, so storage never
//! sees invalid input. Nothing here touches the database or the network.

pub mod article;
pub mod attempt;
pub mod compliance;
pub mod course;
pub mod date;
pub mod integration;
pub mod notification;
pub mod pass;
pub mod revision;
pub mod statistics;
pub mod test;
pub mod text;
