//! The hosts a fleet expected and how each ended, from the manifest the Ansible playbook writes
//! next to the runs it fetched ([`MANIFEST`]: `{"hosts": {"ssd-h1": "completed", "ssd-h2":
//! "failed", "ssd-h4": "down"}}`, each host's runs in the folder of its name beside it). A host
//! with no run found in its folder is missing, whatever the manifest says of it; a host that
//! failed with runs is counted as far as its runs went. The one sentence each presenter prints
//! for a host is made here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The manifest's file name, in any folder `fleet` searches.
pub const MANIFEST: &str = "fleet-hosts.json";

/// How a host ended, as the playbook saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every run of the host ended.
    Completed,
    /// A run of the host failed (an error, killed, or outlasted the wait); the host was reached.
    Failed,
    /// The host could not be reached.
    Down,
}

/// The manifest as the playbook writes it.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    hosts: BTreeMap<String, Outcome>,
}

/// One expected host: its outcome, the runs found in its folder and, unless it completed with
/// runs, the sentence that names it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Host {
    pub host: String,
    pub outcome: Outcome,
    /// Run directories found in the host's folder (counted, incomplete or seen again).
    pub runs: usize,
    /// Whether no run of the host was found.
    pub missing: bool,
    /// `missing: ssd-h4 (down)`, `ssd-h2 failed mid-run: its runs are counted as far as they
    /// went`; None for a host that completed with runs.
    pub note: Option<String>,
}

/// Reads the manifest in `dir` when it has one; a damaged manifest is bad input.
pub fn read(dir: &Path) -> anyhow::Result<Option<(PathBuf, BTreeMap<String, Outcome>)>> {
    let path = dir.join(MANIFEST);
    if !path.is_file() {
        return Ok(None);
    }
    let parsed = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str::<Manifest>(&text).map_err(|e| e.to_string()));
    match parsed {
        Ok(m) => Ok(Some((dir.to_path_buf(), m.hosts))),
        Err(e) => crate::bad_input!(
            "{} is damaged ({e}): it names each host with completed, failed or down, as contrib/ansible/ssdfade.yml writes it",
            path.display()
        ),
    }
}

/// The hosts of every manifest found (`(folder, hosts)`), each with the runs found under
/// `folder/HOST` among `run_dirs`, in the manifests' order and by name within one.
pub fn of(manifests: &[(PathBuf, BTreeMap<String, Outcome>)], run_dirs: &[&Path]) -> Vec<Host> {
    manifests
        .iter()
        .flat_map(|(folder, hosts)| {
            hosts.iter().map(move |(host, &outcome)| {
                let under = folder.join(host);
                let runs = run_dirs.iter().filter(|d| d.starts_with(&under)).count();
                host_of(host, outcome, runs)
            })
        })
        .collect()
}

fn host_of(host: &str, outcome: Outcome, runs: usize) -> Host {
    let note = match (outcome, runs) {
        (Outcome::Down, _) => Some(format!("missing: {host} (down)")),
        (Outcome::Failed, 0) => Some(format!(
            "missing: {host} (failed before its runs were fetched)"
        )),
        (Outcome::Completed, 0) => Some(format!("missing: {host} (sent no runs)")),
        (Outcome::Failed, _) => Some(format!(
            "{host} failed mid-run: its runs are counted as far as they went"
        )),
        (Outcome::Completed, _) => None,
    };
    Host {
        host: host.to_string(),
        outcome,
        runs,
        missing: runs == 0 || outcome == Outcome::Down,
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_is_missing_when_down_or_without_runs_and_a_failed_one_is_counted_as_far_as_it_went() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(MANIFEST),
            r#"{"hosts": {"a": "completed", "b": "failed", "c": "down", "d": "completed", "e": "failed"}}"#,
        )
        .unwrap();
        let manifest = read(dir.path()).unwrap().unwrap();
        let runs = [
            dir.path().join("a/x"),
            dir.path().join("a/y"),
            dir.path().join("b/z"),
        ];
        let runs: Vec<&Path> = runs.iter().map(PathBuf::as_path).collect();
        let hosts = of(&[manifest], &runs);
        let got: Vec<(&str, usize, bool, Option<&str>)> = hosts
            .iter()
            .map(|h| (h.host.as_str(), h.runs, h.missing, h.note.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("a", 2, false, None),
                (
                    "b",
                    1,
                    false,
                    Some("b failed mid-run: its runs are counted as far as they went")
                ),
                ("c", 0, true, Some("missing: c (down)")),
                ("d", 0, true, Some("missing: d (sent no runs)")),
                (
                    "e",
                    0,
                    true,
                    Some("missing: e (failed before its runs were fetched)")
                ),
            ]
        );
    }

    #[test]
    fn a_damaged_manifest_is_bad_input_and_none_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).unwrap().is_none());
        std::fs::write(dir.path().join(MANIFEST), r#"{"hosts": {"a": "lost"}}"#).unwrap();
        let e = read(dir.path()).unwrap_err();
        assert!(e.downcast_ref::<crate::error::BadInput>().is_some(), "{e}");
        assert!(e.to_string().contains(MANIFEST), "{e}");
    }
}
