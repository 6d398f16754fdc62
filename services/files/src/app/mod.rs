//! What a call does beyond one store call: signing and checking download
//! [`links`] with the keys of their file.

pub mod links;
