//! Logs through `tracing`: human text on a terminal, JSON for a cluster's
//! collector; and the spans of the traces that cross the services
//! ([`crate::traces`]).

use std::fmt;
use std::io::IsTerminal;

use tracing::field::{Field, Visit};
use tracing_subscriber::field::{RecordFields, VisitOutput};
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::FormattedFields;
use tracing_subscriber::fmt::format::{DefaultVisitor, JsonFields, JsonVisitor, Writer};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::traces::{Tracer, Tracing};

/// How log lines are written: for a person at a terminal, or one JSON object
/// a line for a log collector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// Installs the global subscriber: the log lines `filter` lets through, and
/// the spans of traces (exported where `tracing` names a collector). A bad
/// filter is refused naming its variable. Must run inside a Tokio runtime
/// when spans are exported; the tracer returned sends the last ones at
/// shutdown ([`Tracer::shutdown`]).
pub fn init(filter: &str, format: LogFormat, tracing: &Tracing) -> Result<Tracer, String> {
    let filter = EnvFilter::try_new(filter).map_err(|e| format!("PORTAL_LOG: {e}"))?;
    let tracer = Tracer::new(tracing).map_err(|e| e.to_string())?;
    let lines = tracing_subscriber::fmt::layer()
        .with_target(true)
        // Colour codes only where a person reads them: a file or a collector
        // would keep them as garbage.
        .with_ansi(std::io::stdout().is_terminal());
    let lines = match format {
        LogFormat::Text => lines.fmt_fields(TextFields).with_filter(filter).boxed(),
        LogFormat::Json => lines
            .json()
            .flatten_event(true)
            .fmt_fields(JsonLogFields)
            .with_filter(filter)
            .boxed(),
    };
    let spans = tracer
        .layer()
        .with_filter(tracing_subscriber::filter::filter_fn(traced));
    tracing_subscriber::registry()
        .with(lines)
        .with(spans)
        .try_init()
        .map_err(|e| format!("installing the log subscriber: {e}"))?;
    Ok(tracer)
}

/// What a trace holds, whatever `PORTAL_LOG` says: the portal's own spans
/// at info (a request, an RPC; not the probes' and timers', at debug), and
/// warnings and errors as events of the span they happen in.
fn traced(metadata: &tracing::Metadata<'_>) -> bool {
    if metadata.is_span() {
        metadata.target().starts_with("portal") && *metadata.level() <= tracing::Level::INFO
    } else {
        *metadata.level() <= tracing::Level::WARN
    }
}

/// A span's `otel.*` fields (its name and kind in a trace) are for the
/// trace, not the log line.
fn logged(field: &Field) -> bool {
    !field.name().starts_with("otel.")
}

/// Passes on to `0` the fields a log line shows.
struct Logged<'a>(&'a mut dyn Visit);

impl Visit for Logged<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if logged(field) {
            self.0.record_debug(field, value);
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if logged(field) {
            self.0.record_str(field, value);
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if logged(field) {
            self.0.record_i64(field, value);
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if logged(field) {
            self.0.record_u64(field, value);
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        if logged(field) {
            self.0.record_bool(field, value);
        }
    }
}

/// tracing-subscriber's text fields, without the `otel.*` ones.
struct TextFields;

impl<'writer> FormatFields<'writer> for TextFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = DefaultVisitor::new(writer, true);
        fields.record(&mut Logged(&mut visitor));
        visitor.finish()
    }
}

/// tracing-subscriber's JSON fields, without the `otel.*` ones given when a
/// span starts (a field recorded later, `trace_id`, is shown as it is).
struct JsonLogFields;

impl<'writer> FormatFields<'writer> for JsonLogFields {
    fn format_fields<R: RecordFields>(
        &self,
        mut writer: Writer<'writer>,
        fields: R,
    ) -> fmt::Result {
        let mut visitor = JsonVisitor::new(&mut writer);
        fields.record(&mut Logged(&mut visitor));
        visitor.finish()
    }

    fn add_fields(
        &self,
        current: &'writer mut FormattedFields<Self>,
        fields: &tracing::span::Record<'_>,
    ) -> fmt::Result {
        let mut json = FormattedFields::<JsonFields>::new(std::mem::take(&mut current.fields));
        let added = JsonFields::new().add_fields(&mut json, fields);
        current.fields = json.fields;
        added
    }
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
