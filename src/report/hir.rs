//! The summary card of a host-idle-recovery report (SNIA HIR): the wait-state table — per
//! idle gap, the bursts, their mean, slowest and fastest IOPS, the mean against the steady
//! state reached in preconditioning, and the return to baseline. The figures are [`crate::analysis::hir`]'s, as
//! the terminal and `--json` give them.

use super::document::Document;
use crate::analysis::hir::HirFigures;

/// Adds the summary card of an HIR experiment: its wait-state table (per wait state the
/// bursts, their mean, slowest and fastest IOPS, the mean against the steady state of
/// preconditioning, and the return to baseline). Each burst stays in the results table and on
/// hir.png.
pub fn add_summary(doc: &mut Document, f: &HirFigures) {
    doc.heading("Summary");
    doc.paragraph(match f.steady_iops {
        Some(s) => format!(
            "Idle is the gap before each burst; burst IOPS is the mean of its bursts, min–max the slowest and the fastest; vs steady is that mean over the steady state of preconditioning, {} IOPS (1.50 × would be half again as fast); return IOPS is the return to baseline after them.",
            crate::units::format_count(s)
        ),
        None => "Preconditioning has no IOPS yet: the bursts are shown without a ratio.".into(),
    });
    let iops = |x: Option<f64>| x.map_or("-".to_string(), crate::units::format_count);
    let rows = f
        .wait_states
        .iter()
        .map(|w| {
            vec![
                format!("{} s", w.idle_s),
                w.burst_iops.len().to_string(),
                iops(w.burst_mean_iops),
                match (w.burst_min_iops, w.burst_max_iops) {
                    (Some(lo), Some(hi)) => format!("{lo:.0}–{hi:.0}"),
                    _ => "-".into(),
                },
                w.burst_vs_steady
                    .map_or("-".to_string(), crate::units::format_ratio),
                iops(w.baseline_iops),
            ]
        })
        .collect();
    if let Some(b) = f.baseline_iops {
        doc.paragraph(format!(
            "Baseline (the median of the returns, as hir.png draws it): {} IOPS.",
            crate::units::format_count(b)
        ));
    }
    doc.table(
        // The terminal's columns: short enough for a 400 px screen.
        &[
            "Idle",
            "Bursts",
            "Burst IOPS",
            "Min–max",
            "vs steady",
            "Return IOPS",
        ],
        rows,
    );
}
