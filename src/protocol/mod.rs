//! One registered protocol per experiment kind, found through one table ([`PROTOCOLS`]) as sim
//! presets are (`sim/presets.rs`): the names its records carry, its figures (computed once by
//! `analysis/`), its terminal text, its report sections and its chart. The centre — the
//! summary, the report ([`Registry`], handed to `report_dir`), the charts ([`charts`], handed to
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
//! (terminal text, report sections, which chart); plus this file's table entry and its CLI entry
//! (`tests/architecture.rs` counts them). Its figures are its own type, carried by the table as
//! [`KindFigures`]: no central list of kinds' figures.

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

use serde::Serialize;

use crate::analysis::summary::KindFigures;
use crate::plot::{KindCharts, Place, ProtocolChart, TimelineLabels};
use crate::report::{Document, KindReport};
use crate::results::{Experiment, ExperimentKind, ExperimentRecord};

/// What one experiment kind shows, behind one interface, with its figures as their own type
/// ([`Protocol::Figures`], defined in its `analysis/<kind>.rs`). The table holds each as a
/// [`Kind`], which carries the figures as [`KindFigures`] and hands them back typed.
pub trait Protocol: Sync {
    /// The kind's figures; their fields are what `--json` gives beside the summary's own.
    type Figures: Serialize + Send + Sync + 'static;

    /// The names experiment.json records the kind under (a preset: one per benchmark).
    fn names(&self) -> &'static [&'static str];

    /// The kind's figures, computed once by `analysis/`.
    fn figures(&self, exp: &Experiment) -> Self::Figures;

    /// The figures as text for an 80-column terminal, under the summary's head line.
    fn text(&self, figures: &Self::Figures) -> String;

    /// True when [`Protocol::text`] already gives every phase (no phase table under it).
    fn lists_phases(&self) -> bool {
        false
    }

    /// A note under the phase table, when its IOPS need one.
    fn phase_note(&self) -> &'static str {
        ""
    }

    /// Writes what the summary keeps beside the record (a sweep's `sweep.json`).
    fn save(&self, _dir: &Path, _figures: &Self::Figures) -> anyhow::Result<()> {
        Ok(())
    }

    /// The kind's own charts beside the timeline (drawn by `plot/`): each one's file name,
    /// caption and place in the report.
    fn charts(&self, _exp: &Experiment) -> Vec<ProtocolChart> {
        Vec::new()
    }

    /// How the kind labels its timeline: what the whole experiment ran, and its unit.
    fn timeline(&self, _exp: &Experiment) -> TimelineLabels {
        TimelineLabels::default()
    }

    /// Adds the card that opens the kind's report (drawing `chart`, its chart placed under
    /// it); false when the kind has none, and the measured states stand in.
    fn report_summary(
        &self,
        _doc: &mut Document,
        _exp: &Experiment,
        _figures: &Self::Figures,
        _chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        Ok(false)
    }

    /// Adds the kind's own tables before its report's results, drawing its `charts` placed in
    /// them ([`Place::Tables`]).
    fn report_tables(
        &self,
        _doc: &mut Document,
        _exp: &Experiment,
        _figures: &Self::Figures,
        _charts: &KindCharts,
    ) -> anyhow::Result<()> {
        Ok(())
    }

    /// Adds what the kind's report says under the measured states.
    fn report_under_states(&self, _doc: &mut Document, _figures: &Self::Figures) {}
}

/// A [`Protocol`] as the table holds it: its figures carried as [`KindFigures`] (each call
/// gets them back as the protocol's own type; figures of another type, or none, show nothing).
pub trait Kind: Sync {
    /// [`Protocol::names`].
    fn names(&self) -> &'static [&'static str];
    /// [`Protocol::figures`].
    fn figures(&self, exp: &Experiment) -> KindFigures;
    /// [`Protocol::text`].
    fn text(&self, figures: &KindFigures) -> String;
    /// [`Protocol::lists_phases`].
    fn lists_phases(&self) -> bool;
    /// [`Protocol::phase_note`].
    fn phase_note(&self) -> &'static str;
    /// [`Protocol::save`].
    fn save(&self, dir: &Path, figures: &KindFigures) -> anyhow::Result<()>;
    /// [`Protocol::charts`] and [`Protocol::timeline`].
    fn charts(&self, exp: &Experiment) -> KindCharts;
    /// [`Protocol::report_summary`].
    fn report_summary(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        figures: &KindFigures,
        chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool>;
    /// [`Protocol::report_tables`].
    fn report_tables(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        figures: &KindFigures,
        charts: &KindCharts,
    ) -> anyhow::Result<()>;
    /// [`Protocol::report_under_states`].
    fn report_under_states(&self, doc: &mut Document, figures: &KindFigures);
}

impl<P: Protocol> Kind for P {
    fn names(&self) -> &'static [&'static str] {
        Protocol::names(self)
    }

    fn figures(&self, exp: &Experiment) -> KindFigures {
        KindFigures::of(Protocol::figures(self, exp))
    }

    fn text(&self, figures: &KindFigures) -> String {
        figures
            .get()
            .map_or_else(String::new, |f| Protocol::text(self, f))
    }

    fn lists_phases(&self) -> bool {
        Protocol::lists_phases(self)
    }

    fn phase_note(&self) -> &'static str {
        Protocol::phase_note(self)
    }

    fn save(&self, dir: &Path, figures: &KindFigures) -> anyhow::Result<()> {
        figures
            .get()
            .map_or(Ok(()), |f| Protocol::save(self, dir, f))
    }

    fn charts(&self, exp: &Experiment) -> KindCharts {
        KindCharts {
            charts: Protocol::charts(self, exp),
            timeline: Protocol::timeline(self, exp),
        }
    }

    fn report_summary(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        figures: &KindFigures,
        chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        figures.get().map_or(Ok(false), |f| {
            Protocol::report_summary(self, doc, exp, f, chart)
        })
    }

    fn report_tables(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        figures: &KindFigures,
        charts: &KindCharts,
    ) -> anyhow::Result<()> {
        figures.get().map_or(Ok(()), |f| {
            Protocol::report_tables(self, doc, exp, f, charts)
        })
    }

    fn report_under_states(&self, doc: &mut Document, figures: &KindFigures) {
        if let Some(f) = figures.get() {
            Protocol::report_under_states(self, doc, f);
        }
    }
}

/// Every kind this build knows, one entry each.
pub static PROTOCOLS: &[&dyn Kind] = &[
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
pub fn of(kind: &ExperimentKind) -> Option<&'static dyn Kind> {
    PROTOCOLS
        .iter()
        .copied()
        .find(|p| p.names().contains(&kind.as_str()))
}

/// The figures of `exp`'s kind (none for a kind this build does not know).
pub fn figures(exp: &Experiment) -> KindFigures {
    of(&exp.name).map_or_else(KindFigures::none, |p| p.figures(exp))
}

/// The charts of `exp`'s kind: its own and its timeline's labels (every kind's for a kind this
/// build does not know); what the charts' entry points are given ([`crate::plot::ChartOf`]).
pub fn charts(exp: &Experiment) -> KindCharts {
    of(&exp.name).map_or_else(KindCharts::default, |p| p.charts(exp))
}

/// The table as an experiment's report sees it: each call goes to the experiment's protocol.
pub struct Registry;

impl KindReport for Registry {
    fn figures(&self, exp: &Experiment) -> KindFigures {
        figures(exp)
    }

    fn charts(&self, exp: &Experiment) -> KindCharts {
        charts(exp)
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

    fn tables(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        figures: &KindFigures,
        charts: &KindCharts,
    ) -> anyhow::Result<()> {
        of(&exp.name).map_or(Ok(()), |p| p.report_tables(doc, exp, figures, charts))
    }

    fn under_states(&self, doc: &mut Document, exp: &Experiment, figures: &KindFigures) {
        if let Some(p) = of(&exp.name) {
            p.report_under_states(doc, figures);
        }
    }
}

/// The file names of the charts drawn in the experiment directory `dir`: the timeline, the
/// chart placed beside it (the states), latency over time and its distribution, write
/// amplification and the protocol's own charts ([`Protocol::charts`]), then the phases'
/// steady-state charts.
pub fn chart_files(dir: &Path, record: &ExperimentRecord) -> Vec<String> {
    let kind = crate::results::load_experiment(dir)
        .ok()
        .map(|exp| charts(&exp))
        .unwrap_or_default();
    // The chart placed with the results is listed beside the timeline it stands for; the
    // others after it.
    let names_at = |place| kind.at(place).map(|c| c.name().to_string());
    let states: Vec<String> = names_at(Place::Results).collect();
    let other = kind
        .charts
        .iter()
        .filter(|c| c.place() != Place::Results)
        .map(|c| c.name().to_string());
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
