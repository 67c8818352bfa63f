//! `ssdfade selftest`: how fast this machine generates write data, per core, for every pattern.
//!
//! The default pattern has to outrun any drive: at 4 GB/s per core, data generation costs about
//! 1 µs of one core per 4 KiB write. The figure is CPU time of the generating thread, so other
//! load on the machine does not lower it much.

use std::time::Duration;

use crate::cli::SelftestArgs;
use crate::pattern::speed::{measure, BUFFERS, REQUIRED_GB_PER_S};
use crate::pattern::Pattern;
use crate::units::format_bytes;

/// Runs the self-test and prints one line per pattern.
pub fn run(args: &SelftestArgs) -> anyhow::Result<()> {
    let bs = args.bs as usize;
    if bs == 0 || !bs.is_multiple_of(crate::pattern::SECTOR) {
        crate::bad_input!(
            "--bs {bs} is not a whole number of 512-byte sectors: use e.g. 4k or 128k"
        );
    }
    crate::workload::memory::check_selftest(args.bs, BUFFERS as u32)?;
    let each = args.seconds.max(Duration::from_millis(10));
    crate::outln!(
        "Write-data generation, one thread, {} writes, {} per pattern (GB = 10^9 bytes, per CPU second):",
        format_bytes(bs as u64),
        crate::units::format_duration(each)
    )?;
    let cases: [(Pattern, bool); 6] = [
        (Pattern::Random, false),
        (Pattern::Random, true),
        (Pattern::Compressible(50), false),
        (Pattern::Dedupe(30), false),
        (Pattern::Repeat, false),
        (Pattern::Zero, false),
    ];
    let mut default_speed = 0.0;
    for (pattern, refill) in cases {
        let speed = measure(pattern, refill, bs, each)?;
        if pattern == Pattern::Random && !refill {
            default_speed = speed.gb_per_s;
        }
        crate::outln!(
            "  {:<24} {:>7.2} GB/s  {:>8.0} ns per write",
            speed.label,
            speed.gb_per_s,
            speed.ns_per_write
        )?;
    }
    let verdict = if default_speed >= REQUIRED_GB_PER_S {
        "meets"
    } else {
        "is BELOW"
    };
    crate::outln!(
        "The default pattern (random) {verdict} the {REQUIRED_GB_PER_S:.0} GB/s per core it needs."
    )?;
    Ok(())
}
