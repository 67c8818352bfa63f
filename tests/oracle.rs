//! An independent oracle: the headline figures recomputed from the raw files alone
//! (samples.jsonl, latency.json, run.json's workload, experiment.json, sweep.json), written
//! plainly here without ssdfade's `analysis` module, and compared with what the tool prints:
//! `--json`, report.md, the CSV export and the charts' records (`NAME.chart.json`). Run on fresh
//! runs of the release binary on simulated drives (seconds each) and on the committed
//! `results/examples`. The kinds of run are in `oracle/`: experiments (WSAT, HIR, the sweeps,
//! the benchmark presets, op-sweep), the PTS suite and XSR, runs (a group and its compare, slog, an interrupted soak),
//! a fleet's fade band, the SNIA steady state, the steady state predicted early (the throttle and the greedy-GC models), thermal
//! throttling, trims and the chart records. `scripts/plant-bugs.sh` plants bugs in derived figures and drawn series and
//! names the tests here that catch each.

mod common;
#[path = "oracle/drawn.rs"]
mod drawn;
#[path = "oracle/experiments.rs"]
mod experiments;
#[path = "oracle/fleet.rs"]
mod fleet;
#[path = "oracle/greedy.rs"]
mod greedy;
#[path = "oracle/predict.rs"]
mod predict;
#[path = "oracle/pts.rs"]
mod pts;
#[path = "oracle/runs.rs"]
mod runs;
#[path = "oracle/steady.rs"]
mod steady;
#[path = "oracle/thermal.rs"]
mod thermal;
#[path = "oracle/trim.rs"]
mod trim;

use std::path::Path;

use common::{run_ok, ssdfade};
use serde_json::Value;

/// One line of samples.jsonl, as the oracle reads it.
struct Interval {
    t_start_s: f64,
    t_end_s: f64,
    ops: u64,
    bytes: u64,
    iops: f64,
    mean_us: Option<f64>,
    /// Bytes written in the interval and by its end.
    written: u64,
    written_total: u64,
    /// Seconds of the interval ssdfade itself was stopped (SIGSTOP, a machine too busy to run
    /// it): not the drive's time. Such an interval, or one the machine was suspended in, is a
    /// gap: no figure takes it.
    stopped_s: f64,
    gap: bool,
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn intervals(run: &Path) -> Vec<Interval> {
    std::fs::read_to_string(run.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            Interval {
                t_start_s: num(&v["t_start_s"]),
                t_end_s: num(&v["t_end_s"]),
                ops: v["ops"].as_u64().unwrap(),
                bytes: v["bytes"].as_u64().unwrap(),
                iops: num(&v["iops"]),
                mean_us: v["lat_us"]["mean"].as_f64(),
                written: v["write"]["bytes"].as_u64().unwrap_or(0),
                written_total: v["bytes_written_total"].as_u64().unwrap(),
                stopped_s: v["stopped_s"].as_f64().unwrap_or(0.0),
                gap: v["stopped_s"].as_f64().unwrap_or(0.0) > 0.0
                    || v["suspended_s"].as_f64().unwrap_or(0.0) > 0.0,
            }
        })
        .collect()
}

/// A histogram of latency.json: I/Os, the largest latency (ns), `(top ns, I/Os)` rising.
struct Hist {
    count: u64,
    max_ns: u64,
    buckets: Vec<(u64, u64)>,
}

fn histogram(run: &Path) -> Option<Hist> {
    let v = json(&run.join("latency.json"));
    let all = &v["all"];
    let buckets: Vec<(u64, u64)> = all["buckets"]
        .as_array()?
        .iter()
        .map(|b| (b[0].as_u64().unwrap(), b[1].as_u64().unwrap()))
        .collect();
    Some(Hist {
        count: buckets.iter().map(|b| b.1).sum(),
        max_ns: all["max_ns"].as_u64().unwrap(),
        buckets,
    })
}

/// The latency (µs) at or below which a fraction `q` of the I/Os completed: the top of the
/// bucket holding the I/O of rank ⌈q·n⌉, never above the largest latency.
fn quantile_us(h: &Hist, q: f64) -> f64 {
    let rank = ((q * h.count as f64).ceil() as u64).max(1);
    let mut seen = 0;
    for &(top, n) in &h.buckets {
        seen += n;
        if seen >= rank {
            return top.min(h.max_ns) as f64 / 1000.0;
        }
    }
    h.max_ns as f64 / 1000.0
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (n > 0).then(|| {
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    })
}

/// Fresh and faded as the manual defines them: the median IOPS of the full intervals (at least
/// 99 % of the interval, and not a gap) in the first and the last minute of the run, measured from its first
/// and to its last full interval, at least five intervals, at most a quarter of the run.
/// Returns (fresh, faded, window seconds, lowest full interval).
fn fade(samples: &[Interval], interval_s: f64) -> (f64, f64, f64, f64) {
    let full: Vec<&Interval> = samples
        .iter()
        .filter(|s| s.t_end_s - s.t_start_s >= 0.99 * interval_s && !s.gap)
        .collect();
    let (t0, t1) = (full[0].t_start_s, full[full.len() - 1].t_end_s);
    let window = 60f64
        .max(5.0 * interval_s)
        .min((t1 - t0) / 4.0)
        .max(interval_s);
    let first = full
        .iter()
        .filter(|s| s.t_end_s <= t0 + window + 1e-9)
        .map(|s| s.iops);
    let last = full
        .iter()
        .filter(|s| s.t_start_s >= t1 - window - 1e-9)
        .map(|s| s.iops);
    let lowest = full.iter().map(|s| s.iops).fold(f64::INFINITY, f64::min);
    (
        median(first.collect()).unwrap(),
        median(last.collect()).unwrap(),
        window,
        lowest,
    )
}

#[track_caller]
fn close(what: &str, got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= rel * want.abs().max(1e-9),
        "{what}: the tool says {got}, the oracle {want}"
    );
}

/// A run directory's whole-run figures against run.json's summary (or `--json`'s, the same
/// keys): I/Os, bytes, time (the intervals' less the time ssdfade was stopped), IOPS, MB/s, the mean from the intervals, every percentile and the
/// maximum from the histogram.
fn whole_run_agrees(run: &Path, summary: &Value) {
    let s = intervals(run);
    let ops: u64 = s.iter().map(|i| i.ops).sum();
    let bytes: u64 = s.iter().map(|i| i.bytes).sum();
    let seconds: f64 = s
        .iter()
        .map(|i| i.t_end_s - i.t_start_s - i.stopped_s)
        .sum();
    let name = run.display();
    assert_eq!(summary["ops"].as_u64(), Some(ops), "{name}: ops");
    assert_eq!(summary["bytes"].as_u64(), Some(bytes), "{name}: bytes");
    close(
        &format!("{name}: seconds"),
        num(&summary["seconds"]),
        seconds,
        1e-6,
    );
    close(
        &format!("{name}: IOPS"),
        num(&summary["iops"]),
        ops as f64 / seconds,
        1e-6,
    );
    close(
        &format!("{name}: MB/s"),
        num(&summary["mb_per_s"]),
        bytes as f64 / seconds / 1e6,
        1e-6,
    );
    let weighted: f64 = s
        .iter()
        .map(|i| i.mean_us.unwrap_or(0.0) * i.ops as f64)
        .sum();
    let lat = &summary["lat_us"];
    // The intervals' means, weighted by their I/Os, come within 0.02 % of the summary's
    // (CDM's random writes at QD32: 68.428 µs against 68.414).
    close(
        &format!("{name}: mean"),
        num(&lat["mean"]),
        weighted / ops as f64,
        1e-3,
    );
    let h = histogram(run).expect("a histogram");
    assert_eq!(h.count, ops, "{name}: the histogram counts every I/O");
    for (key, q) in [("p50", 0.5), ("p99", 0.99), ("p999", 0.999)] {
        close(
            &format!("{name}: {key}"),
            num(&lat[key]),
            quantile_us(&h, q),
            1e-9,
        );
    }
    close(
        &format!("{name}: max"),
        num(&lat["max"]),
        h.max_ns as f64 / 1000.0,
        1e-9,
    );
}

/// The exceedance curve and the histogram's bins as the library gives them, against the
/// oracle's: every point a bucket's top and the share of I/Os above it; the bins hold every
/// I/O once.
fn distribution_agrees(run: &Path) {
    let h = histogram(run).unwrap();
    let record: ssdfade::results::LatencyRecord =
        serde_json::from_str(&std::fs::read_to_string(run.join("latency.json")).unwrap()).unwrap();
    let d = ssdfade::analysis::latency::Distribution::of(record.all.as_ref().unwrap()).unwrap();
    let mut want = vec![(h.buckets[0].0 as f64 / 1000.0, 1.0)];
    let mut above = h.count;
    for &(top, n) in &h.buckets {
        above -= n;
        if above == 0 {
            break;
        }
        want.push((top as f64 / 1000.0, above as f64 / h.count as f64));
    }
    assert_eq!(d.exceedance(), want, "{}: exceedance", run.display());
    for q in [0.5, 0.9, 0.99, 0.999, 0.9999] {
        assert_eq!(d.quantile_us(q), quantile_us(&h, q), "q {q}");
    }
    let pct: f64 = d.bins().iter().map(|b| b.pct).sum();
    close("bins hold every I/O", pct, 100.0, 1e-9);
}

/// A 20-minute soak of a simulated Vertex 2 at 1 s: `--json` against the raw files, report.md's
/// fade and distribution table, and the CSV export's columns and sums.
#[test]
fn a_soaks_headline_figures_report_and_export_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("soak");
    let out = run_ok(
        ssdfade(tmp.path())
            .args(["soak", "sim:vertex2-60g,scale=16", "--duration", "20m"])
            .args(["--interval", "1s", "--seed", "5", "--json", "--out"])
            .arg(&dir),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    whole_run_agrees(&dir, &v);
    distribution_agrees(&dir);
    let samples = intervals(&dir);
    let (fresh, faded, window, lowest) = fade(&samples, 1.0);
    let f = &v["fade"];
    close("fresh", num(&f["start_iops"]), fresh, 1e-12);
    close("faded", num(&f["end_iops"]), faded, 1e-12);
    close("window", num(&f["window_s"]), window, 1e-12);
    close("lowest", num(&f["min_iops"]), lowest, 1e-12);
    close(
        "fade %",
        num(&f["end_pct_of_start"]),
        100.0 * faded / fresh,
        1e-9,
    );
    // Fresh is the first minute, before the cliff: above the first 2 % of the run's median.
    assert_eq!(window, 60.0);

    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let text = |s: f64| ssdfade::units::format_duration(std::time::Duration::from_secs_f64(s));
    for want in [
        format!("{fresh:.0} → {faded:.0} IOPS"),
        format!("the first {} (fresh)", text(window)),
    ] {
        assert!(md.contains(&want), "report.md lacks {want:?}:\n{md}");
    }
    let h = histogram(&dir).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with('|') && l.contains("all I/Os"))
        .unwrap_or_else(|| panic!("no distribution row in\n{md}"));
    for q in [0.5, 0.9, 0.99, 0.999] {
        let shown = ssdfade::units::format_latency_us(quantile_us(&h, q));
        assert!(row.contains(&shown), "q {q}: {shown} not in {row}");
    }

    let csv = run_ok(ssdfade(tmp.path()).arg("export").arg(&dir));
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| {
            l.split(',')
                .map(|c| c.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), samples.len());
    let ops: f64 = rows.iter().map(|r| r[col("ops")]).sum();
    assert_eq!(ops as u64, samples.iter().map(|s| s.ops).sum::<u64>());
    for (r, s) in rows.iter().zip(&samples) {
        let secs = s.t_end_s - s.t_start_s;
        close(
            "csv MB/s",
            r[col("mb_per_s")],
            s.bytes as f64 / secs / 1e6,
            1e-9,
        );
        close(
            "csv MB written",
            r[col("mb_written_total")],
            s.written_total as f64 / 1e6,
            1e-9,
        );
        close("csv IOPS", r[col("iops")], s.ops as f64 / secs, 1e-9);
    }
}

/// Every run of the committed examples: run.json's summary against its samples and histogram,
/// and its distribution; HIR's baseline and returns; the QD sweep's points and Little's law.
#[test]
fn the_committed_examples_figures_are_the_oracles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples");
    let mut checked = 0;
    for exp in std::fs::read_dir(&root).unwrap().flatten() {
        for phase in std::fs::read_dir(exp.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let run = phase.path();
            if !(run.join("latency.json").is_file() && run.join("samples.jsonl").is_file()) {
                continue;
            }
            let info = json(&run.join("run.json"));
            whole_run_agrees(&run, &info["summary"]);
            distribution_agrees(&run);
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked} runs");

    // HIR: each return to baseline is its samples' IOPS; the baseline their median, in the
    // report written now.
    let tmp = tempfile::tempdir().unwrap();
    let hir = tmp.path().join("hir");
    common::copy_tree(&root.join("hir-sim"), &hir);
    let record = json(&hir.join("experiment.json"));
    let mut returns = Vec::new();
    for p in record["phases"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        if name.ends_with("-baseline") && p["status"] == "completed" {
            let s = intervals(&hir.join(p["dir"].as_str().unwrap()));
            let ops: u64 = s.iter().map(|i| i.ops).sum();
            let secs: f64 = s.iter().map(|i| i.t_end_s - i.t_start_s).sum();
            returns.push(ops as f64 / secs);
            close(name, num(&p["headline"]["iops"]), ops as f64 / secs, 1e-9);
        }
    }
    let baseline = median(returns).unwrap();
    run_ok(ssdfade(tmp.path()).arg("report").arg(&hir));
    let md = std::fs::read_to_string(hir.join("report.md")).unwrap();
    let want =
        format!("Baseline (the median of the returns, as hir.png draws it): {baseline:.0} IOPS");
    assert!(md.contains(&want), "report.md lacks {want:?}");

    // The QD sweep: each point's IOPS and mean latency from its samples, and Little's law (the
    // I/Os in flight, IOPS × mean latency, is the queue depth the point ran at).
    let sweep = json(&root.join("sweep-qd-sim/sweep.json"));
    for (point, dir) in sweep["points"]
        .as_array()
        .unwrap()
        .iter()
        .zip(["01-qd1", "02-qd2", "03-qd4", "04-qd8", "05-qd16", "06-qd32"])
    {
        let run = root.join("sweep-qd-sim").join(dir);
        let s = intervals(&run);
        let ops: u64 = s.iter().map(|i| i.ops).sum();
        let secs: f64 = s.iter().map(|i| i.t_end_s - i.t_start_s).sum();
        let mean_us: f64 = s
            .iter()
            .map(|i| i.mean_us.unwrap_or(0.0) * i.ops as f64)
            .sum::<f64>()
            / ops as f64;
        close(dir, num(&point["iops"]), ops as f64 / secs, 1e-6);
        close(dir, num(&point["avg_ms"]), mean_us / 1000.0, 1e-6);
        let qd = num(&point["qd"]);
        close(
            &format!("{dir}: Little's law"),
            ops as f64 / secs * mean_us / 1e6,
            qd,
            0.05,
        );
    }
}
