//! Measure and soak on devices the tests create: a zram RAM device and a loop device.

mod common;

use common::{measure_json, root_or_skip, Loop, Zram};

#[test]
fn measure_on_zram_reports_consistent_json() {
    if !root_or_skip("measure_on_zram_reports_consistent_json") {
        return;
    }
    let zram = Zram::new(256 << 20);
    let dir = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    let v = measure_json(
        dir.path(),
        dev,
        "--engine threads --qd 4 --duration 2s --out run",
    );
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
    let v = measure_json(
        dir.path(),
        dev,
        "--qd 4 --bs 4k --read-pct 0 --random-pct 0 --bytes 64M --out run",
    );
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

#[test]
fn a_rate_limit_on_zram_delivers_its_rate_and_counts_late_issues() {
    if !root_or_skip("a_rate_limit_on_zram_delivers_its_rate_and_counts_late_issues") {
        return;
    }
    let zram = Zram::new(256 << 20);
    let dir = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    // Well below zram's capacity: every engine delivers the rate within 1 %.
    for (engine, rate) in [("threads", 5000.0), ("uring", 8000.0)] {
        let v = measure_json(
            dir.path(),
            dev,
            &format!("--engine {engine} --qd 8 --duration 10s --rate-iops {rate}"),
        );
        let iops = v["iops"].as_f64().unwrap();
        assert!(
            (iops / rate - 1.0).abs() < 0.01,
            "{engine}: {iops} of {rate}: {v}"
        );
        let pacing = &v["pacing"];
        // Late issues here are the host's (a busy machine wakes a thread late): how many is
        // not the device's figure, but every I/O was paced.
        assert_eq!(pacing["paced"].as_u64(), v["ops"].as_u64(), "{v}");
    }
    // Far above what one I/O at a time can do: the schedule runs ahead and I/Os go out late,
    // counted, none dropped.
    for engine in ["threads", "uring"] {
        let v = measure_json(
            dir.path(),
            dev,
            &format!("--engine {engine} --qd 1 --duration 2s --rate-iops 50000000"),
        );
        let pacing = &v["pacing"];
        assert_eq!(pacing["paced"].as_u64(), v["ops"].as_u64(), "{v}");
        assert!(
            pacing["late"].as_u64().unwrap() * 2 > pacing["paced"].as_u64().unwrap(),
            "{engine}: {v}"
        );
        assert!(pacing["late_max_us"].as_f64().unwrap() > 1000.0, "{v}");
        assert!(v["iops"].as_f64().unwrap() < 50_000_000.0 / 100.0, "{v}");
    }
}
