//! `portal`: one binary, whose `--target` picks what the process runs.

use std::process::ExitCode;

use clap::Parser;
use portal_gateway::Config;

#[tokio::main]
async fn main() -> ExitCode {
    let config = Config::parse();
    if let Err(message) = config.check() {
        eprintln!("portal: {message}");
        return ExitCode::from(2);
    }
    if let Err(message) = portal_kit::telemetry::init(&config.shared.log, config.shared.log_format)
    {
        eprintln!("portal: {message}");
        return ExitCode::from(2);
    }
    match portal_gateway::run(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("{error:#}");
            eprintln!("portal: {error:#}");
            ExitCode::FAILURE
        }
    }
}
