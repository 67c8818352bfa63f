//! Counting what the engines did: per-interval counters and latency histograms, and the
//! [`Sample`] each interval becomes.

pub mod cpu;
mod interval;
mod pacing;
mod sample;
pub mod steady;
mod tally;

pub use interval::{DirStats, ErrorEvent, IntervalStats, OpKind};
pub use pacing::{Pacing, PacingSummary, LATE_NS};
pub use sample::{DirSample, LatencySummary, Sample};
pub use tally::LatencyTally;
