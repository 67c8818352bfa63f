//! The chart records (`NAME.chart.json`) as the oracle reads them, and the comparisons of drawn
//! series with series recomputed from the raw files.

use std::path::Path;

use ssdfade::plot::drawn::{read_sidecar, Drawn, DrawnPanel};

use super::{histogram, Hist};

/// The record of chart `name` (`wsat`, `fade-distribution`) in `dir`.
pub fn record(dir: &Path, name: &str) -> Drawn {
    let path = dir.join(format!("{name}.chart.json"));
    read_sidecar(&path).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()))
}

/// The points (breaks left out) of the series of `panel` named exactly `name`.
#[track_caller]
pub fn series(panel: &DrawnPanel, name: &str) -> Vec<(f64, f64)> {
    panel
        .series
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| {
            let names: Vec<&str> = panel.series.iter().map(|s| s.name.as_str()).collect();
            panic!("no series {name:?} in {names:?}")
        })
        .points
        .iter()
        .flatten()
        .copied()
        .collect()
}

/// The x range of the band of `panel` whose name starts with `name`.
#[track_caller]
pub fn band(panel: &DrawnPanel, name: &str) -> (f64, f64) {
    panel
        .bands
        .iter()
        .find(|b| b.name.starts_with(name))
        .unwrap_or_else(|| panic!("no band {name:?} in {:?}", panel.bands))
        .x
}

/// Two point lists alike to a relative `rel` in x and y.
#[track_caller]
pub fn same_points(what: &str, drawn: &[(f64, f64)], want: &[(f64, f64)], rel: f64) {
    let ends = |p: &[(f64, f64)]| format!("{:?} … {:?}", p.first(), p.last());
    assert_eq!(
        drawn.len(),
        want.len(),
        "{what}: {} points drawn ({}), {} recomputed ({})",
        drawn.len(),
        ends(drawn),
        want.len(),
        ends(want)
    );
    let near = |a: f64, b: f64| (a - b).abs() <= rel * b.abs().max(1e-9);
    for (i, (d, w)) in drawn.iter().zip(want).enumerate() {
        assert!(
            near(d.0, w.0) && near(d.1, w.1),
            "{what}: point {i} drawn at {d:?}, the oracle has {w:?}"
        );
    }
}

/// The exceedance steps of a histogram as the distribution chart documents them, in log10
/// coordinates: the share of I/Os slower than each bucket's top holds until the next top,
/// from share 1 at the first bucket's top to the slowest I/O.
pub fn exceedance_steps(h: &Hist) -> Vec<(f64, f64)> {
    let mut steps = vec![((h.buckets[0].0 as f64 / 1000.0).log10(), 0.0)];
    let mut above = h.count;
    for &(top, n) in &h.buckets {
        above -= n;
        if above == 0 {
            break;
        }
        let x = (top as f64 / 1000.0).log10();
        let prev = steps[steps.len() - 1].1;
        steps.push((x, prev));
        steps.push((x, (above as f64 / h.count as f64).log10()));
    }
    // On to the slowest I/O, unless it lies inside the last bucket (below its top).
    let (x, last) = steps[steps.len() - 1];
    steps.push(((h.max_ns as f64 / 1000.0).log10().max(x), last));
    steps
}

/// The distribution chart `name` in `dir` draws, for each `(phase, run directory)` of `runs`,
/// its exceedance curve (the series named "PHASE (N I/Os)"; a run directory's chart has one)
/// exactly as its latency.json gives it, crossing each share 1 − q at the table's percentile
/// q. A phase the chart leaves out is named in its subtitle; more than four are counted there,
/// the first and the last named.
pub fn exceedance_agrees(dir: &Path, name: &str, runs: &[(&str, &Path)]) {
    let drawn = record(dir, name);
    let curves: Vec<_> = drawn
        .panels
        .iter()
        .filter(|p| p.y_axis.starts_with("log10 of share slower"))
        .flat_map(|p| &p.series)
        .collect();
    let texts: Vec<&str> = drawn.labels.iter().map(|l| l.text.as_str()).collect();
    let texts = texts.join("\n");
    let left_out = texts.split_once("Not drawn").map_or("", |(_, rest)| rest);
    let mut checked = 0;
    let mut undrawn = Vec::new();
    for &(phase, run) in runs {
        let found = curves
            .iter()
            .find(|s| runs.len() == 1 || s.name.starts_with(&format!("{phase} (")));
        let Some(found) = found else {
            undrawn.push(phase);
            continue;
        };
        checked += 1;
        let curve: Vec<(f64, f64)> = found.points.iter().flatten().copied().collect();
        let h = histogram(run).unwrap();
        let what = format!("{name}: {}", run.display());
        same_points(&what, &curve, &exceedance_steps(&h), 1e-12);
        for q in [0.5, 0.9, 0.99, 0.999] {
            // The first step down to a share at most 1 − q (to the counts' resolution).
            let rank = (q * h.count as f64).ceil();
            let limit = (h.count as f64 - rank) / h.count as f64;
            let at = curve
                .iter()
                .find(|p| 10f64.powf(p.1) <= limit * (1.0 + 1e-9) + 1e-12)
                .map_or(curve[curve.len() - 1].0, |p| p.0);
            // The table's percentile is that bucket's top, never above the slowest I/O.
            let table = super::quantile_us(&h, q);
            let crossing = 10f64.powf(at).min(h.max_ns as f64 / 1000.0);
            assert!(
                (crossing - table).abs() <= 1e-9 * table,
                "{what}: the curve reaches {} at {} µs, the table's p{q} is {table} µs",
                1.0 - q,
                crossing
            );
        }
    }
    assert!(checked > 0, "{name}: no curve checked");
    // Up to four phases left out are named; more are counted, with the first and the last.
    if let [first, .., last] = undrawn[..] {
        let counted = format!(": {} phases, {first} to {last} (", undrawn.len());
        assert!(
            undrawn.iter().all(|p| left_out.contains(p))
                || (undrawn.len() > 4 && left_out.starts_with(&counted)),
            "{name}: left out {undrawn:?}, the chart says Not drawn{left_out}"
        );
    } else if let [only] = undrawn[..] {
        assert!(
            left_out.contains(only),
            "{name}: {only} neither drawn nor named as left out"
        );
    }
}
