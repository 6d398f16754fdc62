//! The wiki's rules and the types that carry them. A value of these types is
//! valid by construction: handlers parse requests into them, so storage never
//! sees invalid input. Nothing here touches the database or the network.

pub mod clearance;
pub mod digest;
pub mod instruction;
pub mod journal;
pub mod maintenance;
pub mod model;
pub mod qr;
pub mod reference;
pub mod register;
pub mod scope;
pub mod text;
pub mod unit;
