//! The engine's interval sink for a run: writes each interval as a sample, keeps the run totals
//! and passes each sample on to the observer.

use crate::engine::IntervalSink;
use crate::results::RunDir;
use crate::stats::{IntervalStats, Sample};

use super::RunObserver;

pub(super) struct Recorder<'a> {
    run_dir: RunDir,
    observer: &'a mut dyn RunObserver,
    total: IntervalStats,
    written: u64,
    index: u64,
    t_end: f64,
}

impl<'a> Recorder<'a> {
    pub(super) fn new(run_dir: RunDir, observer: &'a mut dyn RunObserver) -> Self {
        Recorder {
            run_dir,
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
        self.observer.sample(&sample);
        Ok(())
    }
}
