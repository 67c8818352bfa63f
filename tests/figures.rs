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
    edit_info(&dir, |i| {
        i["summary"]["iops"] = 1234.0.into();
        i["summary"]["mb_per_s"] = 5.055.into();
        i["summary"]["lat_us"]["p99"] = 777.0.into();
        i["summary"]["lat_us"]["mean"] = 55.0.into();
    });
    let f = Figures::of_run(&load_run(&dir).unwrap());
    assert!(f.p99_exact);
    assert_eq!(
        (f.iops, f.mb_per_s, f.p99_lat_us, f.avg_lat_us),
        (1234.0, 5.055, 777.0, 55.0)
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
