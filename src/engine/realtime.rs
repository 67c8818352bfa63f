//! The driver shared by the real (wall-clock) engines: it starts workers, cuts time into
//! intervals on the monotonic clock, gathers each worker's private counts at every boundary and
//! stops them on the stop rule, an interrupt or a failure.
//!
//! Workers never lock: they check an epoch counter after each completion and, when it moved,
//! ship their counts over a channel and continue with a recycled, already-allocated set.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, OnceLock};
use std::time::{Duration, Instant};

use crossbeam::channel::{bounded, unbounded, Receiver, RecvTimeoutError, Sender};

use super::{Control, IntervalSink, RunEnd};
use crate::stats::{ErrorEvent, IntervalStats};
use crate::workload::{OnError, Workload};

/// How often the driver looks at the interrupt flag while waiting.
const POLL: Duration = Duration::from_millis(50);

/// State every worker of a run reads.
struct Shared {
    /// When every worker had finished setting up: the run's time zero.
    start: OnceLock<Instant>,
    /// Workers meet the driver here when set up, and again once `start` is set.
    ready: Barrier,
    go: Barrier,
    /// Nanoseconds from `start` to the end of the last worker to finish.
    done_ns: AtomicU64,
    epoch: AtomicU64,
    stop: AtomicBool,
    /// Bytes left under `--bytes`, if given.
    budget: Option<AtomicI64>,
    failure: OnceLock<String>,
    on_error: OnError,
}

/// One worker's counts for one interval (or its last, partial one).
struct Report {
    worker: usize,
    epoch: u64,
    last: bool,
    stats: IntervalStats,
}

/// A worker's handle on the run: its private counts and the run's shared state.
pub struct WorkerStats {
    id: usize,
    begun: bool,
    epoch: u64,
    current: IntervalStats,
    shared: Arc<Shared>,
    reports: Sender<Report>,
    spares: Receiver<IntervalStats>,
}

impl WorkerStats {
    /// Call once set up, before the first I/O: waits until every worker is ready, so that thread
    /// start-up and buffer set-up do not count as run time (fio does not count them either).
    pub fn begin(&mut self) {
        if !self.begun {
            self.begun = true;
            self.shared.ready.wait();
            self.shared.go.wait();
        }
    }

    /// Counts of the interval in progress.
    #[inline]
    pub fn current(&mut self) -> &mut IntervalStats {
        &mut self.current
    }

    /// Call after every completion: ships the counts when an interval boundary has passed.
    #[inline]
    pub fn tick(&mut self) {
        let epoch = self.shared.epoch.load(Ordering::Acquire);
        if epoch != self.epoch {
            let fresh = self.spares.recv().unwrap_or_default();
            let done = std::mem::replace(&mut self.current, fresh);
            let _ = self.reports.send(Report {
                worker: self.id,
                epoch: self.epoch,
                last: false,
                stats: done,
            });
            self.epoch = epoch;
        }
    }

    /// True once the run should end.
    #[inline]
    pub fn should_stop(&self) -> bool {
        self.shared.stop.load(Ordering::Relaxed)
    }

    /// Takes `bytes` from the `--bytes` budget; false when it is used up.
    #[inline]
    pub fn claim(&self, bytes: u64) -> bool {
        match &self.shared.budget {
            None => true,
            Some(left) => left.fetch_sub(bytes as i64, Ordering::Relaxed) >= bytes as i64,
        }
    }

    /// Seconds since the run started.
    pub fn now_s(&mut self) -> f64 {
        self.start().elapsed().as_secs_f64()
    }

    /// The instant the run started (latency and error times are measured against it).
    pub fn start(&mut self) -> Instant {
        self.begin();
        *self
            .shared
            .start
            .get()
            .expect("start is set before workers go")
    }

    /// Records a failed I/O; returns true when the run must stop because of it.
    pub fn error(&mut self, event: ErrorEvent) -> bool {
        let stop = self.shared.on_error == OnError::Stop;
        if stop {
            self.end_run(&event);
        }
        self.current.record_error(event);
        stop
    }

    /// Records a failure of the engine itself: the run ends whatever `--on-error` says.
    pub fn fatal(&mut self, event: ErrorEvent) {
        self.end_run(&event);
        self.current.record_error(event);
    }

    fn end_run(&self, event: &ErrorEvent) {
        let what = event.describe();
        let _ = self.shared.failure.set(what);
        self.shared.stop.store(true, Ordering::Relaxed);
    }

    /// Ships the last counts; the worker is done.
    pub fn finish(mut self) {
        let done = self.start().elapsed().as_nanos() as u64;
        self.shared.done_ns.fetch_max(done, Ordering::Relaxed);
        self.tick();
        let stats = std::mem::take(&mut self.current);
        let _ = self.reports.send(Report {
            worker: self.id,
            epoch: self.epoch,
            last: true,
            stats,
        });
    }
}

/// Runs `workers` workers, each started by `spawn(index, stats)` on its own thread, and samples
/// them every `workload.interval` until the stop rule, an interrupt or a failure.
pub fn drive<F>(
    workload: &Workload,
    control: &Control,
    sink: &mut dyn IntervalSink,
    workers: usize,
    spawn: F,
) -> anyhow::Result<RunEnd>
where
    F: Fn(usize, WorkerStats) + Send + Sync,
{
    let shared = Arc::new(Shared {
        start: OnceLock::new(),
        ready: Barrier::new(workers + 1),
        go: Barrier::new(workers + 1),
        done_ns: AtomicU64::new(0),
        epoch: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        budget: workload.bytes.map(|b| AtomicI64::new(b as i64)),
        failure: OnceLock::new(),
        on_error: workload.on_error,
    });
    let (report_tx, report_rx) = unbounded::<Report>();
    let mut spare_txs = Vec::with_capacity(workers);
    let mut handles = Vec::with_capacity(workers);
    for id in 0..workers {
        let (spare_tx, spare_rx) = bounded::<IntervalStats>(2);
        spare_tx.send(IntervalStats::new()).expect("fresh channel");
        spare_txs.push(spare_tx);
        handles.push(WorkerStats {
            id,
            begun: false,
            epoch: 0,
            current: IntervalStats::new(),
            shared: shared.clone(),
            reports: report_tx.clone(),
            spares: spare_rx,
        });
    }
    drop(report_tx);

    std::thread::scope(|scope| {
        let spawn = &spawn;
        for (id, handle) in handles.into_iter().enumerate() {
            std::thread::Builder::new()
                .name(format!("ssdfade-io-{id}"))
                .spawn_scoped(scope, move || spawn(id, handle))
                .expect("spawning an I/O thread");
        }
        shared.ready.wait();
        let start = Instant::now();
        shared.start.set(start).expect("start is set once");
        shared.go.wait();
        let mut sampler = Sampler {
            shared: &shared,
            reports: &report_rx,
            spares: &spare_txs,
            live: vec![true; workers],
            current: IntervalStats::new(),
            next: IntervalStats::new(),
        };
        let result = sampler.run(start, workload, control, sink);
        // Whatever happened, make the workers stop and wait for them (the scope joins).
        shared.stop.store(true, Ordering::Relaxed);
        if result.is_err() {
            while report_rx.recv().is_ok() {}
        }
        result
    })
}

struct Sampler<'a> {
    shared: &'a Shared,
    reports: &'a Receiver<Report>,
    spares: &'a [Sender<IntervalStats>],
    live: Vec<bool>,
    current: IntervalStats,
    next: IntervalStats,
}

impl Sampler<'_> {
    fn run(
        &mut self,
        start: Instant,
        workload: &Workload,
        control: &Control,
        sink: &mut dyn IntervalSink,
    ) -> anyhow::Result<RunEnd> {
        let deadline = workload.duration.map(|d| start + d);
        let mut t_prev = 0.0;
        let mut index: u32 = 0;
        loop {
            let boundary = start + workload.interval * (index + 1);
            let until = deadline.map_or(boundary, |d| d.min(boundary));
            let mut interrupted = false;
            // Wait for the boundary; meanwhile only final reports (workers out of budget) arrive.
            while self.live.iter().any(|&l| l) {
                let now = Instant::now();
                if now >= until {
                    break;
                }
                if control.interrupted.load(Ordering::Relaxed) {
                    interrupted = true;
                    break;
                }
                if self.shared.stop.load(Ordering::Relaxed) {
                    break;
                }
                match self.reports.recv_timeout((until - now).min(POLL)) {
                    Ok(r) => self.absorb(r, u64::from(index)),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            let all_done = !self.live.iter().any(|&l| l);
            let out_of_time = deadline.is_some_and(|d| Instant::now() >= d);
            let stopping = self.shared.stop.load(Ordering::Relaxed);
            if all_done || interrupted || out_of_time || stopping {
                self.shared.stop.store(true, Ordering::Relaxed);
                self.collect(u64::from(index), true);
                // The run ended when its last I/O did, not when the counts were merged.
                let done = self.shared.done_ns.load(Ordering::Relaxed);
                let t_end = if done > 0 {
                    done as f64 / 1e9
                } else {
                    start.elapsed().as_secs_f64()
                }
                .max(t_prev);
                sink.interval(t_prev, t_end, &self.current)?;
                return Ok(if let Some(why) = self.shared.failure.get() {
                    RunEnd::Failed(why.clone())
                } else if interrupted {
                    RunEnd::Interrupted
                } else {
                    RunEnd::Completed
                });
            }
            self.shared
                .epoch
                .store(u64::from(index) + 1, Ordering::Release);
            let t_end = start.elapsed().as_secs_f64();
            self.collect(u64::from(index), false);
            sink.interval(t_prev, t_end, &self.current)?;
            self.current.clear();
            std::mem::swap(&mut self.current, &mut self.next);
            t_prev = t_end;
            index += 1;
        }
    }

    /// Waits until every live worker has reported for `epoch` (its last report, when `last`).
    fn collect(&mut self, epoch: u64, last: bool) {
        let mut pending: Vec<bool> = self.live.clone();
        while pending.iter().any(|&p| p) {
            let Ok(r) = self.reports.recv() else { break };
            let (worker, r_epoch, r_last) = (r.worker, r.epoch, r.last);
            self.absorb(r, epoch);
            if r_epoch == epoch && (!last || r_last) {
                pending[worker] = false;
            }
            if r_last {
                pending[worker] = false;
            }
        }
    }

    /// Adds a report to the interval it belongs to and recycles its memory.
    fn absorb(&mut self, mut r: Report, epoch: u64) {
        if r.epoch == epoch {
            self.current.merge(&r.stats);
        } else {
            self.next.merge(&r.stats);
        }
        if r.last {
            self.live[r.worker] = false;
        } else {
            r.stats.clear();
            let _ = self.spares[r.worker].send(r.stats);
        }
    }
}
