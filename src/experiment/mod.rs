//! Experiments: lists of phases (measure, erase, soak, idle, sweep point) that record as they
//! go and survive anything. An experiment directory holds `experiment.json` (the phase list
//! with each phase's status and figures, rewritten atomically at every change) and one
//! subdirectory per phase (`01-in-service/`, `02-erase-1/`…), each an ordinary run directory
//! or erase record.
//!
//! - [`phase`]: a phase as data; [`record`]: experiment.json;
//! - [`runner`]: runs the phases in order and resumes after a crash; [`idle`]: the idle phase;
//! - the protocols: [`vertex2`] (the seed's fade-and-recover story), [`wsat`] (SNIA write
//!   saturation), [`hir`] (SNIA host idle recovery), [`sweep`] (IOPS against queue depth or
//!   threads), [`op_sweep`] (steady state at several spans: how much to over-provision), [`preset`] (`measure --preset`: CrystalDiskMark, tiobench, Iometer's sets), [`xsr`] (SNIA cross-stimulus recovery);
//! - what they print is the presenting layer's: [`crate::output::summary`] and each kind's
//!   [`crate::protocol`].

pub mod hir;
pub mod idle;
pub mod op_sweep;
pub mod preset;
pub mod pts;
pub mod runner;
pub mod slc_cache;
pub mod sweep;
pub mod vertex2;
pub mod wsat;
pub mod xsr;

use std::time::Duration;

pub use crate::observe::experiment::{ExperimentObserver, Quiet};
pub use crate::results::experiment as record;
pub use crate::results::phase;
pub use crate::results::{
    ExperimentRecord, Headline, Options, Phase, PhaseKind, PhaseRecord, RunParams,
};
pub use record::SCHEMA_VERSION;
pub use runner::{check_plan, preflight, resume, start, ExperimentOutcome};

use crate::results::settings::Settings;
use crate::results::Status;
use crate::run::WorkloadSpec;

/// The SNIA steady-state round of protocols that take no `--ss-round` (a sweep, a preset).
pub const DEFAULT_SS_ROUND: Duration = Duration::from_secs(60);

/// What every experiment command shares: the target and how to treat it.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The target as the user gave it.
    pub target: String,
    pub options: Options,
    /// The access specification of the phases that write (each protocol adjusts it).
    pub workload: WorkloadSpec,
}

impl Setup {
    /// `--size` of a target that does not exist yet: creates the test file, through the same
    /// gates as writing, before anything reads the target, so that every command taking a
    /// TARGET (sweep, experiments, `measure --preset`) creates it as `measure` and `soak` do.
    /// The guard removes it again when the command is then refused ([`TestFile::settle`]).
    pub fn create_test_file(&self) -> anyhow::Result<TestFile> {
        let o = &self.options;
        if o.size.is_none() || std::path::Path::new(&self.target).exists() {
            return Ok(TestFile(None));
        }
        let checked = crate::device::open(&self.target)?.check(&crate::device::Gates {
            writes: true,
            destroy_data: o.destroy_data.clone(),
            force: o.force,
            size: o.size,
        })?;
        Ok(TestFile(checked.created))
    }

    /// The size of the file `--size` creates when the target does not exist yet (a dry run
    /// makes none): what a dry run plans for instead of opening it.
    fn planned_file(&self) -> Option<u64> {
        self.options
            .size
            .filter(|_| crate::device::is_absent_path(&self.target))
    }

    /// The target's identity; a file `--size` would create as that file, so that a dry run
    /// prints the plan of the run it stands for.
    pub fn identity(&self) -> anyhow::Result<record::TargetIdentity> {
        match self.planned_file() {
            Some(size) => Ok(record::TargetIdentity {
                kind: "file".into(),
                model: None,
                serial: None,
                size_bytes: Some(size),
            }),
            None => runner::identity_of(&self.target),
        }
    }
}

/// A test file this command created: removed when the command is refused (bad input) or
/// returns early, kept once it ran.
pub struct TestFile(Option<std::path::PathBuf>);

impl TestFile {
    /// Keeps the file unless `result` is a refusal (nothing was written to it).
    pub fn settle<T>(mut self, result: &anyhow::Result<T>) {
        let refused = result
            .as_ref()
            .err()
            .is_some_and(|e| e.downcast_ref::<crate::error::BadInput>().is_some());
        if !refused {
            self.0 = None;
        }
    }
}

impl Drop for TestFile {
    fn drop(&mut self) {
        if let Some(path) = &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The seed's access specification (4 KiB, 100 % random writes, QD128, incompressible data):
/// the default of every experiment.
pub fn seed_workload() -> WorkloadSpec {
    WorkloadSpec::default()
}

/// The smallest offset alignment the target allows, 512 where it can (the seed's unaligned
/// writes), with a note when it cannot.
pub fn seed_align(target: &str) -> anyhow::Result<(u64, Option<String>)> {
    let logical = u64::from(
        crate::device::open(target)?
            .describe()?
            .logical_block
            .unwrap_or(512),
    );
    Ok(if logical <= 512 {
        (512, None)
    } else {
        (
            logical,
            Some(format!(
                "{target} has {logical}-byte logical blocks: writes are aligned to {logical} bytes, not the seed's 512"
            )),
        )
    })
}

/// Builds the record of a new experiment from its phases: numbered subdirectories, every
/// phase pending. A simulated drive without `state=` gets one inside the experiment directory.
pub fn new_record(
    name: &str,
    setup: &Setup,
    phases: Vec<Phase>,
    settings: Settings,
    notes: Vec<String>,
) -> anyhow::Result<ExperimentRecord> {
    let drive_state = match setup.planned_file() {
        Some(_) => None,
        None => crate::device::open(&setup.target)?
            .wants_state_file()
            .then(|| "drive.sim".to_string()),
    };
    let width = phases.len().to_string().len().max(2);
    // One seed for the experiment, drawn when none was given, recorded, and given to every
    // phase that runs I/O (the runner derives each phase's own seed from it).
    let seed = setup.workload.seed.unwrap_or_else(crate::run::fresh_seed);
    let phases = phases
        .into_iter()
        .map(|mut phase| {
            if let PhaseKind::Measure(p) | PhaseKind::SweepPoint(p) | PhaseKind::Soak(p) =
                &mut phase.kind
            {
                p.workload.seed.get_or_insert(seed);
            }
            phase
        })
        .enumerate()
        .map(|(i, phase)| PhaseRecord {
            dir: phase
                .kind
                .has_dir()
                .then(|| format!("{:0width$}-{}", i + 1, phase.name)),
            phase,
            status: Status::Pending,
            started_utc: None,
            ended_utc: None,
            attempts: 0,
            headline: None,
            error: None,
        })
        .collect();
    let now = crate::results::utc_now();
    Ok(ExperimentRecord {
        schema_version: SCHEMA_VERSION,
        tool: "ssdfade".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        name: name.into(),
        target: setup.target.clone(),
        drive_state,
        drive_stamp: None,
        identity: setup.identity()?,
        options: setup.options.clone(),
        settings,
        reference: None,
        notes,
        command_line: std::env::args().collect(),
        seed: Some(seed),
        created_utc: now.clone(),
        updated_utc: now,
        status: Status::Pending,
        interrupted_by: None,
        phases,
    })
}

/// A run phase's parameters.
pub fn run_params(
    workload: &WorkloadSpec,
    duration: Option<Duration>,
    bytes: Option<u64>,
    interval: Duration,
) -> RunParams {
    RunParams {
        workload: workload.clone(),
        duration_s: duration.map(|d| d.as_secs_f64()),
        bytes,
        interval_s: interval.as_secs_f64(),
        until_steady: false,
        engine: None,
        rate_percent: None,
    }
}

/// The default experiment directory: `results/<UTC time>-<name>-<target name>`.
pub fn default_dir(name: &str, target: &str) -> std::path::PathBuf {
    crate::results::default_dir(&format!("{name}-{}", short_name(target)))
}

/// A target's short name: the simulated drive's or the file's (`zram3`, `nvme0n1`).
pub fn short_name(target: &str) -> String {
    crate::device::short_name(target)
}

/// Makes the record of a new experiment and runs it in `out` (default
/// `results/<UTC time>-<name>-<target>`).
#[allow(clippy::too_many_arguments)]
pub fn launch(
    name: &str,
    setup: &Setup,
    phases: Vec<Phase>,
    settings: Settings,
    notes: Vec<String>,
    out: Option<std::path::PathBuf>,
    interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>,
    observer: &mut dyn ExperimentObserver,
) -> anyhow::Result<ExperimentOutcome> {
    let record = new_record(name, setup, phases, settings, notes)?;
    launch_record(record, out, interrupt, observer)
}

/// Runs the experiment of a new `record` in `out` (default
/// `results/<UTC time>-<name>-<target>`).
pub fn launch_record(
    record: ExperimentRecord,
    out: Option<std::path::PathBuf>,
    interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>,
    observer: &mut dyn ExperimentObserver,
) -> anyhow::Result<ExperimentOutcome> {
    let dir = out.unwrap_or_else(|| default_dir(record.name.as_str(), &record.target));
    start(&dir, record, interrupt, observer)
}

/// The seed's 512-byte alignment applied to `setup` unless the user chose one: returns the
/// note to record when the target's blocks are larger.
pub fn apply_seed_align(setup: &mut Setup) -> anyhow::Result<Vec<String>> {
    if setup.workload.align.is_some() {
        return Ok(Vec::new());
    }
    let (align, note) = match setup.planned_file() {
        Some(_) => (512, None),
        None => seed_align(&setup.target)?,
    };
    setup.workload.align = Some(align);
    Ok(note.into_iter().collect())
}
