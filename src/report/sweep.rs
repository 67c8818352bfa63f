//! The sweep's parts of an experiment report: the summary card (peak IOPS, the point and
//! transfer size it was reached at, mean and p99 latency there, and the last point's figures
//! against it) and, when the sweep reads, the read and write latency table (mean, p99, p99.9
//! and maximum of each direction per point). The figures are [`crate::analysis::sweep`]'s:
//! the points of `sweep.json` and each point's run.json summary.

use super::document::Document;
use crate::analysis::sweep::{latencies, peak, PointLatency, SweepTable};
use crate::results::{Experiment, ExperimentKind};
use crate::stats::LatencySummary;
use crate::units::format_bytes;

/// The point's place on the sweep's axis: "QD8", "8 threads", the point's name for a rate.
fn place(table: &SweepTable, p: &crate::analysis::sweep::SweepPoint) -> String {
    match table.axis.as_str() {
        "threads" => format!("{} threads", p.threads.unwrap_or(p.qd)),
        "rate" => p.name.clone(),
        _ => format!("QD{}", p.qd),
    }
}

fn ms(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{v:.3} ms"))
}

/// Adds the summary card when `exp` is a sweep with points.
pub fn add_summary(doc: &mut Document, table: &SweepTable) {
    let Some(top) = peak(table) else { return };
    let size = table.workload["bs"]
        .as_u64()
        .map_or_else(String::new, |bs| {
            format!(", {} transfers", format_bytes(bs))
        });
    let mut rows = vec![
        vec![
            "Peak IOPS".into(),
            format!("{:.0} at {}{size}", top.iops, place(table, top)),
        ],
        vec!["Mean latency at the peak".into(), ms(top.avg_ms)],
        vec!["p99 latency at the peak".into(), ms(top.p99_ms)],
    ];
    if let Some(last) = table.points.last().filter(|l| l.name != top.name) {
        rows.push(vec![
            format!("Last point ({})", place(table, last)),
            format!(
                "{:.0} IOPS ({:.0} % of the peak), p99 {}",
                last.iops,
                100.0 * last.iops / top.iops.max(f64::MIN_POSITIVE),
                ms(last.p99_ms)
            ),
        ]);
    }
    doc.heading("Summary");
    doc.table(&["Headline", ""], rows);
}

/// One direction's cells: mean, p99, p99.9 and maximum in ms (dashes without I/O).
fn cells(l: Option<LatencySummary>) -> [String; 4] {
    let f = |pick: fn(&LatencySummary) -> f64| {
        l.as_ref()
            .map_or("-".to_string(), |l| format!("{:.3}", pick(l) / 1000.0))
    };
    [f(|l| l.mean), f(|l| l.p99), f(|l| l.p999), f(|l| l.max)]
}

/// The rows of the read and write latency table: one per point, reads then writes.
fn latency_rows(points: &[PointLatency]) -> Vec<Vec<String>> {
    points
        .iter()
        .map(|p| {
            let mut row = vec![p.name.clone()];
            row.extend(cells(p.read));
            row.extend(cells(p.write));
            row
        })
        .collect()
}

/// Adds the read and write latency table when `exp` is a sweep whose points read.
pub fn add_latency(doc: &mut Document, exp: &Experiment) {
    if exp.name != ExperimentKind::Sweep {
        return;
    }
    let points = latencies(exp);
    if !points.iter().any(|p| p.read.is_some()) {
        return;
    }
    doc.heading("Read and write latency per point");
    doc.table(
        &[
            "Point",
            "Read mean",
            "Read p99",
            "Read p99.9",
            "Read max",
            "Write mean",
            "Write p99",
            "Write p99.9",
            "Write max",
        ],
        latency_rows(&points),
    );
    doc.paragraph(
        "All in ms; exact, from each point's histogram of reads and of writes (its run.json summary).",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point's row is its read then its write figures in ms; a direction without I/O is
    /// dashes, not 0.
    #[test]
    fn a_rows_cells_are_reads_then_writes_in_ms() {
        let lat = |k: f64| LatencySummary {
            mean: 100.0 * k,
            p50: 90.0 * k,
            p99: 400.0 * k,
            p999: 900.0 * k,
            max: 2500.0 * k,
        };
        let rows = latency_rows(&[PointLatency {
            name: "qd4".into(),
            read: Some(lat(1.0)),
            write: None,
        }]);
        assert_eq!(
            rows[0],
            ["qd4", "0.100", "0.400", "0.900", "2.500", "-", "-", "-", "-"]
        );
    }
}
