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
