//! The real engines run the workload they report at a deep queue: on a RAM device at QD 128 the
//! run lasts its `--duration`, the samples sit on the interval grid, and Little's law (IOPS ×
//! mean latency = I/Os in flight) gives back the queue depth. The threads engine once released
//! its 128 workers through a lock convoy at ~16 per second: a 4 s run lasted 7-8 s, its first
//! sample was 7-12 s long and only ~78 I/Os were in flight on average.

mod common;

use common::{json_ok, root_or_skip, ssdfade, Zram};

/// Runs a 4 s QD 128 random-write measure with `engine` on a fresh zram device and checks the
/// run's length, its samples and the queue depth it actually kept.
fn qd128_runs_as_reported(engine: &str) {
    let zram = Zram::new(1 << 30);
    let dir = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    let v = json_ok(ssdfade(dir.path()).args([
        "measure",
        dev,
        "--destroy-data",
        dev,
        "--engine",
        engine,
        "--qd",
        "128",
        "--bs",
        "4k",
        "--read-pct",
        "0",
        "--random-pct",
        "100",
        "--duration",
        "4s",
        "--interval",
        "1s",
        "--json",
        "--out",
        "run",
    ]));
    assert_eq!(v["engine"], engine, "{v}");
    assert_eq!(v["errors"], 0, "{v}");

    let seconds = v["seconds"].as_f64().unwrap();
    assert!(
        (seconds - 4.0).abs() <= 0.2,
        "{engine}: a 4 s run lasted {seconds:.3} s"
    );

    let samples = ssdfade::results::read_samples(&dir.path().join("run")).unwrap();
    let spans: Vec<(f64, f64)> = samples.iter().map(|s| (s.t_start_s, s.t_end_s)).collect();
    assert_eq!(samples.len(), 4, "{engine}: samples {spans:?}");
    for (i, &(t0, t1)) in spans.iter().enumerate() {
        assert!(
            (t0 - i as f64).abs() < 1e-6,
            "{engine}: sample {i} starts off the grid: {spans:?}"
        );
        // The last sample also holds the I/Os in flight at the deadline.
        let longest = if i + 1 == spans.len() {
            1.2
        } else {
            1.0 + 1e-6
        };
        assert!(
            t1 - t0 >= 1.0 - 1e-6 && t1 - t0 <= longest,
            "{engine}: sample {i} is {:.3} s long: {spans:?}",
            t1 - t0
        );
        assert!(samples[i].ops > 0, "{engine}: sample {i} has no I/O");
    }
    let ops: u64 = samples.iter().map(|s| s.ops).sum();
    assert_eq!(
        ops,
        v["ops"].as_u64().unwrap(),
        "{engine}: samples vs total"
    );

    // Little's law: mean I/Os in flight = IOPS × mean latency.
    let in_flight = v["iops"].as_f64().unwrap() * v["lat_us"]["mean"].as_f64().unwrap() / 1e6;
    assert!(
        (in_flight - 128.0).abs() <= 128.0 * 0.15,
        "{engine}: IOPS × mean latency = {in_flight:.1} I/Os in flight at --qd 128 ({v})"
    );
}

/// One test for both engines, so that they do not run at once and share two CPUs.
#[test]
fn real_engines_keep_qd128_for_exactly_the_duration() {
    if !root_or_skip("real_engines_keep_qd128_for_exactly_the_duration") {
        return;
    }
    qd128_runs_as_reported("threads");
    qd128_runs_as_reported("uring");
}
