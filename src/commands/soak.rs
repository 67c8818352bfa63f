//! `ssdfade soak`: the long run, with a progress bar and a sample every interval.

use std::time::Duration;

use super::measure::{in_column, observer, outcome_json, pace, print_table};
use super::run::request;
use crate::analysis::prediction::onward;
use crate::analysis::unsettled::Unsettled;
use crate::analysis::Fade;
use crate::cli::SoakArgs;
use crate::drive::RunEnd;
use crate::results::read_samples;
use crate::run::{Outcome, RunRequest};
use crate::text::prediction::prediction_line;
use crate::text::steady::steady_line;

/// The request of a soak: measure's options, its own defaults, and the steady-state rule.
fn soak_request(args: &SoakArgs) -> anyhow::Result<RunRequest> {
    let mut request = request(
        &args.run,
        "soak",
        Duration::from_secs(8 * 3600),
        Duration::from_secs(10),
    )?;
    let steady = &args.steady;
    let ss_round = match steady.ss_round {
        Some(round) if round < request.interval => crate::bad_input!(
            "--ss-round {} is shorter than the sample interval {}: a steady-state round holds whole intervals; use --ss-round {} or more",
            humantime::format_duration(round),
            humantime::format_duration(request.interval),
            humantime::format_duration(request.interval)
        ),
        Some(round) => round,
        None => Duration::from_secs(60).max(request.interval),
    };
    if let Some(max) = steady.max_duration {
        request.stop.duration = Some(max);
    }
    request.stop = request.stop.with_steady(ss_round, steady.until_steady);
    request.stop.steady.stop_when_predicted = steady.until_predicted;
    Ok(request)
}

/// Soaks every target given at once (a group) and prints the table of all of them.
pub fn run_group(args: &SoakArgs) -> anyhow::Result<RunEnd> {
    super::group::run(&args.run, soak_request(args)?)
}

/// Runs the soak and prints a short account of it, with how far it faded and whether it
/// reached steady state.
pub fn run(args: &SoakArgs) -> anyhow::Result<Outcome> {
    let request = soak_request(args)?;
    let outcome = crate::run::run(&request, observer(&args.run)?.as_mut())?;
    // A run that met its pace has no fade, steady state or prediction: its level is the pace.
    let drives = !pace(&outcome).is_some_and(|p| p.met);
    let samples = read_samples(&outcome.dir)?;
    let fade = Fade::of(&samples, outcome.info.workload.interval).filter(|_| drives);
    let steady_state = outcome.info.steady_state.as_ref().filter(|_| drives);
    let prediction = outcome.info.prediction.as_ref().filter(|_| drives);
    if args.run.json {
        let mut value = outcome_json(&outcome)?;
        value["fade"] = serde_json::to_value(&fade)?;
        value["steady_state"] = serde_json::to_value(steady_state)?;
        value["prediction"] = serde_json::to_value(prediction)?;
        crate::outln!("{value}")?;
    } else {
        print_table(&outcome)?;
        if let Some(fade) = fade {
            crate::out!("{}", fade.line())?;
        }
        if let Some(heat) = crate::analysis::thermal::Thermal::of(&samples).filter(|_| drives) {
            crate::out!("  {:<28} {}\n", "Heat", heat.words())?;
            if !heat.spans.is_empty() {
                let kept = "Throttled intervals are kept out of the fade and the steady state.";
                crate::out!("{}", in_column(kept))?;
            }
        }
        if let Some(steady) = steady_state {
            crate::out!("{}", steady_line(steady))?;
        }
        if let Some(u) = Unsettled::of(&outcome.info).filter(|_| drives) {
            crate::out!("{}", in_column(&format!("Caution: {}.", u.words())))?;
        }
        if let Some(p) = prediction {
            crate::outln!("{}", prediction_line(p))?;
            let steady = outcome.info.steady_state.as_ref();
            if let Some(o) = steady.and_then(|s| onward(s, p)) {
                let text = format!("SNIA steady state reached; {}", o.words());
                crate::out!("{}", in_column(&text))?;
            }
        }
    }
    Ok(outcome)
}

/// Why the soak did not end as `--until-steady` or `--until-predicted` asked, when it ran to
/// its limit instead: the run is complete and kept, but not what was asked for (exit status 3).
pub fn gave_up(args: &SoakArgs, outcome: &Outcome) -> Option<String> {
    if outcome.end != RunEnd::Completed {
        return None;
    }
    let info = &outcome.info;
    if args.steady.until_steady && !info.steady_state.as_ref().is_some_and(|s| s.reached) {
        return Some(
            "--until-steady gave up: steady state was not reached before the limit".into(),
        );
    }
    let pct = crate::run::UNTIL_PREDICTED_PCT;
    if args.steady.until_predicted {
        return match &info.prediction {
            None => Some(
                "--until-predicted gave up: the run ended at its limit without a prediction of the steady state (none is made before the first cliff); give a longer --duration or --bytes"
                    .into(),
            ),
            Some(p) if p.half_width_pct > pct => Some(format!(
                "--until-predicted gave up: the run ended at its limit with the steady state predicted within ±{:.1} %, not ±{pct} %; give a longer --duration or --bytes",
                p.half_width_pct
            )),
            Some(_) => None,
        };
    }
    None
}
