//! One module per subcommand; [`run`] holds what measure and soak share.

pub mod erase;
pub mod experiment;
pub mod info;
pub mod measure;
pub mod run;
pub mod selftest;
pub mod sim;
pub mod soak;
