//! `plp.json`: the outcome of a power-loss check (`ssdfade plp verify`): which acknowledged
//! records survived the power cut. The protocol that produces it lives in `crate::slog::plp`.

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// The file name inside a power-loss check's directory.
pub const FILE: &str = "plp.json";

/// The fewest acknowledged records (slots checked) a pass needs: fewer show nothing.
pub const MIN_ACKNOWLEDGED: u64 = 100;

/// What a power-loss check shows.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// At least [`MIN_ACKNOWLEDGED`] acknowledged records checked, none lost or torn.
    Pass,
    /// An acknowledged record was lost or torn.
    Fail,
    /// Too few acknowledged records to show anything (a record without `outcome` is this).
    #[default]
    NotTested,
}

impl Outcome {
    /// How a message names it.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::NotTested => "not tested",
        }
    }
}

/// An acknowledged record that did not survive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Loss {
    pub slot: u64,
    pub seq: u64,
    /// Seconds between its acknowledgement and the writer's last message (the power cut).
    pub acknowledged_s_before_end: f64,
    /// What the slot held instead.
    pub found: String,
}

/// `plp.json`: the outcome of the check.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VerifyReport {
    pub target: String,
    pub listener: String,
    pub verified_utc: String,
    /// Slots holding an acknowledged record: the records checked.
    pub acknowledged: u64,
    /// Bytes of those records.
    #[serde(default)]
    pub acknowledged_bytes: u64,
    /// Records the writer had acknowledged in all (a slot written again counts once above).
    #[serde(default)]
    pub records_acknowledged: u64,
    /// Seconds from the session's start to the writer's last message (listener's clock).
    #[serde(default)]
    pub seconds: f64,
    /// The fewest records checked a pass needed ([`MIN_ACKNOWLEDGED`] when it was made).
    #[serde(default)]
    pub min_acknowledged: u64,
    #[serde(default)]
    pub outcome: Outcome,
    pub intact: u64,
    /// Slots where a newer, unacknowledged write had begun and is what the slot holds (or its
    /// torn remains): allowed.
    pub newer_in_flight: u64,
    pub lost: Vec<Loss>,
    pub torn: Vec<Loss>,
}

impl VerifyReport {
    /// What the figures show: any loss fails; a pass needs [`MIN_ACKNOWLEDGED`] records.
    pub fn judged(&self) -> Outcome {
        if !self.lost.is_empty() || !self.torn.is_empty() {
            Outcome::Fail
        } else if self.acknowledged >= MIN_ACKNOWLEDGED {
            Outcome::Pass
        } else {
            Outcome::NotTested
        }
    }

    /// What the record shows as evidence: a loss always fails; a pass only when the record
    /// says pass (one that does not is older, or was not one).
    pub fn evidence(&self) -> Outcome {
        match self.judged() {
            Outcome::Pass if self.outcome != Outcome::Pass => Outcome::NotTested,
            judged => judged,
        }
    }

    /// Reads `dir/plp.json`, refusing one whose figures do not add up or do not support its
    /// outcome.
    pub fn load(dir: &Path) -> anyhow::Result<VerifyReport> {
        let path = dir.join(FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let r: VerifyReport = super::json::parse(&path, &text)?;
        let classified = r
            .intact
            .checked_add(r.newer_in_flight)
            .and_then(|n| n.checked_add(r.lost.len() as u64 + r.torn.len() as u64));
        if classified != Some(r.acknowledged) {
            crate::bad_input!(
                "{}: {} acknowledged records, but intact, newer in flight, lost and torn add up to another number; run plp verify again",
                path.display(),
                r.acknowledged
            );
        }
        if r.outcome != Outcome::NotTested && r.outcome != r.judged() {
            crate::bad_input!(
                "{}: the outcome '{}' is not what its figures show ({} records checked, {} lost, {} torn; a pass needs {MIN_ACKNOWLEDGED}); run plp verify again",
                path.display(),
                r.outcome.word(),
                r.acknowledged,
                r.lost.len(),
                r.torn.len()
            );
        }
        Ok(r)
    }
}
