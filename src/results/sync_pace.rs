//! Group commit of the lines a run appends (samples.jsonl, latency.hlog): a line reaches stable
//! storage within [`EVERY`] of wall time, and whenever run.json is written, not after each
//! line. A simulated drive hands over hundreds of intervals a second (a garbage-collection stall
//! spans hundreds of empty ones in one batch): an fdatasync per line made a stop wait seconds
//! for that backlog, and a `--bs 3k` whole-drive fill take minutes.

use std::time::{Duration, Instant};

/// The longest a line written stays unsynced while more lines follow.
pub const EVERY: Duration = Duration::from_millis(100);

/// When the file was last synced.
#[derive(Debug, Default)]
pub struct SyncPace {
    last: Option<Instant>,
}

impl SyncPace {
    /// Whether a sync is due after a line was written (the first line's is): true counts it
    /// as done now.
    pub fn due(&mut self) -> bool {
        let now = Instant::now();
        let due = self.last.is_none_or(|at| now.duration_since(at) >= EVERY);
        if due {
            self.last = Some(now);
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_is_synced_and_the_next_ones_wait_for_the_period() {
        let mut pace = SyncPace::default();
        assert!(pace.due());
        assert!(!pace.due());
        pace.last = Some(Instant::now() - EVERY);
        assert!(pace.due());
        assert!(!pace.due());
    }
}
