//! Plain text for terminals: words wrapped to a width, with a hanging indent, and the
//! sentences the measuring layer's progress and summaries share with the report
//! ([`steady`], [`prediction`]), so a figure is worded and rounded the same everywhere.

pub mod prediction;
pub mod steady;

/// `text` in lines of at most `width` columns, broken between words but never after a
/// number (so "450 µs" stays whole): the first line starts with `first`, the others with
/// `rest`; every line ends with a newline. A word longer than the width stands alone on its
/// line. No words, no lines.
pub fn wrap(text: &str, width: usize, first: &str, rest: &str) -> String {
    let mut out = String::new();
    let mut line = String::from(first);
    let mut empty = true;
    for word in unbreakable(text) {
        let word = word.as_str();
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    if !empty {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The words of `text`, each number joined to the word after it.
fn unbreakable(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match words.last_mut() {
            Some(last) if last.ends_with(|c: char| c.is_ascii_digit()) => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_break_between_words_within_the_width_under_their_indents() {
        let text = "one two three four five six seven eight nine ten";
        let out = wrap(text, 16, "- ", "    ");
        assert_eq!(
            out,
            "- one two three\n    four five\n    six seven\n    eight nine\n    ten\n"
        );
        assert!(out.lines().all(|l| l.chars().count() <= 16), "{out}");
        assert_eq!(wrap("   ", 16, "- ", "  "), "");
        assert_eq!(
            wrap("unbreakable-long-word x", 8, "", ""),
            "unbreakable-long-word\nx\n"
        );
        assert_eq!(
            wrap("program 450 µs, erase", 12, "", ""),
            "program\n450 µs,\nerase\n"
        );
    }
}
