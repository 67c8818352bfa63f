//! Parsing a record file's JSON, bounded: every string in it (a target path, a drive identity,
//! a command word, a tool's output) is at most [`MAX_STRING`] bytes, so that no edited or
//! crafted record can make a report, a chart or an error line carry a megabyte of text. A
//! record that does not parse or holds a longer string is bad input naming the file and field.

use std::fmt::Write;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::bad_input;

/// The longest string a record holds: longer than any path (4096) or command word the tool
/// writes, and than the tail of a tool's output an erase keeps.
pub const MAX_STRING: usize = 16 * 1024;

/// `text`, the contents of the record at `path`, as a `T`; damage, or a string longer than
/// [`MAX_STRING`], is bad input naming the file (and the field).
pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> anyhow::Result<T> {
    let value = parse_value(path, text)?;
    drop(value);
    // Parsed again from the text, not the value: a duplicate key stays an error.
    match serde_json::from_str(text) {
        Ok(record) => Ok(record),
        Err(e) => bad_input!(
            "{} is damaged ({e}): the record was edited or is damaged",
            path.display()
        ),
    }
}

/// `text` as a JSON value whose strings are all within [`MAX_STRING`] bytes.
pub fn parse_value(path: &Path, text: &str) -> anyhow::Result<Value> {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => bad_input!(
            "{} is damaged ({e}): the record was edited or is damaged",
            path.display()
        ),
    };
    let mut field = String::new();
    if let Some(len) = longest_over(&value, &mut field) {
        bad_input!(
            "{}: {} holds a string of {len} bytes, more than the {MAX_STRING} any record holds: the record was edited or is damaged",
            path.display(),
            if field.is_empty() { "the record" } else { &field }
        );
    }
    Ok(value)
}

/// The length of the first string in `v` longer than [`MAX_STRING`] (a key or a value), with
/// `field` left naming where it is (`target.path`, `phases[2].dir`).
fn longest_over(v: &Value, field: &mut String) -> Option<usize> {
    match v {
        Value::String(s) => (s.len() > MAX_STRING).then_some(s.len()),
        Value::Array(items) => items.iter().enumerate().find_map(|(i, x)| {
            let len = field.len();
            let _ = write!(field, "[{i}]");
            let found = longest_over(x, field);
            if found.is_none() {
                field.truncate(len);
            }
            found
        }),
        Value::Object(map) => map.iter().find_map(|(k, x)| {
            if k.len() > MAX_STRING {
                return Some(k.len());
            }
            let len = field.len();
            if !field.is_empty() {
                field.push('.');
            }
            field.push_str(k);
            let found = longest_over(x, field);
            if found.is_none() {
                field.truncate(len);
            }
            found
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_longer_than_the_bound_is_refused_naming_its_field() {
        let path = Path::new("run.json");
        let ok = serde_json::json!({"target": {"path": "x".repeat(MAX_STRING)}}).to_string();
        assert!(parse_value(path, &ok).is_ok());
        let long = serde_json::json!({"a": 1, "target": {"path": "x".repeat(MAX_STRING + 1)}});
        let why = parse_value(path, &long.to_string())
            .unwrap_err()
            .to_string();
        assert!(
            why.starts_with("run.json: target.path holds a string of 16385 bytes"),
            "{why}"
        );
        let in_list = serde_json::json!({"phases": [{"dir": "a"}, {"dir": "y".repeat(1 << 20)}]});
        let why = parse_value(path, &in_list.to_string())
            .unwrap_err()
            .to_string();
        assert!(
            why.contains("phases[1].dir holds a string of 1048576 bytes"),
            "{why}"
        );
        assert!(why.len() < 300, "{why}");
    }

    #[test]
    fn a_duplicate_key_stays_an_error() {
        #[derive(serde::Deserialize)]
        struct R {
            a: u32,
        }
        assert_eq!(parse::<R>(Path::new("r.json"), r#"{"a": 1}"#).unwrap().a, 1);
        let why = parse::<R>(Path::new("r.json"), r#"{"a": 1, "a": 2}"#)
            .err()
            .unwrap();
        assert!(why.to_string().contains("duplicate field"), "{why}");
    }
}
