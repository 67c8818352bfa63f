//! `fleet`'s figures: every run found under the directories given (run, group and experiment
//! directories, searched recursively without following symlinks), one per drive, grouped by
//! model and firmware. Per group the distribution over drives of each headline figure
//! (median, p10–p90), the drives outside the group's normal range, the latency percentiles of
//! the group's merged histograms and the fade curves as a band. Every presenter renders this
//! one value.
//!
//! Rules, stated once here and in docs/fleets-and-metrics.md:
//! - A run counts only with figures: one that ended before a fade window finished (killed
//!   early, or an experiment killed before its soak's first interval) is listed apart as
//!   incomplete with its directory and host, never counted into a group. A drive that records
//!   no model is grouped as `unidentified`.
//! - The hosts expected are those of the playbook's manifest ([`super::fleet_hosts`]), each
//!   missing or failed one named.
//! - A drive is its WWN, else its model and serial; a drive without either is its directory.
//!   The same drive seen again (another run, another host) is flagged and counted once: the
//!   first directory in path order is kept.
//! - Quantiles over drives interpolate linearly between the sorted values (p10, median, p90).
//! - A drive is an outlier of a figure when it lies outside median ± 3 × 1.4826 × MAD (the
//!   median absolute deviation scaled to a normal σ), the margin never under 5 % of the
//!   median ([`MARGIN_FLOOR`]): drives of one model differ by a few percent from unit to unit
//!   and from seed to seed, and a fleet owner acts on a drive that stands apart, not on that.
//! - A group's latency percentiles come from the sum of its drives' latency.json histograms,
//!   bucket by bucket (every run records at 3 significant figures, so buckets line up), never
//!   from an average of percentiles.
//! - An experiment's recovered figure is its `recovered` state's IOPS as % of `fresh`; a
//!   slog run's verdict is its slog.json's, tallied per group with the topics that kept drives
//!   from suitable.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::results::latency::Histogram;
use crate::results::slog::Rating;
use crate::results::{
    is_experiment, load_experiment, read_run, ExperimentRecord, LatencyRecord, PhaseKind,
    Provenance, Run,
};

use super::compare::Headline;
use super::fleet_hosts::Host;
use super::latency::Distribution;

/// [`Fleet::outlier_rule`].
const OUTLIER_RULE: &str = "outside median ± 3 × 1.4826 × MAD of the group's drives (MAD: median absolute deviation; the margin never under 5 % of the median)";

/// The smallest outlier margin, as a share of the median: a drive within it is never named.
const MARGIN_FLOOR: f64 = 0.05;

/// [`Fleet::merge_rule`].
const MERGE_RULE: &str = "the drives' latency.json histograms summed bucket by bucket, then read as one run's; never an average of percentiles";

/// One headline figure of a drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Metric {
    #[serde(rename = "fresh_iops")]
    Fresh,
    #[serde(rename = "faded_iops")]
    Faded,
    #[serde(rename = "fade_pct")]
    FadePct,
    #[serde(rename = "recovered_pct")]
    Recovered,
    #[serde(rename = "steady_iops")]
    Steady,
    #[serde(rename = "p99_us")]
    P99,
    #[serde(rename = "p999_us")]
    P999,
    #[serde(rename = "wa")]
    Wa,
}

impl Metric {
    /// Every figure, in the table's order.
    pub const ALL: [Metric; 8] = [
        Metric::Fresh,
        Metric::Faded,
        Metric::FadePct,
        Metric::Recovered,
        Metric::Steady,
        Metric::P99,
        Metric::P999,
        Metric::Wa,
    ];

    /// The figure's name (with its unit where the value does not carry one), as tables head it.
    pub fn label(self) -> &'static str {
        match self {
            Metric::Fresh => "fresh IOPS",
            Metric::Faded => "faded IOPS",
            Metric::FadePct => "fade % of fresh",
            Metric::Recovered => "recovered % of fresh",
            Metric::Steady => "steady IOPS",
            Metric::P99 => "p99",
            Metric::P999 => "p99.9",
            Metric::Wa => "WA",
        }
    }

    /// The key JSON and CSV use.
    pub fn key(self) -> &'static str {
        match self {
            Metric::Fresh => "fresh_iops",
            Metric::Faded => "faded_iops",
            Metric::FadePct => "fade_pct",
            Metric::Recovered => "recovered_pct",
            Metric::Steady => "steady_iops",
            Metric::P99 => "p99_us",
            Metric::P999 => "p999_us",
            Metric::Wa => "wa",
        }
    }

    /// The value as the terminal and report print it, by the number rule: latencies with
    /// their unit ([`crate::units::format_latency_us`]), WA to three significant digits,
    /// the rest as counts ([`crate::units::format_count`]).
    pub fn show(self, v: f64) -> String {
        match self {
            Metric::Wa => crate::units::format_sig(v, 3),
            Metric::P99 | Metric::P999 => crate::units::format_latency_us(v),
            _ => crate::units::format_count(v),
        }
    }

    /// The value as CSV writes it: the number the report shows, in the column's unit (µs for
    /// latencies) and without one, so a spreadsheet reads it.
    pub fn csv(self, v: f64) -> String {
        match self {
            Metric::P99 | Metric::P999 => csv_latency_us(v),
            _ => self.show(v),
        }
    }
}

/// A latency in µs rounded as [`crate::units::format_latency_us`] rounds it (three
/// significant digits), written as a plain number of µs: `476839.9` is `477000`.
pub fn csv_latency_us(us: f64) -> String {
    if us == 0.0 || !us.is_finite() {
        return format!("{us:.0}");
    }
    let digits = us.abs().log10().floor() as i32 - 2;
    if digits >= 0 {
        let step = 10f64.powi(digits);
        format!("{:.0}", (us / step).round() * step)
    } else {
        let per = 10f64.powi(-digits);
        format!("{}", (us * per).round() / per)
    }
}

/// A directory left out, with why.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// A run left out of the groups because it has no figures: it ended (was killed) before a
/// fade window finished.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Incomplete {
    pub path: PathBuf,
    pub host: String,
    /// `incomplete: no interval finished`, or how few intervals it has.
    pub why: String,
}

/// A drive seen in more than one directory.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Duplicate {
    pub serial: String,
    /// The directory counted.
    pub kept: PathBuf,
    /// The directory left out, and the host that recorded it.
    pub seen_again: PathBuf,
    pub host: String,
}

/// One drive of a group, with its figures.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Drive {
    pub serial: String,
    pub wwn: Option<String>,
    pub host: String,
    pub dir: PathBuf,
    /// Each figure of [`Metric::ALL`] the run has.
    pub figures: BTreeMap<Metric, f64>,
    /// The verdict of a slog run (its slog.json), when the run was one.
    pub slog: Option<SlogOutcome>,
    /// `(t_end_s, IOPS)` of every interval.
    #[serde(skip)]
    pub curve: Vec<(f64, f64)>,
    #[serde(skip)]
    histogram: Option<Histogram>,
}

/// A slog run's verdict: its rating and the reasons that kept it from suitable
/// (`topic: value (threshold)`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct SlogOutcome {
    pub rating: Rating,
    pub why_not: Vec<String>,
}

/// The slog verdicts of a group's drives that were slog runs.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SlogTally {
    pub runs: usize,
    pub suitable: usize,
    pub marginal: usize,
    pub unsuitable: usize,
    /// Each reason's topic that kept a drive from suitable, with how many drives it did.
    pub why_not: Vec<(String, usize)>,
}

/// The distribution of one figure over a group's drives.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Spread {
    pub metric: Metric,
    /// Drives that have the figure.
    pub drives: usize,
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
    /// The normal range: median ± the margin of the module's rule.
    pub low: f64,
    pub high: f64,
    /// Indices into the group's drives of those outside the normal range.
    pub outliers: Vec<usize>,
}

/// One point of a group's fade band: interval `index` across the drives that have it.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct BandPoint {
    /// Median end time of the interval over the drives, s.
    pub t_s: f64,
    pub drives: usize,
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
}

/// Drives of one model and firmware.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Group {
    pub model: String,
    pub firmware: String,
    pub drives: Vec<Drive>,
    pub spreads: Vec<Spread>,
    /// `(name, µs)` of the merged histogram's percentiles; empty without any latency.json.
    pub merged_percentiles: Vec<(String, f64)>,
    /// I/Os in the merged histogram and the drives that gave one.
    pub merged_ios: u64,
    pub merged_drives: usize,
    pub band: Vec<BandPoint>,
    /// The verdicts where drives were slog runs; None when none was.
    pub slog: Option<SlogTally>,
}

impl Group {
    /// Indices of drives that are an outlier of any figure, rising.
    pub fn outlier_drives(&self) -> Vec<usize> {
        let mut all: Vec<usize> = self
            .spreads
            .iter()
            .flat_map(|s| s.outliers.iter().copied())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// The whole fleet.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Fleet {
    /// The rule that names a drive an outlier, in words.
    pub outlier_rule: &'static str,
    /// How a group's latency percentiles are merged, in words.
    pub merge_rule: &'static str,
    pub groups: Vec<Group>,
    pub duplicates: Vec<Duplicate>,
    pub skipped: Vec<Skipped>,
    /// Runs without figures, not counted.
    pub incomplete: Vec<Incomplete>,
    /// The hosts the playbook's manifest expected and how each ended; empty without one.
    pub hosts: Vec<Host>,
    /// Where the figures come from: the builds that recorded the runs, the span of their
    /// start dates and the count of drives (the charts' metadata and the report's footer).
    #[serde(skip)]
    pub provenance: Provenance,
}

/// Reads every run under `dirs` and computes the fleet's figures. A directory given that does
/// not exist is bad input; a run found that cannot be read is skipped, named with the reason.
pub fn of_dirs(dirs: &[PathBuf]) -> anyhow::Result<Fleet> {
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    let mut manifests = Vec::new();
    for dir in dirs {
        match std::fs::symlink_metadata(dir) {
            Ok(m) if m.is_dir() => walk(dir, &mut found, &mut skipped, &mut manifests)?,
            _ => crate::bad_input!(
                "{} is not a directory: give run, group or experiment directories (or folders holding them)",
                dir.display()
            ),
        }
    }
    if found.is_empty() {
        crate::bad_input!(
            "{} hold no run, group or experiment directory: give the folders ssdfade wrote its runs into",
            dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    found.sort();
    found.dedup();
    let mut by_key: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut duplicates = Vec::new();
    let mut groups: BTreeMap<(String, String), Vec<Drive>> = BTreeMap::new();
    let mut sources: Vec<Provenance> = Vec::new();
    let mut incomplete = Vec::new();
    for dir in found {
        // A fleet of thousands of runs takes seconds to read; a stop signal ends it.
        if crate::stop::requested() {
            return Err(anyhow::Error::new(crate::error::Interrupted(
                "interrupted while the fleet's runs were read: nothing written".into(),
            )));
        }
        let (run, recovered) = match run_of(&dir) {
            Ok(Found::Run(run, recovered)) => (*run, recovered),
            Ok(Found::Incomplete { host, why }) => {
                incomplete.push(Incomplete {
                    path: dir,
                    host,
                    why: format!("incomplete: {why}"),
                });
                continue;
            }
            Err(e) => {
                skipped.push(Skipped {
                    path: dir,
                    reason: e.to_string(),
                });
                continue;
            }
        };
        let id = &run.info.target.identity;
        let host = host_of(&run);
        let serial = id.serial.clone().unwrap_or_default();
        let model = id.model.clone().unwrap_or_else(|| "unidentified".into());
        let key = match (&id.wwn, serial.is_empty()) {
            (Some(wwn), _) => format!("wwn {wwn}"),
            (None, false) => format!("{model} / {serial}"),
            (None, true) => format!("dir {}", dir.display()),
        };
        if let Some(kept) = by_key.get(&key) {
            duplicates.push(Duplicate {
                serial,
                kept: kept.clone(),
                seen_again: dir,
                host,
            });
            continue;
        }
        by_key.insert(key, dir.clone());
        let firmware = id.firmware.clone().unwrap_or_else(|| "unknown".into());
        let mut drive = drive_of(&run, serial, host)?;
        if let Some(pct) = recovered {
            drive.figures.insert(Metric::Recovered, pct);
        }
        sources.push(Provenance::of_run(&run.info));
        groups.entry((model, firmware)).or_default().push(drive);
    }
    let groups: Vec<Group> = groups
        .into_iter()
        .map(|((model, firmware), drives)| group_of(model, firmware, drives))
        .collect();
    let provenance = provenance_of(&sources, groups.len());
    let run_dirs: Vec<&Path> = groups
        .iter()
        .flat_map(|g| g.drives.iter().map(|d| d.dir.as_path()))
        .chain(duplicates.iter().map(|d| d.seen_again.as_path()))
        .chain(incomplete.iter().map(|i| i.path.as_path()))
        .chain(skipped.iter().map(|s| s.path.as_path()))
        .collect();
    let hosts = super::fleet_hosts::of(&manifests, &run_dirs);
    Ok(Fleet {
        incomplete,
        hosts,
        provenance,
        outlier_rule: OUTLIER_RULE,
        merge_rule: MERGE_RULE,
        groups,
        duplicates,
        skipped,
    })
}

/// The fleet's provenance from its drives' runs: each recording build once, the first and
/// last start date, and the count of drives and groups.
fn provenance_of(runs: &[Provenance], groups: usize) -> Provenance {
    let mut builds: Vec<&str> = runs.iter().map(|p| p.recorded_by.as_str()).collect();
    builds.sort_unstable();
    builds.dedup();
    let mut dates: Vec<&str> = runs.iter().map(|p| p.date.as_str()).collect();
    dates.sort_unstable();
    Provenance {
        recorded_by: builds.join("; "),
        date: match (dates.first(), dates.last()) {
            (Some(a), Some(b)) if a != b => format!("{a} to {b}"),
            (Some(a), _) => a.to_string(),
            _ => "—".into(),
        },
        command_line: None,
        drive: format!(
            "drives: {}, groups (model and firmware): {groups}; each named in fleet.csv",
            runs.len()
        ),
    }
}

/// The host that recorded a run, `unknown` when its run.json does not say.
fn host_of(run: &Run) -> String {
    run.info
        .process
        .as_ref()
        .map_or_else(|| "unknown".to_string(), |p| p.host.clone())
}

/// Collects the run and experiment directories under `dir` (never following a symlink) and
/// the hosts manifests found on the way; a run or experiment directory is not searched
/// further.
fn walk(
    dir: &Path,
    found: &mut Vec<PathBuf>,
    skipped: &mut Vec<Skipped>,
    manifests: &mut Vec<(PathBuf, BTreeMap<String, super::fleet_hosts::Outcome>)>,
) -> anyhow::Result<()> {
    if dir.join("run.json").is_file() || is_experiment(dir) {
        found.push(dir.to_path_buf());
        return Ok(());
    }
    manifests.extend(super::fleet_hosts::read(dir)?);
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            skipped.push(Skipped {
                path: dir.to_path_buf(),
                reason: format!("cannot list it: {e}"),
            });
            return Ok(());
        }
    };
    let mut subdirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    subdirs.sort();
    for sub in subdirs {
        walk(&sub, found, skipped, manifests)?;
    }
    Ok(())
}

/// What a directory found holds.
enum Found {
    /// A run with figures, and an experiment's recovery (`recovered` as % of `fresh`).
    Run(Box<Run>, Option<f64>),
    /// A run (or an experiment's soak) without figures: the host that recorded it and why.
    Incomplete { host: String, why: String },
}

/// The run a directory stands for — itself, or of an experiment its (first) soak phase — and
/// an experiment's recovery when it measured both; incomplete when that run has no fade figure.
fn run_of(dir: &Path) -> anyhow::Result<Found> {
    if !is_experiment(dir) {
        return Ok(figures_or_incomplete(read_run(dir)?, None));
    }
    let record = ExperimentRecord::load(dir)?;
    let soak_dir = record
        .phases
        .iter()
        .find(|p| matches!(p.phase.kind, PhaseKind::Soak(_)))
        .and_then(|p| p.dir.as_ref())
        .map(|d| dir.join(d));
    let soak_ran = soak_dir
        .as_ref()
        .is_some_and(|d| std::fs::metadata(d.join("samples.jsonl")).is_ok_and(|m| m.len() > 0));
    if !soak_ran {
        // The host from any phase's run.json that can be read.
        let host = record
            .phases
            .iter()
            .filter_map(|p| p.dir.as_ref())
            .find_map(|d| read_run(&dir.join(d)).ok())
            .map_or_else(|| "unknown".to_string(), |r| host_of(&r));
        return Ok(Found::Incomplete {
            host,
            why: "no interval of its soak finished".into(),
        });
    }
    let exp = load_experiment(dir)?;
    let recovered = super::experiment::ExperimentStates::of(&exp)
        .recovery
        .map(|r| r.pct_of_fresh);
    let run = exp
        .phases
        .iter()
        .filter(|p| matches!(p.record.phase.kind, PhaseKind::Soak(_)))
        .find_map(|p| p.run.clone())
        .ok_or_else(|| anyhow::anyhow!("an experiment without a soak phase that ran"))?;
    Ok(figures_or_incomplete(run, recovered))
}

/// The run when it has a fade figure (a fade window finished), else incomplete.
fn figures_or_incomplete(run: Run, recovered: Option<f64>) -> Found {
    if Headline::of(&run).window_s.is_some() {
        return Found::Run(Box::new(run), recovered);
    }
    let why = match run.samples.len() {
        0 => "no interval finished".to_string(),
        n => format!(
            "{n} interval{} finished, too few for a fade figure",
            if n == 1 { "" } else { "s" }
        ),
    };
    Found::Incomplete {
        host: host_of(&run),
        why,
    }
}

/// The verdict of the slog run in `dir`, when `dir` is one (it holds slog.json).
fn slog_of(dir: &Path) -> anyhow::Result<Option<SlogOutcome>> {
    if !dir.join(crate::results::slog::FILE).is_file() {
        return Ok(None);
    }
    let verdict = crate::results::slog::read_record(dir)?.verdict;
    let why_not = verdict
        .reasons
        .iter()
        .filter(|r| r.rating.is_some_and(|r| r != Rating::Suitable))
        .map(|r| format!("{}: {} ({})", r.topic, r.value, r.threshold))
        .collect();
    Ok(Some(SlogOutcome {
        rating: verdict.rating,
        why_not,
    }))
}

/// The tally of the drives' slog verdicts; None when no drive was a slog run.
fn tally(drives: &[Drive]) -> Option<SlogTally> {
    let mut t = SlogTally::default();
    let mut topics: BTreeMap<String, usize> = BTreeMap::new();
    for o in drives.iter().filter_map(|d| d.slog.as_ref()) {
        t.runs += 1;
        match o.rating {
            Rating::Suitable => t.suitable += 1,
            Rating::Marginal => t.marginal += 1,
            Rating::Unsuitable => t.unsuitable += 1,
        }
        for why in &o.why_not {
            let topic = why.split(':').next().unwrap_or(why).to_string();
            *topics.entry(topic).or_default() += 1;
        }
    }
    t.why_not = topics.into_iter().collect();
    (t.runs > 0).then_some(t)
}

fn drive_of(run: &Run, serial: String, host: String) -> anyhow::Result<Drive> {
    let head = Headline::of(run);
    let histogram = LatencyRecord::load(&run.dir)?.and_then(|r| r.all);
    let dist = histogram.as_ref().and_then(Distribution::of);
    let mut figures = BTreeMap::new();
    figures.insert(Metric::Fresh, head.first_iops);
    figures.insert(Metric::Faded, head.last_iops);
    if let Some(f) = head.fade_pct {
        figures.insert(Metric::FadePct, f);
    }
    if let Some(iops) = run
        .info
        .steady_state
        .as_ref()
        .filter(|s| s.reached)
        .and_then(|s| s.iops)
    {
        figures.insert(Metric::Steady, iops);
    }
    if let Some(d) = &dist {
        figures.insert(Metric::P99, d.quantile_us(0.99));
        figures.insert(Metric::P999, d.quantile_us(0.999));
    }
    if let Some(wa) = &run.info.write_amplification {
        figures.insert(Metric::Wa, wa.factor);
    }
    Ok(Drive {
        slog: slog_of(&run.dir)?,
        serial,
        wwn: run.info.target.identity.wwn.clone(),
        host,
        dir: run.dir.clone(),
        figures,
        curve: run.samples.iter().map(|s| (s.t_end_s, s.iops)).collect(),
        histogram,
    })
}

fn group_of(model: String, firmware: String, drives: Vec<Drive>) -> Group {
    let spreads = Metric::ALL
        .iter()
        .filter_map(|&m| spread(m, &drives))
        .collect();
    let merged = merge(drives.iter().filter_map(|d| d.histogram.as_ref()));
    let merged_drives = drives.iter().filter(|d| d.histogram.is_some()).count();
    let dist = merged.as_ref().and_then(Distribution::of);
    let merged_percentiles = dist.as_ref().map_or_else(Vec::new, |d| {
        super::latency::PERCENTILES
            .iter()
            .map(|&(name, q)| (name.to_string(), d.quantile_us(q)))
            .collect()
    });
    let band = band(&drives);
    Group {
        slog: tally(&drives),
        model,
        firmware,
        merged_ios: dist.map_or(0, |d| d.count),
        merged_drives,
        drives,
        spreads,
        merged_percentiles,
        band,
    }
}

/// Sums histograms bucket by bucket (equal tops are one bucket); the maximum is the largest.
pub fn merge<'a>(all: impl Iterator<Item = &'a Histogram>) -> Option<Histogram> {
    let mut buckets: BTreeMap<u64, u64> = BTreeMap::new();
    let mut max_ns = 0;
    let mut any = false;
    for h in all {
        any = true;
        max_ns = max_ns.max(h.max_ns);
        for &[top, n] in &h.buckets {
            *buckets.entry(top).or_default() += n;
        }
    }
    any.then(|| Histogram {
        count: buckets.values().sum(),
        max_ns,
        buckets: buckets.into_iter().map(|(t, n)| [t, n]).collect(),
    })
}

/// The `q` quantile of sorted values, interpolating linearly between neighbours.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let at = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo as f64)
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

fn spread(metric: Metric, drives: &[Drive]) -> Option<Spread> {
    let values: Vec<(usize, f64)> = drives
        .iter()
        .enumerate()
        .filter_map(|(i, d)| Some((i, *d.figures.get(&metric)?)))
        .collect();
    if values.is_empty() {
        return None;
    }
    let all = sorted(values.iter().map(|v| v.1).collect());
    let median = quantile(&all, 0.5);
    let mad = quantile(
        &sorted(all.iter().map(|v| (v - median).abs()).collect()),
        0.5,
    );
    let margin = (3.0 * 1.4826 * mad).max(MARGIN_FLOOR * median.abs());
    let (low, high) = (median - margin, median + margin);
    Some(Spread {
        metric,
        drives: values.len(),
        median,
        p10: quantile(&all, 0.1),
        p90: quantile(&all, 0.9),
        low,
        high,
        outliers: values
            .iter()
            .filter(|(_, v)| *v < low || *v > high)
            .map(|&(i, _)| i)
            .collect(),
    })
}

/// The fade band: interval by interval, the IOPS median and p10–p90 over the drives.
fn band(drives: &[Drive]) -> Vec<BandPoint> {
    let longest = drives.iter().map(|d| d.curve.len()).max().unwrap_or(0);
    (0..longest)
        .map(|i| {
            let at: Vec<(f64, f64)> = drives
                .iter()
                .filter_map(|d| d.curve.get(i))
                .copied()
                .collect();
            let iops = sorted(at.iter().map(|p| p.1).collect());
            BandPoint {
                t_s: quantile(&sorted(at.iter().map(|p| p.0).collect()), 0.5),
                drives: at.len(),
                median: quantile(&iops, 0.5),
                p10: quantile(&iops, 0.1),
                p90: quantile(&iops, 0.9),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_and_outliers_leave_the_mad_range() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
        let drive = |x: f64| Drive {
            serial: String::new(),
            wwn: None,
            host: String::new(),
            dir: PathBuf::new(),
            figures: BTreeMap::from([(Metric::Fresh, x)]),
            slog: None,
            curve: Vec::new(),
            histogram: None,
        };
        let drives: Vec<Drive> = [100.0, 101.0, 99.0, 100.0, 60.0].map(drive).into();
        let s = spread(Metric::Fresh, &drives).unwrap();
        assert_eq!(s.median, 100.0);
        assert_eq!(s.outliers, vec![4]);
    }

    /// A CSV latency is the report's value in µs: the same three significant digits.
    #[test]
    fn csv_latencies_round_as_the_report_shows_them() {
        for us in [476_839.9, 165_412.9, 11_272.2, 753.082, 45.06, 0.5] {
            let csv: f64 = csv_latency_us(us).parse().unwrap();
            assert_eq!(
                crate::units::format_latency_us(csv),
                crate::units::format_latency_us(us),
                "{us}"
            );
            assert!((csv - us).abs() <= us * 0.005, "{us} → {csv}");
        }
    }

    #[test]
    fn merged_histograms_add_counts_of_equal_buckets() {
        let a = Histogram {
            count: 3,
            max_ns: 10,
            buckets: vec![[5, 1], [10, 2]],
        };
        let b = Histogram {
            count: 2,
            max_ns: 20,
            buckets: vec![[10, 1], [20, 1]],
        };
        let m = merge([&a, &b].into_iter()).unwrap();
        assert_eq!(m.buckets, vec![[5, 1], [10, 3], [20, 1]]);
        assert_eq!((m.count, m.max_ns), (5, 20));
    }
}
