//! `ssdfade soak`: the long run, with a progress bar and a sample every interval.

use std::time::Duration;

use super::measure::headline;
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
    if args.json {
        let mut value = serde_json::to_value(&outcome.summary)?;
        value["run_dir"] = outcome.dir.display().to_string().into();
        value["status"] = outcome.info.status.clone().into();
        println!("{}", serde_json::to_string(&value)?);
    } else {
        println!("{}", headline(&outcome));
        print!("{}", outcome.summary.table());
        println!("  Run directory: {}", outcome.dir.display());
    }
    Ok(outcome)
}
