//! `ssdfade verify TARGET --from DIR`: checks, reading only, what a run made with `--verify`
//! wrote; exit 1 when a block is bad.

use crate::cli::VerifyArgs;
use crate::drive::RunEnd;
use crate::run::{install_signal_flag, verify_run};

/// Checks every block and prints what was found.
pub fn run(args: &VerifyArgs) -> anyhow::Result<RunEnd> {
    let stop = install_signal_flag()?;
    let report = verify_run(&args.target, &args.from, &stop)?;
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        crate::out!("{}", report.text(50))?;
    }
    Ok(if stop.load(std::sync::atomic::Ordering::Relaxed) {
        RunEnd::Interrupted
    } else if report.clean() {
        RunEnd::Completed
    } else {
        RunEnd::Failed(format!(
            "{} bad blocks on {}",
            report.counts.total(),
            args.target
        ))
    })
}
