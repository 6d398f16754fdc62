//! What a call does beyond one store call: receiving [`uploads`] (stream,
//! limits, type, blob, record), and signing and checking download [`links`]
//! with the keys of their file.

pub mod links;
pub mod uploads;
