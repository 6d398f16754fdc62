//! A stored file as the rules see it: the message of one that is missing (or
//! hidden from the reader), and whom a download link was issued to.

pub const MSG_FILE_NOT_FOUND: &str = "Файл не найден";

/// A genuine link that was presented: whom it was issued to and until when
/// (Unix seconds). With its file's id it names the link without its MAC,
/// which is what the audit log records of it: a link's text is a secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Issued {
    pub issued_to: i64,
    /// The access version of the token it was issued to.
    pub version: i64,
    pub expires_at: i64,
}
