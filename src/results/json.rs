//! Parsing a record file's JSON, bounded: every string in it (a target path, a drive identity,
//! a command word, a tool's output) is at most [`MAX_STRING`] bytes, so that no edited or
//! crafted record can make a report, a chart or an error line carry a megabyte of text. A
//! record that does not parse or holds a longer string is bad input naming the file and field.
//! A record in another format (a twin's TOML) is held to the same bound, and its lists to as
//! many entries. Every number is held to what its field's name says it is
//! ([`super::valid::named_number`]): a time in seconds, a rate, a latency or a percentage out
//! of range (1e30 s, a negative IOPS) is refused the same way, before anything computes a
//! duration or a ratio from it.

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
    check(path, &value, usize::MAX)?;
    Ok(value)
}

/// Refuses `value`, read from `path` in another format than JSON (a twin's TOML), when a
/// string in it is longer than [`MAX_STRING`] bytes or a list holds more than [`MAX_STRING`]
/// entries, like a JSON record.
pub fn check_bounds(path: &Path, value: &Value) -> anyhow::Result<()> {
    check(path, value, MAX_STRING)
}

/// Refuses `value` when a string in it is longer than [`MAX_STRING`] bytes, a list holds more
/// than `items` entries or a number is out of its field's range, naming the file and the field.
fn check(path: &Path, value: &Value, items: usize) -> anyhow::Result<()> {
    let mut at = Vec::new();
    if let Some(over) = first_over(value, None, items, &mut at) {
        let field = field_name(&at);
        let (what, len, bound) = match over {
            Over::String(len) => ("a string of", len, "bytes, more than the"),
            Over::List(len) => ("a list of", len, "entries, more than the"),
            Over::Number(why) => bad_input!(
                "{}: {} {why}: the record was edited or is damaged",
                path.display(),
                if field.is_empty() { "a number" } else { &field }
            ),
        };
        bad_input!(
            "{}: {} holds {what} {len} {bound} {MAX_STRING} any record holds: the record was edited or is damaged",
            path.display(),
            if field.is_empty() { "the record" } else { &field }
        );
    }
    Ok(())
}

/// The steps `at` (innermost first) as a field name: `phases[2].dir`.
fn field_name(at: &[Step]) -> String {
    let mut field = String::new();
    for step in at.iter().rev() {
        match step {
            Step::Key(k) if field.is_empty() => field.push_str(k),
            Step::Key(k) => {
                field.push('.');
                field.push_str(k);
            }
            Step::Index(i) => {
                let _ = write!(field, "[{i}]");
            }
        }
    }
    field
}

/// What is too long or out of range.
enum Over {
    /// A string of this many bytes.
    String(usize),
    /// A list of this many entries.
    List(usize),
    /// A number its field cannot hold, and why.
    Number(String),
}

/// One step from a value into a part of it.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The first string in `v` longer than [`MAX_STRING`] (a key or a value) or list longer than
/// `items`, with `at` left holding the steps to it, innermost first (`target.path`,
/// `phases[2].dir`). The steps are named only on the way back from what is found: naming each
/// entry on the way in cost a tenth of a short run's user time on its latency.json.
fn first_over<'a>(
    v: &'a Value,
    key: Option<&str>,
    items: usize,
    at: &mut Vec<Step<'a>>,
) -> Option<Over> {
    match v {
        Value::String(s) => (s.len() > MAX_STRING).then_some(Over::String(s.len())),
        Value::Number(n) => {
            let (key, n) = (key?, n.as_f64()?);
            super::valid::named_number(key, n).err().map(Over::Number)
        }
        Value::Array(list) if list.len() > items => Some(Over::List(list.len())),
        // The entries of a list are held to the list's name (`values` of a SMART attribute).
        Value::Array(list) => list.iter().enumerate().find_map(|(i, x)| {
            let found = first_over(x, key, items, at)?;
            at.push(Step::Index(i));
            Some(found)
        }),
        Value::Object(map) => map.iter().find_map(|(k, x)| {
            if k.len() > MAX_STRING {
                return Some(Over::String(k.len()));
            }
            let found = first_over(x, Some(k), items, at)?;
            at.push(Step::Key(k));
            Some(found)
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
    fn a_number_out_of_its_fields_range_is_refused_naming_it() {
        let path = Path::new("run.json");
        for (bad, field) in [
            (
                r#"{"prediction": {"made_at_s": 1e30}}"#,
                "prediction.made_at_s",
            ),
            (r#"{"summary": {"seconds": -1}}"#, "summary.seconds"),
            (
                r#"{"phases": [{"headline": {"read_iops": -5.0}}]}"#,
                "phases[0].headline.read_iops",
            ),
            (r#"{"x": {"p99_ms": -0.5}}"#, "x.p99_ms"),
            (r#"{"steady": {"range_pct": 1e300}}"#, "steady.range_pct"),
        ] {
            let why = parse_value(path, bad).unwrap_err();
            assert!(why.downcast_ref::<crate::error::BadInput>().is_some());
            assert!(
                why.to_string()
                    .starts_with(&format!("run.json: {field} is ")),
                "{why}"
            );
        }
        for ok in [
            r#"{"steady": {"slope_pct": -3.5}, "t_end_s": 0, "index": 7}"#,
            r#"{"rise_us_per_h": -2.0, "mb_per_s": 17.7}"#,
        ] {
            assert!(parse_value(path, ok).is_ok(), "{ok}");
        }
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
