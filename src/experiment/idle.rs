//! The idle phase: the drive stays powered with no host I/O. A real drive is left alone (the
//! tool sleeps, watching for Ctrl-C); a simulated drive runs its idle-time work for that long
//! ([`crate::sim::SimDevice::idle`]: background garbage collection refills the free pool,
//! power-on time advances so the throttling debt falls, an SLC cache folds).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::drive::RunEnd;

/// Leaves `target` idle for `seconds` (simulated seconds for a simulated drive).
pub fn idle(target: &str, seconds: f64, interrupt: &Arc<AtomicBool>) -> anyhow::Result<RunEnd> {
    crate::device::open(target)?.idle(seconds, interrupt)
}
