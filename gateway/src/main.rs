//! `portal`: one binary, whose `--target` picks what the process runs, and
//! whose commands do one job and exit: `portal migrate` for that target,
//! `portal backup` and `portal restore` for a one-machine install.

use std::process::ExitCode;

use clap::Parser;
use portal_gateway::{Command, Config, backup};

#[tokio::main]
async fn main() -> ExitCode {
    let config = Config::parse();
    if let Err(message) = config.check() {
        eprintln!("portal: {message}");
        return ExitCode::from(2);
    }
    let tracing = config.shared.tracing(&config.service_name());
    let tracer =
        match portal_kit::telemetry::init(&config.shared.log, config.shared.log_format, &tracing) {
            Ok(tracer) => tracer,
            Err(message) => {
                eprintln!("portal: {message}");
                return ExitCode::from(2);
            }
        };
    let outcome = match config.command.clone() {
        None => portal_gateway::run(config).await,
        Some(Command::Migrate) => portal_gateway::migrate::run(&config).await,
        Some(Command::Backup { dir }) => backup::take(&config, &dir).await,
        Some(Command::Restore { dir }) => backup::restore(&config, &dir).await,
    };
    // The spans of the last requests still queued go to the collector.
    tracer.shutdown().await;
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("{error:#}");
            eprintln!("portal: {error:#}");
            ExitCode::FAILURE
        }
    }
}
