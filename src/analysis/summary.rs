//! The summary of an experiment directory as typed figures, computed once: the protocol's
//! figures ([`KindFigures`]: Vertex 2 states, WSAT rounds, HIR wait states, a sweep's points,
//! an op-sweep's spans and advice, a preset's table; each kind's protocol computes its own)
//! and one row per phase. The terminal summary and `--json` render this; its JSON field names
//! are those `--json` has always given.

use serde::Serialize;

use super::hir::HirFigures;
use super::op_sweep::OpSweepFigures;
use super::preset::PresetTable;
use super::pts::PtsFigures;
use super::slc_cache::SlcCacheFigures;
use super::sweep::SweepTable;
use super::vertex2::Vertex2Figures;
use super::wsat::WsatFigures;
use super::xsr::XsrFigures;
use crate::results::{PhaseRecord, Status};

/// The figures of the experiment's kind, as its protocol computes them (`crate::protocol`).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum KindFigures {
    Vertex2(Box<Vertex2Figures>),
    Wsat(WsatFigures),
    Hir(HirFigures),
    Sweep(SweepTable),
    OpSweep(OpSweepFigures),
    Preset(PresetTable),
    SlcCache(Box<SlcCacheFigures>),
    Pts(PtsFigures),
    Xsr(XsrFigures),
    /// The directory could not be read back.
    Unreadable {
        error: String,
    },
    /// An experiment of a kind this build has no figures for.
    None {},
}

/// One phase as the summary lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PhaseRow {
    pub name: String,
    /// `measure`, `erase`, `soak`, `idle`, `sweep-point`.
    pub kind: String,
    pub status: Status,
    pub dir: Option<String>,
    pub attempts: u32,
    pub started_utc: Option<String>,
    pub ended_utc: Option<String>,
    /// Seconds the run covered, the erase took or the drive idled.
    pub seconds: Option<f64>,
    pub iops: Option<f64>,
    pub mb_per_s: Option<f64>,
    pub error: Option<String>,
}

impl PhaseRow {
    pub fn of(p: &PhaseRecord) -> PhaseRow {
        let h = p.headline.as_ref();
        PhaseRow {
            name: p.phase.name.clone(),
            kind: p.phase.kind.label().into(),
            status: p.status,
            dir: p.dir.clone(),
            attempts: p.attempts,
            started_utc: p.started_utc.clone(),
            ended_utc: p.ended_utc.clone(),
            seconds: h.map(|h| h.seconds),
            iops: h.and_then(|h| h.iops),
            mb_per_s: h.and_then(|h| h.mb_per_s),
            error: p.error.clone(),
        }
    }
}

/// An experiment's summary.
#[derive(Clone, Debug, Serialize)]
pub struct ExperimentSummary {
    #[serde(flatten)]
    pub figures: KindFigures,
    pub experiment: String,
    pub dir: String,
    pub target: String,
    pub status: Status,
    pub phases: Vec<PhaseRow>,
}
