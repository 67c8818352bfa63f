//! Measure and soak on test files: consistent numbers, the run directory, stop rules, signals,
//! crashes and I/O errors.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::{json_ok, root_or_skip, ssdfade, Zram};
use ssdfade::results::Status;
use ssdfade::results::{read_info, read_samples};

fn run_json(dir: &Path, args: &[&str]) -> serde_json::Value {
    json_ok(ssdfade(dir).args(args).arg("--json"))
}

#[test]
fn measure_samples_add_up_to_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let v = run_json(
        dir.path(),
        &[
            "measure",
            "t.img",
            "--size",
            "64M",
            "--qd",
            "4",
            "--duration",
            "2s",
            "--interval",
            "250ms",
            "--out",
            "run",
        ],
    );
    for key in [
        "iops", "mb_per_s", "ops", "bytes", "errors", "cpu_pct", "engine",
    ] {
        assert!(!v[key].is_null(), "--json lacks {key}: {v}");
    }
    for key in ["mean", "p50", "p99", "p999", "max"] {
        assert!(
            v["lat_us"][key].as_f64().unwrap() > 0.0,
            "lat_us.{key} in {v}"
        );
    }
    let samples = read_samples(&dir.path().join("run")).unwrap();
    assert!(
        samples.len() >= 7,
        "{} samples for 2 s at 250 ms",
        samples.len()
    );
    let ops: u64 = samples.iter().map(|s| s.ops).sum();
    assert_eq!(ops, v["ops"].as_u64().unwrap());
    assert!(ops > 0);
    let mut written = 0;
    for (i, s) in samples.iter().enumerate() {
        assert_eq!(s.index, i as u64);
        let seconds = s.t_end_s - s.t_start_s;
        assert!((s.iops - s.ops as f64 / seconds).abs() < 1e-6 * s.iops.max(1.0));
        written += s.bytes;
        assert_eq!(s.bytes_written_total, written);
    }
    let info = read_info(&dir.path().join("run")).unwrap();
    assert_eq!(info.status, Status::Completed);
    assert_eq!(info.workload.bs, 4096);
    assert!(info.command_line.iter().any(|a| a == "measure"));
}

#[test]
fn soak_stops_after_the_byte_budget() {
    let dir = tempfile::tempdir().unwrap();
    let v = run_json(
        dir.path(),
        &[
            "soak", "t.img", "--size", "32M", "--qd", "2", "--bytes", "8M", "--out", "run",
        ],
    );
    assert_eq!(v["bytes"].as_u64().unwrap(), 8 << 20);
    let samples = read_samples(&dir.path().join("run")).unwrap();
    // A fade compares a first and a last interval: a budget written within one has none.
    if samples.len() > 1 {
        assert!(v["fade"]["start_iops"].as_f64().unwrap() > 0.0, "{v}");
    } else {
        assert!(v["fade"].is_null(), "{v}");
    }
    assert_eq!(samples.iter().map(|s| s.bytes).sum::<u64>(), 8 << 20);
    assert_eq!(samples.last().unwrap().bytes_written_total, 8 << 20);
}

#[test]
fn mixed_workload_reports_reads_and_writes_apart() {
    let dir = tempfile::tempdir().unwrap();
    let v = run_json(
        dir.path(),
        &[
            "measure",
            "t.img",
            "--size",
            "32M",
            "--qd",
            "2",
            "--read-pct",
            "50",
            "--duration",
            "1s",
            "--out",
            "run",
        ],
    );
    assert!(
        v["read_iops"].as_f64().unwrap() > 0.0 && v["write_iops"].as_f64().unwrap() > 0.0,
        "{v}"
    );
    let samples = read_samples(&dir.path().join("run")).unwrap();
    let s = &samples[0];
    let (r, w) = (s.read.as_ref().unwrap(), s.write.as_ref().unwrap());
    assert_eq!(r.ops + w.ops, s.ops);
    // Each I/O is a read with probability 1/2: the read count is binomial, and 5 standard
    // deviations either side of n/2 holds for all but one run in ~3.5 million.
    let reads: u64 = samples
        .iter()
        .map(|s| s.read.as_ref().map_or(0, |d| d.ops))
        .sum();
    let n: u64 = samples.iter().map(|s| s.ops).sum();
    assert!(n >= 1000, "too few I/Os to judge the mix: {n}");
    let sd = (n as f64 * 0.25).sqrt();
    assert!(
        (reads as f64 - n as f64 / 2.0).abs() <= 5.0 * sd,
        "--read-pct 50: {reads} reads of {n} I/Os"
    );
}

/// Reads a file through the page cache (our writes were O_DIRECT, so this sees the device data).
fn read_file(path: &Path) -> Vec<u8> {
    let mut data = Vec::new();
    std::fs::File::open(path)
        .unwrap()
        .read_to_end(&mut data)
        .unwrap();
    data
}

#[test]
fn default_pattern_defeats_compression_and_deduplication() {
    let dir = tempfile::tempdir().unwrap();
    // Sequential writes over exactly the span: every byte of the 16 MiB file is written once.
    run_json(
        dir.path(),
        &[
            "measure",
            "t.img",
            "--size",
            "16M",
            "--qd",
            "4",
            "--random-pct",
            "0",
            "--bytes",
            "16M",
            "--out",
            "run",
        ],
    );
    let data = read_file(&dir.path().join("t.img"));
    assert_eq!(data.len(), 16 << 20);

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gz, &data).unwrap();
    let compressed = gz.finish().unwrap().len();
    let saved = 1.0 - compressed as f64 / data.len() as f64;
    assert!(
        saved < 0.01,
        "gzip saved {:.2} % of the written data",
        saved * 100.0
    );

    let mut sectors: Vec<&[u8]> = data.chunks(512).collect();
    let total = sectors.len();
    sectors.sort_unstable();
    sectors.dedup();
    assert_eq!(
        sectors.len(),
        total,
        "{} of {total} sectors repeat another",
        total - sectors.len()
    );
}

#[test]
fn sigint_ends_a_soak_cleanly_with_status_130() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = ssdfade(dir.path())
        .args([
            "soak",
            "t.img",
            "--size",
            "32M",
            "--qd",
            "2",
            "--interval",
            "200ms",
            "--out",
            "run",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let samples_file = dir.path().join("run/samples.jsonl");
    common::wait_for("four samples", 30, || common::lines_in(&samples_file) >= 4);
    std::thread::sleep(Duration::from_millis(100));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::SIGINT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let info = read_info(&dir.path().join("run")).unwrap();
    assert_eq!(info.status, Status::Interrupted);
    let samples = read_samples(&dir.path().join("run")).unwrap();
    assert!(samples.len() >= 4, "{} samples", samples.len());
    let last = samples.last().unwrap();
    assert!(
        last.t_end_s - last.t_start_s < 0.25,
        "the last, partial sample is kept"
    );
    assert_eq!(
        info.summary.unwrap().ops,
        samples.iter().map(|s| s.ops).sum::<u64>()
    );
}

#[test]
fn sigkill_leaves_only_whole_sample_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = ssdfade(dir.path())
        .args([
            "soak",
            "t.img",
            "--size",
            "32M",
            "--qd",
            "4",
            "--interval",
            "100ms",
            "--out",
            "run",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let samples_file = dir.path().join("run/samples.jsonl");
    common::wait_for("five samples", 30, || common::lines_in(&samples_file) >= 5);
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(dir.path().join("run/samples.jsonl")).unwrap();
    assert!(text.lines().count() >= 5, "{} lines", text.lines().count());
    for line in text.lines() {
        serde_json::from_str::<ssdfade::stats::Sample>(line)
            .unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    assert_eq!(
        read_info(&dir.path().join("run")).unwrap().status,
        Status::Running
    );
}

/// A zram device with a small memory limit fails writes with EIO once it is full.
fn full_zram() -> Zram {
    let zram = Zram::new(64 << 20);
    std::fs::write(
        format!("/sys/block/zram{}/mem_limit", zram.index),
        (4u64 << 20).to_string(),
    )
    .unwrap();
    zram
}

#[test]
fn io_error_stops_the_run_and_is_recorded() {
    if !root_or_skip("io_error_stops_the_run_and_is_recorded") {
        return;
    }
    let zram = full_zram();
    let dev = zram.path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args([
            "measure",
            dev,
            "--destroy-data",
            dev,
            "--qd",
            "2",
            "--duration",
            "10s",
            "--out",
            "run",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("write error at offset"), "{stderr}");
    let samples = read_samples(&dir.path().join("run")).unwrap();
    let errors: Vec<_> = samples.iter().flat_map(|s| s.error_events.iter()).collect();
    assert!(!errors.is_empty());
    assert_eq!(errors[0].errno, libc::EIO);
    assert!(errors[0].offset % 4096 == 0 && errors[0].t_s > 0.0);
    assert_eq!(
        read_info(&dir.path().join("run")).unwrap().status,
        Status::Failed
    );
}

#[test]
fn on_error_continue_counts_errors_and_goes_on() {
    if !root_or_skip("on_error_continue_counts_errors_and_goes_on") {
        return;
    }
    let zram = full_zram();
    let dev = zram.path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let v = run_json(
        dir.path(),
        &[
            "measure",
            dev,
            "--destroy-data",
            dev,
            "--qd",
            "2",
            "--duration",
            "1s",
            "--on-error",
            "continue",
            "--out",
            "run",
        ],
    );
    assert!(v["errors"].as_u64().unwrap() > 10, "{v}");
    let samples = read_samples(&dir.path().join("run")).unwrap();
    assert_eq!(
        samples.iter().map(|s| s.errors).sum::<u64>(),
        v["errors"].as_u64().unwrap()
    );
}

/// `--offset` and `--distribution` reach the engine and the record: every sample was written
/// inside `[offset, offset + span)` (the bytes outside keep their old content) and run.json,
/// the report and the workload line name them.
#[test]
fn offset_and_distribution_confine_writes_and_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("t.img");
    std::fs::write(&img, vec![0xA5u8; 16 << 20]).unwrap();
    let p = img.to_str().unwrap();
    run_json(
        dir.path(),
        &[
            "measure",
            p,
            "--destroy-data",
            p,
            "--qd",
            "4",
            "--bytes",
            "32M",
            "--interval",
            "100ms",
            "--offset",
            "25%",
            "--span",
            "4M",
            "--distribution",
            "hotcold:80/20",
            "--out",
            "run",
        ],
    );
    let info = read_info(&dir.path().join("run")).unwrap();
    assert_eq!(info.workload.offset, 4 << 20);
    assert_eq!(info.workload.span, 4 << 20);
    assert_eq!(info.workload.distribution.to_string(), "hotcold:80/20");
    let data = read_file(&img);
    assert!(
        data[..4 << 20].iter().all(|&b| b == 0xA5),
        "written before the offset"
    );
    assert!(
        data[8 << 20..].iter().all(|&b| b == 0xA5),
        "written past the span"
    );
    assert!(
        data[4 << 20..8 << 20].iter().any(|&b| b != 0xA5),
        "nothing written in the span"
    );
    let line = ssdfade::results::workload_line(&info.workload);
    assert!(
        line.contains("random (hotcold:80/20) writes")
            && line.contains("span 4.0 MiB from byte 4194304"),
        "{line}"
    );
    let report = ssdfade(dir.path())
        .args(["report", "run"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(text.contains("hotcold:80/20"), "{text}");
}

/// fio's `zoned` distribution on a real engine: `zoned:0/50:100/50` writes the second half of
/// the span and never the first, and run.json and the workload line name it.
#[test]
fn a_zoned_distribution_writes_only_the_zones_it_gives_io() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("t.img");
    std::fs::write(&img, vec![0xA5u8; 16 << 20]).unwrap();
    let p = img.to_str().unwrap();
    run_json(
        dir.path(),
        &[
            "measure",
            p,
            "--destroy-data",
            p,
            "--qd",
            "4",
            "--bytes",
            "32M",
            "--interval",
            "100ms",
            "--span",
            "8M",
            "--distribution",
            "zoned:0/50:100/50",
            "--out",
            "run",
        ],
    );
    let info = read_info(&dir.path().join("run")).unwrap();
    assert_eq!(info.workload.distribution.to_string(), "zoned:0/50:100/50");
    let data = read_file(&img);
    assert!(
        data[..4 << 20].iter().all(|&b| b == 0xA5),
        "written in the zone given no I/O"
    );
    assert!(
        data[4 << 20..8 << 20]
            .chunks(4096)
            .filter(|block| block.iter().any(|&b| b != 0xA5))
            .count()
            > 900,
        "the zone given every I/O was not written across"
    );
    assert!(
        data[8 << 20..].iter().all(|&b| b == 0xA5),
        "written past the span"
    );
    let line = ssdfade::results::workload_line(&info.workload);
    assert!(line.contains("random (zoned:0/50:100/50) writes"), "{line}");
}

/// A run that fails (here its I/O buffers cannot be had under `ulimit -v`) says why in its
/// record, and `runs` and `report` show that reason, not a bare "failed".
#[test]
fn a_failed_run_says_why_in_runs_and_report() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let out = common::ssdfade_under(w, "-v 400000")
        .args([
            "measure", "f.img", "--size", "256M", "--bs", "64M", "--qd", "8",
        ])
        .args(["--duration", "2s", "--out", "r"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let why = "out of memory allocating an I/O buffer";
    let info = read_info(&w.join("r")).unwrap();
    assert_eq!(info.status, Status::Failed);
    assert!(info.failure().unwrap().contains(why), "{info:?}");
    let runs = ssdfade(w).args(["runs", "."]).output().unwrap();
    let runs = String::from_utf8_lossy(&runs.stdout);
    assert!(runs.contains("failed") && runs.contains(why), "{runs}");
    let report = ssdfade(w).args(["report", "r"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&report.stderr);
    assert_eq!(report.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("failed before its first interval") && stderr.contains(why));
}

/// `runs` names an experiment's phases by the simulated drive's spec, not by the drive state
/// file the experiment keeps in its directory (`…/drive.sim`).
#[test]
fn runs_names_an_experiments_simulated_drive_by_its_spec() {
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args(["experiment", "vertex2", "sim:vertex2-60g,scale=64"])
        .args(["--soak-duration", "2m", "--out", "e"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = ssdfade(dir.path()).args(["runs", "e"]).output().unwrap();
    let table = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success(), "{table}");
    assert!(!table.contains("drive.sim"), "{table}");
    let runs = json_ok(ssdfade(dir.path()).args(["runs", "e", "--json"]));
    let runs = runs.as_array().unwrap();
    assert!(runs.len() >= 7, "{runs:?}");
    for run in runs {
        assert_eq!(run["target"], "sim:vertex2-60g,scale=64", "{run}");
    }
}

/// `ssdfade runs` fits 80 columns: a directory that would run the row past them goes whole on
/// a line of its own; a simulated drive is named without its state file.
#[test]
fn the_runs_listing_fits_80_columns_and_keeps_a_long_directory_whole() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let long = "a-run-directory-whose-name-runs-a-listing-row-past-80-columns";
    common::run_ok(
        ssdfade(w)
            .args(["measure", "sim:vertex2-60g,scale=64", "--duration", "1s"])
            .args(["--out", long]),
    );
    common::run_ok(
        ssdfade(w)
            .args(["measure", "sim:vertex2-60g,scale=64", "--duration", "1s"])
            .args(["--out", "r"]),
    );
    // An experiment's phases run on the drive's state file: the listing names the drive.
    common::run_ok(
        ssdfade(w)
            .args(["sweep", "sim:vertex2-60g,scale=64", "--qd", "1"])
            .args(["--point-duration", "1s", "--out", "s"]),
    );
    let out = ssdfade(w).args(["runs", "."]).output().unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.lines().all(|l| l.chars().count() <= 80), "{table}");
    assert!(table.lines().any(|l| l.trim() == long), "{table}");
    assert!(
        !table.contains("drive.sim"),
        "a state file as the target: {table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("completed") && l.ends_with("  r")),
        "a short directory stays on its row: {table}"
    );
}
