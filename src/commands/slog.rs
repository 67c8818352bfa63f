//! `ssdfade slog`: the SLOG test of a device, printed as tables and a verdict (or slog.json);
//! with several targets, all at once under one group directory, with a verdict table.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use crate::cli::{SlogArgs, ZilRate};
use crate::drive::RunEnd;
use crate::metrics::Exporter;
use crate::run::{NoProgress, RunObserver};
use crate::slog::baseline::Baseline;
use crate::slog::sweep::Plan;
use crate::slog::{self, Request};

/// Parses the options, runs the test and prints it.
pub fn run(args: &SlogArgs) -> anyhow::Result<RunEnd> {
    // A rate of sync writes is also the endurance figure's daily bytes.
    let (zil_bytes_per_day, rate_iops) = match args.zil_rate {
        ZilRate::BytesPerDay(b) => (b as f64, None),
        ZilRate::WritesPerS(n) => (
            n as f64 * crate::slog::sweep::LOG_WRITE as f64 * 86_400.0,
            Some(n),
        ),
    };
    let request = Request {
        target: args.target.clone(),
        // `A,B` and `A --destroy-data B` both name two targets.
        destroy_data: args
            .destroy_data
            .iter()
            .flat_map(|d| {
                d.to_string_lossy()
                    .split(',')
                    .map(PathBuf::from)
                    .collect::<Vec<_>>()
            })
            .filter(|d| !d.as_os_str().is_empty())
            .collect(),
        force: args.force,
        size: args.size,
        plan: Plan {
            max_size: args.max_size,
            sustain_s: args.sustain.as_secs_f64(),
            seed: args.seed.unwrap_or_else(fresh_seed),
            rate_iops,
        },
        baseline: args.baseline.as_deref().map(Baseline::parse).transpose()?,
        from: args.from.clone(),
        op_sweep: args.op_sweep.clone(),
        zil_bytes_per_day,
        tbw: args.tbw,
        out: args.out.clone(),
    };
    let m = &args.metrics;
    let exporter = Exporter::start(m.metrics_listen.as_deref(), m.metrics_textfile.as_deref())?;
    let observer = || -> Box<dyn RunObserver + Send> {
        match &exporter {
            Some(e) => Box::new(e.observer(Box::new(NoProgress))),
            None => Box::new(NoProgress),
        }
    };
    let stop = crate::run::install_signal_flag()?;
    if !args.more_targets.is_empty() {
        return run_group(args, request, &observer, stop);
    }
    let mut progress = |line: &str| crate::note!("ssdfade slog: {line}");
    let outcome = slog::run(&request, &stop, &mut progress, observer().as_mut())?;
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&outcome.record)?)?;
    } else {
        crate::out!("{}", slog::table::render(&outcome.record, &outcome.dir))?;
    }
    Ok(match outcome.record.end {
        RunEnd::Completed if stop.load(Ordering::Relaxed) => RunEnd::Interrupted,
        end => end,
    })
}

/// The test on every target at once: a progress line per target and step, then the verdict
/// table (or one JSON object with every slog.json).
fn run_group(
    args: &SlogArgs,
    base: Request,
    observer: &dyn Fn() -> Box<dyn RunObserver + Send>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> anyhow::Result<RunEnd> {
    let requests: Vec<Request> = std::iter::once(&args.target)
        .chain(&args.more_targets)
        .map(|t| Request {
            target: t.clone(),
            out: None,
            ..base.clone()
        })
        .collect();
    let watchers = |target: &str| -> crate::group::slog::Watch {
        let target = target.to_string();
        (
            observer(),
            Box::new(move |line: &str| crate::note!("ssdfade slog: {target}: {line}")),
        )
    };
    let group = crate::group::slog::run(requests, &watchers, args.out.as_deref(), stop)?;
    if args.json {
        let members: Vec<serde_json::Value> = group
            .members
            .iter()
            .map(|m| {
                serde_json::json!({
                    "target": m.target,
                    "dir": m.dir.display().to_string(),
                    "status": crate::group::slog::status(m),
                    "error": crate::group::slog::failure(m),
                    "slog": m.result.as_ref().ok().map(|o| &o.record),
                })
            })
            .collect();
        let value = serde_json::json!({
            "group_dir": group.dir.display().to_string(),
            "members": members,
        });
        crate::outln!("{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        crate::out!("{}", crate::group::slog::table(&group))?;
        crate::outln!("  Group directory: {}", group.dir.display())?;
        crate::outln!("  Each target's tables and verdict: ssdfade report DIR, for DIR in")?;
        for m in &group.members {
            crate::outln!("    {}", m.dir.display())?;
        }
    }
    super::group::note_failures(
        &None,
        group
            .members
            .iter()
            .map(|m| (m.target.as_str(), crate::group::slog::failure(m))),
    );
    Ok(group.end())
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    crate::pattern::mix64(nanos ^ u64::from(std::process::id()) << 32)
}
