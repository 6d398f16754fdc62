//! What a call does beyond one store call: receiving [`uploads`] (stream,
//! limits, type, blob, record), signing and checking download [`links`] with
//! the keys of their file, and asking the wiki who sees an equipment
//! [`models`] entry (a document's model).

pub mod links;
pub mod models;
pub mod uploads;
