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
            "ssdfade: cannot write to standard output: No space left on device",
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

#[test]
fn a_refusal_quoting_a_newline_stays_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let err = refused(ssdfade(dir.path()).args(["info", "sim:ram-8g,seed=1\nrm -rf x\t"]));
    assert!(err.contains(r"seed=1\nrm -rf x\t in"), "{err}");
    let err = refused(ssdfade(dir.path()).args(["measure", "no\nsuch.img", "--duration", "1s"]));
    assert!(err.contains(r"no\nsuch.img does not exist"), "{err}");
}

/// Waits (up to 20 s) until `done` holds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_second_run_on_a_file_in_use_is_refused_naming_the_first() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let file = dir.path().join("t.img");
    let content: Vec<u8> = (0..8u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&file, &content).unwrap();
    let f = file.to_str().unwrap();
    // The first run only reads, so the file must come out exactly as it went in.
    let first = ssdfade(dir.path())
        .args([
            "soak",
            f,
            "--read-pct",
            "100",
            "--qd",
            "1",
            "--duration",
            "60s",
        ])
        .args(["--interval", "1s", "--json", "--out", "first"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until("the first run to start", || {
        dir.path().join("first/run.json").exists()
    });
    for second in [
        &["measure", f, "--destroy-data", f, "--duration", "1s"][..],
        &[
            "soak",
            f,
            "--destroy-data",
            f,
            "--size",
            "16M",
            "--duration",
            "1s",
        ],
        &["measure", f, "--read-pct", "100", "--duration", "1s"],
    ] {
        let err = refused(ssdfade(dir.path()).args(second).args(["--out", "second"]));
        assert!(
            err.contains(&format!("process {} (", first.id())) && err.contains("soak"),
            "{second:?}: {err}"
        );
        assert!(!dir.path().join("second").exists(), "{second:?}");
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(first.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr_of(&out));
    assert!(std::fs::read(&file).unwrap() == content, "the file changed");
    // Once the first run is gone the file is free again.
    let out = ssdfade(dir.path())
        .args([
            "measure",
            f,
            "--read-pct",
            "100",
            "--qd",
            "1",
            "--duration",
            "200ms",
        ])
        .args(["--interval", "100ms", "--out", "third"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}

#[test]
fn info_names_the_process_holding_a_device_exclusively() {
    use std::os::unix::fs::OpenOptionsExt;
    if !common::root_or_skip("info_names_the_process_holding_a_device_exclusively") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lo = common::Loop::new(16 << 20);
    let dev = lo.path.to_str().unwrap();
    let free = common::json_ok(ssdfade(dir.path()).args(["info", dev, "--json"]));
    assert!(free["in_use"].is_null(), "{free}");
    // This test process holds the device as mkfs or another run would.
    let held = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(&lo.path)
        .unwrap();
    let v = common::json_ok(ssdfade(dir.path()).args(["info", dev, "--json"]));
    let in_use = v["in_use"].as_str().unwrap_or_default();
    let me = format!("process {} (", std::process::id());
    assert!(
        in_use.contains("held exclusively") && in_use.contains(&me),
        "{v}"
    );
    let table = common::run_ok(ssdfade(dir.path()).args(["info", dev]));
    assert!(
        table
            .lines()
            .any(|l| l.contains("in use") && l.contains(&me)),
        "{table}"
    );
    let err = refused(ssdfade(dir.path()).args([
        "measure",
        dev,
        "--destroy-data",
        dev,
        "--duration",
        "1s",
    ]));
    assert!(err.contains("is busy") && err.contains(&me), "{err}");
    drop(held);
    let v = common::json_ok(ssdfade(dir.path()).args(["info", dev, "--json"]));
    assert!(v["in_use"].is_null(), "{v}");
}

#[test]
fn an_erase_tool_sees_a_hostile_file_name_as_one_word_and_runs_nothing_else() {
    let names = [
        "a b;touch INJECTED",
        "it's \"quoted\"",
        "$(touch INJECTED)",
        "`touch INJECTED`",
        "line\ntouch INJECTED\n",
        "'; touch INJECTED; '",
        "\\'$(touch INJECTED)\\",
    ];
    for (i, name) in names.iter().enumerate() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        std::fs::write(dir.path().join(name), [0u8; 4096]).unwrap();
        let out = ssdfade(dir.path())
            .args(["erase", name, "--destroy-data", name, "--out", "e"])
            .arg(r#"--method=command:printf '%s' {target} > seen; printf '%s' "$SSDFADE_TARGET" > env"#)
            .output()
            .unwrap();
        assert!(out.status.success(), "{i}: {}", stderr_of(&out));
        let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert_eq!(read("seen"), *name, "{i}: the tool saw another name");
        assert_eq!(read("env"), *name, "{i}: SSDFADE_TARGET differs");
        assert!(
            !dir.path().join("INJECTED").exists(),
            "{name:?} ran a command"
        );
    }
}

#[test]
fn a_run_that_cannot_get_its_buffers_fails_instead_of_hanging() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    for engine in ["threads", "uring"] {
        // 4 buffers of 256 MiB do not fit under a 700 MB address-space limit, and the two that
        // do leave room for everything else (16 × 64 MiB could leave less than the next small
        // allocation needs, and the process aborted instead of failing the run).
        let script = format!(
            "ulimit -v 700000; exec {} measure big.img --size 512M --bs 256M --qd 4 \
             --engine {engine} --duration 2s --interval 1s --out {engine}",
            env!("CARGO_BIN_EXE_ssdfade")
        );
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > std::time::Duration::from_secs(60) {
                let _ = child.kill();
                panic!("{engine}: the run hung after failing to allocate");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let out = child.wait_with_output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(status.code(), Some(1), "{engine}: {err}");
        assert!(
            err.contains("out of memory allocating an I/O buffer") && err.contains("lower --qd"),
            "{engine}: {err}"
        );
        // Every buffer is had before any worker starts: the run fails before it begins, with
        // no I/O done and no write error blamed on offset 0.
        let samples = std::fs::read_to_string(dir.path().join(engine).join("samples.jsonl"));
        assert_eq!(samples.unwrap(), "", "{engine}: the workers started");
        assert!(!err.contains("write error"), "{engine}: {err}");
        let info: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.path().join(engine).join("run.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(info["status"], "failed", "{engine}");
        std::fs::remove_file(dir.path().join("big.img")).unwrap();
    }
}

#[test]
fn a_run_whose_buffers_exceed_available_memory_is_refused_up_front() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    // 1 GiB × QD4096 = 4 TiB of buffers: more than any machine this runs on has available.
    let err = refused(ssdfade(dir.path()).args([
        "measure",
        "t.img",
        "--size",
        "2G",
        "--bs",
        "1G",
        "--qd",
        "4096",
        "--duration",
        "1s",
        "--out",
        "run",
    ]));
    assert!(
        err.contains("needs 4.0 TiB") && err.contains("lower --qd or --bs"),
        "{err}"
    );
    assert!(
        !dir.path().join("t.img").exists(),
        "the refused run left its file"
    );
    assert!(!dir.path().join("run").exists());
    // A run shorter than measure's default 1 s sample period is not refused for it.
    let out = ssdfade(dir.path())
        .args([
            "measure",
            "s.img",
            "--size",
            "1M",
            "--qd",
            "1",
            "--duration",
            "300ms",
        ])
        .args(["--out", "short", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}
