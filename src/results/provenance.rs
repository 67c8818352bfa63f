//! Where a run directory's figures come from — the build that recorded them, when, the command
//! line and the drive — as its record holds them: one value every chart file, chart metadata
//! and report footer renders, so they all say the same.

use std::path::Path;

use super::{Experiment, Run, RunInfo};
use crate::units::format_gb;

/// The provenance of a run, experiment or SLOG directory, from its record alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// The build that recorded the data: `ssdfade 0.1.0 (build abc1234 2026-12-01)`; the
    /// version alone for records older than the build field.
    pub recorded_by: String,
    /// When the measurement started (UTC, as the record holds it).
    pub date: String,
    /// The command line as recorded, local paths cut to their file names (device paths and
    /// simulated drives kept: they name the drive); None when the record holds none.
    pub command_line: Option<String>,
    /// The drive: model, firmware, serial and capacity as the record holds them, then its
    /// target (a device path, a file name or a simulator spec).
    pub drive: String,
}

impl Provenance {
    /// A run's provenance, from run.json.
    pub fn of_run(info: &RunInfo) -> Provenance {
        let id = &info.target.identity;
        Provenance {
            recorded_by: recorded_by(&info.tool, &info.version, info.build.as_deref()),
            date: info.started_utc.clone(),
            command_line: command_shown(&info.command_line),
            drive: drive_line(
                id.model.as_deref(),
                id.firmware.as_deref(),
                id.serial.as_deref(),
                Some(id.size_bytes),
                &info.target.path,
            ),
        }
    }

    /// An experiment's provenance, from experiment.json; the build and firmware from its first
    /// phase that ran (experiment.json records neither).
    pub fn of_experiment(exp: &Experiment) -> Provenance {
        let record = &exp.record;
        let first = exp.phases.iter().find_map(|p| p.run.as_ref());
        let id = &record.identity;
        let firmware = first.and_then(|r| r.info.target.identity.firmware.as_deref());
        Provenance {
            recorded_by: recorded_by(
                &record.tool,
                &record.version,
                first.and_then(|r| r.info.build.as_deref()),
            ),
            date: record.created_utc.clone(),
            command_line: command_shown(&record.command_line),
            drive: drive_line(
                id.model.as_deref(),
                firmware,
                id.serial.as_deref(),
                id.size_bytes,
                &record.target,
            ),
        }
    }

    /// A SLOG run's provenance: its sustained phase's run.json when it has one, else slog.json
    /// (whose device is a label and a target: no model or serial).
    pub fn of_slog(dir: &Path, run: Option<&Run>) -> anyhow::Result<Provenance> {
        if let Some(run) = run {
            return Ok(Provenance::of_run(&run.info));
        }
        let record = super::slog::read_record(dir)?;
        Ok(Provenance {
            recorded_by: recorded_by(&record.tool, &record.version, record.build.as_deref()),
            date: record.created_utc.clone().unwrap_or_else(|| "—".into()),
            command_line: command_shown(&record.command_line),
            drive: drive_line(None, None, None, None, &record.device.target),
        })
    }
}

impl Provenance {
    /// The provenance of several runs side by side (`compare`): each field as each run's,
    /// one line per run, `label: …`, the recording builds once each.
    pub fn of_comparison(runs: &[(String, Provenance)]) -> Provenance {
        let lines = |field: fn(&Provenance) -> Option<&str>| -> Option<String> {
            let lines: Vec<String> = runs
                .iter()
                .filter_map(|(label, p)| Some(format!("{label}: {}", field(p)?)))
                .collect();
            (!lines.is_empty()).then(|| lines.join("\n"))
        };
        let mut builds: Vec<&str> = runs.iter().map(|(_, p)| p.recorded_by.as_str()).collect();
        builds.dedup();
        Provenance {
            recorded_by: builds.join("; "),
            date: lines(|p| Some(&p.date)).unwrap_or_default(),
            command_line: lines(|p| p.command_line.as_deref()),
            drive: lines(|p| Some(&p.drive)).unwrap_or_default(),
        }
    }
}

/// `ssdfade 0.1.0 (build abc1234 2026-12-01)`, or without the build when it is not known.
fn recorded_by(tool: &str, version: &str, build: Option<&str>) -> String {
    let tool = if tool.is_empty() { "ssdfade" } else { tool };
    match build {
        Some(build) => format!("{tool} {version} (build {build})"),
        None => format!("{tool} {version}"),
    }
}

/// The drive in one line: `OCZ Vertex 2 60GB (simulated SF-1200), firmware ssdfade-sim 0.1.0,
/// serial SIM-vertex2-60g-1, 60.0 GB, sim:vertex2-60g` — what is known of it, then its target.
fn drive_line(
    model: Option<&str>,
    firmware: Option<&str>,
    serial: Option<&str>,
    size_bytes: Option<u64>,
    target: &str,
) -> String {
    // On one line: experiment.json keeps its drive's strings as the drive gave them (resume
    // compares them with the live drive), so a line break in them is put on one line here.
    let one_line = crate::console::one_line;
    [
        model.map(one_line),
        firmware.map(|f| format!("firmware {}", one_line(f))),
        serial.map(|s| format!("serial {}", one_line(s))),
        size_bytes.filter(|&b| b > 0).map(format_gb),
        Some(target_shown(target)),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ")
}

/// A target as provenance shows it: a device path or simulator spec whole (the simulator's
/// `state=` file left out, see [`super::target_shown`]), a file by its name.
fn target_shown(target: &str) -> String {
    arg_shown(&super::target_shown(target))
}

/// Options whose value is a results directory: shown by its name, relative or not.
const DIRECTORY_OPTIONS: [&str; 2] = ["--out", "--from"];

/// The recorded command line (program name first) as one line, `ssdfade` for the program and
/// the arguments as [`args_shown`] gives them; None when nothing was recorded.
pub fn command_shown(command_line: &[String]) -> Option<String> {
    let (_, args) = command_line.split_first()?;
    let shown = std::iter::once("ssdfade".to_string()).chain(args_shown(args));
    Some(shown.collect::<Vec<_>>().join(" "))
}

/// Arguments (without the program name) as a report shows them: results directories
/// (`--out`, `--from`) and every other local path cut to their file names.
pub fn args_shown(args: &[String]) -> Vec<String> {
    let mut shown: Vec<String> = Vec::with_capacity(args.len());
    for arg in args {
        let directory = shown
            .last()
            .is_some_and(|a| DIRECTORY_OPTIONS.contains(&a.as_str()));
        let option = arg
            .split_once('=')
            .filter(|(key, _)| DIRECTORY_OPTIONS.contains(key));
        shown.push(match option {
            Some((key, value)) => format!("{key}={}", file_name(value)),
            None if directory => file_name(arg),
            None => arg_shown(arg),
        });
    }
    shown
}

/// The last component of `path`.
fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// One argument without the machine's directory layout: an absolute path (`/tmp/x/run`,
/// `--out=/tmp/x/run`, a simulator's `state=/tmp/x/drive.sim`, a twin's
/// `sim:@/tmp/x/twin.toml`) becomes its file name; a device path (`/dev/…`) names the drive
/// and is kept.
fn arg_shown(arg: &str) -> String {
    let cut = |path: &str| -> String {
        match path.split_once('@') {
            Some((spec, file)) => format!("{spec}@{}", cut_path(file)),
            None => cut_path(path),
        }
    };
    arg.split(',')
        .map(|part| match part.split_once('=') {
            Some((key, value)) => format!("{key}={}", cut(value)),
            None => cut(part),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// An absolute path outside /dev cut to its file name; anything else as it is.
fn cut_path(path: &str) -> String {
    if !path.starts_with('/') || path.starts_with("/dev/") {
        return path.to_string();
    }
    file_name(path)
}

#[cfg(test)]
mod tests {
    use super::{arg_shown, command_shown};

    #[test]
    fn local_paths_are_cut_to_their_names_and_drives_kept() {
        assert_eq!(arg_shown("/tmp/x/run"), "run");
        assert_eq!(arg_shown("--out=/tmp/x/run"), "--out=run");
        assert_eq!(arg_shown("/dev/nvme0n1"), "/dev/nvme0n1");
        assert_eq!(arg_shown("sim:@/tmp/x/twin.toml"), "sim:@twin.toml");
        assert_eq!(arg_shown("--span=100%,90%"), "--span=100%,90%");
        assert_eq!(
            arg_shown("sim:vertex2-60g,scale=8,state=/tmp/e/drive.sim"),
            "sim:vertex2-60g,scale=8,state=drive.sim"
        );
        assert_eq!(arg_shown("hotcold:80/20"), "hotcold:80/20");
        let line = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let shown = |args: &[&str]| command_shown(&line(args)).unwrap();
        assert_eq!(
            shown(&["/work/target/release/ssdfade", "soak", "--out", "/tmp/a/b"]),
            "ssdfade soak --out b"
        );
        assert_eq!(
            shown(&["ssdfade", "slog", "--out=results/x", "--from", "r/y"]),
            "ssdfade slog --out=x --from y"
        );
        assert_eq!(command_shown(&[]), None);
    }
}
