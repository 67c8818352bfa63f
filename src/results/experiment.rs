//! `experiment.json`: what an experiment is (name, target, options, phases) and how far it got,
//! rewritten atomically after every change of a phase, so a crash leaves the last state.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::phase::{Phase, PhaseKind};
use super::settings::Settings;
use super::{write_json_atomic, Status};
use crate::bad_input;
use crate::stats::steady::SteadyState;
use crate::stats::LatencySummary;
use crate::workload::EngineKind;

/// The version of experiment.json this build writes, reads and resumes. Version 0 is the
/// layout before versions (a name and phases with their kind, status and directory): it is
/// read for plots and reports, never resumed.
pub const SCHEMA_VERSION: u32 = 1;

/// The file name inside an experiment directory.
pub const FILE: &str = "experiment.json";

/// The whole record.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExperimentRecord {
    /// [`SCHEMA_VERSION`]; 0 (absent) for the layout before versions.
    #[serde(default)]
    pub schema_version: u32,
    #[serde(default)]
    pub tool: String,
    #[serde(default)]
    pub version: String,
    /// `vertex2`, `wsat`, `hir`, `sweep`, or a preset: `cdm`, `tiobench`, `iometer-allinone`.
    pub name: ExperimentKind,
    /// The target as the user gave it.
    #[serde(default)]
    pub target: String,
    /// For a simulated drive without `state=`: the state file, relative to the experiment
    /// directory, that keeps it the same drive across phases and resumes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_state: Option<String>,
    /// The experiment's simulated drive as last seen (its id, drawn when the experiment made
    /// it, and its saves, updated after every phase): a resume refuses a missing drive,
    /// another one, or an older copy of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_stamp: Option<crate::drive::StateStamp>,
    /// The target's identity when the experiment started (a resume refuses another drive).
    #[serde(default)]
    pub identity: TargetIdentity,
    #[serde(default)]
    pub options: Options,
    /// What the kind was asked to do, typed per kind (`--pattern-check`, the sweep's axis…).
    #[serde(default, serialize_with = "super::settings::serialize_sorted")]
    pub settings: Settings,
    #[serde(default)]
    pub notes: Vec<String>,
    /// A Vertex 2 experiment's reference set (`--reference`): IOPS another measurement gave
    /// for each state, drawn and tabled beside the measured ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceIops>,
    #[serde(default)]
    pub command_line: Vec<String>,
    /// The experiment's seed, given or drawn when none was: every phase's seed derives from
    /// it, so the command line plus `--seed` this repeats the experiment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(default)]
    pub created_utc: String,
    #[serde(default)]
    pub updated_utc: String,
    /// `running`, `completed`, `interrupted` or `failed`.
    #[serde(default)]
    pub status: Status,
    /// The signal that interrupted the experiment: `interrupt` (Ctrl-C), `terminate` (SIGTERM)
    /// or `hangup` (SIGHUP: the terminal or SSH session went away).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_by: Option<String>,
    pub phases: Vec<PhaseRecord>,
}

/// IOPS of each Vertex 2 state from another measurement (the seed's, a review's), given as
/// `--reference IN_SERVICE,FRESH,FADED,RECOVERED`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReferenceIops {
    pub in_service: f64,
    pub fresh: f64,
    pub faded: f64,
    pub recovered: f64,
}

impl ReferenceIops {
    /// The reference of the state named `name` (`in-service`, `fresh`, `faded`, `recovered`).
    pub fn of_state(&self, name: &str) -> Option<f64> {
        match name {
            "in-service" => Some(self.in_service),
            "fresh" => Some(self.fresh),
            "faded" => Some(self.faded),
            "recovered" => Some(self.recovered),
            _ => None,
        }
    }
}

/// Which experiment a record is, written as its name (`vertex2`, `cdm`…).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum ExperimentKind {
    Vertex2,
    Wsat,
    Hir,
    Sweep,
    /// How much to over-provision: steady state at each span (`experiment op-sweep`).
    OpSweep,
    /// A preset (`cdm`, `tiobench`, `iometer-allinone`: `experiment::preset` knows them), or
    /// a name written by hand.
    Named(String),
}

impl ExperimentKind {
    /// The name written in experiment.json.
    pub fn as_str(&self) -> &str {
        match self {
            ExperimentKind::Vertex2 => "vertex2",
            ExperimentKind::Wsat => "wsat",
            ExperimentKind::Hir => "hir",
            ExperimentKind::Sweep => "sweep",
            ExperimentKind::OpSweep => "op-sweep",
            ExperimentKind::Named(name) => name,
        }
    }

    /// Whether the kind measures the drive's states (in service, fresh, faded, recovered):
    /// what `--reference` and a group's states table set side by side.
    pub fn has_states(&self) -> bool {
        *self == ExperimentKind::Vertex2
    }

    /// Whether the kind is an op-sweep, whose advice the SLOG evidence reads.
    pub fn is_op_sweep(&self) -> bool {
        *self == ExperimentKind::OpSweep
    }
}

/// The length of one HIR burst (SNIA PTS host idle recovery).
pub const HIR_BURST: std::time::Duration = std::time::Duration::from_secs(5);

impl From<&str> for ExperimentKind {
    fn from(name: &str) -> ExperimentKind {
        match name {
            "vertex2" => ExperimentKind::Vertex2,
            "wsat" => ExperimentKind::Wsat,
            "hir" => ExperimentKind::Hir,
            "sweep" => ExperimentKind::Sweep,
            "op-sweep" => ExperimentKind::OpSweep,
            _ => ExperimentKind::Named(name.to_string()),
        }
    }
}

impl From<String> for ExperimentKind {
    fn from(name: String) -> ExperimentKind {
        ExperimentKind::from(name.as_str())
    }
}

impl From<ExperimentKind> for String {
    fn from(kind: ExperimentKind) -> String {
        kind.as_str().to_string()
    }
}

impl std::fmt::Display for ExperimentKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl schemars::JsonSchema for ExperimentKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ExperimentKind".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "`vertex2`, `wsat`, `hir`, `sweep`, or a preset: `cdm`, `tiobench`, `iometer-allinone`."
        })
    }
}

/// What identifies the drive: a resume on another one is refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetIdentity {
    pub kind: String,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub size_bytes: Option<u64>,
}

/// Options shared by every phase.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Options {
    /// The `--destroy-data` confirmation given when the experiment was started.
    pub destroy_data: Option<PathBuf>,
    pub force: bool,
    /// Size of a test file to create.
    pub size: Option<u64>,
    #[serde(with = "engine_name")]
    #[schemars(with = "Option<String>")]
    pub engine: Option<EngineKind>,
    /// SNIA steady-state round, seconds.
    pub ss_round_s: f64,
    /// Simulated drives save themselves every this many simulated seconds during a soak.
    pub checkpoint_s: Option<f64>,
}

/// One phase and how it went.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhaseRecord {
    #[serde(flatten)]
    pub phase: Phase,
    /// `pending`, `running`, `completed`, `interrupted` or `failed`.
    #[serde(default)]
    pub status: Status,
    pub started_utc: Option<String>,
    pub ended_utc: Option<String>,
    /// Subdirectory (`01-in-service`), relative to the experiment directory; none for idle.
    pub dir: Option<String>,
    /// How many times the phase was started (more than 1 after a resume).
    #[serde(default)]
    pub attempts: u32,
    pub headline: Option<Headline>,
    pub error: Option<String>,
}

/// A finished phase's figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Headline {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mb_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lat_us: Option<LatencySummary>,
    /// Seconds the run covered, the erase took or the drive idled.
    pub seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_written: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyState>,
    /// The erase method used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

impl PhaseRecord {
    /// The length of an idle phase, in seconds.
    pub fn idle_seconds(&self) -> Option<f64> {
        match &self.phase.kind {
            PhaseKind::Idle(idle) => Some(idle.seconds),
            _ => None,
        }
    }
}

impl ExperimentRecord {
    /// Writes the record to `dir/experiment.json` atomically, stamping the time.
    pub fn save(&mut self, dir: &Path) -> anyhow::Result<()> {
        self.updated_utc = crate::results::utc_now();
        write_json_atomic(&dir.join(FILE), self)
    }

    /// Reads an experiment directory (to report it or resume it); a record this build cannot
    /// read is bad input (one line, exit 2).
    pub fn load(dir: &Path) -> anyhow::Result<ExperimentRecord> {
        let path = dir.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => bad_input!(
                "{} is not an experiment directory ({}: {e}): give the directory `ssdfade experiment` printed",
                dir.display(),
                path.display()
            ),
        };
        let mut value = super::json::parse_value(&path, &text)?;
        let schema = value.get("schema_version").and_then(|v| v.as_u64());
        match schema {
            None => unversioned::upgrade(&mut value),
            Some(v) if v <= u64::from(SCHEMA_VERSION) => {}
            Some(v) => bad_input!(
                "{} has schema version {v}, this ssdfade reads up to version {SCHEMA_VERSION}: read or resume it with the ssdfade that wrote it",
                path.display()
            ),
        }
        let record: ExperimentRecord = match serde_json::from_value(value) {
            Ok(r) => r,
            Err(e) => bad_input!(
                "{} is corrupt ({e}): it can be neither read nor resumed; start a new experiment",
                path.display()
            ),
        };
        record.check_names(dir, &path)?;
        if let Err(why) = record.check_numbers() {
            bad_input!(
                "{} is corrupt ({why}): the record was edited or is damaged; it can be neither read nor resumed",
                path.display()
            );
        }
        Ok(record)
    }

    /// Every time the record holds can be a time (see [`super::valid`]).
    fn check_numbers(&self) -> Result<(), String> {
        use super::valid::{period, seconds};
        if let Some(why) = self.settings.damage() {
            return Err(why);
        }
        // 0 in a record older than the field: no steady-state rounds were asked for.
        seconds("options.ss_round_s", self.options.ss_round_s)?;
        if let Some(c) = self.options.checkpoint_s {
            period("options.checkpoint_s", c)?;
        }
        for p in &self.phases {
            let name = &p.phase.name;
            match &p.phase.kind {
                PhaseKind::Measure(r) | PhaseKind::SweepPoint(r) | PhaseKind::Soak(r) => {
                    if let Some(d) = r.duration_s {
                        seconds(&format!("phase {name}: duration_s"), d)?;
                    }
                    period(&format!("phase {name}: interval_s"), r.interval_s)?;
                }
                PhaseKind::Idle(idle) => seconds(&format!("phase {name}: seconds"), idle.seconds)?,
                PhaseKind::Erase(_) => {}
            }
            if let Some(h) = &p.headline {
                seconds(&format!("phase {name}: headline.seconds"), h.seconds)?;
                for (what, v) in [("iops", h.iops), ("mb_per_s", h.mb_per_s)] {
                    if v.is_some_and(|v| !v.is_finite() || v < 0.0) {
                        return Err(format!("phase {name}: headline.{what} is not a rate"));
                    }
                }
                super::valid::latencies(&[("headline.lat_us", h.lat_us)])?;
            }
        }
        Ok(())
    }

    /// Refuses a record whose phase directories or drive state file are not names inside
    /// `dir` (see [`super::names`]).
    fn check_names(&self, dir: &Path, path: &Path) -> anyhow::Result<()> {
        if let Some(file) = &self.drive_state {
            super::names::check_own(dir, path, "drive_state", file)?;
        }
        let mut seen = std::collections::HashMap::new();
        for p in &self.phases {
            if let Some(d) = &p.dir {
                let field = format!("the dir of phase {}", p.phase.name);
                super::names::check_own(dir, path, &field, d)?;
                // Two phases in one directory would each read (and a resume overwrite) the
                // other's run: its figures counted twice.
                if let Some(first) = seen.insert(d.as_str(), p.phase.name.as_str()) {
                    crate::bad_input!(
                        "{}: phases {first} and {} share the directory {d}: the record was edited or is damaged; give each phase its own",
                        path.display(),
                        p.phase.name
                    );
                }
            }
        }
        Ok(())
    }

    /// Refuses to resume a record of another version than this build writes (one line, exit 2).
    pub fn check_resumable(&self, dir: &Path) -> anyhow::Result<()> {
        if self.schema_version != SCHEMA_VERSION {
            bad_input!(
                "{} has schema version {}, this ssdfade resumes version {SCHEMA_VERSION}: resume it with the ssdfade that started it",
                dir.join(FILE).display(),
                self.schema_version
            );
        }
        Ok(())
    }

    /// The phase named `name`.
    pub fn phase(&self, name: &str) -> Option<&PhaseRecord> {
        self.phases.iter().find(|p| p.phase.name == name)
    }
}

mod engine_name {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::workload::EngineKind;

    pub fn serialize<S: Serializer>(v: &Option<EngineKind>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(EngineKind::Threads) => s.serialize_some("threads"),
            Some(EngineKind::Uring) => s.serialize_some("uring"),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<EngineKind>, D::Error> {
        Ok(match Option::<String>::deserialize(d)?.as_deref() {
            Some("threads") => Some(EngineKind::Threads),
            Some("uring") => Some(EngineKind::Uring),
            _ => None,
        })
    }
}

/// The layout before schema versions, read for plots and reports: its phases name their kind
/// but not their parameters.
mod unversioned {
    use serde_json::{json, Value};

    use crate::pattern::Pattern;
    use crate::workload::WorkloadSpec;

    /// Gives every phase without `params` the neutral ones of its kind, so the record reads as
    /// version 0 ([`super::ExperimentRecord::check_resumable`] keeps them from being run).
    pub fn upgrade(value: &mut Value) {
        let Some(phases) = value.get_mut("phases").and_then(Value::as_array_mut) else {
            return;
        };
        for phase in phases {
            if phase.get("params").is_some() {
                continue;
            }
            let params = match phase.get("kind").and_then(Value::as_str) {
                Some("erase") => json!({"method": "auto"}),
                Some("idle") => json!({"seconds": 0.0}),
                _ => {
                    json!({"workload": neutral_workload(), "duration_s": null, "bytes": null, "interval_s": 1.0})
                }
            };
            phase["params"] = params;
        }
    }

    fn neutral_workload() -> WorkloadSpec {
        WorkloadSpec {
            bs: 4096,
            align: None,
            read_pct: 0,
            random_pct: 0,
            qd: 1,
            span: None,
            seed: None,
            pattern: Pattern::Random,
            ..Default::default()
        }
    }
}
