//! Measure and soak on devices the tests create: a zram RAM device and a loop device.

mod common;

use common::{json_ok, root_or_skip, ssdfade, Loop, Zram};

#[test]
fn measure_on_zram_reports_consistent_json() {
    if !root_or_skip("measure_on_zram_reports_consistent_json") {
        return;
    }
    let zram = Zram::new(256 << 20);
    let dir = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    let v = json_ok(ssdfade(dir.path()).args([
        "measure",
        dev,
        "--destroy-data",
        dev,
        "--engine",
        "threads",
        "--qd",
        "4",
        "--duration",
        "2s",
        "--json",
        "--out",
        "run",
    ]));
    assert!(v["iops"].as_f64().unwrap() > 1000.0, "{v}");
    assert_eq!(v["engine"], "threads");
    let samples = ssdfade::results::read_samples(&dir.path().join("run")).unwrap();
    let ops: u64 = samples.iter().map(|s| s.ops).sum();
    assert_eq!(ops, v["ops"].as_u64().unwrap());
}

#[test]
fn measure_on_loop_device_works() {
    if !root_or_skip("measure_on_loop_device_works") {
        return;
    }
    let lo = Loop::new(64 << 20);
    let dir = tempfile::tempdir().unwrap();
    let dev = lo.path.to_str().unwrap();
    let v = json_ok(ssdfade(dir.path()).args([
        "measure",
        dev,
        "--destroy-data",
        dev,
        "--qd",
        "4",
        "--bs",
        "4k",
        "--read-pct",
        "0",
        "--random-pct",
        "0",
        "--bytes",
        "64M",
        "--json",
        "--out",
        "run",
    ]));
    // Sequential writes over the whole device: every block was written, and what reached the
    // backing file is ssdfade's unique data, not zeros.
    assert_eq!(v["ops"], 16384, "{v}");
    assert_eq!(v["bytes"], 64 << 20, "{v}");
    assert_eq!(v["errors"], 0, "{v}");
    let samples = ssdfade::results::read_samples(&dir.path().join("run")).unwrap();
    assert_eq!(samples.iter().map(|s| s.ops).sum::<u64>(), 16384);
    let data = std::fs::read(lo.backing()).unwrap();
    assert_eq!(data.len(), 64 << 20);
    let zero_blocks = data
        .chunks(4096)
        .filter(|b| b.iter().all(|&x| x == 0))
        .count();
    assert_eq!(
        zero_blocks, 0,
        "{zero_blocks} blocks of the device were never written"
    );
}
