//! How fast this machine generates write data, per core, for one pattern (`ssdfade selftest`
//! prints it for every pattern). The figure is CPU time of the generating thread, so other load
//! on the machine does not lower it much.

use std::time::{Duration, Instant};

use super::{make_pool, Pattern, PatternGen};

/// Buffers written in turn, as a ring of in-flight I/O would use them.
pub const BUFFERS: usize = 32;
/// What the default pattern must reach per core (issue 3).
pub const REQUIRED_GB_PER_S: f64 = 4.0;

/// One pattern's generation speed.
pub struct Speed {
    pub label: String,
    /// 10^9 bytes per second of the generating thread's CPU time.
    pub gb_per_s: f64,
    /// CPU nanoseconds to generate one write.
    pub ns_per_write: f64,
}

/// Generates writes of `pattern` for about `each` and returns the speed.
pub fn measure(pattern: Pattern, refill: bool, bs: usize, each: Duration) -> anyhow::Result<Speed> {
    let pool = make_pool(1, bs)?;
    let mut gen = PatternGen::new(pattern, refill, pool, 1, 0);
    let mut bufs = vec![vec![0u8; bs]; BUFFERS];
    let wall = Instant::now();
    let cpu0 = thread_cpu_seconds();
    let mut writes: u64 = 0;
    while wall.elapsed() < each {
        for buf in &mut bufs {
            let content = gen.next_content();
            gen.render(&content, &mut buf[..bs]);
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
