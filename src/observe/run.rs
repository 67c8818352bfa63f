//! What a run tells whoever watches it (a progress bar, an exporter): its start, every interval
//! sample, its end.

use std::path::Path;

use crate::drive::DriveInfo;
use crate::drive::RunEnd;
use crate::results::RunInfo;
use crate::stats::steady::SteadyState;
use crate::stats::Sample;

/// Watches a run as it goes (a progress bar, an experiment's log). Every method does nothing
/// unless implemented; the samples are already in the run directory when it is called.
pub trait RunObserver {
    /// The run directory exists and the engine is about to start.
    fn started(&mut self, _dir: &Path, _info: &RunInfo) {}
    /// One interval was recorded.
    fn sample(&mut self, _sample: &Sample) {}
    /// SNIA steady state was reached: called once, at the interval that completed the steady
    /// window (before that sample is passed on), or at the start of a continued run that had
    /// reached it already. `state` is what run.json will record.
    fn steady_reached(&mut self, _state: &SteadyState) {}
    /// The steady state was predicted again (after each SNIA round once the first cliff is
    /// passed); `p` is what run.json will record if it is the last.
    fn predicted(&mut self, _p: &crate::results::Prediction) {}
    /// The engine stopped; run.json is written next.
    fn finished(&mut self, _end: &RunEnd) {}
    /// The drive as read again after the run (identity and wear), just before run.json is
    /// written; not called when it cannot be read.
    fn drive_after(&mut self, _drive: &DriveInfo) {}
}

/// Watches nothing: for runs without a display.
pub struct NoProgress;

impl RunObserver for NoProgress {}
