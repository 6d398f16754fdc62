//! The files service's rules: what a stored name may be, which contents are
//! allowed, and which bytes a range asks for. Each type has one constructor
//! that checks its input, so nothing unchecked reaches storage.

pub mod content;
pub mod file;
pub mod file_name;
pub mod range;
