//! `ssdfade measure`: a spot check printing an Iometer-style table (or one JSON object).

use std::time::Duration;

use super::run::{execute, Defaults, Outcome};
use crate::cli::RunArgs;
use crate::results::run_table;

/// Runs the spot check and prints its results.
pub fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    let defaults = Defaults {
        command: "measure",
        duration: Duration::from_secs(60),
        interval: Duration::from_secs(1),
        progress_bar: false,
    };
    let outcome = execute(args, &defaults)?;
    if args.json {
        println!("{}", outcome_json(&outcome)?);
    } else {
        print_table(&outcome);
    }
    Ok(outcome)
}

/// A finished run as one JSON object: the summary plus where the run directory is and how it ended.
pub fn outcome_json(outcome: &Outcome) -> anyhow::Result<serde_json::Value> {
    let mut value = serde_json::to_value(&outcome.summary)?;
    value["run_dir"] = outcome.dir.display().to_string().into();
    value["status"] = outcome.info.status.clone().into();
    Ok(value)
}

/// Prints a finished run as a table under a header giving the whole access spec.
pub fn print_table(outcome: &Outcome) {
    print!(
        "{}",
        run_table(&outcome.info, &outcome.summary, &outcome.dir)
    );
}
