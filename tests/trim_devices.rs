//! `--trim-pct` on devices and files the tests create: the trims reach the target (zram frees
//! the pages, a loop device's backing file and a test file lose their blocks), the samples and
//! run.json count them apart from reads and writes, and a target without discard is refused
//! before anything is written.

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use common::{json_ok, root_or_skip, skip, ssdfade, Loop, Zram};

const SIZE: u64 = 64 << 20;

/// Runs `measure` on `target` with `args` into `dir/out` and returns its --json summary, after
/// checking that the samples' trims add up to it.
fn measure(dir: &Path, target: &str, out: &str, args: &[&str]) -> serde_json::Value {
    let v = json_ok(
        ssdfade(dir)
            .args(["measure", target, "--destroy-data", target, "--bs", "64k"])
            .args(args)
            .args(["--interval", "200ms", "--json", "--out", out]),
    );
    assert_eq!(v["errors"], 0, "{v}");
    let samples = ssdfade::results::read_samples(&dir.join(out)).unwrap();
    let trims: u64 = samples
        .iter()
        .map(|s| s.trim.as_ref().map_or(0, |t| t.ops))
        .sum();
    assert_eq!(trims, v["trim"]["ops"].as_u64().unwrap_or(0), "{v}");
    // Reads and writes are the totals; trims are not in them.
    let ops: u64 = samples.iter().map(|s| s.ops).sum();
    assert_eq!(ops, v["ops"].as_u64().unwrap());
    v
}

/// Writes the whole of `target` sequentially, then trims the whole of it sequentially with
/// `engine`; returns what `stored` said after each.
fn fill_then_trim(dir: &Path, target: &str, engine: &str, stored: impl Fn() -> u64) -> (u64, u64) {
    let bytes = SIZE.to_string();
    // One worker: every I/O after the run's start, each block once.
    let seq = [
        "--random-pct",
        "0",
        "--bytes",
        &bytes,
        "--engine",
        engine,
        "--qd",
        "1",
    ];
    let w = measure(dir, target, &format!("fill-{engine}"), &seq);
    assert!(w.get("trim").is_none(), "{w}");
    let filled = stored();
    let t = measure(
        dir,
        target,
        &format!("trim-{engine}"),
        &[&seq[..], &["--trim-pct", "100"]].concat(),
    );
    // Every 64 KiB block trimmed once, counted as trims and nothing else.
    assert_eq!(t["trim"]["ops"], SIZE / 65536, "{t}");
    assert_eq!(t["trim"]["bytes"], SIZE, "{t}");
    assert_eq!(t["ops"], 0, "{t}");
    assert!(t["trim"]["lat_us"]["max"].as_f64().unwrap() > 0.0, "{t}");
    (filled, stored())
}

/// zram's `mm_stat`: bytes of data it holds (its first field, orig_data_size).
fn zram_data(index: u32) -> u64 {
    let text = std::fs::read_to_string(format!("/sys/block/zram{index}/mm_stat")).unwrap();
    text.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn trims_free_zram_pages_with_either_engine() {
    if !root_or_skip("trims_free_zram_pages_with_either_engine") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for engine in ["threads", "uring"] {
        let zram = Zram::new(SIZE);
        let target = zram.path.to_str().unwrap();
        let (filled, trimmed) =
            fill_then_trim(dir.path(), target, engine, || zram_data(zram.index));
        eprintln!("zram {engine}: {filled} bytes held after the fill, {trimmed} after the trims");
        assert_eq!(filled, SIZE, "{engine}: the fill wrote every page");
        assert_eq!(trimmed, 0, "{engine}: the trims freed every page");
    }
}

#[test]
fn trims_punch_holes_in_a_loop_devices_file_and_in_a_test_file() {
    if !root_or_skip("trims_punch_holes_in_a_loop_devices_file_and_in_a_test_file") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lo = Loop::new(SIZE);
    let backing = lo.backing();
    let blocks = |p: &Path| std::fs::metadata(p).unwrap().blocks() * 512;
    let target = lo.path.to_str().unwrap();
    let (filled, trimmed) = fill_then_trim(dir.path(), target, "threads", || blocks(&backing));
    eprintln!("loop: backing file {filled} bytes allocated after the fill, {trimmed} after");
    assert!(filled >= SIZE, "{filled}");
    assert!(trimmed < SIZE / 64, "the holes were punched: {trimmed}");

    let file = dir.path().join("test.img");
    let size = SIZE.to_string();
    let name = file.to_str().unwrap();
    json_ok(
        ssdfade(dir.path())
            .args(["measure", name, "--destroy-data", name, "--size", &size])
            .args([
                "--random-pct",
                "0",
                "--bytes",
                &size,
                "--bs",
                "64k",
                "--qd",
                "1",
            ])
            .args(["--json", "--out", "file-fill"]),
    );
    let filled = blocks(&file);
    let t = measure(
        dir.path(),
        name,
        "file-trim",
        &[
            "--random-pct",
            "0",
            "--bytes",
            &size,
            "--trim-pct",
            "100",
            "--qd",
            "1",
        ],
    );
    assert_eq!(t["trim"]["ops"], SIZE / 65536, "{t}");
    let trimmed = blocks(&file);
    eprintln!("file: {filled} bytes allocated after the fill, {trimmed} after the trims");
    assert!(filled >= SIZE && trimmed < SIZE / 64, "{filled} {trimmed}");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), SIZE, "size kept");
}

#[test]
fn a_mix_counts_its_trims_apart_at_their_share() {
    if !root_or_skip("a_mix_counts_its_trims_apart_at_their_share") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let zram = Zram::new(SIZE);
    let target = zram.path.to_str().unwrap();
    let v = measure(
        dir.path(),
        target,
        "mix",
        &[
            "--read-pct",
            "20",
            "--trim-pct",
            "30",
            "--duration",
            "1s",
            "--qd",
            "4",
        ],
    );
    let trims = v["trim"]["ops"].as_f64().unwrap();
    let reads = v["read_iops"].as_f64().unwrap() * v["seconds"].as_f64().unwrap();
    let all = trims + v["ops"].as_f64().unwrap();
    assert!(all > 1000.0, "{v}");
    assert!(
        (trims / all - 0.30).abs() < 0.03,
        "trim share {}: {v}",
        trims / all
    );
    assert!(
        (reads / all - 0.20).abs() < 0.03,
        "read share {}: {v}",
        reads / all
    );
    let info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("mix/run.json")).unwrap()).unwrap();
    assert_eq!(info["workload"]["trim_pct"], 30);
    assert_eq!(info["summary"]["trim"], v["trim"]);
    common::run_ok(ssdfade(dir.path()).args(["report", "mix"]));
    let report = std::fs::read_to_string(dir.path().join("mix/report.md")).unwrap();
    let row = report
        .lines()
        .find(|l| l.contains("Reads / trims / writes"));
    assert!(
        row.is_some_and(|r| r.contains("20 % / 30 % / 50 %")),
        "{report}"
    );
    assert!(report.contains("Trims (not in the IOPS"), "{report}");
}

#[test]
fn a_device_without_discard_is_refused_before_anything_is_written() {
    if !root_or_skip("a_device_without_discard_is_refused_before_anything_is_written") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A zram device of the test's own, removed after it: the discard limit set here dies with it.
    let zram = Zram::new(SIZE);
    let target = zram.path.to_str().unwrap();
    // A share over the rest: one line, exit 2.
    let out = ssdfade(dir.path())
        .args([
            "measure",
            target,
            "--destroy-data",
            target,
            "--read-pct",
            "80",
        ])
        .args(["--trim-pct", "30", "--duration", "1s", "--out", "refused"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("plus --trim-pct 30 is over 100"),
        "{stderr}"
    );
    let limit = format!("/sys/block/zram{}/queue/discard_max_bytes", zram.index);
    if std::fs::write(&limit, "0").is_err() {
        skip(
            "a_device_without_discard_is_refused_before_anything_is_written",
            "this kernel does not let discard_max_bytes be set to 0",
        );
        return;
    }
    let out = ssdfade(dir.path())
        .args([
            "measure",
            target,
            "--destroy-data",
            target,
            "--trim-pct",
            "10",
        ])
        .args(["--duration", "1s", "--out", "refused"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("does not take discards"), "{stderr}");
    assert!(!dir.path().join("refused").exists(), "nothing written");
    assert_eq!(zram_data(zram.index), 0, "nothing written to the device");
}
