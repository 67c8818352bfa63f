//! One registered protocol per experiment kind, found through one table ([`PROTOCOLS`]) as sim
//! presets are (`sim/presets.rs`): the names its records carry, its figures (computed once by
//! `analysis/`), its terminal text, its report sections and its chart. The centre — the
//! summary, the report ([`Registry`], handed to `report_dir`), the charts ([`chart`], handed to
//! `plot_dir`), the list of charts a finished experiment prints — knows this interface, not the
//! kinds.
//!
//! A kind's phase plan is measuring, not presenting: it stays in `experiment/<kind>.rs`, chosen
//! by the kind's CLI entry, and `--dry-run` prints it from the record it builds
//! ([`crate::output::plan`]). This module sits at the top of the presenting layer (it reads
//! `analysis/` and `plot/`; `output/` and the commands read it), so the arrows stay one-way.
//!
//! A new kind is four files of its own: its phases (`experiment/<kind>.rs`), its figures
//! (`analysis/<kind>.rs`), its chart's drawing (`plot/<kind>.rs`) and its `protocol/<kind>.rs`
//! (terminal text, report sections, which chart); plus this file's table entry, its variant of
//! [`KindFigures`] and its CLI entry (`tests/architecture.rs` counts them).

pub mod hir;
pub mod op_sweep;
pub mod preset;
pub mod pts;
pub mod slc_cache;
pub mod sweep;
pub mod vertex2;
pub mod wsat;
pub mod xsr;

use std::path::Path;

use crate::analysis::summary::KindFigures;
use crate::plot::{Place, ProtocolChart};
use crate::report::{Document, KindReport};
use crate::results::{Experiment, ExperimentKind, ExperimentRecord};

/// What one experiment kind shows, behind one interface.
pub trait Protocol: Sync {
    /// The names experiment.json records the kind under (a preset: one per benchmark).
    fn names(&self) -> &'static [&'static str];

    /// The kind's figures, computed once by `analysis/`.
    fn figures(&self, exp: &Experiment) -> KindFigures;

    /// The figures as text for an 80-column terminal, under the summary's head line.
    fn text(&self, figures: &KindFigures) -> String;

    /// True when [`Protocol::text`] already gives every phase (no phase table under it).
    fn lists_phases(&self) -> bool {
        false
    }

    /// A note under the phase table, when its IOPS need one.
    fn phase_note(&self) -> &'static str {
        ""
    }

    /// Writes what the summary keeps beside the record (a sweep's `sweep.json`).
    fn save(&self, _dir: &Path, _figures: &KindFigures) -> anyhow::Result<()> {
        Ok(())
    }

    /// The kind's own chart beside the timeline (drawn by `plot/`): its file name, caption and
    /// place in the report.
    fn chart(&self, _exp: &Experiment) -> Option<ProtocolChart> {
        None
    }

    /// Adds the card that opens the kind's report (drawing `chart` when it is placed under
    /// it); false when the kind has none, and the measured states stand in.
    fn report_summary(
        &self,
        _doc: &mut Document,
        _exp: &Experiment,
        _figures: &KindFigures,
        _chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        Ok(false)
    }

    /// Adds the kind's own tables before its report's results.
    fn report_tables(&self, _doc: &mut Document, _exp: &Experiment, _figures: &KindFigures) {}

    /// Adds what the kind's report says under the measured states.
    fn report_under_states(&self, _doc: &mut Document, _figures: &KindFigures) {}
}

/// Every kind this build knows, one entry each.
pub static PROTOCOLS: &[&dyn Protocol] = &[
    &vertex2::Vertex2,
    &wsat::Wsat,
    &hir::Hir,
    &sweep::Sweep,
    &op_sweep::OpSweep,
    &preset::Preset,
    &slc_cache::SlcCache,
    &pts::Pts,
    &xsr::Xsr,
];

/// The protocol recorded as `kind`; None for a name written by hand.
pub fn of(kind: &ExperimentKind) -> Option<&'static dyn Protocol> {
    PROTOCOLS
        .iter()
        .copied()
        .find(|p| p.names().contains(&kind.as_str()))
}

/// The figures of `exp`'s kind (none for a kind this build does not know).
pub fn figures(exp: &Experiment) -> KindFigures {
    of(&exp.name).map_or(KindFigures::None {}, |p| p.figures(exp))
}

/// The chart of `exp`'s kind (none for a kind this build does not know); what the charts'
/// entry points are given ([`crate::plot::ChartOf`]).
pub fn chart(exp: &Experiment) -> Option<ProtocolChart> {
    of(&exp.name)?.chart(exp)
}

/// The table as an experiment's report sees it: each call goes to the experiment's protocol.
pub struct Registry;

impl KindReport for Registry {
    fn figures(&self, exp: &Experiment) -> KindFigures {
        figures(exp)
    }

    fn chart(&self, exp: &Experiment) -> Option<ProtocolChart> {
        chart(exp)
    }

    fn summary(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        figures: &KindFigures,
        chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        of(&exp.name).map_or(Ok(false), |p| p.report_summary(doc, exp, figures, chart))
    }

    fn tables(&self, doc: &mut Document, exp: &Experiment, figures: &KindFigures) {
        if let Some(p) = of(&exp.name) {
            p.report_tables(doc, exp, figures);
        }
    }

    fn under_states(&self, doc: &mut Document, exp: &Experiment, figures: &KindFigures) {
        if let Some(p) = of(&exp.name) {
            p.report_under_states(doc, figures);
        }
    }
}

/// The file names of the charts drawn in the experiment directory `dir`: the timeline, the
/// chart placed beside it (the states), latency over time and its distribution, write
/// amplification and the protocol's own chart ([`Protocol::chart`]), then the phases'
/// steady-state charts.
pub fn chart_files(dir: &Path, record: &ExperimentRecord) -> Vec<String> {
    let chart = crate::results::load_experiment(dir)
        .ok()
        .and_then(|exp| chart(&exp));
    // The chart placed with the results is listed beside the timeline it stands for; the
    // others after it.
    let (states, other) = match chart {
        Some(c) if c.place() == Place::Results => (Some(c.name().to_string()), None),
        other => (None, other.map(|c| c.name().to_string())),
    };
    let fixed = ["fade-latency", "fade-distribution", "fade-wa"].map(String::from);
    let names = std::iter::once("fade".to_string())
        .chain(states)
        .chain(fixed)
        .chain(other);
    let mut charts: Vec<String> = names
        .map(|name| format!("{name}.png"))
        .filter(|file| dir.join(file).is_file())
        .collect();
    // The steady-state charts of the phases that evaluated a window, in phase order.
    charts.extend(record.phases.iter().filter_map(|p| {
        let file = format!("steady-{}.png", p.phase.name);
        dir.join(&file).is_file().then_some(file)
    }));
    charts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind the records name is registered once, under its own name.
    #[test]
    fn every_recorded_kind_has_one_protocol() {
        for name in [
            "vertex2",
            "wsat",
            "hir",
            "sweep",
            "op-sweep",
            "cdm",
            "tiobench",
            "iometer-allinone",
            "pts",
            "xsr",
        ] {
            let found: Vec<_> = PROTOCOLS
                .iter()
                .filter(|p| p.names().contains(&name))
                .collect();
            assert_eq!(found.len(), 1, "{name}");
            assert!(of(&name.into()).is_some(), "{name}");
        }
        assert!(of(&"my-own".into()).is_none());
    }
}
