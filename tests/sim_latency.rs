//! Per-I/O latencies of simulated drives: the closed loop of QD outstanding I/Os obeys Little's
//! law (mean latency = QD / IOPS), latency grows with the queue depth once the drive is
//! saturated, and a faded drive's garbage collection puts a tail on the distribution.

use std::time::Duration;

use ssdfade::engine::{Control, Engine, IntervalSink, RunEnd};
use ssdfade::pattern::Pattern;
use ssdfade::sim::SimEngine;
use ssdfade::stats::IntervalStats;
use ssdfade::workload::Workload;

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
        ..Default::default()
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

/// One run of `bs` I/Os on `engine`: `read_pct` % reads, `random_pct` % random, at `qd`;
/// returns (IOPS, mean latency in µs).
fn io_run(engine: &mut SimEngine, bs: u64, read_pct: u8, random_pct: u8, qd: u32) -> (f64, f64) {
    let size = engine.identity().size_bytes;
    let w = Workload {
        bs,
        read_pct,
        random_pct,
        ..writes(size, qd, Some(Duration::from_secs(5)), None)
    };
    let mut total = Total::default();
    let end = engine.run(&w, &Control::default(), &mut total).unwrap();
    assert_eq!(end, RunEnd::Completed);
    let (r, wr) = (&total.stats.read, &total.stats.write);
    let ops = (r.ops + wr.ops) as f64;
    let mean_ns =
        (r.latency_ns.mean() * r.ops as f64 + wr.latency_ns.mean() * wr.ops as f64) / ops.max(1.0);
    (ops / total.seconds, mean_ns * 1e-3)
}

/// The enterprise preset against the DC S3700 datasheet: average sequential latency 50 µs read
/// (read-ahead) and 65 µs write at QD1; random 8 KiB reads 47 500 IOPS and random 4 KiB reads
/// 75 000 IOPS at QD32 (the link's per-command and per-byte cost); sequential reads 500 MB/s.
/// A random read at QD1 pays its NAND read and transfer on top.
#[test]
fn dc_ssd_400g_lands_the_class_latencies_and_read_rates() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!(
        "sim:dc-ssd-400g,scale=64,state={}",
        dir.path().join("d.sim").display()
    );
    let mut engine = SimEngine::open(&spec).unwrap();
    let size = engine.identity().size_bytes;
    let fill = Workload {
        bs: 128 << 10,
        align: 128 << 10,
        random_pct: 0,
        ..writes(size, 32, None, Some(size))
    };
    engine
        .run(&fill, &Control::default(), &mut Total::default())
        .unwrap();
    let near = |what: &str, got: f64, want: f64| {
        println!("  {what}: {got:.1} (class {want})");
        assert!(
            (got - want).abs() <= 0.15 * want,
            "{what}: {got:.1}, class {want}"
        );
    };
    near(
        "QD1 sequential read, µs",
        io_run(&mut engine, 4096, 100, 0, 1).1,
        50.0,
    );
    near(
        "QD1 sequential write, µs",
        io_run(&mut engine, 4096, 0, 0, 1).1,
        65.0,
    );
    near(
        "QD32 8 KiB random reads, IOPS",
        io_run(&mut engine, 8192, 100, 100, 32).0,
        47_500.0,
    );
    near(
        "QD32 4 KiB random reads, IOPS",
        io_run(&mut engine, 4096, 100, 100, 32).0,
        75_000.0,
    );
    let (iops, _) = io_run(&mut engine, 128 << 10, 100, 0, 32);
    near(
        "QD32 128 KiB sequential reads, MB/s",
        iops * 131_072.0 / 1e6,
        500.0,
    );
    let (_, random_read_us) = io_run(&mut engine, 4096, 100, 100, 1);
    assert!(
        random_read_us > 100.0,
        "QD1 random read {random_read_us:.1} µs"
    );
}

#[test]
fn a_rate_limit_delivers_its_rate_on_simulated_time_and_counts_late_issues() {
    use ssdfade::workload::Rate;
    let mut engine = SimEngine::open("sim:vertex2-60g,aged=0s").unwrap();
    let size = engine.identity().size_bytes;
    for (rate, late) in [(2000, false), (1_000_000, true)] {
        let mut w = writes(size, 32, Some(Duration::from_secs(30)), None);
        w.rate = Some(Rate::Iops(rate));
        let mut total = Total::default();
        let end = engine.run(&w, &Control::default(), &mut total).unwrap();
        assert_eq!(end, RunEnd::Completed);
        let iops = total.stats.write.ops as f64 / total.seconds;
        let p = total.stats.pacing;
        assert_eq!(p.paced, total.stats.write.ops);
        if late {
            // The drive does a few ten thousand I/Os a second: nearly all go out late.
            assert!(iops < rate as f64 / 10.0, "{iops}");
            assert!(p.late * 10 > p.paced * 9, "{p:?}");
        } else {
            // Below the drive's capacity: the rate exactly, nothing late.
            assert!((iops / rate as f64 - 1.0).abs() < 0.001, "{iops}");
            assert_eq!(p.late, 0, "{p:?}");
        }
    }
}

/// QD1 latencies of a simulated drive: reads of a drive filled sequentially (`read_pct` 100)
/// or writes of a new one, 4 KiB at random for `seconds`; returns the IOPS and the latency
/// histogram's quantile function in µs.
fn qd1(spec: &str, read: bool, seconds: u64) -> (f64, impl Fn(f64) -> f64) {
    let mut engine = SimEngine::open(spec).unwrap();
    let size = engine.identity().size_bytes;
    if read {
        let fill = Workload {
            bs: 128 << 10,
            align: 128 << 10,
            random_pct: 0,
            qd: 32,
            duration: None,
            bytes: Some(size),
            ..writes(size, 32, None, None)
        };
        run(&mut engine, &fill);
    }
    let w = Workload {
        read_pct: if read { 100 } else { 0 },
        ..writes(size, 1, Some(Duration::from_secs(seconds)), None)
    };
    let mut total = Total::default();
    let end = engine.run(&w, &Control::default(), &mut total).unwrap();
    assert_eq!(end, RunEnd::Completed);
    let d = if read {
        total.stats.read
    } else {
        total.stats.write
    };
    let iops = d.ops as f64 / total.seconds;
    let h = d.latency_ns;
    (iops, move |q| h.value_at_quantile(q) as f64 * 1e-3)
}

/// `sata-tlc-1t` stands for the 860 and the 870 EVO, whose QD1 figures differ (Samsung: 10 000
/// / 42 000 and 13 000 / 36 000 4 KiB random read / write IOPS; KitGuru's 870 EVO review): the
/// preset lands within 15 % of both. It was fitted to the 860 EVO alone (9 984 reads, 23 %
/// under the 870 EVO).
#[test]
fn sata_tlc_1t_qd1_lands_within_15_percent_of_both_generations() {
    let (reads, _) = qd1("sim:sata-tlc-1t,capacity=250GB,scale=256", true, 10);
    let (writes, _) = qd1("sim:sata-tlc-1t,scale=256", false, 10);
    println!("sata-tlc-1t QD1: {reads:.0} read IOPS, {writes:.0} write IOPS");
    for (what, got, published) in [
        ("860 EVO reads", reads, 10_000.0),
        ("870 EVO reads", reads, 13_000.0),
        ("860 EVO writes", writes, 42_000.0),
        ("870 EVO writes", writes, 36_000.0),
    ] {
        assert!(
            (got / published - 1.0).abs() <= 0.15,
            "{what}: {got:.0} IOPS against {published:.0}"
        );
    }
}

/// The Optane P4800X's QoS: QD1 4 KiB random reads at 8.9 µs on average and 10 µs at the 99th
/// percentile, 37 µs at the 99.999th (AnandTech 11209, measured; Intel bounds it at 60 µs).
/// The preset had no tail at first (every read took its mean, 8.5 µs), then one rare step
/// (p99 9.0 µs, below the published 10, with the mean at 9.0, above the published 8.9); its
/// power-law tail now puts p99 at the published figure and the mean not above it.
#[test]
fn optane_375g_has_the_class_latency_tail() {
    // The smallest capacity unscaled, so a simulated read is one host read and 20 s of them
    // (2.3 million) sample the tail.
    let (iops, q) = qd1("sim:optane-375g,capacity=6GB,scale=1", true, 20);
    let (p50, p99, p99999) = (q(0.5), q(0.99), q(0.99999));
    println!("optane-375g QD1 reads: {iops:.0} IOPS, p50 {p50:.1} µs, p99 {p99:.1} µs, p99.999 {p99999:.1} µs");
    assert!(
        (1e6 / iops / 8.9 - 1.0).abs() <= 0.15,
        "mean {:.1} µs",
        1e6 / iops
    );
    assert!(
        (9.9..=10.0 * 1.15).contains(&p99),
        "p99 {p99:.1} µs, want 10 (at or a little above)"
    );
    assert!(1e6 / iops <= 8.9 * 1.01, "mean {:.2} µs", 1e6 / iops);
    assert!(
        (p99999 / 37.0 - 1.0).abs() <= 0.15,
        "p99.999 {p99999:.1} µs, want 37 ± 15 %"
    );
    assert!(p99999 < 60.0, "p99.999 {p99999:.1} µs over Intel's bound");
}

/// Reads queue on their die (round four): on a filled `dc-ssd-400g` a QD1 random read's time
/// depends on its page type (MLC: two), so p99 lies above p5; at QD8 the reads collide on the
/// dies and queue at the controller, so QD8 gives less than 8 × QD1; and under an issue rate
/// the tail widens as the rate nears the 75 000 IOPS limit. Before, every read took 154.6 µs,
/// at every percentile, QD and rate, and QD8 was exactly 8 × QD1.
#[test]
fn reads_queue_on_their_die_and_their_latency_widens_with_load() {
    use ssdfade::workload::Rate;
    let dir = tempfile::tempdir().unwrap();
    let spec = format!(
        "sim:dc-ssd-400g,scale=64,state={}",
        dir.path().join("d.sim").display()
    );
    let mut engine = SimEngine::open(&spec).unwrap();
    let size = engine.identity().size_bytes;
    let fill = Workload {
        bs: 128 << 10,
        align: 128 << 10,
        random_pct: 0,
        ..writes(size, 32, None, Some(size))
    };
    run(&mut engine, &fill);
    let reads = |engine: &mut SimEngine, qd: u32, rate: Option<u64>| {
        let w = Workload {
            read_pct: 100,
            rate: rate.map(Rate::Iops),
            ..writes(size, qd, Some(Duration::from_secs(10)), None)
        };
        let mut total = Total::default();
        engine.run(&w, &Control::default(), &mut total).unwrap();
        let r = total.stats.read;
        let q = |x: f64| r.latency_ns.value_at_quantile(x) as f64 * 1e-3;
        let (iops, p5, p99) = (r.ops as f64 / total.seconds, q(0.05), q(0.99));
        println!("  QD{qd} {rate:?}: {iops:.0} IOPS, p5 {p5:.1} µs, p99 {p99:.1} µs");
        (iops, p5, p99)
    };
    let (qd1, p5, p99) = reads(&mut engine, 1, None);
    assert!(p99 > p5 * 1.1, "QD1 reads: p5 {p5:.1}, p99 {p99:.1} µs");
    let (qd8, _, _) = reads(&mut engine, 8, None);
    assert!(
        qd8 < 0.97 * 8.0 * qd1,
        "QD8 {qd8:.0} against 8 × QD1 {:.0}",
        8.0 * qd1
    );
    let (_, _, light) = reads(&mut engine, 32, Some(20_000));
    let (_, _, heavy) = reads(&mut engine, 32, Some(74_000));
    assert!(
        heavy > light * 1.1,
        "p99 at 74 000/s {heavy:.1} µs against {light:.1} at 20 000/s"
    );
}

/// Issue 49: writes on the data-centre drive at a steady queue depth waited all alike (p50 =
/// p99 = p99.9). A write the full cache holds waits for the next program to complete: the
/// dies complete a NAND page (`read_page`: 2 × 4 KiB here) at a time, so the gaps are
/// exponential with a mean of 2 / IOPS, and the write's latency is the loop's mean plus its
/// own gap less the mean gap (the loop shares that among the QD in flight). Recomputed: the
/// median sits ln 2 − 1 mean gaps off the mean and the p99 ln 100 − 1 mean gaps, each × (1 −
/// 1 / QD); Little's law still holds. At QD 1 the cache acknowledges every write at once.
#[test]
fn writes_at_a_steady_queue_depth_wait_for_room_in_the_cache() {
    let mut engine = SimEngine::open("sim:dc-ssd-400g,capacity=8GB,scale=64").unwrap();
    let size = engine.identity().size_bytes;
    let one = run(
        &mut engine,
        &writes(size, 1, Some(Duration::from_secs(4)), None),
    );
    assert_eq!(
        one.p50_s, one.p999_s,
        "QD1 writes acknowledged from the cache"
    );
    let qd = 32;
    let w = writes(size, qd, Some(Duration::from_secs(4)), None);
    let mut total = Total::default();
    engine.run(&w, &Control::default(), &mut total).unwrap();
    let h = &total.stats.write.latency_ns;
    let iops = total.stats.write.ops as f64 / total.seconds;
    let little = f64::from(qd) / iops;
    let mean = h.mean() * 1e-9;
    assert!(
        (mean - little).abs() <= 0.02 * little,
        "mean {mean}, Little {little}"
    );
    let gap = 2.0 / iops;
    let share = 1.0 - 1.0 / f64::from(qd);
    for (q, expected) in [
        (0.5, little + share * (2f64.ln() - 1.0) * gap),
        (0.99, little + share * (100f64.ln() - 1.0) * gap),
    ] {
        let got = h.value_at_quantile(q) as f64 * 1e-9;
        println!(
            "  p{}: {:.1} µs, recomputed {:.1} µs",
            q * 100.0,
            got * 1e6,
            expected * 1e6
        );
        assert!(
            (got - expected).abs() <= 0.25 * (expected - little).abs().max(0.02 * little),
            "p{}: {:.1} µs against {:.1} µs recomputed",
            q * 100.0,
            got * 1e6,
            expected * 1e6
        );
    }
}
