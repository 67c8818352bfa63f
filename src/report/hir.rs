//! The host-idle-recovery section of an experiment report (SNIA HIR): the wait-state table —
//! per idle gap, the bursts, their mean IOPS, that mean against the steady state reached in
//! preconditioning, and the return to baseline. The figures are [`crate::analysis::hir`]'s, as
//! the terminal and `--json` give them.

use super::document::Document;
use crate::analysis::hir::HirFigures;
use crate::results::{Experiment, ExperimentKind};

/// Adds the section to `doc` when `exp` is an HIR experiment.
pub fn add(doc: &mut Document, exp: &Experiment) {
    if exp.name != ExperimentKind::Hir {
        return;
    }
    let f = HirFigures::of(&exp.record);
    doc.heading("Wait states (SNIA HIR)");
    doc.paragraph(match f.steady_iops {
        Some(s) => format!(
            "Against the steady state of preconditioning, {s:.0} IOPS: a burst at 1.50 × runs half again as fast. Idle is the gap before each burst, burst IOPS their mean, return IOPS the return to baseline after them."
        ),
        None => "Preconditioning has no IOPS yet: the bursts are shown without a ratio.".into(),
    });
    let iops = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.0}"));
    let rows = f
        .wait_states
        .iter()
        .map(|w| {
            vec![
                format!("{} s", w.idle_s),
                w.burst_iops.len().to_string(),
                iops(w.burst_mean_iops),
                w.burst_vs_steady
                    .map_or("-".to_string(), |r| format!("{r:.2} ×")),
                iops(w.baseline_iops),
            ]
        })
        .collect();
    doc.table(
        // The terminal's columns: short enough for a 400 px screen.
        &["Idle", "Bursts", "Burst IOPS", "vs steady", "Return IOPS"],
        rows,
    );
}
