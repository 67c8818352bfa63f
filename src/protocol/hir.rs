//! SNIA PTS host idle recovery (`experiment hir`): its figures are the wait states' bursts
//! against the steady state ([`crate::analysis::hir`]); its terminal text is their table, which
//! gives every phase.

use super::Protocol;
use crate::analysis::hir::HirFigures;
use crate::plot::{Place, ProtocolChart};
use crate::report::Document;
use crate::results::Experiment;
use crate::text::steady::steady_line;

/// `experiment hir`.
pub struct Hir;

impl Protocol for Hir {
    type Figures = HirFigures;

    fn names(&self) -> &'static [&'static str] {
        &["hir"]
    }

    fn figures(&self, exp: &Experiment) -> HirFigures {
        HirFigures::of(&exp.record)
    }

    fn text(&self, f: &HirFigures) -> String {
        summary_text(f)
    }

    fn lists_phases(&self) -> bool {
        true
    }

    fn charts(&self, exp: &Experiment) -> Vec<ProtocolChart> {
        chart(exp).into_iter().collect()
    }

    fn report_summary(
        &self,
        doc: &mut Document,
        _exp: &Experiment,
        f: &Self::Figures,
        _chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        crate::report::hir::add_summary(doc, f);
        Ok(true)
    }
}

/// The kind's own chart, when its figures have one.
fn chart(exp: &Experiment) -> Option<ProtocolChart> {
    crate::plot::hir::hir_chart(exp).map(|c| {
        ProtocolChart::new(
            "hir",
            "SNIA HIR: IOPS of each burst after each idle gap, beside preconditioning and the returns to baseline",
            Place::Charts,
            c,
        )
    })
}

/// Per wait state: the bursts' mean IOPS, against the steady state reached in
/// preconditioning, and the return to baseline.
fn summary_text(h: &HirFigures) -> String {
    let mut out = String::new();
    if let Some(s) = &h.steady_state {
        out.push_str(&steady_line(s));
    }
    out.push_str(&format!(
        "  {:>6} {:>6} {:>10} {:>13} {:>9} {:>11}\n",
        "idle", "bursts", "burst IOPS", "min–max", "vs steady", "return IOPS"
    ));
    let num = |x: Option<f64>, f: &dyn Fn(f64) -> String| x.map_or("-".to_string(), f);
    for s in &h.wait_states {
        out.push_str(&format!(
            "  {:>6} {:>6} {:>10} {:>13} {:>9} {:>11}\n",
            format!("{} s", s.idle_s),
            s.burst_iops.len(),
            num(s.burst_mean_iops, &|x| format!("{x:.0}")),
            match (s.burst_min_iops, s.burst_max_iops) {
                (Some(lo), Some(hi)) => format!("{lo:.0}–{hi:.0}"),
                _ => "-".into(),
            },
            num(s.burst_vs_steady, &crate::units::format_ratio),
            num(s.baseline_iops, &|x| format!("{x:.0}")),
        ));
    }
    if let Some(b) = h.baseline_iops {
        out.push_str(&format!(
            "  baseline (median of the returns): {b:.0} IOPS\n"
        ));
    }
    out
}
