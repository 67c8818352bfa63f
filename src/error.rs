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

/// A computation stopped by Ctrl-C, SIGTERM or SIGHUP before it had a result (exit 130): says
/// what was stopped and what was kept.
#[derive(Debug)]
pub struct Interrupted(pub String);

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}

/// The line an error is reported in: its chain of contexts, without the operating system's
/// error numbers (`No such file or directory (os error 2)` reads `No such file or directory`):
/// a sentence for a person, not a code.
pub fn sentence(err: &anyhow::Error) -> String {
    let text = format!("{err:#}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(" (os error ") {
        let after = &rest[at + " (os error ".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            out.push_str(&rest[..at]);
            rest = &after[digits + 1..];
        } else {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// Exit status for an error: 2 for bad input or refusals, 130 for an interruption, 1 for
/// everything else.
pub fn exit_code(err: &anyhow::Error) -> i32 {
    if err.downcast_ref::<BadInput>().is_some() {
        2
    } else if err.downcast_ref::<Interrupted>().is_some() {
        130
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_error_line_carries_no_operating_system_error_numbers() {
        let io = std::io::Error::from_raw_os_error(2);
        let err = anyhow::Error::new(io).context("cannot read run.json (os error x)");
        assert_eq!(
            super::sentence(&err),
            "cannot read run.json (os error x): No such file or directory"
        );
        let bad = anyhow::anyhow!("cannot open a: {} (os error 13)", "denied");
        assert_eq!(super::sentence(&bad), "cannot open a: denied");
    }
}
