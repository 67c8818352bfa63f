//! CPU time used by this process, for the CPU % column and CPU time per I/O.

use nix::sys::resource::{getrusage, UsageWho};

/// User plus system CPU seconds this process has used so far.
pub fn process_cpu_seconds() -> f64 {
    match getrusage(UsageWho::RUSAGE_SELF) {
        Ok(u) => {
            let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
            secs(u.user_time()) + secs(u.system_time())
        }
        Err(_) => 0.0,
    }
}

/// Number of CPUs the machine has.
pub fn cpu_count() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
