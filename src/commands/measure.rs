//! `ssdfade measure`: a spot check printing an Iometer-style table (or one JSON object).

use std::io::IsTerminal;
use std::time::Duration;

use super::run::request;
use crate::cli::RunArgs;
use crate::metrics::Exporter;
use crate::results::run_table;
use crate::run::progress::ProgressBarObserver;
use crate::run::{NoProgress, Outcome, RunObserver};

/// How long a measure runs, and its sample period, unless told.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(60);
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// Measures every target given at once (a group) and prints the table of all of them.
pub fn run_group(args: &RunArgs) -> anyhow::Result<crate::engine::RunEnd> {
    super::group::run(
        args,
        request(args, "measure", DEFAULT_DURATION, DEFAULT_INTERVAL)?,
    )
}

/// Runs the spot check and prints its results.
pub fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    let request = request(args, "measure", DEFAULT_DURATION, DEFAULT_INTERVAL)?;
    let outcome = crate::run::run(&request, observer(args)?.as_mut())?;
    if args.json {
        crate::outln!("{}", outcome_json(&outcome)?)?;
    } else {
        print_table(&outcome)?;
    }
    Ok(outcome)
}

/// The progress bar when a person watches (stderr is a terminal and no JSON is asked for).
pub fn progress(args: &RunArgs) -> Box<dyn RunObserver + Send> {
    if shows_progress(args) {
        Box::new(ProgressBarObserver::default())
    } else {
        Box::new(NoProgress)
    }
}

/// Whether a person watches: stderr is a terminal and no JSON is asked for.
pub fn shows_progress(args: &RunArgs) -> bool {
    !args.json && std::io::stderr().is_terminal()
}

/// The progress bar, exported to Prometheus when --metrics-listen or --metrics-textfile asks.
pub fn observer(args: &RunArgs) -> anyhow::Result<Box<dyn RunObserver>> {
    let m = &args.metrics;
    Ok(
        match Exporter::start(m.metrics_listen.as_deref(), m.metrics_textfile.as_deref())? {
            Some(exporter) => Box::new(exporter.observer(progress(args))),
            None => progress(args),
        },
    )
}

/// A finished run as one JSON object: the summary plus where the run directory is and how it ended.
pub fn outcome_json(outcome: &Outcome) -> anyhow::Result<serde_json::Value> {
    let mut value = serde_json::to_value(&outcome.summary)?;
    value["run_dir"] = outcome.dir.display().to_string().into();
    value["status"] = outcome.info.status.clone().into();
    Ok(value)
}

/// Prints a finished run as a table under a header giving the whole access spec.
pub fn print_table(outcome: &Outcome) -> anyhow::Result<()> {
    crate::out!(
        "{}",
        run_table(&outcome.info, &outcome.summary, &outcome.dir)
    )
}
