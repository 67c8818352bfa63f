//! A run as a library call: open the target safely, resolve the workload against it, create the
//! run directory, run the engine and record every interval. `measure`, `soak` and any other code
//! that starts a run (experiment phases, sweep points, tests) call [`run`] with a [`RunRequest`]
//! of plain values and get the [`Outcome`] back; printing is left to the caller.

mod interrupt;
mod predictor;
mod recorder;
mod resume;
mod telemetry;
mod verify;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::device::Identity;
use crate::engine::sync::SyncEngine;
use crate::engine::{Control, Engine, EngineKind, RunEnd};
use crate::results::{utc_now, Command, RunDir, RunInfo, Status, Summary, TargetRecord};
use crate::stats::cpu::process_cpu_seconds;
use crate::stats::steady::{Criteria, SteadyTracker};
use crate::workload::Workload;

pub use crate::observe::run::{NoProgress, RunObserver};
pub use crate::workload::fresh_seed;
pub use crate::workload::WorkloadSpec;
pub use interrupt::{install_signal_flag, interrupted_by};
pub use predictor::UNTIL_PREDICTED_PCT;
use recorder::Recorder;
pub use resume::continue_run;
pub use verify::verify_run;

/// Everything a run needs, as plain values.
#[derive(Clone, Debug)]
pub struct RunRequest {
    /// File, block device or `sim:…` target.
    pub target: String,
    /// The directory whose files the records name by their path within it (an experiment's,
    /// holding its simulated drive: `sim:…,state=drive.sim`), so that it can be moved or
    /// copied; `None`: names as given.
    pub records_within: Option<PathBuf>,
    /// The access specification, resolved against the target when it is opened.
    pub workload: WorkloadSpec,
    /// When the run ends.
    pub stop: Stop,
    /// Sample period.
    pub interval: Duration,
    /// `None`: uring where the kernel allows it, else threads (ignored for `sim:` targets).
    pub engine: Option<EngineKind>,
    /// Confirmation that data may be destroyed.
    pub safety: Safety,
    /// Run directory; `None`: `results/<UTC time>-<target name>`.
    pub out: Option<PathBuf>,
    /// Recorded in run.json as `command` (`measure`, `soak`, …).
    pub command: Command,
    /// Set it (e.g. with [`install_signal_flag`]) to end the run cleanly after the current
    /// interval; the outcome is then [`RunEnd::Interrupted`].
    pub interrupt: Arc<AtomicBool>,
    /// A simulated drive kept in a `state=` file also saves itself every this much of its
    /// clock (as a sample is recorded), so a crash loses at most that much of the run; `None`:
    /// only when the run ends. Real drives ignore it.
    pub checkpoint: Option<Duration>,
}

impl RunRequest {
    /// The target as run.json names it.
    pub fn recorded_target(&self) -> String {
        match &self.records_within {
            Some(dir) => crate::results::name_within(&self.target, dir),
            None => self.target.clone(),
        }
    }
}

/// The stop rule: whichever comes first; at least one of duration and bytes is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop {
    pub duration: Option<Duration>,
    pub bytes: Option<u64>,
    /// Steady-state detection (SNIA PTS rounds), recorded in run.json for every run that
    /// writes, and optionally a stop rule of its own.
    pub steady: SteadyRule,
}

/// How steady state is judged during a run: the round length, and whether reaching it ends
/// the run (`soak --until-steady`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SteadyRule {
    pub round: Duration,
    pub stop_when_steady: bool,
    /// End the run once the predicted steady IOPS is known within ±5 % (`--until-predicted`).
    pub stop_when_predicted: bool,
}

impl Default for SteadyRule {
    fn default() -> Self {
        SteadyRule {
            round: Duration::from_secs(60),
            stop_when_steady: false,
            stop_when_predicted: false,
        }
    }
}

impl Stop {
    /// The options as given: a byte limit alone runs until the bytes are done; otherwise the
    /// duration given or `default_duration`, together with any byte limit.
    pub fn new(duration: Option<Duration>, bytes: Option<u64>, default_duration: Duration) -> Stop {
        let duration = match (duration, bytes) {
            (None, Some(_)) => None,
            (d, _) => Some(d.unwrap_or(default_duration)),
        };
        Stop {
            duration,
            bytes,
            steady: SteadyRule::default(),
        }
    }

    /// The same stop rule with SNIA rounds of `round`, ending the run once steady when
    /// `stop_when_steady`.
    pub fn with_steady(mut self, round: Duration, stop_when_steady: bool) -> Stop {
        self.steady = SteadyRule {
            round,
            stop_when_steady,
            stop_when_predicted: self.steady.stop_when_predicted,
        };
        self
    }

    /// The SNIA criteria with this rule's round length.
    pub fn criteria(&self) -> Criteria {
        Criteria {
            round_s: self.steady.round.as_secs_f64(),
            ..Criteria::default()
        }
    }
}

/// Permission to write (ignored for `sim:` targets, where no real data is at stake).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Safety {
    /// Must name the target for any run that writes.
    pub destroy_data: Option<PathBuf>,
    /// Also write over a filesystem or partition-table signature.
    pub force: bool,
    /// Size of a test file to create, or to grow an existing one to.
    pub size: Option<u64>,
}

/// The outcome of a run.
pub struct Outcome {
    pub dir: PathBuf,
    pub info: RunInfo,
    pub summary: Summary,
    pub end: RunEnd,
}

/// Opens the target, runs the workload, writes the run directory (run.json, samples.jsonl) and
/// tells `observer` about the start, each interval and the end. Bad input or a refused target
/// is an error (exit 2) and leaves nothing behind; a failed or interrupted run is an `Ok`
/// outcome with its [`RunEnd`], its samples kept.
pub fn run(request: &RunRequest, observer: &mut dyn RunObserver) -> anyhow::Result<Outcome> {
    prepare(request)?.execute(observer)
}

/// A run whose target is open and checked and whose workload is resolved, with nothing written
/// yet: dropping it leaves nothing behind. Lets a caller starting several runs at once check
/// every target before any of them writes.
pub struct Prepared {
    request: RunRequest,
    opened: Opened,
    info: RunInfo,
    workload: Workload,
    created: CreatedFile,
}

/// The first half of [`run`]: opens the target with its safety gates and resolves the workload.
/// Bad input or a refused target is an error and nothing is written.
pub fn prepare(request: &RunRequest) -> anyhow::Result<Prepared> {
    let mut created = CreatedFile(None);
    let opened = open(request, &mut created)?;
    let drive = drive_info(opened.engine.as_ref(), &request.target);
    let workload = resolve_workload(
        request,
        opened.identity.size_bytes,
        opened.identity.logical_block,
        drive.as_ref(),
    )?;
    if opened.device.needs_io_buffers() {
        // A real run needs bs × jobs × QD plus the pool (a simulated drive allocates no I/O buffers).
        crate::workload::memory::check_run(workload.bs, workload.jobs, workload.qd)?;
    }
    let record = TargetRecord {
        path: request.recorded_target(),
        identity: opened.identity.clone(),
    };
    let info = RunInfo::started(
        request.command.clone(),
        record,
        workload.clone(),
        opened.engine.name(),
        drive,
    );
    Ok(Prepared {
        request: request.clone(),
        opened,
        info,
        workload,
        created,
    })
}

impl Prepared {
    /// The target's kernel or file name (the default run directory's suffix).
    pub fn name(&self) -> &str {
        &self.info.target.identity.name
    }

    /// Writes the run directory at `dir` instead of the request's `--out` or default.
    pub fn with_out(mut self, dir: PathBuf) -> Prepared {
        self.request.out = Some(dir);
        self
    }

    /// Creates the run directory and runs to the end: the second half of [`run`].
    pub fn execute(self, observer: &mut dyn RunObserver) -> anyhow::Result<Outcome> {
        let Prepared {
            request,
            mut opened,
            info,
            workload,
            mut created,
        } = self;
        let name = info.target.identity.name.clone();
        let run_dir = RunDir::create(
            request.out.as_deref(),
            &name,
            &info,
            request.records_within.as_deref(),
        )?;
        created.0 = None;
        let dir = run_dir.dir.clone();
        let outcome = execute(
            &request,
            opened.engine.as_mut(),
            info,
            run_dir,
            &workload,
            Vec::new(),
            observer,
        );
        // A run that stopped on an error of its own (a full disk under its directory, buffers it
        // could not get) has nothing to draw or no room to draw it: its error says so alone.
        if outcome.is_ok() {
            crate::observe::finish::run(&dir);
        }
        outcome
    }
}

/// A target opened through the safety gates, with the engine that will drive it.
struct Opened {
    identity: Identity,
    engine: Box<dyn Engine>,
    device: Box<dyn crate::device::Device>,
}

/// The drive's identity and wear, from the engine (a simulated drive) or the system.
fn drive_info(engine: &dyn Engine, target: &str) -> Option<crate::drive::DriveInfo> {
    engine
        .drive_info()
        .or_else(|| crate::device::inspect::gather_for_record(target))
}

/// Runs `request` on an engine the caller opened once for several runs (the SLOG test's
/// points, one device opened once): as [`run`], without opening the target again and without
/// drawing (the caller's directory holding these runs is drawn as a whole). `identity` is the
/// target's, as the open gave it.
pub fn run_on(
    request: &RunRequest,
    identity: &Identity,
    engine: &mut dyn Engine,
    observer: &mut dyn RunObserver,
) -> anyhow::Result<Outcome> {
    let drive = drive_info(engine, &request.target);
    let workload = resolve_workload(
        request,
        identity.size_bytes,
        identity.logical_block,
        drive.as_ref(),
    )?;
    let record = TargetRecord {
        path: request.recorded_target(),
        identity: identity.clone(),
    };
    let info = RunInfo::started(
        request.command.clone(),
        record,
        workload.clone(),
        engine.name(),
        drive,
    );
    let run_dir = RunDir::create(
        request.out.as_deref(),
        &identity.name,
        &info,
        request.records_within.as_deref(),
    )?;
    execute(
        request,
        engine,
        info,
        run_dir,
        &workload,
        Vec::new(),
        observer,
    )
}

fn open(request: &RunRequest, created: &mut CreatedFile) -> anyhow::Result<Opened> {
    let device = crate::device::open(&request.target)?;
    let gates = crate::device::Gates {
        writes: request.workload.read_pct < 100,
        destroy_data: request.safety.destroy_data.clone(),
        force: request.safety.force,
        size: request.safety.size,
    };
    let opened = if request.workload.sync.is_some() {
        let opened = device.open_sync_writer(&gates)?;
        crate::device::Opened {
            identity: opened.identity,
            engine: Box::new(SyncEngine::new(opened.writer)),
            created: opened.created,
        }
    } else {
        device.open_engine(
            &gates,
            request.engine,
            request.workload.qd.saturating_mul(request.workload.jobs),
            request.workload.bs as usize,
            request.workload.trim_pct > 0,
        )?
    };
    created.0 = opened.created;
    Ok(Opened {
        identity: opened.identity,
        engine: opened.engine,
        device,
    })
}

/// Runs the engine on `engine_workload` (the whole workload, or what is left of it when a run
/// continues after `previous` samples), records every interval and finishes run.json.
fn execute(
    request: &RunRequest,
    engine: &mut dyn Engine,
    mut info: RunInfo,
    run_dir: RunDir,
    engine_workload: &Workload,
    previous: Vec<crate::stats::Sample>,
    observer: &mut dyn RunObserver,
) -> anyhow::Result<Outcome> {
    let dir = run_dir.dir.clone();
    observer.started(&dir, &info);
    let writes = info.workload.read_pct < 100;
    // Media written in place has no flash to fill: no "of the flash" figure.
    let in_place = info
        .drive_before
        .as_ref()
        .is_some_and(|d| d.writes_in_place);
    let flash = info
        .drive_before
        .as_ref()
        .and_then(|d| d.flash_bytes)
        .or(info.workload.precondition.map(|p| p.flash_bytes))
        .filter(|_| !in_place);
    let mut tracker = SteadyTracker::new(request.stop.criteria(), info.target.identity.size_bytes)
        .after_bytes(info.rounds_start_bytes())
        .flash_bytes(flash);
    for sample in &previous {
        tracker.push(sample);
    }
    if writes && tracker.state().reached {
        observer.steady_reached(tracker.state());
    }
    // Reaching steady state may end the run: the engine then watches a flag of its own, to
    // which the user's Ctrl-C is forwarded.
    let until_steady =
        (request.stop.steady.stop_when_steady || request.stop.steady.stop_when_predicted) && writes;
    let engine_flag = if until_steady {
        Arc::new(AtomicBool::new(tracker.state().reached))
    } else {
        request.interrupt.clone()
    };
    let forwarder = until_steady.then(|| Forwarder::start(&request.interrupt, &engine_flag));
    let verifier = verify::start(engine_workload);
    let control = Control {
        interrupted: engine_flag.clone(),
        checkpoint: request.checkpoint,
        verify: verifier.clone(),
    };
    let steady_stop =
        (until_steady && request.stop.steady.stop_when_steady).then_some(engine_flag.clone());
    let predictor = predictor::Predictor::of(&info, request.stop.criteria(), &previous).map(|p| {
        p.stopping(
            (writes && request.stop.steady.stop_when_predicted).then_some(engine_flag.clone()),
        )
    });
    let recorder = Recorder::new(
        run_dir,
        info.clone(),
        observer,
        &previous,
        tracker,
        steady_stop,
        predictor,
    )?
    .keeping_map(verifier.clone())?;
    // A real drive's health is read on a thread of its own; a simulated one reports its own.
    let sampler = info
        .drive_before
        .as_ref()
        .filter(|_| engine.drive_info().is_none())
        .and_then(crate::device::telemetry::reader)
        .map(|read| Arc::new(telemetry::Sampler::start(read, engine_workload.interval)));
    let mut recorder = recorder.reading(sampler.clone());
    let cpu0 = process_cpu_seconds();
    let wall0 = Instant::now();
    let result = engine.run(engine_workload, &control, &mut recorder);
    drop(forwarder);
    let telemetry = sampler.map(|s| s.finish());
    // Anything that stopped the engine (a full disk under the run directory, a worker that
    // could not start) ends the run as failed in run.json, not as "running" forever.
    let (end, error) = match result {
        Ok(end) => (end, None),
        Err(e) => (RunEnd::Failed(crate::error::sentence(&e)), Some(e)),
    };
    let cpu = process_cpu_seconds() - cpu0;
    let wall = wall0.elapsed().as_secs_f64();
    let (run_dir, total, t_start, t_end, tracker, prediction) = recorder.finish();
    let reached_before = tracker.state().reached;
    let steady = tracker.finish();
    // The last round, ending within a hair of its grid end, may complete the window (one cut
    // short by the run's end is no round).
    if writes && steady.reached && !reached_before {
        observer.steady_reached(&steady);
    }
    let user_stop = request.interrupt.load(std::sync::atomic::Ordering::Relaxed);
    let end = match end {
        RunEnd::Interrupted if until_steady && !user_stop => RunEnd::Completed,
        other => other,
    };
    let (end, verified) = verify::finish(verifier.as_deref(), &dir, end)?;
    observer.finished(&end);

    let engine_name = engine.name();
    let segment = Summary::new(&total, t_end - t_start, cpu, wall, engine_name);
    let summary = if previous.is_empty() {
        segment
    } else {
        resume::whole_run_summary(&previous, &segment)
    };
    info.status = Status::of_end(&end);
    info.ended_utc = Some(utc_now());
    info.end = Some(end.clone());
    info.interrupted_by = match end {
        RunEnd::Interrupted => interrupt::interrupted_by(),
        _ => None,
    };
    info.summary = Some(summary.clone());
    info.drive_after = drive_info(engine, &request.target);
    if let Some(drive) = &info.drive_after {
        observer.drive_after(drive);
    }
    info.write_amplification =
        crate::device::inspect::write_amplification(&info.drive_before, &info.drive_after);
    info.steady_state = writes.then_some(steady);
    info.verify = verified;
    info.telemetry = telemetry;
    info.prediction = prediction;
    // The histograms of earlier sessions are lost: only a run of one session has its own. A
    // run that failed writing its directory (a full disk) keeps its space for run.json.
    if previous.is_empty() && error.is_none() {
        crate::results::LatencyRecord::of(&total).save(&run_dir.dir)?;
    }
    run_dir.write_info(&info)?;
    if let Some(e) = error {
        return Err(e);
    }
    Ok(Outcome {
        dir,
        info,
        summary,
        end,
    })
}

/// Copies the user's interrupt flag into the engine's while a run that may also stop by itself
/// (steady state) is going.
struct Forwarder {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Forwarder {
    fn start(from: &Arc<AtomicBool>, to: &Arc<AtomicBool>) -> Forwarder {
        use std::sync::atomic::Ordering::Relaxed;
        let done = Arc::new(AtomicBool::new(false));
        let (from, to, stop) = (from.clone(), to.clone(), done.clone());
        let thread = std::thread::spawn(move || {
            while !stop.load(Relaxed) {
                if from.load(Relaxed) {
                    to.store(true, Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        Forwarder {
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        self.done.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A test file this invocation created, removed again if the run is refused before it starts
/// (bad input found only once the target was known), so a refusal leaves nothing behind.
struct CreatedFile(Option<PathBuf>);

impl Drop for CreatedFile {
    fn drop(&mut self) {
        if let Some(path) = &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn resolve_workload(
    request: &RunRequest,
    size: u64,
    logical_block: u32,
    drive: Option<&crate::drive::DriveInfo>,
) -> anyhow::Result<Workload> {
    let mut workload = request.workload.on_target(
        size,
        request.stop.duration,
        request.stop.bytes,
        request.interval,
    );
    workload.precondition = request.workload.precondition.resolve(
        size,
        workload.span,
        drive.and_then(|d| d.flash_bytes),
        drive.is_some_and(|d| d.writes_in_place),
    );
    // A byte budget would hide the preconditioning's writes, hundreds of gigabytes under a
    // budget of a megabyte: the two are not combined.
    if let (Some(bytes), Some(plan)) = (workload.bytes, workload.precondition) {
        crate::bad_input!(
            "--bytes {} with --precondition fast: the preconditioning alone writes {} of {}, which a byte budget would not bound; give --duration instead of --bytes (the preconditioning runs first, then the workload for that long)",
            crate::units::format_bytes(bytes),
            crate::units::format_bytes(plan.bytes),
            request.target
        );
    }
    workload.validate(size, logical_block)?;
    Ok(workload)
}
