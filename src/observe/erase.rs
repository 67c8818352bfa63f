//! What an erase tells whoever watches it (a progress bar, an experiment's log): that it
//! started, and how far a device erase has got.

use std::path::Path;

use crate::results::EraseRecord;

/// How far an erase is, for whoever shows it (the terminal's bar lives in `output/`).
pub trait Progress {
    /// The work ahead, in the units of [`Progress::set_position`].
    fn set_length(&self, _total: u64) {}
    fn set_position(&self, _done: u64) {}
    /// What the erase is doing now.
    fn set_message(&self, _what: &str) {}
    /// The erase is done or stopped: clear what is shown.
    fn finish(&self) {}
}

/// Shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {}

/// Watches an erase (a progress bar, an experiment's log).
pub trait EraseObserver {
    /// The gates passed and erase.json exists (notes in `record.notes`): the erase starts now.
    fn started(&mut self, _dir: &Path, _record: &EraseRecord) {}
    /// What a device erase reports its progress to (asked for just before the first command
    /// is sent).
    fn progress(&mut self) -> Box<dyn Progress> {
        Box::new(NoProgress)
    }
}

/// Watches nothing.
pub struct NoEraseProgress;

impl EraseObserver for NoEraseProgress {}
