//! `ssdfade measure`: a spot check printing an Iometer-style table (or one JSON object).

use std::time::Duration;

use super::run::request;
use crate::cli::RunArgs;
use std::io::IsTerminal;

use crate::run::progress::ProgressBarObserver;
use crate::run::{NoProgress, Outcome, RunObserver};
use crate::units::format_bytes;

/// Runs the spot check and prints its results.
pub fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    let request = request(
        args,
        "measure",
        Duration::from_secs(60),
        Duration::from_secs(1),
    )?;
    let outcome = crate::run::run(&request, progress(args).as_mut())?;
    if args.json {
        crate::outln!("{}", outcome_json(&outcome)?)?;
    } else {
        print_table(&outcome)?;
    }
    Ok(outcome)
}

/// The progress bar when a person watches (stderr is a terminal and no JSON is asked for).
pub fn progress(args: &RunArgs) -> Box<dyn RunObserver> {
    if args.json || !std::io::stderr().is_terminal() {
        Box::new(NoProgress)
    } else {
        Box::new(ProgressBarObserver::default())
    }
}

/// A finished run as one JSON object: the summary plus where the run directory is and how it ended.
pub fn outcome_json(outcome: &Outcome) -> anyhow::Result<serde_json::Value> {
    let mut value = serde_json::to_value(&outcome.summary)?;
    value["run_dir"] = outcome.dir.display().to_string().into();
    value["status"] = outcome.info.status.clone().into();
    Ok(value)
}

/// Prints a finished run as a table under a headline.
pub fn print_table(outcome: &Outcome) -> anyhow::Result<()> {
    crate::outln!("{}", headline(outcome))?;
    crate::out!("{}", outcome.summary.table())?;
    crate::outln!("  Run directory: {}", outcome.dir.display())
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
