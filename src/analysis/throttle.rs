//! The steady state of a drive held back by a lifetime throttle (SandForce's DuraWrite "life
//! curve"): the controller caps the NAND program rate so that wear follows rated P/E cycles over
//! the warranty; a drive written faster than that runs up a debt above the curve, and the cap
//! falls with it. A throttled drive's time per write `y` therefore rises with the bytes written,
//! `dy/dt = k₀ − k₁·y`: `k₀` the rise per second of writing (the debt each write adds), `k₁` the
//! life curve's allowance paying the debt back (the warranty budget; `y = k₀/k₁` is the time per
//! write at which the drive writes exactly its budget).
//!
//! It applies when the drive slowed down while the greedy-GC model's write amplification was
//! still 1 (garbage collection cannot explain that) and its time per write keeps rising at a
//! steady rate. The rise `k` is fitted to the rounds of the decline (the later half since it
//! began); the allowance, which an hour of samples cannot separate from the rise, is bounded:
//! none (the fastest fall) up to a quarter of the drive's present write rate (`k₁·y = k₀/4`).
//! The prediction is the IOPS at the end of the run's plan (its duration or bytes), or at SNIA's
//! pass when the plan has no end.

use crate::results::{Basis, Model, Prediction};

use super::predict::{prediction, snia_pass, Level, Setting, WaCurve};

/// A cliff: a round's time per write this many times the first round's.
const CLIFF: f64 = 1.5;
/// Rounds a fit needs, and the t-statistic its rise needs to count as a rise.
const MIN_ROUNDS: usize = 15;
const MIN_T: f64 = 4.0;
/// The largest share of the present write rate the life curve's allowance is taken to be.
pub(super) const MAX_ALLOWANCE: f64 = 0.25;
/// Allowance for what the model leaves out (round-to-round noise of the level predicted).
const FLOOR: f64 = 0.03;

/// Time per write (seconds per op) of each round of `round_s`: (mid-time, seconds per op,
/// bytes written at its end).
pub(super) fn rounds(samples: &[crate::stats::Sample], round_s: f64) -> Vec<(f64, f64, u64)> {
    let mut out: Vec<(u64, u64, f64, u64)> = Vec::new();
    for x in samples {
        let r = (x.t_start_s / round_s).floor() as u64;
        match out.last_mut() {
            Some(last) if last.0 == r => {
                last.1 += x.ops;
                last.2 += x.t_end_s - x.t_start_s;
                last.3 = x.bytes_written_total;
            }
            _ => out.push((r, x.ops, x.t_end_s - x.t_start_s, x.bytes_written_total)),
        }
    }
    out.into_iter()
        .filter(|r| r.1 > 0)
        .map(|(r, ops, secs, bytes)| ((r as f64 + 0.5) * round_s, secs / ops as f64, bytes))
        .collect()
}

/// A straight line through (t, y): the mean point, its slope, the residual variance and Σ(t−t̄)².
pub(super) struct Line {
    pub mt: f64,
    pub my: f64,
    pub k: f64,
    pub s2: f64,
    pub sxx: f64,
    pub n: f64,
}

impl Line {
    pub fn of(points: &[(f64, f64, u64)]) -> Option<Line> {
        let n = points.len() as f64;
        let mt = points.iter().map(|p| p.0).sum::<f64>() / n;
        let my = points.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = points.iter().map(|p| (p.0 - mt).powi(2)).sum();
        let k = points.iter().map(|p| (p.0 - mt) * (p.1 - my)).sum::<f64>() / sxx;
        let s2 = points
            .iter()
            .map(|p| (p.1 - my - k * (p.0 - mt)).powi(2))
            .sum::<f64>()
            / (n - 2.0);
        (n >= 3.0 && sxx > 0.0 && k.is_finite()).then_some(Line {
            mt,
            my,
            k,
            s2,
            sxx,
            n,
        })
    }

    /// Whether the line rises clearly (its slope at least `MIN_T` standard errors).
    pub fn rises(&self) -> bool {
        self.k > 0.0 && self.k >= MIN_T * (self.s2 / self.sxx).sqrt()
    }
}

/// The rounds of the decline up to round `now`: from the fastest round after the cliff's
/// bottom (the slowest round in the first half since the cliff), its later half; `None` with
/// fewer than `MIN_ROUNDS`.
fn decline(r: &[(f64, f64, u64)], cliff: usize, now: usize) -> Option<&[(f64, f64, u64)]> {
    let slowest = |a: usize, b: usize| (a..=b).max_by(|&i, &j| r[i].1.total_cmp(&r[j].1));
    let fastest = |a: usize, b: usize| (a..=b).min_by(|&i, &j| r[i].1.total_cmp(&r[j].1));
    let bottom = slowest(cliff, cliff + (now.checked_sub(cliff)?) / 2)?;
    let peak = fastest(bottom, now)?;
    let start = peak + (now - peak) / 2;
    (now + 1 - start >= MIN_ROUNDS).then(|| &r[start..=now])
}

/// Time per write `h` seconds on from `y`, rising at `k0` and paid back at `k1`.
pub(super) fn ahead(y: f64, k0: f64, k1: f64, h: f64) -> f64 {
    if k1 <= 0.0 {
        return y + k0 * h;
    }
    let eq = k0 / k1;
    eq + (y - eq) * (-k1 * h).exp()
}

/// The prediction for a throttled drive, or `None` when the samples show no throttle (no cliff
/// before the model's, no steady rise since).
pub fn predict(
    samples: &[crate::stats::Sample],
    curve: &WaCurve,
    s: &Setting,
) -> Option<Prediction> {
    let last = samples.last()?;
    let r = rounds(samples, s.criteria.round_s);
    let now = r.len().checked_sub(2)?; // the last round may be partial
    let span = s.span.max(1) as f64;
    let cliff = r.iter().position(|p| p.1 >= CLIFF * r[0].1)?;
    // Rounds while the model's WA is still 1: a drive slowing there is not collecting garbage.
    let flat = r.iter().rposition(|p| curve.at(p.2 as f64 / span) < 1.02)?;
    if flat <= cliff || !Line::of(decline(&r, cliff, flat.min(now))?)?.rises() {
        return None;
    }
    let line = Line::of(decline(&r, cliff, now)?)?;
    if !line.rises() {
        return None;
    }
    let t_now = r[now].0;
    let y_now = line.my + line.k * (t_now - line.mt);
    // The rise measured is k₀ − k₁·y; the allowance k₁·y is between none and MAX_ALLOWANCE of
    // the present rate k₀.
    let at = |share: f64, h: f64| {
        let k0 = line.k / (1.0 - share);
        ahead(y_now, k0, share * k0 / y_now, h)
    };
    let (basis, end_s) = match plan_end(samples, s) {
        Some(t) => (Basis::PlanEnd, t),
        None => {
            let y = |t: f64, _bytes: f64| at(MAX_ALLOWANCE / 2.0, (t - t_now).max(0.0));
            (Basis::SniaPass, snia_pass(samples, s, y)?.0)
        }
    };
    let h = (end_s - t_now).max(0.0);
    let se = (line.s2 * (1.0 / line.n + (end_s - line.mt).powi(2) / line.sxx)).sqrt();
    let (slow, fast, mid) = (at(0.0, h), at(MAX_ALLOWANCE, h), at(MAX_ALLOWANCE / 2.0, h));
    let iops = 1.0 / mid;
    let low = 1.0 / ((slow + 2.0 * se) * (1.0 + FLOOR));
    // No faster than the fastest round since the cliff: the throttle's debt only slows it.
    let fastest = r[cliff..=now].iter().map(|p| 1.0 / p.1).fold(0.0, f64::max);
    let high = (1.0 / ((fast - 2.0 * se).max(fast * 0.1) * (1.0 - FLOOR))).min(fastest);
    let pass = snia_pass(samples, s, |t, _| {
        at(MAX_ALLOWANCE / 2.0, (t - t_now).max(0.0))
    });
    let mut p = prediction(
        basis,
        Level::new(iops, low, high),
        curve.at(last.bytes_written_total as f64 / span),
        s,
        pass,
        last,
    );
    p.rise_us_per_h = Some(line.k * 1e6 * 3600.0);
    p.model = Model::Throttle;
    Some(p)
}

/// When the run's plan ends (seconds since the start): its duration, or the time its byte
/// budget will take at the present rate; `None` without either.
pub(super) fn plan_end(samples: &[crate::stats::Sample], s: &Setting) -> Option<f64> {
    if let Some(d) = s.plan_s {
        return Some(d);
    }
    let budget = s.plan_bytes? as f64;
    let last = samples.last()?;
    let rate = last.bytes as f64 / (last.t_end_s - last.t_start_s).max(1e-9);
    Some(last.t_end_s + (budget - last.bytes_written_total as f64).max(0.0) / rate.max(1.0))
}
