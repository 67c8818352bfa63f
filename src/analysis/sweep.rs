//! The figures of a queue-depth, thread or rate sweep: one [`SweepPoint`] per point that ran,
//! from its run (exact figures from run.json's summary, else its samples). The terminal table,
//! `sweep.json`, `--json` and sweep.png all show these. A paced point also carries its rate
//! (from the run's workload) and its late issues (from the run's schedule counts).

use crate::results::settings::Settings;
pub use crate::results::sweep::{SweepPoint, SweepTable};
use crate::results::{Experiment, PhaseKind, Run, Status};
use crate::stats::LatencySummary;

use super::Figures;

impl SweepPoint {
    /// The point `name` measured by `run` (`run_dir` as loaded); `threads` for a thread sweep.
    pub fn of(name: &str, run: &Run, threads: bool) -> SweepPoint {
        let f = Figures::of_run(run);
        let summary = run.info.summary.as_ref();
        let (jobs, qd) = (run.info.workload.jobs, run.info.workload.qd);
        let ms = |us: f64| us / 1000.0;
        let measured = f.ops > 0;
        SweepPoint {
            name: name.into(),
            qd,
            jobs: (jobs > 1).then_some(jobs),
            threads: threads.then_some(qd),
            iops: f.iops,
            mb_per_s: f.mb_per_s,
            avg_ms: measured.then(|| ms(f.avg_lat_us)),
            avg_read_ms: summary.and_then(|s| s.read_lat_us).map(|l| ms(l.mean)),
            avg_write_ms: summary.and_then(|s| s.write_lat_us).map(|l| ms(l.mean)),
            p99_ms: measured.then(|| ms(f.p99_lat_us)),
            p999_ms: f.lat_us.filter(|_| measured).map(|l| ms(l.p999)),
            rate_iops: run.info.workload.rate.map(|r| r.iops(run.info.workload.bs)),
            rate_percent: None,
            late: summary.and_then(|s| s.pacing.as_ref()).map(|p| p.late),
            late_max_ms: summary
                .and_then(|s| s.pacing.as_ref())
                .map(|p| ms(p.late_max_us)),
            little_ms: (f.iops > 0.0).then(|| 1000.0 * f64::from(jobs) * f64::from(qd) / f.iops),
            engine: run.info.engine.clone(),
            run_dir: run.dir.display().to_string(),
        }
    }
}

/// The sweep's table: every completed point in the order run.
pub fn table(exp: &Experiment) -> SweepTable {
    let axis = match &exp.record.settings {
        Settings::Sweep(s) => s.axis.clone(),
        _ => "qd".to_string(),
    };
    let points = exp
        .phases
        .iter()
        .filter(|p| p.record.status == Status::Completed)
        .filter_map(|p| {
            let run = p.run.as_ref()?;
            let mut point = SweepPoint::of(&p.record.phase.name, run, axis == "threads");
            if let PhaseKind::SweepPoint(params) = &p.record.phase.kind {
                point.rate_percent = params.rate_percent;
            }
            // Relative to the experiment directory, which can be moved or copied.
            point.run_dir = p.record.dir.clone()?;
            Some(point)
        })
        .collect();
    SweepTable {
        schema_version: crate::results::sweep::SCHEMA_VERSION,
        workload: shared_workload(exp, &axis),
        axis,
        points,
    }
}

/// The workload the points ran with, as their run.json records it (sizes, span and alignment
/// resolved for the target; a rate sweep's one queue depth), without what is each point's own:
/// its seed, its rate (`rate_iops` of the point) and, sweeping QD or threads, its jobs and QD.
/// Before any point has run, the workload as given.
fn shared_workload(exp: &Experiment, axis: &str) -> serde_json::Value {
    let ran = exp
        .phases
        .iter()
        .filter(|p| p.record.status == Status::Completed)
        .find_map(|p| p.run.as_ref());
    let Some(run) = ran else {
        return match &exp.record.settings {
            Settings::Sweep(s) => serde_json::to_value(&s.workload).unwrap_or_default(),
            _ => serde_json::Value::Null,
        };
    };
    let mut workload = serde_json::to_value(&run.info.workload).unwrap_or_default();
    if let Some(fields) = workload.as_object_mut() {
        fields.remove("seed");
        fields.remove("rate");
        if axis != "rate" {
            fields.remove("jobs");
            fields.remove("qd");
        }
    }
    workload
}

/// A point's read and write latency (µs), exact: its run.json summary per direction. The
/// report's read/write latency table shows these.
#[derive(Clone, Debug, PartialEq)]
pub struct PointLatency {
    pub name: String,
    pub read: Option<LatencySummary>,
    pub write: Option<LatencySummary>,
}

/// The read and write latency of every completed point in the order run (points without a
/// summary left out).
pub fn latencies(exp: &Experiment) -> Vec<PointLatency> {
    exp.phases
        .iter()
        .filter(|p| p.record.status == Status::Completed)
        .filter_map(|p| {
            let run = p.run.as_ref()?;
            let s = run.info.summary.as_ref()?;
            Some(PointLatency {
                name: p.record.phase.name.clone(),
                read: s.read_lat_us,
                write: s.write_lat_us,
            })
        })
        .collect()
}

/// The job counts of the points, each once, in the order run: more than one when the sweep is
/// a jobs × QD matrix.
pub fn job_counts(table: &SweepTable) -> Vec<u32> {
    let mut counts: Vec<u32> = Vec::new();
    for jobs in table.points.iter().map(|p| p.jobs.unwrap_or(1)) {
        if !counts.contains(&jobs) {
            counts.push(jobs);
        }
    }
    counts
}

/// The point with the most IOPS (the first of equals); None without points.
pub fn peak(table: &SweepTable) -> Option<&SweepPoint> {
    table
        .points
        .iter()
        .fold(None, |best: Option<&SweepPoint>, p| match best {
            Some(b) if b.iops >= p.iops => Some(b),
            _ => Some(p),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Command, RunInfo, Summary, TargetRecord};

    fn run_at(qd: u32, ops: u64, seconds: f64, mean_us: f64, read_mean_us: f64) -> Run {
        let workload = crate::workload::Workload {
            qd,
            ..Default::default()
        };
        let target = TargetRecord {
            path: "t".into(),
            identity: Default::default(),
        };
        let mut info = RunInfo::started(Command::Measure, target, workload, "sim", None);
        let lat = |mean: f64| LatencySummary {
            mean,
            p50: mean,
            p99: 4.0 * mean,
            p999: 5.0 * mean,
            max: 6.0 * mean,
        };
        info.summary = Some(Summary {
            seconds,
            ops,
            bytes: ops * 8192,
            iops: ops as f64 / seconds,
            mb_per_s: ops as f64 * 8192.0 / seconds / 1e6,
            lat_us: Some(lat(mean_us)),
            read_lat_us: Some(lat(read_mean_us)),
            write_lat_us: None,
            ..Default::default()
        });
        Run {
            dir: "p".into(),
            info,
            samples: Vec::new(),
        }
    }

    /// QD 8 at 4000 IOPS: Little's law says 2 ms; the table's other figures are the summary's,
    /// in ms.
    #[test]
    fn a_point_carries_little_law_and_its_latencies_in_ms() {
        let p = SweepPoint::of("qd8", &run_at(8, 40_000, 10.0, 1_950.0, 2_500.0), false);
        assert_eq!(p.qd, 8);
        assert_eq!(p.threads, None);
        assert!((p.iops - 4000.0).abs() < 1e-9);
        assert!((p.little_ms.unwrap() - 2.0).abs() < 1e-12);
        assert!((p.avg_ms.unwrap() - 1.95).abs() < 1e-12);
        assert!((p.avg_read_ms.unwrap() - 2.5).abs() < 1e-12);
        assert_eq!(p.avg_write_ms, None);
        assert!((p.p99_ms.unwrap() - 7.8).abs() < 1e-12);
        assert!((p.mb_per_s - 32.768).abs() < 1e-9);
    }

    /// A paced point carries its rate in IOPS (a byte rate divided by the transfer size), its
    /// p99.9 and its late issues from the run's schedule counts; an unpaced one has none.
    #[test]
    fn a_paced_point_carries_its_rate_p999_and_late_issues() {
        let mut run = run_at(8, 40_000, 10.0, 1_000.0, 1_000.0);
        assert_eq!(SweepPoint::of("max", &run, false).rate_iops, None);
        assert_eq!(SweepPoint::of("max", &run, false).late, None);
        run.info.workload.bs = 8192;
        run.info.workload.rate = Some(crate::workload::Rate::BytesPerS(8192 * 4000));
        let summary = run.info.summary.as_mut().unwrap();
        summary.pacing = Some(crate::stats::PacingSummary {
            paced: 40_000,
            mean_lag_us: 10.0,
            late: 7,
            late_mean_us: 1_500.0,
            late_max_us: 2_500.0,
        });
        let p = SweepPoint::of("rate4000iops", &run, false);
        assert_eq!(p.rate_iops, Some(4000.0));
        assert_eq!(p.late, Some(7));
        assert!((p.late_max_ms.unwrap() - 2.5).abs() < 1e-12);
        assert!((p.p999_ms.unwrap() - 5.0).abs() < 1e-12);
    }

    /// A point where nothing completed has no latency and no Little's-law figure (not 0 ms).
    #[test]
    fn a_point_without_io_has_no_latency_figures() {
        let p = SweepPoint::of("threads4", &run_at(4, 0, 10.0, 0.0, 0.0), true);
        assert_eq!(p.threads, Some(4));
        assert_eq!(p.little_ms, None);
        assert_eq!(p.avg_ms, None);
        assert_eq!(p.p99_ms, None);
    }
    /// The peak is the point with the most IOPS, the first of equal ones (a plateau's start).
    #[test]
    fn the_peak_is_the_first_point_with_the_most_iops() {
        let point = |qd: u32, iops: f64| SweepPoint {
            iops,
            ..SweepPoint::of("p", &run_at(qd, 1, 1.0, 1.0, 1.0), false)
        };
        let table = |points| SweepTable {
            schema_version: 1,
            axis: "qd".into(),
            workload: serde_json::Value::Null,
            points,
        };
        let t = table(vec![
            point(1, 10.0),
            point(2, 30.0),
            point(4, 30.0),
            point(8, 20.0),
        ]);
        assert_eq!(peak(&t).map(|p| p.qd), Some(2));
        assert_eq!(peak(&table(Vec::new())), None);
    }
}
