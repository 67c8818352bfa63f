//! `--jobs N` (fio's numjobs × iodepth): N submitters, each with its own queue of `--qd`, whose
//! I/Os land in one run's samples and one latency histogram. Checked from the raw files: the
//! histogram's I/O count is the samples' sum, and Little's law (I/Os × mean latency ÷ time)
//! gives back jobs × QD I/Os in flight; on a simulated drive, which sees the jobs' queues as
//! one, four jobs of QD 4 run as one of QD 16.

mod common;

use std::path::Path;

use common::{in_flight, json_ok, measure_json, root_or_skip, ssdfade, Zram};
use serde_json::Value;

/// The I/Os the run's latency.json counted.
fn histogram_count(run: &Path) -> u64 {
    let v: Value = serde_json::from_slice(&std::fs::read(run.join("latency.json")).unwrap())
        .expect("latency.json");
    v["all"]["count"].as_u64().expect("latency.json all.count")
}

/// The run's workload as run.json records it: (jobs, qd), jobs 1 when absent.
fn recorded_jobs_and_qd(run: &Path) -> (u64, u64) {
    let v: Value = serde_json::from_slice(&std::fs::read(run.join("run.json")).unwrap()).unwrap();
    let w = &v["workload"];
    (w["jobs"].as_u64().unwrap_or(1), w["qd"].as_u64().unwrap())
}

/// A `jobs` × `qd` random-write measure with `engine` on a fresh zram device: one histogram
/// holding every sample's I/Os, jobs recorded, jobs × QD in flight.
fn jobs_merge_into_one_run(engine: &str, jobs: u32, qd: u32) {
    let zram = Zram::new(512 << 20);
    let dir = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    let v = measure_json(
        dir.path(),
        dev,
        &format!("--engine {engine} --jobs {jobs} --qd {qd} --duration 4s --interval 1s --out run"),
    );
    let what = format!("{engine} {jobs} jobs × QD {qd}");
    assert_eq!(v["engine"], engine, "{what}: {v}");
    assert_eq!(v["errors"], 0, "{what}: {v}");
    let run = dir.path().join("run");
    assert_eq!(
        recorded_jobs_and_qd(&run),
        (u64::from(jobs), u64::from(qd)),
        "{what}"
    );
    let samples = ssdfade::results::read_samples(&run).unwrap();
    let ops: u64 = samples.iter().map(|s| s.ops).sum();
    assert!(ops > 1000, "{what}: {ops} I/Os");
    assert_eq!(
        histogram_count(&run),
        ops,
        "{what}: latency.json vs samples"
    );
    assert_eq!(ops, v["ops"].as_u64().unwrap(), "{what}: samples vs total");
    // The last interval drains the queues: left out (see tests/threads_qd.rs).
    let outstanding = f64::from(jobs * qd);
    let seen = in_flight(&samples[..samples.len() - 1]);
    assert!(
        (seen - outstanding).abs() <= outstanding * 0.2,
        "{what}: {seen:.1} I/Os in flight by Little's law, {outstanding} asked"
    );
}

/// One test for every engine and shape, so that they do not run at once on two CPUs.
#[test]
fn jobs_on_zram_merge_into_one_run_and_keep_jobs_times_qd_in_flight() {
    if !root_or_skip("jobs_on_zram_merge_into_one_run_and_keep_jobs_times_qd_in_flight") {
        return;
    }
    jobs_merge_into_one_run("uring", 4, 16);
    jobs_merge_into_one_run("threads", 2, 8);
}

#[test]
fn four_jobs_of_qd_4_run_on_a_simulated_drive_as_one_job_of_qd_16() {
    let dir = tempfile::tempdir().unwrap();
    let target = "sim:dc-ssd-400g,capacity=8GB,scale=64";
    let mut iops = Vec::new();
    for (jobs, qd) in [("4", "4"), ("1", "16")] {
        let out = format!("run-{jobs}x{qd}");
        let v = json_ok(ssdfade(dir.path()).args([
            "measure",
            target,
            "--jobs",
            jobs,
            "--qd",
            qd,
            "--duration",
            "4s",
            "--seed",
            "3",
            "--json",
            "--out",
            &out,
        ]));
        let run = dir.path().join(&out);
        assert_eq!(
            recorded_jobs_and_qd(&run),
            (jobs.parse().unwrap(), qd.parse().unwrap())
        );
        let samples = ssdfade::results::read_samples(&run).unwrap();
        let ops: u64 = samples.iter().map(|s| s.ops).sum();
        assert_eq!(histogram_count(&run), ops, "{jobs} × {qd}");
        // The model keeps jobs × QD outstanding: 16 in both runs.
        let seen = in_flight(&samples);
        assert!(
            (seen - 16.0).abs() < 16.0 * 0.05,
            "{jobs} × {qd}: {seen:.2}"
        );
        iops.push(v["iops"].as_f64().unwrap());
    }
    assert!(
        (iops[0] / iops[1] - 1.0).abs() < 0.02,
        "4 jobs × QD 4 vs 1 × QD 16: {iops:?} IOPS"
    );
}

/// `sweep --jobs 1,2 --qd 1,4` on a simulated drive: four points named `jobsJ-qdQ`, the jobs
/// outside; each point measured what a plain `measure --jobs J --qd Q` measures with the point's
/// seed on a fresh drive (random reads leave the drive as they found it); Little's law's column
/// counts jobs × QD; the terminal table names each row `J×Q`. `--jobs 1` prints what the sweep
/// without `--jobs` prints, and writes the same sweep.json.
#[test]
fn a_jobs_by_qd_sweep_measures_each_cell_as_a_plain_measure_does() {
    let dir = tempfile::tempdir().unwrap();
    let target = "sim:dc-ssd-400g,capacity=8GB,scale=64";
    let sweep = |out: &str, extra: &[&str]| {
        common::run_ok(
            ssdfade(dir.path())
                .args(["sweep", target, "--qd", "1,4", "--read-pct", "100"])
                .args(["--point-duration", "2s", "--seed", "11", "--out", out])
                .args(extra),
        )
    };
    let text = sweep("matrix", &["--jobs", "1,2"]);
    let table: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("matrix").join("sweep.json")).unwrap(),
    )
    .unwrap();
    let points = table["points"].as_array().unwrap();
    let cells: Vec<(u64, u64)> = points
        .iter()
        .map(|p| (p["jobs"].as_u64().unwrap_or(1), p["qd"].as_u64().unwrap()))
        .collect();
    assert_eq!(cells, [(1, 1), (1, 4), (2, 1), (2, 4)], "{table}");
    for (p, &(jobs, qd)) in points.iter().zip(&cells) {
        assert_eq!(p["name"], format!("jobs{jobs}-qd{qd}"), "{p}");
        let run = dir
            .path()
            .join("matrix")
            .join(p["run_dir"].as_str().unwrap());
        assert_eq!(recorded_jobs_and_qd(&run), (jobs, qd), "{p}");
        let seed = serde_json::from_slice::<Value>(&std::fs::read(run.join("run.json")).unwrap())
            .unwrap()["workload"]["seed"]
            .as_u64()
            .unwrap();
        let out = format!("plain-{jobs}x{qd}");
        let plain = json_ok(ssdfade(dir.path()).args([
            "measure",
            target,
            "--jobs",
            &jobs.to_string(),
            "--qd",
            &qd.to_string(),
            "--read-pct",
            "100",
            "--duration",
            "2s",
            "--seed",
            &seed.to_string(),
            "--json",
            "--out",
            &out,
        ]));
        let iops = p["iops"].as_f64().unwrap();
        assert_eq!(
            iops,
            plain["iops"].as_f64().unwrap(),
            "{jobs}×{qd}: {p} vs {plain}"
        );
        let little = 1000.0 * (jobs * qd) as f64 / iops;
        assert!(
            (p["little_ms"].as_f64().unwrap() / little - 1.0).abs() < 1e-9,
            "{jobs}×{qd}: {p}"
        );
        let row = format!("{jobs}×{qd} {:>9.0} ", iops);
        assert!(text.contains(&row), "no row '{row}' in\n{text}");
    }
    assert!(text.contains("jobs×QD"), "{text}");

    // One job count is today's sweep: the same table and sweep.json.
    let plain_text = sweep("one", &[]);
    let one_text = sweep("one-jobs", &["--jobs", "1"]);
    let strip = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("Experiment directory"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&plain_text), strip(&one_text));
    assert!(plain_text.contains("       QD      IOPS"), "{plain_text}");
    let read = |d: &str| std::fs::read(dir.path().join(d).join("sweep.json")).unwrap();
    assert_eq!(read("one"), read("one-jobs"));
}
