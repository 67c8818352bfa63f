//! Thermal throttling recomputed from samples.jsonl alone, as docs/charts-and-reports.md
//! ("Thermal throttling") defines it, on a passively cooled M.2 drive under a long sequential
//! write: an interval is throttled when the drive's TMT counters or times rose since the
//! reading before; the report's "throttled for N min above T °C (TMT1 ×k)" and the heat chart's
//! drawn IOPS, temperature, warning threshold and shaded spans.

use serde_json::Value;

use super::close;
use super::drawn::{record, same_points, series};
use crate::common::{run_ok, ssdfade};

/// One interval's time, IOPS and health reading.
struct Reading {
    t_start_s: f64,
    t_end_s: f64,
    iops: f64,
    temperature_c: f64,
    warning_c: f64,
    /// TMT1 + TMT2 transitions and seconds, TMT1 transitions.
    steps: u64,
    step_s: f64,
    tmt1: u64,
}

fn readings(text: &str) -> Vec<Reading> {
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let h = &v["health"];
            let f = |k: &str| h[k].as_f64().unwrap_or_else(|| panic!("no {k} in {h}"));
            let n = |k: &str| h[k].as_u64().unwrap_or_else(|| panic!("no {k} in {h}"));
            Reading {
                t_start_s: v["t_start_s"].as_f64().unwrap(),
                t_end_s: v["t_end_s"].as_f64().unwrap(),
                iops: v["iops"].as_f64().unwrap(),
                temperature_c: f("temperature_c"),
                warning_c: f("warning_c"),
                steps: n("tmt1_count") + n("tmt2_count"),
                step_s: f("tmt1_s") + f("tmt2_s"),
                tmt1: n("tmt1_count"),
            }
        })
        .collect()
}

/// A 30-minute sequential write at 128 KiB on `thermal=m2`: the throttled spans, minutes,
/// lowest temperature and TMT1 count against report.md and fade-heat.png's record.
#[test]
fn thermal_throttling_and_the_heat_chart_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("hot");
    run_ok(
        ssdfade(tmp.path())
            .args([
                "soak",
                "sim:nvme-tlc-1t,scale=16,thermal=m2",
                "--bs",
                "128k",
            ])
            .args(["--random-pct", "0", "--qd", "32", "--duration", "30m"])
            .args(["--interval", "10s", "--seed", "3", "--out"])
            .arg(&dir),
    );
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let r = readings(&std::fs::read_to_string(dir.join("samples.jsonl")).unwrap());

    // Throttled: the counters or times rose since the reading before.
    let hot: Vec<&Reading> = r
        .windows(2)
        .filter(|w| w[1].steps > w[0].steps || w[1].step_s > w[0].step_s)
        .map(|w| &w[1])
        .collect();
    assert!(
        !hot.is_empty() && hot.len() < r.len(),
        "{} of {} throttled",
        hot.len(),
        r.len()
    );
    let mut spans: Vec<(f64, f64)> = Vec::new();
    for s in &hot {
        match spans.last_mut() {
            Some(last) if (last.1 - s.t_start_s).abs() < 1e-6 => last.1 = s.t_end_s,
            _ => spans.push((s.t_start_s, s.t_end_s)),
        }
    }
    let seconds: f64 = hot.iter().map(|s| s.t_end_s - s.t_start_s).sum();
    let lowest = hot
        .iter()
        .map(|s| s.temperature_c)
        .fold(f64::INFINITY, f64::min);
    let tmt1 = r[r.len() - 1].tmt1 - r[0].tmt1;
    let words = format!(
        "throttled for {:.0} min above {:.0} °C (TMT1 ×{tmt1})",
        seconds / 60.0,
        lowest.floor()
    );
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let heat = md
        .lines()
        .find(|l| l.starts_with("| Heat"))
        .unwrap_or_else(|| panic!("no Heat row in\n{md}"));
    assert!(heat.contains(&words), "{heat:?} lacks {words:?}");

    // fade-heat.png: every interval's IOPS and temperature at its end, in minutes (30 min at
    // 10 s is 180 points, under the downsample's buckets); the warning threshold across; the
    // spans shaded on both panels; the words in its subtitle.
    let drawn = record(&dir, "fade-heat");
    let minutes = |f: fn(&Reading) -> f64| -> Vec<(f64, f64)> {
        r.iter().map(|s| (s.t_end_s / 60.0, f(s))).collect()
    };
    let (iops, temps) = (&drawn.panels[0], &drawn.panels[1]);
    same_points(
        "heat: IOPS",
        &series(iops, "IOPS per interval"),
        &minutes(|s| s.iops),
        1e-12,
    );
    same_points(
        "heat: temperature",
        &series(temps, "composite temperature"),
        &minutes(|s| s.temperature_c),
        1e-12,
    );
    let warning = r[0].warning_c;
    let guide = series(temps, &format!("warning threshold {warning:.0} °C"));
    assert!(guide.iter().all(|p| p.1 == warning), "{guide:?}");
    let want: Vec<(f64, f64)> = spans.iter().map(|s| (s.0 / 60.0, s.1 / 60.0)).collect();
    for panel in [iops, temps] {
        let bands: Vec<(f64, f64)> = panel
            .bands
            .iter()
            .filter(|b| b.name == "thermally throttled")
            .map(|b| b.x)
            .collect();
        assert_eq!(bands.len(), want.len(), "spans: {bands:?} against {want:?}");
        for (b, w) in bands.iter().zip(&want) {
            close("span start", b.0, w.0, 1e-12);
            close("span end", b.1, w.1, 1e-12);
        }
    }
    assert!(
        drawn.labels.iter().any(|l| l.text.ends_with(&words)),
        "fade-heat.png's subtitle lacks {words:?}"
    );
}
