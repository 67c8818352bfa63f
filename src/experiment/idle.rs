//! The idle phase: the drive stays powered with no host I/O. A real drive is left alone (the
//! tool sleeps, watching for Ctrl-C); a simulated drive runs its idle-time work for that long
//! ([`crate::sim::SimDevice::idle`]: background garbage collection refills the free pool,
//! power-on time advances so the throttling debt falls, an SLC cache folds).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::RunEnd;
use crate::sim::{is_sim_target, SimDrive};

/// Leaves `target` idle for `seconds` (simulated seconds for a simulated drive).
pub fn idle(target: &str, seconds: f64, interrupt: &Arc<AtomicBool>) -> anyhow::Result<RunEnd> {
    if is_sim_target(target) {
        SimDrive::open_kept(target, "idle time")?.idle(Duration::from_secs_f64(seconds))?;
        return Ok(RunEnd::Completed);
    }
    let until = Instant::now() + Duration::from_secs_f64(seconds);
    while Instant::now() < until {
        if interrupt.load(Ordering::Relaxed) {
            return Ok(RunEnd::Interrupted);
        }
        let left = until.saturating_duration_since(Instant::now());
        std::thread::sleep(left.min(Duration::from_millis(100)));
    }
    Ok(RunEnd::Completed)
}
