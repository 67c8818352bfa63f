//! `group.json`: what a group ran, where each member's run directory is and how each ended.
//! Written when the group starts (members `running`) and again at its end; the member run
//! directories are complete on their own and can be copied and compared apart from it.

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::{Command, Status};

/// The version of group.json this build writes; it reads this one and every older one.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole record.
#[derive(Serialize, Deserialize, Debug, Clone, schemars::JsonSchema)]
pub struct GroupRecord {
    /// The layout of this record ([`SCHEMA_VERSION`]); records older than the field are 1.
    #[serde(default = "super::version::first")]
    pub schema_version: u32,
    pub tool: String,
    pub version: String,
    pub command: Command,
    pub command_line: Vec<String>,
    pub started_utc: String,
    pub ended_utc: Option<String>,
    /// `running`, `completed`, `interrupted` or `failed` (any member failed).
    pub status: Status,
    pub members: Vec<MemberRecord>,
}

/// One target of the group.
#[derive(Serialize, Deserialize, Debug, Clone, schemars::JsonSchema)]
pub struct MemberRecord {
    pub target: String,
    /// The member's run directory, relative to the group directory.
    pub run_dir: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// True when `dir` holds a group of targets (group.json) rather than one run or experiment.
pub fn is_group(dir: &Path) -> bool {
    dir.join("group.json").is_file()
}

impl GroupRecord {
    /// Writes `dir/group.json` by way of a temporary file.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join("group.json");
        let tmp = dir.join(".group.json.tmp");
        let text = serde_json::to_string_pretty(self)? + "\n";
        std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))
    }

    /// Reads `dir/group.json`.
    pub fn read(dir: &Path) -> anyhow::Result<GroupRecord> {
        let path = dir.join("group.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let record: GroupRecord = super::json::parse(&path, &text)?;
        super::version::check(&path, record.schema_version, SCHEMA_VERSION)?;
        for m in &record.members {
            super::names::check_own(dir, &path, "a member's run_dir", &m.run_dir)?;
        }
        Ok(record)
    }
}
