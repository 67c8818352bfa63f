//! `ssdfade measure`: a spot check printing an Iometer-style table (or one JSON object).

use std::io::IsTerminal;
use std::time::Duration;

use super::run::request;
use crate::cli::RunArgs;
use crate::results::run_table;
use crate::run::progress::ProgressBarObserver;
use crate::run::{NoProgress, Outcome, RunObserver};

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

/// Prints a finished run as a table under a header giving the whole access spec.
pub fn print_table(outcome: &Outcome) -> anyhow::Result<()> {
    crate::out!(
        "{}",
        run_table(&outcome.info, &outcome.summary, &outcome.dir)
    )
}
