//! The seed's sweeps: the same workload at several queue depths (Iometer's outstanding I/Os)
//! or thread counts (tiobench: the `threads` engine, one thread per I/O), one run directory per
//! point and `sweep.json` with the table: IOPS, MB/s, average, average read, average write and
//! p99 latency. At saturation latency ≈ QD / IOPS (Little's law); the table shows both.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::phase::{Phase, PhaseKind};
use super::record::ExperimentRecord;
use super::{run_params, Setup};
use crate::results::Status;
use crate::results::{read_info, write_json_atomic};

/// Most points a sweep takes (each is a run directory of its own).
pub const MAX_POINTS: usize = 64;

/// What varies from point to point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Outstanding I/Os with the experiment's engine.
    QueueDepth,
    /// Threads of the `threads` engine, one I/O each.
    Threads,
}

impl Axis {
    pub fn name(self) -> &'static str {
        match self {
            Axis::QueueDepth => "qd",
            Axis::Threads => "threads",
        }
    }
}

/// One `sweep-point` phase per value.
pub fn phases(
    setup: &Setup,
    axis: Axis,
    values: &[u32],
    point: Duration,
    interval: Duration,
) -> Vec<Phase> {
    values
        .iter()
        .map(|&v| {
            let mut w = setup.workload.clone();
            w.qd = v;
            let mut params = run_params(&w, Some(point), None, interval);
            if axis == Axis::Threads {
                params.engine = Some("threads".into());
            }
            Phase {
                name: format!("{}{v}", axis.name()),
                kind: PhaseKind::SweepPoint(params),
            }
        })
        .collect()
}

/// The points measured so far, from their run directories.
pub fn points(dir: &Path, record: &ExperimentRecord) -> Vec<Value> {
    let axis = record.settings["axis"].as_str().unwrap_or("qd").to_string();
    record
        .phases
        .iter()
        .filter(|p| p.status == Status::Completed)
        .filter_map(|p| {
            let sub = dir.join(p.dir.as_ref()?);
            let info = read_info(&sub).ok()?;
            let s = info.summary?;
            let ms = |us: f64| us / 1000.0;
            let qd = info.workload.qd;
            Some(json!({
                "name": p.phase.name,
                axis.clone(): qd,
                "iops": s.iops,
                "mb_per_s": s.mb_per_s,
                "avg_ms": s.lat_us.map(|l| ms(l.mean)),
                "avg_read_ms": s.read_lat_us.map(|l| ms(l.mean)),
                "avg_write_ms": s.write_lat_us.map(|l| ms(l.mean)),
                "p99_ms": s.lat_us.map(|l| ms(l.p99)),
                "little_ms": if s.iops > 0.0 { 1000.0 * f64::from(qd) / s.iops } else { 0.0 },
                "engine": info.engine,
                "run_dir": sub.display().to_string(),
            }))
        })
        .collect()
}

/// The sweep's table as JSON; also written to `sweep.json` in the experiment directory.
pub fn summary_json(dir: &Path, record: &ExperimentRecord) -> Value {
    let value = json!({
        "axis": record.settings["axis"],
        "workload": record.settings["workload"],
        "points": points(dir, record),
    });
    let _ = write_json_atomic(&dir.join("sweep.json"), &value);
    value
}

pub fn summary_text(dir: &Path, record: &ExperimentRecord) -> String {
    let axis = record.settings["axis"].as_str().unwrap_or("qd");
    let v = summary_json(dir, record);
    let mut out = format!(
        "  {:>7} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8}\n",
        if axis == "threads" { "threads" } else { "QD" },
        "IOPS",
        "MB/s",
        "avg ms",
        "read ms",
        "write ms",
        "p99 ms",
        "QD/IOPS"
    );
    let ms = |x: &Value| x.as_f64().map_or("-".to_string(), |m| format!("{m:.3}"));
    for p in v["points"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  {:>7} {:>9.0} {:>8.2} {:>9} {:>9} {:>9} {:>9} {:>8}\n",
            p[axis].to_string(),
            p["iops"].as_f64().unwrap_or(0.0),
            p["mb_per_s"].as_f64().unwrap_or(0.0),
            ms(&p["avg_ms"]),
            ms(&p["avg_read_ms"]),
            ms(&p["avg_write_ms"]),
            ms(&p["p99_ms"]),
            ms(&p["little_ms"]),
        ));
    }
    out
}

/// Runs the sweep: one point per value of `axis`, in the order given.
#[allow(clippy::too_many_arguments)]
pub fn run(
    setup: Setup,
    axis: Axis,
    values: &[u32],
    point: Duration,
    interval: Duration,
    out: Option<std::path::PathBuf>,
    interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>,
    observer: &mut dyn super::ExperimentObserver,
) -> anyhow::Result<super::ExperimentOutcome> {
    if values.is_empty() || values.contains(&0) {
        crate::bad_input!(
            "--{} needs a list of positive numbers such as 1,2,4,8",
            axis.name()
        );
    }
    if values.len() > MAX_POINTS {
        crate::bad_input!(
            "--{} lists {} points: a sweep takes at most {MAX_POINTS}; split it into several sweeps",
            axis.name(),
            values.len()
        );
    }
    let settings = json!({
        "axis": axis.name(),
        "values": values,
        "point_duration_s": point.as_secs_f64(),
        "workload": setup.workload,
    });
    let list = phases(&setup, axis, values, point, interval);
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
