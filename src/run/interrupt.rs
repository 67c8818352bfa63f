//! Ctrl-C, SIGTERM and SIGHUP as a flag a run (or an erase) checks, so it ends cleanly with its
//! results, and which of them it was, for the record.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// The first signal that set the flag (0: none yet).
static FIRST: AtomicI32 = AtomicI32::new(0);

/// The first Ctrl-C, SIGTERM or SIGHUP (the terminal went away: an SSH session dropped) sets the
/// returned flag (the run ends cleanly after the interval in progress, resumable); a second one
/// exits at once with status 130, after rewriting every record still saying "running" as
/// interrupted (samples already taken stay on disk). A process started with SIGHUP ignored
/// (`nohup`, a detached start) keeps ignoring it. Install it once per process and share the
/// flag between runs.
pub fn install_signal_flag() -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let mut wanted = vec![SIGINT, SIGTERM];
    if !ignored(SIGHUP) {
        wanted.push(SIGHUP);
    }
    let mut signals = Signals::new(wanted)?;
    let seen = flag.clone();
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                let _ = FIRST.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
                crate::observe::finish::stop_drawing();
                crate::stop::request();
                if seen.swap(true, Ordering::SeqCst) {
                    crate::results::record::write_last_words_and_exit();
                }
            }
        })?;
    Ok(flag)
}

/// The signal that interrupted this process, as a record names it: `interrupt` (Ctrl-C),
/// `terminate` (SIGTERM) or `hangup` (SIGHUP); `None` when no signal arrived (a library caller
/// set the flag itself).
pub fn interrupted_by() -> Option<String> {
    name(FIRST.load(Ordering::SeqCst)).map(str::to_string)
}

fn name(signal: i32) -> Option<&'static str> {
    match signal {
        SIGINT => Some("interrupt"),
        SIGTERM => Some("terminate"),
        SIGHUP => Some("hangup"),
        _ => None,
    }
}

/// Whether `signal` is ignored in this process (inherited from a `nohup` parent).
fn ignored(signal: i32) -> bool {
    // SAFETY: sigaction with a null new action only reads the current one into `old`.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_signal_has_its_name_for_the_record() {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        assert_eq!(super::name(SIGHUP), Some("hangup"));
        assert_eq!(super::name(SIGTERM), Some("terminate"));
        assert_eq!(super::name(SIGINT), Some("interrupt"));
        assert_eq!(super::name(0), None);
    }
}
