//! Paced runs, scaled simulated drives and the tool's own stops: the figures are the true ones.
//! A scaled drive counts exactly the paced I/Os and the bytes asked; a run stopped by SIGSTOP
//! has its whole-run rates over the time it ran and says so; export keeps the stop and the
//! pacing; a run that met its pace shows the pace, not a fade, and one that did not shows the
//! drive's figures and says the pace was not met.

mod common;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::{lines_in, root_or_skip, run_ok, ssdfade, stop_for, wait_for, Zram};

const SCALED: &str = "sim:vertex2-60g,scale=64";

fn summary(dir: &Path) -> serde_json::Value {
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    info["summary"].clone()
}

/// `--rate-iops N` for 10 s of simulated time on a drive whose I/Os each stand for 64 is N
/// I/Os per second: 10 at 1/s, 1000 at 100/s; `--bytes 4k` is one 4 KiB I/O, 5k two.
#[test]
fn a_scaled_drive_counts_exactly_the_paced_ios_and_the_bytes_asked() {
    let tmp = tempfile::tempdir().unwrap();
    for (rate, want) in [(1u64, 10u64), (100, 1000)] {
        let out = tmp.path().join(format!("r{rate}"));
        run_ok(
            ssdfade(tmp.path())
                .args(["soak", SCALED, "--duration", "10s"])
                .args(["--rate-iops", &rate.to_string()])
                .arg("--out")
                .arg(&out),
        );
        let s = summary(&out);
        let ops = s["ops"].as_u64().unwrap();
        assert!(ops.abs_diff(want) <= 1, "--rate-iops {rate}: {ops} I/Os");
        let iops = s["iops"].as_f64().unwrap();
        assert!(
            (iops / rate as f64 - 1.0).abs() < 0.01,
            "--rate-iops {rate}: {iops} IOPS"
        );
    }
    for (bytes, ops) in [("4k", 1u64), ("5k", 2)] {
        let out = tmp.path().join(format!("b{bytes}"));
        run_ok(
            ssdfade(tmp.path())
                .args(["soak", SCALED, "--bytes", bytes])
                .arg("--out")
                .arg(&out),
        );
        let s = summary(&out);
        assert_eq!(s["ops"].as_u64(), Some(ops), "--bytes {bytes}: {s}");
        assert_eq!(
            s["bytes"].as_u64(),
            Some(ops * 4096),
            "--bytes {bytes}: {s}"
        );
    }
}

/// A soak on a zram device stopped with SIGSTOP for 3 s of 12 (held from when every thread is
/// stopped: the kernel defers a stop while the sampler fsyncs a sample, which took up to 11 s
/// on this machine's busy disk, and a SIGCONT sent before the stop took hold cancelled it; so
/// the record is on tmpfs): its whole-run IOPS are its
/// I/Os over the time it ran (the samples' span less their stopped_s), within a few % of the
/// running intervals' own rate; --json, the terminal table and the report say the stop; export
/// has the stopped_s column and no 0-IOPS row for an interval the tool was stopped throughout.
#[test]
fn a_soak_stopped_for_3_of_12_seconds_reports_its_rates_over_the_running_time() {
    if !root_or_skip("a_soak_stopped_for_3_of_12_seconds_reports_its_rates_over_the_running_time") {
        return;
    }
    let zram = Zram::new(256 << 20);
    let dev = zram.path.to_str().unwrap();
    // The record in RAM: its fsyncs then return at once, so the stop takes hold as sent.
    let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
    let run = tmp.path().join("run");
    let child = ssdfade(tmp.path())
        .args(["soak", dev, "--destroy-data", dev, "--qd", "4"])
        .args(["--duration", "12s", "--interval", "1s", "--json", "--out"])
        .arg(&run)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("a sample", 30, || lines_in(&run.join("samples.jsonl")) >= 1);
    let took = stop_for(child.id(), Duration::from_secs(3));
    assert!(
        took < Duration::from_secs(2),
        "the stop took hold {took:?} after SIGSTOP"
    );
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    let samples = ssdfade::results::read_samples(&run).unwrap();
    let stopped: f64 = samples.iter().filter_map(|s| s.stopped_s).sum();
    assert!(
        stopped > 2.0,
        "the samples record {stopped} s stopped: {:?}",
        samples
            .iter()
            .map(|s| (s.t_start_s, s.ops, s.stopped_s))
            .collect::<Vec<_>>()
    );
    let running = samples.last().unwrap().t_end_s - samples[0].t_start_s - stopped;
    let ops: u64 = samples.iter().map(|s| s.ops).sum();
    let s = summary(&run);
    let iops = s["iops"].as_f64().unwrap();
    assert!(
        (iops - ops as f64 / running).abs() <= 1e-6 * iops,
        "{iops} IOPS, {ops} I/Os over {running} s running"
    );
    assert!(
        (s["stopped_s"].as_f64().unwrap() - stopped).abs() < 1e-6,
        "{s}"
    );
    assert_eq!(printed["stopped_s"], s["stopped_s"]);
    assert_eq!(printed["iops"], s["iops"]);
    // The intervals that ran whole: the whole-run rate is theirs within a few %, not 5/8.
    let whole: Vec<f64> = samples
        .iter()
        .filter(|x| x.stopped_s.is_none())
        .map(|x| x.iops)
        .collect();
    let typical = whole.iter().sum::<f64>() / whole.len() as f64;
    assert!(
        (iops / typical - 1.0).abs() < 0.15,
        "whole run {iops:.0} IOPS, running intervals {typical:.0}"
    );

    let report = run_ok(ssdfade(tmp.path()).arg("report").arg(&run));
    assert!(report.contains("ssdfade was stopped for"), "{report}");
    let csv = run_ok(ssdfade(tmp.path()).arg("export").arg(&run));
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|c| *c == name).unwrap();
    let (c_stopped, c_ops, c_iops) = (col("stopped_s"), col("ops"), col("iops"));
    col("suspended_s");
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let paused: Vec<&Vec<&str>> = rows
        .iter()
        .filter(|r| !r[c_stopped].is_empty() && r[c_ops] == "0")
        .collect();
    assert!(!paused.is_empty(), "no interval stopped throughout:\n{csv}");
    assert!(paused.iter().all(|r| r[c_iops].is_empty()), "{csv}");
}

/// A soak paced at 1000 IOPS the drive kept: the terminal, --json and the report show "paced
/// at 1000 IOPS (met)" and no fade or steady state; export carries the rate and the schedule.
/// One paced far above the drive shows the drive's fade and says the pace was not met; compare
/// gives the first no fade and the second its own.
#[test]
fn a_met_pace_is_the_level_and_an_unmet_one_leaves_the_drives_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let soak = |name: &str, rate: &str, json: bool| {
        let mut cmd = ssdfade(tmp.path());
        cmd.args(["soak", SCALED, "--duration", "10m", "--rate-iops", rate])
            .args(["--out", name]);
        if json {
            cmd.arg("--json");
        }
        run_ok(&mut cmd)
    };
    let met = soak("met", "1000", false);
    assert!(met.contains("paced at 1000 IOPS (met)"), "{met}");
    assert!(!met.contains("Fade (first"), "{met}");
    assert!(!met.contains("Steady state"), "{met}");
    let json: serde_json::Value = serde_json::from_str(&soak("met-json", "1000", true)).unwrap();
    assert_eq!(json["pace"]["met"], true, "{json}");
    assert!(
        json["fade"].is_null() && json["steady_state"].is_null(),
        "{json}"
    );
    let report = run_ok(ssdfade(tmp.path()).args(["report", "met"]));
    assert!(report.contains("paced at 1000 IOPS (met)"), "{report}");
    assert!(!report.contains("% of fresh"), "{report}");
    let export = run_ok(ssdfade(tmp.path()).args(["export", "met", "--format", "jsonl"]));
    let first: serde_json::Value = serde_json::from_str(export.lines().next().unwrap()).unwrap();
    assert_eq!(first["rate_iops"], 1000.0);
    assert_eq!(first["paced_ops"], first["ops"]);

    // The fade chart says the pace under its title: met, no fade; not met, the drive's fade.
    let chart_text = |run: &str| -> String {
        let drawn =
            ssdfade::plot::drawn::read_sidecar(&tmp.path().join(run).join("fade.chart.json"))
                .unwrap();
        drawn
            .labels
            .iter()
            .flat_map(|l| l.text.split_whitespace())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let met_chart = chart_text("met");
    assert!(
        met_chart.contains("paced at 1000 IOPS (met): the level is the pace, so no fade is drawn"),
        "{met_chart}"
    );

    let unmet = soak("unmet", "500000", false);
    let unmet_chart = chart_text("unmet");
    assert!(
        unmet_chart.contains("pace not met: ")
            && unmet_chart
                .contains("of 500000 IOPS (--rate-iops 500000), so the fade is the drive's"),
        "{unmet_chart}"
    );
    assert!(unmet.contains("pace not met"), "{unmet}");
    assert!(unmet.contains("Fade (first"), "{unmet}");
    let report = run_ok(ssdfade(tmp.path()).args(["report", "unmet"]));
    assert!(
        report.contains("pace not met") && report.contains("% of fresh"),
        "{report}"
    );

    let terminal = run_ok(ssdfade(tmp.path()).args(["compare", "met", "unmet", "--out", "cmp"]));
    let md = std::fs::read_to_string(tmp.path().join("cmp/compare.md")).unwrap();
    let fade_row = md.lines().find(|l| l.starts_with("| Fade")).unwrap();
    let cells: Vec<&str> = fade_row.split('|').map(str::trim).collect();
    assert_eq!(cells[2], "— (paced)", "{fade_row}");
    assert!(cells[3].contains('%'), "{fade_row}");
    let terminal = terminal.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(terminal.contains("Pace not met"), "{terminal}");
}

#[test]
fn an_experiment_whose_phases_met_their_pace_shares_nothing_of_the_pace() {
    let tmp = tempfile::tempdir().unwrap();
    run_ok(ssdfade(tmp.path()).args([
        "experiment",
        "vertex2",
        SCALED,
        "--measure-duration",
        "3s",
        "--soak-duration",
        "20s",
        "--soak-interval",
        "1s",
        "--rate-iops",
        "500",
        "--seed",
        "3",
        "--out",
        "v2",
    ]));
    // Each measured state met its pace by its own record: its I/Os are the rate over its time.
    for state in ["03-fresh", "05-faded", "07-recovered"] {
        let s = summary(&tmp.path().join("v2").join(state));
        let (ops, seconds) = (s["ops"].as_f64().unwrap(), s["seconds"].as_f64().unwrap());
        assert!(ops + 1.0 >= 0.99 * 500.0 * seconds, "{state}: {s}");
    }
    // So the report's results table has no share of fresh: faded and recovered at "100 %" of
    // fresh would be a fade and a recovery measured from the pace.
    run_ok(ssdfade(tmp.path()).args(["report", "v2"]));
    let md = std::fs::read_to_string(tmp.path().join("v2/report.md")).unwrap();
    assert!(!md.contains("% of fresh"), "{md}");
    for state in ["| fresh ", "| faded ", "| recovered "] {
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with(state)).collect();
        assert!(!rows.is_empty(), "{md}");
        assert!(
            rows.iter().all(|r| !r.trim_end().ends_with("% |")),
            "{rows:?}"
        );
    }
}
