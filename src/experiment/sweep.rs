//! The seed's sweeps: the same workload at several queue depths (Iometer's outstanding I/Os)
//! or thread counts (tiobench: the `threads` engine, one thread per I/O), one run directory per
//! point and `sweep.json` with the table: IOPS, MB/s, average, average read, average write and
//! p99 latency. At saturation latency ≈ QD / IOPS (Little's law); the table shows both.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::analysis::sweep::SweepTable;

use super::phase::{Phase, PhaseKind};
use super::{run_params, Setup};
use crate::results::{load_experiment, write_json_atomic};

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

/// The sweep's table ([`crate::analysis::sweep`]), also written to `sweep.json` in the
/// experiment directory.
pub fn table(dir: &Path) -> anyhow::Result<SweepTable> {
    let table = crate::analysis::sweep::table(&load_experiment(dir)?);
    write_json_atomic(&dir.join(crate::results::sweep::FILE), &table)?;
    Ok(table)
}

pub fn summary_json(dir: &Path) -> anyhow::Result<Value> {
    Ok(serde_json::to_value(table(dir)?)?)
}

pub fn summary_text(dir: &Path) -> anyhow::Result<String> {
    let table = table(dir)?;
    let mut out = format!(
        "  {:>7} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8}\n",
        if table.axis == "threads" {
            "threads"
        } else {
            "QD"
        },
        "IOPS",
        "MB/s",
        "avg ms",
        "read ms",
        "write ms",
        "p99 ms",
        "QD/IOPS"
    );
    let ms = |x: Option<f64>| x.map_or("-".to_string(), |m| format!("{m:.3}"));
    for p in &table.points {
        out.push_str(&format!(
            "  {:>7} {:>9.0} {:>8.2} {:>9} {:>9} {:>9} {:>9} {:>8}\n",
            p.qd,
            p.iops,
            p.mb_per_s,
            ms(p.avg_ms),
            ms(p.avg_read_ms),
            ms(p.avg_write_ms),
            ms(p.p99_ms),
            ms(p.little_ms),
        ));
    }
    Ok(out)
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
