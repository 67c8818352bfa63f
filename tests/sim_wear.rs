//! Wear-out of simulated drives: worn flash is slower (read retries, longer program and
//! erase), worn blocks retire and shrink the spare area (write amplification rises), and a
//! drive whose spare is used up goes read-only: writes fail with EROFS and `info` says why.

use std::time::Duration;

use ssdfade::engine::{Control, Engine, IntervalSink, RunEnd};
use ssdfade::pattern::Pattern;
use ssdfade::sim::{self, SimEngine};
use ssdfade::stats::IntervalStats;
use ssdfade::workload::Workload;

/// Operations counted over a run.
#[derive(Default)]
struct Count {
    ops: u64,
    seconds: f64,
}

impl IntervalSink for Count {
    fn interval(&mut self, t0: f64, t1: f64, s: &IntervalStats) -> anyhow::Result<()> {
        self.ops += s.read.ops + s.write.ops;
        self.seconds += t1 - t0;
        Ok(())
    }
}

/// 4 KiB random I/O over the whole drive at `qd` for a minute or `bytes`; returns how it ended
/// and its IOPS.
fn run(engine: &mut SimEngine, read_pct: u8, qd: u32, bytes: Option<u64>) -> (RunEnd, f64) {
    let size = engine.identity().size_bytes;
    let w = Workload {
        bs: 4096,
        align: 4096,
        read_pct,
        random_pct: 100,
        qd,
        span: size,
        duration: bytes.is_none().then_some(Duration::from_secs(60)),
        bytes,
        interval: Duration::from_secs(10),
        seed: 5,
        pattern: Pattern::Random,
        ..Default::default()
    };
    let mut c = Count::default();
    let end = engine.run(&w, &Control::default(), &mut c).unwrap();
    (end, c.ops as f64 / c.seconds)
}

#[test]
fn a_drive_past_its_rated_life_goes_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!(
        "sim:vertex2-60g,scale=64,aged=10years,state={}",
        dir.path().join("old.sim").display()
    );
    let mut engine = SimEngine::open(&spec).unwrap();
    let size = engine.identity().size_bytes;
    let (end, _) = run(&mut engine, 0, 32, Some(4 * size));
    match end {
        RunEnd::Failed(why) => assert!(why.contains("read-only file system (EROFS)"), "{why}"),
        other => panic!("writes past end of life should fail, run ended {other:?}"),
    }
    drop(engine);
    let w = sim::wear(&spec).unwrap();
    println!(
        "10 years: {:.0} P/E of {:?}, {} blocks retired, spare {} %, read-only {}",
        w.mean_pe, w.rated_pe, w.retired_blocks, w.available_spare_percent, w.read_only
    );
    assert!(w.read_only && w.retired_blocks > 0 && w.available_spare_percent < 10);
    // Reads still work.
    let (end, iops) = run(&mut SimEngine::open(&spec).unwrap(), 100, 32, None);
    assert_eq!(end, RunEnd::Completed);
    assert!(
        iops > 1000.0,
        "reads from a read-only drive: {iops:.0} IOPS"
    );
}

#[test]
fn worn_flash_reads_slower_and_retires_blocks() {
    let young = "sim:vertex2-60g,scale=64,aged=1month";
    let worn = "sim:vertex2-60g,scale=64,aged=28months";
    let reads = |spec| run(&mut SimEngine::open(spec).unwrap(), 100, 1, None).1;
    let (young_reads, worn_reads) = (reads(young), reads(worn));
    println!(
        "QD1 4 KiB random reads: 1 month {young_reads:.0} IOPS, 28 months {worn_reads:.0} IOPS"
    );
    // Each read also pays the host protocol, the link and the controller (~100 µs of its
    // ~200 µs at QD1), which the wear does not slow: the NAND part's slowdown shows diluted.
    assert!(worn_reads < 0.9 * young_reads);

    // Two drive-fills of random writes: the worn drive retires blocks, and its smaller spare
    // area costs write amplification.
    let fills = |spec: &str| {
        let dir = tempfile::tempdir().unwrap();
        let spec = format!("{spec},state={}", dir.path().join("d.sim").display());
        let before = sim::wear(&spec).unwrap();
        let mut engine = SimEngine::open(&spec).unwrap();
        let size = engine.identity().size_bytes;
        let (end, _) = run(&mut engine, 0, 32, Some(2 * size));
        assert_eq!(end, RunEnd::Completed, "{spec}");
        let after = sim::wear(&spec).unwrap();
        let wa = (after.nand_bytes_written - before.nand_bytes_written) as f64
            / (after.host_bytes_written - before.host_bytes_written) as f64;
        (wa, after)
    };
    let (young_wa, y) = fills(young);
    let (worn_wa, w) = fills(worn);
    println!(
        "two fills: 1 month WA {young_wa:.2} (spare {} %), 28 months WA {worn_wa:.2} (spare {} %, {} blocks retired)",
        y.available_spare_percent, w.available_spare_percent, w.retired_blocks
    );
    assert_eq!(y.retired_blocks, 0);
    assert!(w.retired_blocks > 0 && w.available_spare_percent < 100 && !w.read_only);
    assert!(worn_wa > young_wa * 1.02, "{worn_wa:.2} vs {young_wa:.2}");
}
