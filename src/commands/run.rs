//! What measure and soak share: open the target safely, resolve the workload, create the run
//! directory, run the engine and record every interval.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::RunArgs;
use crate::engine::{real_engine, Control, Engine, IntervalSink, RunEnd};
use crate::results::{default_dir, utc_now, RunDir, RunInfo, Summary, TargetRecord};
use crate::sim::{is_sim_target, SimEngine};
use crate::stats::cpu::process_cpu_seconds;
use crate::stats::{IntervalStats, Sample};
use crate::target::{Identity, OpenRequest, Target};
use crate::units::{format_bytes, format_duration};
use crate::workload::Workload;

/// Defaults that differ between measure and soak.
pub struct Defaults {
    pub command: &'static str,
    pub duration: Duration,
    pub interval: Duration,
    pub progress_bar: bool,
}

/// The outcome of a run, for the command to print.
pub struct Outcome {
    pub dir: PathBuf,
    pub info: RunInfo,
    pub summary: Summary,
    pub end: RunEnd,
}

/// Opens the target, runs the workload and writes the run directory.
pub fn execute(args: &RunArgs, defaults: &Defaults) -> anyhow::Result<Outcome> {
    let writes = args.workload.read_pct < 100;
    let request = OpenRequest {
        path: PathBuf::from(&args.target),
        writes,
        destroy_data: args.safety.destroy_data.clone(),
        force: args.safety.force,
        size: args.safety.size,
    };
    // A simulated drive needs no confirmation (no real data is at stake).
    let mut created = CreatedFile(None);
    let (identity, mut engine): (Identity, Box<dyn Engine>) = if is_sim_target(&args.target) {
        let engine = SimEngine::open(&args.target)?;
        (engine.identity(), Box::new(engine))
    } else {
        let target = Target::open(&request)?;
        if target.created {
            created.0 = Some(target.path.clone());
        }
        (
            target.identity.clone(),
            real_engine(args.engine, Arc::new(target))?,
        )
    };
    let drive_info = |engine: &dyn Engine| {
        engine
            .drive_info()
            .or_else(|| crate::inspect::gather_for_record(&args.target))
    };
    let drive_before = drive_info(engine.as_ref());
    let workload = resolve_workload(args, defaults, identity.size_bytes, identity.logical_block)?;
    let record = TargetRecord {
        path: args.target.clone(),
        identity,
    };
    let engine_name = engine.name();

    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| default_dir(&record.identity.name));
    let mut info = RunInfo {
        tool: "ssdfade".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: defaults.command.into(),
        command_line: std::env::args().collect(),
        target: record,
        workload: workload.clone(),
        engine: engine_name.into(),
        started_utc: utc_now(),
        status: "running".into(),
        ended_utc: None,
        end: None,
        summary: None,
        drive_before,
        drive_after: None,
        write_amplification: None,
    };
    let run_dir = RunDir::create(&dir, &info)?;
    created.0 = None;

    let control = Control {
        interrupted: install_signal_flag()?,
    };
    let mut recorder = Recorder::new(run_dir, &workload, defaults.progress_bar);
    let cpu0 = process_cpu_seconds();
    let wall0 = Instant::now();
    let end = engine.run(&workload, &control, &mut recorder)?;
    let cpu = process_cpu_seconds() - cpu0;
    let wall = wall0.elapsed().as_secs_f64();
    recorder.bar.finish_and_clear();

    let summary = Summary::new(&recorder.total, recorder.t_end, cpu, wall, engine_name);
    info.status = match &end {
        RunEnd::Completed => "completed",
        RunEnd::Interrupted => "interrupted",
        RunEnd::Failed(_) => "failed",
    }
    .into();
    info.ended_utc = Some(utc_now());
    info.end = Some(end.clone());
    info.summary = Some(summary.clone());
    info.drive_after = drive_info(engine.as_ref());
    info.write_amplification =
        crate::inspect::write_amplification(&info.drive_before, &info.drive_after);
    recorder.run_dir.write_info(&info)?;
    Ok(Outcome {
        dir,
        info,
        summary,
        end,
    })
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
    args: &RunArgs,
    defaults: &Defaults,
    size: u64,
    logical_block: u32,
) -> anyhow::Result<Workload> {
    let w = &args.workload;
    let workload = Workload {
        bs: w.bs,
        align: w.align.unwrap_or(w.bs),
        read_pct: w.read_pct,
        random_pct: w.random_pct,
        qd: w.qd,
        span: w.span.unwrap_or(size),
        duration: match (w.duration, w.bytes) {
            (None, Some(_)) => None,
            (d, _) => Some(d.unwrap_or(defaults.duration)),
        },
        bytes: w.bytes,
        interval: w.interval.unwrap_or(defaults.interval),
        seed: w.seed.unwrap_or_else(fresh_seed),
        pattern: w.pattern,
        refill: w.refill,
        on_error: w.on_error,
    };
    workload.validate(size, logical_block)?;
    Ok(workload)
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    crate::pattern::mix64(nanos as u64 ^ u64::from(std::process::id()) << 32)
}

/// Ctrl-C and SIGTERM set the returned flag (the run ends cleanly); a second Ctrl-C exits at once.
pub fn install_signal_flag() -> anyhow::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 130, flag.clone())?;
        signal_hook::flag::register(sig, flag.clone())?;
    }
    Ok(flag)
}

/// Writes each interval as a sample, keeps the run totals and drives the progress bar.
struct Recorder {
    run_dir: RunDir,
    total: IntervalStats,
    written: u64,
    index: u64,
    t_end: f64,
    bar: ProgressBar,
    planned: Option<f64>,
}

impl Recorder {
    fn new(run_dir: RunDir, w: &Workload, progress: bool) -> Self {
        let planned = w.duration.map(|d| d.as_secs_f64());
        let bar = if progress {
            let bar = ProgressBar::new(planned.map_or(100, |p| p.ceil() as u64));
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] [{bar:30}] {msg}")
                    .expect("progress template")
                    .progress_chars("=> "),
            );
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        } else {
            ProgressBar::hidden()
        };
        Recorder {
            run_dir,
            total: IntervalStats::new(),
            written: 0,
            index: 0,
            t_end: 0.0,
            bar,
            planned,
        }
    }
}

impl IntervalSink for Recorder {
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
        self.bar.set_position(t_end_s as u64);
        let remaining = self
            .planned
            .map(|p| {
                format!(
                    " left {}",
                    format_duration(Duration::from_secs_f64((p - t_end_s).max(0.0)))
                )
            })
            .unwrap_or_default();
        self.bar.set_message(format!(
            "t {}{remaining}  {:.0} IOPS  {:.2} MB/s  written {}",
            format_duration(Duration::from_secs_f64(t_end_s)),
            sample.iops,
            sample.mb_per_s,
            format_bytes(self.written)
        ));
        Ok(())
    }
}
