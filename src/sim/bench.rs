//! `sim bench`: how fast the model runs, timed on 4 KiB random writes into a new drive.

use std::time::{Duration, Instant};

use super::{SimEngine, SimSpec};
use crate::engine::{Control, Engine, IntervalSink};
use crate::pattern::Pattern;
use crate::stats::IntervalStats;
use crate::workload::Workload;

/// What one benchmark measured.
pub struct BenchReport {
    /// Simulated host writes (4 KiB each).
    pub writes: u64,
    /// Seconds to build the model.
    pub build_s: f64,
    /// Seconds to run the writes.
    pub run_s: f64,
    pub write_amplification: f64,
    /// The drive's power-on time afterwards, simulated seconds.
    pub simulated_s: f64,
}

/// Discards intervals (the benchmark only wants the time).
struct Discard;

impl IntervalSink for Discard {
    fn interval(&mut self, _: f64, _: f64, _: &IntervalStats) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Times `writes` (default: twice the user pages) 4 KiB random writes aligned to `align` on a
/// new drive of `target`, which must have no `state=` file.
pub fn bench(target: &str, writes: Option<u64>, align: u64) -> anyhow::Result<BenchReport> {
    let spec = SimSpec::parse(target)?;
    if spec.state.is_some() {
        crate::bad_input!(
            "sim bench writes hundreds of MiB into the drive it times, so it takes no state= drive: remove state= from {target}"
        );
    }
    let writes = writes.unwrap_or(2 * u64::from(spec.user_pages()));
    let t0 = Instant::now();
    let mut engine = SimEngine::open(target)?;
    let build_s = t0.elapsed().as_secs_f64();
    let workload = Workload {
        bs: 4096,
        align,
        read_pct: 0,
        random_pct: 100,
        qd: 128,
        span: spec.size_bytes(),
        duration: None,
        bytes: Some(writes * 4096 * u64::from(spec.scale)),
        interval: Duration::from_secs(10),
        seed: 1,
        pattern: Pattern::Random,
        ..Default::default()
    };
    workload.validate(spec.size_bytes(), 512)?;
    let t1 = Instant::now();
    engine.run(&workload, &Control::default(), &mut Discard)?;
    let run_s = t1.elapsed().as_secs_f64();
    Ok(BenchReport {
        writes,
        build_s,
        run_s,
        write_amplification: super::wear_of(engine.device()).write_amplification,
        simulated_s: engine.device().lifetime().power_on_s,
    })
}
