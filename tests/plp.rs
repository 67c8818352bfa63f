//! The power-loss check on loopback (127.0.0.1 only): a listener, `plp write`, a (simulated)
//! power cut, `plp verify`. Protected and write-through drives pass; a lying cache is caught;
//! a volatile cache keeps what was flushed and loses what was not; damage to a real file's
//! records is found as lost or torn.

mod common;

use std::io::BufRead;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Child, Stdio};

use common::{json_ok, ssdfade};
use serde_json::Value;

/// A listener child process on 127.0.0.1, killed when dropped.
struct Listener {
    child: Child,
    addr: String,
}

impl Listener {
    fn start(dir: &Path) -> Listener {
        let mut child = ssdfade(dir)
            .args(["plp", "listen", "--bind", "127.0.0.1", "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("listener said '{line}'"))
            .to_string();
        Listener { child, addr }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn write(dir: &Path, target: &str, log: &str, extra: &[&str]) -> String {
    let out = ssdfade(dir)
        .args(["plp", "write", target, "--log", log, "--duration", "1s"])
        .args(["--seed", "11"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "plp write {target}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs verify, returns its exit code and plp.json.
fn verify(dir: &Path, target: &str, log: &str, out: &str) -> (i32, Value) {
    let status = ssdfade(dir)
        .args([
            "plp", "verify", target, "--log", log, "--out", out, "--json",
        ])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&status.stdout).unwrap_or_else(|e| {
        panic!(
            "verify printed no JSON ({e}): {}",
            String::from_utf8_lossy(&status.stderr)
        )
    });
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(out).join("plp.json")).unwrap())
            .unwrap();
    assert_eq!(recorded, report);
    (status.status.code().unwrap(), report)
}

/// `ssdfade sim power-cut TARGET`: the acknowledged 4 KiB writes it says were lost
/// (full-size drive units).
fn power_cut(dir: &Path, target: &str) -> u64 {
    let out = ssdfade(dir)
        .args(["sim", "power-cut", target])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{said}");
    said.split("): ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("power-cut said '{said}'"))
}

/// Acknowledged records from the writer's line `wrote N records (M acknowledged)…`.
fn acknowledged(stdout: &str) -> u64 {
    stdout
        .split('(')
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("writer said '{stdout}'"))
}

#[test]
fn simulated_drives_pass_or_are_caught_by_their_cache_mode() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let log = listener.addr.as_str();
    for (cache, flush, passes) in [
        ("plp", true, true),
        ("none", true, true),
        ("volatile", true, true),
        ("lying", true, false),
        ("volatile", false, false),
    ] {
        let state = dir.path().join(format!("{cache}-{flush}.state"));
        let target = format!(
            "sim:vertex2-60g,aged=0s,scale=64,cache={cache},state={}",
            state.display()
        );
        let extra: &[&str] = if flush { &[] } else { &["--no-flush"] };
        let said = write(dir.path(), &target, log, extra);
        let acked = acknowledged(&said);
        assert!(acked > 100, "{said}");
        // The power goes between write and verify.
        let cut = power_cut(dir.path(), &target);
        let out = format!("verify-{cache}-{flush}");
        let (code, r) = verify(dir.path(), &target, log, &out);
        let lost = r["lost"].as_array().unwrap();
        // Each slot holds its latest record: the listener checks one per slot written.
        let slots = r["acknowledged"].as_u64().unwrap();
        assert!(slots > 0 && slots <= acked);
        assert_eq!(
            r["intact"].as_u64().unwrap()
                + r["newer_in_flight"].as_u64().unwrap()
                + lost.len() as u64
                + r["torn"].as_array().unwrap().len() as u64,
            slots
        );
        if passes {
            assert_eq!(code, 0, "cache={cache} flush={flush}: {r}");
            // Flushed (or protected) writes were no longer in a volatile cache to lose.
            assert_eq!(cut, 0, "cache={cache}");
            assert!(lost.is_empty());
        } else {
            assert_eq!(code, 1, "cache={cache} flush={flush}");
            // The power cut took what the cache held: 4 MiB = 1024 writes of the full-size
            // drive, 16 simulated ones at scale 64 — the last ones acknowledged.
            assert_eq!(cut, 1024, "cache={cache} flush={flush}");
            assert!(!lost.is_empty() && lost.len() as u64 <= cut / 64);
            for l in lost {
                let before = l["acknowledged_s_before_end"].as_f64().unwrap();
                assert!((0.0..0.5).contains(&before), "{l}");
            }
        }
    }
}

#[test]
fn a_failed_check_makes_the_slog_verdict_unsuitable() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let state = dir.path().join("lying.state");
    let target = format!("sim:dc-ssd-400g,cache=lying,state={}", state.display());
    write(dir.path(), &target, &listener.addr, &[]);
    assert!(power_cut(dir.path(), &target) > 0);
    let (code, r) = verify(dir.path(), &target, &listener.addr, "check");
    assert_eq!(code, 1);
    let lost = r["lost"].as_array().unwrap().len();
    let slog = json_ok(ssdfade(dir.path()).args([
        "slog",
        &target,
        "--sustain",
        "0",
        "--max-size",
        "4k",
        "--from",
        "check",
        "--out",
        "slog",
        "--json",
    ]));
    assert_eq!(slog["verdict"]["rating"], "unsuitable");
    let reason = &slog["verdict"]["reasons"][2];
    assert_eq!(reason["topic"], "power-loss check");
    assert_eq!(reason["rating"], "unsuitable");
    assert_eq!(
        reason["value"],
        format!(
            "{lost} of {} acknowledged records lost, 0 torn",
            r["acknowledged"]
        )
    );
    // Without it, the same fast lying drive would have passed on latency alone.
    assert_eq!(slog["verdict"]["reasons"][0]["rating"], "suitable");
}

#[test]
fn a_file_survives_and_damage_is_reported_as_lost_or_torn() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let file = dir.path().join("plp.img");
    let target = file.to_str().unwrap();
    // An existing file is refused without confirmation.
    std::fs::write(&file, vec![1u8; 4096]).unwrap();
    let out = ssdfade(dir.path())
        .args(["plp", "write", target, "--log", &listener.addr])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_file(&file).unwrap();

    write(dir.path(), target, &listener.addr, &["--size", "8M"]);
    let (code, r) = verify(dir.path(), target, &listener.addr, "ok");
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["intact"], r["acknowledged"]);

    // Find two slots holding records, zero one and flip a byte in the other.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&file)
        .unwrap();
    let mut slots = Vec::new();
    let mut buf = vec![0u8; 4096];
    for slot in 0..2048u64 {
        f.read_exact_at(&mut buf, slot * 4096).unwrap();
        if &buf[..8] == b"SSDFPLP1" {
            slots.push(slot);
        }
        if slots.len() == 2 {
            break;
        }
    }
    f.write_all_at(&[0u8; 4096], slots[0] * 4096).unwrap();
    f.read_exact_at(&mut buf, slots[1] * 4096).unwrap();
    buf[100] ^= 0xff;
    f.write_all_at(&buf, slots[1] * 4096).unwrap();
    f.sync_all().unwrap();
    let (code, r) = verify(dir.path(), target, &listener.addr, "damaged");
    assert_eq!(code, 1);
    let lost = r["lost"].as_array().unwrap();
    let torn = r["torn"].as_array().unwrap();
    assert_eq!(lost.len(), 1, "{r}");
    assert_eq!(torn.len(), 1, "{r}");
    assert_eq!(lost[0]["slot"], slots[0]);
    assert_eq!(lost[0]["found"], "no record");
    assert_eq!(torn[0]["slot"], slots[1]);
}

#[test]
fn verify_without_a_session_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let out = ssdfade(dir.path())
        .args([
            "plp",
            "verify",
            "sim:ram-8g,state=x",
            "--log",
            &listener.addr,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has nothing for"), "{err}");
    let out = ssdfade(dir.path())
        .args(["plp", "write", "sim:ram-8g", "--log", &listener.addr])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("state="));
}
