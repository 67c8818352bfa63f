//! Standard output that reports a closed pipe or a full disk as an error instead of panicking
//! (`println!` panics on both). Commands print with [`outln!`](crate::outln) and
//! [`out!`](crate::out), which return `anyhow::Result<()>`; `main` turns an [`OutputFailed`]
//! into a quiet non-zero exit. Notes and progress lines for a person go to standard error
//! through [`note!`](crate::note), which ignores a closed or full stderr: a soak must go on
//! when nobody reads them (`eprintln!` panics). A leaf: every layer may print.
//!
//! Everything printed passes [`visible`]: a target name, a drive model or a path from a record
//! that holds terminal escape sequences is shown as text (`\u{1b}[2J`), never obeyed.

use std::fmt;
use std::io::Write;

/// Writing to standard output failed (EPIPE when the reader went away, ENOSPC on a full disk).
#[derive(Debug)]
pub struct OutputFailed(pub std::io::Error);

impl OutputFailed {
    /// True when the reader closed the pipe (`| head -1`): nothing is worth saying then.
    pub fn is_broken_pipe(&self) -> bool {
        self.0.kind() == std::io::ErrorKind::BrokenPipe
    }
}

impl fmt::Display for OutputFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for OutputFailed {}

/// `text` with every control character but a newline or a tab, and every character that
/// reorders text on screen (bidirectional overrides), written as its Rust escape (`\u{1b}`): safe
/// to print on a terminal or to put in a report, whatever a record or a command line held.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| (c.is_control() && c != '\n' && c != '\t') || reorders(c);
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `c` reorders the text around it on screen (a bidirectional embedding, override or
/// isolate): shown escaped wherever text from a record or a command line is printed.
pub fn reorders(c: char) -> bool {
    ('\u{202a}'..='\u{202e}').contains(&c) || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `text` on one line: every control character, line breaks and tabs too, written as its Rust
/// escape (`\u{a}`). For a string from a record that a report puts in a heading, a table cell
/// or a list item, where a line break would start a line of its own (a forged `Drive:` line).
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes formatted text to standard output and flushes it, so a failure shows here.
pub fn write_fmt(args: fmt::Arguments<'_>) -> anyhow::Result<()> {
    let text = args.to_string();
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(visible(&text).as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| anyhow::Error::new(OutputFailed(e)))
}

/// Like `print!`, but returns `anyhow::Result<()>` instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::console::write_fmt(format_args!($($arg)*))
    };
}

/// Like `println!`, but returns `anyhow::Result<()>` instead of panicking.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::console::write_fmt(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::console::write_fmt(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes formatted text to standard error, ignoring failure (see [`note!`](crate::note)).
pub fn note_fmt(args: fmt::Arguments<'_>) {
    let text = args.to_string();
    let mut stderr = std::io::stderr().lock();
    // Nobody reading stderr is no reason to stop a run.
    let _ = stderr
        .write_all(visible(&text).as_bytes())
        .and_then(|()| stderr.flush());
}

/// Like `eprintln!`, but a closed or full standard error is ignored instead of panicking.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::console::note_fmt(format_args!("{}\n", format_args!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn escape_sequences_and_overrides_are_shown_not_obeyed() {
        assert_eq!(super::visible("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            super::visible("model \u{1b}[2J\u{7}x\u{9b}1m\u{202e}y\r"),
            "model \\u{1b}[2J\\u{7}x\\u{9b}1m\\u{202e}y\\u{d}"
        );
    }
}
