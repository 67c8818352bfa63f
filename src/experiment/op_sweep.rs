//! How much to over-provision (`experiment op-sweep`): for each span of the list (`100%,80%`
//! or sizes), purge the drive, bring it to the random-write steady state with fast
//! preconditioning and measure until SNIA's steady-state test passes (or a per-point limit).
//! Each span is two phases, `purge-<span>` and `span<span>` (a soak, resumed like any soak);
//! the figures and the advice are [`crate::analysis::op_sweep`]'s.
//!
//! With `--on-twin FILE` the same plan runs on `sim:@FILE` (a twin written by `sim fit`): the
//! drive itself is never opened, and the record says the figures are a prediction.

use std::time::Duration;

use super::phase::{EraseParams, Phase, PhaseKind};
use super::{run_params, Setup};
use crate::results::settings::{OnTwin, OpSweepSettings, Settings};
use crate::workload::PreconditionSpec;

/// Most spans one op-sweep takes (each is a purge and a soak to steady state).
pub const MAX_POINTS: usize = 16;

/// The name `settings` records the experiment under.
pub const NAME: &str = "op-sweep";

/// One span of `--span`: a percent of the target or a size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpanPoint {
    Percent(f64),
    Bytes(u64),
}

impl SpanPoint {
    /// The span in bytes on a target of `capacity` bytes, a whole number of `bs` transfers.
    pub fn bytes(self, capacity: u64, bs: u64) -> u64 {
        let raw = match self {
            SpanPoint::Percent(p) => (capacity as f64 * p / 100.0) as u64,
            SpanPoint::Bytes(b) => b,
        };
        raw / bs.max(1) * bs.max(1)
    }

    /// The phase name's tail: `100pct`, `300G`.
    fn label(self, text: &str) -> String {
        match self {
            SpanPoint::Percent(p) => format!("{p}pct"),
            SpanPoint::Bytes(_) => text.to_string(),
        }
    }
}

/// Parses `--span`: a comma-separated list of percents of the target (`80%`, above 0 and at
/// most 100) and sizes (`300G`), each given once.
pub fn parse_spans(text: &str) -> anyhow::Result<Vec<(SpanPoint, String)>> {
    let mut points: Vec<(SpanPoint, String)> = Vec::new();
    for item in text.split(',').map(str::trim) {
        let point = match item.strip_suffix('%') {
            Some(p) => match p.trim().parse::<f64>() {
                Ok(p) if p > 0.0 && p <= 100.0 => SpanPoint::Percent(p),
                _ => crate::bad_input!(
                    "--span {text}: '{item}' is not a percent of the target above 0 and at most 100: give a list such as 100%,90%,80%,75%"
                ),
            },
            None => match crate::units::parse_size(item) {
                Ok(b) if b > 0 => SpanPoint::Bytes(b),
                _ => crate::bad_input!(
                    "--span {text}: '{item}' is neither a percent of the target (80%) nor a size (300G): give a list such as 100%,90%,80%,75%"
                ),
            },
        };
        if points.iter().any(|(p, _)| *p == point) {
            crate::bad_input!("--span {text}: '{item}' is listed twice: give each span once");
        }
        points.push((point, item.to_string()));
    }
    if points.len() > MAX_POINTS {
        crate::bad_input!(
            "--span lists {} spans: an op-sweep takes at most {MAX_POINTS}; split it into several",
            points.len()
        );
    }
    Ok(points)
}

/// What an op-sweep measures, besides the setup.
#[derive(Clone, Debug)]
pub struct OpSweep {
    /// The spans as `--span` gave them.
    pub spans: String,
    /// The drive's over-provisioning for the fast plan, percent (None: as the drive reports).
    pub drive_op_pct: Option<f64>,
    /// Most time each span measures when steady state does not come.
    pub max_duration: Duration,
    pub interval: Duration,
    pub erase_method: String,
    /// The twin file the plan runs on instead of the drive (`--on-twin`), as the user gave
    /// it, and the drive it stands for.
    pub on_twin: Option<(String, String)>,
}

/// The phases: for each span, a purge and a soak of fast preconditioning and random writes
/// until steady (at most `max_duration`).
pub fn phases(
    setup: &Setup,
    spans: &[(SpanPoint, String)],
    capacity: u64,
    plan: &OpSweep,
) -> Vec<Phase> {
    let mut list = Vec::new();
    for &(point, ref text) in spans {
        let label = point.label(text);
        let mut w = setup.workload.clone();
        w.span = Some(point.bytes(capacity, w.bs));
        w.precondition = PreconditionSpec::Fast {
            op_pct: plan.drive_op_pct,
        };
        let mut params = run_params(&w, Some(plan.max_duration), None, plan.interval);
        params.until_steady = true;
        list.push(Phase {
            name: format!("purge-{label}"),
            kind: PhaseKind::Erase(EraseParams {
                method: plan.erase_method.clone(),
            }),
        });
        list.push(Phase {
            name: format!("span{label}"),
            kind: PhaseKind::Soak(params),
        });
    }
    list
}

/// The record of a new op-sweep on `setup`'s target (the twin's simulated drive with
/// `--on-twin`), every phase pending. Bad spans are refused before anything is written.
pub fn record(mut setup: Setup, plan: OpSweep) -> anyhow::Result<super::ExperimentRecord> {
    let spans = parse_spans(&plan.spans)?;
    let mut notes = Vec::new();
    if let Some((file, drive)) = &plan.on_twin {
        let path = match std::fs::canonicalize(file) {
            Ok(p) => p,
            Err(e) => crate::bad_input!(
                "--on-twin {file}: cannot read the twin ({e}): give the file `ssdfade sim fit` wrote"
            ),
        };
        setup.target = format!("sim:@{}", path.display());
        notes.push(format!(
            "a prediction from the twin {} of {drive}, not a measurement: the drive was not opened",
            path.display()
        ));
    }
    let capacity = setup.identity()?.size_bytes.unwrap_or(0);
    for (point, text) in &spans {
        let bytes = point.bytes(capacity, setup.workload.bs);
        if bytes == 0 || bytes > capacity {
            crate::bad_input!(
                "--span {}: '{text}' is {} of a target of {}: give spans from one transfer up to the target's size",
                plan.spans,
                crate::units::format_bytes(bytes),
                crate::units::format_bytes(capacity)
            );
        }
    }
    let settings = Settings::OpSweep(OpSweepSettings {
        spans: spans.iter().map(|(_, t)| t.clone()).collect(),
        capacity_bytes: capacity,
        max_duration_s: plan.max_duration.as_secs_f64(),
        drive_op_pct: plan.drive_op_pct,
        on_twin: plan.on_twin.as_ref().map(|(file, drive)| OnTwin {
            file: file.clone(),
            drive: drive.clone(),
        }),
        workload: setup.workload.clone(),
    });
    let list = phases(&setup, &spans, capacity, &plan);
    super::new_record(NAME, &setup, list, settings, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_parse_as_percents_and_sizes_once_each() {
        let spans = parse_spans("100%, 80%,300G").unwrap();
        let points: Vec<SpanPoint> = spans.iter().map(|(p, _)| *p).collect();
        assert_eq!(
            points,
            [
                SpanPoint::Percent(100.0),
                SpanPoint::Percent(80.0),
                SpanPoint::Bytes(300 << 30)
            ]
        );
        for bad in ["0%", "101%", "abc", "80%,80%", "80%,", "-5%", "0"] {
            let err = parse_spans(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&err), 2, "{bad}: {err}");
        }
        assert_eq!(
            SpanPoint::Percent(75.0).bytes(1000 * 4096 + 100, 4096),
            750 * 4096
        );
    }
}
