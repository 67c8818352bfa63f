//! What measure and soak share: turning their command line into a [`RunRequest`].

use std::time::Duration;

use crate::cli::RunArgs;
use crate::run::{install_signal_flag, RunRequest, Safety, Stop};

/// The request `args` make, with this command's default duration and sample period; Ctrl-C and
/// SIGTERM end the run cleanly.
pub fn request(
    args: &RunArgs,
    command: &str,
    default_duration: Duration,
    default_interval: Duration,
) -> anyhow::Result<RunRequest> {
    let w = &args.workload;
    Ok(RunRequest {
        target: args.target.clone(),
        records_within: None,
        workload: w.spec()?,
        stop: Stop::new(w.duration, w.bytes, default_duration),
        // A run shorter than the default sample period is sampled once, over its whole length.
        interval: w.interval.unwrap_or_else(|| {
            w.duration
                .map_or(default_interval, |d| d.min(default_interval))
        }),
        engine: args.engine,
        safety: Safety {
            destroy_data: args.safety.destroy_data.clone(),
            force: args.safety.force,
            size: args.safety.size,
        },
        out: args.out.clone(),
        command: command.into(),
        interrupt: install_signal_flag()?,
        checkpoint: None,
    })
}
