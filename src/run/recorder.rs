//! The engine's interval sink for a run: writes each interval as a sample, keeps the run totals
//! and passes each sample on to the observer. run.json's heartbeat follows the samples, at most
//! once a wall-clock second (a simulated run takes thousands of samples a second).

use std::time::{Duration, Instant};

use crate::engine::IntervalSink;
use crate::results::{utc_now, RunDir, RunInfo};
use crate::stats::{IntervalStats, Sample};

use super::RunObserver;

pub(super) struct Recorder<'a> {
    run_dir: RunDir,
    info: RunInfo,
    last_heartbeat: Instant,
    observer: &'a mut dyn RunObserver,
    total: IntervalStats,
    written: u64,
    index: u64,
    t_end: f64,
}

impl<'a> Recorder<'a> {
    pub(super) fn new(run_dir: RunDir, info: RunInfo, observer: &'a mut dyn RunObserver) -> Self {
        Recorder {
            run_dir,
            info,
            last_heartbeat: Instant::now(),
            observer,
            total: IntervalStats::new(),
            written: 0,
            index: 0,
            t_end: 0.0,
        }
    }

    /// The run directory, the totals over every interval and the end of the last one (s).
    pub(super) fn finish(self) -> (RunDir, IntervalStats, f64) {
        (self.run_dir, self.total, self.t_end)
    }
}

impl IntervalSink for Recorder<'_> {
    fn interval(
        &mut self,
        t_start_s: f64,
        t_end_s: f64,
        stats: &IntervalStats,
    ) -> anyhow::Result<()> {
        let sample = Sample::new(self.index, t_start_s, t_end_s, stats, self.written);
        self.run_dir.append(&sample)?;
        self.total.merge(stats);
        self.written = sample.bytes_written_total;
        self.index += 1;
        self.t_end = t_end_s;
        if self.last_heartbeat.elapsed() >= Duration::from_secs(1) {
            self.last_heartbeat = Instant::now();
            self.info.heartbeat_utc = Some(utc_now());
            self.run_dir.write_info(&self.info)?;
        }
        self.observer.sample(&sample);
        Ok(())
    }
}
