//! The watchers' side of measuring: what a run, an experiment and an erase tell those who show
//! or export their progress. Measuring calls these traits; output and metrics implement them,
//! so neither imports the other.

pub mod erase;
pub mod experiment;
pub mod finish;
pub mod run;
