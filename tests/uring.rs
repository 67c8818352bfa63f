//! The io_uring engine on devices and files the tests create: it runs, its samples add up to its
//! totals, and run.json and --json say that `uring` ran.

mod common;

use std::path::Path;

use common::{json_ok, root_or_skip, ssdfade, Zram};

/// Runs `ssdfade measure` with `args` in `dir`, writing the run to `dir/run`, and returns the
/// --json object and the number of samples, after checking that the samples add up to it and
/// that `uring` ran.
fn measure_with_uring(dir: &Path, target: &str, args: &[&str]) -> (serde_json::Value, usize) {
    let v = json_ok(
        ssdfade(dir)
            .args([
                "measure",
                target,
                "--destroy-data",
                target,
                "--engine",
                "uring",
            ])
            .args(args)
            .args(["--interval", "200ms", "--json", "--out", "run"]),
    );
    assert_eq!(v["engine"], "uring", "{v}");
    assert_eq!(v["errors"], 0, "{v}");
    let run = dir.join("run");
    let info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(info["engine"], "uring");
    assert_eq!(info["status"], "completed");
    let samples = ssdfade::results::read_samples(&run).unwrap();
    let ops: u64 = samples.iter().map(|s| s.ops).sum();
    let bytes: u64 = samples.iter().map(|s| s.bytes).sum();
    assert_eq!(ops, v["ops"].as_u64().unwrap());
    assert_eq!(bytes, v["bytes"].as_u64().unwrap());
    (v, samples.len())
}

#[test]
fn uring_on_zram_samples_add_up() {
    if !root_or_skip("uring_on_zram_samples_add_up") {
        return;
    }
    let zram = Zram::new(256 << 20);
    let dir = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    let (v, samples) = measure_with_uring(dir.path(), dev, &["--qd", "32", "--duration", "1s"]);
    assert!(v["ops"].as_u64().unwrap() > 1000, "{v}");
    assert!(samples >= 3, "{samples} samples in 1 s at 200 ms intervals");
}

#[test]
fn uring_on_a_file_moves_exactly_the_bytes_asked_with_reads_and_writes() {
    if !root_or_skip("uring_on_a_file_moves_exactly_the_bytes_asked_with_reads_and_writes") {
        return;
    }
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let file = dir.path().join("target.img");
    let file = file.to_str().unwrap();
    let (v, _) = measure_with_uring(
        dir.path(),
        file,
        &[
            "--size",
            "64M",
            "--qd",
            "16",
            "--read-pct",
            "30",
            "--bytes",
            "32M",
        ],
    );
    assert_eq!(v["ops"], 8192, "{v}");
    assert!(v["read_iops"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["write_iops"].as_f64().unwrap() > 0.0, "{v}");
}

#[test]
fn uring_is_the_default_where_the_kernel_allows_it() {
    if !root_or_skip("uring_is_the_default_where_the_kernel_allows_it") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("target.img");
    let file = file.to_str().unwrap();
    let v = json_ok(
        ssdfade(dir.path())
            .args(["measure", file, "--destroy-data", file, "--size", "8M"])
            .args(["--qd", "4", "--bytes", "1M", "--json", "--out", "run"]),
    );
    let expected = if kernel_gives_an_io_uring() {
        "uring"
    } else {
        "threads"
    };
    assert_eq!(v["engine"], expected, "{v}");
}

/// At QD 1 on zram, whose I/O io_uring hands to its kernel workers, the default engine is
/// the one a timing on the device found faster, said in one line with both times; at QD 8
/// there is no timing and io_uring runs.
#[test]
fn at_qd1_on_zram_the_default_engine_is_the_one_timed_faster_and_says_why() {
    if !root_or_skip("at_qd1_on_zram_the_default_engine_is_the_one_timed_faster_and_says_why")
        || !kernel_gives_an_io_uring()
    {
        return;
    }
    let zram = Zram::new(64 << 20);
    let dev = zram.path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |qd: &str, out: &str| {
        ssdfade(dir.path())
            .args(["measure", dev, "--destroy-data", dev, "--qd", qd])
            .args(["--bytes", "4M", "--json", "--out", out])
            .output()
            .unwrap()
    };
    let out = run("1", "qd1");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("ssdfade: engine "))
        .unwrap_or_else(|| panic!("no engine line: {err}"));
    let us = |engine: &str| -> f64 {
        let before = line.split(&format!(" µs with {engine}")).next().unwrap();
        before.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let faster = if us("threads") < us("io_uring") {
        "threads"
    } else {
        "uring"
    };
    assert!(
        line.starts_with(&format!("ssdfade: engine {faster}: at QD 1")),
        "{line}"
    );
    assert!(line.contains("4096-byte random write"), "{line}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["engine"], faster, "{line}");
    let out = run("8", "qd8");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("ssdfade: engine"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["engine"], "uring");
}

#[test]
fn back_to_back_uring_runs_find_the_device_free() {
    if !root_or_skip("back_to_back_uring_runs_find_the_device_free") {
        return;
    }
    let zram = Zram::new(64 << 20);
    let dev = zram.path.to_str().unwrap();
    for round in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let (v, _) = measure_with_uring(dir.path(), dev, &["--qd", "8", "--bytes", "8M"]);
        assert_eq!(v["ops"], 2048, "round {round}: {v}");
    }
}

/// zram takes no I/O without blocking, so the engine runs a ring per CPU with the queue depth
/// split between them (an odd QD unevenly): together they write exactly the bytes asked, a
/// sequential pass lands every block once, and no two sectors are alike (each ring makes its own
/// data).
#[test]
fn uring_rings_per_cpu_write_every_block_of_zram_once_with_unique_data() {
    if !root_or_skip("uring_rings_per_cpu_write_every_block_of_zram_once_with_unique_data") {
        return;
    }
    let zram = Zram::new(32 << 20);
    let dev = zram.path.to_str().unwrap();
    for qd in ["3", "32"] {
        let dir = tempfile::tempdir().unwrap();
        let args = ["--qd", qd, "--random-pct", "0", "--bytes", "32M"];
        let (v, _) = measure_with_uring(dir.path(), dev, &args);
        assert_eq!(v["ops"], 8192, "QD {qd}: {v}");
        let data = std::fs::read(&zram.path).unwrap();
        assert_eq!(data.len(), 32 << 20);
        let sectors: Vec<&[u8]> = data.chunks(512).collect();
        assert!(
            sectors.iter().all(|s| s.iter().any(|&b| b != 0)),
            "QD {qd}: a block left unwritten"
        );
        let unique: std::collections::HashSet<&[u8]> = sectors.iter().copied().collect();
        assert_eq!(unique.len(), sectors.len(), "QD {qd}: repeated sectors");
    }
}

/// Asks the kernel for an io_uring directly (io_uring_setup(2)), independently of ssdfade's
/// own probe, which is what the default-engine test must not trust.
fn kernel_gives_an_io_uring() -> bool {
    // struct io_uring_params is 120 bytes; zeroed is a valid request.
    let mut params = [0u8; 120];
    // SAFETY: the kernel writes at most sizeof(struct io_uring_params) bytes into params.
    let fd = unsafe { libc::syscall(libc::SYS_io_uring_setup, 4u32, params.as_mut_ptr()) };
    if fd < 0 {
        return false;
    }
    // SAFETY: fd is the ring's descriptor, ours to close.
    unsafe { libc::close(fd as i32) };
    true
}
