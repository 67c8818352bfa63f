//! The summary of an experiment directory as typed figures, computed once: the figures of its
//! kind ([`KindFigures`]: each kind's own type in its `analysis/<kind>.rs`, computed by its
//! protocol) and one row per phase. The terminal summary and `--json` render this; its JSON
//! field names are those `--json` has always given.

use std::any::Any;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::results::{PhaseRecord, Status};

/// The figures of the experiment's kind, whatever their type: its protocol (`crate::protocol`)
/// computes them and gets them back typed ([`KindFigures::get`]); `--json` gives their fields
/// beside the summary's own. A new kind adds its type, not a variant here.
#[derive(Clone)]
pub struct KindFigures {
    figures: Option<Arc<dyn Any + Send + Sync>>,
    /// The figures' fields as JSON (a monomorphised `serde_json::to_value` of their type).
    json: fn(&KindFigures) -> serde_json::Result<serde_json::Value>,
    /// Why there are none, when the directory could not be read back.
    error: Option<String>,
}

impl KindFigures {
    /// A kind's figures.
    pub fn of<T: Serialize + Send + Sync + 'static>(figures: T) -> KindFigures {
        KindFigures {
            figures: Some(Arc::new(figures)),
            json: |f| serde_json::to_value(f.get::<T>()),
            error: None,
        }
    }

    /// No figures: an experiment of a kind this build has none for.
    pub fn none() -> KindFigures {
        KindFigures {
            figures: None,
            json: |_| Ok(serde_json::json!({})),
            error: None,
        }
    }

    /// No figures: the directory could not be read back, for `error`.
    pub fn unreadable(error: String) -> KindFigures {
        KindFigures {
            figures: None,
            json: |f| Ok(serde_json::json!({ "error": f.error })),
            error: Some(error),
        }
    }

    /// The figures as their kind's type; None for another type or none at all.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.figures.as_deref()?.downcast_ref()
    }

    /// Why the directory gave no figures.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

impl Serialize for KindFigures {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.json)(self)
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }
}

impl std::fmt::Debug for KindFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.json)(self) {
            Ok(json) => write!(f, "KindFigures({json})"),
            Err(e) => write!(f, "KindFigures(unserialisable: {e})"),
        }
    }
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
