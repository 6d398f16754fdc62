//! Which bytes a download sends: the whole file, or one HTTP byte range of it
//! (`first-last`, `first-`, `-suffix`), resolved against the file's size.

use portal_kit::{ServiceError, ServiceResult};
use portal_proto::files::v1::ByteRange;

pub const MSG_BAD_RANGE: &str = "Некорректный диапазон байтов";

/// The bytes `[offset, offset + length)` of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Span {
    pub offset: u64,
    pub length: u64,
}

impl Span {
    pub fn whole(size: u64) -> Span {
        Span {
            offset: 0,
            length: size,
        }
    }

    pub fn end(self) -> u64 {
        self.offset + self.length
    }
}

/// What a download of `size` bytes sends for `range`: the span, or `None` when
/// the range lies wholly beyond the file (HTTP 416).
pub fn resolve(size: u64, range: Option<&ByteRange>) -> ServiceResult<Option<Span>> {
    let Some(range) = range else {
        return Ok(Some(Span::whole(size)));
    };
    let number =
        |value: i64| u64::try_from(value).map_err(|_| ServiceError::invalid(MSG_BAD_RANGE));
    match (range.first, range.last, range.suffix_length) {
        (Some(first), last, None) => {
            let first = number(first)?;
            let last = last.map(number).transpose()?;
            if last.is_some_and(|last| last < first) {
                return Err(ServiceError::invalid(MSG_BAD_RANGE));
            }
            if first >= size {
                return Ok(None);
            }
            let end = last.map_or(size, |last| last.saturating_add(1).min(size));
            Ok(Some(Span {
                offset: first,
                length: end - first,
            }))
        }
        (None, None, Some(suffix)) => {
            let suffix = number(suffix)?;
            if suffix == 0 || size == 0 {
                return Ok(None);
            }
            let length = suffix.min(size);
            Ok(Some(Span {
                offset: size - length,
                length,
            }))
        }
        _ => Err(ServiceError::invalid(MSG_BAD_RANGE)),
    }
}

/// The HTTP entity tag of a file whose SHA-256 is `sha256`: a strong
/// validator, the same for every replica.
pub fn etag(sha256: &str) -> String {
    format!("\"{sha256}\"")
}

/// `range` if `if_range` (HTTP `If-Range`, empty for none) names the version
/// of the file whose SHA-256 is `sha256`, else none: a range of another
/// version is no use to the client, who gets the whole file (RFC 9110
/// §13.1.5). Only the strong ETag matches; a date never does, since no
/// Last-Modified is sent.
pub fn if_current(range: Option<ByteRange>, if_range: &str, sha256: &str) -> Option<ByteRange> {
    range.filter(|_| if_range.is_empty() || if_range.trim() == etag(sha256))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_applies_only_to_the_version_if_range_names() {
        let asked = Some(range(Some(100), Some(199), None));
        let sha256 = "ab12";
        assert_eq!(if_current(asked, "", sha256), asked);
        assert_eq!(if_current(asked, "\"ab12\"", sha256), asked);
        for other in [
            "\"0000\"",
            "W/\"ab12\"",
            "ab12",
            "Wed, 21 Oct 2015 07:28:00 GMT",
        ] {
            assert_eq!(if_current(asked, other, sha256), None, "{other}");
        }
        assert_eq!(if_current(None, "\"ab12\"", sha256), None);
    }

    fn range(first: Option<i64>, last: Option<i64>, suffix: Option<i64>) -> ByteRange {
        ByteRange {
            first,
            last,
            suffix_length: suffix,
        }
    }

    fn span(offset: u64, length: u64) -> Option<Span> {
        Some(Span { offset, length })
    }

    #[test]
    fn no_range_is_the_whole_file() {
        assert_eq!(resolve(10, None).unwrap(), span(0, 10));
        assert_eq!(resolve(0, None).unwrap(), span(0, 0));
    }

    #[test]
    fn the_three_forms_resolve_against_the_size() {
        assert_eq!(
            resolve(1000, Some(&range(Some(0), Some(99), None))).unwrap(),
            span(0, 100)
        );
        assert_eq!(
            resolve(1000, Some(&range(Some(500), None, None))).unwrap(),
            span(500, 500)
        );
        assert_eq!(
            resolve(1000, Some(&range(None, None, Some(100)))).unwrap(),
            span(900, 100)
        );
    }

    #[test]
    fn a_range_past_the_end_is_cut_and_one_beyond_it_unsatisfiable() {
        assert_eq!(
            resolve(1000, Some(&range(Some(990), Some(5000), None))).unwrap(),
            span(990, 10)
        );
        assert_eq!(
            resolve(1000, Some(&range(None, None, Some(5000)))).unwrap(),
            span(0, 1000)
        );
        assert_eq!(
            resolve(1000, Some(&range(Some(1000), None, None))).unwrap(),
            None
        );
        assert_eq!(
            resolve(1000, Some(&range(None, None, Some(0)))).unwrap(),
            None
        );
        assert_eq!(resolve(0, Some(&range(None, None, Some(5)))).unwrap(), None);
    }

    #[test]
    fn malformed_ranges_are_refused() {
        for bad in [
            range(Some(10), Some(5), None),
            range(None, None, None),
            range(Some(1), None, Some(5)),
            range(Some(-1), None, None),
        ] {
            assert!(resolve(1000, Some(&bad)).is_err(), "{bad:?}");
        }
    }
}
