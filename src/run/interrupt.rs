//! Ctrl-C and SIGTERM as a flag a run (or an erase) checks, so it ends cleanly with its results.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Ctrl-C and SIGTERM set the returned flag (the run ends cleanly); a second Ctrl-C exits at once
/// with status 130. Install it once per process and share the flag between runs: every call
/// registers its own handlers.
pub fn install_signal_flag() -> anyhow::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 130, flag.clone())?;
        signal_hook::flag::register(sig, flag.clone())?;
    }
    Ok(flag)
}
