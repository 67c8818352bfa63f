//! A drive's simulated twin: a preset-like TOML file (`sim:@FILE.toml`) holding a base preset
//! and the parameters fitted to a measured soak (capacity, over-provisioning α and a speed
//! factor on every time of the model), and `sim fit`, which fits them by running the twin's
//! own soak of the same workload until its fresh and steady rates match the measured ones.
//!
//! The fit: capacity is the measured drive's; α is the flash the drive reports over its
//! capacity, else the bytes written up to the first cliff over the capacity (a purged drive
//! fills its flash before it collects), else the base preset's. Then, up to
//! [`ROUNDS`] times, the twin's soak is run: the speed is scaled by measured/twin fresh IOPS,
//! and when the steady rates still differ by more than [`STEADY_SLACK`] α is moved to the one
//! whose greedy-GC write amplification makes up the difference (IOPS ∝ WA^−β, β measured). A
//! last soak gives the check: the twin's mean IOPS per period beside the measured ones.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::presets::{self, Preset};
use super::SimEngine;
use crate::analysis::twin::{curve, worst_error_pct, Curve};
use crate::bad_input;
use crate::engine::{Control, Engine, IntervalSink};
use crate::stats::{IntervalStats, Sample};
use crate::workload::precondition::greedy_write_amplification;
use crate::workload::Workload;

/// Soaks the fit runs at most before the check.
const ROUNDS: usize = 6;
/// A twin further than this from the measured mean IOPS in one period (percent) is refused,
/// not written.
pub const FIT_LIMIT_PCT: f64 = 10.0;
/// The smallest drive a twin stands for, bytes.
const MIN_CAPACITY: u64 = 1 << 30;
/// Steady rates closer than this (a fraction) need no change of α.
const STEADY_SLACK: f64 = 0.02;

/// The first words of every twin file: how a file `sim fit -o` may replace is told apart.
const TWIN_COMMENT: &str = "# A simulated twin written by `ssdfade sim fit`";

/// A twin file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Twin {
    /// The preset whose shape (NAND and controller timing ratios, GC pacing, caches) is kept.
    pub base: String,
    /// The model the measured drive reported.
    pub model: String,
    /// Capacity the host sees, bytes.
    pub capacity: u64,
    /// Over-provisioning α = flash / capacity.
    pub alpha: f64,
    /// Every time of the base preset is divided by this (rates multiplied).
    pub speed: f64,
    /// Target options every use of the twin gets unless it gives its own (`scale=4,aged=0s`):
    /// a simulated run's own [`KEPT_OPTIONS`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub options: String,
    /// What the twin was fitted to and how close its soak came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<FitRecord>,
}

/// The measured figures, the twin's, and the per-period comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitRecord {
    /// The run directory fitted.
    pub from: String,
    pub measured: CurveRecord,
    pub twin: CurveRecord,
    /// The largest difference of the twin's mean IOPS per period from the measured one, %.
    pub worst_period_pct: f64,
}

/// [`Curve`] as written in the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveRecord {
    pub fresh_iops: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cliff_bytes: Option<u64>,
    pub steady_iops: f64,
    pub steady_p99_ms: f64,
    pub period_s: f64,
    pub periods: Vec<f64>,
}

impl From<&Curve> for CurveRecord {
    fn from(c: &Curve) -> Self {
        let round = |x: f64| (x * 10.0).round() / 10.0;
        CurveRecord {
            fresh_iops: round(c.fresh_iops),
            cliff_bytes: c.cliff_bytes,
            steady_iops: round(c.steady_iops),
            steady_p99_ms: (c.steady_p99_ms * 1000.0).round() / 1000.0,
            period_s: c.period_s,
            periods: c.periods.iter().map(|&p| round(p)).collect(),
        }
    }
}

impl Twin {
    /// Reads a twin file; anything wrong with it is bad input naming the file.
    pub fn load(path: &Path) -> anyhow::Result<Twin> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => bad_input!(
                "cannot read the twin file {} ({e}): give a file `ssdfade sim fit` wrote",
                path.display()
            ),
        };
        // Held to a record's bounds (strings and lists) before it is read as a twin.
        let value = match toml::from_str::<toml::Value>(&text).map(serde_json::to_value) {
            Ok(Ok(value)) => value,
            Ok(Err(e)) => bad_input!("{} is not a twin file: {e}", path.display()),
            Err(e) => bad_input!("{} is not a twin file: {}", path.display(), e.message()),
        };
        crate::results::check_bounds(path, &value)?;
        let twin: Twin = match toml::from_str(&text) {
            Ok(twin) => twin,
            Err(e) => bad_input!("{} is not a twin file: {}", path.display(), e.message()),
        };
        if presets::find(&twin.base).is_none() {
            bad_input!(
                "{}: base = \"{}\" is no preset: use one `ssdfade sim list` shows",
                path.display(),
                twin.base
            );
        }
        if !(1.01..=4.0).contains(&twin.alpha)
            || !(0.01..=100.0).contains(&twin.speed)
            || twin.capacity < MIN_CAPACITY
        {
            bad_input!(
                "{}: alpha must be 1.01 to 4, speed 0.01 to 100 and capacity at least 1 GiB",
                path.display()
            );
        }
        Ok(twin)
    }

    /// Refuses `path` as the file to write unless it is new, empty or a twin file written
    /// before: never a record, a link, a FIFO or any other file (checked before fitting).
    pub fn refuse_replacing(path: &Path) -> anyhow::Result<()> {
        crate::outfile::check(path, crate::outfile::Kind::TwinFile)
    }

    /// Writes the twin file, with a comment saying what it is.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let text = format!(
            "{TWIN_COMMENT}: use it as the target sim:@{}\n{}",
            path.display(),
            toml::to_string(self)?
        );
        crate::outfile::write(path, crate::outfile::Kind::TwinFile, text.as_bytes())
    }

    /// The preset this twin stands for, named `name`.
    pub fn preset(&self, name: &'static str) -> Preset {
        let base = presets::find(&self.base).expect("checked when loaded");
        let mut p = base.with_capacity(self.capacity);
        p.alpha = self.alpha;
        p.name = name;
        // A spec is parsed a few times per command; the text it leaks is a few bytes each.
        p.model = Box::leak(format!("{} (simulated twin)", self.model).into_boxed_str());
        p.description = "a simulated twin fitted by `ssdfade sim fit`";
        faster(&p, self.speed)
    }
}

/// `p` with every time divided by `k` and every rate multiplied by it.
fn faster(p: &Preset, k: f64) -> Preset {
    Preset {
        read_us: p.read_us / k,
        program_us: p.program_us / k,
        erase_us: p.erase_us / k,
        transfer_us: p.transfer_us / k,
        controller_iops: p.controller_iops * k,
        link_bytes_per_s: p.link_bytes_per_s * k,
        link_command_us: p.link_command_us / k,
        host_us: p.host_us / k,
        ack_us: p.ack_us / k,
        tail_us: p.tail_us.map(|t| t / k),
        throttle: p.throttle.map(|t| super::presets::Throttle {
            max_pages_per_s: t.max_pages_per_s * k,
            ..t
        }),
        slc: p.slc.map(|s| super::presets::SlcCache {
            program_us: s.program_us / k,
            ..s
        }),
        gc: super::presets::GcSchedule {
            suspend_us: p.gc.suspend_us / k,
            ..p.gc
        },
        ..*p
    }
}

/// What `sim fit` fits a twin to.
pub struct Measured<'a> {
    /// The run directory.
    pub from: String,
    /// The target as recorded (a `sim:` preset is the default base).
    pub target: &'a str,
    pub model: String,
    pub size_bytes: u64,
    /// Flash the drive reported, when it did.
    pub flash_bytes: Option<u64>,
    pub workload: &'a Workload,
    pub samples: &'a [Sample],
    /// What the drive went through before the soak, in order (an experiment's earlier
    /// phases): the twin goes through it too, so that its soak starts from the same state.
    pub prelude: Vec<Step>,
}

/// One thing an experiment did to the drive before the soak a twin is fitted to.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A run of this workload for its recorded length (its samples' end, seconds).
    Run(Box<Workload>, f64),
    /// An erase (any purge: on the twin, the simulator's secure erase).
    Erase,
    /// Idle time, seconds.
    Idle(f64),
}

/// The base a fit starts from: `base` when given, else the preset the run was of, else
/// `dc-ssd-400g` (greedy GC with even pacing: the plainest shape).
pub fn base_for(target: &str, base: Option<&str>) -> anyhow::Result<&'static Preset> {
    if let Some(name) = base {
        return match presets::find(name) {
            Some(p) => Ok(p),
            None => bad_input!("--base {name} is no preset: use one `ssdfade sim list` shows"),
        };
    }
    let preset = target
        .strip_prefix("sim:")
        .and_then(|rest| presets::find(rest.split(',').next().unwrap_or_default()));
    Ok(preset.unwrap_or_else(|| presets::find("dc-ssd-400g").expect("a preset")))
}

/// The options of a simulated run's target a twin keeps: how the drive was set up, not what
/// the fit finds (capacity, α) nor where it was kept.
pub const KEPT_OPTIONS: [&str; 5] = ["aged", "throttle", "compression", "cache", "scale"];

/// The [`KEPT_OPTIONS`] of `target` (a preset with options, or a twin with its own), joined
/// by commas; empty for a real drive.
fn kept_options(target: &str) -> String {
    let Some(rest) = target.strip_prefix("sim:") else {
        return String::new();
    };
    let mut parts: Vec<String> = rest.split(',').skip(1).map(str::to_string).collect();
    if let Some(twin) = rest
        .split(',')
        .next()
        .and_then(|n| n.strip_prefix('@'))
        .and_then(|file| Twin::load(Path::new(file)).ok())
    {
        parts.extend(twin.options.split(',').map(str::to_string));
    }
    let mut kept: Vec<String> = Vec::new();
    for part in parts {
        let key = part.split('=').next().unwrap_or_default();
        if KEPT_OPTIONS.contains(&key) && !kept.iter().any(|k| k.starts_with(&format!("{key}="))) {
            kept.push(part);
        }
    }
    kept.join(",")
}

/// Fits a twin on `base` to the measured soak `m` (see the module doc).
pub fn fit(m: &Measured, base: &'static Preset) -> anyhow::Result<Twin> {
    let Some(want) = curve(m.samples, m.workload.span) else {
        bad_input!(
            "{} has fewer than ten samples: fit a twin to a soak of random writes",
            m.from
        );
    };
    if m.workload.read_pct > 0 {
        bad_input!(
            "{} is not a write soak ({} % reads): fit a twin to a soak of random writes",
            m.from,
            m.workload.read_pct
        );
    }
    if m.workload.rate.is_some() {
        // A paced soak measured the pace, not the drive: its IOPS are no drive's to fit.
        bad_input!(
            "{} is a paced soak (--rate-iops or --rate): its IOPS are the pace, not the drive's; fit a twin to a soak run without a rate limit",
            m.from
        );
    }
    if m.size_bytes < MIN_CAPACITY {
        // Said here, not by the temporary twin file the fit would write.
        bad_input!(
            "{} is of a drive of {}, less than the 1 GiB a twin needs: fit a soak of a larger drive",
            m.from,
            crate::units::format_bytes(m.size_bytes)
        );
    }
    let size = m.size_bytes as f64;
    // A drive that never fell off its fresh rate still had free flash when the run ended: a
    // purged drive collects only once its flash is full, so its flash is at least what the
    // run wrote.
    let written = m.samples.last().map_or(0, |s| s.bytes_written_total) as f64;
    let alpha = m
        .flash_bytes
        .map(|f| f as f64 / size)
        .or(want.cliff_bytes.map(|c| c as f64 / size))
        .unwrap_or(base.alpha.max(written / size))
        .clamp(1.01, 4.0);
    let mut twin = Twin {
        base: base.name.into(),
        model: m.model.clone(),
        capacity: m.size_bytes,
        alpha,
        speed: 1.0,
        options: kept_options(m.target),
        fit: None,
    };
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("twin.toml");
    let span_share = m.workload.span as f64 / size;
    // The last round's ln(steady IOPS at the new speed) and ln(write amplification).
    let mut last: Option<(f64, f64)> = None;
    for _ in 0..ROUNDS {
        let got = soak(&twin, &file, m)?;
        let k = want.fresh_iops / got.fresh_iops.max(1e-9);
        let r = want.steady_iops / (got.steady_iops * k).max(1e-9);
        let steady_ok = (r - 1.0).abs() <= STEADY_SLACK;
        if steady_ok && (k - 1.0).abs() <= STEADY_SLACK {
            break;
        }
        twin.speed = (twin.speed * k).clamp(0.01, 100.0);
        if !steady_ok {
            // The write amplification that makes up the steady difference, at the span's α:
            // steady IOPS ∝ WA^−β, β = 1 for a drive bound by its garbage collection, else as
            // the last two rounds measured it (a drive bound by its controller, as a Vertex 2
            // under unaligned writes, answers less: with β = 1 its fit stopped 13 % off).
            let wa_now = greedy_write_amplification(twin.alpha / span_share);
            let now = ((got.steady_iops * k).max(1e-9).ln(), wa_now.ln());
            let beta = match last {
                Some((ln_iops, ln_wa)) if (now.1 - ln_wa).abs() > 1e-3 => {
                    (-(now.0 - ln_iops) / (now.1 - ln_wa)).clamp(0.05, 4.0)
                }
                _ => 1.0,
            };
            last = Some(now);
            let wa = wa_now * r.powf(-1.0 / beta);
            twin.alpha = (alpha_for(wa) * span_share).clamp(1.01, 4.0);
        }
    }
    let got = soak(&twin, &file, m)?;
    twin.fit = Some(FitRecord {
        from: m.from.clone(),
        worst_period_pct: (worst_error_pct(&want.periods, &got.periods) * 10.0).round() / 10.0,
        measured: (&want).into(),
        twin: (&got).into(),
    });
    let worst = twin.fit.as_ref().map_or(0.0, |f| f.worst_period_pct);
    if worst > FIT_LIMIT_PCT {
        bad_input!(
            "{}: the closest twin found (α {:.3}, speed × {:.3} on the {} preset) is {worst:.1} % off the measured mean IOPS in one period, more than the {FIT_LIMIT_PCT:.0} % a twin must meet: no twin written; fit a soak of a purged drive, or name the preset nearest its shape with --base",
            m.from,
            twin.alpha,
            twin.speed,
            twin.base
        );
    }
    Ok(twin)
}

/// Fits a twin to the run in `dir`, or to the longest write soak of the experiment in `dir`
/// from the state the experiment's earlier phases left (both read through the records'
/// loaders); `base` as in [`base_for`].
pub fn fit_dir(dir: &Path, base: Option<&str>) -> anyhow::Result<Twin> {
    let (run, prelude) = if crate::results::is_experiment(dir) {
        let exp = crate::results::load_experiment(dir)?;
        let written = |p: &crate::results::LoadedPhase| {
            p.run
                .as_ref()
                .filter(|r| r.info.workload.read_pct == 0)
                .map(|r| r.samples.last().map_or(0, |s| s.bytes_written_total))
        };
        let Some(longest) = (0..exp.phases.len())
            .filter(|&i| written(&exp.phases[i]).is_some())
            .max_by_key(|&i| written(&exp.phases[i]))
        else {
            bad_input!(
                "{} has no write phase with samples: fit a twin to a soak of random writes",
                dir.display()
            );
        };
        let prelude = prelude_of(dir, &exp.phases[..longest])?;
        let run = exp.phases.into_iter().nth(longest).and_then(|p| p.run);
        (run.expect("a phase with a run"), prelude)
    } else {
        (crate::results::load_run(dir)?, Vec::new())
    };
    let drive = run.info.drive_before.as_ref();
    let m = Measured {
        from: dir.display().to_string(),
        target: &run.info.target.path,
        model: drive
            .and_then(|d| d.model.clone())
            .unwrap_or_else(|| run.info.target.identity.name.clone()),
        size_bytes: run.info.target.identity.size_bytes,
        flash_bytes: drive.and_then(|d| d.flash_bytes),
        workload: &run.info.workload,
        samples: &run.samples,
        prelude,
    };
    fit(&m, base_for(m.target, base)?)
}

/// What an experiment's `phases` (those before the soak fitted) did to the drive. A phase that
/// did not complete is refused: what it did to the drive is not known.
fn prelude_of(dir: &Path, phases: &[crate::results::LoadedPhase]) -> anyhow::Result<Vec<Step>> {
    use crate::results::PhaseKind;
    let mut steps = Vec::new();
    for p in phases {
        if p.record.status != crate::results::Status::Completed {
            bad_input!(
                "{}: phase {} before the soak is {}, so the state the soak started from is not known: fit a twin to a finished experiment",
                dir.display(),
                p.record.phase.name,
                p.record.status
            );
        }
        match (&p.record.phase.kind, &p.run) {
            (PhaseKind::Erase(_), _) => steps.push(Step::Erase),
            (PhaseKind::Idle(i), _) => steps.push(Step::Idle(i.seconds)),
            (_, Some(run)) => steps.push(Step::Run(
                Box::new(run.info.workload.clone()),
                run.samples.last().map_or(0.0, |s| s.t_end_s),
            )),
            (_, None) => {}
        }
    }
    Ok(steps)
}

impl Twin {
    /// What `sim fit` prints (within 80 columns): the parameters, the measured and the twin's
    /// curve, and the file.
    pub fn summary(&self, file: &Path) -> String {
        use crate::units::format_bytes;
        let mut out = format!(
            "Twin of {} on the {} preset:\n  capacity {}, over-provisioning α {:.3}, speed × {:.3}\n",
            self.model,
            self.base,
            format_bytes(self.capacity),
            self.alpha,
            self.speed
        );
        if let Some(f) = &self.fit {
            out += &format!("  fitted to {}\n", f.from);
            out += &format!(
                "  {:<10}{:>12}{:>12}{:>12}{:>12}\n",
                "", "fresh IOPS", "cliff", "steady IOPS", "p99 ms"
            );
            for (name, c) in [("measured", &f.measured), ("twin", &f.twin)] {
                out += &format!(
                    "  {:<10}{:>12.0}{:>12}{:>12.0}{:>12.2}\n",
                    name,
                    c.fresh_iops,
                    c.cliff_bytes.map_or("none".into(), format_bytes),
                    c.steady_iops,
                    c.steady_p99_ms
                );
            }
            let period = crate::units::format_duration(std::time::Duration::from_secs_f64(
                f.measured.period_s,
            ));
            out += &format!("  mean IOPS per {period}, measured → twin:\n");
            let pairs: Vec<String> = f
                .measured
                .periods
                .iter()
                .zip(&f.twin.periods)
                .map(|(m, t)| format!("{m:.0} → {t:.0}"))
                .collect();
            for row in pairs.chunks(5) {
                out += &format!("    {}\n", row.join(", "));
            }
            out += &format!(
                "  largest difference in one {period}: {:.1} %\n",
                f.worst_period_pct
            );
        }
        out += &format!(
            "Wrote {}: use it as the target sim:@{}\n",
            file.display(),
            file.display()
        );
        out
    }
}

/// The over-provisioning at which greedy GC under uniform random writes amplifies by `wa`.
pub fn alpha_for(wa: f64) -> f64 {
    let u = (1.0 - 1.0 / wa.max(1.0001)).max(1e-9);
    -u.ln() / (1.0 - u)
}

/// Runs the twin (written to `file`) from a new drive through the measured prelude, then on
/// the measured workload for as long as the samples last, and returns the soak's curve.
/// Gives up the fit (exit 130) when the process was asked to stop; its temporary twin goes with
/// its directory.
fn unless_stopped() -> anyhow::Result<()> {
    if crate::stop::requested() {
        return Err(anyhow::Error::new(crate::error::Interrupted(
            "interrupted while fitting the twin: no twin written".into(),
        )));
    }
    Ok(())
}

fn soak(twin: &Twin, file: &Path, m: &Measured) -> anyhow::Result<Curve> {
    unless_stopped()?;
    // The twin's runs end within an interval of a stop request.
    let control = Control {
        interrupted: crate::stop::flag(),
        ..Control::default()
    };
    twin.save(file)?;
    let mut spec = format!("sim:@{}", file.display());
    if !m.prelude.is_empty() {
        // The drive is kept between the steps, in a state file next to the twin.
        let state = file.with_extension("sim");
        if state.exists() {
            std::fs::remove_file(&state)?;
        }
        spec = format!("{spec},state={}", state.display());
    }
    let for_seconds = |w: &Workload, seconds: f64| Workload {
        duration: Some(std::time::Duration::from_secs_f64(seconds)),
        bytes: None,
        ..w.clone()
    };
    for step in &m.prelude {
        match step {
            Step::Run(w, seconds) => {
                SimEngine::open(&spec)?.run(
                    &for_seconds(w, *seconds),
                    &control,
                    &mut Collect::default(),
                )?;
                unless_stopped()?;
            }
            Step::Erase => {
                super::erase(&spec, super::SimErase::Secure)?;
            }
            Step::Idle(seconds) => {
                super::drive::SimDrive::open(&spec)?
                    .idle(std::time::Duration::from_secs_f64(*seconds))?;
            }
        }
    }
    let mut engine = SimEngine::open(&spec)?;
    let end = m.samples.last().map_or(0.0, |s| s.t_end_s);
    let workload = Workload {
        precondition: None,
        ..for_seconds(m.workload, end)
    };
    let mut sink = Collect::default();
    engine.run(&workload, &control, &mut sink)?;
    unless_stopped()?;
    match curve(&sink.samples, m.workload.span) {
        Some(c) => Ok(c),
        None => anyhow::bail!("the twin's soak gave fewer than ten samples"),
    }
}

/// Keeps every interval as a sample.
#[derive(Default)]
struct Collect {
    samples: Vec<Sample>,
    written: u64,
}

impl IntervalSink for Collect {
    fn interval(&mut self, t0: f64, t1: f64, stats: &IntervalStats) -> anyhow::Result<()> {
        let s = Sample::new(self.samples.len() as u64, t0, t1, stats, self.written);
        self.written = s.bytes_written_total;
        self.samples.push(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_for_inverts_greedy_write_amplification() {
        for alpha in [1.07, 1.14, 1.28, 2.0] {
            let wa = greedy_write_amplification(alpha);
            assert!((alpha_for(wa) - alpha).abs() < 1e-6, "{alpha}");
        }
    }

    #[test]
    fn a_twin_file_is_held_to_the_bounds_of_a_record() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.toml");
        let twin = |model: &str, periods: usize| {
            let list = vec!["1.0"; periods].join(", ");
            format!(
                "base = \"vertex2-60g\"\nmodel = \"{model}\"\ncapacity = 60000000000\nalpha = 1.28\nspeed = 1.0\n\n\
                 [fit]\nfrom = \"run\"\nworst_period_pct = 1.0\n\n\
                 [fit.measured]\nfresh_iops = 1.0\nsteady_iops = 1.0\nsteady_p99_ms = 1.0\nperiod_s = 10.0\nperiods = [{list}]\n\n\
                 [fit.twin]\nfresh_iops = 1.0\nsteady_iops = 1.0\nsteady_p99_ms = 1.0\nperiod_s = 10.0\nperiods = [1.0]\n"
            )
        };
        let refused = |text: String| {
            std::fs::write(&file, text).unwrap();
            let e = Twin::load(&file).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{e}");
            e.to_string()
        };
        std::fs::write(&file, twin("OCZ", crate::results::MAX_STRING)).unwrap();
        assert_eq!(Twin::load(&file).unwrap().model, "OCZ");
        let why = refused(twin(&"x".repeat(1 << 20), 3));
        assert!(
            why.contains("t.toml: model holds a string of 1048576 bytes"),
            "{why}"
        );
        assert!(why.len() < 300, "{why}");
        let why = refused(twin("OCZ", crate::results::MAX_STRING + 1));
        assert!(
            why.contains("t.toml: fit.measured.periods holds a list of 16385 entries"),
            "{why}"
        );
    }

    #[test]
    fn speed_divides_every_time() {
        let p = *presets::find("vertex2-60g").unwrap();
        let q = faster(&p, 2.0);
        assert_eq!(q.program_us, p.program_us / 2.0);
        assert_eq!(q.controller_iops, p.controller_iops * 2.0);
        assert_eq!(q.link_bytes_per_s, p.link_bytes_per_s * 2.0);
        assert_eq!(
            q.throttle.unwrap().max_pages_per_s,
            p.throttle.unwrap().max_pages_per_s * 2.0
        );
    }
}
