//! The engine's interval sink for a run: writes each interval as a sample, keeps the run totals,
//! follows steady state and passes each sample on to the observer. A run continued after a
//! crash carries on the same series: indexes, time and bytes written go on from its last sample.
//! run.json's heartbeat follows the samples, at most once a wall-clock second (a simulated run
//! takes thousands of samples a second). Each interval's latency histogram goes into
//! latency.hlog as its sample is written.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::IntervalSink;
use crate::results::hlog::HistogramLog;
use crate::results::verify::GrowingMap;
use crate::results::{utc_now, RunDir, RunInfo};
use crate::stats::steady::SteadyTracker;
use crate::stats::{IntervalStats, Sample};
use crate::verify::Verifier;

use super::predictor::Predictor;
use super::RunObserver;
use crate::results::Prediction;

pub(super) struct Recorder<'a> {
    run_dir: RunDir,
    /// latency.hlog, appended after each sample.
    latency_log: HistogramLog,
    info: RunInfo,
    last_heartbeat: Instant,
    observer: &'a mut dyn RunObserver,
    total: IntervalStats,
    written: u64,
    index: u64,
    /// Where this engine session's clock starts on the run's time line.
    t_offset: f64,
    t_end: f64,
    steady: SteadyTracker,
    /// Set when steady state is reached, if that ends the run.
    steady_stop: Option<Arc<AtomicBool>>,
    /// The steady state predicted as the samples come (random-write runs).
    predictor: Option<Predictor>,
    /// A run with --verify: its verifier and `verify.map`, brought up to date with run.json's
    /// heartbeat.
    map: Option<(Arc<Verifier>, GrowingMap)>,
    /// A real drive's telemetry sampler, whose latest reading goes into each sample.
    telemetry: Option<Arc<super::telemetry::Sampler>>,
}

impl<'a> Recorder<'a> {
    /// A recorder continuing after `previous` (empty for a new run).
    pub(super) fn new(
        run_dir: RunDir,
        info: RunInfo,
        observer: &'a mut dyn RunObserver,
        previous: &[Sample],
        steady: SteadyTracker,
        steady_stop: Option<Arc<AtomicBool>>,
        predictor: Option<Predictor>,
    ) -> anyhow::Result<Self> {
        let mixed = (1..100).contains(&info.workload.read_pct);
        let latency_log =
            HistogramLog::open(&run_dir.dir, &info.started_utc, &info.target.path, mixed)?;
        let (index, t_offset, written) = previous.last().map_or((0, 0.0, 0), |s| {
            (s.index + 1, s.t_end_s, s.bytes_written_total)
        });
        Ok(Recorder {
            run_dir,
            latency_log,
            info,
            last_heartbeat: Instant::now(),
            observer,
            total: IntervalStats::new(),
            written,
            index,
            t_offset,
            t_end: t_offset,
            steady,
            steady_stop,
            predictor,
            map: None,
            telemetry: None,
        })
    }

    /// Puts the latest reading of `sampler` into every sample the engine did not read itself.
    pub(super) fn reading(mut self, sampler: Option<Arc<super::telemetry::Sampler>>) -> Self {
        self.telemetry = sampler;
        self
    }

    /// Keeps `dir/verify.map` of `verifier` up to date as the run goes (a run with --verify).
    pub(super) fn keeping_map(mut self, verifier: Option<Arc<Verifier>>) -> anyhow::Result<Self> {
        if let Some(v) = verifier {
            let map = GrowingMap::create(&self.run_dir.dir, v.blocks())?;
            self.map = Some((v, map));
        }
        Ok(self)
    }

    /// The run directory, the totals over this session's intervals, where the session started
    /// and ended on the run's time line (s), the steady-state tracker and the last prediction.
    pub(super) fn finish(
        self,
    ) -> (
        RunDir,
        IntervalStats,
        f64,
        f64,
        SteadyTracker,
        Option<Prediction>,
    ) {
        // The last intervals' latencies reach the disk with the run's end (samples.jsonl's go
        // with the final run.json).
        if let Err(e) = self.latency_log.sync() {
            crate::note!("ssdfade: note: {e:#}");
        }
        (
            self.run_dir,
            self.total,
            self.t_offset,
            self.t_end,
            self.steady,
            self.predictor.and_then(Predictor::last),
        )
    }
}

impl IntervalSink for Recorder<'_> {
    fn interval(
        &mut self,
        t_start_s: f64,
        t_end_s: f64,
        stats: &IntervalStats,
    ) -> anyhow::Result<()> {
        let (t_start_s, t_end_s) = (t_start_s + self.t_offset, t_end_s + self.t_offset);
        let mut sample = Sample::new(self.index, t_start_s, t_end_s, stats, self.written);
        if sample.health.is_none() {
            sample.health = self.telemetry.as_ref().and_then(|t| t.latest());
        }
        self.run_dir.append(&sample)?;
        self.latency_log.append(t_start_s, t_end_s, stats)?;
        self.total.merge(stats);
        // The pauses as the sample records them (within the interval), for the summary.
        self.total.stopped_s += sample.stopped_s.unwrap_or(0.0);
        self.total.suspended_s += sample.suspended_s.unwrap_or(0.0);
        self.written = sample.bytes_written_total;
        self.index += 1;
        self.t_end = t_end_s;
        if self.last_heartbeat.elapsed() >= Duration::from_secs(1) {
            self.last_heartbeat = Instant::now();
            self.info.heartbeat_utc = Some(utc_now());
            self.latency_log.sync()?;
            self.run_dir.write_info(&self.info)?;
            if let Some((v, map)) = &mut self.map {
                map.update(&v.generations())?;
            }
        }
        if self.steady.push(&sample) {
            if let Some(flag) = &self.steady_stop {
                flag.store(true, Ordering::Relaxed);
            }
            // run.json records steady state for runs that write only.
            if self.info.workload.read_pct < 100 {
                self.observer.steady_reached(self.steady.state());
            }
        }
        if let Some(p) = self.predictor.as_mut().and_then(|p| p.push(&sample)) {
            self.observer.predicted(p);
        }
        self.observer.sample(&sample);
        Ok(())
    }
}
