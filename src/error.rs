//! The two kinds of failure the exit status distinguishes.
//!
//! A [`BadInput`] (exit 2) means the user asked for something wrong or unsafe and nothing was
//! written; any other error (exit 1) means the run itself failed.

use std::fmt;

/// Bad input or a safety refusal: one line saying what is wrong and what to do.
#[derive(Debug)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// Returns early with a [`BadInput`] error built like `format!`.
#[macro_export]
macro_rules! bad_input {
    ($($arg:tt)*) => {
        return Err(anyhow::Error::new($crate::error::BadInput(format!($($arg)*))))
    };
}

/// Exit status for an error: 2 for bad input or refusals, 1 for everything else.
pub fn exit_code(err: &anyhow::Error) -> i32 {
    if err.downcast_ref::<BadInput>().is_some() {
        2
    } else {
        1
    }
}
