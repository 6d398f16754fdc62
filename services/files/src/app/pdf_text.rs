//! The text of a stored PDF, for search (issue 25: documents are found by
//! their titles and, for PDFs, their text). Read with `pdf-extract` (fonts'
//! ToUnicode maps, simple and CID encodings, compressed streams) after the
//! upload's bytes are stored, on a blocking thread, within bounds: at most
//! [`MAX_TEXT_BYTES`] of text, [`TIME_LIMIT`] of work, PDFs of at most
//! [`MAX_PDF_BYTES`], [`AT_ONCE`] at a time in a process. A PDF that cannot
//! be read (damaged, encrypted, a font the library does not know, even a
//! panic inside it) is found by its title alone, and the reason is logged;
//! it never fails the upload.

use std::fmt;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::Semaphore;

use portal_kit::ServiceResult;

use crate::store::Store;
use crate::store::blobs::{self, Blobs};

pub use crate::domain::content::PDF;
/// Text kept of one PDF: more than any manual's words, and what the index
/// and each hit's snippet handle quickly.
pub const MAX_TEXT_BYTES: usize = 1024 * 1024;
/// Work spent on one PDF; what was read by then is kept.
pub const TIME_LIMIT: Duration = Duration::from_secs(10);
/// Larger PDFs (scans, mostly, which have no text) are not read at all.
pub const MAX_PDF_BYTES: u64 = 32 * 1024 * 1024;
/// PDFs read at once in a process, so uploads cannot take every core.
const AT_ONCE: usize = 2;

static READERS: Semaphore = Semaphore::const_new(AT_ONCE);

/// The text of the stored PDF `key` (`size` bytes); '' when it has none or
/// cannot be read.
pub async fn read(blobs: &Blobs, key: &str, size: u64) -> String {
    if size > MAX_PDF_BYTES {
        tracing::info!(%key, size, "PDF too large to read its text; found by its title only");
        return String::new();
    }
    let Ok(_turn) = READERS.acquire().await else {
        return String::new();
    };
    let bytes = match blobs::read_all(blobs, key).await {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::warn!(%key, %error, "could not read a stored PDF for its text; found by its title only");
            return String::new();
        }
    };
    text(key, bytes).await
}

/// [`text_of`] on a blocking thread, within [`TIME_LIMIT`]; '' when the PDF
/// cannot be read, with the reason logged.
async fn text(key: &str, bytes: Bytes) -> String {
    let started = Instant::now();
    let reading = tokio::task::spawn_blocking(move || text_of(&bytes, started + TIME_LIMIT));
    // The reader checks the time itself as it writes; this is for a PDF that
    // keeps it busy without writing a character.
    let outcome = tokio::time::timeout(TIME_LIMIT + Duration::from_secs(1), reading).await;
    let text = match outcome {
        Ok(Ok(Ok(text))) => text,
        Ok(Ok(Err(error))) => {
            tracing::warn!(%key, %error, "could not read a PDF's text; found by its title only");
            return String::new();
        }
        Ok(Err(panic)) => {
            tracing::warn!(%key, error = %panic, "reading a PDF's text failed; found by its title only");
            return String::new();
        }
        Err(_) => {
            tracing::warn!(%key, "reading a PDF's text took too long; found by its title only");
            return String::new();
        }
    };
    if text.stopped {
        tracing::info!(
            %key,
            bytes = text.text.len(),
            "a PDF's text was cut at its size or time limit"
        );
    }
    text.text
}

/// PDFs read per batch of [`read_unread`].
const BATCH: i64 = 50;

/// Reads and indexes the text of every PDF stored before texts were read
/// (a start's work, in the background: a replica may start serving while
/// they are read); answers how many. Each is recorded once, a PDF that cannot
/// be read as '', so this ends.
pub async fn read_unread(store: &Store, blobs: &Blobs) -> ServiceResult<usize> {
    let mut read = 0;
    loop {
        let unread = store.unread_pdfs(BATCH).await?;
        if unread.is_empty() {
            return Ok(read);
        }
        for pdf in unread {
            let size = u64::try_from(pdf.size_bytes).unwrap_or(u64::MAX);
            let text = self::read(blobs, &pdf.blob_key, size).await;
            store.record_text(pdf.id, &text).await?;
            read += 1;
        }
    }
}

/// Text read from a PDF, and whether a limit cut it.
#[derive(Debug, PartialEq)]
struct Read {
    text: String,
    stopped: bool,
}

/// The words of `pdf`, spaces collapsed, read until `deadline` or
/// [`MAX_TEXT_BYTES`].
fn text_of(pdf: &[u8], deadline: Instant) -> Result<Read, pdf_extract::OutputError> {
    let mut document = pdf_extract::Document::load_mem(pdf)?;
    if document.is_encrypted() {
        // Many PDFs are encrypted with an empty password, only to forbid
        // editing; one that needs a real password stays unread.
        document.decrypt("")?;
    }
    let mut capped = Capped {
        text: String::new(),
        deadline,
        stopped: false,
    };
    let written = {
        let mut output = pdf_extract::PlainTextOutput::new(&mut capped);
        pdf_extract::output_doc(&document, &mut output)
    };
    match written {
        Ok(()) => {}
        Err(pdf_extract::OutputError::FormatError(_)) if capped.stopped => {}
        Err(error) => return Err(error),
    }
    Ok(Read {
        text: capped.text.split_whitespace().collect::<Vec<_>>().join(" "),
        stopped: capped.stopped,
    })
}

/// Text that stops taking more once it is full or its time is up: the
/// write fails, which ends the library's walk through the pages.
struct Capped {
    text: String,
    deadline: Instant,
    stopped: bool,
}

impl fmt::Write for Capped {
    fn write_str(&mut self, piece: &str) -> fmt::Result {
        if self.text.len() + piece.len() > MAX_TEXT_BYTES || Instant::now() > self.deadline {
            self.stopped = true;
            return Err(fmt::Error);
        }
        self.text.push_str(piece);
        Ok(())
    }
}

impl<'a> pdf_extract::ConvertToFmt for &'a mut Capped {
    type Writer = &'a mut Capped;

    fn convert(self) -> Self::Writer {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn later() -> Instant {
        Instant::now() + TIME_LIMIT
    }

    #[test]
    fn the_demo_manuals_russian_text_is_read_through_its_fonts_unicode_map() {
        let read = text_of(crate::demo::MANUAL, later()).expect("the manual's text");
        assert!(!read.stopped);
        for words in [
            "Монитор пациента BeneView T5",
            "дождитесь самотестирования",
            "дезинфицирующим средством",
        ] {
            assert!(read.text.contains(words), "{words}: {}", read.text);
        }
    }

    #[test]
    fn reading_stops_at_the_deadline_keeping_nothing_more() {
        let read = text_of(crate::demo::MANUAL, Instant::now()).expect("a cut text");
        assert_eq!(
            read,
            Read {
                text: String::new(),
                stopped: true
            }
        );
    }

    #[tokio::test]
    async fn a_damaged_pdf_has_no_text_and_no_error() {
        let cut = Bytes::from_static(&crate::demo::MANUAL[..crate::demo::MANUAL.len() / 2]);
        for damaged in [Bytes::from_static(b"%PDF-1.7\nnot really"), cut] {
            assert_eq!(text("damaged", damaged).await, "");
        }
        let whole = text("manual", Bytes::from_static(crate::demo::MANUAL)).await;
        assert!(whole.contains("Плановое ТО"), "{whole}");
    }
}
