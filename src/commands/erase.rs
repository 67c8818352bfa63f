//! `ssdfade erase TARGET --method M --destroy-data TARGET`: erase the target with the method
//! given (or the one `auto` chooses), timed and recorded in a run directory (`erase.json`).
//! `--dry-run` prints the commands and their bytes and writes nothing.

use crate::cli::EraseArgs;
use crate::drive::RunEnd;
use crate::erase::EraseRequest;
use crate::run::install_signal_flag;

/// Runs `ssdfade erase`: completed, or interrupted by Ctrl-C / SIGTERM (recorded as such).
pub fn run(args: &EraseArgs) -> anyhow::Result<RunEnd> {
    let mut request = EraseRequest {
        target: args.target.clone(),
        records_within: None,
        method: args.method.clone(),
        destroy_data: args.destroy_data.clone(),
        force: args.force,
        crypto: args.crypto,
        action: args.action,
        span: args.span,
        chunk: args.chunk,
        out: args.out.clone(),
        interrupt: Default::default(),
    };
    if args.dry_run {
        for line in crate::erase::dry_run(&request)? {
            crate::outln!("{line}")?;
        }
        return Ok(RunEnd::Completed);
    }
    request.interrupt = install_signal_flag()?;
    let outcome = crate::erase::erase(&request, &mut crate::output::erase::Terminal)?;
    let record = &outcome.record;
    let seconds = record.duration_s.unwrap_or(0.0);
    let erase_json = outcome.dir.join("erase.json");
    if outcome.end == RunEnd::Interrupted {
        crate::note!(
            "ssdfade: erase of {} interrupted after {seconds:.3} s: {} (recorded in {})",
            args.target,
            record.error.as_deref().unwrap_or("stopped"),
            erase_json.display()
        );
    } else if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(record)?)?;
    } else {
        let detail = record.done.as_ref().map_or("", |d| d.detail.as_str());
        crate::outln!(
            "erased {} with {} in {seconds:.3} s: {detail}\nrecorded in {}",
            args.target,
            record.method,
            erase_json.display()
        )?;
    }
    Ok(outcome.end)
}
