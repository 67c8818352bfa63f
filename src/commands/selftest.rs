//! `ssdfade selftest`: how fast this machine generates write data, per core, for every pattern.
//!
//! The default pattern has to outrun any drive: at 4 GB/s per core, data generation costs about
//! 1 µs of one core per 4 KiB write. The figure is CPU time of the generating thread, so other
//! load on the machine does not lower it much.

use std::time::{Duration, Instant};

use crate::cli::SelftestArgs;
use crate::engine::AlignedBuf;
use crate::pattern::{make_pool, Pattern, PatternGen};
use crate::units::format_bytes;

/// Buffers written in turn, as a ring of in-flight I/O would use them.
const BUFFERS: usize = 32;
/// What the default pattern must reach per core (issue 3).
const REQUIRED_GB_PER_S: f64 = 4.0;

/// One pattern's generation speed.
pub struct Speed {
    pub label: String,
    /// 10^9 bytes per second of the generating thread's CPU time.
    pub gb_per_s: f64,
    /// CPU nanoseconds to generate one write.
    pub ns_per_write: f64,
}

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

/// Generates writes of `pattern` for about `each` and returns the speed.
pub fn measure(pattern: Pattern, refill: bool, bs: usize, each: Duration) -> anyhow::Result<Speed> {
    let pool = make_pool(1, bs)?;
    let mut gen = PatternGen::new(pattern, refill, pool, 1, 0);
    let mut bufs = (0..BUFFERS)
        .map(|_| AlignedBuf::new(bs))
        .collect::<std::io::Result<Vec<AlignedBuf>>>()?;
    let wall = Instant::now();
    let cpu0 = thread_cpu_seconds();
    let mut writes: u64 = 0;
    while wall.elapsed() < each {
        for buf in &mut bufs {
            let content = gen.next_content();
            gen.render(&content, &mut buf.as_mut_slice()[..bs]);
        }
        writes += BUFFERS as u64;
    }
    std::hint::black_box(&bufs);
    let cpu = (thread_cpu_seconds() - cpu0).max(1e-9);
    let label = if refill {
        format!("{pattern} --refill")
    } else {
        pattern.to_string()
    };
    Ok(Speed {
        label,
        gb_per_s: (writes * bs as u64) as f64 / cpu / 1e9,
        ns_per_write: cpu * 1e9 / writes as f64,
    })
}

/// CPU seconds the calling thread has used.
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}
