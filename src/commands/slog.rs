//! `ssdfade slog`: the SLOG test of a device, printed as tables and a verdict (or slog.json).

use std::sync::atomic::Ordering;

use crate::cli::SlogArgs;
use crate::engine::RunEnd;
use crate::slog::baseline::Baseline;
use crate::slog::sweep::Plan;
use crate::slog::{self, Request};

/// Parses the options, runs the test and prints it.
pub fn run(args: &SlogArgs) -> anyhow::Result<RunEnd> {
    let request = Request {
        target: args.target.clone(),
        destroy_data: args.destroy_data.clone(),
        force: args.force,
        size: args.size,
        plan: Plan {
            max_size: args.max_size,
            sustain_s: args.sustain.as_secs_f64(),
            seed: args.seed.unwrap_or_else(fresh_seed),
        },
        baseline: args.baseline.as_deref().map(Baseline::parse).transpose()?,
        from: args.from.clone(),
        zil_bytes_per_day: args.zil_rate as f64,
        tbw: args.tbw,
        out: args.out.clone(),
    };
    let stop = crate::run::install_signal_flag()?;
    let mut progress = |line: &str| eprintln!("ssdfade slog: {line}");
    let outcome = slog::run(&request, &stop, &mut progress)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&outcome.record)?);
    } else {
        print!("{}", slog::table::render(&outcome.record, &outcome.dir));
    }
    Ok(match outcome.record.end {
        RunEnd::Completed if stop.load(Ordering::Relaxed) => RunEnd::Interrupted,
        end => end,
    })
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    crate::pattern::mix64(nanos ^ u64::from(std::process::id()) << 32)
}
