//! Familiar benchmarks' sets of points as experiments (`measure --preset`): CrystalDiskMark's
//! default set ([`cdm`]), tiobench's thread table ([`tiobench`]) and Iometer's "All in one"
//! access specifications ([`iometer`]). A preset is a phase list: first a sequential write of
//! the test region (`prepare`, as CDM fills its test file: reads of never-written blocks of a
//! file or a trimmed SSD return nothing from the flash and measure nothing), then one run
//! directory per point. It resumes with `ssdfade resume DIR` like any experiment, and its
//! table is made again from experiment.json and the points' run.json alone.

pub mod cdm;
pub mod iometer;
pub mod tiobench;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::phase::{Phase, PhaseKind};
use super::{run_params, ExperimentObserver, ExperimentOutcome, Setup};
use crate::bad_input;
use crate::results::settings::{PrepareSettings, PresetSettings, Settings};
use crate::run::WorkloadSpec;
use crate::units::{format_bytes, format_duration};

/// The test region unless `--span` says otherwise: CrystalDiskMark's default 1 GiB.
pub const DEFAULT_SPAN: u64 = 1 << 30;

/// The preparation write: 1 MiB sequential transfers, 8 outstanding.
const PREPARE_BS: u64 = 1 << 20;
const PREPARE_QD: u32 = 8;

/// Which set of points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    /// CrystalDiskMark: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, read and write.
    Cdm,
    /// tiobench: sequential and random reads and writes of 4 KiB at 1, 2, 4, 8 threads.
    Tiobench,
    /// Iometer's "All in one": 512 B to 1 MiB × read/write × random/sequential, 1 outstanding.
    IometerAllinone,
}

impl Preset {
    /// The name experiment.json records (and `--preset` takes).
    pub fn name(self) -> &'static str {
        match self {
            Preset::Cdm => "cdm",
            Preset::Tiobench => "tiobench",
            Preset::IometerAllinone => "iometer-allinone",
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        [Preset::Cdm, Preset::Tiobench, Preset::IometerAllinone]
            .into_iter()
            .find(|p| p.name() == name)
    }

    /// How long each point runs unless `--duration` says otherwise (CDM's 5 s; Iometer's 48
    /// points get 3 s each, about 2.5 minutes in all).
    pub fn default_duration(self) -> Duration {
        match self {
            Preset::Cdm | Preset::Tiobench => Duration::from_secs(5),
            Preset::IometerAllinone => Duration::from_secs(3),
        }
    }

    /// The points, and the transfer sizes left out because the target cannot take them.
    fn points(self, logical_block: u64, sim: bool) -> (Vec<Point>, Vec<u64>) {
        match self {
            Preset::Cdm => (cdm::points(), Vec::new()),
            Preset::Tiobench => (tiobench::points(sim), Vec::new()),
            Preset::IometerAllinone => iometer::points(logical_block),
        }
    }
}

/// One point of a preset: its phase name and access specification.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub name: String,
    pub bs: u64,
    /// Outstanding I/Os (with the `threads` engine: threads, one I/O each).
    pub qd: u32,
    pub read: bool,
    pub random: bool,
    /// `threads` for tiobench's points on a real target; `None`: the run's engine.
    pub engine: Option<&'static str>,
}

/// What the user chose (`None`: the preset's default).
#[derive(Clone, Debug, Default)]
pub struct Knobs {
    pub span: Option<u64>,
    /// Per point.
    pub duration: Option<Duration>,
    pub interval: Option<Duration>,
}

/// A preset ready to run: its phases and what it will take.
pub struct Plan {
    pub preset: Preset,
    pub setup: Setup,
    pub phases: Vec<Phase>,
    pub settings: Settings,
    pub notes: Vec<String>,
    pub span: u64,
    pub points: usize,
    pub point_duration: Duration,
}

impl Plan {
    /// The line printed before the preset starts: what it runs and the wall time to expect.
    pub fn announcement(&self) -> String {
        let total = self.point_duration * self.points as u32;
        // Three short lines, not one of 160 columns.
        format!(
            "ssdfade: {} on {}\n  a sequential write of the {} test region, then {} points × {}:\n  expect about {} plus the preparation write",
            self.preset.name(),
            self.setup.target,
            format_bytes(self.span),
            self.points,
            format_duration(self.point_duration),
            format_duration(total),
        )
    }
}

/// Plans `preset` on `setup`'s target: the test region, the preparation write and the points.
/// Options that do not suit the target (a span larger than it, an engine tiobench cannot use)
/// are bad input.
pub fn plan(preset: Preset, setup: Setup, knobs: &Knobs) -> anyhow::Result<Plan> {
    let device = crate::device::open(&setup.target)?;
    if preset == Preset::Tiobench && setup.options.engine.is_some() {
        bad_input!("--engine does not apply to --preset tiobench: it runs the threads engine, one I/O per thread; drop --engine");
    }
    let (size, logical_block) = device.geometry(setup.options.size)?;
    let offset = setup.workload.offset.bytes(size, logical_block);
    let span = match knobs.span {
        Some(s) => s,
        None => DEFAULT_SPAN.min(size.saturating_sub(offset)),
    } / PREPARE_BS
        * PREPARE_BS;
    if span == 0 {
        bad_input!(
            "the test region must hold at least one 1 MiB transfer: give --span 1M or more (the target has {} bytes)",
            size
        );
    }
    let duration = knobs.duration.unwrap_or(preset.default_duration());
    let interval = knobs
        .interval
        .unwrap_or(Duration::from_secs(1))
        .min(duration);
    let (points, left_out) = preset.points(logical_block, !device.takes_engine_choice());
    let left_out_line = iometer::left_out_line(&left_out, logical_block);
    let base = WorkloadSpec {
        span: Some(span),
        align: None,
        ..setup.workload.clone()
    };
    // The test region is written sequentially, or with `--precondition fast` by the plan
    // (and one transfer after it: a run's byte budget counts after its preconditioning).
    let fast = !base.precondition.is_none();
    let prepare = WorkloadSpec {
        bs: if fast { base.bs } else { PREPARE_BS },
        read_pct: 0,
        random_pct: if fast { 100 } else { 0 },
        qd: PREPARE_QD,
        ..base.clone()
    };
    let mut phases = vec![Phase {
        name: "prepare".into(),
        kind: PhaseKind::Measure(run_params(
            &prepare,
            None,
            Some(if fast { prepare.bs } else { span }),
            knobs.interval.unwrap_or(Duration::from_secs(1)),
        )),
    }];
    let base = WorkloadSpec {
        precondition: crate::workload::PreconditionSpec::None,
        ..base
    };
    for p in &points {
        let w = WorkloadSpec {
            bs: p.bs,
            read_pct: if p.read { 100 } else { 0 },
            random_pct: if p.random { 100 } else { 0 },
            qd: p.qd,
            ..base.clone()
        };
        let mut params = run_params(&w, Some(duration), None, interval);
        params.engine = p.engine.map(str::to_string);
        phases.push(Phase {
            name: p.name.clone(),
            kind: PhaseKind::Measure(params),
        });
    }
    let settings = Settings::Preset(PresetSettings {
        preset: preset.name().to_string(),
        span,
        point_duration_s: duration.as_secs_f64(),
        interval_s: interval.as_secs_f64(),
        prepare: PrepareSettings {
            bs: PREPARE_BS,
            qd: PREPARE_QD,
            bytes: span,
        },
        left_out: left_out_line.clone(),
    });
    Ok(Plan {
        preset,
        setup,
        phases,
        settings,
        notes: left_out_line.into_iter().collect(),
        span,
        points: points.len(),
        point_duration: duration,
    })
}

/// Runs a planned preset in `out` (default `results/<UTC time>-<preset>-<target>`).
pub fn run(
    plan: Plan,
    out: Option<PathBuf>,
    interrupt: Arc<AtomicBool>,
    observer: &mut dyn ExperimentObserver,
) -> anyhow::Result<ExperimentOutcome> {
    let mut notes = vec![format!(
        "the test region (the first {}) is written sequentially first (1 MiB transfers, QD{PREPARE_QD}), as CrystalDiskMark fills its test file: reads of never-written blocks measure nothing",
        format_bytes(plan.span)
    )];
    notes.extend(plan.notes);
    super::launch(
        plan.preset.name(),
        &plan.setup,
        plan.phases,
        plan.settings,
        notes,
        out,
        interrupt,
        observer,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_known_as_one_by_its_record() {
        for p in [Preset::Cdm, Preset::Tiobench, Preset::IometerAllinone] {
            let kind: crate::results::ExperimentKind = p.name().into();
            assert!(crate::analysis::preset::is_preset(&kind), "{}", p.name());
        }
    }
}
