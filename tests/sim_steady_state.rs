//! Simulated drives in steady state, second by second, against the published behaviour of
//! their class: garbage collection in bursts makes a client drive's 1-second IOPS swing between
//! about half and one and a half times its mean while an enterprise drive stays within about
//! ±15 %; a host write that waits behind garbage collection makes the latency tail; and
//! `dc-ssd-400g` lands on the Intel DC S3700 400 GB's specification (75 k fresh / 36 k steady
//! 4 KiB random-write IOPS at QD32, 460 MB/s sequential writes). Drives are scaled down.

use std::time::Duration;

use ssdfade::engine::{Control, Engine, IntervalSink, RunEnd};
use ssdfade::pattern::Pattern;
use ssdfade::sim::SimEngine;
use ssdfade::stats::IntervalStats;
use ssdfade::workload::Workload;

/// Every interval of a run: (seconds, write ops, write bytes) and the merged statistics.
#[derive(Default)]
struct Run {
    intervals: Vec<(f64, u64, u64)>,
    total: IntervalStats,
}

impl IntervalSink for Run {
    fn interval(&mut self, t0: f64, t1: f64, s: &IntervalStats) -> anyhow::Result<()> {
        self.intervals.push((t1 - t0, s.write.ops, s.write.bytes));
        self.total.merge(s);
        Ok(())
    }
}

impl Run {
    fn seconds(&self) -> f64 {
        self.intervals.iter().map(|i| i.0).sum()
    }

    fn iops(&self) -> f64 {
        self.intervals.iter().map(|i| i.1).sum::<u64>() as f64 / self.seconds()
    }

    fn mb_per_s(&self) -> f64 {
        self.intervals.iter().map(|i| i.2).sum::<u64>() as f64 / self.seconds() / 1e6
    }

    /// The 1-second IOPS over their mean, sorted (whole intervals only).
    fn relative(&self) -> Vec<f64> {
        let mut iops: Vec<f64> = self
            .intervals
            .iter()
            .filter(|i| i.0 > 0.99)
            .map(|i| i.1 as f64 / i.0)
            .collect();
        let mean = iops.iter().sum::<f64>() / iops.len() as f64;
        iops.sort_by(f64::total_cmp);
        iops.iter().map(|x| x / mean).collect()
    }

    /// The 5th and 95th percentile of the 1-second IOPS over their mean (whole intervals only).
    fn spread(&self) -> (f64, f64) {
        let mut iops: Vec<f64> = self
            .intervals
            .iter()
            .filter(|i| i.0 > 0.99)
            .map(|i| i.1 as f64 / i.0)
            .collect();
        let mean = iops.iter().sum::<f64>() / iops.len() as f64;
        iops.sort_by(f64::total_cmp);
        let at = |q: f64| iops[(q * (iops.len() - 1) as f64).round() as usize] / mean;
        (at(0.05), at(0.95))
    }
}

/// Writes at `qd` over the whole drive (4 KiB random, or `bs` sequential), sampled every
/// `interval`, for `duration` or `bytes`.
#[allow(clippy::too_many_arguments)]
fn run(
    engine: &mut SimEngine,
    bs: u64,
    random: bool,
    qd: u32,
    interval: Duration,
    duration: Option<Duration>,
    bytes: Option<u64>,
    seed: u64,
) -> Run {
    let size = engine.identity().size_bytes;
    let w = Workload {
        bs,
        align: bs,
        read_pct: 0,
        random_pct: if random { 100 } else { 0 },
        qd,
        span: size,
        duration,
        bytes,
        interval,
        seed,
        pattern: Pattern::Random,
        ..Default::default()
    };
    let mut r = Run::default();
    let end = engine.run(&w, &Control::default(), &mut r).unwrap();
    assert_eq!(end, RunEnd::Completed);
    r
}

/// A new drive brought to steady state by `fills` drive-fills of 4 KiB random writes.
fn steady(spec: &str, fills: u64) -> SimEngine {
    let mut engine = SimEngine::open(spec).unwrap();
    let size = engine.identity().size_bytes;
    let ten_minutes = Duration::from_secs(600);
    run(
        &mut engine,
        4096,
        true,
        32,
        ten_minutes,
        None,
        Some(fills * size),
        1,
    );
    engine
}

const SECOND: Duration = Duration::from_secs(1);

/// A new drive brought to steady state by `fills` drive-fills of 4 KiB random writes, then
/// 300 s of them at QD32 sampled every second (seed 2): the steady-state run every test of
/// this file measures.
fn steady_seconds(spec: &str, fills: u64) -> Run {
    let mut engine = steady(spec, fills);
    run(
        &mut engine,
        4096,
        true,
        32,
        SECOND,
        Some(Duration::from_secs(300)),
        None,
        2,
    )
}

/// Client firmware lets the free pool run down to its low watermark and then collects hard
/// until the high one: 1-second IOPS swing ± 30–50 % around the median with the bursts (the
/// shape of AnandTech's and Tom's Hardware's consistency plots of client TLC drives), skewed
/// down (a burst's dip is deep, the host between bursts only a little above its mean), with no
/// drawn term: the same run gives the same seconds.
#[test]
fn a_client_drive_in_steady_state_swings_with_its_gc_bursts() {
    // 1000 s, of the order of the steady-state part of AnandTech's runs.
    let mut engine = steady("sim:nvme-tlc-1t,scale=64", 3);
    let r = run(
        &mut engine,
        4096,
        true,
        32,
        SECOND,
        Some(Duration::from_secs(1000)),
        None,
        2,
    );
    let rel = r.relative();
    let at = |q: f64| rel[(q * (rel.len() - 1) as f64).round() as usize];
    let median = at(0.5);
    let (p5, p95) = (at(0.05) / median, at(0.95) / median);
    println!(
        "nvme-tlc-1t steady state: {:.0} IOPS, 1-second IOPS p5 {p5:.2}× and p95 {p95:.2}× the median, min {:.2}×, max {:.2}× the mean",
        r.iops(),
        rel[0],
        rel[rel.len() - 1]
    );
    assert!(
        (0.85..1.15).contains(&median),
        "median second {median:.2}× the mean"
    );
    assert!((0.5..0.75).contains(&p5), "p5 {p5:.2}× the median");
    assert!((1.2..1.6).contains(&p95), "p95 {p95:.2}× the median");
    // Skewed down: the dips reach further below the median than the band reaches above it.
    assert!(1.0 - p5 > p95 - 1.0, "p5 {p5:.2}×, p95 {p95:.2}×");
    assert!(rel[rel.len() - 1] < 1.8, "max {:.2}×", rel[rel.len() - 1]);
}

/// Samsung's SATA drives hold a band in steady state without stalls: AnandTech's 1-second
/// consistency runs of the 850 EVO (review 8747: a sequential fill, then 4 KiB random writes at
/// QD32 over the whole drive) show it between 5 000 and 8 000 IOPS. `sata-tlc-1t` stalled in 5 %
/// of its bursts like the NVMe preset (9.3 % of seconds under 0.2× the mean).
#[test]
fn sata_tlc_1t_in_steady_state_holds_a_band_without_stalls() {
    let r = steady_seconds("sim:sata-tlc-1t,scale=64", 3);
    let rel = r.relative();
    let (p5, p95) = r.spread();
    println!(
        "sata-tlc-1t steady state: {:.0} IOPS, 1-second min {:.2}×, p5 {p5:.2}×, p95 {p95:.2}×, max {:.2}× the mean",
        r.iops(),
        rel[0],
        rel[rel.len() - 1]
    );
    // The 850 EVO's band, 5 000–8 000, is 0.77–1.23 × its middle: every second within 0.4–1.6 ×.
    assert!(rel[0] > 0.4, "a stall: min {:.2}× the mean", rel[0]);
    assert!(rel[rel.len() - 1] < 1.6, "max {:.2}×", rel[rel.len() - 1]);
    assert!(p5 > 0.5 && p95 < 1.5, "p5 {p5:.2}×, p95 {p95:.2}×");
}

#[test]
fn dc_ssd_400g_matches_the_dc_s3700_class_and_stays_flat() {
    let mut engine = SimEngine::open("sim:dc-ssd-400g,scale=64").unwrap();
    let minute = Some(Duration::from_secs(60));
    let fresh = run(&mut engine, 4096, true, 32, SECOND, minute, None, 1).iops();
    let mut seq_drive = SimEngine::open("sim:dc-ssd-400g,scale=64").unwrap();
    let seq = run(
        &mut seq_drive,
        128 << 10,
        false,
        32,
        SECOND,
        minute,
        None,
        1,
    )
    .mb_per_s();
    let r = steady_seconds("sim:dc-ssd-400g,scale=64", 4);
    let (p5, p95) = r.spread();
    println!(
        "dc-ssd-400g: fresh {fresh:.0} IOPS, sequential {seq:.0} MB/s, steady {:.0} IOPS (1-second p5 {p5:.2}×, p95 {p95:.2}×)",
        r.iops()
    );
    let within = |what: &str, got: f64, want: f64| {
        assert!(
            (got / want - 1.0).abs() <= 0.15,
            "{what}: {got:.0}, want {want:.0} ± 15 %"
        );
    };
    within("fresh 4 KiB random-write IOPS", fresh, 75_000.0);
    within("steady-state 4 KiB random-write IOPS", r.iops(), 36_000.0);
    within("sequential write MB/s", seq, 460.0);
    // Intel's performance consistency: the 99.9th-percentile slowest second at ≥ 90 % of the
    // mean (continuous pacing). Four fills leave the drive still settling (its mean drifts
    // down over the 300 s), so the slowest seconds get some slack; after the 4 h soak of
    // README's calibration row the slowest second is at 0.99×.
    let rel = r.relative();
    let p0_1 = rel[(0.001 * (rel.len() - 1) as f64).round() as usize];
    assert!(
        p5 >= 0.9 && p0_1 >= 0.85 && p95 < 1.1,
        "1-second IOPS p0.1 {p0_1:.2}×, p5 {p5:.2}×, p95 {p95:.2}× the mean"
    );
}

/// At QD1 a new drive's writes all take about as long; once garbage collection runs, the
/// writes that wait behind it on their die make the tail (the client drive's firmware holds a
/// write for a whole victim's relocation, tens of milliseconds; see the device's unit test for
/// the enterprise drive, which holds one for at most an erase).
#[test]
fn latency_tails_come_from_garbage_collection() {
    let tail = |engine: &mut SimEngine, seed| {
        let r = run(
            engine,
            4096,
            true,
            1,
            SECOND,
            Some(Duration::from_secs(60)),
            None,
            seed,
        );
        let h = &r.total.write.latency_ns;
        let ms = |q| h.value_at_quantile(q) as f64 * 1e-6;
        (ms(0.5), ms(0.9999), h.max() as f64 * 1e-6)
    };
    let spec = "sim:vertex2-60g,scale=4,aged=0s";
    let mut new = SimEngine::open(spec).unwrap();
    let (p50, _, max) = tail(&mut new, 3);
    println!("{spec} at QD1, new: p50 {p50:.2} ms, max {max:.2} ms");
    assert!(
        max < 1.5 * p50,
        "new drive: max {max:.2} ms, p50 {p50:.2} ms"
    );
    let mut faded = steady(spec, 3);
    let (p50, p9999, max) = tail(&mut faded, 4);
    println!("{spec} at QD1, steady state: p50 {p50:.2} ms, p99.99 {p9999:.2} ms, max {max:.2} ms");
    assert!(p9999 > 5.0 * p50, "p99.99 {p9999:.2} ms, p50 {p50:.2} ms");
    assert!(max > 20.0, "the longest write took {max:.2} ms");
}

/// Reviews of 1 TB TLC NVMe drives show sequential writes at a few GB/s into the SLC cache and
/// less once it is full: the Samsung 970 EVO Plus 1 TB the preset stands for writes 3 300 MB/s
/// into it and 1 700 MB/s after it (Samsung's table, as printed by digit.in's review; the
/// preset wrote 1 007 MB/s after it before four-plane TLC programming).
#[test]
fn nvme_tlc_1t_writes_at_tlc_speed_once_its_slc_cache_is_full() {
    let mut engine = SimEngine::open("sim:nvme-tlc-1t,scale=64").unwrap();
    let ten_seconds = Duration::from_secs(10);
    let r = run(
        &mut engine,
        128 << 10,
        false,
        32,
        ten_seconds,
        Some(Duration::from_secs(60)),
        None,
        1,
    );
    let mb = |i: &(f64, u64, u64)| i.2 as f64 / i.0 / 1e6;
    let (first, last) = (mb(&r.intervals[0]), mb(r.intervals.last().unwrap()));
    println!("nvme-tlc-1t sequential 128 KiB writes: {first:.0} MB/s into the SLC cache, {last:.0} MB/s after it");
    assert!(first > 2000.0, "into the cache: {first:.0} MB/s");
    assert!(
        (last / 1700.0 - 1.0).abs() <= 0.15,
        "after the cache: {last:.0} MB/s, want 1 700 ± 15 %"
    );
}

/// `sata-tlc-250g` in steady state under AnandTech's consistency procedure (review 8747: a
/// sequential fill, then 4 KiB random writes at QD32 over the whole drive; the seconds from
/// 1400 to 2000) lands within 15 % of the middle of the 850 EVO 250 GB's 5 000–8 000 IOPS: its
/// garbage collection reads a 16 KiB NAND page once for all its live 4 KiB pages (it charged a
/// read per 4 KiB page and held 5 340 IOPS, −17.8 %).
#[test]
fn sata_tlc_250g_in_steady_state_lands_in_the_850_evo_s_band() {
    let mut engine = SimEngine::open("sim:sata-tlc-250g,scale=16").unwrap();
    let size = engine.identity().size_bytes;
    let tenth = Duration::from_secs(60);
    run(&mut engine, 131072, false, 32, tenth, None, Some(size), 1);
    let r = run(
        &mut engine,
        4096,
        true,
        32,
        SECOND,
        Some(Duration::from_secs(2000)),
        None,
        2,
    );
    let late: Vec<f64> = r
        .intervals
        .iter()
        .skip(1400)
        .filter(|i| i.0 > 0.99)
        .map(|i| i.1 as f64 / i.0)
        .collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    println!("sata-tlc-250g seconds 1400–2000: {mean:.0} IOPS");
    assert!(late.len() > 500, "{} whole seconds", late.len());
    assert!((mean / 6500.0 - 1.0).abs() < 0.15, "{mean:.0} IOPS");
}
