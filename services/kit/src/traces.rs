//! One trace per call across the gateway and the services (issue 38).
//!
//! The W3C trace context (`traceparent`, `tracestate`) travels on every hop:
//! the gateway takes a caller's valid one or starts a trace ([`adopt`] on its
//! request span), every call to another service carries the span it is made
//! in ([`inject`], in the gateway's `upstream::Balanced`, the channel of every such
//! call), and every gRPC server makes its RPC span a child of the caller's
//! ([`adopt`] in [`crate::metrics::RpcLayer`]). Each of these spans has a
//! `trace_id` field, so its log lines name the trace.
//!
//! Spans are sent to a collector by OTLP over gRPC only when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` names one ([`Tracing`]); without it no
//! exporter is made and no thread runs, and ids are still made and passed on
//! (for the logs, and for a caller's trace that goes on past the portal).

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// Where spans go, read with the other shared settings ([`crate::config::Shared`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tracing {
    /// The collector's OTLP/gRPC endpoint (`http://collector:4317`); none: no export.
    pub endpoint: Option<String>,
    /// The `service.name` the spans carry.
    pub service_name: String,
}

/// The process's tracer: its spans' ids, and their export when asked for.
/// [`Tracer::shutdown`] sends what is still queued before the process ends.
pub struct Tracer {
    provider: SdkTracerProvider,
    exporting: bool,
}

#[derive(Debug, thiserror::Error)]
#[error("OTEL_EXPORTER_OTLP_ENDPOINT: {0}")]
pub struct TracingError(String);

impl Tracer {
    /// Builds the tracer: with a batch exporter to `settings.endpoint` when one
    /// is set (a Tokio runtime must be running), otherwise with none.
    pub fn new(settings: &Tracing) -> Result<Tracer, TracingError> {
        let resource = Resource::builder()
            .with_service_name(settings.service_name.clone())
            .build();
        let mut builder = SdkTracerProvider::builder().with_resource(resource);
        let endpoint = settings
            .endpoint
            .as_deref()
            .filter(|e| !e.trim().is_empty());
        if let Some(endpoint) = endpoint {
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_tonic()
                .with_endpoint(endpoint.trim())
                .build()
                .map_err(|e| TracingError(e.to_string()))?;
            builder = builder.with_batch_exporter(exporter);
        }
        Ok(Tracer {
            provider: builder.build(),
            exporting: endpoint.is_some(),
        })
    }

    /// The layer that gives `tracing`'s spans their OpenTelemetry ids.
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer("portal"))
            .with_tracked_inactivity(false)
            .with_threads(false)
    }

    /// Whether spans are sent to a collector.
    pub fn exporting(&self) -> bool {
        self.exporting
    }

    /// Sends the spans still queued and stops the exporter, off the async
    /// workers (the export itself needs them).
    pub async fn shutdown(self) {
        if !self.exporting {
            return;
        }
        let provider = self.provider;
        let stopped = tokio::task::spawn_blocking(move || provider.shutdown()).await;
        if let Ok(Err(error)) = stopped {
            tracing::warn!(%error, "sending the last spans");
        }
    }
}

/// Makes `span` (a request's or an RPC's, with an empty `trace_id` field)
/// the child of the trace context in `headers` (a malformed one is ignored:
/// a new trace starts), and records its trace id in `trace_id`.
pub fn adopt(span: &tracing::Span, headers: &http::HeaderMap) {
    let parent = TraceContextPropagator::new().extract(&Headers(headers));
    // Refused only where no OpenTelemetry layer is installed (a test's process):
    // the span then has no trace.
    let _ = span.set_parent(parent);
    let context = span.context();
    let span_context = context.span().span_context().clone();
    if span_context.is_valid() {
        span.record("trace_id", tracing::field::display(span_context.trace_id()));
    }
}

/// Puts the trace context of the span now entered into `headers` (an
/// outgoing call's), in place of any the request came with.
pub fn inject(headers: &mut http::HeaderMap) {
    headers.remove(TRACEPARENT);
    headers.remove(TRACESTATE);
    let context = opentelemetry::Context::current();
    if context.span().span_context().is_valid() {
        TraceContextPropagator::new().inject_context(&context, &mut HeadersMut(headers));
    }
}

const TRACEPARENT: &str = "traceparent";
const TRACESTATE: &str = "tracestate";

struct Headers<'a>(&'a http::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

struct HeadersMut<'a>(&'a mut http::HeaderMap);

impl Injector for HeadersMut<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(key.as_bytes()),
            http::HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    const SENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    fn in_a_subscriber(test: impl FnOnce()) {
        let tracer = Tracer::new(&Tracing::default()).unwrap();
        assert!(!tracer.exporting());
        let subscriber = tracing_subscriber::registry().with(tracer.layer());
        tracing::subscriber::with_default(subscriber, test);
    }

    fn traceparent(headers: &http::HeaderMap) -> Option<&str> {
        headers.get(TRACEPARENT).and_then(|v| v.to_str().ok())
    }

    #[test]
    fn a_sent_trace_goes_on_and_a_malformed_one_is_replaced() {
        in_a_subscriber(|| {
            let mut incoming = http::HeaderMap::new();
            incoming.insert(TRACEPARENT, SENT.parse().unwrap());
            let span = tracing::info_span!("request", trace_id = tracing::field::Empty);
            adopt(&span, &incoming);
            let mut outgoing = incoming.clone();
            span.in_scope(|| inject(&mut outgoing));
            let sent = traceparent(&outgoing).unwrap();
            assert!(
                sent.starts_with("00-4bf92f3577b34da6a3ce929d0e0e4736-"),
                "{sent}"
            );
            assert!(
                !sent.contains("00f067aa0ba902b7"),
                "the span's own id: {sent}"
            );

            incoming.insert(TRACEPARENT, "00-xyz-00f067aa0ba902b7-01".parse().unwrap());
            let span = tracing::info_span!("request", trace_id = tracing::field::Empty);
            adopt(&span, &incoming);
            let mut outgoing = incoming.clone();
            span.in_scope(|| inject(&mut outgoing));
            let fresh = traceparent(&outgoing).unwrap();
            assert_eq!(fresh.len(), SENT.len(), "{fresh}");
            assert!(
                !fresh.contains("4bf92f35") && !fresh.contains("xyz"),
                "{fresh}"
            );

            // Outside any span a call carries no trace, not the one it came with.
            inject(&mut outgoing);
            assert_eq!(traceparent(&outgoing), None);
        });
    }
}
