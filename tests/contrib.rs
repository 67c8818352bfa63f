//! What ships beside the binary in contrib/: the systemd unit stays hardened.

mod common;

use std::path::Path;
use std::process::Command;

use common::skip;

/// `systemd-analyze security --offline` rates the unit well below 5 (its scale runs from 0,
/// safe, to 10, unsafe); an instance name is given since a template cannot be analysed.
#[test]
fn the_systemd_unit_is_rated_safe() {
    let unit = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/systemd/ssdfade-soak@.service");
    let dir = tempfile::tempdir().unwrap();
    let instance = dir.path().join("ssdfade-soak@check.service");
    std::fs::copy(&unit, &instance).unwrap();
    let Ok(out) = Command::new("systemd-analyze")
        .args(["security", "--offline=true", "--no-pager"])
        .arg(&instance)
        .output()
    else {
        skip(
            "the_systemd_unit_is_rated_safe",
            "no systemd-analyze on this machine",
        );
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let level = text
        .lines()
        .find_map(|l| {
            l.split_once("Overall exposure level for ")?
                .1
                .split_once(": ")
        })
        .and_then(|(_, rest)| rest.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no exposure level in: {text}"));
    assert!(
        level <= 3.0,
        "the unit's exposure level is {level}:\n{text}"
    );
}
