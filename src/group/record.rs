//! `group.json`: what a group ran, where each member's run directory is and how each ended.
//! Written when the group starts (members `running`) and again at its end; the member run
//! directories are complete on their own and can be copied and compared apart from it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::results::{claim_dir, utc_now, Status};

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct GroupRecord {
    pub tool: String,
    pub version: String,
    pub command: String,
    pub command_line: Vec<String>,
    pub started_utc: String,
    pub ended_utc: Option<String>,
    /// `running`, `completed`, `interrupted` or `failed` (any member failed).
    pub status: Status,
    pub members: Vec<MemberRecord>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct MemberRecord {
    pub target: String,
    /// The member's run directory, relative to the group directory.
    pub run_dir: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Claims the group directory and names each member's run directory in it (the target's name,
/// with `-2`, `-3`… when two targets share one), then writes the first group.json.
pub(super) fn create_dirs(
    out: Option<&Path>,
    group_name: &str,
    targets: &[String],
    names: &[String],
    command: &str,
) -> anyhow::Result<(PathBuf, Vec<PathBuf>, GroupRecord)> {
    let dir = claim_dir(out, group_name, "group.json")?;
    let mut taken: HashMap<&str, u32> = HashMap::new();
    let mut relative = Vec::new();
    for name in names {
        let n = taken.entry(name).or_insert(0);
        *n += 1;
        relative.push(if *n == 1 {
            name.clone()
        } else {
            format!("{name}-{n}")
        });
    }
    let record = GroupRecord {
        tool: "ssdfade".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: command.into(),
        command_line: std::env::args().collect(),
        started_utc: utc_now(),
        ended_utc: None,
        status: Status::Running,
        members: targets
            .iter()
            .zip(&relative)
            .map(|(target, rel)| MemberRecord {
                target: target.clone(),
                run_dir: rel.clone(),
                status: Status::Running,
                error: None,
            })
            .collect(),
    };
    record.write(&dir)?;
    let dirs = relative.iter().map(|r| dir.join(r)).collect();
    Ok((dir, dirs, record))
}

impl GroupRecord {
    /// Writes `dir/group.json` by way of a temporary file.
    pub(super) fn write(&self, dir: &Path) -> anyhow::Result<()> {
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
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }
}
