//! `--bssplit` (fio's bssplit): each size's share of the I/Os, counted from an strace of the
//! engine's system calls (not from the code that draws them), the bytes as the sum of the
//! sizes, offsets aligned to each I/O's size, the simulated drive's sizes, and the refusals.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::{json_ok, root_or_skip, skip, ssdfade, Loop, Zram};

/// SNIA's enterprise composite workload's block sizes (PTS-E 1.1).
const ECW: &str = "512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3";

/// What a `measure` run under strace moved: per size, the I/Os and their total bytes, and
/// every offset checked against its size; the run's own JSON summary beside it.
fn traced_run(
    dir: &Path,
    target: &str,
    split: &str,
    extra: &[&str],
) -> Option<(BTreeMap<u64, u64>, serde_json::Value)> {
    if Command::new("strace").arg("-V").output().is_err() {
        skip("traced_run", "strace is not installed");
        return None;
    }
    let trace = dir.join("trace");
    let out = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=pwrite64,pread64",
            "-e",
            "signal=none",
            "-s",
            "0",
            "-o",
        ])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_ssdfade"))
        .args([
            "measure",
            target,
            "--destroy-data",
            target,
            "--engine",
            "threads",
            "--qd",
            "1",
        ])
        .args(["--bssplit", split, "--json", "--out"])
        .arg(dir.join("run"))
        .args(extra)
        .current_dir(dir)
        .output()
        .expect("strace runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json");
    // `pwrite64(5, ""..., 4096, 8192) = 4096`, one line per call at QD 1; the target's
    // descriptor is the one most calls go to (the loader reads the binary with pread64 too).
    let mut calls: BTreeMap<u64, Vec<(u64, u64, String)>> = BTreeMap::new();
    for line in std::fs::read_to_string(&trace).unwrap().lines() {
        let Some(at) = line.find("pwrite64(").or_else(|| line.find("pread64(")) else {
            continue;
        };
        let call = &line[at..];
        let (Some(open), Some(close)) = (call.find('('), call.rfind(')')) else {
            continue;
        };
        let args: Vec<&str> = call[open + 1..close].split(", ").collect();
        let rc = call[close + 1..]
            .trim_start()
            .trim_start_matches('=')
            .trim();
        let number = |s: &str| s.trim().parse::<u64>().unwrap_or_else(|_| panic!("{line}"));
        let (fd, len, offset) = (
            number(args[0]),
            number(args[args.len() - 2]),
            number(args[args.len() - 1]),
        );
        assert_eq!(rc.parse::<u64>().ok(), Some(len), "{line}");
        calls
            .entry(fd)
            .or_default()
            .push((len, offset, line.to_string()));
    }
    let io = calls
        .into_values()
        .max_by_key(Vec::len)
        .expect("traced I/O");
    let mut sizes = BTreeMap::new();
    for (len, offset, line) in io {
        assert_eq!(
            offset % len,
            0,
            "offset not a multiple of the I/O's size: {line}"
        );
        *sizes.entry(len).or_insert(0u64) += 1;
    }
    Some((sizes, summary))
}

/// Each size's share of the traced I/Os within `tolerance` percent of the split's, and the
/// run's ops and bytes those of the trace.
fn check_shares(
    sizes: &BTreeMap<u64, u64>,
    summary: &serde_json::Value,
    split: &[(u64, f64)],
    tolerance: f64,
) {
    let ios: u64 = sizes.values().sum();
    let bytes: u64 = sizes.iter().map(|(s, n)| s * n).sum();
    assert!(ios > 10_000, "{ios} I/Os traced");
    assert_eq!(
        summary["ops"].as_u64(),
        Some(ios),
        "ops counted against the trace"
    );
    assert_eq!(
        summary["bytes"].as_u64(),
        Some(bytes),
        "bytes = the sum of the sizes moved"
    );
    assert_eq!(sizes.len(), split.len(), "sizes seen: {sizes:?}");
    for &(size, pct) in split {
        let got = sizes.get(&size).copied().unwrap_or(0) as f64 * 100.0 / ios as f64;
        assert!(
            (got - pct).abs() <= tolerance,
            "{size} B: {got:.2} % of the I/Os, split {pct} %"
        );
    }
}

#[test]
fn each_size_takes_its_share_on_a_512_byte_loop_device() {
    if !root_or_skip("each_size_takes_its_share_on_a_512_byte_loop_device") {
        return;
    }
    let dev = Loop::new(256 << 20);
    let dir = tempfile::tempdir().unwrap();
    let target = dev.path.to_str().unwrap();
    let Some((sizes, summary)) = traced_run(
        dir.path(),
        target,
        ECW,
        &[
            "--read-pct",
            "40",
            "--distribution",
            "zoned:50/5:30/15:20/80",
            "--bytes",
            "200M",
        ],
    ) else {
        return;
    };
    let split = [
        (512, 4.0),
        (1024, 1.0),
        (1536, 1.0),
        (2048, 1.0),
        (2560, 1.0),
        (3072, 1.0),
        (3584, 1.0),
        (4096, 67.0),
        (8192, 10.0),
        (16384, 7.0),
        (32768, 3.0),
        (65536, 3.0),
    ];
    check_shares(&sizes, &summary, &split, 1.0);
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("run/run.json")).unwrap()).unwrap();
    assert_eq!(
        run["workload"]["bssplit"].as_array().map(Vec::len),
        Some(12)
    );
    assert_eq!(run["workload"]["bs"], 65536, "buffers of the largest size");
    assert_eq!(
        run["workload"]["align"], 512,
        "offsets drawn on the smallest size's grid"
    );
}

#[test]
fn each_size_takes_its_share_on_zram_with_a_blank_percent() {
    if !root_or_skip("each_size_takes_its_share_on_zram_with_a_blank_percent") {
        return;
    }
    let zram = Zram::new(256 << 20);
    let dir = tempfile::tempdir().unwrap();
    let target = zram.path.to_str().unwrap();
    // The blank percents share the 30 the first leaves: 15 each.
    let Some((sizes, summary)) =
        traced_run(dir.path(), target, "4k/70:64k/:128k/", &["--bytes", "600M"])
    else {
        return;
    };
    check_shares(
        &sizes,
        &summary,
        &[(4096, 70.0), (65536, 15.0), (131072, 15.0)],
        1.5,
    );
}

#[test]
fn a_simulated_drive_moves_the_split_sizes() {
    let dir = tempfile::tempdir().unwrap();
    // The mean size of what the drive served is the split's, sub-page sizes included.
    let run = |split: &str| {
        let v = json_ok(
            ssdfade(dir.path())
                .args([
                    "measure",
                    "sim:ram-8g,scale=1",
                    "--bssplit",
                    split,
                    "--qd",
                    "32",
                    "--duration",
                    "20s",
                    "--out",
                ])
                .arg(dir.path().join(split.replace(['/', ':'], "_")))
                .arg("--json"),
        );
        let (ops, bytes) = (v["ops"].as_f64().unwrap(), v["bytes"].as_f64().unwrap());
        bytes / ops
    };
    let mean = run("4k/50:64k/50");
    assert!(
        (mean / 34816.0 - 1.0).abs() < 0.02,
        "mean size {mean}, split 34816"
    );
    let mean = run("512/50:8k/50");
    assert!(
        (mean / 4352.0 - 1.0).abs() < 0.02,
        "mean size {mean}, split 4352"
    );
}

#[test]
fn bad_splits_are_refused_in_one_line_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let f = file.to_str().unwrap();
    let refused = |args: &[&str], says: &str| {
        let out = ssdfade(dir.path())
            .args([
                "measure",
                f,
                "--size",
                "64M",
                "--destroy-data",
                f,
                "--duration",
                "1s",
                "--out",
            ])
            .arg(dir.path().join("run"))
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!dir.path().join("run").exists(), "{args:?} wrote a run");
    };
    refused(&["--bssplit", "4k/60:8k/30"], "the percents sum to 90");
    refused(&["--bssplit", "4k/50:8k/50", "--bs", "8k"], "--bs");
    refused(&["--bssplit", "4k/50:8k/50", "--align", "4k"], "--align");
    refused(
        &["--bssplit", "4k/50:8k/50", "--verify"],
        "--bssplit with --verify",
    );
    refused(
        &["--bssplit", "4k/50:8k/50", "--rate", "40M"],
        "--rate-iops",
    );
    if !root_or_skip("bad_splits_are_refused_in_one_line_and_write_nothing") {
        return;
    }
    // zram's logical block is 4 KiB: a 512-byte I/O cannot go to it with O_DIRECT.
    let zram = Zram::new(64 << 20);
    let dev = zram.path.to_str().unwrap();
    let out = ssdfade(dir.path())
        .args([
            "measure",
            dev,
            "--destroy-data",
            dev,
            "--duration",
            "1s",
            "--bssplit",
            "512/10:4k/90",
            "--out",
        ])
        .arg(dir.path().join("zrun"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(
            "--bssplit size 512 is not a multiple of the target's logical block size 4096"
        ),
        "{stderr}"
    );
    assert!(!dir.path().join("zrun").exists());
}
