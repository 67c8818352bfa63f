//! The steady state predicted early, recomputed from samples.jsonl alone: a simulated Vertex 2,
//! whose fall after the cliff is its lifetime throttle, predicted by the throttle model as
//! docs/fast-steady-state.md writes it: rounds of 60 s, the later half of the decline since the
//! cliff fitted with a straight line in time, the level at the plan's end with the allowance
//! between none and a quarter of the rise, the interval twice the line's standard error there
//! and 3 % either side. Compared with run.json, `--json`, report.md and the fade chart's record.

use serde_json::Value;

use super::drawn::{record, series};
use super::{close, intervals, json, num, Interval};
use crate::common::{run_ok, ssdfade};

/// SNIA's round, seconds: a prediction is made at the end of each.
const ROUND_S: f64 = 60.0;

/// (mid-time, seconds per op) of each round of the samples that have I/Os.
fn rounds(samples: &[&Interval]) -> Vec<(f64, f64)> {
    let mut out: Vec<(u64, u64, f64)> = Vec::new();
    for s in samples {
        let r = (s.t_start_s / ROUND_S).floor() as u64;
        match out.last_mut() {
            Some(last) if last.0 == r => {
                last.1 += s.ops;
                last.2 += s.t_end_s - s.t_start_s;
            }
            _ => out.push((r, s.ops, s.t_end_s - s.t_start_s)),
        }
    }
    out.into_iter()
        .filter(|r| r.1 > 0)
        .map(|(r, ops, secs)| ((r as f64 + 0.5) * ROUND_S, secs / ops as f64))
        .collect()
}

/// Least squares of y on t: (mean t, mean y, slope, residual variance, Σ(t − t̄)², n).
fn line(points: &[(f64, f64)]) -> (f64, f64, f64, f64, f64, f64) {
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
    (mt, my, k, s2, sxx, n)
}

/// The throttle model's prediction of the level at `plan_end_s` from `samples`: (IOPS, low,
/// high, whether the fitted rise is at least four standard errors over at least 15 rounds).
fn throttle(samples: &[&Interval], plan_end_s: f64) -> (f64, f64, f64, bool) {
    let r = rounds(samples);
    let now = r.len() - 2; // the last round may be partial
    let cliff = r.iter().position(|p| p.1 >= 1.5 * r[0].1).unwrap();
    // The decline: from the slowest round in the first half since the cliff, the fastest
    // round after it; the later half from there.
    let half = cliff + (now - cliff) / 2;
    let bottom = (cliff..=half).fold(cliff, |b, i| if r[i].1 > r[b].1 { i } else { b });
    let peak = (bottom..=now).fold(bottom, |b, i| if r[i].1 < r[b].1 { i } else { b });
    let start = peak + (now - peak) / 2;
    let (mt, my, k, s2, sxx, n) = line(&r[start..=now]);
    let rises = now + 1 - start >= 15 && k > 0.0 && k >= 4.0 * (s2 / sxx).sqrt();
    let y_now = my + k * (r[now].0 - mt);
    // dy/dt = k0 − k1·y with the allowance k1·y a share of k0: y at h seconds on.
    let at = |share: f64| {
        let k0 = k / (1.0 - share);
        let k1 = share * k0 / y_now;
        let h = (plan_end_s - r[now].0).max(0.0);
        if k1 <= 0.0 {
            y_now + k0 * h
        } else {
            k0 / k1 + (y_now - k0 / k1) * (-k1 * h).exp()
        }
    };
    let se = (s2 * (1.0 / n + (plan_end_s - mt).powi(2) / sxx)).sqrt();
    let (slow, fast, mid) = (at(0.0), at(0.25), at(0.125));
    let iops = 1.0 / mid;
    let fastest = r[cliff..=now].iter().map(|p| 1.0 / p.1).fold(0.0, f64::max);
    let low = (1.0 / ((slow + 2.0 * se) * 1.03)).min(iops);
    let high = (1.0 / ((fast - 2.0 * se).max(fast * 0.1) * 0.97))
        .min(fastest)
        .max(iops);
    (iops, low, high, rises)
}

/// The samples' round ends: each sample that ends in a later round than the one before it.
pub(super) fn round_ends(samples: &[Interval]) -> Vec<usize> {
    let mut round = 0;
    let mut out = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        let r = (s.t_end_s / ROUND_S).floor() as u64;
        if r != round {
            round = r;
            out.push(i);
        }
    }
    out
}

pub(super) fn text(s: f64) -> String {
    ssdfade::units::format_duration(std::time::Duration::from_secs_f64(s))
}

/// A 2-hour soak of a simulated Vertex 2 at 1 s: the prediction of run.json and `--json`, its
/// made-at and first made-at, its level and interval recomputed from the samples; report.md's
/// line and the fade chart's band and line of it.
#[test]
fn the_predictions_made_at_and_interval_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("soak");
    let out = run_ok(
        ssdfade(tmp.path())
            .args(["soak", "sim:vertex2-60g,scale=16", "--duration", "2h"])
            .args(["--interval", "1s", "--seed", "5", "--json", "--out"])
            .arg(&dir),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let info = json(&dir.join("run.json"));
    let p = &info["prediction"];
    assert_eq!(
        &v["prediction"], p,
        "--json and run.json tell one prediction"
    );
    assert_eq!(p["model"], "throttle", "{p}");
    assert_eq!(p["basis"], "plan_end", "{p}");
    let plan_end_s = num(&info["workload"]["duration"]);

    // Made at the end of the run's last round, from every sample up to it.
    let samples = intervals(&dir);
    let ends = round_ends(&samples);
    let last = *ends.last().unwrap();
    close(
        "made at",
        num(&p["made_at_s"]),
        samples[last].t_end_s,
        1e-12,
    );
    assert_eq!(
        p["made_at_bytes"].as_u64(),
        Some(samples[last].written_total),
        "made at bytes"
    );
    let upto = |i: usize| samples[..=i].iter().collect::<Vec<_>>();
    let (iops, low, high, rises) = throttle(&upto(last), plan_end_s);
    assert!(rises, "the oracle's decline does not rise");
    close("predicted IOPS", num(&p["iops"]), iops, 1e-9);
    close("interval low", num(&p["low"]), low, 1e-9);
    close("interval high", num(&p["high"]), high, 1e-9);
    let half = 100.0 * (iops - low).max(high - iops) / iops;
    close("half-width %", num(&p["half_width_pct"]), half, 1e-9);

    // First made at a round's end at which the samples so far show a clear rise, never after
    // the last; the rounds before it that the oracle can fit are those its gate let through.
    let first = num(&p["first_made_at_s"]);
    let at = ends
        .iter()
        .position(|&i| (samples[i].t_end_s - first).abs() < 1e-9)
        .unwrap_or_else(|| panic!("first made at {first} s: no round ends there"));
    assert!(first <= num(&p["made_at_s"]));
    assert!(
        throttle(&upto(ends[at]), plan_end_s).3,
        "no rise at {first} s"
    );

    // report.md: the level and interval, "first made at", "last at".
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let want = format!(
        "{iops:.0} IOPS at the plan's end ({low:.0}–{high:.0}: −{:.1} % / +{:.1} %)",
        100.0 * (1.0 - low / iops),
        100.0 * (high / iops - 1.0)
    );
    let made = format!(
        "first made at {}, last at {}",
        text(first),
        text(samples[last].t_end_s)
    );
    for want in [want, made] {
        assert!(md.contains(&want), "report.md lacks {want:?}:\n{md}");
    }

    // fade.png: over time, the interval band from when it was first made to the plan's end,
    // and the predicted level as a line over the same span; over bytes, from the bytes then.
    let drawn = record(&dir, "fade");
    let name = format!("predicted at the plan's end {iops:.0} ({low:.0}–{high:.0})");
    let first_bytes = samples[ends[at]].written_total as f64;
    for (panel, from, to) in [
        (&drawn.panels[0], first / 60.0, plan_end_s / 60.0),
        (
            &drawn.panels[1],
            first_bytes / 1e9,
            samples[last].written_total as f64 / 1e9,
        ),
    ] {
        let band = panel
            .bands
            .iter()
            .find(|b| b.name.starts_with(&name))
            .unwrap_or_else(|| panic!("no band {name:?} in {:?}", panel.bands));
        close("band from", band.x.0, from, 1e-9);
        close("band to", band.x.1, to, 1e-9);
        let (y0, y1) = band.y.expect("the band's interval");
        close("band low", y0, low, 1e-9);
        close("band high", y1, high, 1e-9);
        let full = panel
            .series
            .iter()
            .find(|s| s.name.starts_with(&name))
            .map(|s| s.name.clone())
            .unwrap_or_else(|| panic!("no line {name:?}"));
        let points = series(panel, &full);
        assert_eq!(points.len(), 2, "{full}");
        for (x, y) in &points {
            close("line level", *y, iops, 1e-9);
            assert!(
                *x >= from - 1e-9,
                "{full}: drawn at {x}, before it was made ({from})"
            );
        }
    }
}
