//! The driver shared by the real (wall-clock) engines: it starts workers, cuts time into
//! intervals on the monotonic clock, gathers each worker's private counts at every boundary and
//! stops them on the stop rule, an interrupt or a failure.
//!
//! The clock starts when the last worker issues its first I/O: on a loaded machine with more
//! workers than CPUs, the last of them can wait a second for a CPU after the others began, and
//! counting from the release would report a queue depth the run did not have. What completes
//! before the start is warm-up: not counted, and given back to the `--bytes` budget.
//!
//! Workers never lock, and never touch a latency histogram: each keeps its interval's
//! latencies in a list that it ships with its counts (or on its own when full), and the driver
//! records them into the interval's one histogram. A histogram per worker (229 KiB of counts
//! per direction) missed the cache on almost every I/O at QD 32, where 32 of them span more
//! than a core's cache; the driver recording a list at a time keeps one histogram's few hot
//! lines in cache (docs/performance-cpu.md).
//!
//! Each I/O's completion time decides its interval: a worker that sees a
//! completion past the next boundary ships its counts over a channel and continues with a
//! recycled, already-allocated set, and one past the `--duration` stops issuing. The grid and
//! the run's length therefore do not depend on when the driver's own thread gets a CPU, which at
//! QD 128 on a few cores can be hundreds of milliseconds late.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crossbeam::channel::{bounded, unbounded, Receiver, RecvTimeoutError, Sender};

use super::clock::Stamp;
use super::pace;
use super::stopwatch::StopWatch;
use super::{Control, IntervalSink, RunEnd};
use crate::stats::{ErrorEvent, IntervalStats, LatencyTally, OpKind, Pacing};
use crate::workload::{OnError, Rate, Workload};

/// How often the driver looks at the interrupt flag while waiting.
const POLL: Duration = Duration::from_millis(50);
/// Latencies a worker keeps before it ships them mid-interval.
const LATENCY_BATCH: usize = 4096;
/// The low two bits of a shipped latency: its direction.
const KIND_BITS: u32 = 2;
const READ: u64 = 0;
const WRITE: u64 = 1;
const TRIM: u64 = 2;

/// State every worker of a run reads.
struct Shared {
    /// When every worker had finished setting up: the run's time zero.
    start: OnceLock<Instant>,
    /// The start gate, built without a lock (see [`WorkerStats::begin`]): workers count
    /// themselves `ready` when set up, the last one wakes the driver, which raises `go` and
    /// unparks each worker; each counts itself `issuing` before its first I/O, and the last to
    /// do so sets `start` and wakes the driver again.
    workers: usize,
    ready: AtomicUsize,
    go: AtomicBool,
    issuing: AtomicUsize,
    driver: Thread,
    interval: Duration,
    /// `--duration`, if given.
    duration: Option<Duration>,
    /// Index of the last interval when `--duration` is given: I/Os completing after the
    /// deadline belong to it rather than to an interval of their own.
    last_index: u64,
    /// Nanoseconds from `start` to the last completion of any worker.
    done_ns: AtomicU64,
    stop: AtomicBool,
    /// Bytes left under `--bytes`, if given.
    budget: Option<AtomicI64>,
    failure: OnceLock<String>,
    on_error: OnError,
    /// The issue schedule under `--rate-iops` / `--rate`: I/O n is due at `origin` + n / rate.
    pacer: Option<Pacer>,
    /// When the process itself was stopped (set by the driver once the run has started).
    watch: OnceLock<std::sync::Arc<StopWatch>>,
}

/// An open-loop schedule shared by every worker: each I/O takes the next ticket, whose due time
/// depends on nothing that completed, so a slow device makes I/Os late instead of slowing the
/// schedule.
struct Pacer {
    rate: Rate,
    bs: u64,
    /// Set by the driver right before it releases the workers: the schedule's time zero.
    origin: OnceLock<Instant>,
    tickets: AtomicU64,
    /// No I/O is due at or after this far from `origin` (the `--duration`).
    horizon_ns: u64,
}

/// One worker's counts for one interval (or its last, partial one).
struct Report {
    worker: usize,
    /// The interval the counts belong to.
    epoch: u64,
    /// The worker has finished every interval before this one.
    next: u64,
    last: bool,
    /// The interval's counts; `None` for a list of latencies shipped because it was full.
    stats: Option<IntervalStats>,
    /// Latencies of I/Os of `epoch`, each `ns << KIND_BITS | kind` (READ, WRITE, TRIM): the histograms of
    /// `stats` are empty.
    latencies: Vec<u64>,
}

/// A worker's handle on the run: its private counts and the run's shared state.
pub struct WorkerStats {
    id: usize,
    begun: bool,
    /// Set at the first completion after `start`: what came before was warm-up.
    counting: bool,
    epoch: u64,
    /// The run's start (set at the first completion after it).
    start: Stamp,
    /// When interval `epoch` ends (set once the run has started).
    boundary: Option<Stamp>,
    deadline: Option<Stamp>,
    past_deadline: bool,
    last_completion: Option<Stamp>,
    current: IntervalStats,
    /// Latencies of the interval in progress (see [`Report::latencies`]).
    latencies: Vec<u64>,
    shared: Arc<Shared>,
    reports: Sender<Report>,
    spares: Receiver<IntervalStats>,
    /// Emptied latency lists back from the driver.
    spare_lists: Receiver<Vec<u64>>,
}

impl WorkerStats {
    /// Call once set up, right before the first I/O: waits until every worker is ready, so that
    /// thread start-up and buffer set-up do not count as run time (fio does not count them
    /// either), then counts this worker as issuing.
    ///
    /// No mutex here: with `std::sync::Barrier` every released worker had to take the barrier's
    /// lock in turn, and at QD 128 on two CPUs each hand-over waited behind the workers already
    /// issuing I/O, so they trickled out at ~16 per second and the first interval ran with a
    /// fraction of the queue depth. Parked threads woken one by one all become runnable at once.
    pub fn begin(&mut self) {
        if self.begun {
            return;
        }
        self.begun = true;
        let shared = &self.shared;
        if shared.ready.fetch_add(1, Ordering::AcqRel) + 1 == shared.workers {
            shared.driver.unpark();
        }
        while !shared.go.load(Ordering::Acquire) {
            std::thread::park();
        }
        if shared.issuing.fetch_add(1, Ordering::AcqRel) + 1 == shared.workers {
            shared
                .start
                .set(Instant::now())
                .expect("only the last worker to issue sets start");
            shared.driver.unpark();
        }
    }

    /// Leaves warm-up once `completed` falls after the start: drops what warm-up counted (but
    /// not its errors) and gives its bytes back to the `--bytes` budget.
    fn start_counting(&mut self, completed: Stamp) {
        let Some(&start) = self.shared.start.get() else {
            return;
        };
        let start = Stamp::of(start);
        if completed < start {
            return;
        }
        self.counting = true;
        self.start = start;
        let warm_up = self.current.read.bytes + self.current.write.bytes + self.current.trim.bytes;
        if let Some(left) = &self.shared.budget {
            left.fetch_add(warm_up as i64, Ordering::Relaxed);
        }
        for dir in [
            &mut self.current.read,
            &mut self.current.write,
            &mut self.current.trim,
        ] {
            (dir.ops, dir.bytes, dir.max_ns) = (0, 0, 0);
        }
        self.latencies.clear();
        self.current.pacing = Pacing::default();
        self.boundary = Some(start.after_ns(self.shared.interval.as_nanos() as u64));
        self.deadline = self
            .shared
            .duration
            .map(|d| start.after_ns(d.as_nanos() as u64));
    }

    /// Counts one completed I/O of `bytes` and `latency_ns` (call after [`WorkerStats::tick`]).
    #[inline]
    pub fn record(&mut self, op: OpKind, bytes: u64, latency_ns: u64) {
        let dir = self.current.dir_mut(op);
        dir.ops += 1;
        dir.bytes += bytes;
        dir.max_ns = dir.max_ns.max(latency_ns);
        let kind = match op {
            OpKind::Read => READ,
            OpKind::Write => WRITE,
            OpKind::Trim => TRIM,
        };
        self.latencies.push(latency_ns.max(1) << KIND_BITS | kind);
        // Warm-up keeps its whole list: it is dropped at the start, or all the run did.
        if self.latencies.len() >= LATENCY_BATCH && self.counting {
            self.ship_latencies();
        }
    }

    /// Ships the latency list, full, ahead of the interval's counts.
    #[cold]
    fn ship_latencies(&mut self) {
        let latencies = self.take_latencies();
        let _ = self.reports.send(Report {
            worker: self.id,
            epoch: self.epoch,
            next: self.epoch,
            last: false,
            stats: None,
            latencies,
        });
    }

    /// The interval's latency list, replaced by an emptied one back from the driver (a new one
    /// only when the driver is behind).
    fn take_latencies(&mut self) -> Vec<u64> {
        let fresh = self
            .spare_lists
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(LATENCY_BATCH));
        std::mem::replace(&mut self.latencies, fresh)
    }

    /// Call after every completion, with its time and before recording it: ships the counts
    /// when the completion falls past the interval's end, and ends the worker's issuing once
    /// it falls past the `--duration`.
    #[inline]
    pub fn tick(&mut self, completed: Stamp) {
        if !self.counting {
            self.start_counting(completed);
            if !self.counting {
                return;
            }
        }
        self.last_completion = Some(completed);
        if self.deadline.is_some_and(|d| completed >= d) {
            self.past_deadline = true;
        }
        let Some(boundary) = self.boundary else {
            return;
        };
        if completed < boundary || self.epoch >= self.shared.last_index {
            return;
        }
        let interval = self.shared.interval.as_nanos() as u64;
        let index = completed.ns_since(self.start) / interval;
        let next = index.min(self.shared.last_index);
        self.ship(next);
        self.boundary = Some(self.start.after_ns(interval.saturating_mul(next + 1)));
    }

    /// Sends the counts of the interval in progress; the worker continues in interval `next`.
    fn ship(&mut self, next: u64) {
        // A spare comes back from the driver each interval; only a driver more than an
        // interval behind makes the worker allocate.
        let fresh = self
            .spares
            .try_recv()
            .unwrap_or_else(|_| IntervalStats::counts_only());
        let done = std::mem::replace(&mut self.current, fresh);
        let latencies = self.take_latencies();
        let _ = self.reports.send(Report {
            worker: self.id,
            epoch: self.epoch,
            next,
            last: false,
            stats: Some(done),
            latencies,
        });
        self.epoch = next;
    }

    /// True once the run should end.
    #[inline]
    pub fn should_stop(&self) -> bool {
        self.past_deadline || self.shared.stop.load(Ordering::Relaxed)
    }

    /// Takes `bytes` from the `--bytes` budget; false when it is used up.
    #[inline]
    pub fn claim(&self, bytes: u64) -> bool {
        match &self.shared.budget {
            None => true,
            Some(left) => left.fetch_sub(bytes as i64, Ordering::Relaxed) >= bytes as i64,
        }
    }

    /// Under an issue rate, claims the next I/O of the schedule and returns when it is due
    /// (`Some(None)` without a rate); `None` when it would fall after the `--duration`.
    #[inline]
    pub fn next_due(&self) -> Option<Option<Instant>> {
        let Some(pacer) = &self.shared.pacer else {
            return Some(None);
        };
        let n = pacer.tickets.fetch_add(1, Ordering::Relaxed);
        let due_ns = pacer.rate.due_ns(n, pacer.bs);
        if due_ns >= pacer.horizon_ns {
            return None;
        }
        let origin = *pacer
            .origin
            .get()
            .expect("the schedule starts before the workers");
        Some(Some(origin + Duration::from_nanos(due_ns)))
    }

    /// Counts how far behind its due time an I/O that completed was issued (call after
    /// [`WorkerStats::tick`], with the latency).
    #[inline]
    pub fn paced(&mut self, due: Option<Instant>, issued: Stamp) {
        if let Some(due) = due {
            let lag = issued.ns_since(Stamp::of(due));
            self.current.pacing.record(lag);
        }
    }

    /// The drive's part of the latency of an I/O issued at `issued` and completed at
    /// `completed`: less the time the process itself was stopped meanwhile, so that an I/O in
    /// flight across a SIGSTOP does not carry the pause into the mean, p99 and max (the
    /// interval records the pause as `stopped_s`). Only a wait long enough to hold a stop is
    /// looked into.
    #[inline]
    pub fn latency_ns(&self, issued: Stamp, completed: Stamp) -> u64 {
        let ns = completed.ns_since(issued);
        if !StopWatch::could_hold_a_stop(ns) {
            return ns;
        }
        let Some(watch) = self.shared.watch.get() else {
            return ns;
        };
        let stopped = watch.stopped_within(self.since_start(issued), self.since_start(completed));
        ns.saturating_sub((stopped * 1e9) as u64).max(1)
    }

    /// Seconds since the run started.
    pub fn now_s(&mut self) -> f64 {
        self.begin();
        self.since_start(Stamp::now())
    }

    /// Seconds from the run's start to `t` (0 during warm-up).
    pub fn since_start(&self, t: Stamp) -> f64 {
        self.shared
            .start
            .get()
            .map_or(0.0, |&start| t.ns_since(Stamp::of(start)) as f64 * 1e-9)
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
    ///
    /// A worker that ends still in warm-up (the whole `--bytes` budget went before every worker
    /// had started) keeps its counts: they are all the run did.
    pub fn finish(mut self) {
        self.begin();
        if let (Some(last), Some(&start)) = (self.last_completion, self.shared.start.get()) {
            let done = last.ns_since(Stamp::of(start));
            self.shared.done_ns.fetch_max(done, Ordering::Relaxed);
        }
        let _ = self.reports.send(Report {
            worker: self.id,
            epoch: self.epoch,
            next: self.epoch,
            last: true,
            stats: Some(self.current),
            latencies: self.latencies,
        });
    }
}

/// Runs one worker per item of `setup` (what was set up for it before any worker starts: its
/// I/O buffers), each started by `spawn(index, item, stats)` on its own thread, and samples them
/// every `workload.interval` until the stop rule, an interrupt or a failure.
pub fn drive<S, F>(
    workload: &Workload,
    control: &Control,
    sink: &mut dyn IntervalSink,
    setup: Vec<S>,
    spawn: F,
) -> anyhow::Result<RunEnd>
where
    S: Send,
    F: Fn(usize, S, WorkerStats) + Send + Sync,
{
    let workers = setup.len();
    // The stamps' epoch, before any time the run takes.
    Stamp::now();
    let last_index = workload.duration.map_or(u64::MAX, |d| {
        let n = d.as_nanos().div_ceil(workload.interval.as_nanos()).max(1);
        u64::try_from(n - 1).unwrap_or(u64::MAX)
    });
    let shared = Arc::new(Shared {
        start: OnceLock::new(),
        workers,
        ready: AtomicUsize::new(0),
        go: AtomicBool::new(false),
        issuing: AtomicUsize::new(0),
        driver: std::thread::current(),
        interval: workload.interval,
        duration: workload.duration,
        last_index,
        done_ns: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        budget: workload.bytes.map(|b| AtomicI64::new(b as i64)),
        failure: OnceLock::new(),
        on_error: workload.on_error,
        pacer: workload.rate.map(|rate| Pacer {
            rate,
            bs: workload.bs,
            origin: OnceLock::new(),
            tickets: AtomicU64::new(0),
            horizon_ns: workload.duration.map_or(u64::MAX, |d| {
                u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
            }),
        }),
        watch: OnceLock::new(),
    });
    let (report_tx, report_rx) = unbounded::<Report>();
    let mut spare_txs = Vec::with_capacity(workers);
    let mut list_txs = Vec::with_capacity(workers);
    let mut handles = Vec::with_capacity(workers);
    for id in 0..workers {
        let (spare_tx, spare_rx) = bounded::<IntervalStats>(2);
        spare_tx
            .send(IntervalStats::counts_only())
            .expect("fresh channel");
        spare_txs.push(spare_tx);
        let (list_tx, list_rx) = bounded::<Vec<u64>>(4);
        list_txs.push(list_tx);
        handles.push(WorkerStats {
            id,
            begun: false,
            counting: false,
            epoch: 0,
            start: Stamp::default(),
            boundary: None,
            deadline: None,
            past_deadline: false,
            last_completion: None,
            current: IntervalStats::counts_only(),
            latencies: Vec::with_capacity(LATENCY_BATCH),
            shared: shared.clone(),
            reports: report_tx.clone(),
            spares: spare_rx,
            spare_lists: list_rx,
        });
    }
    drop(report_tx);

    std::thread::scope(|scope| {
        let spawn = &spawn;
        let mut threads: Vec<Thread> = Vec::with_capacity(workers);
        for (id, (handle, item)) in handles.into_iter().zip(setup).enumerate() {
            let started = std::thread::Builder::new()
                .name(format!("ssdfade-io-{id}"))
                .spawn_scoped(scope, move || spawn(id, item, handle));
            match started {
                Ok(t) => threads.push(t.thread().clone()),
                Err(e) => {
                    // The workers already started wait for all the others: release them
                    // into a run that is already stopped (the scope then joins them).
                    shared.stop.store(true, Ordering::Relaxed);
                    shared.go.store(true, Ordering::Release);
                    for thread in &threads {
                        thread.unpark();
                    }
                    anyhow::bail!(
                        "cannot start I/O thread {} of {workers} ({e}): lower --qd",
                        id + 1
                    );
                }
            }
        }
        while shared.ready.load(Ordering::Acquire) < workers {
            std::thread::park();
        }
        if let Some(pacer) = &shared.pacer {
            pace::sleep_granularity();
            let _ = pacer.origin.set(Instant::now());
        }
        shared.go.store(true, Ordering::Release);
        for thread in &threads {
            thread.unpark();
        }
        let start = loop {
            if let Some(&start) = shared.start.get() {
                break start;
            }
            std::thread::park();
        };
        let watch = std::sync::Arc::new(StopWatch::new(start));
        let _ = shared.watch.set(watch.clone());
        let ticking = watch.clone();
        let stop = &shared.stop;
        // Without the ticker a stop goes unnoticed, as before: not a reason to fail the run.
        let _ = std::thread::Builder::new()
            .name("ssdfade-stopwatch".into())
            .spawn_scoped(scope, move || ticking.run(stop));
        let mut sampler = Sampler {
            shared: &shared,
            reports: &report_rx,
            spares: &spare_txs,
            spare_lists: &list_txs,
            live: vec![true; workers],
            finished_before: vec![0; workers],
            first: 0,
            pending: VecDeque::new(),
            watch,
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

/// An interval still taking reports: its counts, and its latencies tallied per direction
/// until it closes (recording each into the histogram costs several times as much).
struct Open {
    stats: IntervalStats,
    read: LatencyTally,
    write: LatencyTally,
    trim: LatencyTally,
}

impl Default for Open {
    fn default() -> Self {
        Open {
            stats: IntervalStats::new(),
            read: LatencyTally::default(),
            write: LatencyTally::default(),
            trim: LatencyTally::default(),
        }
    }
}

impl Open {
    /// The interval's counts, its latencies in its histograms.
    fn close(mut self) -> IntervalStats {
        self.read.add_to(&mut self.stats.read.latency_ns);
        self.write.add_to(&mut self.stats.write.latency_ns);
        self.trim.add_to(&mut self.stats.trim.latency_ns);
        self.stats
    }
}

/// What [`Sampler::collect`] waits for.
#[derive(Clone, Copy)]
enum Until {
    /// Every live worker has finished the interval of this index.
    Past(u64),
    /// Every worker has sent its last report.
    Last,
}

struct Sampler<'a> {
    shared: &'a Shared,
    reports: &'a Receiver<Report>,
    spares: &'a [Sender<IntervalStats>],
    spare_lists: &'a [Sender<Vec<u64>>],
    live: Vec<bool>,
    /// Per worker: every interval before this one is complete.
    finished_before: Vec<u64>,
    /// Index of the interval `pending[0]` counts.
    first: u64,
    pending: VecDeque<Open>,
    /// When the process itself was stopped.
    watch: std::sync::Arc<StopWatch>,
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
        loop {
            let index = self.first;
            let boundary = start + workload.interval * (index as u32 + 1);
            let until = deadline.map_or(boundary, |d| d.min(boundary));
            let mut interrupted = false;
            // Wait for the boundary, taking in the reports that arrive meanwhile.
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
                    Ok(r) => self.absorb(r),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            let all_done = !self.live.iter().any(|&l| l);
            let out_of_time = deadline.is_some_and(|d| Instant::now() >= d);
            let stopping = self.shared.stop.load(Ordering::Relaxed);
            if all_done || interrupted || out_of_time || stopping {
                self.shared.stop.store(true, Ordering::Relaxed);
                self.collect(Until::Last);
                // The run ended when its last I/O did, not when the counts were merged; what
                // completed after the last boundary belongs to this last interval.
                let done = self.shared.done_ns.load(Ordering::Relaxed);
                let t_end = if done > 0 {
                    done as f64 / 1e9
                } else {
                    start.elapsed().as_secs_f64()
                };
                // Intervals the workers finished while this thread waited for a CPU keep their
                // place on the grid; the last one ends with the run.
                let mut buckets = std::mem::take(&mut self.pending);
                let mut last = buckets.pop_back().unwrap_or_default().close();
                for done in buckets {
                    let mut done = done.close();
                    let t_grid = (workload.interval * (self.first as u32 + 1)).as_secs_f64();
                    self.watch.mark(&mut done, t_prev, t_grid);
                    sink.interval(t_prev, t_grid, &done)?;
                    self.first += 1;
                    t_prev = t_grid;
                }
                self.watch.mark(&mut last, t_prev, t_end.max(t_prev));
                sink.interval(t_prev, t_end.max(t_prev), &last)?;
                return Ok(if let Some(why) = self.shared.failure.get() {
                    RunEnd::Failed(why.clone())
                } else if interrupted {
                    RunEnd::Interrupted
                } else {
                    RunEnd::Completed
                });
            }
            self.collect(Until::Past(index));
            let t_end = (workload.interval * (index as u32 + 1)).as_secs_f64();
            let mut done = self.pending.pop_front().unwrap_or_default().close();
            self.watch.mark(&mut done, t_prev, t_end);
            sink.interval(t_prev, t_end, &done)?;
            self.first += 1;
            t_prev = t_end;
        }
    }

    /// Takes in reports until every live worker is done with what `until` names.
    fn collect(&mut self, until: Until) {
        loop {
            let waiting = (0..self.live.len()).any(|w| {
                self.live[w]
                    && match until {
                        Until::Past(index) => self.finished_before[w] <= index,
                        Until::Last => true,
                    }
            });
            if !waiting {
                break;
            }
            let Ok(r) = self.reports.recv() else { break };
            self.absorb(r);
        }
    }

    /// Adds a report to the interval it belongs to and recycles its memory.
    fn absorb(&mut self, mut r: Report) {
        let slot = r.epoch.saturating_sub(self.first) as usize;
        while self.pending.len() <= slot {
            self.pending.push_back(Open::default());
        }
        let open = &mut self.pending[slot];
        for &l in &r.latencies {
            let tally = match l & ((1 << KIND_BITS) - 1) {
                WRITE => &mut open.write,
                TRIM => &mut open.trim,
                _ => &mut open.read,
            };
            tally.record(l >> KIND_BITS);
        }
        let into = &mut open.stats;
        r.latencies.clear();
        let _ = self.spare_lists[r.worker].try_send(r.latencies);
        let Some(mut stats) = r.stats else {
            return;
        };
        // The worker's histograms are empty (its latencies came as a list): add its counts
        // here and zero them, so that merging and clearing skip the histograms.
        for (dir, from) in [
            (&mut into.read, &mut stats.read),
            (&mut into.write, &mut stats.write),
            (&mut into.trim, &mut stats.trim),
        ] {
            dir.ops += from.ops;
            dir.bytes += from.bytes;
            dir.max_ns = dir.max_ns.max(from.max_ns);
            (from.ops, from.bytes, from.max_ns) = (0, 0, 0);
        }
        into.merge(&stats);
        if r.last {
            self.live[r.worker] = false;
        } else {
            self.finished_before[r.worker] = r.next;
            stats.clear();
            let _ = self.spares[r.worker].try_send(stats);
        }
    }
}
