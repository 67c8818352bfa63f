//! `erase.json`: an erase as its run directory records it (method, plan, outcome, the drive
//! before and after), written when it starts (`running`) and again when it ends.

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::record::ProcessStamp;
use super::{Command, Status};
use crate::drive::DriveInfo;

/// The version of erase.json this build writes; it reads this one and every older one.
pub const SCHEMA_VERSION: u32 = 1;

/// The file name inside an erase directory.
pub const FILE: &str = "erase.json";

/// What `erase.json` records.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EraseRecord {
    /// The layout of this record ([`SCHEMA_VERSION`]); records older than the field are 1.
    #[serde(default = "super::version::first")]
    pub schema_version: u32,
    pub tool: String,
    pub version: String,
    pub command: Command,
    pub command_line: Vec<String>,
    pub target: String,
    pub method_requested: String,
    /// The method used (differs from the request for `auto`).
    pub method: String,
    /// Why `auto` chose it, and other notes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What was sent, with the command bytes.
    pub plan: Vec<String>,
    pub started_utc: String,
    pub ended_utc: Option<String>,
    pub duration_s: Option<f64>,
    /// `running`, then `completed`, `failed` or `interrupted`.
    pub outcome: Status,
    pub error: Option<String>,
    pub done: Option<Done>,
    pub drive_before: Option<DriveInfo>,
    pub drive_after: Option<DriveInfo>,
    /// The process running the erase, to tell a crashed erase from a running one.
    #[serde(default)]
    pub process: Option<ProcessStamp>,
    /// The process group a `command:` erase's tool runs in (its own): while any process of
    /// it lives, the erase is not over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_process_group: Option<u32>,
}

/// What running a plan produced, for the record.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Done {
    /// One line saying what happened.
    pub detail: String,
    /// Bytes covered, for range erases and punches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The vendor tool's output, for `command:`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolRun>,
}

/// What a vendor erase tool (`command:`) did.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolRun {
    pub command: String,
    pub exit_status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl EraseRecord {
    /// Reads `dir/erase.json`.
    pub fn load(dir: &Path) -> anyhow::Result<EraseRecord> {
        let path = dir.join(FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let record: EraseRecord = super::json::parse(&path, &text)?;
        super::version::check(&path, record.schema_version, SCHEMA_VERSION)?;
        Ok(record)
    }
}
