//! Everything the tool shows a person or prints for a script: progress bars and terminal
//! observers of runs ([`run`]), experiments ([`experiment`]) and erases ([`erase`]), an
//! experiment's summary ([`summary`]) and its plan (`--dry-run`, [`plan`]), and the
//! charts and reports drawn when a run ends ([`finish`]). The printing itself (a closed pipe or a
//! full disk is an error, not a panic) is [`crate::console`].

pub mod erase;
pub mod examples;
pub mod experiment;
pub mod export;
pub mod finish;
pub mod fleet;
pub mod manual;
pub mod plan;
pub mod run;
pub mod summary;

/// The terminal lines several targets share (one per target of a group).
pub use indicatif::MultiProgress;

pub use crate::console::OutputFailed;
