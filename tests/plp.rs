//! The power-loss check on loopback (127.0.0.1 only): a listener, `plp write`, a (simulated)
//! power cut, `plp verify`. Protected and write-through drives pass; a lying cache is caught;
//! a volatile cache keeps what was flushed and loses what was not; damage to a real file's
//! records is found as lost or torn; too few records are not tested, never a pass. The
//! listener under hostile use: forged and replayed traffic, overlong lines, more connections
//! than descriptors, a restart; verify against a hostile listener; the writer flushes before it
//! acknowledges (a loop device's flush counter).

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
        Listener::spawn(ssdfade(dir).args(["plp", "listen", "--bind", "127.0.0.1", "--port", "0"]))
    }

    /// Starts `cmd` (a listener) and reads the address it prints first.
    fn spawn(cmd: &mut std::process::Command) -> Listener {
        let mut child = cmd
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

/// Runs `plp write` for 1 s; returns what it printed.
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

/// The session token from the writer's first line `session token T: …`.
fn token(stdout: &str) -> String {
    stdout
        .strip_prefix("session token ")
        .and_then(|s| s.split(':').next())
        .unwrap_or_else(|| panic!("writer said '{stdout}'"))
        .to_string()
}

/// Runs verify with the token `said` (the writer's output) holds; returns its exit code and
/// plp.json.
fn verify(dir: &Path, target: &str, log: &str, said: &str, out: &str) -> (i32, Value) {
    let status = ssdfade(dir)
        .args([
            "plp", "verify", target, "--log", log, "--out", out, "--json",
        ])
        .args(["--token", &token(said)])
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
        .lines()
        .last()
        .unwrap_or_default()
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
        let (code, r) = verify(dir.path(), &target, log, &said, &out);
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
    let said = write(dir.path(), &target, &listener.addr, &[]);
    assert!(power_cut(dir.path(), &target) > 0);
    let (code, r) = verify(dir.path(), &target, &listener.addr, &said, "check");
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
    let value = reason["value"].as_str().unwrap();
    let expect = format!(
        "{lost} of {} acknowledged records lost, 0 torn (",
        r["acknowledged"]
    );
    assert!(value.starts_with(&expect), "{value}");
    assert!(value.ends_with(" s of writing)"), "{value}");
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

    let said = write(dir.path(), target, &listener.addr, &["--size", "8M"]);
    let (code, r) = verify(dir.path(), target, &listener.addr, &said, "ok");
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
    let (code, r) = verify(dir.path(), target, &listener.addr, &said, "damaged");
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
            "--token",
            "0123456789abcdef0123456789abcdef",
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

// ------------------------------------------------------------ hostile use

use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use ssdfade::slog::plp::{decode, encode, wire::session_name, Found, RecordId};

/// A raw connection to a listener.
struct Raw {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Raw {
    fn connect(addr: &str) -> Raw {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        Raw {
            reader: BufReader::new(s.try_clone().unwrap()),
            writer: s,
        }
    }

    /// Sends one line, returns the reply line ("" when the listener closed).
    fn ask(&mut self, line: &str) -> String {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .unwrap();
        self.reply()
    }

    fn reply(&mut self) -> String {
        let mut l = String::new();
        self.reader.read_line(&mut l).unwrap();
        l.trim_end().to_string()
    }

    /// `begin` for `target`; returns the token.
    fn begin(&mut self, target: &str, slots: u64) -> String {
        let r = self.ask(&format!("begin {} {slots} 4096", session_name(target)));
        let t = r
            .strip_prefix("ok ")
            .unwrap_or_else(|| panic!("begin: {r}"));
        assert_eq!(t.len(), 32, "{r}");
        t.to_string()
    }
}

/// A listener played by the test: `serve` answers each connection (in turn, on one thread).
fn fake_listener(serve: impl Fn(BufReader<TcpStream>, TcpStream) + Send + 'static) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            serve(BufReader::new(s.try_clone().unwrap()), s);
        }
    });
    addr
}

/// Runs verify; returns its exit code, stdout and stderr.
fn verify_raw(dir: &Path, target: &str, log: &str, token: &str) -> (i32, String, String) {
    let out = ssdfade(dir)
        .args(["plp", "verify", target, "--log", log, "--token", token])
        .args(["--json", "--out", &format!("v-{token}")])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_check_with_too_few_records_is_not_tested_and_never_makes_a_slog_suitable() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let file = dir.path().join("plp.img");
    std::fs::write(&file, vec![0u8; 65536]).unwrap();
    let target = file.to_str().unwrap();
    // A session that acknowledged nothing (a writer stopped at once, or a forged begin).
    let token = Raw::connect(&listener.addr).begin(target, 16);
    let said = format!("session token {token}: …");
    let (code, r) = verify(dir.path(), target, &listener.addr, &said, "empty");
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["outcome"], "not_tested");
    assert_eq!(r["acknowledged"], 0);
    assert_eq!(r["min_acknowledged"], 100);

    // The slog run is on the device checked (evidence of another one is refused).
    let slog_on = |on: &str, from: &str, out: &str| {
        ssdfade(dir.path())
            .args(["slog", on, "--destroy-data", "plp.img", "--sustain", "0"])
            .args(["--max-size", "4k", "--from", from, "--out", out, "--json"])
            .output()
            .unwrap()
    };
    let slog = |from: &str, out: &str| slog_on("plp.img", from, out);
    let plp_reason = |o: &std::process::Output| {
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        v["verdict"]["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["topic"] == "power-loss check")
            .unwrap()
            .clone()
    };
    let o = slog("empty", "slog-empty");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reason = plp_reason(&o);
    assert!(reason["rating"].is_null(), "{reason}");
    assert_eq!(reason["value"], "not tested");

    // A record edited to claim a pass it does not show is refused.
    let mut forged = r.clone();
    forged["outcome"] = "pass".into();
    std::fs::create_dir(dir.path().join("forged")).unwrap();
    std::fs::write(dir.path().join("forged/plp.json"), forged.to_string()).unwrap();
    let o = slog("forged", "slog-forged");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("plp.json") && err.contains("not what its figures show"),
        "{err}"
    );
    // A record of the time before outcomes, with 0 records, is no evidence either.
    let mut old = r.clone();
    for k in [
        "outcome",
        "min_acknowledged",
        "acknowledged_bytes",
        "records_acknowledged",
        "seconds",
    ] {
        old.as_object_mut().unwrap().remove(k);
    }
    std::fs::create_dir(dir.path().join("old")).unwrap();
    std::fs::write(dir.path().join("old/plp.json"), old.to_string()).unwrap();
    let o = slog("old", "slog-old");
    assert!(plp_reason(&o)["rating"].is_null());

    // Evidence of another device, a check or a soak, is refused before anything is written.
    let other = ssdfade(dir.path())
        .args([
            "soak",
            "sim:ram-8g",
            "--duration",
            "2s",
            "--out",
            "ram-soak",
        ])
        .output()
        .unwrap();
    assert!(other.status.success());
    for (on, from) in [
        ("sim:dc-ssd-400g,cache=lying", "empty"),
        ("plp.img", "ram-soak"),
    ] {
        let o = slog_on(on, from, "slog-other");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!("--from {from}: it was measured on ")),
            "{err}"
        );
        assert!(!dir.path().join("slog-other").exists());
    }
}

#[test]
fn a_forged_begin_neither_resets_nor_reads_the_writers_session() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let file = dir.path().join("plp.img");
    let target = file.to_str().unwrap();
    let said = write(dir.path(), target, &listener.addr, &["--size", "8M"]);
    let acked = acknowledged(&said);
    assert!(acked >= 100, "{said}");
    // Another peer, without the token: the same begin the writer sent, a dump by name, a dump
    // with a made-up token.
    let mut other = Raw::connect(&listener.addr);
    let theirs = other.begin(target, 2048);
    assert_ne!(theirs, token(&said));
    let mut other = Raw::connect(&listener.addr);
    assert!(other
        .ask(&format!("dump {}", session_name(target)))
        .starts_with("err usage"));
    let guess = "0".repeat(32);
    let r = other.ask(&format!("dump {} {guess}", session_name(target)));
    assert!(r.starts_with("err no session"), "{r}");
    let r = other.ask(&format!("dump {} ../../etc/passwd", session_name(target)));
    assert!(r.starts_with("err no session"), "{r}");
    // The writer's session is whole.
    let (code, r) = verify(dir.path(), target, &listener.addr, &said, "after");
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["outcome"], "pass");
    assert_eq!(r["records_acknowledged"], acked);
    assert!(r["acknowledged"].as_u64().unwrap() >= 100);
    assert_eq!(
        r["acknowledged_bytes"],
        r["acknowledged"].as_u64().unwrap() * 4096
    );
    assert!(r["seconds"].as_f64().unwrap() >= 0.9, "{r}");
}

#[test]
fn replayed_and_out_of_order_messages_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let mut w = Raw::connect(&listener.addr);
    let token = w.begin("t", 4);
    for (line, ok) in [
        ("pre 1 0 7", true),
        ("post 1 0 7", true),
        ("post 1 0 7", false), // replayed post
        ("pre 1 0 7", false),  // replayed pre
        ("post 2 1 5", false), // a post without its pre
        ("pre 3 1 5", false),  // a skipped number
        ("pre 2 4 5", false),  // outside the session's slots
        ("pre 2 1 5", true),
        ("post 2 1 6", false), // another value than its pre
        ("post 2 1 5", true),
        ("begin t 4 4096", false), // a second session on one connection
    ] {
        let r = w.ask(line);
        assert_eq!(r.starts_with("ok"), ok, "{line}: {r}");
    }
    // Replayed on another connection: no session to go to.
    let mut x = Raw::connect(&listener.addr);
    assert!(x.ask("pre 3 0 9").starts_with("err no session"));
    assert!(x.ask("post 2 1 5").starts_with("err no session"));
    let mut lines = vec![x.ask(&format!("dump t {token}"))];
    while !lines.last().unwrap().starts_with("end") {
        lines.push(x.reply());
    }
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>()[..4],
        ["session", "t", "4", "4096"]
    );
    assert!(lines[0].ends_with(" 2"), "{lines:?}");
    assert!(lines[1].starts_with("slot 0 1 7 "), "{lines:?}");
    assert!(lines[2].starts_with("slot 1 2 5 "), "{lines:?}");
    assert!(
        lines[1].ends_with(" 0 0") && lines[2].ends_with(" 0 0"),
        "{lines:?}"
    );
    assert_eq!(lines[3], "end 2");
}

#[test]
fn overlong_lines_and_binary_are_refused_and_the_listener_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let mut r = Raw::connect(&listener.addr);
    // 8 MiB without a newline: refused after 1 KiB, the connection closed.
    let flood = vec![b'x'; 8 << 20];
    let _ = r.writer.write_all(&flood);
    assert_eq!(r.reply(), "err a line longer than 1024 bytes: closing");
    let mut r = Raw::connect(&listener.addr);
    assert_eq!(
        r.ask("\u{1b}[2Jbegin"),
        "err a line that is not text: closing"
    );
    let mut r = Raw::connect(&listener.addr);
    let long = format!("begin {} 4 4096", "n".repeat(900));
    assert!(r.ask(&long).starts_with("err "), "a 900-character name");
    let r = r.ask(&"?".repeat(1000));
    assert!(r.len() < 300 && r.starts_with("err unknown request"), "{r}");
    // Still serving.
    Raw::connect(&listener.addr).begin("after", 4);
}

#[test]
fn a_silent_connection_is_closed_after_the_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::spawn(ssdfade(dir.path()).args([
        "plp",
        "listen",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--idle-timeout",
        "1s",
    ]));
    let mut c = Raw::connect(&listener.addr);
    c.begin("idle", 4);
    // Nothing more is sent: the listener closes the connection (the test waits up to 20 s).
    assert_eq!(c.reply(), "");
}

/// A client that sends a byte now and then never goes silent; each line must still arrive
/// whole within the idle timeout, or the connection is closed (else a few such clients hold
/// every connection the listener may serve).
#[test]
fn a_line_sent_a_byte_at_a_time_is_cut_off_at_the_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::spawn(ssdfade(dir.path()).args([
        "plp",
        "listen",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--idle-timeout",
        "1s",
    ]));
    let mut c = Raw::connect(&listener.addr);
    let mut trickle = c.writer.try_clone().unwrap();
    let started = std::time::Instant::now();
    let writer = std::thread::spawn(move || {
        for b in "begin slowly 4 4096".bytes().cycle().take(40) {
            if trickle.write_all(&[b]).is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(250));
        }
    });
    // The listener ends the connection (end of stream, or a reset once more bytes arrive)
    // after about the 1 s timeout, not after the 10 s the client keeps trickling.
    let mut line = String::new();
    let read = c.reader.read_line(&mut line);
    let closed_after = started.elapsed();
    assert!(
        matches!(read, Ok(0))
            || read
                .as_ref()
                .is_err_and(|e| e.kind() != std::io::ErrorKind::TimedOut
                    && e.kind() != std::io::ErrorKind::WouldBlock),
        "{read:?} {line:?}"
    );
    assert!(
        closed_after < std::time::Duration::from_secs(6),
        "closed after {closed_after:?}"
    );
    writer.join().unwrap();
    // Still serving.
    Raw::connect(&listener.addr).begin("after", 4);
}

#[test]
fn more_connections_than_descriptors_are_refused_and_the_listener_lives() {
    let dir = tempfile::tempdir().unwrap();
    // 40 descriptors: room for 8 connections.
    let listener = Listener::spawn(
        std::process::Command::new("prlimit")
            .arg("--nofile=40:40")
            .arg(env!("CARGO_BIN_EXE_ssdfade"))
            .args(["plp", "listen", "--bind", "127.0.0.1", "--port", "0"])
            .current_dir(dir.path()),
    );
    let mut held: Vec<Raw> = (0..60).map(|_| Raw::connect(&listener.addr)).collect();
    let replies: Vec<String> = held
        .iter_mut()
        .map(|c| c.ask(&format!("dump x {}", "0".repeat(32))))
        .collect();
    let busy = replies.iter().filter(|r| r.starts_with("err busy")).count();
    let served = replies
        .iter()
        .filter(|r| r.starts_with("err no session"))
        .count();
    assert_eq!(served, 8, "{replies:?}");
    assert_eq!(busy, 52, "{replies:?}");
    drop(held);
    // Alive, and serving again once those are gone.
    common::wait_for("the listener to serve again", 10, || {
        let mut c = Raw::connect(&listener.addr);
        c.ask("begin again 4 4096").starts_with("ok ")
    });
}

/// Under `ulimit -v` 200 clients at once are served or refused and the listener lives (each
/// connection's thread once took 8 MiB of address space, and it aborted).
#[test]
fn a_crowd_of_clients_under_ulimit_v_is_served_or_refused_and_the_listener_lives() {
    let dir = tempfile::tempdir().unwrap();
    let mut listener = Listener::spawn(common::ssdfade_under(dir.path(), "-v 400000").args([
        "plp",
        "listen",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
    ]));
    let mut held: Vec<Raw> = (0..200).map(|_| Raw::connect(&listener.addr)).collect();
    for c in held.iter_mut() {
        let r = c.ask(&format!("dump x {}", "0".repeat(32)));
        assert!(
            r.starts_with("err no session") || r.starts_with("err busy"),
            "{r}"
        );
    }
    drop(held);
    common::wait_for("the listener to serve again", 10, || {
        let mut c = Raw::connect(&listener.addr);
        c.ask("begin again 4 4096").starts_with("ok ")
    });
    assert!(listener.child.try_wait().unwrap().is_none());
}

#[test]
fn the_evidence_survives_a_listener_restart() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plp.img");
    let target = file.to_str().unwrap();
    let said = {
        let first = Listener::start(dir.path());
        write(dir.path(), target, &first.addr, &["--size", "8M"])
    };
    let second = Listener::start(dir.path());
    let (code, r) = verify(dir.path(), target, &second.addr, &said, "after-restart");
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["records_acknowledged"], acknowledged(&said));
    assert!(r["acknowledged"].as_u64().unwrap() >= 100, "{r}");
}

/// The session name of the `dump` request a fake listener reads.
fn name_of(r: &mut BufReader<TcpStream>) -> String {
    let mut l = String::new();
    r.read_line(&mut l).unwrap();
    l.split_whitespace().nth(1).unwrap_or_default().to_string()
}

#[test]
fn verify_bounds_what_a_hostile_listener_sends() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plp.img");
    std::fs::write(&file, vec![0u8; 65536]).unwrap();
    let target = file.to_str().unwrap();
    let token = "0123456789abcdef0123456789abcdef";
    // A reply without a newline, up to 1 GiB: verify stops reading after a line's worth.
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let flooded = sent.clone();
    let flood = fake_listener(move |mut r, mut w| {
        name_of(&mut r);
        let chunk = vec![b'A'; 1 << 20];
        for _ in 0..1024 {
            if w.write_all(&chunk).is_err() {
                break;
            }
            flooded.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    });
    // Slot lines without end.
    let endless = fake_listener(move |mut r, mut w| {
        let name = name_of(&mut r);
        let _ = writeln!(w, "session {name} 4 4096 0 0");
        for _ in 0..100_000 {
            if writeln!(w, "slot 0 1 1 0 0 0").is_err() {
                break;
            }
        }
    });
    // A session larger than any listener keeps; an error reply with escape sequences.
    let huge = fake_listener(move |mut r, mut w| {
        let name = name_of(&mut r);
        let _ = writeln!(w, "session {name} 1000000000000 4096 0 0");
    });
    let escapes = fake_listener(move |mut r, mut w| {
        name_of(&mut r);
        let _ = writeln!(w, "err \u{1b}]0;owned\u{7}{}", "B".repeat(900));
    });
    for addr in [flood, endless, huge, escapes] {
        let (code, out, err) = verify_raw(dir.path(), target, &addr, token);
        assert_ne!(code, 0, "{out}");
        assert!(
            err.len() < 600,
            "verify echoed {} bytes: {}",
            err.len(),
            &err[..600]
        );
        assert!(!err.contains('\u{1b}'), "{err}");
        assert!(err.contains(&addr), "the error names the listener: {err}");
        assert!(!dir.path().join(format!("v-{token}/plp.json")).exists());
    }
    let mib = sent.load(std::sync::atomic::Ordering::SeqCst);
    assert!(mib < 64, "verify read {mib} MiB of a line");
}

#[test]
fn an_acknowledged_slot_holding_an_older_or_foreign_record_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let file = dir.path().join("plp.img");
    let target = file.to_str().unwrap();
    // Two slots, written again and again; the first records seen in them are kept.
    let writer = ssdfade(dir.path())
        .args([
            "plp",
            "write",
            target,
            "--log",
            &listener.addr,
            "--size",
            "1M",
        ])
        .args(["--span", "8k", "--duration", "2s", "--seed", "5"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut early: [Option<(RecordId, Vec<u8>)>; 2] = [None, None];
    let mut buf = vec![0u8; 4096];
    let mut finished = None;
    let mut writer = writer;
    while finished.is_none() {
        finished = writer.try_wait().unwrap();
        for (slot, seen) in early.iter_mut().enumerate() {
            let Ok(f) = std::fs::File::open(&file) else {
                continue;
            };
            if seen.is_none() && f.read_exact_at(&mut buf, slot as u64 * 4096).is_ok() {
                if let Found::Record(r) = decode(&buf) {
                    *seen = Some((r, buf.clone()));
                }
            }
        }
    }
    assert!(finished.unwrap().success());
    let mut said = String::new();
    writer
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut said)
        .unwrap();
    // Undamaged, two slots are too few to pass.
    let (code, r) = verify(dir.path(), target, &listener.addr, &said, "whole");
    assert_eq!(
        (code, r["intact"].as_u64(), &r["outcome"]),
        (1, Some(2), &"not_tested".into())
    );

    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&file)
        .unwrap();
    let (old, bytes) = early[0]
        .clone()
        .expect("a record seen in slot 0 while writing");
    f.read_exact_at(&mut buf, 0).unwrap();
    let Found::Record(now) = decode(&buf) else {
        panic!("slot 0 holds no record")
    };
    assert!(old.seq < now.seq, "slot 0 was written again after {old:?}");
    // The earlier record, restored.
    f.write_all_at(&bytes, 0).unwrap();
    // Slot 1: a valid record with the acknowledged number and another value (another session's).
    f.read_exact_at(&mut buf, 4096).unwrap();
    let Found::Record(one) = decode(&buf) else {
        panic!("slot 1 holds no record")
    };
    encode(
        RecordId {
            value: one.value ^ 2,
            ..one
        },
        0,
        &mut buf,
    );
    f.write_all_at(&buf, 4096).unwrap();
    f.sync_all().unwrap();
    let (code, r) = verify(dir.path(), target, &listener.addr, &said, "restored");
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["outcome"], "fail");
    let lost = r["lost"].as_array().unwrap();
    assert_eq!(lost.len(), 2, "{r}");
    assert_eq!(lost[0]["slot"], 0);
    assert_eq!(lost[0]["found"], format!("record {} (older)", old.seq));
    assert_eq!(lost[1]["slot"], 1);
    assert!(
        lost[1]["found"].as_str().unwrap().contains("another value"),
        "{r}"
    );
}

#[test]
fn plp_write_with_no_duration_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let file = dir.path().join("plp.img");
    for d in ["0s", "0"] {
        let out = ssdfade(dir.path())
            .args([
                "plp",
                "write",
                file.to_str().unwrap(),
                "--log",
                &listener.addr,
            ])
            .args(["--size", "1M", "--duration", d])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(!file.exists());
    let sessions = std::fs::read_dir(dir.path().join("plp-sessions"))
        .unwrap()
        .count();
    assert_eq!(sessions, 0, "no session was begun");
}

/// The flush I/Os a block device has completed (field 15 of /sys/block/X/stat, from 0).
fn flushes(dev: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/sys/block/{dev}/stat")).unwrap();
    stat.split_whitespace().nth(15).unwrap().parse().unwrap()
}

#[test]
fn plp_write_flushes_the_device_before_it_acknowledges() {
    if !common::root_or_skip("plp_write_flushes_the_device_before_it_acknowledges") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lo = common::Loop::new(16 << 20);
    let dev = lo.path.file_name().unwrap().to_str().unwrap().to_string();
    // A listener that reads the device's flush counter at each pre and post: (posts, posts
    // with no flush completed since their pre).
    let seen = std::sync::Arc::new(std::sync::Mutex::new((0u64, 0u64)));
    let (tally, name) = (seen.clone(), dev.clone());
    let addr = fake_listener(move |r, mut w| {
        let mut at_pre = 0;
        for line in r.lines() {
            let line = line.unwrap();
            let reply = if line.starts_with("begin") {
                format!("ok {}", "ab".repeat(16))
            } else {
                if line.starts_with("pre") {
                    at_pre = flushes(&name);
                } else if line.starts_with("post") {
                    let mut t = tally.lock().unwrap();
                    t.0 += 1;
                    if flushes(&name) <= at_pre {
                        t.1 += 1;
                    }
                }
                "ok".into()
            };
            if writeln!(w, "{reply}").is_err() {
                break;
            }
        }
    });
    let target = lo.path.to_str().unwrap();
    for (flush, extra) in [(true, None), (false, Some("--no-flush"))] {
        *seen.lock().unwrap() = (0, 0);
        let said = write(
            dir.path(),
            target,
            &addr,
            &["--destroy-data", target, "--span", "1M"]
                .into_iter()
                .chain(extra)
                .collect::<Vec<_>>(),
        );
        let (posts, unflushed) = *seen.lock().unwrap();
        assert_eq!(posts, acknowledged(&said));
        assert!(posts >= 3, "{said}");
        if flush {
            assert_eq!(
                unflushed, 0,
                "{unflushed} of {posts} acknowledged before a flush"
            );
        } else {
            // The counter sees the writer's flushes: without them, none.
            assert_eq!(unflushed, posts, "--no-flush");
        }
    }
}

/// A target cut short after the records were written is checked to its end: the slots past
/// it are lost records of the verdict, which plp.json keeps (exit 1), not an abort.
#[test]
fn a_truncated_target_is_a_recorded_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let file = dir.path().join("plp.img");
    let target = file.to_str().unwrap();
    let said = write(dir.path(), target, &listener.addr, &["--size", "8M"]);
    let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    f.set_len(4 << 20).unwrap();
    drop(f);
    let (code, r) = verify(dir.path(), target, &listener.addr, &said, "cut");
    assert_eq!(code, 1, "{r}");
    let lost = r["lost"].as_array().unwrap();
    assert!(!lost.is_empty(), "{r}");
    assert!(
        lost.iter().all(|l| l["slot"].as_u64().unwrap() >= 1024),
        "only slots past the end are lost: {r}"
    );
    assert!(
        lost[0]["found"]
            .as_str()
            .unwrap()
            .contains("past the end of"),
        "{r}"
    );
}

/// One machine cannot take every session of a listener: past its share, `begin` is refused
/// naming the limit, and a session of another machine could still begin.
#[test]
fn one_peer_cannot_fill_the_listeners_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path());
    let mut refused = None;
    for i in 0..40 {
        let name = session_name(&format!("s{i}"));
        let reply = Raw::connect(&listener.addr).ask(&format!("begin {name} 4 4096"));
        if !reply.starts_with("ok ") {
            refused = Some((i, reply));
            break;
        }
    }
    let (at, reply) = refused.expect("a peer's sessions are bounded");
    assert_eq!(at, 32, "{reply}");
    assert!(reply.contains("127.0.0.1 holds 32 sessions"), "{reply}");
    assert_eq!(
        std::fs::read_dir(dir.path().join("plp-sessions"))
            .unwrap()
            .count(),
        32
    );
}
