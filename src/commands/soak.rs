//! `ssdfade soak`: the long run, with a progress bar and a sample every interval.

use std::time::Duration;

use super::measure::{outcome_json, print_table};
use super::run::request;
use crate::cli::SoakArgs;
use crate::results::{read_samples, steady_line, Fade};
use crate::run::progress::ProgressBarObserver;
use crate::run::{NoProgress, Outcome, RunObserver};

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
    let mut observer: Box<dyn RunObserver> = if args.run.json {
        Box::new(NoProgress)
    } else {
        Box::new(ProgressBarObserver::default())
    };
    let outcome = crate::run::run(&request, observer.as_mut())?;
    let fade = Fade::of(&read_samples(&outcome.dir)?);
    if args.run.json {
        let mut value = outcome_json(&outcome)?;
        value["fade"] = serde_json::to_value(&fade)?;
        value["steady_state"] = serde_json::to_value(&outcome.info.steady_state)?;
        println!("{value}");
    } else {
        print_table(&outcome);
        if let Some(fade) = fade {
            print!("{}", fade.line());
        }
        if let Some(steady) = &outcome.info.steady_state {
            print!("{}", steady_line(steady));
        }
    }
    Ok(outcome)
}
