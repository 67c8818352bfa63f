//! Experiments through the CLI: the Vertex 2 protocol on the simulated drive and on a zram
//! device made by the test, SIGKILL and Ctrl-C in every phase kind then `resume`, refusals,
//! the sweep's latency against Little's law, SNIA WSAT and HIR on the simulated drive.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{json_ok, root_or_skip, ssdfade, Zram};
use serde_json::Value;

const VERTEX2_PHASES: [&str; 7] = [
    "in-service",
    "erase-1",
    "fresh",
    "soak",
    "faded",
    "erase-2",
    "recovered",
];

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn samples(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn phase<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no phase {name} in {record}"))
}

/// The status of phase `name` in the experiment directory, if the record is there yet.
fn phase_status(dir: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("experiment.json")).ok()?;
    let record: Value = serde_json::from_str(&text).ok()?;
    let p = record["phases"]
        .as_array()?
        .iter()
        .find(|p| p["name"] == name)?;
    p["status"].as_str().map(String::from)
}

/// Waits until `ready` holds (polling), or panics after `limit`.
fn wait_for(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !ready() {
        assert!(t0.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn spawn(cmd: &mut Command) -> Child {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawning ssdfade")
}

fn vertex2_cmd(work: &Path, target: &str, dir: &Path) -> Command {
    let mut cmd = ssdfade(work);
    cmd.args(["experiment", "vertex2", target, "--seed", "910", "--out"])
        .arg(dir);
    cmd
}

/// Every phase of the Vertex 2 protocol completed, in order, each directory holding its record.
fn assert_complete_vertex2(dir: &Path) {
    let record = read_json(&dir.join("experiment.json"));
    assert_eq!(record["schema_version"], 1);
    assert_eq!(record["status"], "completed");
    let names: Vec<&str> = record["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, VERTEX2_PHASES);
    for (i, p) in record["phases"].as_array().unwrap().iter().enumerate() {
        assert_eq!(p["status"], "completed", "{p}");
        let sub = dir.join(p["dir"].as_str().unwrap());
        assert!(sub.ends_with(format!("{:02}-{}", i + 1, names[i])));
        if p["kind"] == "erase" {
            assert_eq!(read_json(&sub.join("erase.json"))["outcome"], "completed");
        } else {
            let run = read_json(&sub.join("run.json"));
            assert_eq!(run["status"], "completed");
            // The figures in experiment.json are the run's own.
            assert_eq!(p["headline"]["iops"], run["summary"]["iops"]);
        }
    }
}

/// A soak series without any hole: indexes 0, 1, 2… and each interval starting where the last
/// one ended.
fn assert_series_continuous(soak_dir: &Path) -> Vec<Value> {
    let s = samples(soak_dir);
    for (i, x) in s.iter().enumerate() {
        assert_eq!(x["index"].as_u64(), Some(i as u64), "index gap at {i}");
        if i > 0 {
            let gap = x["t_start_s"].as_f64().unwrap() - s[i - 1]["t_end_s"].as_f64().unwrap();
            assert!(gap.abs() < 1e-6, "time gap of {gap} s before sample {i}");
            let written = x["bytes_written_total"].as_u64().unwrap()
                - s[i - 1]["bytes_written_total"].as_u64().unwrap();
            assert_eq!(written, x["bytes"].as_u64().unwrap(), "bytes gap at {i}");
        }
    }
    s
}

#[test]
fn vertex2_on_the_simulated_drive_lands_in_the_calibration_bands() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("v2");
    let t0 = Instant::now();
    let v = json_ok(vertex2_cmd(work.path(), "sim:vertex2-60g", &dir).arg("--json"));
    eprintln!(
        "the full-size protocol took {:.1} s wall",
        t0.elapsed().as_secs_f64()
    );
    assert_complete_vertex2(&dir);
    let iops = |state: &str| v["states"][state]["iops"].as_f64().unwrap();
    let within = |x: f64, seed: f64, tol: f64| (x - seed).abs() <= seed * tol;
    assert!(within(iops("in_service"), 4300.0, 0.20), "{v}");
    assert!(within(iops("fresh"), 6000.0, 0.15), "{v}");
    assert!((750.0..=1100.0).contains(&iops("faded")), "{v}");
    assert!(within(iops("recovered"), 4000.0, 0.20), "{v}");
    for state in ["in_service", "fresh", "faded", "recovered"] {
        let mb = v["states"][state]["mb_per_s"].as_f64().unwrap();
        assert!((mb - iops(state) * 4096.0 / 1e6).abs() < 0.01 * mb, "{v}");
        assert!(v["states"][state]["lat_us"]["mean"].as_f64().unwrap() > 0.0);
    }
    let fade = v["fade_pct"].as_f64().unwrap();
    assert!((fade - 100.0 * iops("faded") / iops("fresh")).abs() < 1e-6);
    let recovery = v["recovery_pct"].as_f64().unwrap();
    assert!((recovery - 100.0 * iops("recovered") / iops("fresh")).abs() < 1e-6);
    assert!((v["lasting_loss_pct"].as_f64().unwrap() - (100.0 - recovery)).abs() < 1e-6);
    assert_eq!(v["phases"].as_array().unwrap().len(), 7);
    // The soak is 8 simulated hours of 10 s samples on the same drive that was erased before.
    let soak = dir.join("04-soak");
    let s = assert_series_continuous(&soak);
    assert!((s.last().unwrap()["t_end_s"].as_f64().unwrap() - 8.0 * 3600.0).abs() < 60.0);
    let (start, _) = common::window_medians(&ssdfade::results::read_samples(&soak).unwrap(), 10.0);
    assert_eq!(
        start.round(),
        v["soak"]["fade"]["start_iops"].as_f64().unwrap().round()
    );
    let run = read_json(&soak.join("run.json"));
    assert_eq!(run["steady_state"]["reached"], true, "{run}");
    assert!(
        dir.join("drive.sim").exists(),
        "the experiment keeps its drive"
    );
}

#[test]
fn sigkill_in_a_measure_an_erase_and_a_soak_then_resume_gives_the_same_experiment() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("killed");
    let target = "sim:vertex2-60g,scale=8";
    let mut cmd = vertex2_cmd(work.path(), target, &dir);
    cmd.args(["--checkpoint", "1h"]);
    // 1. killed while measuring in service.
    let mut child = spawn(&mut cmd);
    wait_for("in-service to run", Duration::from_secs(60), || {
        phase_status(&dir, "in-service").as_deref() == Some("running")
    });
    child.kill().unwrap();
    child.wait().unwrap();
    // 2. resumed, killed while erasing.
    let mut resume = ssdfade(work.path());
    resume.arg("resume").arg(&dir);
    let mut child = spawn(&mut resume);
    wait_for("erase-1 to run", Duration::from_secs(120), || {
        phase_status(&dir, "erase-1").as_deref() == Some("running")
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(phase_status(&dir, "erase-1").as_deref(), Some("running"));
    // 3. resumed, killed in the soak after its first checkpoint (1 h = 360 samples).
    let mut child = spawn(&mut resume);
    let soak = dir.join("04-soak");
    wait_for(
        "the soak to pass a checkpoint",
        Duration::from_secs(300),
        || {
            std::fs::read_to_string(soak.join("samples.jsonl"))
                .map(|t| t.lines().count() > 420)
                .unwrap_or(false)
        },
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(phase_status(&dir, "soak").as_deref(), Some("running"));
    let before = samples(&soak).len();
    // 4. resumed to the end.
    let v = json_ok(ssdfade(work.path()).arg("resume").arg(&dir).arg("--json"));
    assert_eq!(v["status"], "completed");
    assert_complete_vertex2(&dir);
    let record = read_json(&dir.join("experiment.json"));
    for name in ["in-service", "erase-1", "soak"] {
        assert_eq!(phase(&record, name)["attempts"], 2, "{name}");
    }
    for name in ["fresh", "faded", "erase-2", "recovered"] {
        assert_eq!(phase(&record, name)["attempts"], 1, "{name}");
    }
    // The soak went on in the same series, cut back to what the drive had saved.
    let s = assert_series_continuous(&soak);
    let run = read_json(&soak.join("run.json"));
    let resumes = run["resumes"].as_array().unwrap();
    assert_eq!(resumes.len(), 1, "{run}");
    let r = &resumes[0];
    let at = r["index"].as_u64().unwrap() as usize;
    assert!(at >= 300 && at < before, "{r}");
    assert!(
        r["at_s"].as_f64().unwrap() >= 3600.0,
        "saved at the first 1 h checkpoint: {r}"
    );
    assert_eq!(r["dropped_samples"].as_u64().unwrap() as usize, before - at);
    assert!((s[at]["t_start_s"].as_f64().unwrap() - r["at_s"].as_f64().unwrap()).abs() < 1e-6);
    assert!((s.last().unwrap()["t_end_s"].as_f64().unwrap() - 8.0 * 3600.0).abs() < 60.0);
    // The resumed drive is the same drive: it faded and recovered as an uninterrupted one.
    let iops = |state: &str| v["states"][state]["iops"].as_f64().unwrap();
    assert!((750.0..=1100.0).contains(&iops("faded")), "{v}");
    assert!((iops("recovered") - 4000.0).abs() <= 800.0, "{v}");
}

/// A byte-budgeted soak killed after a checkpoint and resumed writes what was left, exactly:
/// the series is cut back to the saved drive and the budget counts only what the samples kept.
#[test]
fn a_soak_bytes_soak_killed_and_resumed_ends_at_exactly_its_budget() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("budget");
    let budget: u64 = 6 << 30;
    let mut cmd = vertex2_cmd(work.path(), "sim:vertex2-60g,scale=16", &dir);
    cmd.args(["--soak-bytes", "6G", "--checkpoint", "2m"]);
    let mut child = spawn(&mut cmd);
    let soak = dir.join("04-soak");
    wait_for(
        "the soak to pass a checkpoint",
        Duration::from_secs(300),
        || {
            std::fs::read_to_string(soak.join("samples.jsonl"))
                .map(|t| t.lines().count() > 20)
                .unwrap_or(false)
        },
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(phase_status(&dir, "soak").as_deref(), Some("running"));
    let v = json_ok(ssdfade(work.path()).arg("resume").arg(&dir).arg("--json"));
    assert_eq!(v["status"], "completed");
    let run = read_json(&soak.join("run.json"));
    assert_eq!(run["resumes"].as_array().unwrap().len(), 1, "{run}");
    let s = assert_series_continuous(&soak);
    let written: u64 = s.iter().map(|x| x["bytes"].as_u64().unwrap()).sum();
    assert_eq!(written, budget);
    assert_eq!(run["summary"]["bytes"].as_u64(), Some(budget), "{run}");
}

#[test]
fn ctrl_c_exits_130_and_the_experiment_resumes() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("int");
    let mut child = spawn(&mut vertex2_cmd(
        work.path(),
        "sim:vertex2-60g,scale=8",
        &dir,
    ));
    let soak = dir.join("04-soak");
    wait_for("the soak to start", Duration::from_secs(120), || {
        std::fs::read_to_string(soak.join("samples.jsonl"))
            .map(|t| t.lines().count() > 50)
            .unwrap_or(false)
    });
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let record = read_json(&dir.join("experiment.json"));
    assert_eq!(record["status"], "interrupted");
    assert_eq!(phase(&record, "soak")["status"], "interrupted");
    assert_eq!(phase(&record, "faded")["status"], "pending");
    assert_eq!(read_json(&soak.join("run.json"))["status"], "interrupted");
    let kept = samples(&soak).len();
    json_ok(ssdfade(work.path()).arg("resume").arg(&dir).arg("--json"));
    assert_complete_vertex2(&dir);
    assert_series_continuous(&soak);
    // The drive saved itself at the interruption: every sample was kept.
    let run = read_json(&soak.join("run.json"));
    assert_eq!(run["resumes"][0]["dropped_samples"], 0, "{run}");
    assert_eq!(run["resumes"][0]["index"].as_u64().unwrap() as usize, kept);
}

#[test]
fn resume_refuses_what_cannot_be_resumed() {
    let work = tempfile::tempdir().unwrap();
    let refuse = |dir: &Path, why: &str| {
        let out = ssdfade(work.path())
            .arg("resume")
            .arg(dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{why}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{why}: {err}");
        err.to_string()
    };
    refuse(&work.path().join("nothing-here"), "no directory");
    // A finished experiment.
    let done = work.path().join("done");
    json_ok(
        ssdfade(work.path())
            .args(["experiment", "vertex2", "sim:vertex2-60g,scale=16"])
            .args([
                "--measure-duration",
                "5s",
                "--soak-duration",
                "10m",
                "--json",
                "--out",
            ])
            .arg(&done),
    );
    assert!(refuse(&done, "completed").contains("completed"));
    let record = std::fs::read_to_string(done.join("experiment.json")).unwrap();
    let copy = |name: &str, text: &str| -> PathBuf {
        let d = work.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("experiment.json"), text).unwrap();
        d
    };
    let pending = record.replace("\"status\": \"completed\"", "\"status\": \"pending\"");
    assert!(refuse(&copy("corrupt", &record[..record.len() / 2]), "corrupt").contains("corrupt"));
    let future = pending.replace("\"schema_version\": 1", "\"schema_version\": 99");
    assert!(refuse(&copy("future", &future), "schema").contains("schema version 99"));
    let other = pending.replace("SIM-vertex2-60g", "SIM-another-drive");
    assert!(refuse(&copy("other", &other), "other drive").contains("another drive"));
    // A phase's headline time of 1e30 s once panicked resume in a Duration.
    let mut edited: serde_json::Value = serde_json::from_str(&pending).unwrap();
    edited["phases"][0]["headline"]["seconds"] = 1e30.into();
    let why = refuse(&copy("1e30", &edited.to_string()), "1e30 s");
    assert!(why.contains("headline.seconds is 1e30"), "{why}");
}

/// Two one-minute rounds cannot make the five a steady state needs: the soak gives up at its
/// limit, keeps its run, and says so with its own exit status.
#[test]
fn soak_until_steady_that_gives_up_exits_3_and_keeps_its_run() {
    let work = tempfile::tempdir().unwrap();
    let out = ssdfade(work.path())
        .args(["soak", "sim:vertex2-60g,scale=64", "--until-steady"])
        .args(["--max-duration", "2m", "--ss-round", "1m", "--json"])
        .args(["--out", "s"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "completed", "{v}");
    assert_eq!(v["steady_state"]["reached"], false, "{v}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--until-steady gave up"));
    assert!(work.path().join("s/run.json").exists());
}

#[test]
fn soak_until_steady_stops_once_steady() {
    let work = tempfile::tempdir().unwrap();
    let v = json_ok(
        ssdfade(work.path())
            .args(["soak", "sim:vertex2-60g,aged=0s,scale=8", "--align", "512"])
            .args([
                "--until-steady",
                "--max-duration",
                "8h",
                "--ss-round",
                "1m",
                "--json",
            ])
            .args(["--out", "s"]),
    );
    assert_eq!(v["status"], "completed");
    let st = &v["steady_state"];
    assert_eq!(st["reached"], true, "{v}");
    // A purged drive is flat until its spare runs out (it met the definition at 5 minutes,
    // on its fresh plateau): no round counts before the span is written once.
    let at = st["at_s"].as_f64().unwrap();
    assert!(at > 300.0, "{v}");
    let s = samples(&work.path().join("s"));
    let end = s.last().unwrap()["t_end_s"].as_f64().unwrap();
    assert!(
        (at..at + 20.0).contains(&end),
        "stopped at {end} s, steady at {at} s"
    );
    let w = &st["window"];
    let info: Value =
        serde_json::from_slice(&std::fs::read(work.path().join("s/run.json")).unwrap()).unwrap();
    let span = info["workload"]["span"].as_u64().unwrap();
    let first = s
        .iter()
        .find(|x| x["t_start_s"].as_f64().unwrap() >= w["start_s"].as_f64().unwrap() - 1e-6)
        .unwrap();
    let before = first["bytes_written_total"].as_u64().unwrap()
        - first["write"]["bytes"].as_u64().unwrap_or(0);
    assert!(
        before >= span,
        "the window starts after {before} of {span} bytes: {v}"
    );
    assert!(w["range_pct"].as_f64().unwrap() <= 20.0);
    assert!(w["slope_pct"].as_f64().unwrap() <= 10.0);
    // The steady IOPS is the window's: the I/Os of its samples over its length.
    let (from, to) = (w["start_s"].as_f64().unwrap(), w["end_s"].as_f64().unwrap());
    let ops: f64 = s
        .iter()
        .filter(|x| x["t_end_s"].as_f64().unwrap() > from && x["t_end_s"].as_f64().unwrap() <= to)
        .map(|x| x["ops"].as_f64().unwrap())
        .sum();
    let want = ops / (to - from);
    assert!(
        (st["iops"].as_f64().unwrap() - want).abs() < 0.01 * want,
        "{v}"
    );
}

/// A drive with spare flash beyond its span stays on its fresh plateau until the flash is full:
/// writing the span once is not enough, and the plateau is no steady state.
#[test]
fn a_drive_with_spare_flash_is_not_steady_on_its_fresh_plateau() {
    let work = tempfile::tempdir().unwrap();
    let v = json_ok(
        ssdfade(work.path())
            .args(["soak", "sim:dc-ssd-400g,capacity=25GB", "--interval", "1s"])
            .args([
                "--until-steady",
                "--max-duration",
                "1h",
                "--ss-round",
                "10s",
            ])
            .args(["--json", "--out", "s"]),
    );
    let st = &v["steady_state"];
    assert_eq!(st["reached"], true, "{v}");
    let info: Value =
        serde_json::from_slice(&std::fs::read(work.path().join("s/run.json")).unwrap()).unwrap();
    let flash = info["drive_before"]["flash_bytes"].as_u64().unwrap();
    let s = samples(&work.path().join("s"));
    // The window's first round counts only samples that start after the flash is full.
    let first_round_end = st["window"]["start_s"].as_f64().unwrap() + 10.0;
    let by_then = s
        .iter()
        .take_while(|x| x["t_end_s"].as_f64().unwrap() <= first_round_end + 1e-6)
        .last()
        .unwrap()["bytes_written_total"]
        .as_u64()
        .unwrap();
    assert!(
        by_then > flash,
        "the first round ends after {by_then} of {flash} flash bytes: {v}"
    );
    let fresh = s[0]["iops"].as_f64().unwrap();
    assert!(
        st["iops"].as_f64().unwrap() < 0.9 * fresh,
        "steady at the fresh plateau ({fresh} IOPS): {v}"
    );
}

#[test]
fn sweep_latency_follows_little_law_at_saturation() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("sweep");
    let v = json_ok(
        ssdfade(work.path())
            .args(["sweep", "sim:vertex2-60g,aged=0s", "--qd", "1,4,32"])
            .args(["--bs", "8k", "--read-pct", "67", "--random-pct", "70"])
            .args(["--point-duration", "20s", "--json", "--out"])
            .arg(&dir),
    );
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for (p, qd) in points.iter().zip([1u64, 4, 32]) {
        assert_eq!(p["qd"].as_u64(), Some(qd));
        let iops = p["iops"].as_f64().unwrap();
        let avg = p["avg_ms"].as_f64().unwrap();
        let little = 1000.0 * qd as f64 / iops;
        assert!(
            (avg - little).abs() <= 0.05 * little,
            "QD{qd}: {avg} ms vs {little} ms"
        );
        assert!(p["avg_read_ms"].as_f64().unwrap() > 0.0);
        assert!(p["avg_write_ms"].as_f64().unwrap() > 0.0);
        assert!(p["p99_ms"].as_f64().unwrap() >= p["avg_ms"].as_f64().unwrap() * 0.5);
        let run = read_json(&dir.join(p["run_dir"].as_str().unwrap()).join("run.json"));
        assert_eq!(run["workload"]["qd"].as_u64(), Some(qd));
        assert_eq!(run["workload"]["read_pct"], 67);
        assert_eq!(run["summary"]["iops"].as_f64(), Some(iops));
    }
    assert_eq!(read_json(&dir.join("sweep.json"))["points"], v["points"]);
    // Nothing in the directory names its own absolute path: a moved copy reads the same.
    let sweep = std::fs::read_to_string(dir.join("sweep.json")).unwrap();
    assert!(!sweep.contains(dir.to_str().unwrap()), "{sweep}");
}

/// `sweep --rate`: an unpaced `max` point first, then each percent paced at that share of its
/// IOPS (and an absolute rate as given), delivered within 2 % on the simulated drive; each
/// point has mean, p99 and p99.9 latency and its late issues, and sweep.png is drawn.
#[test]
fn rate_sweep_paces_each_point_at_its_share_of_the_maximum() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("rates");
    let v = json_ok(
        ssdfade(work.path())
            .args(["sweep", "sim:vertex2-60g,aged=0s", "--qd", "16"])
            .args(["--rate", "25%,50%,100%,1500", "--seed", "5"])
            .args(["--point-duration", "20s", "--json", "--out"])
            .arg(&dir),
    );
    assert_eq!(v["axis"], "rate", "{v}");
    let points = v["points"].as_array().unwrap();
    let names: Vec<&str> = points.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "max",
            "rate25pct",
            "rate50pct",
            "rate100pct",
            "rate1500iops"
        ]
    );
    let max = points[0]["iops"].as_f64().unwrap();
    assert!(points[0]["rate_iops"].is_null() && points[0]["late"].is_null());
    for (p, want) in points[1..]
        .iter()
        .zip([Some(0.25 * max), Some(0.5 * max), Some(max), None])
    {
        assert_eq!(p["qd"], 16, "{p}");
        let rate = p["rate_iops"].as_f64().unwrap();
        assert_eq!(rate, want.map_or(1500.0, f64::round), "{p}");
        let run = read_json(&dir.join(p["run_dir"].as_str().unwrap()).join("run.json"));
        assert_eq!(
            run["workload"]["rate"]["iops"].as_f64(),
            Some(rate),
            "{run}"
        );
        let iops = p["iops"].as_f64().unwrap();
        if rate < 0.6 * max {
            assert!((iops - rate).abs() <= 0.02 * rate, "{p}");
        }
        let (avg, p99, p999) = (
            p["avg_ms"].as_f64().unwrap(),
            p["p99_ms"].as_f64().unwrap(),
            p["p999_ms"].as_f64().unwrap(),
        );
        assert!(avg > 0.0 && p99 >= avg && p999 >= p99, "{p}");
        assert!(p["late"].as_u64().is_some(), "{p}");
    }
    assert_eq!(read_json(&dir.join("sweep.json"))["points"], v["points"]);
    assert!(dir.join("sweep.png").is_file());
    // The shared workload is what every point ran: each of its fields as the point's run.json
    // has it (QD 16, not the default 1); only the rate and seed are each point's own.
    let workload = &read_json(&dir.join("sweep.json"))["workload"];
    assert_eq!(workload["qd"], 16, "{workload}");
    for p in points {
        let ran = read_json(&dir.join(p["run_dir"].as_str().unwrap()).join("run.json"));
        let mut ran = ran["workload"].as_object().unwrap().clone();
        ran.remove("rate");
        ran.remove("seed");
        assert_eq!(workload.as_object().unwrap(), &ran, "{}", p["name"]);
    }
}

/// A rate sweep's `--rate` is a list; measure's is one byte rate, and a percent there (or a
/// thread sweep with rates) is refused with one line, exit 2.
#[test]
fn rate_lists_and_percents_are_refused_where_they_mean_nothing() {
    let work = tempfile::tempdir().unwrap();
    for args in [
        &["measure", "t.img", "--size", "16M", "--rate", "50%"][..],
        &["measure", "t.img", "--size", "16M", "--rate", "4M,8M"],
        &["sweep", "sim:vertex2-60g", "--rate", "10%,abc"],
        &["sweep", "sim:vertex2-60g", "--rate", "10%", "--qd", "1,2"],
        &[
            "sweep",
            "sim:vertex2-60g",
            "--rate",
            "10%",
            "--threads",
            "2",
        ],
    ] {
        let out = ssdfade(work.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--rate") || err.contains("--threads"),
            "{args:?}: {err}"
        );
    }
    assert!(!work.path().join("t.img").exists());
}

#[test]
fn sweep_on_zram_follows_little_law_at_saturation() {
    if !root_or_skip("sweep_on_zram_follows_little_law_at_saturation") {
        return;
    }
    let zram = Zram::new(256 << 20);
    let work = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    let v = json_ok(
        ssdfade(work.path())
            .args(["sweep", dev, "--destroy-data", dev, "--threads", "4,16"])
            .args(["--point-duration", "2s", "--json", "--out", "sw"]),
    );
    for p in v["points"].as_array().unwrap() {
        assert_eq!(p["engine"], "threads");
        let threads = p["threads"].as_f64().unwrap();
        let little = 1000.0 * threads / p["iops"].as_f64().unwrap();
        let avg = p["avg_ms"].as_f64().unwrap();
        // Each thread has one I/O in flight all the time, minus the time between I/Os.
        assert!(avg <= little * 1.05 && avg >= little * 0.3, "{p}");
    }
}

#[test]
fn hir_on_the_simulated_drive_recovers_after_the_longer_gaps() {
    let work = tempfile::tempdir().unwrap();
    let v = json_ok(
        ssdfade(work.path())
            .args([
                "experiment",
                "hir",
                "sim:vertex2-60g,scale=8",
                "--bursts",
                "2",
            ])
            .args(["--seed", "3", "--json", "--out", "hir"]),
    );
    assert_eq!(v["status"], "completed");
    assert_eq!(v["steady_state"]["reached"], true, "{v}");
    let steady = v["steady_iops"].as_f64().unwrap();
    let states = v["wait_states"].as_array().unwrap();
    assert_eq!(states.len(), 5);
    for s in states {
        let bursts: Vec<f64> = s["burst_iops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_f64().unwrap())
            .collect();
        assert_eq!(bursts.len(), 2);
        // Every burst follows an idle gap; the return to baseline writes the gain away, so
        // over its length it runs below the bursts.
        let baseline = s["baseline_iops"].as_f64().unwrap();
        assert!(
            baseline < bursts[0].min(bursts[1]),
            "the return to baseline: {s}"
        );
    }
    for s in &states[3..] {
        let mean = s["burst_mean_iops"].as_f64().unwrap();
        assert!(
            mean > 1.5 * steady,
            "no recovery after {} s idle: {s}",
            s["idle_s"]
        );
    }
    let record = read_json(&work.path().join("hir").join("experiment.json"));
    let idle = phase(&record, "ws50-idle2");
    assert_eq!(idle["kind"], "idle");
    assert_eq!(idle["params"]["seconds"], 50.0);
    // SNIA's 4 KiB writes are aligned to 4 KiB unless told otherwise.
    let run = read_json(&work.path().join("hir/03-precondition/run.json"));
    assert_eq!(run["workload"]["align"], 4096, "{run}");
    assert_png(&work.path().join("hir").join("hir.png"));
}

/// A chart file that exists and is a PNG of the charts' size.
fn assert_png(path: &std::path::Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    assert_eq!(width, 1600, "{}", path.display());
}

#[test]
fn wsat_writes_four_drive_fills_in_one_minute_rounds() {
    let work = tempfile::tempdir().unwrap();
    let v = json_ok(
        ssdfade(work.path())
            .args(["experiment", "wsat", "sim:vertex2-60g,scale=16"])
            .args(["--seed", "5", "--json", "--out", "wsat"]),
    );
    let rounds = v["rounds"].as_array().unwrap();
    // Four fills end mid-round: that fraction of a round is shown apart, never as a round.
    let partial = &v["partial_round"];
    assert!(partial["seconds"].as_f64().unwrap() < 59.0, "{partial}");
    assert!(
        partial["drive_fills"].as_f64().unwrap() >= 4.0 - 1e-3,
        "{partial}"
    );
    let last = rounds.last().unwrap();
    assert!(rounds.len() > 100);
    let mut t = 0.0;
    for r in rounds {
        let end = r["t_end_s"].as_f64().unwrap();
        // A round ends with the simulator's batch that crosses the minute (1024 I/Os here).
        assert!((end - t - 60.0).abs() < 3.0, "rounds of a minute: {r}");
        t = end;
    }
    // Fresh after the purge, then the cliff.
    assert!(rounds[0]["iops"].as_f64().unwrap() > 3.0 * last["iops"].as_f64().unwrap());
    let record = read_json(&work.path().join("wsat").join("experiment.json"));
    assert_eq!(phase(&record, "purge")["kind"], "erase");
    let run = read_json(&work.path().join("wsat/02-wsat/run.json"));
    assert_eq!(run["workload"]["align"], 4096, "{run}");
    assert_png(&work.path().join("wsat").join("wsat.png"));
    let report = std::fs::read_to_string(work.path().join("wsat").join("report.md")).unwrap();
    assert!(report.contains("(wsat.png)"), "{report}");
}

#[test]
fn the_protocol_runs_on_a_zram_device() {
    if !root_or_skip("the_protocol_runs_on_a_zram_device") {
        return;
    }
    let zram = Zram::new(128 << 20);
    let work = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    let dir = work.path().join("zram");
    let short = [
        "--measure-duration",
        "2s",
        "--soak-duration",
        "6s",
        "--soak-interval",
        "1s",
    ];
    // Without confirmation: refused, nothing created.
    let out = ssdfade(work.path())
        .args(["experiment", "vertex2", dev])
        .args(short)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim().lines().count(),
        1
    );
    assert!(!dir.exists());
    let v = json_ok(
        ssdfade(work.path())
            .args([
                "experiment",
                "vertex2",
                dev,
                "--destroy-data",
                dev,
                "--qd",
                "16",
            ])
            .args(short)
            .args(["--json", "--out"])
            .arg(&dir),
    );
    assert_complete_vertex2(&dir);
    for state in ["in_service", "fresh", "faded", "recovered"] {
        assert!(v["states"][state]["iops"].as_f64().unwrap() > 100.0, "{v}");
    }
    let erase = read_json(&dir.join("02-erase-1").join("erase.json"));
    assert_eq!(erase["method"], "trim", "auto chooses TRIM on zram");
    // zram has 4 KiB logical blocks: the seed's 512-byte alignment is not possible, and said.
    let run = read_json(&dir.join("03-fresh").join("run.json"));
    assert_eq!(run["workload"]["align"], 4096);
    let record = read_json(&dir.join("experiment.json"));
    assert!(record["notes"][0]
        .as_str()
        .unwrap()
        .contains("not the seed's 512"));
    assert_eq!(run["workload"]["qd"], 16);
    let s = samples(&dir.join("04-soak"));
    assert!((5..=7).contains(&s.len()), "{} samples", s.len());
    assert!(!dir.join("drive.sim").exists());
}

#[test]
fn a_soak_on_zram_killed_and_resumed_records_the_gap() {
    if !root_or_skip("a_soak_on_zram_killed_and_resumed_records_the_gap") {
        return;
    }
    let zram = Zram::new(128 << 20);
    let work = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    let dir = work.path().join("zk");
    let mut cmd = ssdfade(work.path());
    cmd.args([
        "experiment",
        "vertex2",
        dev,
        "--destroy-data",
        dev,
        "--qd",
        "8",
    ])
    .args([
        "--measure-duration",
        "1s",
        "--soak-duration",
        "8s",
        "--soak-interval",
        "1s",
    ])
    .arg("--out")
    .arg(&dir);
    let mut child = spawn(&mut cmd);
    let soak = dir.join("04-soak");
    wait_for("3 soak samples", Duration::from_secs(60), || {
        std::fs::read_to_string(soak.join("samples.jsonl"))
            .map(|t| t.lines().count() >= 3)
            .unwrap_or(false)
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let before = samples(&soak).len();
    std::thread::sleep(Duration::from_millis(1500));
    json_ok(ssdfade(work.path()).arg("resume").arg(&dir).arg("--json"));
    assert_complete_vertex2(&dir);
    let s = assert_series_continuous(&soak);
    let run = read_json(&soak.join("run.json"));
    let r = &run["resumes"][0];
    assert_eq!(r["index"].as_u64().unwrap() as usize, before, "{run}");
    assert_eq!(r["dropped_samples"], 0);
    assert!(r["outage_s"].as_f64().unwrap() >= 1.4, "{r}");
    // The soak wrote for its whole duration, the outage aside.
    let end = s.last().unwrap()["t_end_s"].as_f64().unwrap();
    assert!((7.9..9.5).contains(&end), "ended at {end} s");
}

#[test]
fn a_running_experiment_cannot_be_resumed_twice() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("busy");
    let mut child = spawn(&mut vertex2_cmd(
        work.path(),
        "sim:vertex2-60g,scale=8",
        &dir,
    ));
    wait_for("the soak to run", Duration::from_secs(120), || {
        phase_status(&dir, "soak").as_deref() == Some("running")
    });
    let out = ssdfade(work.path())
        .arg("resume")
        .arg(&dir)
        .output()
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("in use by another ssdfade"));
}

#[test]
fn a_seeded_experiment_is_reproducible_and_its_phases_do_not_repeat_one_offset_sequence() {
    let work = tempfile::tempdir().unwrap();
    let seeds = |out: &str| -> Vec<u64> {
        json_ok(
            ssdfade(work.path())
                .args(["sweep", "sim:vertex2-60g,scale=16", "--qd", "1,2,4"])
                .args([
                    "--point-duration",
                    "2s",
                    "--seed",
                    "7",
                    "--json",
                    "--out",
                    out,
                ]),
        );
        ["01-qd1", "02-qd2", "03-qd4"]
            .iter()
            .map(|p| {
                read_json(&work.path().join(out).join(p).join("run.json"))["workload"]["seed"]
                    .as_u64()
                    .unwrap()
            })
            .collect()
    };
    let first = seeds("a");
    assert_eq!(first, seeds("b"), "the same --seed gives the same phases");
    assert!(
        first[0] != first[1] && first[1] != first[2] && first[0] != first[2],
        "each phase its own offsets: {first:?}"
    );
}

/// A quick vertex2 on the simulated drive, completed, in `work/name`.
fn quick_vertex2(work: &Path, name: &str) -> PathBuf {
    let dir = work.join(name);
    json_ok(
        ssdfade(work)
            .args(["experiment", "vertex2", "sim:vertex2-60g,scale=16"])
            .args(["--measure-duration", "5s", "--soak-duration", "10m"])
            .args(["--json", "--out"])
            .arg(&dir),
    );
    dir
}

/// `resume` on `dir` is refused: exit 2, one line, which is returned.
fn resume_refused(work: &Path, dir: &Path) -> String {
    let out = ssdfade(work).arg("resume").arg(dir).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    err
}

/// Rewrites experiment.json in `dir` with `edit`, the experiment made unfinished.
fn edit_record(dir: &Path, edit: impl FnOnce(&mut Value)) {
    let path = dir.join("experiment.json");
    let mut record = read_json(&path);
    record["status"] = "interrupted".into();
    edit(&mut record);
    std::fs::write(&path, serde_json::to_string_pretty(&record).unwrap()).unwrap();
}

#[test]
fn no_name_read_from_a_record_makes_resume_write_outside_the_experiment_directory() {
    let work = tempfile::tempdir().unwrap();
    let done = quick_vertex2(work.path(), "done");
    let victim = work.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("precious"), "keep me").unwrap();
    let copy = |name: &str| -> PathBuf {
        let d = work.path().join(name);
        let status = Command::new("cp").arg("-a").arg(&done).arg(&d).status();
        assert!(status.unwrap().success());
        d
    };
    let faded = 4;
    // A phase directory that climbs out (a pending phase's directory is emptied first).
    for (name, value) in [("up", "../victim"), ("abs", victim.to_str().unwrap())] {
        let dir = copy(name);
        edit_record(&dir, |r| {
            r["phases"][faded]["status"] = "pending".into();
            r["phases"][faded]["dir"] = value.into();
        });
        let err = resume_refused(work.path(), &dir);
        assert!(err.contains(value), "{err}");
    }
    // A phase directory that is a symbolic link out of the experiment.
    let dir = copy("link");
    std::fs::remove_dir_all(dir.join("05-faded")).unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("05-faded")).unwrap();
    edit_record(&dir, |r| r["phases"][faded]["status"] = "pending".into());
    assert!(resume_refused(work.path(), &dir).contains("symbolic link"));
    // The simulated drive's state file outside the directory.
    let dir = copy("state");
    edit_record(&dir, |r| {
        r["phases"][faded]["status"] = "pending".into();
        r["drive_state"] = "../victim/drive.sim".into();
    });
    assert!(resume_refused(work.path(), &dir).contains("../victim/drive.sim"));
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 1);
    assert_eq!(
        std::fs::read_to_string(victim.join("precious")).unwrap(),
        "keep me"
    );
    // A group's member directory outside the group.
    let group = work.path().join("group");
    std::fs::create_dir(&group).unwrap();
    let record = serde_json::json!({
        "schema_version": 1, "tool": "ssdfade", "version": "0.1.0",
        "command": "experiment vertex2", "command_line": [], "started_utc": "",
        "ended_utc": null, "status": "interrupted",
        "members": [{"target": "sim:vertex2-60g,scale=16", "run_dir": "../done", "status": "interrupted"}]
    });
    std::fs::write(group.join("group.json"), record.to_string()).unwrap();
    assert!(resume_refused(work.path(), &group).contains("../done"));
}

/// A copy of the completed experiment `done` whose soak was cut short (it and every phase after
/// it unfinished), its samples.jsonl rewritten by `damage` (lines without their newline).
fn cut_soak(
    work: &Path,
    done: &Path,
    name: &str,
    damage: impl FnOnce(&mut Vec<String>),
) -> PathBuf {
    let dir = work.join(name);
    assert!(Command::new("cp")
        .arg("-a")
        .arg(done)
        .arg(&dir)
        .status()
        .unwrap()
        .success());
    edit_record(&dir, |r| {
        for p in r["phases"].as_array_mut().unwrap().iter_mut().skip(3) {
            p["status"] = "pending".into();
        }
        r["phases"][3]["status"] = "interrupted".into();
    });
    let soak = dir.join("04-soak");
    let mut run = read_json(&soak.join("run.json"));
    run["status"] = "interrupted".into();
    std::fs::write(soak.join("run.json"), run.to_string()).unwrap();
    let text = std::fs::read_to_string(soak.join("samples.jsonl")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    damage(&mut lines);
    std::fs::write(soak.join("samples.jsonl"), lines.join("\n") + "\n").unwrap();
    dir
}

/// An experiment directory copied elsewhere (and its original gone) resumes where it now is,
/// with the drive it holds now, and writes nothing where it was; no record in it names a file
/// of the directory by an absolute path (the drive is `state=drive.sim`), before or after.
#[test]
fn a_moved_experiment_resumes_where_it_now_is() {
    let work = tempfile::tempdir().unwrap();
    let done = quick_vertex2(work.path(), "done");
    let moved = cut_soak(work.path(), &done, "moved", |_| {});
    let old_files = format!("{}/", done.display());
    assert_names_nothing_by(&moved, &old_files);
    std::fs::remove_dir_all(&done).unwrap();
    let out = ssdfade(work.path())
        .arg("resume")
        .arg(&moved)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let record = read_json(&moved.join("experiment.json"));
    assert_eq!(record["status"], "completed");
    assert!(
        !done.exists(),
        "resume wrote to the directory it was copied from"
    );
    common::run_ok(ssdfade(work.path()).arg("report").arg(&moved));
    assert_names_nothing_by(&moved, &old_files);
    assert_names_nothing_by(&moved, &format!("{}/", moved.display()));
    let soak = read_json(&moved.join("04-soak/run.json"));
    assert_eq!(
        soak["target"]["path"], "sim:vertex2-60g,scale=16,state=drive.sim",
        "{soak}"
    );
}

/// A phase that ran whose run.json was edited to hold a number no run writes (NaN, which JSON
/// cannot hold) is refused by `resume` as `report` refuses it — one line naming the file, exit 2
/// — before any phase runs: experiment.json stays as it was and no phase directory is made.
#[test]
fn resume_refuses_a_phase_record_holding_nan_before_running_anything() {
    let work = tempfile::tempdir().unwrap();
    let done = quick_vertex2(work.path(), "done");
    let cut = cut_soak(work.path(), &done, "cut", |_| {});
    let fresh = cut.join("03-fresh/run.json");
    let text = std::fs::read_to_string(&fresh).unwrap();
    let mut run: Value = serde_json::from_str(&text).unwrap();
    run["summary"]["iops"] = "__NaN__".into();
    std::fs::write(&fresh, run.to_string().replace("\"__NaN__\"", "NaN")).unwrap();
    let record = std::fs::read(cut.join("experiment.json")).unwrap();
    let dirs_before = std::fs::read_dir(&cut).unwrap().count();
    let err = resume_refused(work.path(), &cut);
    assert!(err.contains("03-fresh/run.json"), "{err}");
    assert_eq!(std::fs::read(cut.join("experiment.json")).unwrap(), record);
    assert_eq!(std::fs::read_dir(&cut).unwrap().count(), dirs_before);
    // `report` refuses the same directory in the same words.
    let out = ssdfade(work.path())
        .arg("report")
        .arg(&cut)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), err);
}

/// Fails when a record or report in `dir` holds `text`.
fn assert_names_nothing_by(dir: &Path, text: &str) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            assert_names_nothing_by(&path, text);
        } else if ["json", "jsonl", "md"]
            .iter()
            .any(|e| path.extension().is_some_and(|x| x == *e))
        {
            let body = std::fs::read_to_string(&path).unwrap();
            assert!(!body.contains(text), "{} names {text}", path.display());
        }
    }
}

/// A phase record written by an older ssdfade names the drive by its absolute path: one inside
/// the experiment directory is named anew by its name and resumes; one outside is refused,
/// naming the value, with nothing changed.
#[test]
fn an_old_phase_record_naming_the_drive_absolutely_resumes_inside_and_is_refused_outside() {
    let work = tempfile::tempdir().unwrap();
    let done = quick_vertex2(work.path(), "done");
    let old = |name: &str, state: &dyn Fn(&Path) -> PathBuf| -> PathBuf {
        let dir = cut_soak(work.path(), &done, name, |_| {});
        let path = dir.join("04-soak/run.json");
        let mut run = read_json(&path);
        let named = format!("sim:vertex2-60g,scale=16,state={}", state(&dir).display());
        run["target"]["path"] = named.into();
        std::fs::write(&path, run.to_string()).unwrap();
        dir
    };
    let inside = old("inside", &|dir| {
        dir.canonicalize().unwrap().join("drive.sim")
    });
    json_ok(
        ssdfade(work.path())
            .arg("resume")
            .arg(&inside)
            .arg("--json"),
    );
    let run = read_json(&inside.join("04-soak/run.json"));
    assert_eq!(
        run["target"]["path"],
        "sim:vertex2-60g,scale=16,state=drive.sim"
    );
    let outside = old("outside", &|_| done.join("drive.sim"));
    let before = std::fs::read(outside.join("04-soak/run.json")).unwrap();
    let err = resume_refused(work.path(), &outside);
    assert!(
        err.contains(&done.join("drive.sim").display().to_string()),
        "{err}"
    );
    assert!(err.contains("state=drive.sim"), "{err}");
    assert_eq!(
        std::fs::read(outside.join("04-soak/run.json")).unwrap(),
        before
    );
}

#[test]
fn a_damaged_sample_line_never_costs_the_good_samples_before_it() {
    let work = tempfile::tempdir().unwrap();
    let done = quick_vertex2(work.path(), "done");
    let good: Vec<Value> = samples(&done.join("04-soak"));
    assert!(good.len() >= 40, "{} samples", good.len());
    // Damage at the end (a crash that wrote garbage): the 29 good samples before it are kept,
    // and the record says how many lines were dropped.
    let dir = cut_soak(work.path(), &done, "tail", |lines| {
        lines.truncate(32);
        lines[29] = "{\"index\": 29, garbage".into();
        lines[30] = "\u{0}\u{0}\u{0}".into();
        lines[31] = "{}".into();
    });
    json_ok(ssdfade(work.path()).arg("resume").arg(&dir).arg("--json"));
    let soak = dir.join("04-soak");
    let s = assert_series_continuous(&soak);
    assert!(
        s[..29] == good[..29],
        "the samples before the damage changed"
    );
    let run = read_json(&soak.join("run.json"));
    let r = &run["resumes"][0];
    assert_eq!(r["index"], 29, "{run}");
    assert_eq!(r["dropped_samples"], 3, "{run}");
    assert!(
        r["note"].as_str().unwrap().contains("3 damaged line"),
        "{r}"
    );
    // Damage with good samples after it is refused naming the line; nothing is changed.
    let dir = cut_soak(work.path(), &done, "middle", |lines| {
        lines[9] = "{\"index\": 9, garbage".into();
    });
    let before = std::fs::read(dir.join("04-soak/samples.jsonl")).unwrap();
    let out = ssdfade(work.path())
        .arg("resume")
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("04-soak/samples.jsonl:10: damaged"), "{err}");
    assert_eq!(
        std::fs::read(dir.join("04-soak/samples.jsonl")).unwrap(),
        before
    );
}

#[test]
fn resume_refuses_a_missing_swapped_or_older_simulated_drive_without_advising_deletion() {
    let work = tempfile::tempdir().unwrap();
    let done = quick_vertex2(work.path(), "done");
    let other = quick_vertex2(work.path(), "other");
    let stamp = read_json(&done.join("experiment.json"))["drive_stamp"].clone();
    assert_eq!(stamp["id"].as_str().unwrap().len(), 16, "{stamp}");
    // Unfinished from the faded phase on, its drive then changed by `change`.
    let cut = |name: &str, change: &dyn Fn(&Path)| -> PathBuf {
        let d = work.path().join(name);
        let status = Command::new("cp").arg("-a").arg(&done).arg(&d).status();
        assert!(status.unwrap().success());
        edit_record(&d, |r| {
            for p in r["phases"].as_array_mut().unwrap().iter_mut().skip(4) {
                p["status"] = "pending".into();
            }
        });
        change(&d.join("drive.sim"));
        d
    };
    type Change<'a> = &'a dyn Fn(&Path);
    let cases: [(&str, Change, &str); 5] = [
        ("missing", &|f| std::fs::remove_file(f).unwrap(), "missing"),
        (
            "empty",
            &|f| std::fs::write(f, "").unwrap(),
            "missing or empty",
        ),
        (
            "swapped",
            &|f| {
                std::fs::copy(other.join("drive.sim"), f).unwrap();
            },
            "another simulated drive",
        ),
        (
            "truncated",
            &|f| {
                let bytes = std::fs::read(f).unwrap();
                std::fs::write(f, &bytes[..1000]).unwrap();
            },
            "truncated",
        ),
        ("older", &|_| {}, "older copy"),
    ];
    for (name, change, why) in cases {
        let dir = cut(name, change);
        if name == "older" {
            // The record saw more saves than the drive holds: an older copy was put back.
            let saves = stamp["saves"].as_u64().unwrap() + 1;
            edit_record(&dir, |r| r["drive_stamp"]["saves"] = saves.into());
        }
        let before = std::fs::read(dir.join("drive.sim")).ok();
        let err = resume_refused(work.path(), &dir);
        assert!(err.contains(why), "{name}: {err}");
        assert!(!err.contains("delete") && !err.contains("remove"), "{err}");
        assert_eq!(std::fs::read(dir.join("drive.sim")).ok(), before, "{name}");
    }
    // The drive untouched, a resume goes on and the stamp follows the drive.
    let dir = cut("own", &|_| {});
    for phase in ["05-faded", "06-erase-2", "07-recovered"] {
        std::fs::remove_dir_all(dir.join(phase)).unwrap();
    }
    json_ok(ssdfade(work.path()).arg("resume").arg(&dir).arg("--json"));
    let now = read_json(&dir.join("experiment.json"))["drive_stamp"].clone();
    assert_eq!(now["id"], stamp["id"]);
    assert!(now["saves"].as_u64() > stamp["saves"].as_u64(), "{now}");
}

#[test]
fn numbers_edited_into_records_are_refused_in_one_line_not_a_panic() {
    let work = tempfile::tempdir().unwrap();
    let done = quick_vertex2(work.path(), "done");
    let copy = |name: &str| -> PathBuf {
        let d = work.path().join(name);
        let status = Command::new("cp").arg("-a").arg(&done).arg(&d).status();
        assert!(status.unwrap().success());
        std::fs::remove_dir_all(d.join("05-faded")).unwrap();
        d
    };
    let edits: [(&str, &str, Value); 4] = [
        ("long", "duration_s", 1e30.into()),
        ("negative", "duration_s", (-5.0).into()),
        ("interval", "interval_s", (-1.0).into()),
        ("zero", "interval_s", 0.0.into()),
    ];
    for (name, field, value) in edits {
        let dir = copy(name);
        edit_record(&dir, |r| {
            r["phases"][4]["status"] = "pending".into();
            r["phases"][4]["params"][field] = value;
        });
        let err = resume_refused(work.path(), &dir);
        assert!(err.contains(field), "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // A run directory: an edited sample time, and an edited interval in run.json.
    let refused = |dir: &Path, what: &str| {
        let out = ssdfade(work.path()).arg("plot").arg(dir).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{what}: {err}");
        err.to_string()
    };
    let run = work.path().join("run");
    std::fs::create_dir(&run).unwrap();
    for f in ["run.json", "samples.jsonl"] {
        std::fs::copy(done.join("04-soak").join(f), run.join(f)).unwrap();
    }
    let text = std::fs::read_to_string(run.join("samples.jsonl")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut third: Value = serde_json::from_str(&lines[2]).unwrap();
    third["t_end_s"] = 1e30.into();
    lines[2] = third.to_string();
    std::fs::write(run.join("samples.jsonl"), lines.join("\n") + "\n").unwrap();
    assert!(refused(&run, "sample").contains("samples.jsonl:3"));
    std::fs::write(run.join("samples.jsonl"), text).unwrap();
    let mut info = read_json(&run.join("run.json"));
    info["workload"]["interval"] = (-1.0).into();
    std::fs::write(run.join("run.json"), info.to_string()).unwrap();
    assert!(refused(&run, "run.json").contains("-1"));
}

/// `experiment op-sweep`: a purge and a soak (fast preconditioning, until steady) per span, in
/// the order given; each span's figures are its run's SNIA window, ordered by the share left
/// unpartitioned; the advice, the table and the report give the same figures as `--json`.
#[test]
fn op_sweep_measures_each_span_to_steady_state_and_every_output_agrees() {
    let work = tempfile::tempdir().unwrap();
    let args = [
        "experiment",
        "op-sweep",
        "sim:vertex2-60g,scale=64",
        "--span",
        "100%,75%,50G",
        "--seed",
        "11",
    ];
    let v = json_ok(
        ssdfade(work.path())
            .args(args)
            .args(["--json", "--out", "ops"]),
    );
    let dir = work.path().join("ops");
    let record = read_json(&dir.join("experiment.json"));
    let names: Vec<&str> = record["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "purge-100pct",
            "span100pct",
            "purge-75pct",
            "span75pct",
            "purge-50G",
            "span50G"
        ]
    );
    let capacity = v["capacity_bytes"].as_u64().unwrap();
    let points = v["points"].as_array().unwrap();
    let want = [
        ("span100pct", capacity / 4096 * 4096),
        ("span50G", 50u64 << 30),
        ("span75pct", capacity * 3 / 4 / 4096 * 4096),
    ];
    assert_eq!(points.len(), 3, "{v}");
    for (p, (name, span)) in points.iter().zip(want) {
        assert_eq!(
            p["name"], name,
            "ordered by the share left unpartitioned: {v}"
        );
        let run = read_json(&dir.join(p["run_dir"].as_str().unwrap()).join("run.json"));
        assert_eq!(run["workload"]["span"].as_u64(), Some(span), "{run}");
        assert!(run["workload"]["precondition"]["bytes"].as_u64().unwrap() > span);
        assert_eq!(run["steady_state"]["reached"], true, "{run}");
        assert_eq!(p["iops"], run["steady_state"]["iops"], "{p}");
        let unpartitioned = (1.0 - span as f64 / capacity as f64) * 100.0;
        assert!((p["unpartitioned_pct"].as_f64().unwrap() - unpartitioned).abs() < 1e-9);
    }
    let iops: Vec<f64> = points.iter().map(|p| p["iops"].as_f64().unwrap()).collect();
    assert!(
        iops[0] < iops[1] && iops[1] < iops[2],
        "more spare, more IOPS: {iops:?}"
    );
    let advice = &v["advice"];
    let line = advice["line"].as_str().unwrap();
    assert_eq!(advice["from_iops"], points[0]["iops"]);
    // The same run again, printed: the table and the advice line carry the JSON's figures.
    let text = common::run_ok(ssdfade(work.path()).args(args).args(["--out", "ops-text"]));
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains(line), "{report}");
    assert!(
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(line),
        "{text}"
    );
    for p in points {
        let cells = [
            format!("{:.0}", p["iops"].as_f64().unwrap()),
            ssdfade::units::format_sig(p["p99_ms"].as_f64().unwrap(), 3),
            ssdfade::units::format_sig(p["p999_ms"].as_f64().unwrap(), 3),
        ];
        // The row shows the span as given: phase `span75pct` is the row "75 %".
        let short = p["name"].as_str().unwrap().trim_start_matches("span");
        let short = short
            .strip_suffix("pct")
            .map_or(short.to_string(), |p| format!("{p} %"));
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{short} ")))
            .unwrap_or_else(|| panic!("no row {short} in {text}"));
        for cell in &cells {
            assert!(row.contains(cell.as_str()), "{cell} not in {row}");
            assert!(
                report.contains(&format!(" {cell} ")),
                "{cell} not in the report"
            );
        }
    }
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    assert_png(&dir.join("op-sweep.png"));
}

/// `--on-twin FILE`: the plan runs on the twin, the drive named is never opened (it does not
/// exist here), and every output says the figures are a prediction.
#[test]
fn op_sweep_on_a_twin_answers_without_the_drive_and_says_it_is_a_prediction() {
    let work = tempfile::tempdir().unwrap();
    let twin = work.path().join("twin.toml");
    std::fs::write(
        &twin,
        "base = \"vertex2-60g\"\nmodel = \"a twin\"\ncapacity = 2147483648\nalpha = 1.2\nspeed = 1.0\n",
    )
    .unwrap();
    let run = |json: bool, out: &str| {
        let mut cmd = ssdfade(work.path());
        cmd.args(["experiment", "op-sweep", "/dev/no-such-drive", "--on-twin"])
            .arg(&twin)
            .args(["--span", "100%,80%", "--seed", "4", "--out", out]);
        if json {
            cmd.arg("--json");
        }
        cmd
    };
    let v = json_ok(&mut run(true, "twin"));
    assert!(v["target"].as_str().unwrap().starts_with("sim:@"), "{v}");
    assert!(
        v["predicted_from_twin"]
            .as_str()
            .unwrap()
            .ends_with("twin.toml"),
        "{v}"
    );
    assert!(v["advice"]["line"].is_string(), "{v}");
    let text = common::run_ok(&mut run(false, "twin-text"));
    assert!(text.contains("A prediction from the twin"), "{text}");
    let report = std::fs::read_to_string(work.path().join("twin/report.md")).unwrap();
    assert!(report.contains("A prediction from the twin"), "{report}");
    let record = read_json(&work.path().join("twin/experiment.json"));
    assert!(
        record["notes"][0]
            .as_str()
            .unwrap()
            .contains("/dev/no-such-drive"),
        "{record}"
    );
}

/// An op-sweep interrupted in a span's soak resumes that soak and ends with every span steady.
#[test]
fn op_sweep_interrupted_in_a_span_resumes_it() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("ops");
    let mut child = spawn(
        ssdfade(work.path())
            .args(["experiment", "op-sweep", "sim:vertex2-60g,scale=16"])
            .args([
                "--span",
                "100%,80%",
                "--interval",
                "1s",
                "--seed",
                "2",
                "--out",
            ])
            .arg(&dir),
    );
    let soak = dir.join("02-span100pct");
    wait_for("the first span's soak", Duration::from_secs(120), || {
        std::fs::read_to_string(soak.join("samples.jsonl"))
            .map(|t| t.lines().count() > 30)
            .unwrap_or(false)
    });
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let record = read_json(&dir.join("experiment.json"));
    assert_eq!(phase(&record, "span100pct")["status"], "interrupted");
    assert_eq!(phase(&record, "span80pct")["status"], "pending");
    let v = json_ok(ssdfade(work.path()).arg("resume").arg(&dir).arg("--json"));
    assert_eq!(v["status"], "completed", "{v}");
    let run = read_json(&soak.join("run.json"));
    assert!(
        run["resumes"].as_array().is_some_and(|r| !r.is_empty()),
        "{run}"
    );
    assert_series_continuous(&soak);
    for p in v["points"].as_array().unwrap() {
        assert_eq!(p["steady"], true, "{p}");
    }
    assert!(v["advice"]["line"].is_string(), "{v}");
}

/// An experiment killed while it was being created (its drive saved, its record not yet
/// renamed into place) left a directory that `resume` did not take (no experiment.json) and a
/// new start refused (files it had not written): a dead end. A new start now takes it; a
/// directory holding anything else as well is still refused, and that file kept.
#[test]
fn an_experiment_killed_while_being_created_can_be_started_again() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let made = quick_vertex2(w, "made");
    let dir = w.join("killed");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(made.join("drive.sim"), dir.join("drive.sim")).unwrap();
    std::fs::write(dir.join(".experiment.json.4242.tmp"), "{\"schema_ver").unwrap();
    std::fs::write(dir.join(".drive.sim.AbCdEfGh.tmp"), "").unwrap();
    let mixed = w.join("mixed");
    std::fs::create_dir(&mixed).unwrap();
    std::fs::copy(made.join("drive.sim"), mixed.join("drive.sim")).unwrap();
    std::fs::write(mixed.join("notes.txt"), "mine").unwrap();
    let start = |dir: &Path| {
        ssdfade(w)
            .args(["experiment", "vertex2", "sim:vertex2-60g,scale=16"])
            .args(["--measure-duration", "5s", "--soak-duration", "1m"])
            .arg("--out")
            .arg(dir)
            .output()
            .unwrap()
    };
    let out = start(&dir);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_complete_vertex2(&dir);
    assert!(!dir.join(".experiment.json.4242.tmp").exists());
    let out = start(&mixed);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(mixed.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(mixed.join("drive.sim").exists());
}

/// The op-sweep's phase table labels its IOPS as whole phases (fast preconditioning included,
/// unlike the steady IOPS above it), and a purge before any span has run draws no note that
/// there is nothing to chart yet.
#[test]
fn op_sweep_labels_whole_phase_iops_and_notes_no_missing_charts_mid_experiment() {
    let work = tempfile::tempdir().unwrap();
    let out = ssdfade(work.path())
        .args(["experiment", "op-sweep", "sim:vertex2-60g,scale=64"])
        .args(["--span", "100%,80%", "--seed", "5", "--out", "ops"])
        .output()
        .unwrap();
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("no phase with samples"), "{err}");
    assert!(!err.contains("no charts"), "{err}");
    let head = text
        .lines()
        .position(|l| l.trim_start().starts_with("phase "))
        .unwrap_or_else(|| panic!("no phase table in {text}"));
    let label = text.lines().skip(head).find(|l| l.contains("(IOPS:"));
    assert!(
        label.is_some_and(|l| l.contains("each phase as a whole, fast preconditioning included")),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
}

/// The experiment's status line fits 80 columns: a long target goes on a line of its own.
#[test]
fn a_long_target_puts_the_experiments_status_line_within_80_columns() {
    let work = tempfile::tempdir().unwrap();
    let target = "sim:vertex2-60g,aged=0s,scale=64,capacity=60GB";
    let out = ssdfade(work.path())
        .args(["sweep", target, "--qd", "1,2", "--point-duration", "1s"])
        .args(["--out", "s"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(
        text.starts_with(&format!(
            "experiment sweep: completed (2 of 2 phases done)\n  on {target}\n"
        )),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
}

/// A rate sweep's table (rate, IOPS, MB/s, latency, late issues) fits 80 columns.
#[test]
fn a_rate_sweeps_table_fits_80_columns() {
    let work = tempfile::tempdir().unwrap();
    let out = ssdfade(work.path())
        .args([
            "sweep",
            "sim:vertex2-60g,aged=0s,scale=64",
            "--rate",
            "1000,50%",
        ])
        .args(["--point-duration", "1s", "--out", "s"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("late (max ms)"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    // The timeline's subtitle does not give the first point's figures as the sweep's: no
    // "QD of the point" (the QD does not vary) and no first point's rate.
    let exp = ssdfade::results::load_experiment(&work.path().join("s")).unwrap();
    let labels = ssdfade::protocol::charts(&exp).timeline;
    let subtitle = ssdfade::plot::timeline(&exp, &labels).fade.subtitle;
    assert!(
        !subtitle.contains("QD of the point") && !subtitle.contains("--rate-iops"),
        "{subtitle}"
    );
}

/// A dry run refuses what the real run would refuse (exit 2, one line naming the option), for
/// every experiment kind, and writes nothing; the real run's refusal is the same line.
#[test]
fn a_dry_run_refuses_the_workloads_the_real_run_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let dc = "sim:dc-ssd-400g,capacity=8GB,scale=64";
    for args in [
        &["vertex2", "sim:vertex2-60g,scale=16", "--qd", "0"][..],
        &["wsat", dc, "--qd", "0"],
        &["hir", dc, "--bs", "3"],
        &["xsr", dc, "--qd", "0"],
        &["op-sweep", dc, "--qd", "0"],
        &["slc-cache", "sim:sata-tlc-250g,scale=64", "--qd", "0"],
        &["pts", dc, "--qd", "0"],
    ] {
        let run = |dry: bool| {
            let mut cmd = ssdfade(tmp.path());
            cmd.arg("experiment").args(args);
            if dry {
                cmd.arg("--dry-run");
            }
            cmd.output().unwrap()
        };
        let (dry, real) = (run(true), run(false));
        assert_eq!(dry.status.code(), Some(2), "{args:?} --dry-run");
        assert_eq!(real.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&dry.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(args[3]), "{args:?}: {err}");
        assert_eq!(err, String::from_utf8_lossy(&real.stderr), "{args:?}");
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

/// `--dry-run` prints the plan — every phase with its workload and bound, and the bound of the
/// whole — exits 0 and writes nothing: no experiment directory, no file in the working
/// directory, not the one `--out` names.
#[test]
fn a_dry_run_prints_every_phase_and_the_bound_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("exp");
    let sim = "sim:vertex2-60g,scale=16";
    let plan = |args: &[&str]| {
        let mut cmd = ssdfade(tmp.path());
        cmd.args(["experiment"]).args(args).arg("--out").arg(&out);
        let text = common::run_ok(cmd.arg("--dry-run"));
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
        text
    };
    let phase_names = |text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| {
                let mut words = l.split_whitespace();
                words.next()?.parse::<usize>().ok()?;
                words.next().map(String::from)
            })
            .collect()
    };

    // Four measures of 10 s and a 1-minute soak: 1m40s at most, and two erases unbounded.
    let text = plan(&[
        "vertex2",
        sim,
        "--measure-duration",
        "10s",
        "--soak-duration",
        "1m",
    ]);
    assert_eq!(phase_names(&text), VERTEX2_PHASES, "{text}");
    assert!(text.contains("At most 1m40s in all"), "{text}");
    assert!(
        text.contains("and 2 phases the plan cannot bound"),
        "{text}"
    );

    let text = plan(&["wsat", sim]);
    assert_eq!(phase_names(&text), ["purge", "wsat"], "{text}");

    // HIR with one burst per wait state: purge, fill, precondition, then per wait state an
    // idle, a burst and a return to baseline.
    let text = plan(&["hir", sim, "--bursts", "1"]);
    let names = phase_names(&text);
    assert_eq!(names.len(), 3 + 5 * 3, "{text}");
    for ws in [5, 10, 15, 25, 50] {
        for part in ["idle1", "burst1", "baseline"] {
            let name = format!("ws{ws}-{part}");
            assert!(names.contains(&name), "no {name} in {text}");
        }
    }
    assert!(text.contains(&format!("{} phases", names.len())), "{text}");

    let text = plan(&["op-sweep", sim, "--span", "100%,80%"]);
    assert_eq!(
        phase_names(&text),
        ["purge-100pct", "span100pct", "purge-80pct", "span80pct"],
        "{text}"
    );
}
