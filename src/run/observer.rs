//! What a run tells whoever watches it: its start, every interval sample, its end.

use std::path::Path;

use crate::engine::RunEnd;
use crate::results::RunInfo;
use crate::stats::Sample;

/// Watches a run as it goes (a progress bar, an experiment's log). Every method does nothing
/// unless implemented; the samples are already in the run directory when it is called.
pub trait RunObserver {
    /// The run directory exists and the engine is about to start.
    fn started(&mut self, _dir: &Path, _info: &RunInfo) {}
    /// One interval was recorded.
    fn sample(&mut self, _sample: &Sample) {}
    /// The engine stopped; run.json is written next.
    fn finished(&mut self, _end: &RunEnd) {}
}

/// Watches nothing: for runs without a display.
pub struct NoProgress;

impl RunObserver for NoProgress {}
