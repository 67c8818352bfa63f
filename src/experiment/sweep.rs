//! The seed's sweeps: the same workload at several queue depths (Iometer's outstanding I/Os)
//! or thread counts (tiobench: the `threads` engine, one thread per I/O), one run directory per
//! point and `sweep.json` with the table: IOPS, MB/s, average, average read, average write and
//! p99 latency. At saturation latency ≈ jobs × QD / IOPS (Little's law); the table shows both.
//!
//! A queue-depth sweep given several job counts (`--jobs 1,2,4`, fio's numjobs) measures every
//! jobs × QD pair, the job counts outside, as `measure --jobs J --qd Q` would: SNIA's thread
//! count × outstanding I/O matrix, a line per job count.
//!
//! A rate sweep (`--rate 10%,50%,100%`) keeps the queue depth and paces each point at an issue
//! rate, open loop: latency (mean, p99, p99.9) against delivered IOPS, the hockey stick of
//! SNIA's demand-intensity curve. A percent is of the IOPS a first, unpaced point (`max`)
//! measured; the runner turns it into IOPS when the point starts ([`resolve_rate`]), so a
//! resumed sweep paces from the same maximum.

use std::path::Path;
use std::time::Duration;

use crate::analysis::Figures;
use crate::results::settings::{Settings, SweepSettings, SweepValue};
use crate::results::{ExperimentRecord, RunParams, Status};
use crate::workload::{Rate, MAX_RATE_IOPS};

use super::phase::{Phase, PhaseKind};
use super::{run_params, Setup};

/// Most points a sweep takes (each is a run directory of its own).
pub const MAX_POINTS: usize = 64;

/// The unpaced point a rate sweep measures first when a rate is a percent of the maximum.
pub const MAX_PHASE: &str = "max";

/// A rate sweep's queue depth when `--qd` is not given.
pub const DEFAULT_RATE_QD: u32 = 32;

/// Highest percent of the maximum a rate sweep takes (beyond 100 % every I/O is late).
const MAX_PERCENT: f64 = 1000.0;

/// What varies from point to point.
#[derive(Clone, Debug, PartialEq)]
pub enum Axis {
    /// Outstanding I/Os of each job with the experiment's engine, at each of these job counts
    /// (none given: the workload's one).
    QueueDepth(Vec<u32>),
    /// Threads of the `threads` engine, one I/O each.
    Threads,
    /// The issue rate, at one queue depth.
    Rate(Vec<RatePoint>),
}

impl Axis {
    pub fn name(&self) -> &'static str {
        match self {
            Axis::QueueDepth(_) => "qd",
            Axis::Threads => "threads",
            Axis::Rate(_) => "rate",
        }
    }
}

/// One point of a rate sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RatePoint {
    /// Percent of the IOPS the `max` point measured.
    Percent(f64),
    /// I/Os per second.
    Iops(u64),
}

impl RatePoint {
    /// As `--rate` lists it: `50%`, `4000`.
    pub fn label(self) -> String {
        match self {
            RatePoint::Percent(p) => format!("{p}%"),
            RatePoint::Iops(n) => n.to_string(),
        }
    }

    /// The point's phase name: `rate50pct`, `rate4000iops`.
    pub fn phase_name(self) -> String {
        match self {
            RatePoint::Percent(p) => format!("rate{p}pct"),
            RatePoint::Iops(n) => format!("rate{n}iops"),
        }
    }
}

/// Parses sweep's `--rate`: a comma-separated list of percents of the maximum (`50%`) and IOPS
/// (`4000`), each given once.
pub fn parse_rates(text: &str) -> anyhow::Result<Vec<RatePoint>> {
    let mut points: Vec<RatePoint> = Vec::new();
    for item in text.split(',').map(str::trim) {
        let point = match item.strip_suffix('%') {
            Some(p) => match p.trim().parse::<f64>() {
                Ok(p) if p > 0.0 && p <= MAX_PERCENT => RatePoint::Percent(p),
                _ => crate::bad_input!(
                    "--rate {text}: '{item}' is not a percent of the maximum above 0 and at most {MAX_PERCENT}: give a list such as 10%,50%,100%"
                ),
            },
            None => match item.parse::<u64>() {
                Ok(n) if n > 0 && n <= MAX_RATE_IOPS => RatePoint::Iops(n),
                _ => crate::bad_input!(
                    "--rate {text}: '{item}' is neither a percent of the maximum (50%) nor IOPS from 1 to {MAX_RATE_IOPS} (4000): give a list such as 10%,50%,100%"
                ),
            },
        };
        if points.contains(&point) {
            crate::bad_input!("--rate {text}: '{item}' is listed twice: give each rate once");
        }
        points.push(point);
    }
    Ok(points)
}

/// One `sweep-point` phase per value (a queue-depth sweep of several job counts: per job count
/// and value, named `jobs2-qd4`); a rate sweep's `values` is its one queue depth (or none), and
/// it starts with the unpaced [`MAX_PHASE`] when a rate is a percent.
pub fn phases(
    setup: &Setup,
    axis: &Axis,
    values: &[u32],
    point: Duration,
    interval: Duration,
) -> Vec<Phase> {
    if let Axis::Rate(rates) = axis {
        let mut w = setup.workload.clone();
        w.qd = values.first().copied().unwrap_or(DEFAULT_RATE_QD);
        let max = rates
            .iter()
            .any(|r| matches!(r, RatePoint::Percent(_)))
            .then(|| Phase {
                name: MAX_PHASE.into(),
                kind: PhaseKind::SweepPoint(run_params(&w, Some(point), None, interval)),
            });
        let paced = rates.iter().map(|&r| {
            let mut params = run_params(&w, Some(point), None, interval);
            match r {
                RatePoint::Percent(p) => params.rate_percent = Some(p),
                RatePoint::Iops(n) => params.workload.rate = Some(Rate::Iops(n)),
            }
            Phase {
                name: r.phase_name(),
                kind: PhaseKind::SweepPoint(params),
            }
        });
        return max.into_iter().chain(paced).collect();
    }
    let jobs = match axis {
        Axis::QueueDepth(jobs) if jobs.len() > 1 => jobs.clone(),
        _ => vec![setup.workload.jobs],
    };
    let several_jobs = jobs.len() > 1;
    jobs.iter()
        .flat_map(|&j| values.iter().map(move |&v| (j, v)))
        .map(|(j, v)| {
            let mut w = setup.workload.clone();
            (w.jobs, w.qd) = (j, v);
            let mut params = run_params(&w, Some(point), None, interval);
            if *axis == Axis::Threads {
                params.engine = Some("threads".into());
            }
            let name = format!("{}{v}", axis.name());
            Phase {
                name: if several_jobs {
                    format!("jobs{j}-{name}")
                } else {
                    name
                },
                kind: PhaseKind::SweepPoint(params),
            }
        })
        .collect()
}

/// `params` as the point runs them: a rate given as a percent of the maximum becomes IOPS,
/// from what the experiment's [`MAX_PHASE`] (in `dir`) measured.
pub fn resolve_rate(
    dir: &Path,
    record: &ExperimentRecord,
    params: &RunParams,
) -> anyhow::Result<RunParams> {
    let mut params = params.clone();
    let Some(percent) = params.rate_percent else {
        return Ok(params);
    };
    let max = record
        .phases
        .iter()
        .find(|p| p.phase.name == MAX_PHASE && p.status == Status::Completed)
        .and_then(|p| p.dir.as_ref())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "a rate of {percent} % of the maximum needs the completed '{MAX_PHASE}' point, which this experiment does not have"
            )
        })?;
    let iops = Figures::of_run(&crate::results::load_run(&dir.join(max))?).iops;
    if iops.is_nan() || iops < 1.0 {
        anyhow::bail!(
            "the '{MAX_PHASE}' point measured {iops:.1} IOPS: there is no maximum to take {percent} % of; check the target and run the sweep again"
        );
    }
    let rate = (iops * percent / 100.0).round().max(1.0) as u64;
    params.workload.rate = Some(Rate::Iops(rate));
    Ok(params)
}

/// Runs the sweep: one point per value of `axis`, in the order given (a rate sweep: `values`
/// is its queue depth, at most one).
#[allow(clippy::too_many_arguments)]
pub fn run(
    mut setup: Setup,
    axis: Axis,
    values: &[u32],
    point: Duration,
    interval: Duration,
    out: Option<std::path::PathBuf>,
    interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>,
    observer: &mut dyn super::ExperimentObserver,
) -> anyhow::Result<super::ExperimentOutcome> {
    if let Axis::Rate(rates) = &axis {
        if values.len() > 1 || values.contains(&0) {
            crate::bad_input!(
                "--qd with --rate takes one queue depth, the one every point keeps (default {DEFAULT_RATE_QD})"
            );
        }
        if rates.len() > MAX_POINTS {
            crate::bad_input!(
                "--rate lists {} points: a sweep takes at most {MAX_POINTS}; split it into several sweeps",
                rates.len()
            );
        }
    } else if values.is_empty() || values.contains(&0) {
        crate::bad_input!(
            "--{} needs a list of positive numbers such as 1,2,4,8",
            axis.name()
        );
    } else if values.len() > MAX_POINTS {
        crate::bad_input!(
            "--{} lists {} points: a sweep takes at most {MAX_POINTS}; split it into several sweeps",
            axis.name(),
            values.len()
        );
    }
    let mut jobs = Vec::new();
    if let Axis::QueueDepth(counts) = &axis {
        if counts.contains(&0) {
            crate::bad_input!("--jobs needs a list of positive numbers such as 1,2,4");
        }
        if counts.len() * values.len() > MAX_POINTS {
            crate::bad_input!(
                "--jobs × --qd is {} points: a sweep takes at most {MAX_POINTS}; split it into several sweeps",
                counts.len() * values.len()
            );
        }
        match counts.as_slice() {
            [one] => setup.workload.jobs = *one,
            _ => jobs.clone_from(counts),
        }
    }
    let list = phases(&setup, &axis, values, point, interval);
    let settings = Settings::Sweep(SweepSettings {
        axis: axis.name().to_string(),
        values: match &axis {
            Axis::Rate(rates) => rates.iter().map(|r| SweepValue::Label(r.label())).collect(),
            _ => values.iter().map(|&v| SweepValue::Count(v)).collect(),
        },
        point_duration_s: point.as_secs_f64(),
        workload: setup.workload.clone(),
        jobs,
    });
    super::launch(
        "sweep",
        &setup,
        list,
        settings,
        Vec::new(),
        out,
        interrupt,
        observer,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_as_percents_and_iops_once_each() {
        assert_eq!(
            parse_rates("10%, 50%,4000").unwrap(),
            vec![
                RatePoint::Percent(10.0),
                RatePoint::Percent(50.0),
                RatePoint::Iops(4000)
            ]
        );
        for bad in ["0%", "abc", "50%,50%", "10%,", "-5", "40M", "2000%"] {
            let err = parse_rates(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&err), 2, "{bad}: {err}");
        }
        assert_eq!(RatePoint::Percent(12.5).phase_name(), "rate12.5pct");
        assert_eq!(RatePoint::Iops(4000).phase_name(), "rate4000iops");
    }
}
