//! Everything the tool keeps on disk, the contract between measuring and presenting: one
//! plain serde type per record file (run.json in [`run`], experiment.json in [`experiment`],
//! erase.json, group.json, slog.json, plp.json in their own files), each with its schema
//! version, load and save, and the status they share ([`Status`]); no other module parses them.
//! The run directory is written here too: `samples.jsonl` holds one [`Sample`] per line, each
//! flushed to stable storage as it is taken so a crash or power loss loses at most the
//! interval in progress. The JSON Schemas under `docs/schema/` come from [`schema`].

mod command;
mod describe;
pub mod erase;
pub mod experiment;
mod experiment_dir;
pub mod group;
pub mod hlog;
mod json;
pub mod latency;
mod listing;
mod names;
pub mod phase;
pub mod plp;
pub mod prediction;
mod provenance;
mod reader;
pub mod record;
pub mod run;
pub mod schema;
pub mod settings;
pub mod slog;
mod status;
mod summary;
pub mod sweep;
mod sync_pace;
mod table;
mod valid;
pub mod verify;
mod version;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::made_dir::MadeDirectory;

pub use command::Command;
pub use describe::{
    device_line, device_name, rate_text, target_shown, transfer_text, workload_line,
};
pub use erase::{Done, EraseRecord, ToolRun};
pub use experiment::{
    ExperimentKind, ExperimentRecord, Headline, Options, PhaseRecord, ReferenceIops,
};
pub use experiment_dir::{
    any_phase_has_samples, apply_reference, check_completed_phases, is_experiment, load_experiment,
    Experiment, LoadedPhase,
};
pub use group::{is_group, GroupRecord, MemberRecord};
pub use json::{check_bounds, MAX_STRING};
pub use latency::LatencyRecord;
pub use listing::{list_runs, RunListing};
pub use names::{name_within, value_within};
pub use phase::{Phase, PhaseKind, RunParams};
pub use prediction::{Basis, Model, Prediction};
pub use provenance::{args_shown, command_shown, Provenance};
pub use reader::{load_run, read_run, read_samples, read_samples_to_damage, Damage, Run};
pub use record::{write_json_atomic, ProcessStamp};
pub use run::{read_info, Resume, RunInfo, TargetRecord, Telemetry};
pub use status::Status;
pub use summary::Summary;
pub use table::run_table;

use crate::stats::Sample;

/// An open run directory being written.
pub struct RunDir {
    pub dir: PathBuf,
    /// The directory whose files run.json names by their path within it ([`name_within`]).
    within: Option<PathBuf>,
    samples: File,
    /// Length of samples.jsonl: every line ends there, so a short write is cut back to it.
    samples_len: u64,
    sync: sync_pace::SyncPace,
}

/// Space held back in every run directory while its run goes on, released to write the final
/// run.json when the disk under it fills up.
const SPACE_RESERVE: &str = ".space-reserve";
const SPACE_RESERVE_BYTES: usize = 256 * 1024;

/// Gives back the space held for the final record of a run in `dir`.
pub fn release_space_reserve(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(SPACE_RESERVE));
}

/// Creates the directory a run or erase writes into: `out` when given (refused when it already
/// holds `record`), else a new `results/<UTC time>-<name>`, with `-2`, `-3`… appended when a
/// run started in the same second already took that name. Returns it with the levels made, which
/// a run that fails before it starts removes again.
pub fn claim_dir(
    out: Option<&Path>,
    name: &str,
    record: &str,
) -> anyhow::Result<(PathBuf, MadeDirectory)> {
    if let Some(dir) = out {
        if dir.join(record).exists() {
            crate::bad_input!(
                "{} already holds a run ({record}): choose another --out directory or remove it",
                dir.display()
            );
        }
        refuse_occupied(dir)?;
        return match MadeDirectory::make(dir) {
            Ok(made) => Ok((dir.to_path_buf(), made)),
            Err(e) => crate::bad_input!("cannot create the run directory {}: {e}", dir.display()),
        };
    }
    let base = default_dir(name);
    let mut made = match base.parent().map(MadeDirectory::make).transpose() {
        Ok(made) => made.unwrap_or_default(),
        Err(e) => crate::bad_input!("cannot create {}: {e}", base.display()),
    };
    for n in 1.. {
        let dir = if n == 1 {
            base.clone()
        } else {
            PathBuf::from(format!("{}-{n}", base.display()))
        };
        match made.make_new(&dir) {
            Ok(()) => return Ok((dir, made)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                made.remove_empty();
                crate::bad_input!("cannot create the run directory {}: {e}", dir.display())
            }
        }
    }
    unreachable!("an unbounded range ends only by returning")
}

/// Refuses an output directory that exists and is not an empty directory (a file, a
/// directory with anything in it, a link to a system directory): the tool writes only into a
/// directory it makes or an empty one, never among files it did not create.
pub fn refuse_occupied(dir: &Path) -> anyhow::Result<()> {
    if let Ok(link) = std::fs::read_link(dir) {
        crate::bad_input!(
            "--out {} is a symbolic link (to {}): give the directory itself, a new or empty one",
            dir.display(),
            link.display()
        );
    }
    if let Ok(real) = std::fs::canonicalize(dir) {
        if real.components().count() <= 2 {
            crate::bad_input!(
                "--out {} is the system directory {}: give a new or empty directory of your own",
                dir.display(),
                real.display()
            );
        }
    }
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => crate::bad_input!("cannot look at --out {}: {e}", dir.display()),
    };
    if !meta.is_dir() {
        crate::bad_input!(
            "--out {} is an existing file, not a directory: give a new or empty directory",
            dir.display()
        );
    }
    let occupied = match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_some(),
        Err(e) => crate::bad_input!("cannot read --out {}: {e}", dir.display()),
    };
    if occupied {
        crate::bad_input!(
            "--out {} is a directory that already holds files this command did not write: give a new or empty directory (an unfinished experiment is continued with `ssdfade resume`)",
            dir.display()
        );
    }
    Ok(())
}

/// Current UTC time as RFC 3339 (`2026-11-29T18:39:29Z`).
pub fn utc_now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The default run directory: `results/<UTC timestamp>-<target name>`.
pub fn default_dir(target_name: &str) -> PathBuf {
    let stamp: String = utc_now()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let name: String = target_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    PathBuf::from("results").join(format!("{stamp}-{name}"))
}

impl RunDir {
    /// Creates the run directory (see [`claim_dir`]) and writes the initial `run.json`
    /// (status `running`).
    pub fn create(
        out: Option<&Path>,
        name: &str,
        info: &RunInfo,
        within: Option<&Path>,
    ) -> anyhow::Result<RunDir> {
        let (dir, made) = claim_dir(out, name, "samples.jsonl")?;
        let samples = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(dir.join("samples.jsonl"))
            .with_context(|| format!("creating {}/samples.jsonl", dir.display()))?;
        if let Err(e) = std::fs::write(dir.join(SPACE_RESERVE), vec![0u8; SPACE_RESERVE_BYTES]) {
            // No room for the reserve is no room for the run's end: nothing of it is kept.
            let _ = std::fs::remove_file(dir.join(SPACE_RESERVE));
            let _ = std::fs::remove_file(dir.join("samples.jsonl"));
            made.remove_empty();
            crate::bad_input!(
                "no room for a run's records in {}: a run holds {} KiB there to record its end, and writing them failed ({}); free space or choose another --out",
                dir.display(),
                SPACE_RESERVE_BYTES / 1024,
                crate::error::io_words(&e)
            );
        }
        let run = RunDir {
            dir,
            within: within.map(Path::to_path_buf),
            samples,
            samples_len: 0,
            sync: Default::default(),
        };
        run.write_info(info)?;
        Ok(run)
    }

    /// Opens an existing run directory to continue its series after its first `keep` samples
    /// (the rest, and a torn last line, are cut off atomically first).
    pub fn reopen(dir: &Path, keep: &[Sample], within: Option<&Path>) -> anyhow::Result<RunDir> {
        let path = dir.join("samples.jsonl");
        let tmp = dir.join("samples.jsonl.tmp");
        let mut text = Vec::new();
        for sample in keep {
            text.extend(serde_json::to_vec(sample)?);
            text.push(b'\n');
        }
        let mut f = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        f.write_all(&text)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path).with_context(|| format!("replacing {}", path.display()))?;
        let samples = OpenOptions::new()
            .append(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        std::fs::write(dir.join(SPACE_RESERVE), vec![0u8; SPACE_RESERVE_BYTES])
            .with_context(|| format!("writing {}/{SPACE_RESERVE}", dir.display()))?;
        Ok(RunDir {
            dir: dir.to_path_buf(),
            within: within.map(Path::to_path_buf),
            samples,
            samples_len: text.len() as u64,
            sync: Default::default(),
        })
    }

    /// Appends one sample in a single write, flushed to stable storage at the pace of
    /// [`sync_pace`] (and with every run.json). A short write (a full disk) is cut back to the
    /// last whole line, so samples.jsonl never ends torn.
    pub fn append(&mut self, sample: &Sample) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(sample)?;
        line.push(b'\n');
        let context = || format!("writing a sample to {}/samples.jsonl", self.dir.display());
        let n = self.samples.write(&line).with_context(context)?;
        if n < line.len() {
            let _ = self.samples.set_len(self.samples_len);
            anyhow::bail!(
                "{}: only {n} of {} bytes fit (is the disk full?)",
                context(),
                line.len()
            );
        }
        self.samples_len += n as u64;
        if self.sync.due() {
            self.samples.sync_data().with_context(context)?;
        }
        Ok(())
    }

    /// Replaces `run.json` atomically (write, fsync, rename). A final record (status other than
    /// `running`) first gives back the space held for it. The samples it counts are synced
    /// first, so run.json never names more than samples.jsonl holds after a power cut.
    pub fn write_info(&self, info: &RunInfo) -> anyhow::Result<()> {
        self.samples
            .sync_data()
            .with_context(|| format!("syncing {}/samples.jsonl", self.dir.display()))?;
        let running = info.status == Status::Running;
        if !running {
            release_space_reserve(&self.dir);
        }
        let mut value = serde_json::to_value(info)?;
        if let Some(within) = &self.within {
            value_within(&mut value, within);
        }
        record::write_record(&self.dir.join("run.json"), &value, running, |v| {
            v["status"] = Status::Interrupted.as_str().into();
            v["ended_utc"] = utc_now().into();
            v["end"] = serde_json::json!({"reason": "interrupted"});
        })
    }
}
