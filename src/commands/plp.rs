//! `ssdfade plp listen | write | verify`: the power-loss check.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::PlpCommand;
use crate::drive::RunEnd;
use crate::run::install_signal_flag;
use crate::slog::plp;

/// Runs one plp subcommand.
pub fn run(cmd: &PlpCommand) -> anyhow::Result<RunEnd> {
    let stop = install_signal_flag()?;
    match cmd {
        PlpCommand::Listen(a) => {
            let req = plp::ListenRequest {
                addr: format!("{}:{}", a.bind, a.port),
                dir: a.dir.clone(),
                max_connections: usize::from(a.max_connections),
                idle: a.idle_timeout,
            };
            plp::listen(&req, &stop, &mut |l| {
                let _ = crate::outln!("listening on {}", l.addr);
                if l.addr.ip().is_unspecified() {
                    let _ = crate::outln!(
                        "  on every network interface: anyone who reaches this port can start a session (not read or change another's)"
                    );
                }
                let _ = crate::outln!(
                    "  sessions are kept in {} ({} already there); at most {} connections, silent ones closed after {}",
                    l.dir.display(),
                    l.sessions,
                    l.max_connections,
                    crate::units::format_duration(req.idle)
                );
                let _ = crate::outln!(
                    "  on the machine under test: ssdfade plp write TARGET --log {} (it prints the token plp verify needs)",
                    l.addr
                );
                let _ = std::io::stdout().flush();
            })?;
            // Ctrl-C is how a listener ends: nothing was interrupted.
            Ok(RunEnd::Completed)
        }
        PlpCommand::Write(a) => {
            let seed = a.seed.unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
            let report = plp::write(
                &plp::WriteRequest {
                    target: a.target.clone(),
                    log: a.log.clone(),
                    destroy_data: a.safety.destroy_data.clone(),
                    force: a.safety.force,
                    size: a.safety.size,
                    span: a.span,
                    duration: a.duration,
                    no_flush: a.no_flush,
                    seed,
                },
                &stop,
                &mut |r| {
                    let _ = crate::outln!(
                        "session token {}: after the power cut, ssdfade plp verify {} --log {} --token {}",
                        r.token,
                        r.target,
                        a.log,
                        r.token
                    );
                    let _ = std::io::stdout().flush();
                },
            )?;
            crate::outln!(
                "wrote {} records ({} acknowledged) over {} slots of {} in {:.1} s",
                report.records_written,
                report.records_acknowledged,
                report.slots,
                report.target,
                report.seconds
            )?;
            Ok(if a.duration.is_some() {
                RunEnd::Completed
            } else {
                RunEnd::Interrupted
            })
        }
        PlpCommand::Verify(a) => {
            let report = plp::verify(&a.target, &a.log, &a.token)?;
            let dir: PathBuf = plp::record(&report, a.out.clone())?;
            if a.json {
                crate::outln!("{}", serde_json::to_string_pretty(&report)?)?;
            } else {
                crate::out!("{}", plp::summary(&report))?;
                crate::outln!("  Run directory: {}", dir.display())?;
            }
            Ok(match report.outcome {
                plp::Outcome::Pass => RunEnd::Completed,
                plp::Outcome::Fail => RunEnd::Failed(format!(
                    "{} acknowledged records lost and {} torn on {}",
                    report.lost.len(),
                    report.torn.len(),
                    report.target
                )),
                plp::Outcome::NotTested => RunEnd::Failed(format!(
                    "not tested: {} acknowledged records on {} (a pass needs at least {})",
                    report.acknowledged, report.target, report.min_acknowledged
                )),
            })
        }
    }
}
