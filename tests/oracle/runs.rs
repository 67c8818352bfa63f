//! The oracle on single runs and runs side by side: a group of two soaks (each member's
//! figures, the group's compare table and overlay, each run's consistency and distribution
//! charts), the SLOG test's verdict figures, and a soak interrupted by Ctrl-C (its figures over
//! what ran).

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use ssdfade::plot::drawn::DrawnPanel;

use super::drawn::{exceedance_agrees, record, same_points, series};
use super::{close, fade, histogram, intervals, json, num, quantile_us, whole_run_agrees};
use crate::common::{run_ok, ssdfade};

/// Seconds per unit of an axis described as "Elapsed time (min)" or "elapsed time (s)".
fn seconds_per_unit(axis: &str) -> f64 {
    match axis.rsplit_once('(').map(|(_, u)| u.trim_end_matches(')')) {
        Some("h") => 3600.0,
        Some("min") => 60.0,
        Some("s") => 1.0,
        other => panic!("axis {axis:?}: unit {other:?}"),
    }
}

/// The drawn points of `panel`'s series `name` are `want` in order, leaving out only points
/// within a 3-pixel cell of a point drawn before them (the chart draws a dot per cell).
#[track_caller]
fn dots_agree(what: &str, panel: &DrawnPanel, name: &str, want: &[(f64, f64)]) {
    let drawn = series(panel, name);
    let px = |p: (f64, f64)| {
        let [left, top, right, bottom] = panel.plot.map(f64::from);
        (
            left + (p.0 - panel.x.0) / (panel.x.1 - panel.x.0) * (right - left),
            bottom - (p.1 - panel.y.0) / (panel.y.1 - panel.y.0) * (bottom - top),
        )
    };
    let mut next = drawn.iter().peekable();
    let mut kept: Vec<(f64, f64)> = Vec::new();
    for &p in want {
        if next.peek().is_some_and(|d| **d == p) {
            kept.push(p);
            next.next();
            continue;
        }
        let (x, y) = px(p);
        let near = kept.iter().any(|&k| {
            let (kx, ky) = px(k);
            (kx - x).abs() <= 6.0 && (ky - y).abs() <= 6.0
        });
        assert!(
            near,
            "{what}: {p:?} is neither drawn nor beside a drawn dot"
        );
    }
    assert!(
        next.next().is_none(),
        "{what}: drawn points that are no interval's"
    );
    assert!(!kept.is_empty(), "{what}: nothing drawn");
}

/// A run's consistency chart: every full interval's IOPS as a dot at its end, linear and log.
fn consistency_agrees(run: &Path) {
    let chart = record(run, "fade-consistency");
    // Full intervals only: the run's cut-short last one is no second of the drive's, nor is
    // a gap (ssdfade stopped or the machine suspended in it).
    let interval = num(&json(&run.join("run.json"))["workload"]["interval"]);
    let mut samples = intervals(run);
    samples.retain(|s| s.t_end_s - s.t_start_s >= 0.99 * interval && !s.gap);
    let [linear, log] = &chart.panels[..] else {
        panic!("{}: two panels", run.display());
    };
    let unit = seconds_per_unit(&linear.x_axis);
    let want: Vec<(f64, f64)> = samples.iter().map(|s| (s.t_end_s / unit, s.iops)).collect();
    let what = format!("{} consistency", run.display());
    dots_agree(&what, linear, "Whole run", &want);
    // The log panel is drawn on a log axis: its dots are the same IOPS.
    dots_agree(&what, log, "Whole run, log scale", &want);
}

/// A run's latency chart: p50, p99, p99.9 and the maximum of every full interval at its end (log10
/// µs); a run of more than 300 intervals in buckets of ⌈n / 150⌉ consecutive intervals, each
/// drawn at the middle of its first and last interval as its median interval (nearest rank),
/// the maximum as its highest.
fn latency_agrees(run: &Path) {
    let chart = record(run, "fade-latency");
    let panel = &chart.panels[0];
    let unit = seconds_per_unit(&panel.x_axis);
    // Full intervals only, as on the consistency chart: none cut short, none ssdfade was
    // stopped in (a machine too busy to run it for 2 s) or the machine suspended in.
    let interval = num(&json(&run.join("run.json"))["workload"]["interval"]);
    let raw: Vec<serde_json::Value> = std::fs::read_to_string(run.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| num(&v["t_end_s"]) - num(&v["t_start_s"]) >= 0.99 * interval)
        .filter(|v| v.get("stopped_s").is_none() && v.get("suspended_s").is_none())
        .collect();
    for (name, key) in [
        ("p50", "p50"),
        ("p99", "p99"),
        ("p99.9", "p999"),
        ("max", "max"),
    ] {
        let points: Vec<(f64, f64)> = raw
            .iter()
            .filter_map(|v| Some((num(&v["t_end_s"]) / unit, v["lat_us"][key].as_f64()?)))
            .filter(|p| p.1 > 0.0)
            .map(|(t, us)| (t, us.log10()))
            .collect();
        let want: Vec<(f64, f64)> = if points.len() <= 300 {
            points
        } else {
            points
                .chunks(points.len().div_ceil(150))
                .map(|c| {
                    let mut ys: Vec<f64> = c.iter().map(|p| p.1).collect();
                    ys.sort_by(f64::total_cmp);
                    let y = if name == "max" {
                        ys[ys.len() - 1]
                    } else {
                        ys[(ys.len() as f64 * 0.5).ceil() as usize - 1]
                    };
                    ((c[0].0 + c[c.len() - 1].0) / 2.0, y)
                })
                .collect()
        };
        let what = format!("{} latency {name}", run.display());
        same_points(&what, &series(panel, name), &want, 1e-9);
    }
}

/// Two simulated drives soaked at once: each member's `--json` summary is its samples' and
/// histogram's; the group's compare table shows each run's fresh, faded and whole-run IOPS, and
/// compare.png draws each run's own intervals under its own name; each run's consistency and
/// distribution charts are its samples and histogram.
#[test]
fn a_groups_members_and_their_compare_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_ok(
        ssdfade(tmp.path())
            .args([
                "soak",
                "sim:vertex2-60g,scale=16",
                "sim:nvme-tlc-1t,scale=64",
            ])
            .args(["--duration", "10m", "--interval", "1s", "--seed", "3"])
            .args(["--json", "--out", "group"]),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let members = v["members"].as_array().unwrap();
    assert_eq!(members.len(), 2);
    let dir = tmp.path().join("group");
    let md = std::fs::read_to_string(dir.join("compare.md")).unwrap();
    let row = |name: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| {name}")))
            .unwrap_or_else(|| panic!("no row {name:?} in compare.md"))
            .to_string()
    };
    let chart = record(&dir, "compare");
    let by_time = &chart.panels[0];
    let unit = seconds_per_unit(&by_time.x_axis);
    for member in members {
        let run = tmp.path().join(member["run_dir"].as_str().unwrap());
        whole_run_agrees(&run, member);
        let samples = intervals(&run);
        let (fresh, faded, _, _) = fade(&samples, 1.0);
        let name = run.file_name().unwrap().to_str().unwrap();
        for (figure, value) in [
            ("IOPS, first window (median)", fresh),
            ("IOPS, last window (median)", faded),
            ("IOPS, whole run", num(&member["iops"])),
        ] {
            let cells = row(figure);
            let want = format!("{value:.0}");
            assert!(
                cells.contains(&want),
                "{name}: {figure}: {want} not in {cells}"
            );
        }
        let want: Vec<(f64, f64)> = samples.iter().map(|s| (s.t_end_s / unit, s.iops)).collect();
        // The band's edges: each run of consecutive intervals as its lowest and its highest
        // IOPS, at the run's last interval.
        for edge in ["lowest", "highest"] {
            let drawn = series(by_time, &format!("{name} per interval ({edge})"));
            let k = want.len().div_ceil(drawn.len().max(1));
            let band: Vec<(f64, f64)> = want
                .chunks(k)
                .map(|c| {
                    let ys = c.iter().map(|p| p.1);
                    let y = if edge == "lowest" {
                        ys.fold(f64::INFINITY, f64::min)
                    } else {
                        ys.fold(0.0, f64::max)
                    };
                    (c[c.len() - 1].0, y)
                })
                .collect();
            same_points(&format!("compare.png {name} {edge}"), &drawn, &band, 1e-9);
        }
        consistency_agrees(&run);
        latency_agrees(&run);
        exceedance_agrees(&run, "fade-distribution", &[("", &run)]);
    }
}

/// `slog` on the simulated Vertex 2: each measured write size is its run's samples and
/// histogram; the verdict's latency is the 4 KiB write+fdatasync point's and its fade the
/// sustained phase's first and last windows, as the verdict's text prints them.
#[test]
fn slog_verdict_figures_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_ok(
        ssdfade(tmp.path())
            .args(["slog", "sim:vertex2-60g,scale=16", "--sustain", "20s"])
            .args(["--seed", "7", "--json", "--out", "slog"]),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let dir = tmp.path().join("slog");
    let sizes = v["device"]["measured"]["sizes"].as_array().unwrap();
    let mut four_k = None;
    let mut drawn_sizes = Vec::new();
    for (i, point) in sizes.iter().enumerate() {
        let mode = point["mode"].as_str().unwrap();
        let size = point["size"].as_u64().unwrap();
        let run = dir.join(format!("points/{:02}-{mode}-{size}", i + 1));
        let s = intervals(&run);
        let h = histogram(&run).unwrap();
        let ops: u64 = s.iter().map(|i| i.ops).sum();
        let secs: f64 = s.iter().map(|i| i.t_end_s - i.t_start_s).sum();
        let mean = s
            .iter()
            .map(|i| i.mean_us.unwrap() * i.ops as f64)
            .sum::<f64>()
            / ops as f64;
        let what = format!("{mode} {size}");
        assert_eq!(point["writes"].as_u64(), Some(ops), "{what}");
        close(&what, num(&point["seconds"]), secs, 1e-12);
        close(&what, num(&point["iops"]), ops as f64 / secs, 1e-12);
        close(&what, num(&point["lat_us"]["mean"]), mean, 1e-9);
        close(
            &what,
            num(&point["lat_us"]["p99"]),
            quantile_us(&h, 0.99),
            1e-12,
        );
        close(
            &what,
            num(&point["lat_us"]["max"]),
            h.max_ns as f64 / 1000.0,
            1e-12,
        );
        if mode == "fdatasync" {
            drawn_sizes.push((size as f64, mean));
            if size == 4096 {
                four_k = Some((mean, quantile_us(&h, 0.99), ops, secs));
            }
        }
    }
    let (mean, p99, writes, secs) = four_k.expect("a 4 KiB point");
    let latency = &v["evidence"]["latency"];
    close("verdict mean", num(&latency["mean_us"]), mean, 1e-9);
    close("verdict p99", num(&latency["p99_us"]), p99, 1e-12);
    let source = latency["source"].as_str().unwrap();
    let want = format!("{writes} writes in {secs:.1} s");
    assert!(source.contains(&want), "{source:?} lacks {want:?}");

    let sustained = intervals(&dir);
    let interval = num(&json(&dir.join("run.json"))["workload"]["interval"]);
    let (fresh, faded, _, _) = fade(&sustained, interval);
    let f = &v["evidence"]["fade"];
    close("verdict fresh", num(&f["start_iops"]), fresh, 1e-12);
    close("verdict faded", num(&f["end_iops"]), faded, 1e-12);
    let reason = v["verdict"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["topic"] == "fade under sustained writes")
        .unwrap();
    let want = format!(
        "{fresh:.0} → {faded:.0} IOPS = {:.0} % of fresh",
        100.0 * faded / fresh
    );
    let text = reason["value"].as_str().unwrap();
    assert!(text.starts_with(&want), "{text:?} is not {want:?}…");
    let chart = record(&dir, "slog");
    let drawn = series(&chart.panels[0], "device write+fdatasync");
    same_points("slog.png sizes", &drawn, &drawn_sizes, 1e-9);
    consistency_agrees(&dir);
    latency_agrees(&dir);
}

/// A file soak stopped by Ctrl-C: run.json's figures, the listing's and the report's fade are
/// the samples that were taken, not the plan. On a busy machine ssdfade may not be run for
/// seconds at a time: those intervals carry `stopped_s`, and the oracle leaves that time out as
/// the manual says (it once compared 3.66 s of intervals with 0.66 s of running time).
#[test]
fn an_interrupted_soaks_figures_are_over_what_ran() {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = ssdfade(tmp.path())
        .args(["soak", "t.img", "--size", "32M", "--qd", "2"])
        .args(["--interval", "100ms", "--duration", "1h", "--out", "run"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = tmp.path().join("run");
    let t0 = Instant::now();
    while crate::common::lines_in(&run.join("samples.jsonl")) < 30 {
        assert!(child.try_wait().unwrap().is_none(), "the soak ended early");
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no samples after 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info = json(&run.join("run.json"));
    assert_eq!(info["status"], "interrupted");
    whole_run_agrees(&run, &info["summary"]);
    let samples = intervals(&run);
    assert!(samples.len() >= 30);
    let listed: Vec<Value> =
        serde_json::from_str(&run_ok(ssdfade(tmp.path()).args(["runs", ".", "--json"]))).unwrap();
    close(
        "listed IOPS",
        num(&listed[0]["iops"]),
        num(&info["summary"]["iops"]),
        1e-9,
    );
    run_ok(ssdfade(tmp.path()).arg("report").arg(&run));
    run_ok(ssdfade(tmp.path()).arg("plot").arg(&run));
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    let (fresh, faded, _, _) = fade(&samples, 0.1);
    let want = format!("{fresh:.0} → {faded:.0} IOPS");
    assert!(md.contains(&want), "report.md lacks {want:?}");
    exceedance_agrees(&run, "fade-distribution", &[("", &run)]);
    latency_agrees(&run);
}
