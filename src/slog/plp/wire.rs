//! The protocol's text, shared by the listener and its clients: lines read with a bound, session
//! names that stay as distinct as the targets they name, session tokens, and peer text shown
//! shortened in messages.

use std::io::{BufRead, Read};

/// The longest line either end accepts, newline excluded.
pub const MAX_LINE: usize = 1024;
/// The longest session name (an encoded target).
pub const MAX_NAME: usize = 600;
/// Hex digits of a session token (128 random bits).
const TOKEN_DIGITS: usize = 32;

/// One line read from the peer.
pub enum Line {
    Text(String),
    /// The peer closed the connection (a last line without a newline is dropped).
    End,
    /// Longer than [`MAX_LINE`]: the rest was not read.
    TooLong,
    /// Not UTF-8, or holds control characters.
    NotText,
}

/// Reads one line, never more than [`MAX_LINE`] + 1 bytes.
pub fn read_line(reader: &mut impl BufRead) -> std::io::Result<Line> {
    let mut buf = Vec::new();
    reader
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if buf.last() != Some(&b'\n') {
        return Ok(if buf.len() > MAX_LINE {
            Line::TooLong
        } else {
            Line::End
        });
    }
    buf.pop();
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(match String::from_utf8(buf) {
        Ok(text) if !text.chars().any(char::is_control) => Line::Text(text),
        _ => Line::NotText,
    })
}

fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_.,:=/+@".contains(&b)
}

/// The session name of a target: its bytes, with every byte outside a plain set (space, `%`,
/// anything non-ASCII) written as `%XX`, so two different targets never share a name.
pub fn session_name(target: &str) -> String {
    let mut name = String::with_capacity(target.len());
    for b in target.bytes() {
        if plain(b) {
            name.push(b as char);
        } else {
            name.push_str(&format!("%{b:02X}"));
        }
    }
    name
}

/// Whether `name` could be a session name.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME && name.bytes().all(|b| plain(b) || b == b'%')
}

/// A new session token: 128 bits from the kernel's random source, in hex.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; TOKEN_DIGITS / 2];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `token` has a token's form (it is also a file name in the listener's directory).
pub fn valid_token(token: &str) -> bool {
    token.len() == TOKEN_DIGITS
        && token
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Peer text as a message shows it: at most 200 characters, control characters as `?`.
pub fn shown(text: &str) -> String {
    let mut s: String = text
        .chars()
        .take(200)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().nth(200).is_some() {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_that_differ_keep_different_session_names() {
        // Also names that differ only in case, Unicode normalisation (NFC é, NFD e + ◌́) or a
        // trailing space: nothing is folded.
        let targets = [
            "a b",
            "a_b",
            "a%20b",
            "a\tb",
            "a  b",
            "é",
            "%C3%A9",
            "A b",
            "e\u{301}",
            "a b ",
            "a b\u{a0}",
        ];
        let names: std::collections::HashSet<String> =
            targets.iter().map(|t| session_name(t)).collect();
        assert_eq!(names.len(), targets.len());
        assert!(names.iter().all(|n| valid_name(n)));
    }

    #[test]
    fn a_line_longer_than_the_bound_is_not_read_whole() {
        let long = format!("{}\nok\n", "x".repeat(MAX_LINE + 1));
        let mut r = std::io::Cursor::new(long.as_bytes());
        assert!(matches!(read_line(&mut r).unwrap(), Line::TooLong));
        let exact = format!("{}\n", "y".repeat(MAX_LINE));
        let mut r = std::io::Cursor::new(exact.as_bytes());
        assert!(matches!(read_line(&mut r).unwrap(), Line::Text(t) if t.len() == MAX_LINE));
        let mut r = std::io::Cursor::new(&b"a\x1b[2Jb\n"[..]);
        assert!(matches!(read_line(&mut r).unwrap(), Line::NotText));
    }

    #[test]
    fn peer_text_is_shown_short_and_without_control_characters() {
        assert_eq!(shown("a\u{1b}b"), "a?b");
        assert_eq!(shown(&"z".repeat(500)).chars().count(), 201);
    }
}
