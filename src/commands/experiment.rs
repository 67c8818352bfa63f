//! `ssdfade experiment vertex2|wsat|hir|xsr|op-sweep|slc-cache|pts`, `ssdfade resume DIR` and `ssdfade sweep`: convert the
//! options, start (or continue) the experiment through [`crate::experiment`] (several targets:
//! [`crate::group::experiment`]), print its summary or the group's table.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::cli::{
    ExperimentArgs, ExperimentCommand, ExperimentWorkloadArgs, OpSweepArgs, PtsArgs, ResumeArgs,
    SlcCacheArgs, SweepArgs,
};
use crate::drive::RunEnd;
use crate::experiment::{
    hir, op_sweep, pts, slc_cache, sweep, vertex2, wsat, xsr, ExperimentObserver,
    ExperimentOutcome, ExperimentRecord, Options, Quiet, Setup,
};
use crate::group::experiment::GroupExperiment;
use crate::metrics::Exporter;
use crate::output::experiment::{GroupLine, Terminal};
use crate::output::summary::{summary_json, summary_text};
use crate::output::MultiProgress;
use crate::run::install_signal_flag;

/// Runs `ssdfade experiment …` on one target, or on several at once (a group).
pub fn run(cmd: &ExperimentCommand) -> anyhow::Result<RunEnd> {
    if let ExperimentCommand::OpSweep(a) = cmd {
        return op_sweep(a);
    }
    if let ExperimentCommand::SlcCache(a) = cmd {
        return slc_cache(a);
    }
    if let ExperimentCommand::Pts(a) = cmd {
        return pts(a);
    }
    let interrupt = install_signal_flag()?;
    let (name, target, more, common, make): (&str, _, _, _, Box<Make>) = match cmd {
        ExperimentCommand::Vertex2(a) => {
            let v = vertex2::Vertex2 {
                measure_duration: a.measure_duration,
                measure_interval: vertex2::MEASURE_INTERVAL,
                soak_duration: a.soak_duration,
                soak_bytes: a.soak_bytes,
                soak_interval: a.soak_interval,
                erase_method: a.common.erase_method.clone(),
                pattern_check: a.pattern_check,
                pattern_bs: vertex2::PATTERN_BS,
                reference: a.reference,
            };
            let make = move |s| vertex2::record(s, v.clone());
            (
                "vertex2",
                &a.target,
                &a.more_targets,
                &a.common,
                Box::new(make),
            )
        }
        ExperimentCommand::Wsat(a) => {
            let make = |s| wsat::record(s, a.max_duration, &a.common.erase_method);
            (
                "wsat",
                &a.target,
                &a.more_targets,
                &a.common,
                Box::new(make),
            )
        }
        ExperimentCommand::Hir(a) => {
            let make = |s| hir::record(s, a.bursts, a.max_duration, &a.common.erase_method);
            ("hir", &a.target, &a.more_targets, &a.common, Box::new(make))
        }
        ExperimentCommand::Xsr(a) => {
            let plan = xsr::Xsr {
                segment: a.segment,
                erase_method: a.common.erase_method.clone(),
            };
            let make = move |s| xsr::record(s, plan.clone());
            ("xsr", &a.target, &a.more_targets, &a.common, Box::new(make))
        }
        ExperimentCommand::OpSweep(_)
        | ExperimentCommand::SlcCache(_)
        | ExperimentCommand::Pts(_) => {
            unreachable!("op-sweep, slc-cache and pts are run above")
        }
    };
    if name != "wsat" {
        refuse_precondition(&common.workload, name)?;
    }
    if common.dry_run {
        for target in std::iter::once(target).chain(more) {
            let record = make(setup(target, common)?)?;
            crate::experiment::check_plan(&record)?;
            crate::out!("{}", crate::output::plan::plan_text(&record))?;
        }
        return Ok(RunEnd::Completed);
    }
    let exporter = exporter(&common.metrics)?;
    if !more.is_empty() {
        let targets: Vec<String> = std::iter::once(target).chain(more).cloned().collect();
        return run_group(name, &targets, common, &make, &exporter, interrupt);
    }
    let mut observer = watched(Box::new(Terminal::new(common.json)), &exporter);
    let setup = setup(target, common)?;
    let file = setup.create_test_file()?;
    let outcome = make(setup).and_then(|record| {
        crate::experiment::launch_record(record, common.out.clone(), interrupt, observer.as_mut())
    });
    file.settle(&outcome);
    print(&outcome?, common.json)
}

/// Runs `ssdfade experiment op-sweep` (on the drive, or on its twin with `--on-twin`).
fn op_sweep(a: &OpSweepArgs) -> anyhow::Result<RunEnd> {
    let workload = crate::run::WorkloadSpec {
        bs: a.bs,
        align: a.align,
        qd: a.qd,
        seed: a.seed,
        ..crate::experiment::seed_workload()
    };
    let setup = Setup {
        target: a.target.clone(),
        options: Options {
            destroy_data: a.safety.destroy_data.clone(),
            force: a.safety.force,
            size: a.safety.size,
            engine: a.engine,
            ss_round_s: a.ss_round.as_secs_f64(),
            checkpoint_s: None,
        },
        workload,
    };
    let plan = op_sweep::OpSweep {
        spans: a.span.clone(),
        drive_op_pct: a.drive_op,
        max_duration: a.max_duration,
        interval: a.interval,
        erase_method: a.erase_method.clone(),
        on_twin: a.on_twin.clone().map(|file| (file, a.target.clone())),
    };
    if a.dry_run {
        let record = op_sweep::record(setup, plan)?;
        crate::experiment::check_plan(&record)?;
        crate::out!("{}", crate::output::plan::plan_text(&record))?;
        return Ok(RunEnd::Completed);
    }
    let file = setup.create_test_file()?;
    let interrupt = install_signal_flag()?;
    let mut observer = Terminal::new(a.json);
    let outcome = op_sweep::record(setup, plan).and_then(|record| {
        crate::experiment::launch_record(record, a.out.clone(), interrupt, &mut observer)
    });
    file.settle(&outcome);
    print(&outcome?, a.json)
}

/// Runs `ssdfade experiment slc-cache`.
fn slc_cache(a: &SlcCacheArgs) -> anyhow::Result<RunEnd> {
    let setup = Setup {
        target: a.target.clone(),
        options: Options {
            destroy_data: a.safety.destroy_data.clone(),
            force: a.safety.force,
            size: a.safety.size,
            engine: a.engine,
            ss_round_s: crate::experiment::DEFAULT_SS_ROUND.as_secs_f64(),
            checkpoint_s: None,
        },
        workload: crate::run::WorkloadSpec {
            bs: a.bs,
            qd: a.qd,
            seed: a.seed,
            ..crate::experiment::seed_workload()
        },
    };
    let round = crate::experiment::DEFAULT_SS_ROUND;
    if a.interval > round {
        crate::bad_input!(
            "--interval {} is longer than the {} steady-state round the SLC-cache test's writes are judged by: a round holds whole intervals; give --interval {} or less",
            crate::units::format_interval(a.interval),
            crate::units::format_duration(round),
            crate::units::format_duration(round)
        );
    }
    let plan = slc_cache::SlcCache {
        purge: !a.no_purge,
        erase_method: a.erase_method.clone(),
        interval: a.interval,
    };
    if a.dry_run {
        let record = slc_cache::record(setup, plan)?;
        crate::experiment::check_plan(&record)?;
        crate::out!("{}", crate::output::plan::plan_text(&record))?;
        return Ok(RunEnd::Completed);
    }
    let file = setup.create_test_file()?;
    let interrupt = install_signal_flag()?;
    let mut observer = Terminal::new(a.json);
    let outcome = slc_cache::record(setup, plan).and_then(|record| {
        crate::experiment::launch_record(record, a.out.clone(), interrupt, &mut observer)
    });
    file.settle(&outcome);
    print(&outcome?, a.json)
}

/// Runs `ssdfade experiment pts`.
fn pts(a: &PtsArgs) -> anyhow::Result<RunEnd> {
    let setup = Setup {
        target: a.target.clone(),
        options: Options {
            destroy_data: a.safety.destroy_data.clone(),
            force: a.safety.force,
            size: a.safety.size,
            engine: a.engine,
            ss_round_s: a.round.as_secs_f64(),
            checkpoint_s: None,
        },
        workload: crate::run::WorkloadSpec {
            seed: a.seed,
            ..crate::experiment::seed_workload()
        },
    };
    let plan = pts::Pts {
        tests: a.tests.clone(),
        round: a.round,
        rounds: a.rounds,
        qd: a.qd,
        erase_method: a.erase_method.clone(),
    };
    if a.dry_run {
        let record = pts::record(setup, plan)?;
        crate::experiment::check_plan(&record)?;
        crate::out!("{}", crate::output::plan::plan_text(&record))?;
        return Ok(RunEnd::Completed);
    }
    let file = setup.create_test_file()?;
    let interrupt = install_signal_flag()?;
    let mut observer = Terminal::new(a.json);
    let outcome = pts::record(setup, plan).and_then(|record| {
        crate::experiment::launch_record(record, a.out.clone(), interrupt, &mut observer)
    });
    file.settle(&outcome);
    print(&outcome?, a.json)
}

/// Builds an experiment's record for one target.
type Make<'a> = dyn Fn(Setup) -> anyhow::Result<ExperimentRecord> + Sync + 'a;

/// `observer`, exported to Prometheus too when asked.
fn watched(
    observer: Box<dyn ExperimentObserver + Send>,
    exporter: &Option<Arc<Exporter>>,
) -> Box<dyn ExperimentObserver + Send> {
    match exporter {
        Some(e) => Box::new(e.experiment_observer(observer)),
        None => observer,
    }
}

fn exporter(m: &crate::cli::MetricsArgs) -> anyhow::Result<Option<Arc<Exporter>>> {
    Exporter::start(m.metrics_listen.as_deref(), m.metrics_textfile.as_deref())
}

/// The experiment on every target at once: one progress line per target, then the table of
/// all of them, the overlay of their soaks and a line per failed target.
fn run_group(
    name: &str,
    targets: &[String],
    common: &ExperimentArgs,
    make: &Make,
    exporter: &Option<Arc<Exporter>>,
    interrupt: Arc<AtomicBool>,
) -> anyhow::Result<RunEnd> {
    let confirmed = crate::group::confirmations(targets, common.safety.destroy_data.as_deref())?;
    let setups = targets
        .iter()
        .zip(confirmed)
        .map(|(target, destroy_data)| {
            let mut s = setup(target, common)?;
            s.options.destroy_data = destroy_data;
            Ok(s)
        })
        .collect::<anyhow::Result<_>>()?;
    let multi = MultiProgress::new();
    let observer_for = group_lines(&multi, targets, common.json, exporter);
    let group = crate::group::experiment::run(
        name,
        setups,
        make,
        &observer_for,
        common.out.as_deref(),
        interrupt,
    )?;
    print_group(&group, common.json)
}

/// Makes each target's observer: its line of `multi` (nothing with --json), exported.
fn group_lines<'a>(
    multi: &'a MultiProgress,
    targets: &[String],
    json: bool,
    exporter: &'a Option<Arc<Exporter>>,
) -> impl Fn(&str) -> Box<dyn ExperimentObserver + Send> + 'a {
    let width = targets.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    move |target: &str| {
        let line: Box<dyn ExperimentObserver + Send> = if json {
            Box::new(Quiet)
        } else {
            Box::new(GroupLine::new(multi, &format!("{target:<width$}")))
        };
        watched(line, exporter)
    }
}

fn print_group(group: &GroupExperiment, json: bool) -> anyhow::Result<RunEnd> {
    use crate::group::experiment::{failure, status};
    if json {
        let members: Vec<serde_json::Value> = group
            .members
            .iter()
            .map(|m| match &m.result {
                Ok(o) => {
                    let mut v = summary_json(&o.dir, &o.record);
                    v["error"] = failure(m).into();
                    v
                }
                Err(e) => serde_json::json!({
                    "target": m.target,
                    "dir": m.dir.display().to_string(),
                    "status": status(m),
                    "error": e,
                }),
            })
            .collect();
        let compared: Vec<String> = match &group.comparison {
            Some(Ok(files)) => files.iter().map(|p| p.display().to_string()).collect(),
            _ => Vec::new(),
        };
        let value = serde_json::json!({
            "group_dir": group.dir.display().to_string(),
            "members": members,
            "compare": compared,
        });
        crate::outln!("{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        crate::out!("{}", crate::group::experiment_table(group))?;
        super::group::print_where(&group.dir, &group.comparison)?;
    }
    super::group::note_failures(
        &group.comparison,
        group
            .members
            .iter()
            .map(|m| (m.target.as_str(), failure(m))),
    );
    let end = group.end();
    if end != RunEnd::Completed {
        crate::note!(
            "ssdfade: continue the unfinished targets with `ssdfade resume {}`",
            group.dir.display()
        );
    }
    Ok(end)
}

/// Runs `ssdfade resume DIR`: an experiment directory, or a group directory (every member
/// not completed, all at once).
pub fn resume(args: &ResumeArgs) -> anyhow::Result<RunEnd> {
    let interrupt = install_signal_flag()?;
    let exporter = exporter(&args.metrics)?;
    if args.dir.join("group.json").exists() {
        let record = crate::group::GroupRecord::read(&args.dir)?;
        let targets: Vec<String> = record.members.iter().map(|m| m.target.clone()).collect();
        let multi = MultiProgress::new();
        let observer_for = group_lines(&multi, &targets, args.json, &exporter);
        let group = crate::group::experiment::resume(&args.dir, &observer_for, interrupt)?;
        return print_group(&group, args.json);
    }
    let mut t = watched(Box::new(Terminal::new(args.json)), &exporter);
    let outcome = crate::experiment::resume(&args.dir, interrupt, t.as_mut())?;
    print(&outcome, args.json)
}

/// Runs `ssdfade sweep`.
pub fn sweep(args: &SweepArgs) -> anyhow::Result<RunEnd> {
    refuse_precondition(&args.workload, "sweep")?;
    let (axis, values) = match (&args.workload.access.rate, args.threads.is_empty()) {
        (Some(text), _) => (
            sweep::Axis::Rate(sweep::parse_rates(text)?),
            args.qd.clone(),
        ),
        (None, true) => (sweep::Axis::QueueDepth(args.jobs.clone()), args.qd.clone()),
        (None, false) => (sweep::Axis::Threads, args.threads.clone()),
    };
    let mut access = args.workload.access.clone();
    // A rate sweep's --rate is its list of points, not one rate for every point.
    access.rate = None;
    let setup = Setup {
        target: args.target.clone(),
        options: options(
            &args.safety,
            &args.workload,
            crate::experiment::DEFAULT_SS_ROUND,
            None,
        ),
        workload: access.spec(1)?,
    };
    let interrupt = install_signal_flag()?;
    let mut t = watched(
        Box::new(Terminal::new(args.json)),
        &exporter(&args.metrics)?,
    );
    let file = setup.create_test_file()?;
    let outcome = sweep::run(
        setup,
        axis,
        &values,
        args.point_duration,
        args.interval,
        args.out.clone(),
        interrupt,
        t.as_mut(),
    );
    file.settle(&outcome);
    print(&outcome?, args.json)
}

/// Experiments of several writing phases would repeat the preconditioning in each: refused.
fn refuse_precondition(w: &ExperimentWorkloadArgs, name: &str) -> anyhow::Result<()> {
    if !w.access.precondition.is_none() {
        crate::bad_input!(
            "--precondition {} does not apply to {name}: use it with soak, measure (also --preset) or experiment wsat",
            w.access.precondition
        );
    }
    Ok(())
}

fn setup(target: &str, a: &ExperimentArgs) -> anyhow::Result<Setup> {
    Ok(Setup {
        target: target.to_string(),
        options: options(&a.safety, &a.workload, a.ss_round, Some(a.checkpoint)),
        workload: a.workload.access.spec(a.qd)?,
    })
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

/// "  Charts (in it): a.png, b.png, …", wrapped to 80 columns under its first name.
fn charts_line(names: &[String]) -> String {
    const LABEL: &str = "  Charts (in it): ";
    let mut text = String::from(LABEL);
    let mut width = LABEL.len();
    for (i, name) in names.iter().enumerate() {
        let item = if i + 1 < names.len() {
            format!("{name},")
        } else {
            name.clone()
        };
        if i > 0 && width + 1 + item.len() > 80 {
            text.push('\n');
            text.push_str(&" ".repeat(LABEL.len()));
            width = LABEL.len();
        } else if i > 0 {
            text.push(' ');
            width += 1;
        }
        text.push_str(&item);
        width += item.len();
    }
    text.push('\n');
    text
}

pub(crate) fn print(outcome: &ExperimentOutcome, json: bool) -> anyhow::Result<RunEnd> {
    if json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&summary_json(&outcome.dir, &outcome.record))?
        )?;
    } else {
        crate::out!("{}", summary_text(&outcome.dir, &outcome.record))?;
        // After a signal nothing was drawn (a note said so) and the process is to end at once.
        if !crate::stop::requested() {
            crate::out!(
                "{}",
                charts_line(&crate::protocol::chart_files(&outcome.dir, &outcome.record))
            )?;
            crate::outln!("  Report (in it): report.html (and report.md)")?;
        }
    }
    if outcome.end == RunEnd::Interrupted {
        crate::note!(
            "ssdfade: continue with `ssdfade resume {}`",
            outcome.dir.display()
        );
    }
    Ok(outcome.end.clone())
}
