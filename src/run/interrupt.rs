//! Ctrl-C and SIGTERM as a flag a run (or an erase) checks, so it ends cleanly with its results.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// The first Ctrl-C or SIGTERM sets the returned flag (the run ends cleanly after the interval in
/// progress); a second one exits at once with status 130, after rewriting every record still
/// saying "running" as interrupted (samples already taken stay on disk). Install it once per
/// process and share the flag between runs.
pub fn install_signal_flag() -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    let seen = flag.clone();
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for _ in signals.forever() {
                if seen.swap(true, Ordering::SeqCst) {
                    crate::results::record::write_last_words_and_exit();
                }
            }
        })?;
    Ok(flag)
}
