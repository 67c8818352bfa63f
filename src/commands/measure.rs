//! `ssdfade measure`: a spot check printing an Iometer-style table (or one JSON object).

use std::time::Duration;

use super::run::request;
use crate::cli::RunArgs;
use std::io::IsTerminal;

use crate::metrics::Exporter;
use crate::run::progress::ProgressBarObserver;
use crate::run::{NoProgress, Outcome, RunObserver};
use crate::units::format_bytes;

/// How long a measure runs, and its sample period, unless told.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(60);
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// Runs the spot check and prints its results.
pub fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    let request = request(args, "measure", DEFAULT_DURATION, DEFAULT_INTERVAL)?;
    let outcome = crate::run::run(&request, observer(args)?.as_mut())?;
    if args.json {
        println!("{}", outcome_json(&outcome)?);
    } else {
        print_table(&outcome);
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

/// Prints a finished run as a table under a headline.
pub fn print_table(outcome: &Outcome) {
    println!("{}", headline(outcome));
    print!("{}", outcome.summary.table());
    println!("  Run directory: {}", outcome.dir.display());
}

/// One line saying what was measured.
pub fn headline(o: &Outcome) -> String {
    let w = &o.info.workload;
    let t = &o.info.target;
    format!(
        "{} {} ({}, {}): {} {}% read {}% random QD{} {} data, {} engine, {:.1} s",
        o.info.command,
        t.path,
        t.identity.kind,
        format_bytes(t.identity.size_bytes),
        format_bytes(w.bs),
        w.read_pct,
        w.random_pct,
        w.qd,
        w.pattern,
        o.info.engine,
        o.summary.seconds
    )
}
