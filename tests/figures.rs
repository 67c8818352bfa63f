//! The figures of `analysis/` pinned against values computed here from crafted run.json
//! records: a wrong formula in analysis (fade, vs fresh, the steady-state window, exact
//! whole-run percentiles) fails one of these.

mod common;

use std::path::{Path, PathBuf};

use common::{run_ok, ssdfade};
use ssdfade::analysis::{ExperimentStates, Figures, SteadyWindow};
use ssdfade::results::{load_experiment, load_run};

/// A short measure on the simulated Vertex 2, written to `dir/name`.
fn sim_run(dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    run_ok(
        ssdfade(dir)
            .args([
                "measure",
                "sim:vertex2-60g,scale=16",
                "--duration",
                "10s",
                "--interval",
                "1s",
                "--seed",
                "7",
                "--out",
            ])
            .arg(&out),
    );
    out
}

fn edit_info(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join("run.json");
    let mut info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut info);
    std::fs::write(&path, info.to_string()).unwrap();
}

fn copy_run(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
}

#[test]
fn whole_run_figures_are_the_recorded_summary_and_a_run_without_one_is_estimated() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = sim_run(tmp.path(), "run");
    // Edited figures that a run could hold (percentiles in order, the mean within the
    // range) are taken as recorded, not recomputed from the samples.
    let mut p99 = 0.0;
    edit_info(&dir, |i| {
        let lat = &i["summary"]["lat_us"];
        p99 = (lat["p50"].as_f64().unwrap() + lat["p999"].as_f64().unwrap()) / 2.0;
        i["summary"]["iops"] = 1234.0.into();
        i["summary"]["mb_per_s"] = 5.055.into();
        i["summary"]["lat_us"]["p99"] = p99.into();
        i["summary"]["lat_us"]["mean"] = 55.0.into();
    });
    let f = Figures::of_run(&load_run(&dir).unwrap());
    assert!(f.p99_exact);
    assert_eq!(
        (f.iops, f.mb_per_s, f.p99_lat_us, f.avg_lat_us),
        (1234.0, 5.055, p99, 55.0)
    );
    edit_info(&dir, |i| i["summary"] = serde_json::Value::Null);
    let run = load_run(&dir).unwrap();
    let f = Figures::of_run(&run);
    assert!(!f.p99_exact);
    let ops: u64 = run.samples.iter().map(|s| s.ops).sum();
    let seconds = run.samples.last().unwrap().t_end_s - run.samples[0].t_start_s;
    assert_eq!(f.ops, ops);
    assert!((f.iops - ops as f64 / seconds).abs() < 1e-9);
}

#[test]
fn the_steady_window_is_the_one_run_json_records_and_only_when_reached() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = sim_run(tmp.path(), "run");
    let steady = |reached: bool| {
        serde_json::json!({
            "reached": reached, "at_s": 9.0, "bytes_written": 123456789, "drive_fills": 0.5,
            "iops": 4321.0, "rounds": 7,
            "window": {"start_s": 4.0, "end_s": 9.0, "avg": 4300.0, "range_pct": 3.0, "slope_pct": 1.0}
        })
    };
    edit_info(&dir, |i| i["steady_state"] = steady(true));
    let w = SteadyWindow::of(&load_run(&dir).unwrap()).expect("reached: a window");
    assert_eq!((w.start_s, w.end_s, w.iops), (4.0, 9.0, 4321.0));
    assert_eq!(w.bytes_written, Some(123456789));
    // The report and the chart of the run show it.
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("window 4.0s – 9.0s, 4321 IOPS"), "{md}");
    // Not reached: the last window evaluated is no steady-state window.
    edit_info(&dir, |i| i["steady_state"] = steady(false));
    assert_eq!(SteadyWindow::of(&load_run(&dir).unwrap()), None);
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("not reached in 7 rounds"), "{md}");
}

#[test]
fn experiment_states_give_fade_recovery_and_vs_fresh_with_their_signs() {
    let tmp = tempfile::tempdir().unwrap();
    let base = sim_run(tmp.path(), "base");
    let exp = tmp.path().join("exp");
    let states = [
        ("in-service", 7000.0),
        ("fresh", 6000.0),
        ("faded", 900.0),
        ("recovered", 4000.0),
    ];
    let mut phases = Vec::new();
    for (i, (name, iops)) in states.iter().enumerate() {
        let sub = format!("{:02}-{name}", i + 1);
        copy_run(&base, &exp.join(&sub));
        edit_info(&exp.join(&sub), |j| j["summary"]["iops"] = (*iops).into());
        phases.push(
            serde_json::json!({"name": name, "kind": "measure", "status": "completed", "dir": sub}),
        );
    }
    std::fs::write(
        exp.join("experiment.json"),
        serde_json::json!({"name": "vertex2", "phases": phases}).to_string(),
    )
    .unwrap();
    let m = ExperimentStates::of(&load_experiment(&exp).unwrap());
    let fade = m.fade.unwrap();
    assert!((fade.pct_of_fresh - 15.0).abs() < 1e-9);
    assert!((fade.loss_pct() - 85.0).abs() < 1e-9);
    assert_eq!(fade.words(), "15 % of fresh (loss 85 %)");
    let rec = m.recovery.unwrap();
    assert!((rec.pct_of_fresh - 400.0 / 6.0).abs() < 1e-9);
    assert!((m.lasting_loss_pct().unwrap() - (100.0 - 400.0 / 6.0)).abs() < 1e-9);
    let vs = |name: &str| m.state(name).unwrap().vs_fresh_pct().unwrap();
    assert!(
        (vs("in-service") - 100.0 / 6.0).abs() < 1e-9,
        "faster: positive"
    );
    assert!((vs("faded") + 85.0).abs() < 1e-9, "slower: negative");
    assert_eq!(vs("fresh"), 0.0);
    // The report says it in the same words.
    run_ok(ssdfade(tmp.path()).arg("report").arg(&exp));
    let md = std::fs::read_to_string(exp.join("report.md")).unwrap();
    assert!(
        md.contains("faded 900 IOPS is 15 % of fresh (loss 85 %)"),
        "{md}"
    );
    assert!(md.contains("faded 900 (15 % of fresh)"), "{md}");
}

#[test]
fn a_preset_has_no_fade() {
    let tmp = tempfile::tempdir().unwrap();
    let base = sim_run(tmp.path(), "base");
    let exp = tmp.path().join("cdm");
    let mut phases = Vec::new();
    for (i, (name, iops)) in [("prepare", 3125.0), ("rnd4k-q1t1-write", 49997.0)]
        .iter()
        .enumerate()
    {
        let sub = format!("{:02}-{name}", i + 1);
        copy_run(&base, &exp.join(&sub));
        edit_info(&exp.join(&sub), |j| j["summary"]["iops"] = (*iops).into());
        phases.push(
            serde_json::json!({"name": name, "kind": "measure", "status": "completed", "dir": sub}),
        );
    }
    std::fs::write(
        exp.join("experiment.json"),
        serde_json::json!({"name": "cdm", "phases": phases}).to_string(),
    )
    .unwrap();
    let m = ExperimentStates::of(&load_experiment(&exp).unwrap());
    assert!(m.fade.is_none() && m.recovery.is_none());
    assert!(m.states.iter().all(|s| s.vs_fresh_pct().is_none()));
    run_ok(ssdfade(tmp.path()).arg("report").arg(&exp));
    let md = std::fs::read_to_string(exp.join("report.md")).unwrap();
    assert!(!md.contains("Fade") && !md.contains("lost"), "{md}");
}

/// A latency cell of a report table ("30.60 ms", "116 µs", "1.20 s") in µs; None for `-`.
fn latency_cell(cell: &str) -> Option<f64> {
    let (number, unit) = cell.trim().split_once(' ')?;
    let v: f64 = number.parse().ok()?;
    match unit {
        "µs" => Some(v),
        "ms" => Some(v * 1e3),
        "s" => Some(v * 1e6),
        _ => None,
    }
}

/// Every markdown table in `report`: (header cells, rows of cells).
fn tables(report: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let mut out: Vec<(Vec<String>, Vec<Vec<String>>)> = Vec::new();
    let mut in_table = false;
    for line in report.lines() {
        if !line.starts_with('|') {
            in_table = false;
            continue;
        }
        if line.contains("---") && line.chars().all(|c| "|-: ".contains(c)) {
            continue;
        }
        if in_table {
            out.last_mut().unwrap().1.push(cells(line));
        } else {
            out.push((cells(line), Vec::new()));
            in_table = true;
        }
    }
    out
}

/// In every latency table of `report`: the mean and each percentile at most the maximum, and
/// the percentiles in order. Returns how many cells were checked.
fn check_latency_tables(report: &str, what: &str) -> usize {
    let mut checked = 0;
    for (header, rows) in tables(report) {
        let Some(max_col) = header.iter().position(|h| h == "Max" || h == "Max lat") else {
            continue;
        };
        let order: Vec<usize> = header
            .iter()
            .enumerate()
            .filter(|(_, h)| h.starts_with('p') && h[1..2].parse::<u8>().is_ok())
            .map(|(i, _)| i)
            .collect();
        for row in rows {
            let Some(max) = latency_cell(&row[max_col]) else {
                continue;
            };
            let mut previous = 0.0;
            for (i, h) in header.iter().enumerate() {
                let Some(v) = latency_cell(&row[i]) else {
                    continue;
                };
                // Cells are rounded to the units they print: allow half a unit of the last digit.
                let slack = max * 0.005 + 0.005;
                assert!(
                    v <= max + slack,
                    "{what}: {} {h} {} is above {} {}",
                    row[0],
                    row[i],
                    header[max_col],
                    row[max_col]
                );
                if order.contains(&i) {
                    assert!(
                        v + slack >= previous,
                        "{what}: {} {h} {} is below the percentile before it",
                        row[0],
                        row[i]
                    );
                    previous = v;
                }
                checked += 1;
            }
        }
    }
    checked
}

/// Every table of every example in results/examples, as `report` writes it today: no mean or
/// percentile above its maximum, percentiles in order (experiments and each of their runs).
#[test]
fn every_examples_tables_keep_mean_and_percentiles_at_most_the_maximum() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples");
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    let mut reports = 0;
    for entry in std::fs::read_dir(&examples).unwrap() {
        let from = entry.unwrap().path();
        if !from.join("experiment.json").is_file() {
            continue;
        }
        let to = tmp.path().join(from.file_name().unwrap());
        let copied = std::process::Command::new("cp")
            .arg("-a")
            .arg(&from)
            .arg(&to)
            .status()
            .unwrap();
        assert!(copied.success());
        let mut dirs = vec![to.clone()];
        for sub in std::fs::read_dir(&to).unwrap() {
            let sub = sub.unwrap().path();
            if sub.join("run.json").is_file() && sub.join("samples.jsonl").is_file() {
                dirs.push(sub);
            }
        }
        for dir in dirs {
            run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
            let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
            checked += check_latency_tables(&report, &dir.display().to_string());
            reports += 1;
        }
    }
    assert!(reports >= 40, "only {reports} reports");
    assert!(checked >= 200, "only {checked} cells checked");
}

#[test]
fn the_table_check_finds_a_percentile_above_the_maximum() {
    let good = "| Part | p50 | p99 | Max |\n| --- | --: | --: | --: |\n| a | 1.00 ms | 2.00 ms | 3.00 ms |\n";
    assert_eq!(check_latency_tables(good, "good"), 3);
    let bad = good.replace("2.00 ms", "4.00 ms");
    assert!(std::panic::catch_unwind(|| check_latency_tables(&bad, "bad")).is_err());
}

/// Numbers no run can have written, put into run.json, are refused in one line (exit 2) by
/// everything that reads it: a summary time of 1e30 s once panicked in a Duration, a block
/// size or alignment of 0 divided by zero, an interval of 0 made `sim fit` spin.
#[test]
fn run_json_numbers_no_run_can_hold_are_refused_not_panicked_on() {
    let tmp = tempfile::tempdir().unwrap();
    let good = sim_run(tmp.path(), "good");
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 6] = [
        ("summary.seconds", |v| v["summary"]["seconds"] = 1e30.into()),
        ("drive_before.flash_bytes", |v| {
            v["drive_before"]["flash_bytes"] = 0.into()
        }),
        ("summary.seconds", |v| {
            v["summary"]["seconds"] = (-1.0).into()
        }),
        ("workload.bs", |v| v["workload"]["bs"] = 0.into()),
        ("workload.align", |v| v["workload"]["align"] = 0.into()),
        ("workload.interval", |v| {
            v["workload"]["interval"] = 0.0.into()
        }),
    ];
    for (i, (field, edit)) in edits.into_iter().enumerate() {
        let dir = tmp.path().join(format!("bad{i}"));
        copy_run(&good, &dir);
        edit_info(&dir, edit);
        for cmd in [
            vec!["report", dir.to_str().unwrap()],
            vec!["compare", good.to_str().unwrap(), dir.to_str().unwrap()],
            vec!["export", dir.to_str().unwrap()],
        ] {
            let out = ssdfade(tmp.path()).args(&cmd).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd:?} {field}: {err}");
            assert_eq!(err.trim().lines().count(), 1, "{err}");
            assert!(err.contains(field), "{cmd:?}: {err}");
        }
    }
}

#[test]
fn samples_that_do_not_add_up_to_run_jsons_summary_are_refused_not_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let a = sim_run(tmp.path(), "a");
    let b = tmp.path().join("b");
    run_ok(
        ssdfade(tmp.path())
            .args([
                "measure",
                "sim:vertex2-60g,scale=16,seed=2",
                "--duration",
                "10s",
                "--interval",
                "1s",
                "--bs",
                "64k",
                "--out",
            ])
            .arg(&b),
    );
    let samples = std::fs::read_to_string(a.join("samples.jsonl")).unwrap();
    let lines: Vec<&str> = samples.lines().collect();
    let crafts: [(&str, String); 3] = [
        (
            "another run's samples",
            std::fs::read_to_string(b.join("samples.jsonl")).unwrap(),
        ),
        (
            "the last two cut",
            lines[..lines.len() - 2].join("\n") + "\n",
        ),
        (
            "the last one doubled",
            samples.clone() + lines[lines.len() - 1] + "\n",
        ),
    ];
    for (i, (what, text)) in crafts.iter().enumerate() {
        let dir = tmp.path().join(format!("swapped{i}"));
        copy_run(&a, &dir);
        std::fs::write(dir.join("samples.jsonl"), text).unwrap();
        for cmd in [
            vec!["report", dir.to_str().unwrap()],
            vec!["plot", dir.to_str().unwrap()],
            vec!["compare", a.to_str().unwrap(), dir.to_str().unwrap()],
        ] {
            let out = ssdfade(tmp.path()).args(&cmd).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{what}: {cmd:?}: {err}");
            assert_eq!(err.trim().lines().count(), 1, "{err}");
            assert!(err.contains("summary"), "{what}: {cmd:?}: {err}");
        }
        assert!(
            !dir.join("report.md").exists(),
            "{what}: a report was written"
        );
    }
    // The run's own samples still report.
    run_ok(ssdfade(tmp.path()).arg("report").arg(&a));
}
