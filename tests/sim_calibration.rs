//! The simulated Vertex 2 against the seed experiment's figures, and steady-state write
//! amplification against the Lambert-W model. Drives are scaled down (`scale=`) where only
//! drive-fills and P/E cycles matter; one test runs the full-size 60 GB model through the CLI.

mod common;

use std::time::Duration;

use ssdfade::engine::{Control, Engine, IntervalSink, RunEnd};
use ssdfade::pattern::Pattern;
use ssdfade::sim::{self, ftl::lambert_w_write_amplification, SimEngine, SimErase};
use ssdfade::stats::IntervalStats;
use ssdfade::workload::Workload;

/// Collects (end time, write ops) of every interval.
#[derive(Default)]
struct Intervals(Vec<(f64, f64, u64)>);

impl IntervalSink for Intervals {
    fn interval(&mut self, t0: f64, t1: f64, s: &IntervalStats) -> anyhow::Result<()> {
        self.0.push((t0, t1, s.write.ops));
        Ok(())
    }
}

/// The seed's access specification: `bs`-byte (4 KiB in the fade experiment), 512-byte
/// aligned, 100 % random writes at QD128.
fn seed_workload(size: u64, duration: Duration, pattern: Pattern, bs: u64) -> Workload {
    Workload {
        bs,
        align: 512,
        read_pct: 0,
        random_pct: 100,
        qd: 128,
        span: size,
        duration: Some(duration),
        bytes: None,
        interval: Duration::from_secs(10),
        seed: 910,
        pattern,
        ..Default::default()
    }
}

/// Runs 4 KiB writes on the drive kept in the spec's state file; returns its IOPS over the run
/// and over its last interval.
fn run(spec: &str, duration: Duration, pattern: Pattern) -> (f64, f64) {
    run_bs(spec, duration, pattern, 4096)
}

/// As [`run`], with `bs`-byte writes.
fn run_bs(spec: &str, duration: Duration, pattern: Pattern, bs: u64) -> (f64, f64) {
    let mut engine = SimEngine::open(spec).unwrap();
    let size = engine.identity().size_bytes;
    let mut sink = Intervals::default();
    let end = engine
        .run(
            &seed_workload(size, duration, pattern, bs),
            &Control::default(),
            &mut sink,
        )
        .unwrap();
    assert_eq!(end, RunEnd::Completed);
    if let Ok(w) = sim::wear(spec) {
        println!(
            "  after {:.0} s: lifetime WA {:.2}, mean P/E {:.1}, throttling debt {:.1} P/E, rate {:.0} %",
            duration.as_secs_f64(),
            w.write_amplification,
            w.mean_pe,
            w.throttle_debt_pe.unwrap_or(0.0),
            w.throttle_fraction * 100.0
        );
    }
    let ops: u64 = sink.0.iter().map(|i| i.2).sum();
    let t = sink.0.last().unwrap().1;
    let last = sink.0.last().unwrap();
    (ops as f64 / t, last.2 as f64 / (last.1 - last.0))
}

fn within(what: &str, got: f64, want: f64, tolerance: f64) {
    let ok = (got - want).abs() <= want * tolerance;
    println!(
        "{what}: {got:.0} IOPS (published {want:.0} ± {:.0} %)",
        tolerance * 100.0
    );
    assert!(
        ok,
        "{what}: {got:.0} IOPS is not within {tolerance} of {want}"
    );
}

const MINUTE: Duration = Duration::from_secs(60);
const EIGHT_HOURS: Duration = Duration::from_secs(8 * 3600);

/// The whole seed protocol on one drive: as pulled, secure erase, 8 h of writes, second erase.
#[test]
fn vertex2_reproduces_the_seed_fade_and_partial_recovery() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!(
        "sim:vertex2-60g,scale=8,state={}",
        dir.path().join("vertex2.sim").display()
    );
    let (as_pulled, _) = run(&spec, MINUTE, Pattern::Random);
    sim::erase(&spec, SimErase::Secure).unwrap();
    let (after_erase, _) = run(&spec, MINUTE, Pattern::Random);
    let (_, soak_end) = run(&spec, EIGHT_HOURS, Pattern::Random);
    let (after_soak, _) = run(&spec, MINUTE, Pattern::Random);
    sim::erase(&spec, SimErase::Secure).unwrap();
    let (after_second_erase, _) = run(&spec, MINUTE, Pattern::Random);
    println!("soak's last interval: {soak_end:.0} IOPS");
    within("as pulled after 4 months", as_pulled, 4300.0, 0.20);
    within("after a secure erase", after_erase, 6000.0, 0.15);
    assert!(
        (750.0..=1100.0).contains(&after_soak),
        "after 8 h: {after_soak:.0} IOPS, want 750 to 1100 (seed 910)"
    );
    println!("after 8 hours of writes: {after_soak:.0} IOPS (seed 910, 750 to 1100)");
    within(
        "after a second secure erase",
        after_second_erase,
        4000.0,
        0.20,
    );
}

/// At 512-byte writes repeating bytes compress, so the controller's merge of each write into its
/// 4 KiB page is cheaper and the NAND takes half a page (seed: 7000 against 4700 IOPS).
#[test]
fn vertex2_repeating_bytes_beat_random_data_by_a_third() {
    let (random, _) = run_bs("sim:vertex2-60g,scale=8", MINUTE, Pattern::Random, 512);
    let (repeat, _) = run_bs("sim:vertex2-60g,scale=8", MINUTE, Pattern::Repeat, 512);
    println!(
        "as pulled, 512-byte writes: random {random:.0} IOPS, repeating bytes {repeat:.0} IOPS ({:.2}×)",
        repeat / random
    );
    assert!(repeat >= 1.3 * random, "{repeat:.0} vs {random:.0}");
    assert!(
        (random / 4700.0 - 1.0).abs() < 0.2,
        "random 512-byte writes: {random:.0} IOPS (seed 4700)"
    );
}

/// Write amplification of the FTL after `warm` drive-fills, measured over `measure` more, of
/// uniform random 4 KiB writes to the first `live` fraction of the logical space (the rest
/// trimmed).
fn steady_write_amplification(alpha: f64, live: f64, warm: u32, measure: u32) -> f64 {
    use rand_chacha::ChaCha8Rng;
    use rand_core::{RngCore, SeedableRng};
    use ssdfade::sim::ftl::{Ftl, Geometry};
    let user_pages = 1 << 20;
    let mut ftl = Ftl::new(Geometry {
        user_pages,
        blocks: (f64::from(user_pages) * alpha / 256.0).round() as u32,
        pages_per_block: 256,
        slots_per_page: 1,
    });
    for lpn in 0..user_pages {
        ftl.write(lpn, 1, 1);
    }
    let hot = (f64::from(user_pages) * live) as u32;
    for lpn in hot..user_pages {
        ftl.trim(lpn);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut write = |ftl: &mut Ftl, fills: u32| {
        for _ in 0..u64::from(fills) * u64::from(hot) {
            ftl.write(
                ((u64::from(rng.next_u32()) * u64::from(hot)) >> 32) as u32,
                1,
                1,
            );
        }
    };
    write(&mut ftl, warm);
    let before = ftl.work();
    write(&mut ftl, measure);
    let after = ftl.work();
    (after.host_slots - before.host_slots + after.gc_slots - before.gc_slots) as f64
        / (after.host_slots - before.host_slots) as f64
}

#[test]
fn steady_state_write_amplification_follows_lambert_w() {
    for (alpha, warm) in [(1.07, 12), (1.12, 8), (1.28, 5)] {
        let model = lambert_w_write_amplification(alpha);
        let sim = steady_write_amplification(alpha, 1.0, warm, 3);
        println!("α {alpha}: simulated WA {sim:.2}, Lambert-W {model:.2}");
        assert!(
            (sim - model).abs() <= 0.05 * model,
            "α {alpha}: WA {sim:.2} vs Lambert-W {model:.2}"
        );
    }
}

/// TRIM shrinks the live data, so the effective over-provisioning becomes α / u.
#[test]
fn trimming_a_quarter_raises_effective_over_provisioning() {
    let (alpha, live) = (1.07, 0.75);
    let model = lambert_w_write_amplification(alpha / live);
    let sim = steady_write_amplification(alpha, live, 8, 3);
    println!("α {alpha}, {live} of the space live: WA {sim:.2}, Lambert-W(α/u) {model:.2}");
    assert!(
        (sim - model).abs() <= 0.05 * model,
        "{sim:.2} vs {model:.2}"
    );
}

/// 4 KiB writes at `align` on a factory-new Vertex 2 at QD32 for a minute; returns IOPS.
fn new_drive_iops(align: u64, pattern: Pattern) -> f64 {
    let spec = "sim:vertex2-60g,scale=8,aged=0s";
    let mut engine = SimEngine::open(spec).unwrap();
    let size = engine.identity().size_bytes;
    let mut w = seed_workload(size, MINUTE, pattern, 4096);
    w.align = align;
    w.qd = 32;
    let mut sink = Intervals::default();
    let end = engine.run(&w, &Control::default(), &mut sink).unwrap();
    assert_eq!(end, RunEnd::Completed);
    let ops: u64 = sink.0.iter().map(|i| i.2).sum();
    ops as f64 / sink.0.last().unwrap().1
}

/// The seed's 512-byte-aligned writes are not what reviews measured: on a new drive, aligned
/// 4 KiB random writes reach the SF-1200's review figures (AnandTech 3681: 164.6 MB/s with
/// compressible data, 122.5 MB/s with random data, i.e. about 40 k and 30 k IOPS), several
/// times the seed's, while the same drive's unaligned writes stay near the seed's 6000–7000.
#[test]
fn vertex2_aligned_writes_have_their_own_limit() {
    let compressible = new_drive_iops(4096, Pattern::Repeat);
    let random = new_drive_iops(4096, Pattern::Random);
    let unaligned = new_drive_iops(512, Pattern::Random);
    println!(
        "new drive, 4 KiB random writes at QD32: aligned compressible {compressible:.0} IOPS, aligned random data {random:.0}, 512-byte aligned random data {unaligned:.0}"
    );
    within("aligned, compressible data", compressible, 40_000.0, 0.2);
    within("aligned, random data", random, 30_000.0, 0.2);
    assert!(
        (5000.0..=8000.0).contains(&unaligned),
        "unaligned: {unaligned:.0} IOPS"
    );
}

/// SandForce reads are not compressed-write commands: an SF-1200 drive reads 4 KiB at random
/// at about 25 000 IOPS at QD32 (Wikipedia's IOPS table, a SandForce-1200 drive with the
/// Vertex 2's firmware class), where its compressible writes reach the controller's 40 000.
/// The preset read at 40 000 when a read cost one write command.
#[test]
fn vertex2_random_reads_cost_more_controller_time_than_writes() {
    /// Read operations and seconds of a run.
    #[derive(Default)]
    struct Reads(u64, f64);
    impl IntervalSink for Reads {
        fn interval(&mut self, t0: f64, t1: f64, s: &IntervalStats) -> anyhow::Result<()> {
            self.0 += s.read.ops;
            self.1 += t1 - t0;
            Ok(())
        }
    }
    let mut engine = SimEngine::open("sim:vertex2-60g,scale=64,aged=0s,throttle=off").unwrap();
    let size = engine.identity().size_bytes;
    let fill = Workload {
        bs: 128 << 10,
        align: 128 << 10,
        random_pct: 0,
        qd: 32,
        duration: None,
        bytes: Some(size),
        ..seed_workload(size, MINUTE, Pattern::Random, 128 << 10)
    };
    let control = Control::default();
    engine.run(&fill, &control, &mut Reads::default()).unwrap();
    let reads = Workload {
        align: 4096,
        read_pct: 100,
        qd: 32,
        ..seed_workload(size, Duration::from_secs(10), Pattern::Random, 4096)
    };
    let mut r = Reads::default();
    engine.run(&reads, &control, &mut r).unwrap();
    within("random read at QD32", r.0 as f64 / r.1, 25_000.0, 0.15);
}
