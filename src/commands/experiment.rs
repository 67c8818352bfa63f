//! `ssdfade experiment vertex2|wsat|hir`, `ssdfade resume DIR` and `ssdfade sweep`: convert the
//! options, start (or continue) the experiment through [`crate::experiment`], print its summary.

use crate::cli::{
    ExperimentArgs, ExperimentCommand, ExperimentWorkloadArgs, ResumeArgs, SweepArgs,
};
use crate::engine::RunEnd;
use crate::experiment::report::{summary_json, summary_text};
use crate::experiment::{
    hir, sweep, vertex2, wsat, ExperimentObserver, ExperimentOutcome, Options, PhaseKind,
    PhaseRecord, Setup,
};
use crate::run::progress::ProgressBarObserver;
use crate::run::{install_signal_flag, NoProgress, RunObserver, WorkloadSpec};

/// Runs `ssdfade experiment …`.
pub fn run(cmd: &ExperimentCommand) -> anyhow::Result<RunEnd> {
    let interrupt = install_signal_flag()?;
    let (common, outcome) = match cmd {
        ExperimentCommand::Vertex2(a) => {
            let v = vertex2::Vertex2 {
                measure_duration: a.measure_duration,
                measure_interval: std::time::Duration::from_secs(1),
                soak_duration: a.soak_duration,
                soak_bytes: a.soak_bytes,
                soak_interval: a.soak_interval,
                erase_method: a.common.erase_method.clone(),
                pattern_check: a.pattern_check,
                pattern_bs: 512,
            };
            let mut t = Terminal::new(a.common.json);
            let setup = setup(&a.target, &a.common);
            (
                &a.common,
                vertex2::run(setup, v, a.common.out.clone(), interrupt, &mut t)?,
            )
        }
        ExperimentCommand::Wsat(a) => {
            let mut t = Terminal::new(a.common.json);
            let setup = setup(&a.target, &a.common);
            let o = wsat::run(
                setup,
                a.max_duration,
                &a.common.erase_method,
                a.common.out.clone(),
                interrupt,
                &mut t,
            )?;
            (&a.common, o)
        }
        ExperimentCommand::Hir(a) => {
            let mut t = Terminal::new(a.common.json);
            let setup = setup(&a.target, &a.common);
            let o = hir::run(
                setup,
                a.bursts,
                a.max_duration,
                &a.common.erase_method,
                a.common.out.clone(),
                interrupt,
                &mut t,
            )?;
            (&a.common, o)
        }
    };
    print(&outcome, common.json)
}

/// Runs `ssdfade resume DIR`.
pub fn resume(args: &ResumeArgs) -> anyhow::Result<RunEnd> {
    let interrupt = install_signal_flag()?;
    let mut t = Terminal::new(args.json);
    let outcome = crate::experiment::resume(&args.dir, interrupt, &mut t)?;
    print(&outcome, args.json)
}

/// Runs `ssdfade sweep`.
pub fn sweep(args: &SweepArgs) -> anyhow::Result<RunEnd> {
    let interrupt = install_signal_flag()?;
    let (axis, values) = if args.threads.is_empty() {
        (sweep::Axis::QueueDepth, &args.qd)
    } else {
        (sweep::Axis::Threads, &args.threads)
    };
    let setup = Setup {
        target: args.target.clone(),
        options: options(
            &args.safety,
            &args.workload,
            std::time::Duration::from_secs(60),
            None,
        ),
        workload: workload(&args.workload, 1),
    };
    let mut t = Terminal::new(args.json);
    let outcome = sweep::run(
        setup,
        axis,
        values,
        args.point_duration,
        args.interval,
        args.out.clone(),
        interrupt,
        &mut t,
    )?;
    print(&outcome, args.json)
}

fn setup(target: &str, a: &ExperimentArgs) -> Setup {
    Setup {
        target: target.to_string(),
        options: options(&a.safety, &a.workload, a.ss_round, Some(a.checkpoint)),
        workload: workload(&a.workload, a.qd),
    }
}

fn options(
    safety: &crate::cli::SafetyArgs,
    w: &ExperimentWorkloadArgs,
    ss_round: std::time::Duration,
    checkpoint: Option<std::time::Duration>,
) -> Options {
    Options {
        destroy_data: safety.destroy_data.clone(),
        force: safety.force,
        size: safety.size,
        engine: w.engine,
        ss_round_s: ss_round.as_secs_f64(),
        checkpoint_s: checkpoint.map(|c| c.as_secs_f64()),
    }
}

fn workload(w: &ExperimentWorkloadArgs, qd: u32) -> WorkloadSpec {
    WorkloadSpec {
        bs: w.bs,
        align: w.align,
        read_pct: w.read_pct,
        random_pct: w.random_pct,
        qd,
        span: w.span,
        seed: w.seed,
        pattern: w.pattern,
        refill: w.refill,
        on_error: w.on_error,
    }
}

pub(crate) fn print(outcome: &ExperimentOutcome, json: bool) -> anyhow::Result<RunEnd> {
    if json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&summary_json(&outcome.dir, &outcome.record))?
        )?;
    } else {
        crate::out!("{}", summary_text(&outcome.dir, &outcome.record))?;
        let dir = outcome.dir.display();
        crate::outln!("  Charts: {}", outcome.charts().join(", "))?;
        crate::outln!("  Report: {dir}/report.html (and report.md)")?;
    }
    if outcome.end == RunEnd::Interrupted {
        eprintln!(
            "ssdfade: continue with `ssdfade resume {}`",
            outcome.dir.display()
        );
    }
    Ok(outcome.end.clone())
}

/// One line on stderr per phase, and the soak's progress bar (nothing with --json).
pub(crate) struct Terminal {
    quiet: bool,
}

impl Terminal {
    pub(crate) fn new(quiet: bool) -> Terminal {
        Terminal { quiet }
    }
}

impl ExperimentObserver for Terminal {
    fn phase_started(&mut self, _index: usize, phase: &PhaseRecord) {
        if !self.quiet && phase.attempts > 1 {
            eprintln!(
                "ssdfade: phase {} again (attempt {})",
                phase.phase.name, phase.attempts
            );
        }
    }

    fn phase_finished(&mut self, index: usize, p: &PhaseRecord) {
        if self.quiet {
            return;
        }
        let figures = p
            .headline
            .as_ref()
            .map(|h| match (h.iops, &h.method) {
                (Some(iops), _) => format!("{iops:.0} IOPS"),
                (None, Some(m)) => format!("{m} in {:.1} s", h.seconds),
                (None, None) => format!("{:.0} s", h.seconds),
            })
            .unwrap_or_default();
        eprintln!(
            "ssdfade: [{}] {} ({}): {} {}",
            index + 1,
            p.phase.name,
            p.phase.kind.label(),
            p.status,
            figures
        );
    }

    fn run_observer(&mut self, phase: &PhaseRecord) -> Box<dyn RunObserver> {
        if !self.quiet && matches!(phase.phase.kind, PhaseKind::Soak(_)) {
            Box::new(ProgressBarObserver::default())
        } else {
            Box::new(NoProgress)
        }
    }
}
