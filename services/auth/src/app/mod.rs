//! What auth does beyond one store call: [`sessions`] (sign-in, refresh,
//! sign-out) under the sign-in [`limits`], and at start the [`bootstrap`]
//! admin and demo data.

pub mod bootstrap;
pub mod limits;
pub mod sessions;
