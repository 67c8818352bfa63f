//! Per-I/O latencies of simulated drives: the closed loop of QD outstanding I/Os obeys Little's
//! law (mean latency = QD / IOPS), latency grows with the queue depth once the drive is
//! saturated, and a faded drive's garbage collection puts a tail on the distribution.

use std::time::Duration;

use ssdfade::engine::{Control, Engine, IntervalSink, RunEnd};
use ssdfade::pattern::Pattern;
use ssdfade::sim::SimEngine;
use ssdfade::stats::IntervalStats;
use ssdfade::workload::{OnError, Workload};

/// Adds up every interval of a run.
#[derive(Default)]
struct Total {
    stats: IntervalStats,
    seconds: f64,
}

impl IntervalSink for Total {
    fn interval(&mut self, t0: f64, t1: f64, s: &IntervalStats) -> anyhow::Result<()> {
        self.stats.merge(s);
        self.seconds += t1 - t0;
        Ok(())
    }
}

/// 4 KiB aligned random writes over the whole drive at `qd`, for `duration` or `bytes`.
fn writes(size: u64, qd: u32, duration: Option<Duration>, bytes: Option<u64>) -> Workload {
    Workload {
        bs: 4096,
        align: 4096,
        read_pct: 0,
        random_pct: 100,
        qd,
        span: size,
        duration,
        bytes,
        interval: Duration::from_secs(10),
        // A run per queue depth on one drive: each its own offsets (the same sequence again
        // would overwrite the blocks the last run filled, in order, and need no GC).
        seed: 7 + u64::from(qd),
        pattern: Pattern::Random,
        refill: false,
        on_error: OnError::Stop,
    }
}

/// What one run did: IOPS and the write latency histogram.
struct Measured {
    iops: f64,
    mean_s: f64,
    p50_s: f64,
    p999_s: f64,
}

fn run(engine: &mut SimEngine, w: &Workload) -> Measured {
    let mut total = Total::default();
    let end = engine.run(w, &Control::default(), &mut total).unwrap();
    assert_eq!(end, RunEnd::Completed);
    let h = &total.stats.write.latency_ns;
    let m = Measured {
        iops: total.stats.write.ops as f64 / total.seconds,
        mean_s: h.mean() * 1e-9,
        p50_s: h.value_at_quantile(0.5) as f64 * 1e-9,
        p999_s: h.value_at_quantile(0.999) as f64 * 1e-9,
    };
    println!(
        "  QD{}: {:.0} IOPS, mean {:.2} ms, p50 {:.2} ms, p99.9 {:.2} ms (QD / IOPS {:.2} ms)",
        w.qd,
        m.iops,
        m.mean_s * 1e3,
        m.p50_s * 1e3,
        m.p999_s * 1e3,
        f64::from(w.qd) / m.iops * 1e3
    );
    m
}

fn assert_little(m: &Measured, qd: u32) {
    let little = f64::from(qd) / m.iops;
    assert!(
        (m.mean_s - little).abs() <= 0.02 * little,
        "QD{qd}: mean latency {:.3} ms, Little's law says QD / IOPS = {:.3} ms",
        m.mean_s * 1e3,
        little * 1e3
    );
}

/// A scaled drive as pulled from service (GC running), one minute at each queue depth.
#[test]
fn mean_latency_is_queue_depth_over_iops() {
    let mut engine = SimEngine::open("sim:vertex2-60g,scale=16").unwrap();
    let size = engine.identity().size_bytes;
    for qd in [1, 32, 128] {
        let m = run(
            &mut engine,
            &writes(size, qd, Some(Duration::from_secs(60)), None),
        );
        assert_little(&m, qd);
    }
}

/// A full-size-block drive (scale=4, so a simulated I/O stands for few host I/Os) faded by
/// three drive-fills of random writes: writes that wait behind garbage collection make the tail,
/// and latency grows with the queue depth.
#[test]
fn a_faded_drive_has_a_gc_tail_and_latency_grows_with_queue_depth() {
    let mut engine = SimEngine::open("sim:vertex2-60g,scale=4,aged=0s").unwrap();
    let size = engine.identity().size_bytes;
    run(&mut engine, &writes(size, 128, None, Some(3 * size)));
    let mut means = Vec::new();
    for qd in [1, 32, 128] {
        let m = run(&mut engine, &writes(size, qd, None, Some(size / 8)));
        assert_little(&m, qd);
        assert!(
            m.p999_s > m.p50_s,
            "QD{qd}: p99.9 {:.3} ms is not above p50 {:.3} ms",
            m.p999_s * 1e3,
            m.p50_s * 1e3
        );
        if qd == 1 {
            assert!(
                m.p999_s > 5.0 * m.p50_s,
                "QD1: writes behind garbage collection should be far slower than the median (p99.9 {:.3} ms, p50 {:.3} ms)",
                m.p999_s * 1e3,
                m.p50_s * 1e3
            );
        }
        means.push(m.mean_s);
    }
    assert!(
        means[1] > 10.0 * means[0] && means[2] > 3.0 * means[1],
        "mean latency at QD1, 32, 128: {means:?} s, want it to grow with the queue depth"
    );
}
