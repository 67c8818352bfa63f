//! `plp.json`: the outcome of a power-loss check (`ssdfade plp verify`): which acknowledged
//! records survived the power cut. The protocol that produces it lives in `crate::slog::plp`.

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// The file name inside a power-loss check's directory.
pub const FILE: &str = "plp.json";

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
    /// Slots holding an acknowledged record.
    pub acknowledged: u64,
    pub intact: u64,
    /// Slots where a newer, unacknowledged write had begun and is what the slot holds (or its
    /// torn remains): allowed.
    pub newer_in_flight: u64,
    pub lost: Vec<Loss>,
    pub torn: Vec<Loss>,
}

impl VerifyReport {
    /// Reads `dir/plp.json`.
    pub fn load(dir: &Path) -> anyhow::Result<VerifyReport> {
        let path = dir.join(FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }
}
