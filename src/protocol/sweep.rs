//! The sweeps (`sweep`: queue depth, threads or issue rate): their figures are one row per
//! point ([`crate::analysis::sweep`]), kept as `sweep.json` beside the record; the terminal
//! text is that table.

use std::path::Path;

use super::Protocol;
use crate::analysis::sweep::{job_counts, SweepTable};
use crate::plot::{KindCharts, Place, ProtocolChart, TimelineLabels};
use crate::report::Document;
use crate::results::{workload_line, Experiment};
use crate::workload::jobs_prefix;

/// `sweep`.
pub struct Sweep;

impl Protocol for Sweep {
    type Figures = SweepTable;

    fn names(&self) -> &'static [&'static str] {
        &["sweep"]
    }

    fn figures(&self, exp: &Experiment) -> SweepTable {
        crate::analysis::sweep::table(exp)
    }

    fn text(&self, f: &SweepTable) -> String {
        summary_text(f)
    }

    fn save(&self, dir: &Path, table: &SweepTable) -> anyhow::Result<()> {
        table.save(dir)
    }

    fn charts(&self, exp: &Experiment) -> Vec<ProtocolChart> {
        chart(exp).into_iter().collect()
    }

    fn timeline(&self, exp: &Experiment) -> TimelineLabels {
        let Some(run) = exp.phases.iter().find_map(|p| p.run.as_ref()) else {
            return TimelineLabels::default();
        };
        let table = crate::analysis::sweep::table(exp);
        let values: Vec<String> = table.points.iter().map(|p| p.name.clone()).collect();
        // The first point's workload, what varies the point's (each point's stop rule).
        let w = &run.info.workload;
        let line = workload_line(w);
        let line = match table.axis.as_str() {
            "qd" => {
                let jobs = jobs_prefix(w.jobs);
                let per_point = if job_counts(&table).len() > 1 {
                    "jobs × QD of the point,".to_string()
                } else {
                    format!("{jobs}QD of the point,")
                };
                line.replacen(&format!("{jobs}QD{},", w.qd), &per_point, 1)
            }
            "rate" => match line.find(", paced at ") {
                Some(i) => {
                    let end = line[i + 2..].find(", ").map_or(line.len(), |j| i + 2 + j);
                    format!(
                        "{}, paced at the rate of the point{}",
                        &line[..i],
                        &line[end..]
                    )
                }
                None => line,
            },
            _ => line,
        };
        TimelineLabels {
            subtitle: Some(format!(
                "{} points ({}) · {line}",
                table.points.len(),
                values.join(", "),
            )),
            mb_per_s: false,
        }
    }

    fn report_summary(
        &self,
        doc: &mut Document,
        _exp: &Experiment,
        t: &Self::Figures,
        _chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        crate::report::sweep::add_summary(doc, t);
        Ok(true)
    }

    fn report_tables(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        _figures: &Self::Figures,
        _charts: &KindCharts,
    ) -> anyhow::Result<()> {
        crate::report::sweep::add_latency(doc, exp);
        Ok(())
    }
}

/// The kind's own chart, when its figures have one.
fn chart(exp: &Experiment) -> Option<ProtocolChart> {
    use crate::plot::sweep::{rate_sweep_chart, sweep_chart};
    // A thread sweep has neither: the timeline tells it.
    let qd = sweep_chart(exp).map(|c| {
        ProtocolChart::new(
            "sweep",
            "IOPS and mean latency against queue depth, and latency against IOPS (demand intensity)",
            Place::Charts,
            c,
        )
    });
    qd.or_else(|| {
        rate_sweep_chart(exp).map(|c| {
            ProtocolChart::new(
                "sweep",
                "Latency (mean, p99, p99.9) against delivered IOPS at each issue rate: the hockey stick",
                Place::Charts,
                c,
            )
        })
    })
}

/// The sweep's table as text.
fn summary_text(table: &SweepTable) -> String {
    let ms = |x: Option<f64>| x.map_or("-".to_string(), |m| crate::units::format_sig(m, 3));
    if table.axis == "rate" {
        return rate_text(table, ms);
    }
    // A jobs × QD matrix names each point by both (`4×16`), in the same column.
    let matrix = job_counts(table).len() > 1;
    let mut out = format!(
        "  {:>7} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8}\n",
        match table.axis.as_str() {
            "threads" => "threads",
            _ if matrix => "jobs×QD",
            _ => "QD",
        },
        "IOPS",
        "MB/s",
        "avg ms",
        "read ms",
        "write ms",
        "p99 ms",
        "QD/IOPS"
    );
    for p in &table.points {
        out.push_str(&format!(
            "  {:>7} {:>9.0} {:>8.2} {:>9} {:>9} {:>9} {:>9} {:>8}\n",
            if matrix {
                format!("{}×{}", p.jobs.unwrap_or(1), p.qd)
            } else {
                p.qd.to_string()
            },
            p.iops,
            p.mb_per_s,
            ms(p.avg_ms),
            ms(p.avg_read_ms),
            ms(p.avg_write_ms),
            ms(p.p99_ms),
            ms(p.little_ms),
        ));
    }
    out
}

/// A rate sweep's table: the asked rate, what was delivered, latency and late issues.
fn rate_text(table: &SweepTable, ms: impl Fn(Option<f64>) -> String) -> String {
    let mut out = format!(
        "  {:<12} {:>8} {:>7} {:>7} {:>8} {:>8} {:>8} {:>13}\n",
        "point", "rate", "IOPS", "MB/s", "avg ms", "p99 ms", "p99.9 ms", "late (max ms)"
    );
    for p in &table.points {
        let late = match (p.late, p.late_max_ms) {
            (Some(n), Some(max)) if n > 0 => format!("{n} ({max:.1})"),
            (Some(n), _) => n.to_string(),
            (None, _) => "-".into(),
        };
        out.push_str(&format!(
            "  {:<12} {:>8} {:>7.0} {:>7.2} {:>8} {:>8} {:>8} {:>13}\n",
            p.name,
            p.rate_iops.map_or("flat out".into(), |r| format!("{r:.0}")),
            p.iops,
            p.mb_per_s,
            ms(p.avg_ms),
            ms(p.p99_ms),
            ms(p.p999_ms),
            late,
        ));
    }
    out
}
