//! Logs through `tracing`: human text on a terminal, JSON for a cluster's collector.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global subscriber; a bad filter is refused naming its variable.
pub fn init(filter: &str, format: LogFormat) -> Result<(), String> {
    let filter = EnvFilter::try_new(filter).map_err(|e| format!("PORTAL_LOG: {e}"))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(true)
        // Colour codes only where a person reads them: a file or a collector
        // would keep them as garbage.
        .with_ansi(std::io::stdout().is_terminal());
    let result = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
    result.map_err(|e| format!("installing the log subscriber: {e}"))
}

/// The header (and gRPC metadata key) that names one request across processes.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// A request's id: the caller's own when it is a sane one (1 to 64 of
/// `A-Z a-z 0-9 . _ - :`, so it cannot forge log lines), else a fresh random one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestId(String);

impl RequestId {
    pub fn from_header(value: &http::HeaderValue) -> Option<RequestId> {
        let text = value.to_str().ok()?;
        let sane = (1..=64).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':'));
        sane.then(|| RequestId(text.to_owned()))
    }

    /// 128 random bits in hex.
    pub fn generate() -> RequestId {
        RequestId(hex::encode(rand::random::<[u8; 16]>()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sane_request_id_is_kept_and_anything_else_replaced() {
        let kept = RequestId::from_header(&http::HeaderValue::from_static("lb-7f3a:01.x_y"));
        assert_eq!(kept.unwrap().as_str(), "lb-7f3a:01.x_y");
        for bad in ["", "a b", "id\"}{\"level\":\"ERROR", &"x".repeat(65)] {
            let value = http::HeaderValue::from_str(bad).unwrap();
            assert_eq!(RequestId::from_header(&value), None, "{bad}");
        }
        let made = RequestId::generate();
        assert_eq!(made.as_str().len(), 32);
        assert_ne!(made, RequestId::generate());
    }
}
