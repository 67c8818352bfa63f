//! `ssdfade soak`: the long run, with a progress bar and a sample every interval.

use std::time::Duration;

use super::measure::{outcome_json, print_table};
use super::run::request;
use crate::cli::RunArgs;
use crate::results::{read_samples, Fade};
use crate::run::progress::ProgressBarObserver;
use crate::run::{NoProgress, Outcome, RunObserver};

/// Runs the soak and prints a short account of it, with how far it faded.
pub fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    let request = request(
        args,
        "soak",
        Duration::from_secs(8 * 3600),
        Duration::from_secs(10),
    )?;
    let mut observer: Box<dyn RunObserver> = if args.json {
        Box::new(NoProgress)
    } else {
        Box::new(ProgressBarObserver::default())
    };
    let outcome = crate::run::run(&request, observer.as_mut())?;
    let fade = Fade::of(&read_samples(&outcome.dir)?);
    if args.json {
        let mut value = outcome_json(&outcome)?;
        value["fade"] = serde_json::to_value(&fade)?;
        println!("{value}");
    } else {
        print_table(&outcome);
        if let Some(fade) = fade {
            print!("{}", fade.line());
        }
    }
    Ok(outcome)
}
