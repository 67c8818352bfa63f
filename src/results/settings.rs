//! `settings` in experiment.json: what each experiment kind was asked to do, typed per kind
//! (`--pattern-check`, the sweep's axis, a preset's test region…). Written with its keys in
//! alphabetical order, as the untyped settings of earlier versions were, so records stay
//! byte-identical; settings this build does not recognise (a record of an older layout, a kind
//! written by hand) are kept as written.

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};

use crate::workload::WorkloadSpec;

/// One kind's settings; the fields of each are exactly the keys its kind writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Settings {
    Vertex2(Vertex2Settings),
    OpSweep(OpSweepSettings),
    Wsat(WsatSettings),
    Hir(HirSettings),
    Sweep(SweepSettings),
    Preset(PresetSettings),
    SlcCache(SlcCacheSettings),
    Pts(PtsSettings),
    Xsr(XsrSettings),
    /// Settings of another layout, kept as written (readers fall back to their defaults).
    Other(serde_json::Value),
}

impl Default for Settings {
    fn default() -> Settings {
        Settings::Other(serde_json::Value::Null)
    }
}

impl Settings {
    /// Why settings laid out as one kind's (its keys, every required one present) do not read
    /// as it: a number past its field's range, a wrong type — a record edited or damaged, which
    /// readers must not replace with their defaults. None for typed settings and for another
    /// layout (an older version's, a kind written by hand). Looks into a suite's tests too.
    pub fn damage(&self) -> Option<String> {
        match self {
            Settings::Other(serde_json::Value::Object(map)) => LAYOUTS
                .iter()
                .find_map(|damage_as| damage_as(map))
                .map(|(kind, why)| format!("settings laid out as {kind}'s do not read ({why})")),
            Settings::Pts(pts) => pts.tests.iter().find_map(|t| {
                t.settings
                    .as_ref()?
                    .damage()
                    .map(|why| format!("test {}: {why}", t.name))
            }),
            _ => None,
        }
    }
}

/// Each typed layout, as a check of [`Settings::damage`]: (its kind's name, the error).
type LayoutCheck =
    fn(&serde_json::Map<String, serde_json::Value>) -> Option<(&'static str, String)>;
const LAYOUTS: [LayoutCheck; 9] = [
    |m| damage_as::<Vertex2Settings>("vertex2", m),
    |m| damage_as::<OpSweepSettings>("op-sweep", m),
    |m| damage_as::<WsatSettings>("wsat", m),
    |m| damage_as::<HirSettings>("hir", m),
    |m| damage_as::<SweepSettings>("sweep", m),
    |m| damage_as::<PresetSettings>("a preset", m),
    |m| damage_as::<SlcCacheSettings>("slc-cache", m),
    |m| damage_as::<PtsSettings>("pts", m),
    |m| damage_as::<XsrSettings>("xsr", m),
];

/// The error reading `map` as `T` when `map` has `T`'s keys (no other, every required one).
fn damage_as<T: DeserializeOwned + schemars::JsonSchema>(
    kind: &'static str,
    map: &serde_json::Map<String, serde_json::Value>,
) -> Option<(&'static str, String)> {
    let schema = schemars::schema_for!(T);
    let known: BTreeSet<&str> = schema
        .get("properties")?
        .as_object()?
        .keys()
        .map(String::as_str)
        .collect();
    let required: BTreeSet<&str> = schema
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|k| k.as_str()).collect())
        .unwrap_or_default();
    let keys: BTreeSet<&str> = map.keys().map(String::as_str).collect();
    if !keys.is_subset(&known) || !required.is_subset(&keys) {
        return None;
    }
    let err = serde_json::from_value::<T>(serde_json::Value::Object(map.clone())).err()?;
    Some((kind, err.to_string()))
}

/// `experiment vertex2`: the lengths of its phases, its erase and the pattern pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Vertex2Settings {
    pub erase_method: String,
    pub measure_duration_s: f64,
    pub pattern_check: bool,
    pub soak_bytes: Option<u64>,
    pub soak_duration_s: Option<f64>,
    pub workload: WorkloadSpec,
}

/// `experiment wsat`: the drive's capacity (the data written is counted in it) and the limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WsatSettings {
    pub capacity_bytes: u64,
    pub max_duration_s: f64,
    pub workload: WorkloadSpec,
}

impl WsatSettings {
    /// The write limit when none is given, as `--max-duration` writes it (SNIA: 4 × capacity
    /// or 24 h); `experiment wsat` and the PTS suite's WSAT share it.
    pub const DEFAULT_MAX_DURATION: &str = "24h";
}

/// `experiment hir`: bursts per wait state and the wait states, seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HirSettings {
    pub bursts: u32,
    pub max_duration_s: f64,
    pub wait_states_s: Vec<u32>,
    pub workload: WorkloadSpec,
}

impl HirSettings {
    /// Bursts per wait state when none are given; `experiment hir` and the PTS suite's HIR
    /// share it.
    pub const DEFAULT_BURSTS: u32 = 5;
    /// The preconditioning's limit when none is given, as `--max-duration` writes it.
    pub const DEFAULT_MAX_DURATION: &str = "8h";
}

/// `sweep`: the axis (`qd`, `threads` or `rate`), its values and each point's length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SweepSettings {
    pub axis: String,
    pub point_duration_s: f64,
    pub values: Vec<SweepValue>,
    pub workload: WorkloadSpec,
    /// A queue-depth sweep's job counts, each run at every value, when more than one (one:
    /// the workload's `jobs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<u32>,
}

/// One value of a sweep's axis: a queue depth or thread count, or a rate as `--rate` gave it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum SweepValue {
    Count(u32),
    Label(String),
}

/// `experiment op-sweep`: the spans as given, the drive and the limit of each span.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpSweepSettings {
    pub capacity_bytes: u64,
    pub drive_op_pct: Option<f64>,
    pub max_duration_s: f64,
    /// The twin the plan ran on instead of the drive (`--on-twin`).
    pub on_twin: Option<OnTwin>,
    pub spans: Vec<String>,
    pub workload: WorkloadSpec,
}

/// The twin file an op-sweep ran on, as the user gave it, and the drive it stands for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnTwin {
    pub drive: String,
    pub file: String,
}

/// `experiment slc-cache`: the drive's capacity (the whole-drive write), whether it was purged
/// first or taken as it was, the idle gaps, seconds, and the length of the short write after each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlcCacheSettings {
    pub capacity_bytes: u64,
    pub idle_s: Vec<f64>,
    pub probe_bytes: u64,
    pub purged: bool,
    pub workload: WorkloadSpec,
}

/// `experiment pts`: the SNIA PTS tests chosen, in SNIA's order, with what each measures; the
/// round length and the rounds each test runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PtsSettings {
    pub capacity_bytes: u64,
    pub round_s: f64,
    pub rounds: u32,
    pub tests: Vec<PtsTestSettings>,
}

/// One PTS test of an `experiment pts`: its phases are named `<name>-…`, its rounds'
/// `<name>-rNN-…`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PtsTestSettings {
    pub name: String,
    pub title: String,
    /// What its table shows of each cell.
    pub shows: PtsShows,
    /// The cells whose IOPS the SNIA steady-state rule is applied to.
    pub tracked: Vec<PtsCell>,
    /// A test that is an experiment kind of its own (WSAT, HIR, XSR): that kind's settings,
    /// its kind being the test's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Box<Settings>>,
}

/// The figure a PTS test's table gives per cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PtsShows {
    Iops,
    MbPerS,
    Latency,
    /// A row per outstanding-I/O point (ECW, DIRTH): IOPS and response times, the demand
    /// intensity curve, its maximum and operating points.
    Points,
    /// Its own kind's figures and page (WSAT, HIR, XSR in the suite).
    Own,
}

/// One cell of a PTS test's matrix: a read share, a transfer size (under a block-size split,
/// its largest) and the access order; at an outstanding-I/O point of its own (ECW, DIRTH).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PtsCell {
    pub read_pct: u8,
    pub bs: u64,
    pub random: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oio: Option<PtsOio>,
}

/// A PTS thread count × queue depth point; its phase runs `threads` jobs of `qd` outstanding
/// I/Os each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PtsOio {
    pub threads: u32,
    pub qd: u32,
}

impl PtsOio {
    /// Outstanding I/Os in all.
    pub fn total(self) -> u32 {
        self.threads * self.qd
    }

    /// As a phase name ends: `tc4-qd16`.
    pub fn label(self) -> String {
        format!("tc{}-qd{}", self.threads, self.qd)
    }

    /// The point a phase name ends with (`…-tc4-qd16`); None for a cell of another test.
    pub fn of_name(name: &str) -> Option<PtsOio> {
        let (rest, qd) = name.rsplit_once("-qd")?;
        let (_, threads) = rest.rsplit_once("-tc")?;
        Some(PtsOio {
            threads: threads.parse().ok()?,
            qd: qd.parse().ok()?,
        })
    }
}

/// `experiment xsr`: the drive's capacity (the preconditioning writes twice it), the length of
/// a sequential segment, seconds, and the segments' transfer sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct XsrSettings {
    pub capacity_bytes: u64,
    pub random_bs: u64,
    pub segment_s: f64,
    pub sequential_bs: u64,
    pub workload: WorkloadSpec,
}

/// A benchmark preset (`measure --preset`): its test region, points and preparation write.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PresetSettings {
    pub interval_s: f64,
    /// The points the target cannot run, in one line (Iometer's 512-byte points on a
    /// 4K-sector drive).
    pub left_out: Option<String>,
    pub point_duration_s: f64,
    pub prepare: PrepareSettings,
    pub preset: String,
    pub span: u64,
}

/// A preset's sequential preparation write of its test region.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrepareSettings {
    pub bs: u64,
    pub bytes: u64,
    pub qd: u32,
}

/// Writes `settings` with its keys (and its workload's) in alphabetical order, as the untyped
/// settings were written: records stay byte-identical to earlier versions'.
pub fn serialize_sorted<S: Serializer>(settings: &Settings, s: S) -> Result<S::Ok, S::Error> {
    serde_json::to_value(settings)
        .map_err(serde::ser::Error::custom)?
        .serialize(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind's settings read back as that kind, and anything else is kept as written.
    #[test]
    fn each_kind_reads_back_as_itself_and_other_layouts_are_kept() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples");
        for (name, want) in [
            ("vertex2-sim", "Vertex2"),
            ("wsat-sim", "Wsat"),
            ("hir-sim", "Hir"),
            ("sweep-qd-sim", "Sweep"),
            ("cdm-nvme-sim", "Preset"),
        ] {
            let text = std::fs::read_to_string(dir.join(name).join("experiment.json")).unwrap();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let settings: Settings = serde_json::from_value(value["settings"].clone()).unwrap();
            let got = format!("{settings:?}");
            assert!(got.starts_with(want), "{name}: {got}");
            let again = serde_json::to_value(&settings).unwrap();
            assert_eq!(again, value["settings"], "{name}");
        }
        let odd = serde_json::json!({"axis": "qd"});
        let settings: Settings = serde_json::from_value(odd.clone()).unwrap();
        assert_eq!(settings, Settings::Other(odd));
        assert_eq!(settings.damage(), None, "another layout is not damage");
    }

    /// `settings` with its `capacity_bytes` (a whole number of bytes) set to 1e308.
    fn map_capacity(settings: &serde_json::Value) -> Option<serde_json::Value> {
        let mut doctored = settings.clone();
        let map = doctored.as_object_mut()?;
        map.get("capacity_bytes")?;
        map.insert("capacity_bytes".into(), serde_json::json!(1e308));
        Some(doctored)
    }

    /// Settings with a kind's keys whose values cannot be that kind's are damage, named with the
    /// field's error (a string for a number, 1e308 for a byte count); the examples' own are not.
    #[test]
    fn a_kinds_layout_with_a_value_out_of_range_is_damage() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples");
        for name in [
            "vertex2-sim",
            "wsat-sim",
            "hir-sim",
            "sweep-qd-sim",
            "slc-cache-sim",
        ] {
            let text = std::fs::read_to_string(dir.join(name).join("experiment.json")).unwrap();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let settings: Settings = serde_json::from_value(value["settings"].clone()).unwrap();
            assert_eq!(settings.damage(), None, "{name}");
            let mut doctored = value["settings"].clone();
            let map = doctored.as_object_mut().unwrap();
            let field = map
                .iter()
                .find(|(_, v)| v.is_number())
                .map(|(k, _)| k.clone())
                .unwrap_or_else(|| panic!("{name}: no number among its settings"));
            map.insert(field.clone(), serde_json::json!("edited"));
            let settings: Settings = serde_json::from_value(doctored).unwrap();
            let why = settings
                .damage()
                .unwrap_or_else(|| panic!("{name}: {field}=\"edited\" read"));
            assert!(why.contains("edited"), "{name}: {why}");
            if let Some(capacity) = map_capacity(&value["settings"]) {
                let settings: Settings = serde_json::from_value(capacity).unwrap();
                let why = settings.damage().expect("capacity_bytes=1e308 read");
                assert!(why.contains("1e+308"), "{name}: {why}");
            }
        }
    }
}
