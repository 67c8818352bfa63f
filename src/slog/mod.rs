//! `ssdfade slog`: is this device fit to be a ZFS separate intent log (SLOG), or should the money
//! go to a RAM log device? Measures what a ZIL does to its device — queue-depth-1 synchronous
//! writes — and judges the figures.
//!
//! - the synchronous writes themselves: [`crate::engine::sync`] on the device's writer;
//! - [`sweep`]: the plan (size sweep in two modes, concurrency, sustained phase);
//! - [`baseline`]: the RAM (zram) or other baseline;
//! - [`evidence`] and [`verdict`]: figures from run directories, and the judgement;
//! - [`plp`]: the power-loss check (diskchecker's method);
//! - [`provenance`]: `--from` evidence only of the device under test;
//! - [`table`]: the text the command prints.
//!
//! A run directory is written like every other run's (`run.json`, `samples.jsonl` holding the
//! sustained phase) plus `slog.json` with the sweep, the baseline and the verdict.

pub mod baseline;
pub mod plp;
pub mod provenance;
pub mod ram_owner;
pub mod sweep;
pub mod table;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use crate::analysis::slog::{evidence, verdict, verdict_of_dir};
use crate::engine::sync::{SyncEngine, SyncWriter};
pub use crate::results::slog::{read_record, CacheReport, Measurement, SlogRecord, SyncMode};
use baseline::{Baseline, RamDevice};
use sweep::Plan;

use crate::device::SyncOpened;
use crate::drive::DriveInfo;
use crate::drive::RunEnd;
use crate::results::{utc_now, write_json_atomic, RunDir, RunInfo, TargetRecord};
use crate::results::{Command, Status};
use crate::run::{NoProgress, RunObserver};
use crate::stats::{IntervalStats, Sample};
use crate::workload::Workload;

/// Largest write the sweep accepts (`--max-size`), as `diskinfo -wS`.
pub const MAX_SIZE_LIMIT: u64 = 8 << 20;

/// What the user asked for, parsed.
#[derive(Clone, Debug)]
pub struct Request {
    pub target: String,
    /// `--destroy-data` (once per real target written: the device and a baseline device).
    pub destroy_data: Vec<PathBuf>,
    pub force: bool,
    pub size: Option<u64>,
    pub plan: Plan,
    pub baseline: Option<Baseline>,
    /// Run directories with more evidence (soak, erase, plp verify, earlier slog runs).
    pub from: Vec<PathBuf>,
    /// An op-sweep of this drive or of its twin (`--op-sweep`): what the maintenance plan says
    /// leaving part of it unpartitioned would give.
    pub op_sweep: Option<PathBuf>,
    pub zil_bytes_per_day: f64,
    pub tbw: Option<u64>,
    pub out: Option<PathBuf>,
}

/// The outcome for the command to print.
pub struct Outcome {
    pub dir: PathBuf,
    pub record: SlogRecord,
}

fn open(target: &str, req: &Request) -> anyhow::Result<SyncOpened> {
    let device = crate::device::open(target)?;
    let path = PathBuf::from(target);
    let confirm = req
        .destroy_data
        .iter()
        .find(|d| crate::device::same_object(d, &path))
        .or(req.destroy_data.first())
        .cloned();
    device.open_sync_writer(&crate::device::Gates {
        writes: true,
        destroy_data: confirm,
        force: req.force,
        size: req.size,
    })
}

/// Removes a test file the run created if the run is refused before it starts.
struct CreatedFiles(Vec<PathBuf>);

impl Drop for CreatedFiles {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn drive_info(target: &str, writer: &dyn SyncWriter) -> Option<DriveInfo> {
    writer
        .drive_info()
        .or_else(|| crate::device::inspect::gather_for_record(target))
}

/// Checks the request before anything is opened or written.
fn validate(req: &Request) -> anyhow::Result<()> {
    let m = req.plan.max_size;
    if !m.is_power_of_two() || !(4096..=MAX_SIZE_LIMIT).contains(&m) {
        crate::bad_input!(
            "--max-size {m}: use a power of two from 4k to 8M (e.g. 128k, the default, or 8M)"
        );
    }
    if req.zil_bytes_per_day <= 0.0 {
        crate::bad_input!("--zil-rate must be more than zero bytes per day (e.g. 200GB/day)");
    }
    if !req.plan.sustain_s.is_finite() || req.plan.sustain_s < 0.0 {
        crate::bad_input!("--sustain must be a duration such as 60s (0 skips the phase)");
    }
    if let (Some(rate), 0.0) = (req.plan.rate_iops, req.plan.sustain_s) {
        crate::bad_input!(
            "--zil-rate {rate}/s paces the sustained phase, and --sustain 0 skips it: give --sustain (e.g. 8h) or a rate per day"
        );
    }
    let shortest = 2.0 * sweep::SUSTAIN_INTERVAL_S;
    if req.plan.sustain_s > 0.0 && req.plan.sustain_s < shortest {
        crate::bad_input!(
            "--sustain {} s is shorter than two of its {} s intervals: give {shortest} s or more (or 0 to skip the phase)",
            req.plan.sustain_s,
            sweep::SUSTAIN_INTERVAL_S
        );
    }
    Ok(())
}

/// Runs the SLOG test: opens the target (and the baseline) with every safety check, measures,
/// records the run directory and judges. `observer` watches the run (its start, the sustained
/// phase's samples, its end).
pub fn run(
    req: &Request,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(&str),
    observer: &mut dyn RunObserver,
) -> anyhow::Result<Outcome> {
    prepare(req)?.execute(stop, progress, observer)
}

/// A SLOG test whose target (and baseline) passed every safety check, nothing written yet.
pub struct Prepared {
    req: Request,
    sources: evidence::Sources,
    over_provisioning: Option<crate::results::slog::OpSweepEvidence>,
    earlier_baseline: Option<SlogRecord>,
    created: CreatedFiles,
    device: SyncOpened,
    baseline_target: Option<(String, SyncOpened)>,
}

/// The first half of [`run`]: checks the request and opens the target and the baseline with
/// every safety gate. Bad input or a refused target is an error and nothing is written.
pub fn prepare(req: &Request) -> anyhow::Result<Prepared> {
    validate(req)?;
    let sources = evidence::Sources::load(&req.from)?;
    let earlier_baseline = match &req.baseline {
        Some(Baseline::RunDir(dir)) => Some(read_record(dir)?),
        _ => None,
    };
    let mut created = CreatedFiles(Vec::new());
    let device = open(&req.target, req)?;
    created.0.extend(device.created.clone());
    // An op-sweep of another drive is refused before anything is written (a RAM target made
    // for the run is removed with `created`).
    let over_provisioning = req
        .op_sweep
        .as_deref()
        .map(|dir| evidence::op_sweep_for(dir, &device.identity))
        .transpose()?;
    provenance::check(&sources, &req.target, &device.identity)?;
    // A baseline device is opened (and refused) before anything is written.
    let baseline_target = match &req.baseline {
        Some(Baseline::Target(path)) => {
            let name = path.display().to_string();
            if crate::device::same_object(path, Path::new(&req.target)) {
                crate::bad_input!("--baseline {name} is the device under test: name another device, a file or ram");
            }
            if let Some(why) = crate::device::loopback::same_storage(path, Path::new(&req.target)) {
                crate::bad_input!("--baseline {name}: {why}, the device under test: name another device, a file or ram (refusing to write)");
            }
            let opened = open(&name, req)?;
            created.0.extend(opened.created.clone());
            Some((name, opened))
        }
        _ => None,
    };
    if req.baseline == Some(Baseline::Ram) && !nix::unistd::Uid::effective().is_root() {
        crate::bad_input!("--baseline ram creates a zram device and needs root: run as root, or give --baseline PATH");
    }
    Ok(Prepared {
        req: req.clone(),
        sources,
        over_provisioning,
        earlier_baseline,
        created,
        device,
        baseline_target,
    })
}

impl Prepared {
    /// The target's kernel or file name (the default run directory's prefix).
    pub fn name(&self) -> &str {
        &self.device.identity.name
    }

    /// Writes the run directory at `dir` instead of the request's `--out` or default.
    pub fn with_out(mut self, dir: PathBuf) -> Prepared {
        self.req.out = Some(dir);
        self
    }

    /// Creates the run directory, measures and judges: the second half of [`run`].
    pub fn execute(
        self,
        stop: &Arc<AtomicBool>,
        progress: &mut dyn FnMut(&str),
        observer: &mut dyn RunObserver,
    ) -> anyhow::Result<Outcome> {
        execute(self, stop, progress, observer)
    }
}

fn execute(
    prepared: Prepared,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(&str),
    observer: &mut dyn RunObserver,
) -> anyhow::Result<Outcome> {
    let started_utc = utc_now();
    let Prepared {
        req,
        sources,
        over_provisioning,
        earlier_baseline,
        mut created,
        device,
        mut baseline_target,
    } = prepared;
    let req = &req;

    let volatile = crate::device::volatile::why(&req.target);
    if let Some(why) = &volatile {
        progress(&format!(
            "warning: {why}: its contents are lost at power-off, so a log on it loses every write it acknowledged; the verdict counts it as unsuitable"
        ));
    }
    let drive_before = drive_info(&req.target, device.writer.as_ref());
    let small = sweep::LOG_WRITE.max(device.writer.logical_block());
    let workload = Workload {
        bs: small,
        align: small,
        read_pct: 0,
        random_pct: 100,
        qd: 1,
        span: device.writer.size(),
        duration: Some(std::time::Duration::from_secs_f64(req.plan.sustain_s)),
        bytes: None,
        interval: std::time::Duration::from_secs(1),
        seed: req.plan.seed,
        pattern: crate::pattern::Pattern::Random,
        // The sustained phase's pace, so the run's report treats it as the paced run it is
        // (its level is the rate asked for: no fade), as the verdict does.
        rate: req.plan.rate_iops.map(crate::workload::Rate::Iops),
        sync: Some(crate::workload::SyncWrites {
            mode: crate::workload::SyncMode::Fdatasync,
            min_writes: 0,
        }),
        ..Default::default()
    };
    let engine = device.writer.name();
    let mut info = RunInfo::started(
        Command::Slog,
        TargetRecord {
            path: req.target.clone(),
            identity: device.identity.clone(),
        },
        workload,
        engine,
        drive_before.clone(),
    );
    let mut run_dir = RunDir::create(
        req.out.as_deref(),
        &format!("{}-slog", device.identity.name),
        &info,
        None,
    )?;
    let dir = run_dir.dir.clone();
    created.0.clear();
    observer.started(&dir, &info);

    let identity = device.identity;
    let mut writer = SyncEngine::new(device.writer);
    let swept = {
        let mut sustained = Sustained {
            run_dir: &mut run_dir,
            observer: &mut *observer,
        };
        let points = sweep::Points {
            target: &req.target,
            identity: &identity,
            engine: &mut writer,
            dir: &dir.join(POINTS),
            interrupt: stop,
        };
        sweep::run(points, &req.plan, &mut sustained, progress)?
    };
    let mut end = swept.end;
    let drive_after = drive_info(&req.target, writer.writer());
    let cache = writer.writer().cache(drive_before.as_ref());
    let device_measurement = Measurement {
        label: "device".into(),
        target: req.target.clone(),
        kind: identity.kind.clone(),
        cache,
        measured: swept.measured,
    };
    drop(writer);

    let baseline = if end == RunEnd::Completed {
        let base_plan = Plan {
            sustain_s: 0.0,
            ..req.plan.clone()
        };
        let base_dir = dir.join(BASELINE_POINTS);
        let sweep_baseline = |target: &str, opened: SyncOpened, progress: &mut dyn FnMut(&str)| {
            let mut engine = SyncEngine::new(opened.writer);
            let points = sweep::Points {
                target,
                identity: &opened.identity,
                engine: &mut engine,
                dir: &base_dir,
                interrupt: stop,
            };
            let swept = sweep::run(points, &base_plan, &mut NoProgress, progress)?;
            anyhow::Ok((swept, engine))
        };
        match (&req.baseline, earlier_baseline) {
            (Some(Baseline::RunDir(d)), Some(rec)) => Some(Measurement {
                label: format!("run {}", d.display()),
                ..rec.device
            }),
            (Some(Baseline::Ram), _) => {
                let ram = RamDevice::create(baseline::ram_size(req.plan.max_size))?;
                let name = ram.path.display().to_string();
                progress(&format!("baseline: RAM device {name}"));
                let mut confirmed = req.clone();
                confirmed.destroy_data = vec![ram.path.clone()];
                let opened = open(&name, &confirmed)?;
                let cache = opened
                    .writer
                    .cache(crate::device::inspect::gather_for_record(&name).as_ref());
                let (swept, engine) = sweep_baseline(&name, opened, progress)?;
                drop(engine);
                drop(ram);
                end = swept.end;
                Some(Measurement {
                    label: format!("ram ({name}, removed)"),
                    target: name,
                    kind: "zram".into(),
                    cache,
                    measured: swept.measured,
                })
            }
            (Some(Baseline::Target(_)), _) => {
                let (name, opened) = baseline_target.take().expect("opened above");
                progress(&format!("baseline: {name}"));
                let info = drive_info(&name, opened.writer.as_ref());
                let kind = opened.identity.kind.clone();
                let (swept, mut engine) = sweep_baseline(&name, opened, progress)?;
                end = swept.end;
                Some(Measurement {
                    label: name.clone(),
                    target: name,
                    kind,
                    cache: engine.writer().cache(info.as_ref()),
                    measured: swept.measured,
                })
            }
            _ => None,
        }
    } else {
        None
    };

    observer.finished(&end);
    if let Some(drive) = &drive_after {
        observer.drive_after(drive);
    }
    // The sustained point's summary and histograms are the SLOG run's own, as its samples are.
    let (summary, sustained_dir) = match swept.sustained {
        Some(s) => (s.summary, Some(s.dir)),
        None => (
            crate::results::Summary::new(&IntervalStats::new(), 0.0, 0.0, 0.0, engine),
            None,
        ),
    };
    info.status = Status::of_end(&end);
    info.ended_utc = Some(utc_now());
    info.end = Some(end.clone());
    info.summary = Some(summary);
    if let Some(latency) = sustained_dir
        .as_deref()
        .map(crate::results::LatencyRecord::load)
        .transpose()?
        .flatten()
    {
        latency.save(&dir)?;
    }
    info.drive_after = drive_after;
    info.write_amplification =
        crate::device::inspect::write_amplification(&info.drive_before, &info.drive_after);
    run_dir.write_info(&info)?;
    let samples = crate::results::read_samples(&dir)?;
    let mut evidence = evidence::collect(
        Some(&evidence::ThisRun {
            dir: &dir,
            measured: &device_measurement.measured,
            info: &info,
            samples: &samples,
        }),
        &sources,
        req.zil_bytes_per_day,
        req.tbw,
    );
    evidence.volatile = volatile;
    evidence.over_provisioning = over_provisioning;
    let record = SlogRecord {
        schema_version: crate::results::slog::SCHEMA_VERSION,
        tool: "ssdfade".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        build: Some(env!("SSDFADE_BUILD").into()),
        command_line: std::env::args().collect(),
        created_utc: Some(started_utc),
        plan: req.plan.clone(),
        device: device_measurement,
        baseline,
        end,
        from: req.from.clone(),
        verdict: verdict::judge(&evidence),
        evidence,
    };
    write_json_atomic(&dir.join("slog.json"), &record)?;
    crate::observe::finish::run(&dir);
    Ok(Outcome { dir, record })
}

/// The folder of the device's point runs in a SLOG run directory.
pub const POINTS: &str = "points";
/// The folder of the baseline's point runs (a RAM or other baseline device measured now).
pub const BASELINE_POINTS: &str = "baseline";

/// Watches the sustained point: its samples are also the SLOG run's own `samples.jsonl` (the
/// series every reader of a run directory charts), and go on to the SLOG run's observer.
struct Sustained<'a> {
    run_dir: &'a mut RunDir,
    observer: &'a mut dyn RunObserver,
}

impl RunObserver for Sustained<'_> {
    fn sample(&mut self, sample: &Sample) {
        // The point's own samples.jsonl holds the sample already; a copy that cannot be
        // written here leaves the SLOG run's series short, which its readers report.
        if let Err(e) = self.run_dir.append(sample) {
            crate::note!("ssdfade: note: {e:#}");
        }
        self.observer.sample(sample);
    }

    fn steady_reached(&mut self, state: &crate::stats::steady::SteadyState) {
        self.observer.steady_reached(state);
    }
}
