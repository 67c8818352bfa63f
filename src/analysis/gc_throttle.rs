//! The steady state of a purged drive that is also held back by a lifetime throttle (the soak of
//! `experiment vertex2` after its erase): it slows from both causes at once. The throttle caps
//! the drive's NAND program rate, and garbage collection multiplies the programs each host write
//! costs, so the time per write is `WA(x) · g(t)`: the greedy-GC model's write amplification at
//! the span-writes done, times the time per program, which the throttle's debt raises steadily
//! with time (`dg/dt = k₀ − k₁·g`, see [`super::throttle`]).
//!
//! It applies when the drive slowed steadily while the model's WA was still 1 (a throttle:
//! garbage collection cannot explain that), at one rate over the first and the second half of
//! those rounds, and the model's WA has risen since, as the drive's own slowing beyond the
//! throttle's says it has (within a factor of [`AGREE`]). The time per program is the straight
//! line of the rounds before the model's cliff, where the WA is exactly 1 (after it the model's
//! WA and the drive's differ while they rise, and the two causes cannot be told apart); the run
//! is continued with it and the model's WA to the plan's end (or SNIA's pass). The interval
//! holds the throttle's allowance (none up to a quarter of the rise, as in [`super::throttle`]),
//! twice the line's standard error there, and the model allowance for the WA still to come (by
//! the model's WA or the drive's, whichever has further to go); it never exceeds the fastest
//! round since the cliff (the WA and the throttle only rise).

use crate::results::{Basis, Model, Prediction};
use crate::stats::Sample;

use super::predict::{prediction, snia_pass, Level, Setting, WaCurve};
use super::throttle::{ahead, plan_end, rounds, Line, MAX_ALLOWANCE};

/// Rounds before the model's cliff the throttle's rise is measured over.
const MIN_FLAT_ROUNDS: usize = 10;
/// A round this much slower than the one before is the drive's own cliff.
const STEP: f64 = 1.05;
/// The least rise that counts as a throttle, a share of the time per write per hour: a drive
/// that slows less than this (an SLC cache's slight slowing as it fills) is left to the
/// garbage-collection model.
const MIN_RISE_PER_H: f64 = 0.01;
/// The model's WA must have risen this much: until then the cliff is not yet explained.
const MIN_MODEL_RISE: f64 = 0.1;
/// The drive's WA (its time per write over the throttle's) must be within this factor of the
/// model's, and the rise over either half of the rounds before the cliff within this factor
/// of the other's.
const AGREE: f64 = 2.0;
/// Model allowance: a floor, and a share of the WA still to come (as the GC model's).
const FLOOR: f64 = 0.02;
const AHEAD_SHARE: f64 = 0.4;

/// One round: mid-time, seconds per op, host span-writes at its middle.
struct Round {
    t: f64,
    y: f64,
    x: f64,
}

/// The prediction for a purged, throttled drive, or `None` when the samples do not show both.
pub fn predict(samples: &[Sample], curve: &WaCurve, s: &Setting) -> Option<Prediction> {
    let last = samples.last()?;
    let span = s.span.max(1) as f64;
    let pre = s.fast.map_or(0, |f| f.bytes) as f64;
    let mut before = 0.0;
    let all: Vec<Round> = rounds(samples, s.criteria.round_s)
        .into_iter()
        .map(|(t, y, end)| {
            let mid = (before + end as f64) / 2.0;
            let start = before;
            before = end as f64;
            (
                start,
                Round {
                    t,
                    y,
                    x: mid / span,
                },
            )
        })
        .filter(|(start, _)| *start >= pre)
        .map(|(_, r)| r)
        .collect();
    // The last round may be partial, and the first holds the run's start.
    let r = all.get(1..all.len().checked_sub(1)?)?;
    let now = r.last()?;
    let wa = |x: f64| curve.at(x);
    // The rounds before the cliff (the model's or the drive's own, a step from one round to the
    // next), less the last, which may hold the cliff's start.
    let mut flat: Vec<(f64, f64, u64)> = r
        .iter()
        .zip(r.iter().skip(1))
        .take_while(|(a, b)| wa(b.x) < 1.02 && b.y < STEP * a.y)
        .map(|(a, _)| (a.t, a.y, 0))
        .collect();
    flat.pop();
    if flat.len() < MIN_FLAT_ROUNDS || wa(now.x) < 1.0 + MIN_MODEL_RISE {
        return None;
    }
    let line = Line::of(&flat)?;
    let (early, late) = flat.split_at(flat.len() / 2);
    let (early, late) = (Line::of(early)?, Line::of(late)?);
    let agree = |a: f64, b: f64| a > 0.0 && b > 0.0 && a / b <= AGREE && b / a <= AGREE;
    if !line.rises() || line.k * 3600.0 < MIN_RISE_PER_H * line.my || !agree(early.k, late.k) {
        return None;
    }
    let g_now = line.my + line.k * (now.t - line.mt);
    // The drive's own WA now: its time per write over the throttle's.
    let drive_wa = now.y / g_now;
    if !agree(drive_wa, wa(now.x)) {
        return None;
    }
    // The time per program `h` seconds on, with the allowance `share` of the rise.
    let g = |share: f64, h: f64| {
        let k0 = line.k / (1.0 - share);
        ahead(g_now, k0, share * k0 / g_now, h)
    };
    let bytes_per_op = last
        .write
        .as_ref()
        .filter(|w| w.ops > 0)
        .map_or(4096.0, |w| w.bytes as f64 / w.ops as f64);
    let y_mid =
        |t: f64, bytes: f64| wa(bytes / span) * g(MAX_ALLOWANCE / 2.0, (t - now.t).max(0.0));
    let pass = snia_pass(samples, s, y_mid);
    let (basis, end_s) = match plan_end(samples, s) {
        Some(t) => (Basis::PlanEnd, t),
        None => (Basis::SniaPass, pass?.0),
    };
    // The run continued to `end_s` with the allowance `share`: the WA and time per program there.
    let run_on = |share: f64| {
        let dt = s.criteria.round_s;
        let (mut t, mut bytes) = (last.t_end_s, last.bytes_written_total as f64);
        while t < end_s {
            let step = dt.min(end_s - t);
            let y = wa(bytes / span) * g(share, (t - now.t).max(0.0));
            bytes += step / y.max(1e-12) * bytes_per_op;
            t += step;
        }
        (wa(bytes / span), g(share, (end_s - now.t).max(0.0)))
    };
    let (wa_end, g_mid) = run_on(MAX_ALLOWANCE / 2.0);
    let (_, g_slow) = run_on(0.0);
    let (_, g_fast) = run_on(MAX_ALLOWANCE);
    let se = (line.s2 * (1.0 / line.n + (end_s - line.mt).powi(2) / line.sxx)).sqrt();
    let to_come = (curve.steady - wa(now.x).min(drive_wa)) / curve.steady;
    let ahead_wa = FLOOR + AHEAD_SHARE * to_come.abs();
    let iops = 1.0 / (wa_end * g_mid);
    let low = 1.0 / (wa_end * (1.0 + ahead_wa) * (g_slow + 2.0 * se));
    let fastest = r[flat.len()..]
        .iter()
        .map(|p| 1.0 / p.y)
        .fold(0.0, f64::max);
    let high =
        (1.0 / (wa_end * (1.0 - ahead_wa) * (g_fast - 2.0 * se).max(g_fast * 0.5))).min(fastest);
    let mut p = prediction(basis, Level::new(iops, low, high), wa_end, s, pass, last);
    p.rise_us_per_h = Some(line.k * wa_end * 1e6 * 3600.0);
    p.model = Model::GcThrottle;
    Some(p)
}
