//! Bringing a drive back to fresh: the erase methods, the exact commands each one sends (a
//! [`Plan`], printed by `--dry-run` and recorded in the run directory), and running a plan.
//!
//! One module per mechanism: [`discard`] (TRIM, secure discard, zero-out), [`nvme`] (Format NVM,
//! Sanitize), [`ata`] (security erase), [`punch`] (files), [`external`] (vendor tools). Choosing
//! a method for a target lives in [`plan`]; the whole erase as a library call (gates, record in
//! erase.json) in `request.rs`.

pub mod discard;
pub mod external;
pub mod plan;
pub mod punch;
mod request;

pub use crate::observe::erase::{EraseObserver, NoEraseProgress, NoProgress, Progress};
pub use request::{dry_run, erase, plan_erase, EraseOutcome, ErasePlan, EraseRequest, Steps};

use std::fmt;
use std::fs::File;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::device::{ata, nvme};
use crate::results::Done;
use discard::RangeOp;

/// `--method`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Method {
    Trim,
    SecureDiscard,
    Zeroout,
    NvmeFormat,
    NvmeSanitize,
    AtaSecureErase,
    Punch,
    Sim,
    /// `command:'…'`: a vendor tool's command line.
    Command(String),
    Auto,
}

pub const METHOD_NAMES: &str = "trim, secure-discard, zeroout, nvme-format, nvme-sanitize, ata-secure-erase, punch, sim, command:'…', auto";

impl FromStr for Method {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(cmd) = s.strip_prefix("command:") {
            let cmd = cmd.trim();
            let unquoted = cmd
                .strip_prefix('\'')
                .and_then(|c| c.strip_suffix('\''))
                .or_else(|| cmd.strip_prefix('"').and_then(|c| c.strip_suffix('"')))
                .unwrap_or(cmd);
            if unquoted.trim().is_empty() {
                return Err("command: needs the tool's command line, e.g. command:'toolbox --erase {target}'".into());
            }
            return Ok(Method::Command(unquoted.to_string()));
        }
        Ok(match s {
            "trim" | "discard" => Method::Trim,
            "secure-discard" => Method::SecureDiscard,
            "zeroout" => Method::Zeroout,
            "nvme-format" => Method::NvmeFormat,
            "nvme-sanitize" => Method::NvmeSanitize,
            "ata-secure-erase" => Method::AtaSecureErase,
            "punch" => Method::Punch,
            "sim" => Method::Sim,
            "auto" => Method::Auto,
            other => {
                return Err(format!(
                    "unknown erase method {other:?}; choose one of {METHOD_NAMES}"
                ))
            }
        })
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Method::Trim => f.write_str("trim"),
            Method::SecureDiscard => f.write_str("secure-discard"),
            Method::Zeroout => f.write_str("zeroout"),
            Method::NvmeFormat => f.write_str("nvme-format"),
            Method::NvmeSanitize => f.write_str("nvme-sanitize"),
            Method::AtaSecureErase => f.write_str("ata-secure-erase"),
            Method::Punch => f.write_str("punch"),
            Method::Sim => f.write_str("sim"),
            Method::Command(c) => write!(f, "command:'{c}'"),
            Method::Auto => f.write_str("auto"),
        }
    }
}

/// Exactly what an erase will send, resolved for one target.
#[derive(Clone, Debug)]
pub enum Plan {
    /// BLKDISCARD / BLKSECDISCARD / BLKZEROOUT over these `{start, len}` ranges.
    Range { op: RangeOp, ranges: Vec<[u64; 2]> },
    /// fallocate(PUNCH_HOLE | KEEP_SIZE) over `[offset, offset + len)`.
    Punch { offset: u64, len: u64 },
    /// Format NVM, one admin command.
    NvmeFormat(nvme::AdminCommand),
    /// Sanitize, then poll the sanitize status log until done.
    NvmeSanitize(nvme::AdminCommand),
    /// SET PASSWORD, ERASE PREPARE, ERASE UNIT.
    AtaSecureErase(Vec<ata::AtaCommand>),
    /// A vendor tool's command line (already expanded).
    External(String),
}

impl Plan {
    /// Human-readable lines, with the exact bytes of every command.
    pub fn describe(&self) -> Vec<String> {
        match self {
            Plan::Range { op, ranges } => {
                let total: u64 = ranges.iter().map(|r| r[1]).sum();
                let mut lines = vec![format!(
                    "ioctl {} (0x{:04x}) × {} call(s), {} bytes in all; argument = u64 start, u64 length (little-endian):",
                    op.ioctl_name(),
                    op.ioctl_code(),
                    ranges.len(),
                    total
                )];
                let shown: Vec<&[u64; 2]> = if ranges.len() > 4 {
                    ranges[..2].iter().chain(ranges[ranges.len() - 1..].iter()).collect()
                } else {
                    ranges.iter().collect()
                };
                for (i, r) in shown.iter().enumerate() {
                    if ranges.len() > 4 && i == 2 {
                        lines.push(format!("  … {} more …", ranges.len() - 3));
                    }
                    lines.push(format!(
                        "  start {} len {}: {}",
                        r[0],
                        r[1],
                        crate::units::hex(&discard::range_bytes(**r))
                    ));
                }
                lines
            }
            Plan::Punch { offset, len } => vec![format!(
                "fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE = 0x{:x}, offset {offset}, len {len})",
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE
            )],
            Plan::NvmeFormat(cmd) => vec![
                "ioctl NVME_IOCTL_ADMIN_CMD (0xc0484e41), Format NVM:".into(),
                format!("  {}", cmd.describe()),
            ],
            Plan::NvmeSanitize(cmd) => vec![
                "ioctl NVME_IOCTL_ADMIN_CMD (0xc0484e41), Sanitize:".into(),
                format!("  {}", cmd.describe()),
                "then once a second, Get Log Page Sanitize Status until done:".into(),
                format!(
                    "  {}",
                    nvme::get_log_page(nvme::LID_SANITIZE_STATUS, nvme::NSID_ALL, 512, 0)
                        .describe()
                ),
            ],
            Plan::AtaSecureErase(cmds) => {
                let mut lines =
                    vec!["ioctl SG_IO (0x2285), ATA PASS-THROUGH (16), in this order:".to_string()];
                for (i, c) in cmds.iter().enumerate() {
                    lines.push(format!("  {}. {}", i + 1, c.describe()));
                }
                lines
            }
            Plan::External(cmd) => vec![format!("sh -c {cmd:?}")],
        }
    }
}

/// The erase stopped at the user's request (Ctrl-C or SIGTERM); says how far it got.
#[derive(Debug)]
pub struct Interrupted(pub String);

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}

/// Runs `plan` on the open target `file` (`path` for messages), driving `bar`. Only a vendor
/// tool runs without an open file (it opens the device itself). `stop` is checked between
/// range requests and sanitize polls, and stops a vendor tool's whole process group (whose id
/// `tool_started` learns); a single ATA or NVMe command is never cut short.
pub fn execute(
    plan: &Plan,
    file: Option<&File>,
    path: &str,
    bar: &dyn Progress,
    stop: &AtomicBool,
    tool_started: &mut dyn FnMut(u32),
) -> anyhow::Result<Done> {
    if let Plan::External(cmd) = plan {
        return run_external(cmd, path, bar, stop, tool_started);
    }
    let Some(file) = file else {
        anyhow::bail!("{path} is not open for the erase");
    };
    match plan {
        Plan::Range { op, ranges } => {
            let total: u64 = ranges.iter().map(|r| r[1]).sum();
            bar.set_length(total);
            let done = discard::run(file, *op, ranges, stop, &mut |n| bar.set_position(n))?;
            if done < total {
                return Err(anyhow::Error::new(Interrupted(format!(
                    "{} stopped after {done} of {total} bytes",
                    op.ioctl_name()
                ))));
            }
            discard::flush_buffers(file);
            Ok(Done {
                detail: format!("{} over {done} bytes", op.ioctl_name()),
                bytes: Some(done),
                tool: None,
            })
        }
        Plan::Punch { offset, len } => {
            punch::punch(file, *offset, *len)?;
            Ok(Done {
                detail: format!("punched {len} bytes at offset {offset}"),
                bytes: Some(*len),
                tool: None,
            })
        }
        Plan::NvmeFormat(cmd) => {
            bar.set_message("Format NVM (waits for the controller, up to 10 minutes)");
            let mut cmd = *cmd;
            let status = nvme::submit(file, &mut cmd)
                .map_err(|e| anyhow::anyhow!("Format NVM on {path}: {e}"))?;
            if status != 0 {
                anyhow::bail!(
                    "Format NVM on {path} failed with NVMe status 0x{status:x}{}",
                    nvme_status_hint(status)
                );
            }
            discard::flush_buffers(file);
            Ok(Done {
                detail: format!("Format NVM completed (cdw10 0x{:x})", cmd.cdw10),
                ..Default::default()
            })
        }
        Plan::NvmeSanitize(cmd) => run_sanitize(*cmd, file, path, bar, stop),
        Plan::AtaSecureErase(cmds) => run_ata(cmds, file, path, bar),
        Plan::External(_) => unreachable!("handled above"),
    }
}

fn run_external(
    cmd: &str,
    path: &str,
    bar: &dyn Progress,
    stop: &AtomicBool,
    started: &mut dyn FnMut(u32),
) -> anyhow::Result<Done> {
    bar.finish();
    let ran = external::run(cmd, path, stop, started)?;
    let run = ran.run;
    crate::console::note_fmt(format_args!("{}", run.stderr));
    crate::out!("{}", run.stdout)?;
    if ran.stopped {
        return Err(anyhow::Error::new(Interrupted(format!(
            "the erase command was stopped before it ended (exit status {}): whether it erased is unknown; erase again: {}",
            run.exit_status
                .map_or("none, killed by a signal".to_string(), |c| c.to_string()),
            run.command
        ))));
    }
    if run.exit_status != Some(0) {
        anyhow::bail!(
            "the erase command exited with status {}: {}",
            run.exit_status
                .map_or("(killed by a signal)".to_string(), |c| c.to_string()),
            run.command
        );
    }
    Ok(Done {
        detail: format!("{} exited 0", run.command),
        bytes: None,
        tool: Some(run),
    })
}

fn nvme_status_hint(status: u32) -> &'static str {
    match status & 0x7FF {
        0x2 => " (Invalid Field: the controller refused these settings)",
        0x1 => " (Invalid Opcode: the controller does not support this command)",
        0x1D => " (Sanitize In Progress)",
        0x10A => " (Invalid Format)",
        0x115 => " (Sanitize Prohibited While Persistent Memory Region is Enabled)",
        _ => "",
    }
}

fn run_sanitize(
    mut cmd: nvme::AdminCommand,
    file: &File,
    path: &str,
    bar: &dyn Progress,
    stop: &AtomicBool,
) -> anyhow::Result<Done> {
    let status =
        nvme::submit(file, &mut cmd).map_err(|e| anyhow::anyhow!("Sanitize on {path}: {e}"))?;
    if status != 0 {
        anyhow::bail!(
            "Sanitize on {path} failed with NVMe status 0x{status:x}{}",
            nvme_status_hint(status)
        );
    }
    bar.set_length(65536);
    loop {
        std::thread::sleep(Duration::from_secs(1));
        if stop.load(Ordering::Relaxed) {
            return Err(anyhow::Error::new(Interrupted(format!(
                "stopped waiting; the sanitize goes on inside the controller (I/O to {path} fails until it ends): follow it with `nvme sanitize-log`"
            ))));
        }
        let s = nvme::read_sanitize_status(file)?;
        if s.failed() {
            anyhow::bail!("the sanitize on {path} failed (sanitize status log SSTAT = 3); the controller stays in failure mode until another sanitize completes");
        }
        if !s.in_progress() {
            discard::flush_buffers(file);
            return Ok(Done {
                detail: format!("Sanitize completed (SSTAT {})", s.state),
                ..Default::default()
            });
        }
        bar.set_position(u64::from(s.progress));
    }
}

fn run_ata(
    cmds: &[ata::AtaCommand],
    file: &File,
    path: &str,
    bar: &dyn Progress,
) -> anyhow::Result<Done> {
    let mut password_set = false;
    for cmd in cmds {
        bar.set_message(cmd.name);
        if let Err(e) = ata::send(file, cmd) {
            if !password_set {
                return Err(e.context(format!("{path}: nothing was changed")));
            }
            // The password is set; if the erase itself never started, clearing it is safe.
            let cleared = cmd.cdb[14] == ata::CMD_SECURITY_ERASE_PREPARE
                && ata::send(file, &ata::disable_password(ata::TEMP_PASSWORD)).is_ok();
            if cleared {
                return Err(e.context(format!(
                    "{path}: the erase did not start; the temporary password was removed again"
                )));
            }
            return Err(e.context(format!(
                "{path}: the security erase stopped midway; {}",
                ata::unlock_advice(path)
            )));
        }
        if cmd.cdb[14] == ata::CMD_SECURITY_SET_PASSWORD {
            password_set = true;
        }
    }
    discard::flush_buffers(file);
    Ok(Done {
        detail: "ATA security erase completed; the temporary password is cleared by the erase"
            .into(),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_parse_and_print_back() {
        for name in [
            "trim",
            "secure-discard",
            "zeroout",
            "nvme-format",
            "nvme-sanitize",
            "ata-secure-erase",
            "punch",
            "sim",
            "auto",
        ] {
            assert_eq!(name.parse::<Method>().unwrap().to_string(), name);
        }
        assert_eq!(
            "command:'toolbox -e {target}'".parse::<Method>().unwrap(),
            Method::Command("toolbox -e {target}".into())
        );
        assert!("command:''".parse::<Method>().is_err());
        assert!("shred"
            .parse::<Method>()
            .unwrap_err()
            .contains("choose one of"));
    }

    #[test]
    fn range_plan_shows_the_ioctl_argument_bytes() {
        let plan = Plan::Range {
            op: RangeOp::Discard,
            ranges: discard::chunks(0, 8192, 4096),
        };
        let text = plan.describe().join("\n");
        assert!(text.contains("BLKDISCARD (0x1277)"), "{text}");
        assert!(
            text.contains("start 4096 len 4096: 00 10 00 00 00 00 00 00 00 10 00 00 00 00 00 00"),
            "{text}"
        );
    }
}
