//! What a simulated preset's parameters say `experiment slc-cache` should find at a capacity,
//! computed from the parameters alone (as `tests/slc_cache.rs` does), never from a run: the
//! whole SLC cache of an empty drive, and the in-cache and post-cache speeds of 1 MiB
//! sequential writes at depth. Prints `cache_bytes in_cache_mb_per_s post_cache_mb_per_s`, or
//! `none` for a preset without an SLC cache; `scripts/pts-acceptance.sh` compares the
//! experiment's answer with it.
//!
//! usage: slc_model PRESET CAPACITY_BYTES

use anyhow::{bail, Context};
use ssdfade::sim::presets;

/// The transfer size `experiment slc-cache` writes with (its default).
const BS: f64 = 1_048_576.0;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, capacity] = args.as_slice() else {
        bail!("usage: slc_model PRESET CAPACITY_BYTES");
    };
    let capacity: u64 = capacity
        .parse()
        .with_context(|| format!("capacity {capacity:?} is not a number of bytes"))?;
    let p = presets::find(name)
        .with_context(|| format!("no preset {name:?}"))?
        .with_capacity(capacity);
    let Some(slc) = p.slc else {
        println!("none");
        return Ok(());
    };
    // A 1 MiB write is 256 pages of 4 KiB; its time is the slowest of the host link (bytes over
    // the link rate plus the command's overhead), the dies programming its pages (all at once),
    // the channels moving them and the controller's command rate. MB/s is 10^6 bytes a second.
    let pages = BS / 4096.0;
    let mb_per_s = |program_us: f64| {
        let link = BS / p.link_bytes_per_s + p.link_command_us * 1e-6;
        let dies = pages * program_us * 1e-6 / f64::from(p.parallel_dies());
        let channels = pages * p.transfer_us * 1e-6 / f64::from(p.channels);
        let controller = 1.0 / p.controller_iops;
        BS / link.max(dies).max(channels).max(controller) / 1e6
    };
    println!(
        "{} {:.1} {:.1}",
        slc.bytes,
        mb_per_s(slc.program_us),
        mb_per_s(p.program_us)
    );
    Ok(())
}
