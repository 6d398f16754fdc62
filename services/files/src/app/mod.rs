//! What a call does beyond one store call: receiving [`uploads`] (stream,
//! limits, type, blob, record), signing and checking download [`links`] with
//! the keys of their file, and asking the wiki who sees an equipment
//! [`models`] entry (a document's model), reading a PDF's text for search
//! ([`pdf_text`]: on upload, and at start for PDFs stored before).

pub mod links;
pub mod models;
pub mod pdf_text;
pub mod uploads;
