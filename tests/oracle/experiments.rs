//! The oracle on every experiment kind: WSAT's rounds and steady window, HIR's bursts and
//! baseline, the QD and rate sweeps' points, the benchmark presets' tables (CDM, tiobench,
//! Iometer) and the op-sweep's points and advice, each recomputed from its phases' raw files and
//! compared with `--json`, report.md and the charts' records.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::drawn::{band, exceedance_agrees, record, same_points, series};
use super::steady::{self, Round};
use super::{close, histogram, intervals, json, median, num, quantile_us, Interval};
use crate::common::{run_ok, ssdfade};

/// Runs `ssdfade ARGS --json --out NAME` in `work`: the printed JSON and the directory.
fn experiment(work: &Path, name: &str, args: &[&str]) -> (Value, PathBuf) {
    let out = run_ok(ssdfade(work).args(args).args(["--json", "--out", name]));
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"));
    (v, work.join(name))
}

/// IOPS, MB/s and the I/O-weighted mean latency (µs) of a run directory, from its samples.
fn totals(s: &[Interval]) -> (u64, u64, f64, f64) {
    let ops: u64 = s.iter().map(|i| i.ops).sum();
    let bytes: u64 = s.iter().map(|i| i.bytes).sum();
    let secs: f64 = s.iter().map(|i| i.t_end_s - i.t_start_s).sum();
    let mean = s
        .iter()
        .map(|i| i.mean_us.unwrap_or(0.0) * i.ops as f64)
        .sum::<f64>()
        / ops as f64;
    (ops, bytes, secs, mean)
}

fn iops(run: &Path) -> f64 {
    let (ops, _, secs, _) = totals(&intervals(run));
    ops as f64 / secs
}

/// The phases of an experiment that kept a histogram, with their run directories, in order.
fn histogram_runs(dir: &Path) -> Vec<(String, PathBuf)> {
    json(&dir.join("experiment.json"))["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| {
            Some((
                p["name"].as_str()?.to_string(),
                dir.join(p["dir"].as_str()?),
            ))
        })
        .filter(|(_, d)| d.join("latency.json").is_file())
        .collect()
}

/// Every phase run's distribution chart curve against its histogram.
fn distribution_chart_agrees(dir: &Path) {
    let runs = histogram_runs(dir);
    let refs: Vec<(&str, &Path)> = runs
        .iter()
        .map(|(n, p)| (n.as_str(), p.as_path()))
        .collect();
    exceedance_agrees(dir, "fade-distribution", &refs);
}

/// Seconds per unit of an axis described as "Time (h)" or "Elapsed time (min)".
fn seconds_per_unit(axis: &str) -> f64 {
    match axis.rsplit_once('(').map(|(_, u)| u.trim_end_matches(')')) {
        Some("h") => 3600.0,
        Some("min") => 60.0,
        Some("s") => 1.0,
        other => panic!("axis {axis:?}: unit {other:?}"),
    }
}

/// WSAT on the simulated Vertex 2: every round (IOPS, time, TGBW, drive fills) is its samples';
/// the steady window is the first five counted rounds within SNIA's limits, with its average,
/// range, slope, and whether it held to the last window; the report says so, and wsat.png and
/// steady-wsat.png draw those rounds, that window and its fitted line.
#[test]
fn wsat_rounds_and_its_steady_window_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let (v, dir) = experiment(
        tmp.path(),
        "wsat",
        &[
            "experiment",
            "wsat",
            "sim:vertex2-60g,scale=16",
            "--seed",
            "21",
        ],
    );
    let run = dir.join("02-wsat");
    let info = json(&run.join("run.json"));
    let samples = intervals(&run);
    let capacity = num(&info["target"]["identity"]["size_bytes"]);

    // Every round from the start, and the cut-short last one apart.
    let all: Vec<Round> = steady::rounds(&samples, 60.0, 0);
    let listed = v["rounds"].as_array().unwrap();
    assert_eq!(listed.len(), all.len(), "WSAT rounds");
    for (r, want) in listed.iter().zip(&all) {
        close("round IOPS", num(&r["iops"]), want.iops, 1e-12);
        close("round end", num(&r["t_end_s"]), want.end_s, 1e-12);
        assert_eq!(r["tgbw_bytes"].as_u64(), Some(want.written_total));
        close(
            "round fills",
            num(&r["drive_fills"]),
            want.written_total as f64 / capacity,
            1e-12,
        );
    }
    let tail = samples.last().unwrap();
    close(
        "partial round",
        num(&v["partial_round"]["iops"]),
        tail.iops,
        1e-12,
    );

    let (counted, steady) =
        steady::steady_agrees("wsat", &info["steady_state"], &samples, &info, 60.0);
    assert_eq!(
        v["steady_state"], info["steady_state"],
        "--json's steady state"
    );
    let w = steady.expect("the simulated Vertex 2 reaches steady state");
    let drift = steady::drift_pct(&counted, &w).expect("WSAT runs on after steady state");
    assert!(drift < -10.0, "the Vertex 2's level falls on: {drift}");
    let last = steady::window(&counted, counted.len() - 5);

    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for want in [
        format!("{:.0} IOPS on average", w.avg),
        format!(
            "did not hold: the run's last window averaged {:.0} IOPS ({drift:.0} %)",
            last.avg
        ),
        format!("| Steady IOPS (SNIA window average) | {:.0} ", w.avg),
    ] {
        assert!(md.contains(&want), "report.md lacks {want:?}");
    }

    // wsat.png: every round against time and against TGBW; the band over the window's rounds.
    let chart = record(&dir, "wsat");
    let [by_time, by_data] = &chart.panels[..] else {
        panic!("wsat.png has two panels");
    };
    let unit = seconds_per_unit(&by_time.x_axis);
    let at = |r: &Round| (r.end_s / unit, r.iops);
    let gb = |r: &Round| (r.written_total as f64 / 1e9, r.iops);
    let drawn = series(by_time, "IOPS per round");
    same_points(
        "wsat by time",
        &drawn,
        &all.iter().map(at).collect::<Vec<_>>(),
        1e-12,
    );
    let drawn = series(by_data, "IOPS per round");
    same_points(
        "wsat by TGBW",
        &drawn,
        &all.iter().map(gb).collect::<Vec<_>>(),
        1e-12,
    );
    let (first, end) = (&counted[w.first], &counted[w.first + 4]);
    let name = format!(
        "SNIA steady window {:.0} IOPS, did not hold (last window {:.0}, {drift:.0} %)",
        w.avg, last.avg
    );
    let x = band(by_time, &name);
    same_points("band by time", &[x], &[(at(first).0, at(end).0)], 1e-12);
    let x = band(by_data, &name);
    same_points("band by TGBW", &[x], &[(gb(first).0, gb(end).0)], 1e-12);

    // steady-wsat.png: rounds before and after they count, the window, the last window, and
    // the window's rounds numbered from the run's first with their average and fitted line.
    let chart = record(&dir, "steady-wsat");
    let (by_data, window) = (&chart.panels[0], &chart.panels[1]);
    let before = all.len() - counted.len();
    same_points(
        "rounds before they count",
        &series(
            by_data,
            "before the rounds count (first pass, preconditioning)",
        ),
        &all[..before].iter().map(gb).collect::<Vec<_>>(),
        1e-12,
    );
    same_points(
        "counted rounds",
        &series(by_data, "IOPS per round"),
        &counted.iter().map(gb).collect::<Vec<_>>(),
        1e-12,
    );
    let x = band(by_data, "measurement window");
    same_points(
        "measurement window",
        &[x],
        &[(gb(first).0, gb(end).0)],
        1e-12,
    );
    let x = band(by_data, "last window");
    let last_rounds = &counted[counted.len() - 5..];
    same_points(
        "last window",
        &[x],
        &[(gb(&last_rounds[0]).0, gb(&last_rounds[4]).0)],
        1e-12,
    );
    let number = (before + w.first + 1) as f64;
    let rounds: Vec<(f64, f64)> = (0..5)
        .map(|i| (number + i as f64, counted[w.first + i].iops))
        .collect();
    same_points(
        "window rounds",
        &series(window, "IOPS per round"),
        &rounds,
        1e-12,
    );
    let avg = format!("average {:.0} IOPS", w.avg);
    let flat = [(number, w.avg), (number + 4.0, w.avg)];
    same_points("average", &series(window, &avg), &flat, 1e-12);
    let slope = rounds
        .iter()
        .enumerate()
        .map(|(i, r)| (i as f64 - 2.0) * (r.1 - w.avg))
        .sum::<f64>()
        / 10.0;
    let line = window
        .series
        .iter()
        .find(|s| s.name.starts_with("least-squares line"))
        .unwrap();
    let line: Vec<(f64, f64)> = line.points.iter().flatten().copied().collect();
    let want = [
        (number, w.avg - 2.0 * slope),
        (number + 4.0, w.avg + 2.0 * slope),
    ];
    same_points("least-squares line", &line, &want, 1e-9);
    distribution_chart_agrees(&dir);
}

/// HIR with two bursts per wait state: each burst's and each return's IOPS are their samples';
/// the baseline is the median of the returns (in `--json`, report.md and hir.png alike); each
/// wait state's mean against the preconditioning's steady window, recomputed plainly.
#[test]
fn hir_bursts_returns_and_baseline_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let (v, dir) = experiment(
        tmp.path(),
        "hir",
        &[
            "experiment",
            "hir",
            "sim:vertex2-60g,scale=16",
            "--bursts",
            "2",
        ],
    );
    let record_json = json(&dir.join("experiment.json"));
    let phases = record_json["phases"].as_array().unwrap();
    let run_of = |name: &str| {
        let p = phases.iter().find(|p| p["name"] == name).unwrap();
        dir.join(p["dir"].as_str().unwrap())
    };
    for (phase, reached) in [("fill", true), ("precondition", true)] {
        let run = run_of(phase);
        let info = json(&run.join("run.json"));
        let (_, w) =
            steady::steady_agrees(phase, &info["steady_state"], &intervals(&run), &info, 60.0);
        assert_eq!(w.is_some(), reached, "{phase}");
    }
    let pre = json(&run_of("precondition").join("run.json"));
    let steady_iops = num(&pre["steady_state"]["iops"]);
    close("steady IOPS", num(&v["steady_iops"]), steady_iops, 1e-12);

    let idles = [5, 10, 15, 25, 50];
    let states = v["wait_states"].as_array().unwrap();
    assert_eq!(states.len(), idles.len());
    let mut returns = Vec::new();
    let mut points = Vec::new();
    let mut returns_drawn = Vec::new();
    let chart = record(&dir, "hir");
    for (state, idle) in states.iter().zip(idles) {
        let bursts: Vec<f64> = (1..=2)
            .map(|k| iops(&run_of(&format!("ws{idle}-burst{k}"))))
            .collect();
        let back = run_of(&format!("ws{idle}-baseline"));
        returns.push(iops(&back));
        // hir.png draws each return in 5 s steps: the IOPS of five 1 s intervals at a time.
        returns_drawn.extend(intervals(&back).chunks(5).map(|c| {
            let (ops, _, secs, _) = totals(c);
            ops as f64 / secs
        }));
        assert_eq!(state["idle_s"].as_u64(), Some(idle));
        let listed: Vec<f64> = state["burst_iops"]
            .as_array()
            .unwrap()
            .iter()
            .map(num)
            .collect();
        for (got, want) in listed.iter().zip(&bursts) {
            close(&format!("ws{idle} burst"), *got, *want, 1e-12);
        }
        let mean = bursts.iter().sum::<f64>() / 2.0;
        close("burst mean", num(&state["burst_mean_iops"]), mean, 1e-12);
        close(
            "burst min",
            num(&state["burst_min_iops"]),
            bursts[0].min(bursts[1]),
            1e-12,
        );
        close(
            "burst max",
            num(&state["burst_max_iops"]),
            bursts[0].max(bursts[1]),
            1e-12,
        );
        close(
            "vs steady",
            num(&state["burst_vs_steady"]),
            mean / steady_iops,
            1e-12,
        );
        close(
            "return",
            num(&state["baseline_iops"]),
            returns[returns.len() - 1],
            1e-12,
        );
        let drawn: Vec<f64> = series(&chart.panels[0], &format!("{idle} s idle"))
            .iter()
            .map(|p| p.1)
            .collect();
        same_points(
            &format!("hir.png {idle} s idle"),
            &drawn.iter().map(|&y| (0.0, y)).collect::<Vec<_>>(),
            &bursts.iter().map(|&y| (0.0, y)).collect::<Vec<_>>(),
            1e-12,
        );
        points.extend(bursts.iter().map(|&b| (idle as f64, b)));
    }
    let baseline = median(returns).unwrap();
    close("baseline", num(&v["baseline_iops"]), baseline, 1e-12);
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let want =
        format!("Baseline (the median of the returns, as hir.png draws it): {baseline:.0} IOPS");
    assert!(md.contains(&want), "report.md lacks {want:?}");

    let returns_seen: Vec<(f64, f64)> = series(&chart.panels[0], "baseline")
        .iter()
        .map(|p| (0.0, p.1))
        .collect();
    let want: Vec<(f64, f64)> = returns_drawn.iter().map(|&y| (0.0, y)).collect();
    same_points("hir.png returns", &returns_seen, &want, 1e-9);
    let by_idle = &chart.panels[1];
    same_points(
        "hir.png bursts",
        &series(by_idle, "each burst"),
        &points,
        1e-12,
    );
    let line = series(
        by_idle,
        &format!("baseline, median of the returns: {baseline:.0} IOPS"),
    );
    assert!(
        line.iter().all(|p| p.1 == baseline),
        "{line:?} vs {baseline}"
    );
    distribution_chart_agrees(&dir);
}

/// One sweep point against its run directory: IOPS, MB/s, mean and percentiles, Little's law.
fn sweep_point_agrees(point: &Value, run: &Path) -> (f64, f64) {
    let (ops, bytes, secs, mean_us) = totals(&intervals(run));
    let h = histogram(run).unwrap();
    let name = run.display();
    let iops = ops as f64 / secs;
    close(&format!("{name} IOPS"), num(&point["iops"]), iops, 1e-9);
    close(
        &format!("{name} MB/s"),
        num(&point["mb_per_s"]),
        bytes as f64 / secs / 1e6,
        1e-9,
    );
    close(
        &format!("{name} mean"),
        num(&point["avg_ms"]),
        mean_us / 1000.0,
        1e-6,
    );
    close(
        &format!("{name} p99"),
        num(&point["p99_ms"]),
        quantile_us(&h, 0.99) / 1000.0,
        1e-12,
    );
    close(
        &format!("{name} p99.9"),
        num(&point["p999_ms"]),
        quantile_us(&h, 0.999) / 1000.0,
        1e-12,
    );
    let qd = num(&point["qd"]);
    close(
        &format!("{name} Little"),
        num(&point["little_ms"]),
        qd / iops * 1000.0,
        1e-9,
    );
    (iops, mean_us)
}

/// A queue-depth sweep and a rate sweep: every point from its run's samples and histogram, the
/// closed-loop points obeying Little's law, the rate sweep delivering the rates asked, and
/// sweep.png drawing those points.
#[test]
fn sweep_and_rate_sweep_points_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let target = "sim:vertex2-60g,scale=16";
    let (v, dir) = experiment(
        tmp.path(),
        "qd",
        &[
            "sweep",
            target,
            "--qd",
            "1,4,16",
            "--point-duration",
            "10s",
            "--seed",
            "3",
        ],
    );
    let mut by_qd = Vec::new();
    let mut lat = Vec::new();
    let mut curve = Vec::new();
    for point in v["points"].as_array().unwrap() {
        let run = dir.join(point["run_dir"].as_str().unwrap());
        let (iops, mean_us) = sweep_point_agrees(point, &run);
        // Closed loop: the I/Os in flight, IOPS × mean latency, are the queue depth.
        let qd = num(&point["qd"]);
        close("Little's law", iops * mean_us / 1e6, qd, 0.05);
        by_qd.push((qd, iops));
        lat.push((qd, mean_us / 1000.0));
        curve.push((iops, mean_us / 1000.0));
    }
    assert_eq!(by_qd.len(), 3);
    assert_eq!(json(&dir.join("sweep.json"))["points"], v["points"]);
    let chart = record(&dir, "sweep");
    same_points(
        "IOPS by QD",
        &series(&chart.panels[0], "1 thread"),
        &by_qd,
        1e-9,
    );
    same_points(
        "latency by QD",
        &series(&chart.panels[1], "1 thread"),
        &lat,
        1e-6,
    );
    same_points(
        "latency by IOPS",
        &series(&chart.panels[2], "1 thread"),
        &curve,
        1e-6,
    );
    distribution_chart_agrees(&dir);

    let (v, dir) = experiment(
        tmp.path(),
        "rate",
        &[
            "sweep",
            target,
            "--rate",
            "1000,2000,4000",
            "--point-duration",
            "10s",
        ],
    );
    let (mut mean, mut p99, mut p999) = (Vec::new(), Vec::new(), Vec::new());
    for (point, rate) in v["points"]
        .as_array()
        .unwrap()
        .iter()
        .zip([1000.0, 2000.0, 4000.0])
    {
        let run = dir.join(point["run_dir"].as_str().unwrap());
        let (iops, mean_us) = sweep_point_agrees(point, &run);
        close("rate asked", num(&point["rate_iops"]), rate, 1e-12);
        close("rate delivered", iops, rate, 0.01);
        let h = histogram(&run).unwrap();
        mean.push((iops, mean_us));
        p99.push((iops, quantile_us(&h, 0.99)));
        p999.push((iops, quantile_us(&h, 0.999)));
    }
    let chart = record(&dir, "sweep");
    let panel = &chart.panels[0];
    same_points("rate sweep mean", &series(panel, "mean"), &mean, 1e-6);
    same_points("rate sweep p99", &series(panel, "p99"), &p99, 1e-9);
    same_points("rate sweep p99.9", &series(panel, "p99.9"), &p999, 1e-9);
}

/// A benchmark preset's table: every point's I/Os, bytes, time, IOPS, MB/s and mean latency
/// (µs, under the preset's own key) from its run directory, and each bar drawn at its MB/s.
fn preset_agrees(v: &Value, dir: &Path, chart: &str, mean_key: &str, mean_per_us: f64) {
    let points = v["points"].as_array().unwrap();
    assert!(!points.is_empty());
    let drawn = record(dir, chart);
    let bars = drawn
        .panels
        .iter()
        .flat_map(|p| &p.bands)
        .collect::<Vec<_>>();
    for point in points {
        let run = PathBuf::from(point["run_dir"].as_str().unwrap());
        let run = if run.is_absolute() {
            run
        } else {
            dir.join(run)
        };
        let (ops, bytes, secs, mean_us) = totals(&intervals(&run));
        let name = point["name"].as_str().unwrap();
        assert_eq!(point["ops"].as_u64(), Some(ops), "{name}: ops");
        assert_eq!(point["bytes"].as_u64(), Some(bytes), "{name}: bytes");
        close(
            &format!("{name} seconds"),
            num(&point["seconds"]),
            secs,
            1e-9,
        );
        close(
            &format!("{name} IOPS"),
            num(&point["iops"]),
            ops as f64 / secs,
            1e-9,
        );
        let mb = bytes as f64 / secs / 1e6;
        close(&format!("{name} MB/s"), num(&point["mb_per_s"]), mb, 1e-9);
        close(
            &format!("{name} mean"),
            num(&point[mean_key]) * mean_per_us,
            mean_us,
            1e-3,
        );
        if !bars.is_empty() {
            let bar = bars.iter().find(|b| b.name == name).unwrap();
            close(&format!("{name} bar"), bar.x.1, mb, 1e-12);
        }
    }
    distribution_chart_agrees(dir);
}

/// CrystalDiskMark's, tiobench's and Iometer's sets on a simulated NVMe drive: every table cell
/// and every bar is its run's samples; CDM's chart draws each test's MB/s in its read or write
/// column.
#[test]
fn the_benchmark_presets_tables_and_bars_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let target = "sim:nvme-tlc-1t";
    let measure = |name: &str, preset: &str| {
        experiment(
            tmp.path(),
            name,
            &[
                "measure",
                target,
                "--preset",
                preset,
                "--duration",
                "1s",
                "--seed",
                "9",
            ],
        )
    };
    let (v, dir) = measure("cdm", "cdm");
    preset_agrees(&v, &dir, "cdm", "lat_us", 1.0);
    let chart = record(&dir, "cdm");
    for (column, kind) in [("Read (MB/s)", 100), ("Write (MB/s)", 0)] {
        let want: Vec<(f64, f64)> = v["points"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["read_pct"] == kind)
            .enumerate()
            .map(|(row, p)| (row as f64, num(&p["mb_per_s"])))
            .collect();
        same_points(column, &series(&chart.panels[0], column), &want, 1e-12);
    }
    let (v, dir) = measure("tiobench", "tiobench");
    preset_agrees(&v, &dir, "tiobench", "avg_lat_ms", 1000.0);
    for point in v["points"].as_array().unwrap() {
        let h = histogram(Path::new(point["run_dir"].as_str().unwrap())).unwrap();
        close(
            "tiobench max",
            num(&point["max_lat_ms"]),
            h.max_ns as f64 / 1e6,
            1e-12,
        );
    }
    let (v, dir) = measure("iometer", "iometer-allinone");
    preset_agrees(&v, &dir, "iometer-allinone", "avg_response_ms", 1000.0);
}

/// An op-sweep of two spans: each point's steady IOPS is its soak's first SNIA window (recomputed
/// plainly), its mean latency that window's I/Os', its unpartitioned share and over-provisioning
/// the span's; the advice picks the least unpartitioned span that gets most of the gain; the
/// chart draws those points and the advised span.
#[test]
fn op_sweep_points_and_advice_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let (v, dir) = experiment(
        tmp.path(),
        "ops",
        &[
            "experiment",
            "op-sweep",
            "sim:vertex2-60g,scale=16",
            "--span",
            "100%,80%",
            "--seed",
            "7",
        ],
    );
    let capacity = num(&v["capacity_bytes"]);
    let mut steady_points = Vec::new();
    for point in v["points"].as_array().unwrap() {
        let run = dir.join(point["run_dir"].as_str().unwrap());
        let info = json(&run.join("run.json"));
        let samples = intervals(&run);
        let name = point["name"].as_str().unwrap();
        let (rounds, w) = steady::steady_agrees(name, &info["steady_state"], &samples, &info, 60.0);
        let w = w.expect("each span reaches steady state");
        close(&format!("{name} IOPS"), num(&point["iops"]), w.avg, 1e-12);
        let bytes = rounds[w.first + 4].written_total as f64;
        close(
            &format!("{name} drive writes"),
            num(&point["drive_writes"]),
            bytes / capacity,
            1e-12,
        );
        let span = num(&info["workload"]["span"]);
        assert_eq!(point["span_bytes"].as_f64(), Some(span));
        let unpartitioned = 100.0 * (1.0 - span / capacity);
        close(
            &format!("{name} unpartitioned"),
            num(&point["unpartitioned_pct"]),
            unpartitioned,
            1e-9,
        );
        let flash = num(&info["drive_before"]["flash_bytes"]);
        close(
            &format!("{name} OP"),
            num(&point["op_pct"]),
            100.0 * (flash / span - 1.0),
            1e-6,
        );
        let in_window: Vec<&Interval> = samples
            .iter()
            .filter(|s| s.t_start_s >= w.start_s - 1e-6 && s.t_end_s <= w.end_s + 1e-6)
            .collect();
        let ops: u64 = in_window.iter().map(|s| s.ops).sum();
        let mean: f64 = in_window
            .iter()
            .map(|s| s.mean_us.unwrap() * s.ops as f64)
            .sum::<f64>()
            / ops as f64;
        close(
            &format!("{name} mean"),
            num(&point["avg_ms"]),
            mean / 1000.0,
            1e-9,
        );
        steady_points.push((unpartitioned, w.avg, num(&point["p99_ms"])));
    }
    // The advice: the least unpartitioned span whose gain over the first is ≥ 80 % of the
    // largest gain (here the largest gain is far above 5 % of the first's IOPS).
    let (base_u, base, base_p99) = steady_points[0];
    let largest = steady_points
        .iter()
        .map(|p| p.1 - base)
        .fold(f64::MIN, f64::max);
    assert!(
        largest > 0.05 * base,
        "80 % leaves more spare flash: {largest}"
    );
    let chosen = steady_points[1..]
        .iter()
        .find(|p| p.1 - base >= 0.8 * largest)
        .unwrap();
    let advice = &v["advice"];
    close(
        "advised share",
        num(&advice["unpartitioned_pct"]),
        chosen.0,
        1e-12,
    );
    close("from", num(&advice["from_iops"]), base, 1e-12);
    close("to", num(&advice["to_iops"]), chosen.1, 1e-12);
    close(
        "from share",
        num(&advice["from_unpartitioned_pct"]),
        base_u,
        1e-12,
    );
    close("from p99", num(&advice["from_p99_ms"]), base_p99, 1e-12);
    close("to p99", num(&advice["to_p99_ms"]), chosen.2, 1e-12);
    let chart = record(&dir, "op-sweep");
    let want: Vec<(f64, f64)> = steady_points.iter().map(|p| (p.0, p.1)).collect();
    same_points(
        "op-sweep IOPS",
        &series(&chart.panels[0], "Steady IOPS"),
        &want,
        1e-12,
    );
    let want: Vec<(f64, f64)> = steady_points.iter().map(|p| (p.0, p.2)).collect();
    let p99 = series(&chart.panels[1], "Steady p99 latency (ms)");
    same_points("op-sweep p99", &p99, &want, 1e-12);
    let advised = series(&chart.panels[0], "advised");
    assert!(advised.iter().all(|p| p.0 == chosen.0), "{advised:?}");
    distribution_chart_agrees(&dir);
}
