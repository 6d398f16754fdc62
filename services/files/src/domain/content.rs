//! Which contents may be stored, decided from their first bytes (the file's
//! signature), never from the name or the type a client declares.

use portal_kit::{ServiceError, ServiceResult};

/// How many first bytes are read before deciding (OOXML and OLE documents are
/// recognised from entries near the start of the archive).
pub const SNIFF_BYTES: usize = 64 * 1024;

pub const MSG_EMPTY: &str = "Файл пуст";
pub const MSG_NOT_ALLOWED_DOCUMENT: &str = "Этот тип файла нельзя загрузить: подходят PDF, изображения, документы Office и OpenDocument, RTF, ZIP, видео и текст";
pub const MSG_NOT_A_VIDEO: &str = "Файл не является видео: подходят MP4, MOV, WebM, MKV и AVI";

/// What an upload is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Documentation of an equipment model.
    Document,
    /// A video embedded in rich text.
    Video,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Document => "document",
            Kind::Video => "video",
        }
    }

    pub fn parse(text: &str) -> Option<Kind> {
        match text {
            "document" => Some(Kind::Document),
            "video" => Some(Kind::Video),
            _ => None,
        }
    }
}

/// A type the content was recognised as, and whether it is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContentType {
    pub mime: &'static str,
    /// The extensions a name of this type may keep; the first is given to a
    /// name with none of them.
    pub extensions: &'static [&'static str],
    /// Safe for a browser to show in place; anything else is an attachment.
    pub inline: bool,
    video: bool,
}

const fn allowed(
    mime: &'static str,
    extensions: &'static [&'static str],
    inline: bool,
    video: bool,
) -> ContentType {
    ContentType {
        mime,
        extensions,
        inline,
        video,
    }
}

/// Every type that may be stored, by the MIME type the signature gives.
const ALLOWED: &[ContentType] = &[
    allowed("application/pdf", &["pdf"], true, false),
    allowed("image/png", &["png"], true, false),
    allowed("image/jpeg", &["jpg", "jpeg"], true, false),
    allowed("image/gif", &["gif"], true, false),
    allowed("image/webp", &["webp"], true, false),
    allowed("application/msword", &["doc"], false, false),
    allowed("application/vnd.ms-excel", &["xls"], false, false),
    allowed("application/vnd.ms-powerpoint", &["ppt"], false, false),
    allowed(
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        &["docx"],
        false,
        false,
    ),
    allowed(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        &["xlsx"],
        false,
        false,
    ),
    allowed(
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        &["pptx"],
        false,
        false,
    ),
    allowed(
        "application/vnd.oasis.opendocument.text",
        &["odt"],
        false,
        false,
    ),
    allowed(
        "application/vnd.oasis.opendocument.spreadsheet",
        &["ods"],
        false,
        false,
    ),
    allowed(
        "application/vnd.oasis.opendocument.presentation",
        &["odp"],
        false,
        false,
    ),
    allowed("application/rtf", &["rtf"], false, false),
    // An Office or OpenDocument file whose entries lie beyond the first bytes
    // is still a ZIP archive; its own extension is kept.
    allowed(
        "application/zip",
        &["zip", "docx", "xlsx", "pptx", "odt", "ods", "odp"],
        false,
        false,
    ),
    allowed("video/mp4", &["mp4", "m4v"], true, true),
    allowed("video/x-m4v", &["m4v", "mp4"], true, true),
    allowed("video/quicktime", &["mov"], true, true),
    allowed("video/webm", &["webm"], true, true),
    allowed("video/x-matroska", &["mkv"], true, true),
    allowed("video/x-msvideo", &["avi"], true, true),
];

/// UTF-8 text without a recognised signature (notes, CSV). Never shown in
/// place: a browser must not render it as a page.
const TEXT: ContentType = allowed(
    "text/plain; charset=utf-8",
    &["txt", "csv", "md", "log"],
    false,
    false,
);

impl ContentType {
    /// Decides from `head`, the first [`SNIFF_BYTES`] (or all, if fewer) of the
    /// content, whether it may be stored as `kind`.
    pub fn detect(kind: Kind, head: &[u8]) -> ServiceResult<ContentType> {
        if head.is_empty() {
            return Err(ServiceError::invalid(MSG_EMPTY));
        }
        let recognised = match infer::get(head) {
            Some(found) => ALLOWED
                .iter()
                .find(|allowed| allowed.mime == found.mime_type())
                .copied(),
            None if is_text(head) => Some(TEXT),
            None => None,
        };
        match (kind, recognised) {
            (Kind::Video, Some(found)) if found.video => Ok(found),
            (Kind::Video, _) => Err(ServiceError::invalid(MSG_NOT_A_VIDEO)),
            (Kind::Document, Some(found)) => Ok(found),
            (Kind::Document, None) => Err(ServiceError::invalid(MSG_NOT_ALLOWED_DOCUMENT)),
        }
    }

    /// The stored type of a file, for one read back from storage.
    pub fn of_stored(mime: &str) -> Option<ContentType> {
        ALLOWED
            .iter()
            .chain(std::iter::once(&TEXT))
            .find(|allowed| allowed.mime == mime)
            .copied()
    }
}

/// UTF-8 without NUL bytes; the last character may be cut by the sniff window.
fn is_text(head: &[u8]) -> bool {
    if head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(error) => error.error_len().is_none() && head.len() - error.valid_up_to() < 4,
    }
}

/// The PDF type as [`crate::domain::content`] records it.
pub const PDF: &str = "application/pdf";

#[cfg(test)]
mod tests {
    use super::*;

    const PDF: &[u8] = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n";
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    /// An MP4's first box: size, `ftyp`, brand `isom`.
    const MP4: &[u8] = b"\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41";
    const WEBM: &[u8] = b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm";
    const ELF: &[u8] = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0>\0";
    const EXE: &[u8] = b"MZ\x90\0\x03\0\0\0\x04\0\0\0\xff\xff\0\0";

    fn mime(kind: Kind, head: &[u8]) -> Result<&'static str, String> {
        ContentType::detect(kind, head)
            .map(|found| found.mime)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn documents_are_recognised_by_their_signature() {
        assert_eq!(mime(Kind::Document, PDF), Ok("application/pdf"));
        assert_eq!(mime(Kind::Document, PNG), Ok("image/png"));
        assert_eq!(mime(Kind::Document, MP4), Ok("video/mp4"));
        assert_eq!(
            mime(Kind::Document, "Инв. №;Модель\n1;ИВЛ".as_bytes()),
            Ok(TEXT.mime)
        );
    }

    #[test]
    fn programs_and_pages_are_refused_whatever_they_are_called() {
        for head in [
            ELF,
            EXE,
            b"<!DOCTYPE html><html><script>alert(1)</script>".as_slice(),
        ] {
            assert_eq!(
                mime(Kind::Document, head),
                Err(MSG_NOT_ALLOWED_DOCUMENT.into())
            );
        }
        assert_eq!(
            mime(Kind::Document, &[0xff, 0xfe, 0, 1, 2, 3]),
            Err(MSG_NOT_ALLOWED_DOCUMENT.into())
        );
    }

    #[test]
    fn a_video_must_be_a_video() {
        assert_eq!(mime(Kind::Video, MP4), Ok("video/mp4"));
        // WebM is told from Matroska by its doc type, read from the first 256+ bytes.
        let webm = [WEBM, &[0u8; 300]].concat();
        assert_eq!(mime(Kind::Video, &webm), Ok("video/webm"));
        for head in [PDF, PNG, ELF, b"just text".as_slice()] {
            assert_eq!(mime(Kind::Video, head), Err(MSG_NOT_A_VIDEO.into()));
        }
    }

    #[test]
    fn nothing_is_empty() {
        assert_eq!(mime(Kind::Document, b""), Err(MSG_EMPTY.into()));
        assert_eq!(mime(Kind::Video, b""), Err(MSG_EMPTY.into()));
    }

    #[test]
    fn text_cut_inside_a_letter_is_still_text() {
        let cut = &"Инструкция".as_bytes()[..3];
        assert!(is_text(cut));
        assert!(!is_text(b"\xff\xfe"));
    }

    #[test]
    fn only_pdf_images_and_video_show_in_place() {
        assert!(ContentType::detect(Kind::Document, PDF).unwrap().inline);
        assert!(ContentType::detect(Kind::Video, MP4).unwrap().inline);
        assert!(
            !ContentType::detect(Kind::Document, b"plain")
                .unwrap()
                .inline
        );
        assert!(!ContentType::of_stored("application/zip").unwrap().inline);
    }
}
