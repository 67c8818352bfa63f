//! The real engines run the workload they report at a deep queue: on a RAM device at QD 128 the
//! run lasts its `--duration`, the samples sit on the interval grid, and Little's law (IOPS ×
//! mean latency = I/Os in flight) gives back the queue depth. The threads engine once released
//! its 128 workers through a lock convoy at ~16 per second: a 4 s run lasted 7-8 s, its first
//! sample was 7-12 s long and only ~78 I/Os were in flight on average.
//!
//! What is checked comes from the run's own records, so that a loaded machine (load 42 on two
//! CPUs) does not fail it: the run may end after its deadline only by the drain of the I/Os in
//! flight then, which the last sample records as their latency, and the queue depth is Little's
//! law over the full intervals (their I/Os × mean latency ÷ the time the process ran), not over
//! a run whose last part drains.

mod common;

use common::{in_flight, measure_json, root_or_skip, Zram};

/// Runs a 4 s QD 128 random-write measure with `engine` on a fresh zram device and checks the
/// run's length, its samples and the queue depth it actually kept.
fn qd128_runs_as_reported(engine: &str) {
    let zram = Zram::new(1 << 30);
    let dir = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    let v = measure_json(
        dir.path(),
        dev,
        &format!(
            "--engine {engine} --qd 128 --bs 4k --read-pct 0 --random-pct 100 \
             --duration 4s --interval 1s --out run"
        ),
    );
    assert_eq!(v["engine"], engine, "{v}");
    assert_eq!(v["errors"], 0, "{v}");

    let samples = ssdfade::results::read_samples(&dir.path().join("run")).unwrap();
    let spans: Vec<(f64, f64)> = samples.iter().map(|s| (s.t_start_s, s.t_end_s)).collect();
    assert_eq!(samples.len(), 4, "{engine}: samples {spans:?}");
    // The I/Os in flight at the deadline complete within the last sample's largest latency
    // (measured, not guessed: on a quiet machine milliseconds, on a loaded one more).
    let drain = samples[3].lat_us.map_or(0.0, |l| l.max / 1e6) + 0.05;
    let seconds = v["seconds"].as_f64().unwrap();
    assert!(
        seconds >= 4.0 - 1e-6 && seconds <= 4.0 + drain,
        "{engine}: a 4 s run lasted {seconds:.3} s (its I/Os in flight at 4 s drain in {drain:.3} s)"
    );
    for (i, &(t0, t1)) in spans.iter().enumerate() {
        assert!(
            (t0 - i as f64).abs() < 1e-6,
            "{engine}: sample {i} starts off the grid: {spans:?}"
        );
        // The last sample also holds the I/Os in flight at the deadline.
        let longest = if i + 1 == spans.len() {
            1.0 + drain
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

    // Little's law over the full intervals: mean I/Os in flight = the I/Os × their mean latency
    // ÷ the time the process ran. The last interval is left out: the queue drains in it, for
    // as long as its slowest I/O, which on a loaded machine is a large part of a second.
    let full = &samples[..3];
    let seen = in_flight(full);
    assert!(
        (seen - 128.0).abs() <= 128.0 * 0.15,
        "{engine}: I/Os × mean latency ÷ time = {seen:.1} I/Os in flight at --qd 128 \
         over the full intervals ({full:?})"
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
