//! The sweep's parts of an experiment report: the summary card (peak IOPS, the point and
//! transfer size it was reached at, mean and p99 latency there, and the last point's figures
//! against it) and, when the sweep reads, the read and write latency table (mean, p99, p99.9
//! and maximum of each direction per point). The figures are [`crate::analysis::sweep`]'s:
//! the points of `sweep.json` and each point's run.json summary.

use super::document::Document;
use crate::analysis::sweep::{latencies, peak, PointLatency, SweepTable};
use crate::results::Experiment;
use crate::stats::LatencySummary;
use crate::units::{format_bytes, format_latency_us, format_sig};
use crate::workload::jobs_prefix;

/// The point's place on a QD or thread sweep's axis: "QD8", "4 jobs × QD8", "8 threads".
fn place(table: &SweepTable, p: &crate::analysis::sweep::SweepPoint) -> String {
    match table.axis.as_str() {
        "threads" => format!("{} threads", p.threads.unwrap_or(p.qd)),
        _ => format!("{}QD{}", jobs_prefix(p.jobs.unwrap_or(1)), p.qd),
    }
}

/// A point's latency (analysis gives ms) in the unit and rounding of the results table and
/// the terminal: `units::format_latency_us`.
fn ms(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format_latency_us(v * 1e3))
}

/// A rate sweep's card: the unpaced point's IOPS and latency (what the percents are of), then
/// the fastest paced point: delivered against asked, its p99 and late issues. Its "peak" is
/// the flat-out point by construction, so the card does not call it one.
fn rate_rows(table: &SweepTable) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let flat = table.points.iter().find(|p| p.rate_iops.is_none());
    if let Some(f) = flat {
        rows.push(vec![
            format!("Flat out ({}, unpaced)", f.name),
            format!(
                "{} IOPS, mean {}, p99 {}",
                crate::units::format_count(f.iops),
                ms(f.avg_ms),
                ms(f.p99_ms)
            ),
        ]);
    }
    let paced = table
        .points
        .iter()
        .filter(|p| p.rate_iops.is_some())
        .max_by(|a, b| a.iops.total_cmp(&b.iops));
    if let Some(p) = paced {
        let of_flat = flat.filter(|f| f.iops > 0.0).map_or_else(String::new, |f| {
            format!(" ({:.0} % of flat out)", 100.0 * p.iops / f.iops)
        });
        let late = p
            .late
            .map_or_else(String::new, |n| format!(", {n} issued late"));
        rows.push(vec![
            format!("Fastest paced point ({})", p.name),
            format!(
                "{} IOPS of {} asked{of_flat}, p99 {}{late}",
                crate::units::format_count(p.iops),
                crate::units::format_count(p.rate_iops.unwrap_or_default()),
                ms(p.p99_ms)
            ),
        ]);
    }
    rows
}

/// Adds the summary card when `exp` is a sweep with points.
pub fn add_summary(doc: &mut Document, table: &SweepTable) {
    if table.axis == "rate" {
        doc.heading("Summary");
        doc.table(&["Headline", ""], rate_rows(table));
        return;
    }
    let Some(top) = peak(table) else { return };
    let size = table.workload["bs"]
        .as_u64()
        .map_or_else(String::new, |bs| {
            format!(", {} transfers", format_bytes(bs))
        });
    let mut rows = vec![
        vec![
            "Peak IOPS".into(),
            format!(
                "{} at {}{size}",
                crate::units::format_count(top.iops),
                place(table, top)
            ),
        ],
        vec!["Mean latency at the peak".into(), ms(top.avg_ms)],
        vec!["p99 latency at the peak".into(), ms(top.p99_ms)],
    ];
    if let Some(last) = table.points.last().filter(|l| l.name != top.name) {
        rows.push(vec![
            format!("Last point ({})", place(table, last)),
            format!(
                "{} IOPS ({:.0} % of the peak), p99 {}",
                crate::units::format_count(last.iops),
                100.0 * last.iops / top.iops.max(f64::MIN_POSITIVE),
                ms(last.p99_ms)
            ),
        ]);
    }
    doc.heading("Summary");
    doc.table(&["Headline", ""], rows);
}

/// One direction's cells: mean, p99, p99.9 and maximum in ms, three significant digits
/// (dashes without I/O).
fn cells(l: Option<LatencySummary>) -> [String; 4] {
    let f = |pick: fn(&LatencySummary) -> f64| {
        l.as_ref()
            .map_or("-".to_string(), |l| format_sig(pick(l) / 1000.0, 3))
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
    use crate::analysis::sweep::SweepPoint;

    fn point(name: &str, iops: f64, rate: Option<f64>) -> SweepPoint {
        SweepPoint {
            name: name.into(),
            qd: 32,
            jobs: None,
            threads: None,
            iops,
            mb_per_s: iops * 4096.0 / 1e6,
            avg_ms: Some(1.0),
            avg_read_ms: None,
            avg_write_ms: Some(1.0),
            p99_ms: Some(2.0),
            p999_ms: None,
            rate_iops: rate,
            rate_percent: None,
            late: rate.map(|_| 0),
            late_max_ms: rate.map(|_| 0.0),
            little_ms: None,
            engine: "sim".into(),
            run_dir: name.into(),
        }
    }

    /// A rate sweep's first point, `max`, ran flat out: the card says so, and does not call
    /// it a peak the paced points fell short of (they were asked for less).
    #[test]
    fn a_rate_sweeps_card_names_its_unpaced_point() {
        let table = SweepTable {
            schema_version: 1,
            axis: "rate".into(),
            workload: serde_json::json!({"bs": 4096}),
            points: vec![
                point("max", 30000.0, None),
                point("rate25pct", 7501.0, Some(7500.0)),
                point("rate90pct", 27000.0, Some(27000.0)),
            ],
        };
        let mut doc = Document::new("t");
        add_summary(&mut doc, &table);
        let md = doc.markdown();
        let row = |head: &str| {
            let line = md.lines().find(|l| l.contains(head)).unwrap_or_default();
            line.split('|')
                .nth(2)
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        assert_eq!(
            row("Flat out (max, unpaced)"),
            "30000 IOPS, mean 1 ms, p99 2 ms"
        );
        assert_eq!(
            row("Fastest paced point (rate90pct)"),
            "27000 IOPS of 27000 asked (90 % of flat out), p99 2 ms, 0 issued late"
        );
        assert!(!md.contains("Peak"), "{md}");
    }

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
            ["qd4", "0.1", "0.4", "0.9", "2.5", "-", "-", "-", "-"]
        );
    }
}
