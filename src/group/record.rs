//! Claiming a group's directory: one subdirectory per member, and the first `group.json`
//! ([`GroupRecord`]) saying every member is running.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::results::{claim_dir, utc_now, GroupRecord, MemberRecord, Status};

/// Claims the group directory and names each member's run directory in it (the target's name,
/// with `-2`, `-3`… when two targets share one), then writes the first group.json.
pub(super) fn create_dirs(
    out: Option<&Path>,
    group_name: &str,
    targets: &[String],
    names: &[String],
    command: &str,
) -> anyhow::Result<(PathBuf, Vec<PathBuf>, GroupRecord)> {
    let (dir, _) = claim_dir(out, group_name, "group.json")?;
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
        schema_version: crate::results::group::SCHEMA_VERSION,
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
