//! The bounds of the wiki's text fields; they are parsed by
//! [`portal_kit::text::Field`], as auth's names are.

pub const MAX_NAME_CHARS: usize = 300;
pub const MAX_TEXT_CHARS: usize = 5_000;
