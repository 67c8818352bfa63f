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

/// A reader that fails ("stopped by a signal") once a stop was asked for: loading a large file
/// whole (a full-size simulated drive is 118 MB, a verification map tens of MB) took over a
/// second under load, and the process is to end within one. Every read looks at the flag; a
/// buffered reader inside it reads a MiB at a time. (Not `ErrorKind::Interrupted`, which
/// `read_exact` retries.)
pub struct Reader<R> {
    inner: R,
    stop: Arc<AtomicBool>,
}

impl<R> Reader<R> {
    /// Reads `inner` until the process is asked to stop.
    pub fn new(inner: R) -> Reader<R> {
        Reader::watching(inner, flag())
    }

    /// Reads `inner` until `stop` is set.
    pub fn watching(inner: R, stop: Arc<AtomicBool>) -> Reader<R> {
        Reader { inner, stop }
    }
}

impl<R: std::io::Read> std::io::Read for Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("stopped by a signal"));
        }
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    #[test]
    fn a_reader_gives_what_it_wraps_until_a_stop_then_fails() {
        let data: Vec<u8> = (0..=255).collect();
        let stop = Arc::new(AtomicBool::new(false));
        let mut reader = super::Reader::watching(&data[..], stop.clone());
        let mut head = [0u8; 16];
        reader.read_exact(&mut head).unwrap();
        assert_eq!(head.to_vec(), data[..16]);
        stop.store(true, Ordering::Relaxed);
        let err = reader.read_exact(&mut head).unwrap_err();
        assert_eq!(err.to_string(), "stopped by a signal");
    }
}
