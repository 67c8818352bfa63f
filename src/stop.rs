//! A process-wide request to stop, for long computations that are handed no flag of their own
//! (the steady-state model's drive, a twin's fit): Ctrl-C, SIGTERM and SIGHUP set it (see
//! `run::install_signal_flag`), and such a computation checks it often enough to give up within
//! a second, leaving its caller to end as interrupted (exit 130).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The flag, shared with the engines such a computation runs.
pub fn flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
        .clone()
}

/// When the first stop was asked for.
static ASKED: OnceLock<Instant> = OnceLock::new();

/// Asks every long computation of this process to give up.
pub fn request() {
    let _ = ASKED.set(Instant::now());
    flag().store(true, Ordering::SeqCst);
}

/// How long ago the first stop was asked for (`None`: not asked). Work done after a signal
/// (saving a simulated drive) measures its budget from here, so the process ends within a
/// second of the signal whatever ran before.
pub fn asked_ago() -> Option<Duration> {
    ASKED.get().map(Instant::elapsed)
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    flag().load(Ordering::Relaxed)
}
