//! What auth does beyond one store call: [`sessions`] (sign-in, refresh,
//! sign-out) under the sign-in [`limits`], its [`password_check`] by the
//! portal's hashes or by the directory ([`directory_sign_in`]), other
//! systems' [`service_tokens`]
//! (the client-credentials grant), the [`reset_mail`] of «Забыли пароль?»,
//! the second factor ([`mfa`]) of two-step sign-in, single sign-on
//! ([`sso_sign_in`]),
//! and at every start the [`housekeeping`]
//! and the [`bootstrap`] admin.

pub mod bootstrap;
pub mod checked;
pub mod directory_sign_in;
pub mod housekeeping;
pub mod limits;
pub mod mfa;
pub mod password_check;
pub mod reset_mail;
pub mod service_tokens;
pub mod sessions;
pub mod sso_sign_in;
