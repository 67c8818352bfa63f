//! The sweeps (`sweep`: queue depth, threads or issue rate): their figures are one row per
//! point ([`crate::analysis::sweep`]), kept as `sweep.json` beside the record; the terminal
//! text is that table.

use std::path::Path;

use super::Protocol;
use crate::analysis::summary::KindFigures;
use crate::analysis::sweep::SweepTable;
use crate::results::Experiment;

/// `sweep`.
pub struct Sweep;

impl Protocol for Sweep {
    fn names(&self) -> &'static [&'static str] {
        &["sweep"]
    }

    fn figures(&self, exp: &Experiment) -> KindFigures {
        KindFigures::Sweep(crate::analysis::sweep::table(exp))
    }

    fn text(&self, figures: &KindFigures) -> String {
        match figures {
            KindFigures::Sweep(f) => summary_text(f),
            _ => String::new(),
        }
    }

    fn save(&self, dir: &Path, figures: &KindFigures) -> anyhow::Result<()> {
        match figures {
            KindFigures::Sweep(table) => table.save(dir),
            _ => Ok(()),
        }
    }
}

/// The sweep's table as text.
fn summary_text(table: &SweepTable) -> String {
    let ms = |x: Option<f64>| x.map_or("-".to_string(), |m| crate::units::format_sig(m, 3));
    if table.axis == "rate" {
        return rate_text(table, ms);
    }
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
