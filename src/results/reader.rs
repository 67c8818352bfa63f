//! Reading a run directory back for plots and reports: `run.json` and `samples.jsonl`, line by
//! line. Anything wrong with the directory is bad input (exit 2) named in one line: a damaged
//! sample line gives its number; a torn last line (a crash mid-write) is skipped, so a crashed
//! run whose `run.json` still says `running` reads like any other.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::RunInfo;
use crate::bad_input;
use crate::stats::Sample;

/// A run directory as read back from disk.
#[derive(Clone, Debug)]
pub struct Run {
    pub dir: PathBuf,
    pub info: RunInfo,
    pub samples: Vec<Sample>,
}

/// Reads `run.json` and every sample of `dir`; a directory without samples is bad input.
pub fn load_run(dir: &Path) -> anyhow::Result<Run> {
    let run = read_run(dir)?;
    if run.samples.is_empty() {
        bad_input!(
            "{} holds no samples: the run ended before its first interval, nothing to plot (`ssdfade report` says what it holds)",
            dir.join("samples.jsonl").display()
        );
    }
    Ok(run)
}

/// Reads `run.json` and every sample of `dir` as [`load_run`] does, except that a run that
/// stopped before its first interval ended (no samples, not failed) is read with none: what
/// `report` says of such a run is what run.json holds.
pub fn read_run(dir: &Path) -> anyhow::Result<Run> {
    let info_path = dir.join("run.json");
    let text = match std::fs::read_to_string(&info_path) {
        Ok(text) => text,
        Err(e) => bad_input!(
            "{} is not a run directory (cannot read run.json: {e}): give a directory that measure, soak or an experiment wrote",
            dir.display()
        ),
    };
    let mut info: RunInfo = super::json::parse(&info_path, &text)?;
    super::version::check(&info_path, info.schema_version, super::run::SCHEMA_VERSION)?;
    super::run::check(&info_path, &info)?;
    info.target.identity.on_one_line();
    let samples = read_samples(dir)?;
    if let (true, Some(why)) = (samples.is_empty(), info.failure()) {
        bad_input!(
            "{} holds no samples: the run failed before its first interval ({why})",
            dir.display()
        );
    }
    // No samples at all: [`load_run`] refuses them, `report` says what run.json holds.
    if !samples.is_empty() {
        agree(dir, &info, &samples)?;
    }
    Ok(Run {
        dir: dir.to_path_buf(),
        info,
        samples,
    })
}

/// Refuses samples that do not add up to run.json's summary (I/Os and bytes): the two files
/// are not of one run (swapped between runs, cut, or lines added), and a report would print
/// the one's whole-run figures beside the other's intervals.
fn agree(dir: &Path, info: &RunInfo, samples: &[Sample]) -> anyhow::Result<()> {
    let Some(summary) = &info.summary else {
        return Ok(());
    };
    let (ops, bytes) = samples.iter().fold((0u64, 0u64), |(o, b), s| {
        (o.saturating_add(s.ops), b.saturating_add(s.bytes))
    });
    if (ops, bytes) != (summary.ops, summary.bytes) {
        bad_input!(
            "{}: its {} samples add up to {ops} I/Os and {bytes} bytes, but run.json's summary counts {} I/Os and {} bytes: samples.jsonl is not this run's (swapped, cut or added to); put back the run's own samples.jsonl",
            dir.display(),
            samples.len(),
            summary.ops,
            summary.bytes
        );
    }
    Ok(())
}

/// Opens a record file for reading, refusing anything but a regular file: a FIFO planted in
/// its place was waited on for ever (opened without blocking, then looked at).
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// Reads `samples.jsonl` line by line. A line that does not parse is bad input naming its line
/// number, except the last line when it lacks its newline (torn by a crash), which is skipped.
pub fn read_samples(dir: &Path) -> anyhow::Result<Vec<Sample>> {
    let (samples, damage) = read_samples_to_damage(dir)?;
    match damage {
        Some(d) => bad_input!(
            "{}:{}: damaged sample line ({}): remove or repair that line to plot the rest",
            d.path.display(),
            d.line,
            d.why
        ),
        None => Ok(samples),
    }
}

/// Where samples.jsonl stops being readable.
#[derive(Clone, Debug)]
pub struct Damage {
    pub path: PathBuf,
    /// The first damaged line (1-based).
    pub line: usize,
    pub why: String,
    /// Lines from the damaged one to the end of the file.
    pub lines_from_there: usize,
    /// Some line after the damaged one holds a good sample.
    pub good_after: bool,
}

/// Reads the samples of `dir` up to the first damaged line, and says where that is (a torn last
/// line, without its newline, is skipped as a crash mid-write, not damage).
pub fn read_samples_to_damage(dir: &Path) -> anyhow::Result<(Vec<Sample>, Option<Damage>)> {
    let path = dir.join("samples.jsonl");
    let file = match open_regular(&path) {
        Ok(f) => f,
        Err(e) => bad_input!(
            "cannot open {}: {e}: give a run directory that measure or soak wrote",
            path.display()
        ),
    };
    let mut reader = BufReader::new(file);
    let mut samples = Vec::new();
    let mut damage: Option<Damage> = None;
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => bad_input!("{}:{number}: cannot read the line: {e}", path.display()),
        }
        let complete = line.ends_with(b"\n");
        if line.trim_ascii().is_empty() && complete {
            continue;
        }
        let parsed = serde_json::from_slice::<Sample>(line.trim_ascii_end())
            .map_err(|e| e.to_string())
            .and_then(|s| super::valid::sample(&s).map(|()| s));
        if let Some(d) = &mut damage {
            d.lines_from_there += 1;
            d.good_after |= parsed.is_ok();
            continue;
        }
        match parsed {
            Ok(sample) => samples.push(sample),
            Err(_) if !complete => break,
            Err(e) => {
                damage = Some(Damage {
                    path: path.clone(),
                    line: number,
                    why: e,
                    lines_from_there: 1,
                    good_after: false,
                })
            }
        }
    }
    Ok((samples, damage))
}
