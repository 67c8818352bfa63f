//! `ssdfade soak`: the long run, with a progress bar and a sample every interval.

use std::time::Duration;

use super::measure::{observer, outcome_json, print_table};
use super::run::request;
use crate::cli::RunArgs;
use crate::results::{read_samples, Fade};
use crate::run::Outcome;

/// How long a soak runs, and its sample period, unless told.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(8 * 3600);
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(10);

/// Runs the soak and prints a short account of it, with how far it faded.
pub fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    let request = request(args, "soak", DEFAULT_DURATION, DEFAULT_INTERVAL)?;
    let outcome = crate::run::run(&request, observer(args)?.as_mut())?;
    let fade = Fade::of(&read_samples(&outcome.dir)?, outcome.info.workload.interval);
    if args.json {
        let mut value = outcome_json(&outcome)?;
        value["fade"] = serde_json::to_value(&fade)?;
        crate::outln!("{value}")?;
    } else {
        print_table(&outcome)?;
        if let Some(fade) = fade {
            crate::out!("{}", fade.line())?;
        }
    }
    Ok(outcome)
}
