//! Tests written to fail on plausible bugs that once passed the whole suite: each checks what
//! was actually done (the bytes on the target, the blocks the backing file holds, the drive's
//! mapping, the samples' lengths) rather than an exit status.
//!
//! - a Ctrl-C that drops the partial last sample;
//! - an engine that writes one buffer over and over (on every engine, for every pattern);
//! - a simulated TRIM that is counted but never reaches the FTL;
//! - a fade whose end is the lowest interval rather than the last;
//! - `--method trim` sending BLKZEROOUT instead of BLKDISCARD.

mod common;

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::{json_ok, lines_in, root_or_skip, run_ok, ssdfade, wait_for, Loop};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use ssdfade::results::{read_info, read_samples, Status};

fn signal(child: &std::process::Child, sig: Signal) {
    kill(Pid::from_raw(child.id() as i32), sig).unwrap();
}

#[test]
fn ctrl_c_keeps_the_partial_last_sample() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = ssdfade(dir.path())
        .args(["soak", "t.img", "--size", "32M", "--qd", "2"])
        .args(["--interval", "1s", "--out", "run"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let samples_file = dir.path().join("run/samples.jsonl");
    wait_for("two samples", 30, || lines_in(&samples_file) >= 2);
    // Interrupt in the middle of the third interval.
    std::thread::sleep(Duration::from_millis(400));
    signal(&child, Signal::SIGINT);
    assert_eq!(child.wait().unwrap().code(), Some(130));

    let run = dir.path().join("run");
    let samples = read_samples(&run).unwrap();
    let info = read_info(&run).unwrap();
    assert_eq!(info.status, Status::Interrupted);
    let last = samples.last().unwrap();
    let spans: Vec<(f64, f64)> = samples.iter().map(|s| (s.t_start_s, s.t_end_s)).collect();
    let length = last.t_end_s - last.t_start_s;
    assert!(
        samples.len() >= 3 && length > 0.05 && length < 0.95,
        "the interrupted interval must be the last sample, shorter than the 1 s interval: {spans:?}"
    );
    assert!(
        (last.t_start_s - (samples.len() - 1) as f64).abs() < 1e-6,
        "{spans:?}"
    );
    assert!(last.ops > 0, "the partial sample holds the I/O done in it");
    // Its rate is a rate over its own length: not diluted to a whole interval.
    let rate = last.ops as f64 / length;
    assert!(
        (last.iops - rate).abs() <= 0.01 * rate,
        "iops {} vs {rate}",
        last.iops
    );
    let summary = info.summary.unwrap();
    assert_eq!(summary.ops, samples.iter().map(|s| s.ops).sum::<u64>());
    assert!((summary.seconds - last.t_end_s).abs() < 1e-6, "{summary:?}");
}

fn read_all(path: &Path) -> Vec<u8> {
    let mut data = Vec::new();
    std::fs::File::open(path)
        .unwrap()
        .read_to_end(&mut data)
        .unwrap();
    data
}

fn gzip_saving(data: &[u8]) -> f64 {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, data).unwrap();
    1.0 - gz.finish().unwrap().len() as f64 / data.len() as f64
}

fn distinct(chunks: &[&[u8]]) -> usize {
    let mut sorted = chunks.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    sorted.len()
}

/// Writes every 4 KiB block of an 8 MiB file exactly once with `engine` and `pattern`, and
/// returns the file's bytes.
fn written_once(engine: &str, pattern: &str) -> Vec<u8> {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let v = json_ok(ssdfade(dir.path()).args([
        "measure",
        "t.img",
        "--size",
        "8M",
        "--engine",
        engine,
        "--pattern",
        pattern,
        "--qd",
        "8",
        "--bs",
        "4k",
        "--random-pct",
        "0",
        "--bytes",
        "8M",
        "--json",
        "--out",
        "run",
    ]));
    assert_eq!(v["engine"], engine, "{v}");
    assert_eq!(v["bytes"], 8 << 20, "{v}");
    let data = read_all(&dir.path().join("t.img"));
    assert_eq!(data.len(), 8 << 20);
    data
}

#[test]
fn every_engine_writes_fresh_content_with_every_pattern() {
    for engine in ["threads", "uring"] {
        let what = |p: &str| format!("--engine {engine} --pattern {p}");

        let data = written_once(engine, "random");
        let sectors: Vec<&[u8]> = data.chunks(512).collect();
        let unique = distinct(&sectors);
        assert_eq!(
            unique,
            sectors.len(),
            "{}: repeated sectors",
            what("random")
        );
        let saved = gzip_saving(&data);
        assert!(saved < 0.01, "{}: gzip saved {saved:.3}", what("random"));

        let data = written_once(engine, "compressible:50");
        let blocks: Vec<&[u8]> = data.chunks(4096).collect();
        assert_eq!(
            distinct(&blocks),
            blocks.len(),
            "{}: repeated blocks",
            what("compressible:50")
        );
        let saved = gzip_saving(&data);
        assert!(
            (0.4..0.6).contains(&saved),
            "{}: gzip saved {saved:.3}, not about half",
            what("compressible:50")
        );

        let data = written_once(engine, "dedupe:50");
        let blocks: Vec<&[u8]> = data.chunks(4096).collect();
        let unique = distinct(&blocks) as f64 / blocks.len() as f64;
        assert!(
            (0.4..0.6).contains(&unique),
            "{}: {:.1} % of blocks are unique, not about half",
            what("dedupe:50"),
            unique * 100.0
        );

        let data = written_once(engine, "repeat");
        for (i, block) in data.chunks(4096).enumerate() {
            assert!(
                block.iter().all(|&b| b == block[0]),
                "{}: block {i} is not one repeated byte",
                what("repeat")
            );
        }

        let data = written_once(engine, "zero");
        assert!(data.iter().all(|&b| b == 0), "{}", what("zero"));
    }
}

/// Bytes the simulated drive holds data in, from `info --json`'s wear note.
fn sim_mapped_bytes(dir: &Path, target: &str) -> u64 {
    let v = json_ok(ssdfade(dir).args(["info", target, "--json"]));
    let notes = v["wear"]["notes"].to_string();
    let end = notes
        .find(" bytes mapped")
        .unwrap_or_else(|| panic!("no 'bytes mapped' in {notes}"));
    let start = notes[..end].rfind(' ').unwrap() + 1;
    notes[start..end].parse().unwrap()
}

fn sim_iops(dir: &Path, target: &str, out: &str) -> f64 {
    let v = json_ok(ssdfade(dir).args([
        "measure",
        target,
        "--duration",
        "10s",
        "--align",
        "512",
        "--json",
        "--out",
        out,
    ]));
    v["iops"].as_f64().unwrap()
}

/// SandForce's TRIM after incompressible data (the aged drive's) frees only part of the
/// flash: some speed comes back, less than a secure erase restores.
#[test]
fn sim_trim_unmaps_the_drive_and_restores_part_of_its_speed() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("v2.state");
    let target = format!("sim:vertex2-60g,state={}", state.display());
    let aged = sim_iops(dir.path(), &target, "before");
    let size = 59_999_997_952u64;
    let mapped = sim_mapped_bytes(dir.path(), &target);
    assert!(mapped > size / 2, "an aged drive holds data: {mapped}");
    let out = ssdfade(dir.path())
        .args(["erase", &target, "--method", "trim", "--out", "erase"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        sim_mapped_bytes(dir.path(), &target),
        0,
        "a whole-drive TRIM leaves nothing mapped"
    );
    let trimmed = sim_iops(dir.path(), &target, "after");
    let out = ssdfade(dir.path())
        .args(["erase", &target, "--method", "sim", "--out", "erase2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let erased = sim_iops(dir.path(), &target, "erased");
    assert!(
        trimmed > aged * 1.05 && erased > trimmed * 1.2,
        "aged {aged:.0} IOPS, after TRIM {trimmed:.0}, after secure erase {erased:.0}"
    );
}

#[test]
fn fade_reports_the_last_interval_as_its_end_not_the_lowest() {
    let dir = tempfile::tempdir().unwrap();
    let child = ssdfade(dir.path())
        .args(["soak", "t.img", "--size", "32M", "--qd", "2", "--bs", "4k"])
        .args([
            "--duration",
            "6s",
            "--interval",
            "1s",
            "--json",
            "--out",
            "run",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Stall the whole process for most of its third interval, so that one in the middle is
    // the slowest and the last is not.
    let samples_file = dir.path().join("run/samples.jsonl");
    wait_for("two samples", 30, || lines_in(&samples_file) >= 2);
    std::thread::sleep(Duration::from_millis(100));
    common::stop_for(child.id(), Duration::from_millis(700));
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fade = &v["fade"];

    let samples = read_samples(&dir.path().join("run")).unwrap();
    let iops: Vec<f64> = samples.iter().map(|s| s.iops).collect();
    let lowest = iops.iter().copied().fold(f64::INFINITY, f64::min);
    let last_full = samples
        .iter()
        .rev()
        .find(|s| s.t_end_s - s.t_start_s >= 0.999)
        .unwrap()
        .iops;
    assert!(
        lowest < 0.8 * last_full,
        "the stall did not make a slow middle interval: {iops:?}"
    );
    let close = |field: &str, want: f64| {
        let got = fade[field].as_f64().unwrap();
        assert!(
            (got - want).abs() <= 1e-6 * want.max(1.0),
            "fade.{field} = {got}, want {want} (samples {iops:?})"
        );
    };
    let (start, end) = common::window_medians(&samples, 1.0);
    close("start_iops", start);
    close("end_iops", end);
    close("min_iops", lowest);
    close("end_pct_of_start", 100.0 * end / start);
}

/// Blocks of 512 bytes the file holds on its filesystem.
fn allocated(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().blocks()
}

#[test]
fn trim_discards_rather_than_writes_zeros() {
    if !root_or_skip("trim_discards_rather_than_writes_zeros") {
        return;
    }
    // A loop device passes a discard on as a hole punched in its file, which frees the file's
    // blocks; BLKZEROOUT asks it to keep them allocated (REQ_NOUNMAP) and writes zeros.
    let lo = Loop::new(32 << 20);
    let dev = lo.path.to_str().unwrap();
    run_ok(std::process::Command::new("dd").args([
        "if=/dev/urandom",
        &format!("of={dev}"),
        "bs=1M",
        "count=32",
        "oflag=direct",
        "status=none",
    ]));
    let before = allocated(&lo.backing());
    assert!(
        before >= (32 << 20) / 512,
        "backing file holds {before} blocks"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args(["erase", dev, "--method", "trim", "--destroy-data", dev])
        .args(["--out", "rec"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = allocated(&lo.backing());
    assert!(
        after < before / 10,
        "after --method trim the backing file still holds {after} of {before} blocks"
    );
}
