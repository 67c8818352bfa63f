//! Hostile and careless use from the command line: closed and full output, no arguments,
//! overflowing numbers, shell metacharacters in erase-tool targets, two runs on one file,
//! devices another process holds.

mod common;

use std::process::{Command, Output, Stdio};

use common::ssdfade;

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `cmd` expecting a refusal: exit 2, one line on stderr, no panic; returns the line.
fn refused(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run ssdfade");
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{cmd:?}: {err}");
    assert!(!err.contains("panicked"), "{cmd:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{cmd:?}: {err}");
    err
}

#[test]
fn no_arguments_print_usage_and_the_commands() {
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path()).output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("Usage: ssdfade <COMMAND>"), "{err}");
    for command in ["measure", "soak", "selftest", "sim", "info", "erase"] {
        assert!(
            err.lines().any(|l| l.trim_start().starts_with(command)),
            "{command} missing from:\n{err}"
        );
    }
}

/// Stdout is a pipe whose reader is already gone.
fn closed_pipe() -> Stdio {
    let (read, write) = nix::unistd::pipe().unwrap();
    drop(read);
    Stdio::from(write)
}

#[test]
fn a_closed_stdout_ends_quietly_with_a_failure_status() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [&[&str]; 3] = [
        &["sim", "list"],
        &["selftest", "--seconds", "10ms"],
        &["info", "sim:vertex2-60g", "--json"],
    ];
    for args in cases {
        let out = ssdfade(dir.path())
            .args(args)
            .stdout(closed_pipe())
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?} said: {err}");
    }
}

#[test]
fn a_full_stdout_fails_with_one_line_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["sim", "list"][..], &["selftest", "--seconds", "10ms"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = ssdfade(dir.path())
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(
            err.trim(),
            "ssdfade: cannot write to standard output: No space left on device (os error 28)",
            "{args:?}"
        );
    }
}

#[test]
fn overflowing_zero_and_huge_numbers_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 10] = [
        (&["--duration", "1e30"], "too long"),
        (&["--interval", "1e30"], "too long"),
        (&["--duration", "99999999999999999999h"], "too long"),
        (&["--span", "99999999999T"], "too large"),
        (&["--bytes", "99999999999999999999999"], "too large"),
        (&["--duration", "0s"], "is zero"),
        (&["--bytes", "0"], "is zero"),
        (&["--bs", "2G"], "larger than one Linux read or write"),
        (
            &["--interval", "5ms", "--duration", "1s"],
            "shorter than 10 ms",
        ),
        (
            &["--interval", "2s", "--duration", "1s"],
            "longer than --duration",
        ),
    ];
    for (args, expected) in cases {
        let err = refused(
            ssdfade(dir.path())
                .args(["measure", "t.img", "--size", "1M", "--out", "run"])
                .args(args),
        );
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(
            !dir.path().join("t.img").exists(),
            "{args:?} created the file"
        );
        assert!(!dir.path().join("run").exists(), "{args:?} made a run dir");
    }
    let err = refused(ssdfade(dir.path()).args(["selftest", "--bs", "1G"]));
    assert!(err.contains("lower --bs"), "{err}");
}
