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
    let out = ssdfade(dir.path())
        .args([
            "measure",
            dev,
            "--destroy-data",
            dev,
            "--qd",
            "4",
            "--duration",
            "1s",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
