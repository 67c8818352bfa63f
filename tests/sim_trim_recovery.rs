//! SandForce's incomplete TRIM on `vertex2-60g`: after a fill with incompressible data a
//! full-drive TRIM restores only part of the fresh speed (the FTL keeps the flash of part of
//! the trimmed pages), while a secure erase restores it.

use std::time::Duration;

use ssdfade::engine::{Control, Engine, IntervalSink};
use ssdfade::pattern::Pattern;
use ssdfade::sim::{self, SimDrive, SimEngine, SimErase};
use ssdfade::stats::IntervalStats;
use ssdfade::workload::Workload;

#[derive(Default)]
struct Count {
    ops: u64,
    seconds: f64,
}

impl IntervalSink for Count {
    fn interval(&mut self, t0: f64, t1: f64, s: &IntervalStats) -> anyhow::Result<()> {
        self.ops += s.write.ops;
        self.seconds += t1 - t0;
        Ok(())
    }
}

/// Writes with `bs` (`random`: 4 KiB-aligned random offsets, else sequential) and
/// incompressible data for `duration` or `bytes`; returns the IOPS.
fn write(spec: &str, bs: u64, random: bool, duration: Option<Duration>, bytes: Option<u64>) -> f64 {
    let mut engine = SimEngine::open(spec).unwrap();
    let w = Workload {
        bs,
        align: bs,
        read_pct: 0,
        random_pct: if random { 100 } else { 0 },
        qd: 32,
        span: engine.identity().size_bytes,
        duration,
        bytes,
        interval: Duration::from_secs(10),
        seed: 3,
        pattern: Pattern::Random,
        ..Default::default()
    };
    let mut c = Count::default();
    engine.run(&w, &Control::default(), &mut c).unwrap();
    c.ops as f64 / c.seconds
}

fn measure(spec: &str) -> f64 {
    write(spec, 4096, true, Some(Duration::from_secs(30)), None)
}

#[test]
fn trim_after_an_incompressible_fill_restores_part_a_secure_erase_all() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!(
        "sim:vertex2-60g,aged=0s,scale=64,state={}",
        dir.path().join("v2.sim").display()
    );
    let size = sim::identity(&spec).unwrap().size_bytes;
    let fresh = measure(&spec);
    // Fill with incompressible data, then a drive's worth of random writes (dirty).
    write(&spec, 128 << 10, false, None, Some(size));
    write(&spec, 4096, true, None, Some(size));
    let dirty = measure(&spec);
    let erase = |how| {
        SimDrive::open_kept(&spec, "an erase")
            .unwrap()
            .erase(how)
            .unwrap()
    };
    let line = erase(SimErase::Trim {
        offset: 0,
        len: size,
    });
    assert!(line.contains("deallocated"), "{line}");
    // Every page reads as trimmed, yet part of the flash stays allocated.
    let after_trim = sim::wear(&spec).unwrap();
    assert_eq!(after_trim.mapped_bytes, 0);
    let kept = after_trim.kept_bytes as f64 / size as f64;
    let trimmed = measure(&spec);
    erase(SimErase::Secure);
    assert_eq!(sim::wear(&spec).unwrap().kept_bytes, 0);
    let erased = measure(&spec);
    println!(
        "fresh {fresh:.0}, dirty {dirty:.0}, after TRIM {trimmed:.0} ({:.0} % of the flash kept), after secure erase {erased:.0} IOPS",
        kept * 100.0
    );
    assert!((0.6..0.9).contains(&kept), "kept {kept}");
    assert!(dirty < 0.5 * fresh, "dirty {dirty} against fresh {fresh}");
    assert!(
        trimmed > dirty && trimmed < 0.8 * fresh,
        "after TRIM {trimmed}: dirty {dirty}, fresh {fresh}"
    );
    assert!(
        erased > 1.2 * trimmed,
        "after secure erase {erased}, TRIM {trimmed}"
    );
    assert!(
        erased > 0.95 * fresh,
        "after secure erase {erased}, fresh {fresh}"
    );
}

#[test]
fn trim_frees_compressible_data_fully() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!(
        "sim:vertex2-60g,aged=0s,scale=64,state={}",
        dir.path().join("v2.sim").display()
    );
    let size = sim::identity(&spec).unwrap().size_bytes;
    let mut engine = SimEngine::open(&spec).unwrap();
    let w = Workload {
        bs: 128 << 10,
        align: 128 << 10,
        read_pct: 0,
        random_pct: 0,
        qd: 32,
        span: size,
        duration: None,
        bytes: Some(size),
        interval: Duration::from_secs(10),
        seed: 3,
        pattern: Pattern::Repeat,
        ..Default::default()
    };
    engine
        .run(&w, &Control::default(), &mut Count::default())
        .unwrap();
    drop(engine);
    assert!(sim::wear(&spec).unwrap().mapped_bytes > size / 2);
    SimDrive::open_kept(&spec, "an erase")
        .unwrap()
        .erase(SimErase::Trim {
            offset: 0,
            len: size,
        })
        .unwrap();
    let w = sim::wear(&spec).unwrap();
    assert_eq!((w.mapped_bytes, w.kept_bytes), (0, 0));
}
