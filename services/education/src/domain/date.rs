//! Calendar dates: kit's [`Day`], shared with the wiki's logbook.

pub use portal_kit::day::Day;
