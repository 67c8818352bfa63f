//! ssdfade: soak-test SSDs and tell how they fade and recover.
//!
//! The pipeline: [`target`] → [`workload`] + [`pattern`] → [`engine`] → [`stats`] →
//! [`results`] (the run directory), tied together by [`run`] and driven by [`commands`].

pub mod analysis;
pub mod cli;
pub mod commands;
pub mod console;
pub mod device;
pub mod drive;
pub mod engine;
pub mod erase;
pub mod error;
pub mod experiment;
pub mod group;
pub mod holder;
pub mod made_dir;
pub mod metrics;
pub mod observe;
pub mod outfile;
pub mod output;
pub mod pattern;
pub mod plot;
pub mod protocol;
pub mod report;
pub mod results;
pub mod run;
pub mod sim;
pub mod slog;
pub mod stats;
pub mod stop;
pub mod text;

pub mod units;
pub mod verify;
pub mod workload;
