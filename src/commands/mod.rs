//! One module per subcommand; [`run`] holds what measure and soak share.

pub mod compare;
pub mod erase;
pub mod experiment;
pub mod export;
pub mod fleet;
pub mod group;
pub mod info;
pub mod manual;
pub mod measure;
pub mod plot;
pub mod plp;
pub mod report;
pub mod run;
pub mod runs;
pub mod selftest;
pub mod sim;
pub mod slog;
pub mod soak;
pub mod verify;
