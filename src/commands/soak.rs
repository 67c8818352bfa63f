//! `ssdfade soak`: the long run, with a progress bar and a sample every interval.

use std::time::Duration;

use super::measure::{outcome_json, print_table, progress};
use super::run::request;
use crate::cli::SoakArgs;
use crate::results::{read_samples, steady_line, Fade};
use crate::run::Outcome;

/// Runs the soak and prints a short account of it, with how far it faded and whether it
/// reached steady state.
pub fn run(args: &SoakArgs) -> anyhow::Result<Outcome> {
    let mut request = request(
        &args.run,
        "soak",
        Duration::from_secs(8 * 3600),
        Duration::from_secs(10),
    )?;
    let steady = &args.steady;
    if let Some(max) = steady.max_duration {
        request.stop.duration = Some(max);
    }
    request.stop = request
        .stop
        .with_steady(steady.ss_round, steady.until_steady);
    let outcome = crate::run::run(&request, progress(&args.run).as_mut())?;
    let fade = Fade::of(&read_samples(&outcome.dir)?, outcome.info.workload.interval);
    if args.run.json {
        let mut value = outcome_json(&outcome)?;
        value["fade"] = serde_json::to_value(&fade)?;
        value["steady_state"] = serde_json::to_value(&outcome.info.steady_state)?;
        crate::outln!("{value}")?;
    } else {
        print_table(&outcome)?;
        if let Some(fade) = fade {
            crate::out!("{}", fade.line())?;
        }
        if let Some(steady) = &outcome.info.steady_state {
            crate::out!("{}", steady_line(steady))?;
        }
    }
    Ok(outcome)
}
