//! `ssdfade soak`: the long run, with a progress bar and a sample every interval.

use std::time::Duration;

use super::measure::print_outcome;
use super::run::{execute, Defaults, Outcome};
use crate::cli::RunArgs;

/// Runs the soak and prints a short account of it.
pub fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    let defaults = Defaults {
        command: "soak",
        duration: Duration::from_secs(8 * 3600),
        interval: Duration::from_secs(10),
        progress_bar: !args.json,
    };
    let outcome = execute(args, &defaults)?;
    print_outcome(&outcome, args.json)?;
    Ok(outcome)
}
