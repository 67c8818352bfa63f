//! Counting what the engines did: per-interval counters and latency histograms, and the
//! [`Sample`] each interval becomes.

pub mod cpu;
mod interval;
mod pacing;
mod sample;
pub mod steady;
mod tally;
pub mod throttled;

pub use interval::{DirStats, ErrorEvent, IntervalStats, OpKind, MAX_TRACKED_NS};
pub use pacing::{Pacing, PacingSummary, LATE_NS};
pub use sample::{DirSample, LatencySummary, Sample};
pub use tally::LatencyTally;

/// An interval, or a steady-state round, is whole when it ran at least this share of its
/// length: a run's last one, cut short by its end (a byte budget, a time limit, Ctrl-C), is
/// not, and no figure takes it as a measurement of the drive (a chart leaves it out or draws
/// it as partial; it is no round of SNIA's window).
pub const WHOLE_SHARE: f64 = 0.99;
