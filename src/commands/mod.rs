//! One module per subcommand; [`run`] holds what measure and soak share.

pub mod measure;
pub mod run;
pub mod sim;
pub mod soak;
