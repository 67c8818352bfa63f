//! Figures computed once: turns a loaded run or experiment directory into typed figures
//! (throughput, latency, fade, steady state, the states of an experiment). The terminal, the
//! report, the charts and compare render these figures and never compute their own; each
//! figure's definition is written in docs/charts-and-reports.md ("How figures are defined").

pub mod buckets;
pub mod compare;
pub mod convergence;
pub mod experiment;
pub mod fade;
pub mod fleet;
pub mod fleet_hosts;
pub mod gc_throttle;
pub mod hir;
pub mod latency;
pub mod op_sweep;
pub mod pace;
pub mod predict;
pub mod prediction;
pub mod preset;
pub mod pts;
pub mod run;
pub mod slc_cache;
pub mod slog;
pub mod summary;
pub mod sweep;
pub mod thermal;
pub mod throttle;
pub mod twin;
pub mod unsettled;
pub mod vertex2;
pub mod wa;
pub mod wsat;
pub mod xsr;

pub use experiment::{ExperimentStates, StateFigure};
pub use fade::{Fade, FadeRatio};
pub use pace::Pace;
pub use run::{
    drawn_intervals, first_and_last_full, is_gap, lowest_full, pooled_quantile, Figures,
    SteadyWindow,
};
