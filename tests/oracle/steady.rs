//! SNIA's steady state recomputed plainly from samples.jsonl (the glossary's definition): the
//! run cut into rounds on a fixed grid (a sample belongs to the round its midpoint falls in), a
//! round counted once the span (and the drive's flash, when known) was written and when its
//! samples cover at least half of it (the run's last round only when it ran to within 1 % of
//! its end), and the first five consecutive rounds whose range is within 20 % and whose
//! least-squares excursion is within 10 % of their average.

use std::collections::BTreeMap;

use super::{close, num, Interval};
use serde_json::Value;

/// One round: its grid start and end, its IOPS, and the bytes written by its last sample.
#[derive(Clone, Copy, Debug)]
pub struct Round {
    pub start_s: f64,
    pub end_s: f64,
    pub iops: f64,
    pub written_total: u64,
}

/// Five rounds judged: where they lie, their average, range and slope excursion (percent of
/// the average).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub first: usize,
    pub start_s: f64,
    pub end_s: f64,
    pub avg: f64,
    pub range_pct: f64,
    pub slope_pct: f64,
}

/// The rounds of `samples` on a grid of `round_s`, leaving out samples that start before
/// `after_bytes` were written.
pub fn rounds(samples: &[Interval], round_s: f64, after_bytes: u64) -> Vec<Round> {
    // grid → (I/Os, seconds covered, bytes written by its last sample, its last sample's end)
    let mut grid: BTreeMap<u64, (u64, f64, u64, f64)> = BTreeMap::new();
    for s in samples {
        if s.written_total - s.written < after_bytes {
            continue;
        }
        let g = ((s.t_start_s + s.t_end_s) / 2.0 / round_s).floor() as u64;
        let e = grid.entry(g).or_insert((0, 0.0, 0, 0.0));
        e.0 += s.ops;
        e.1 += s.t_end_s - s.t_start_s;
        e.2 = s.written_total;
        e.3 = s.t_end_s;
    }
    let last = grid.keys().last().copied();
    grid.into_iter()
        .filter(|&(g, (_, secs, _, end))| {
            let cut_short = Some(g) == last && (g + 1) as f64 * round_s - end > 0.01 * round_s;
            secs >= round_s / 2.0 && !cut_short
        })
        .map(|(g, (ops, secs, written_total, _))| Round {
            start_s: g as f64 * round_s,
            end_s: (g + 1) as f64 * round_s,
            iops: ops as f64 / secs,
            written_total,
        })
        .collect()
}

/// The window of five rounds starting at `first`.
pub fn window(rounds: &[Round], first: usize) -> Window {
    let r = &rounds[first..first + 5];
    let avg = r.iter().map(|r| r.iops).sum::<f64>() / 5.0;
    let max = r.iter().map(|r| r.iops).fold(f64::MIN, f64::max);
    let min = r.iter().map(|r| r.iops).fold(f64::MAX, f64::min);
    // x = 0..4 around its mean 2: slope = Σ (x − 2)(y − avg) / Σ (x − 2)², Σ (x − 2)² = 10.
    let slope: f64 = r
        .iter()
        .enumerate()
        .map(|(x, r)| (x as f64 - 2.0) * (r.iops - avg))
        .sum::<f64>()
        / 10.0;
    Window {
        first,
        start_s: r[0].start_s,
        end_s: r[4].end_s,
        avg,
        range_pct: 100.0 * (max - min) / avg,
        slope_pct: 100.0 * slope.abs() * 4.0 / avg,
    }
}

/// The first window that passes, if any.
pub fn first_steady(rounds: &[Round]) -> Option<Window> {
    (0..rounds.len().saturating_sub(4))
        .map(|i| window(rounds, i))
        .find(|w| w.range_pct <= 20.0 && w.slope_pct <= 10.0)
}

/// The bytes before which no round counts, from run.json: a fast preconditioning's plan (at
/// least the span), else the span and the drive's flash when known.
pub fn after_bytes(info: &Value) -> u64 {
    let span = info["workload"]["span"].as_u64().unwrap();
    match info["workload"]["precondition"]["bytes"].as_u64() {
        Some(plan) => plan.max(span),
        None => span.max(info["drive_before"]["flash_bytes"].as_u64().unwrap_or(0)),
    }
}

#[track_caller]
fn window_agrees(what: &str, got: &Value, want: &Window) {
    close(
        &format!("{what} start"),
        num(&got["start_s"]),
        want.start_s,
        1e-12,
    );
    close(
        &format!("{what} end"),
        num(&got["end_s"]),
        want.end_s,
        1e-12,
    );
    close(&format!("{what} average"), num(&got["avg"]), want.avg, 1e-9);
    close(
        &format!("{what} range"),
        num(&got["range_pct"]),
        want.range_pct,
        1e-6,
    );
    close(
        &format!("{what} slope"),
        num(&got["slope_pct"]),
        want.slope_pct,
        1e-6,
    );
}

/// A run's recorded steady state (run.json's or `--json`'s `steady_state`) against the plain
/// recomputation from its samples: reached or not, the window, when, after how many bytes and
/// drive fills, the rounds counted and the run's last window. Returns the plain rounds and the
/// steady window.
pub fn steady_agrees(
    name: &str,
    recorded: &Value,
    samples: &[Interval],
    info: &Value,
    round_s: f64,
) -> (Vec<Round>, Option<Window>) {
    let rounds = rounds(samples, round_s, after_bytes(info));
    let steady = first_steady(&rounds);
    assert_eq!(
        recorded["rounds"].as_u64(),
        Some(rounds.len() as u64),
        "{name}: rounds counted"
    );
    assert_eq!(
        recorded["reached"].as_bool(),
        Some(steady.is_some()),
        "{name}: reached"
    );
    let capacity = info["target"]["identity"]["size_bytes"].as_f64().unwrap();
    match steady {
        Some(w) => {
            window_agrees(&format!("{name}: steady window"), &recorded["window"], &w);
            close(
                &format!("{name}: at"),
                num(&recorded["at_s"]),
                w.end_s,
                1e-12,
            );
            close(
                &format!("{name}: steady IOPS"),
                num(&recorded["iops"]),
                w.avg,
                1e-9,
            );
            let bytes = rounds[w.first + 4].written_total;
            assert_eq!(
                recorded["bytes_written"].as_u64(),
                Some(bytes),
                "{name}: bytes"
            );
            close(
                &format!("{name}: drive fills"),
                num(&recorded["drive_fills"]),
                bytes as f64 / capacity,
                1e-9,
            );
            // The last window is judged after every round that closed after the steady one.
            if rounds.len() > w.first + 5 {
                let last = window(&rounds, rounds.len() - 5);
                window_agrees(
                    &format!("{name}: last window"),
                    &recorded["last_window"],
                    &last,
                );
            } else {
                assert!(recorded["last_window"].is_null(), "{name}: a last window");
            }
        }
        None if rounds.len() >= 5 => {
            let last = window(&rounds, rounds.len() - 5);
            window_agrees(
                &format!("{name}: closest window"),
                &recorded["window"],
                &last,
            );
        }
        None => assert!(recorded["window"].is_null(), "{name}: a window"),
    }
    (rounds, steady)
}

/// Did not hold: the last window lies more than 10 % from the steady window; the drift, percent.
pub fn drift_pct(rounds: &[Round], steady: &Window) -> Option<f64> {
    (rounds.len() > steady.first + 5).then(|| {
        let last = window(rounds, rounds.len() - 5);
        100.0 * (last.avg - steady.avg) / steady.avg
    })
}
