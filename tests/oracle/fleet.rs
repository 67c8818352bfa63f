//! A fleet's fade band recomputed from its members' samples.jsonl alone: drives grouped by the
//! model run.json names, and per interval index the median, p10 and p90 of the IOPS of the
//! drives that have that interval (quantiles interpolated linearly between the sorted values,
//! as docs/fleets-and-metrics.md defines them) at the median of their end times. Compared with
//! `fleet --json`'s band and with what each group's band chart drew (`fleet-N-band.chart.json`):
//! the median line, the p10–p90 envelope and the outlier's own curve.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::drawn::{record, same_points, series};
use super::{close, intervals, json, num};
use crate::common::{run_ok, ssdfade};

/// The `q` quantile of `values`, interpolating linearly between the sorted neighbours.
fn quantile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// `(t_s, drives, p10, median, p90)` per interval index over the runs in `dirs`.
fn band(dirs: &[PathBuf]) -> Vec<(f64, usize, f64, f64, f64)> {
    let curves: Vec<Vec<(f64, f64)>> = dirs
        .iter()
        .map(|d| intervals(d).iter().map(|s| (s.t_end_s, s.iops)).collect())
        .collect();
    let longest = curves.iter().map(Vec::len).max().unwrap();
    (0..longest)
        .map(|i| {
            let at: Vec<(f64, f64)> = curves.iter().filter_map(|c| c.get(i)).copied().collect();
            let iops: Vec<f64> = at.iter().map(|p| p.1).collect();
            let ends: Vec<f64> = at.iter().map(|p| p.0).collect();
            (
                quantile(&ends, 0.5),
                at.len(),
                quantile(&iops, 0.1),
                quantile(&iops, 0.5),
                quantile(&iops, 0.9),
            )
        })
        .collect()
}

/// A soak of a simulated drive `preset` with its own serial and aging seed, `minutes` long at
/// 10 s intervals, in `dir/serial`.
fn soak(dir: &Path, preset: &str, serial: &str, options: &str, seed: u32, minutes: u32) {
    let target = format!("sim:{preset},scale=16,serial={serial},seed={seed}{options}");
    run_ok(
        ssdfade(dir)
            .args(["soak", &target, "--duration", &format!("{minutes}m")])
            .args(["--interval", "10s", "--seed", "1", "--out", serial]),
    );
}

/// A fleet of two models (four Vertex 2, one of them with far less spare area and one that
/// ran 8 minutes of 10; three data-centre drives): each group's band in `--json` and in its
/// chart record against the oracle's, and the planted outlier's drawn curve its own samples.
#[test]
fn a_fleets_fade_band_quantiles_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let hosts = tmp.path().join("hosts");
    let host = hosts.join("host-a");
    std::fs::create_dir_all(&host).unwrap();
    for (i, serial) in ["VTX-01", "VTX-02"].iter().enumerate() {
        soak(&host, "vertex2-60g", serial, "", i as u32 + 1, 10);
    }
    soak(&host, "vertex2-60g", "VTX-03", "", 3, 8);
    soak(&host, "vertex2-60g", "VTX-BAD", ",alpha=1.03", 9, 10);
    for (i, serial) in ["DC-01", "DC-02", "DC-03"].iter().enumerate() {
        soak(&host, "dc-ssd-400g", serial, "", i as u32 + 1, 10);
    }
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let fleet: Value = serde_json::from_str(&run_ok(
        ssdfade(tmp.path())
            .arg("fleet")
            .arg(&hosts)
            .arg("--out")
            .arg(&out)
            .arg("--json"),
    ))
    .unwrap();
    // The oracle's groups: the run directories by the model their run.json names.
    let mut models: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(&host).unwrap().flatten() {
        let model = json(&entry.path().join("run.json"))["target"]["identity"]["model"]
            .as_str()
            .unwrap()
            .to_string();
        models.entry(model).or_default().push(entry.path());
    }
    let groups = fleet["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "two models: {models:?}");
    for (g, group) in groups.iter().enumerate() {
        let model = group["model"].as_str().unwrap();
        let mut dirs: Vec<PathBuf> = group["drives"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| PathBuf::from(d["dir"].as_str().unwrap()))
            .collect();
        dirs.sort();
        let mut want_dirs = models[model].clone();
        want_dirs.sort();
        assert_eq!(dirs, want_dirs, "{model}: its drives");
        let want = band(&dirs);

        // --json: every interval index, its drives, time and quantiles.
        let got = group["band"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{model}: band points");
        for (i, (p, w)) in got.iter().zip(&want).enumerate() {
            let what = |k: &str| format!("{model}: band point {i} {k}");
            assert_eq!(p["drives"].as_u64(), Some(w.1 as u64), "{}", what("drives"));
            close(&what("t"), num(&p["t_s"]), w.0, 1e-12);
            close(&what("p10"), num(&p["p10"]), w.2, 1e-12);
            close(&what("median"), num(&p["median"]), w.3, 1e-12);
            close(&what("p90"), num(&p["p90"]), w.4, 1e-12);
        }
        // The last two points of the Vertex 2 group are of three drives, not four.
        if dirs.len() == 4 {
            assert_eq!(want[want.len() - 1].1, 3, "{model}: the short drive");
        }

        // The chart: the median line and the p10–p90 envelope, in the x axis's time unit.
        let drawn = record(&out, &format!("fleet-{}-band", g + 1));
        let panel = &drawn.panels[0];
        let unit = match panel.x_axis.as_str() {
            "Elapsed time (s)" => 1.0,
            "Elapsed time (min)" => 60.0,
            "Elapsed time (h)" => 3600.0,
            other => panic!("{model}: x axis {other:?}"),
        };
        let line = |k: usize| -> Vec<(f64, f64)> {
            want.iter()
                .map(|w| (w.0 / unit, [w.2, w.3, w.4][k]))
                .collect()
        };
        let n = dirs.len();
        let median = format!("median of {n} drives (shaded: p10–p90)");
        for (name, k) in [
            ("p10–p90 over the drives (lowest)", 0),
            (median.as_str(), 1),
            ("p10–p90 over the drives (highest)", 2),
        ] {
            same_points(
                &format!("{model}: {name}"),
                &series(panel, name),
                &line(k),
                1e-12,
            );
        }

        // The planted outlier: its own curve drawn over the band, and nobody else's.
        let outliers: Vec<&str> = panel
            .series
            .iter()
            .map(|s| s.name.as_str())
            .filter(|s| s.starts_with("outlier "))
            .collect();
        if let Some(bad) = dirs.iter().find(|d| d.ends_with("VTX-BAD")) {
            assert_eq!(outliers.len(), 1, "{model}: {outliers:?}");
            assert!(outliers[0].starts_with("outlier VTX-BAD"), "{outliers:?}");
            let own: Vec<(f64, f64)> = intervals(bad)
                .iter()
                .map(|s| (s.t_end_s / unit, s.iops))
                .collect();
            same_points(
                "the outlier's curve",
                &series(panel, outliers[0]),
                &own,
                1e-12,
            );
        } else {
            assert!(outliers.is_empty(), "{model}: {outliers:?}");
        }
    }
}
