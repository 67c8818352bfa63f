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
        assert!(
            err.starts_with(
                "ssdfade: cannot write to standard output: no space left on device (ENOSPC)"
            ),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
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

/// A short simulated soak in `dir/name`, its charts drawn.
fn quick_run(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let out = ssdfade(dir)
        .args([
            "soak",
            "sim:ram-8g,scale=64",
            "--duration",
            "30s",
            "--out",
            name,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    dir.join(name)
}

#[test]
fn no_output_goes_through_a_planted_link_or_over_a_file_ssdfade_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let run = quick_run(dir.path(), "run");
    let other = quick_run(dir.path(), "other");
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "precious\n").unwrap();
    let etc = dir.path().join("etc");
    std::fs::create_dir(&etc).unwrap();
    let link = |name: &str, to: &std::path::Path| {
        let at = run.join(name);
        let _ = std::fs::remove_file(&at);
        std::os::unix::fs::symlink(to, &at).unwrap();
    };

    link("report.html", &outside);
    refused(ssdfade(dir.path()).args(["report", "run"]));
    std::fs::remove_file(run.join("report.html")).unwrap();
    link("fade-latency.png", &outside);
    refused(ssdfade(dir.path()).args(["plot", "run"]));
    std::fs::remove_file(run.join("fade-latency.png")).unwrap();
    std::os::unix::fs::symlink(&etc, dir.path().join("cmp")).unwrap();
    refused(ssdfade(dir.path()).args(["compare", "run", "other", "--out", "cmp"]));
    std::os::unix::fs::symlink(&etc, dir.path().join("pages")).unwrap();
    refused(ssdfade(dir.path()).args(["man", "--out-dir", "pages"]));
    std::fs::create_dir(dir.path().join("man")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.path().join("man/ssdfade-soak.1")).unwrap();
    refused(ssdfade(dir.path()).args(["man", "--out-dir", "man"]));
    for target in ["other/run.json", "run/latency.json", "outside.txt", "other"] {
        refused(ssdfade(dir.path()).args(["export", "run", "--out", target]));
    }
    refused(ssdfade(dir.path()).args([
        "export",
        "run",
        "--format",
        "jsonl",
        "--out",
        "run/samples.jsonl",
    ]));

    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious\n");
    assert_eq!(
        std::fs::read_dir(&etc).unwrap().count(),
        0,
        "nothing written through a link"
    );
    let other_run = std::fs::read_to_string(other.join("run.json")).unwrap();
    assert!(other_run.starts_with('{'), "another run's record kept");

    // What the tool wrote itself it may write again.
    let export = || {
        ssdfade(dir.path())
            .args(["export", "run", "--out", "e.csv"])
            .output()
            .unwrap()
    };
    assert!(export().status.success());
    assert!(export().status.success());
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".partial")), "{names:?}");
}

#[test]
fn a_full_disk_leaves_no_truncated_chart_and_no_empty_export() {
    if !common::root_or_skip("a_full_disk_leaves_no_truncated_chart_and_no_empty_export") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = quick_run(dir.path(), "run");
    let records: u64 = ["run.json", "samples.jsonl", "latency.json"]
        .iter()
        .map(|f| std::fs::metadata(run.join(f)).unwrap().len())
        .sum();
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    // Room for the records and a few KiB more: the first chart does not fit.
    let size = format!("size={}k", records / 1024 + 24);
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", &size, "tmpfs"])
        .arg(&mnt)
        .status()
        .unwrap();
    assert!(mounted.success());
    struct Unmount<'a>(&'a std::path::Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0).status();
        }
    }
    let _unmount = Unmount(&mnt);
    let small = mnt.join("run");
    std::fs::create_dir(&small).unwrap();
    for f in ["run.json", "samples.jsonl", "latency.json"] {
        std::fs::copy(run.join(f), small.join(f)).unwrap();
    }
    for args in [
        vec!["report", "small/run"],
        vec!["plot", "small/run", "--format", "svg"],
        vec!["export", "run", "--out", "small/big.csv"],
    ] {
        // Fill what is left, then ask for more.
        let _ = std::fs::write(mnt.join("filler"), vec![1u8; 1 << 20]);
        let out = ssdfade(dir.path()).args(&args).output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        let _ = std::fs::remove_file(mnt.join("filler"));
        for entry in std::fs::read_dir(&small)
            .unwrap()
            .chain(std::fs::read_dir(&mnt).unwrap())
        {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(!name.contains(".partial"), "{args:?} left {name}");
            if ["png", "svg", "csv", "md", "html"]
                .iter()
                .any(|e| name.ends_with(e))
            {
                panic!("{args:?} left {name} on a full disk");
            }
        }
    }
}

#[test]
fn numbers_a_record_cannot_hold_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let run = quick_run(dir.path(), "run");
    let info = std::fs::read_to_string(run.join("run.json")).unwrap();
    let samples = std::fs::read_to_string(run.join("samples.jsonl")).unwrap();
    let mut first: serde_json::Value =
        serde_json::from_str(samples.lines().next().unwrap()).unwrap();
    first["write"]["iops"] = serde_json::json!(-2.5);
    let negative_rate = samples.replacen(samples.lines().next().unwrap(), &first.to_string(), 1);
    let edits = [
        (
            "run.json",
            info.replacen("\"seconds\": ", "\"seconds\": 1e30, \"x_seconds\": ", 1),
            "summary.seconds",
        ),
        (
            "run.json",
            info.replacen("\"cpu_pct\": ", "\"cpu_pct\": -4, \"y\": ", 1),
            "cpu_pct",
        ),
        (
            "run.json",
            info.replacen("\"mb_per_s\": ", "\"mb_per_s\": 1e300, \"z\": ", 1),
            "mb_per_s",
        ),
        ("samples.jsonl", negative_rate, "write.iops"),
    ];
    for (file, text, field) in edits {
        std::fs::write(run.join(file), &text).unwrap();
        for cmd in [&["report", "run"][..], &["export", "run"], &["plot", "run"]] {
            let err = refused(ssdfade(dir.path()).args(cmd));
            assert!(err.contains(field), "{cmd:?} after editing {field}: {err}");
        }
        std::fs::write(run.join("run.json"), &info).unwrap();
        std::fs::write(run.join("samples.jsonl"), &samples).unwrap();
    }
}

#[test]
fn escape_sequences_from_a_target_name_or_a_record_are_shown_not_obeyed() {
    let dir = tempfile::tempdir().unwrap();
    let name = "t\u{1b}[2J\u{1b}]0;x\u{7}.img";
    let out = ssdfade(dir.path())
        .args([
            "measure",
            name,
            "--size",
            "16M",
            "--duration",
            "2s",
            "--out",
            "run",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let report = ssdfade(dir.path())
        .args(["report", "run"])
        .output()
        .unwrap();
    for (what, bytes) in [
        ("stdout", &out.stdout),
        ("stderr", &out.stderr),
        ("report", &report.stdout),
        (
            "report.md",
            &std::fs::read(dir.path().join("run/report.md")).unwrap(),
        ),
        (
            "report.html",
            &std::fs::read(dir.path().join("run/report.html")).unwrap(),
        ),
    ] {
        assert!(
            !bytes.contains(&0x1b) && !bytes.contains(&0x07),
            "{what} holds an escape"
        );
    }
}

#[test]
fn long_computations_end_within_a_second_of_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // A 16 KiB span's fast plan keeps the model drive busy for minutes.
    let mut soak = ssdfade(dir.path())
        .args([
            "soak",
            "sim:vertex2-60g",
            "--span",
            "16k",
            "--precondition",
            "fast",
        ])
        .args(["--duration", "1h", "--out", "run"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert_eq!(ended_after_sigterm(&mut soak), Some(130));
    let fitted = ssdfade(dir.path())
        .args([
            "soak",
            "sim:vertex2-60g",
            "--duration",
            "2h",
            "--out",
            "fitted",
        ])
        .output()
        .unwrap();
    assert!(fitted.status.success(), "{}", stderr_of(&fitted));
    let fitted = dir.path().join("fitted");
    let mut fit = ssdfade(dir.path())
        .env("TMPDIR", &tmp)
        .arg("sim")
        .arg("fit")
        .arg(&fitted)
        .args(["-o", "twin.toml"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert_eq!(ended_after_sigterm(&mut fit), Some(130));
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "temporary twin removed"
    );
    assert!(!dir.path().join("twin.toml").exists());
}

/// Sends SIGTERM to `child` and returns its exit status, failing when it works on for more
/// than a second of CPU after the signal (its waiting for a CPU on a loaded machine not
/// counted), or runs on for 10 s.
fn ended_after_sigterm(child: &mut std::process::Child) -> Option<i32> {
    let ended = common::signal_and_reap(
        child,
        nix::sys::signal::Signal::SIGTERM,
        std::time::Duration::from_secs(10),
    );
    assert!(
        ended.cpu.as_secs_f64() < 1.0,
        "worked {:?} after SIGTERM ({:?} in all)",
        ended.cpu,
        ended.wall
    );
    ended.status.code()
}

// --- Messages and edges (issue 45) ----------------------------------------------------------

const SIM: &str = "sim:vertex2-60g,scale=64";

/// An output that cannot be written (a folder its user may not write) is bad input in one
/// line naming the file, the error in words and what to do; no "(os error N)", nothing written.
#[test]
fn a_report_into_a_folder_it_may_not_write_is_refused_in_words() {
    let work = tempfile::tempdir().unwrap();
    common::run_ok(ssdfade(work.path()).args([
        "measure",
        SIM,
        "--duration",
        "3s",
        "--interval",
        "1s",
        "--out",
        "r",
    ]));
    let run = work.path().join("r");
    for f in ["report.md", "report.html", "fade.png"] {
        let _ = std::fs::remove_file(run.join(f));
    }
    let mode = |p: &std::path::Path, m| {
        std::fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(m)).unwrap()
    };
    mode(work.path(), 0o755);
    mode(&run, 0o555);
    let names = |d: &std::path::Path| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let before = names(&run);
    // Root writes anywhere: the command runs as nobody when this is root.
    let mut cmd = if nix::unistd::Uid::effective().is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_ssdfade"))
            .current_dir(work.path());
        c
    } else {
        ssdfade(work.path())
    };
    let line = refused(cmd.args(["report", "r"]));
    assert!(line.contains("r/fade.png"), "{line}");
    assert!(line.contains("permission denied (EACCES)"), "{line}");
    assert!(line.contains("make r writable"), "{line}");
    assert!(!line.contains("os error"), "{line}");
    mode(&run, 0o755);
    assert_eq!(names(&run), before, "nothing written");
}

/// `--metrics-listen HOST:0` says the port the system chose.
#[test]
fn metrics_listen_on_port_zero_says_the_port_bound() {
    let work = tempfile::tempdir().unwrap();
    let out = ssdfade(work.path())
        .args(["measure", SIM, "--duration", "2s", "--interval", "1s"])
        .args(["--metrics-listen", "127.0.0.1:0", "--out", "m"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let at = err
        .find("metrics on http://127.0.0.1:")
        .unwrap_or_else(|| panic!("no address said: {err}"));
    let port: String = err[at + "metrics on http://127.0.0.1:".len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert!(port.parse::<u16>().is_ok_and(|p| p > 0), "{err}");
    assert!(err.contains(&format!("127.0.0.1:{port}/metrics")), "{err}");
}

/// `soak --until-predicted` that ends at its limit without a prediction says it gave up
/// (exit status 3, as `--until-steady`), and keeps the run.
#[test]
fn until_predicted_says_when_it_gave_up() {
    let work = tempfile::tempdir().unwrap();
    let out = ssdfade(work.path())
        .args(["soak", SIM, "--duration", "5s", "--interval", "1s"])
        .args(["--until-predicted", "--out", "s"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("--until-predicted gave up"), "{err}");
    assert!(work.path().join("s/run.json").is_file());
}

/// A byte budget cannot bound `--precondition fast`, which writes the span over first: the
/// combination is refused before anything is created, saying what to give instead.
#[test]
fn a_byte_budget_with_fast_preconditioning_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let line = refused(ssdfade(work.path()).args([
        "soak",
        SIM,
        "--precondition",
        "fast",
        "--bytes",
        "1M",
        "--out",
        "p",
    ]));
    assert!(
        line.contains("--bytes 1.0 MiB with --precondition fast"),
        "{line}"
    );
    assert!(line.contains("give --duration"), "{line}");
    assert!(!work.path().join("p").exists());
}

/// `--size` creates the test file for every command taking a TARGET, as `measure` does; a
/// refused command removes the file it created.
#[test]
fn size_creates_the_test_file_for_sweep_and_experiments() {
    let work = tempfile::tempdir().unwrap();
    common::run_ok(ssdfade(work.path()).args([
        "sweep",
        "t.img",
        "--size",
        "16M",
        "--destroy-data",
        "t.img",
        "--qd",
        "1,2",
        "--point-duration",
        "1s",
        "--interval",
        "1s",
        "--out",
        "sw",
    ]));
    assert_eq!(
        std::fs::metadata(work.path().join("t.img")).unwrap().len(),
        16 << 20
    );
    assert!(work.path().join("sw/experiment.json").is_file());
    // Refused after the file was made (a span larger than it): the file goes again.
    refused(ssdfade(work.path()).args([
        "experiment",
        "op-sweep",
        "u.img",
        "--size",
        "16M",
        "--destroy-data",
        "u.img",
        "--span",
        "100%,1G",
        "--out",
        "ops",
    ]));
    assert!(!work.path().join("u.img").exists());
    assert!(!work.path().join("ops").exists());
}

/// `op-sweep --on-twin` never opens the drive: a `--destroy-data` naming it is refused before
/// the experiment's folder is made or anything runs.
#[test]
fn op_sweep_on_a_twin_refuses_destroy_data_before_creating_anything() {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("twin.toml"),
        "base = \"vertex2-60g\"\nmodel = \"a twin\"\ncapacity = 2147483648\nalpha = 1.2\nspeed = 1.0\n",
    )
    .unwrap();
    let line = refused(ssdfade(work.path()).args([
        "experiment",
        "op-sweep",
        "/dev/no-such-drive",
        "--on-twin",
        "twin.toml",
        "--destroy-data",
        "/dev/no-such-drive",
        "--span",
        "100%,80%",
        "--out",
        "ops",
    ]));
    assert!(line.contains("drop --destroy-data"), "{line}");
    assert!(!work.path().join("ops").exists(), "no folder made");
}

/// `runs` lists experiments and groups as well as runs, however deep they lie, and does not
/// follow a symbolic link (a loop of them ends).
#[test]
fn runs_lists_experiments_at_any_depth_without_following_links() {
    let work = tempfile::tempdir().unwrap();
    let deep = work.path().join("results/a/b/c/d");
    std::fs::create_dir_all(&deep).unwrap();
    common::run_ok(ssdfade(&deep).args([
        "sweep",
        SIM,
        "--qd",
        "1,2",
        "--point-duration",
        "1s",
        "--interval",
        "1s",
        "--out",
        "sw",
    ]));
    std::os::unix::fs::symlink(work.path().join("results"), deep.join("loop")).unwrap();
    let v = common::json_ok(ssdfade(work.path()).args(["runs", "results", "--json"]));
    let rows = v.as_array().unwrap();
    let dirs: Vec<&str> = rows.iter().map(|r| r["dir"].as_str().unwrap()).collect();
    let experiment = rows
        .iter()
        .find(|r| r["dir"].as_str().unwrap().ends_with("a/b/c/d/sw"))
        .unwrap_or_else(|| panic!("the sweep is not listed: {dirs:?}"));
    assert_eq!(experiment["command"], "sweep", "{experiment}");
    assert_eq!(experiment["status"], "completed", "{experiment}");
    let points = dirs.iter().filter(|d| d.contains("a/b/c/d/sw/")).count();
    assert_eq!(points, 2, "both points, five levels down: {dirs:?}");
    assert!(dirs.iter().all(|d| !d.contains("/loop/")), "{dirs:?}");
}

/// A phase refused as it starts (its device held by another opener for a while) leaves the
/// experiment resumable, its phase pending, never failed; once the device is free, `resume`
/// finishes it.
#[test]
fn a_phase_refused_at_its_start_leaves_the_experiment_resumable() {
    if !common::root_or_skip("a_phase_refused_at_its_start_leaves_the_experiment_resumable") {
        return;
    }
    use std::os::unix::fs::OpenOptionsExt;
    let zram = common::Zram::new(64 << 20);
    let dev = zram.path.to_str().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut child = ssdfade(work.path())
        .args(["sweep", dev, "--destroy-data", dev, "--qd", "1,2,4"])
        .args(["--point-duration", "2s", "--interval", "1s", "--out", "sw"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let record = work.path().join("sw/experiment.json");
    let phases = |status: &str| -> usize {
        std::fs::read_to_string(&record)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .map_or(0, |v| {
                v["phases"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|p| p["status"] == status)
                    .count()
            })
    };
    common::wait_for("the first point", 60, || phases("completed") >= 1);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let held = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(&zram.path)
        .unwrap();
    let line = refused(ssdfade(work.path()).args(["resume", "sw"]));
    assert!(line.contains(dev), "{line}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(v["status"], "interrupted", "{v}");
    assert_eq!(phases("failed"), 0, "{v}");
    drop(held);
    common::run_ok(ssdfade(work.path()).args(["resume", "sw"]));
    assert_eq!(phases("completed"), 3);
}

/// The first stderr line of `child` holding `marker`; the rest of its stderr is drained in the
/// background, so the child never blocks on a full pipe.
fn stderr_line_with(child: &mut std::process::Child, marker: &str) -> String {
    use std::io::BufRead;
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let line = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("stderr ended without {marker:?}"));
    std::thread::spawn(move || lines.for_each(drop));
    line
}

/// A child process killed (and reaped) when the test ends, passed or failed.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `--metrics-listen`: a client that connects and sends nothing holds its connection no longer
/// than the endpoint's request timeout (5 s, `metrics::server::TIMEOUT`), other clients are
/// answered meanwhile, and one address holds at most 8 connections at once (half of the 16 in
/// all, `metrics::server::MAX_PER_PEER`; then `503` naming the address) until its silent ones
/// are dropped.
#[test]
fn a_silent_metrics_client_is_dropped_within_the_timeout_and_others_are_served() {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};
    const TIMEOUT: Duration = Duration::from_secs(5);
    const MAX_PER_PEER: usize = 8;
    let work = tempfile::tempdir().unwrap();
    let mut run = Reaped(
        ssdfade(work.path())
            // A file, run in real time (a simulated drive's minute passes in seconds).
            .args(["measure", "t.img", "--size", "16M", "--qd", "1"])
            .args(["--duration", "60s", "--interval", "1s"])
            .args(["--metrics-listen", "127.0.0.1:0", "--out", "m"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let line = stderr_line_with(&mut run.0, "metrics on http://");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .unwrap()
        .to_string();
    let status_of_a_scrape = || -> String {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(s, "GET /metrics HTTP/1.0\r\n\r\n").unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        text.lines().next().unwrap_or_default().to_string()
    };
    let silent = |n: usize| -> Vec<(std::net::TcpStream, Instant)> {
        (0..n)
            .map(|_| {
                let s = std::net::TcpStream::connect(&addr).unwrap();
                s.set_read_timeout(Some(4 * TIMEOUT)).unwrap();
                (s, Instant::now())
            })
            .collect()
    };
    // The connections the endpoint is serving: one thread each, which holds its slot until it
    // ends (after the connection is closed).
    let pid = run.0.id();
    let served = || {
        std::fs::read_dir(format!("/proc/{pid}/task"))
            .unwrap()
            .flatten()
            .filter(|t| {
                std::fs::read_to_string(t.path().join("comm"))
                    .is_ok_and(|name| name.trim() == "metrics-client")
            })
            .count()
    };
    // One silent client: another is answered while it waits.
    let first = silent(1);
    assert!(status_of_a_scrape().contains(" 200 "));
    // It hangs up; its slot is free once the server reads the end of its stream. (Hanging up
    // rather than keeping it keeps the refusal below clear of its timeout on a loaded machine.)
    drop(first);
    common::wait_for("the hung-up and the answered client's slots", 60, || {
        served() == 0
    });
    // Every slot of this address taken by silent clients: one more is refused at once, not
    // queued (it would wait out a silent client's timeout if it were given a slot).
    let idle = silent(MAX_PER_PEER);
    common::wait_for("the silent clients to be taken", 60, || {
        served() == MAX_PER_PEER
    });
    // (Nothing is sent: the server answers 503 without reading, and a request left unread
    // would turn its close into a reset.)
    let mut extra = std::net::TcpStream::connect(&addr).unwrap();
    extra.set_read_timeout(Some(2 * TIMEOUT)).unwrap();
    let mut refused = String::new();
    let asked = Instant::now();
    extra.read_to_string(&mut refused).unwrap();
    assert!(refused.starts_with("HTTP/1.1 503 "), "{refused}");
    assert!(
        asked.elapsed() < TIMEOUT,
        "the refusal took {:?}",
        asked.elapsed()
    );
    assert!(
        refused.contains("127.0.0.1 holds 8 connections"),
        "{refused}"
    );
    // Each silent client is closed (end of stream, no answer) within the timeout and a margin.
    for (i, (mut s, connected)) in idle.into_iter().enumerate() {
        let mut got = Vec::new();
        let read = s.read_to_end(&mut got);
        let held = connected.elapsed();
        assert!(read.is_ok(), "silent client {i} not closed: {read:?}");
        assert!(got.is_empty(), "silent client {i} answered");
        assert!(
            held < TIMEOUT + Duration::from_secs(3),
            "silent client {i} held {held:?}"
        );
    }
    // Their slots are free again.
    assert!(status_of_a_scrape().contains(" 200 "));
}

/// Sends `fd` over a fresh Unix socket pair and returns the pair: the descriptor is then held by
/// the kernel (in flight in the socket's queue) and by no process's /proc/PID/fd, as a device
/// still busy with a killed run's I/O is. Closing both sockets releases it.
fn held_in_flight(fd: std::os::fd::OwnedFd) -> [std::os::fd::OwnedFd; 2] {
    use std::os::fd::{AsRawFd, FromRawFd};
    let mut pair = [0; 2];
    // SAFETY: socketpair writes two descriptors into `pair`, which are then owned here
    // (close-on-exec: a run this test starts must not inherit them and keep the device held).
    assert_eq!(
        unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                0,
                pair.as_mut_ptr(),
            )
        },
        0
    );
    let pair = pair.map(|raw| unsafe { std::os::fd::OwnedFd::from_raw_fd(raw) });
    let raw = fd.as_raw_fd();
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: CMSG_SPACE of one int; the buffer is u64-aligned as cmsghdr requires.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) } as usize;
    let mut control = vec![0u64; space.div_ceil(8)];
    // SAFETY: a zeroed msghdr is valid; its pointers are set to live buffers below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: the control buffer holds one cmsghdr with room for one descriptor.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>(), raw);
        assert_eq!(libc::sendmsg(pair[0].as_raw_fd(), &msg, 0), 1);
    }
    drop(fd);
    pair
}

/// A block device busy with no process holding it (a killed run's I/O still draining) is
/// waited for, saying so, up to 5 s: released within the wait, the run goes ahead; still busy
/// after it, the run is refused (exit 2, naming the device) and writes no run.
#[test]
fn a_device_busy_with_no_process_holding_it_is_waited_for_then_refused() {
    use std::os::unix::fs::OpenOptionsExt;
    use std::time::{Duration, Instant};
    if !common::root_or_skip("a_device_busy_with_no_process_holding_it_is_waited_for_then_refused")
    {
        return;
    }
    let lo = common::Loop::new(16 << 20);
    let dev = lo.path.to_str().unwrap();
    let hold = || {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_EXCL)
            .open(&lo.path)
            .unwrap();
        held_in_flight(f.into())
    };
    let work = tempfile::tempdir().unwrap();
    let measure = |out: &str| {
        let mut cmd = ssdfade(work.path());
        cmd.args(["measure", dev, "--destroy-data", dev]).args([
            "--duration",
            "1s",
            "--interval",
            "1s",
            "--out",
            out,
        ]);
        cmd
    };
    // Still busy after the wait: refused.
    let pair = hold();
    let start = Instant::now();
    let out = measure("refused").output().unwrap();
    let waited = start.elapsed();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("waiting up to 5 s"), "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(last.contains(dev) && last.contains("is busy"), "{err}");
    assert!(
        waited >= Duration::from_millis(4500),
        "refused after {waited:?}: {err}"
    );
    assert!(!work.path().join("refused/run.json").exists());
    // Released during the wait: the run goes ahead.
    let pair = {
        drop(pair);
        hold()
    };
    let mut run = Reaped(measure("ran").stderr(Stdio::piped()).spawn().unwrap());
    stderr_line_with(&mut run.0, "waiting up to 5 s");
    drop(pair);
    let status = run.0.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(work.path().join("ran/run.json").is_file());
}

/// On a terminal (a pty from `script`), the progress bars of a group run are led by each
/// target's name: an escape sequence in a name (a window title, a cursor report) is drawn
/// escaped, never sent raw, while the bars' own cursor movements still are.
#[test]
fn progress_bars_on_a_terminal_draw_escape_sequences_of_a_target_name_escaped() {
    let work = tempfile::tempdir().unwrap();
    let name = "t\u{1b}]0;pwned\u{7}\u{1b}[6n.img";
    let run =
        "\"$SSDFADE\" measure \"$NAME\" plain.img --size 16M --duration 3s --interval 1s --out g";
    let out = Command::new("script")
        .args(["-qec", run, "/dev/null"])
        .env("SSDFADE", env!("CARGO_BIN_EXE_ssdfade"))
        .env("NAME", name)
        .current_dir(work.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("t\\u{1b}]0;pwned\\u{7}\\u{1b}[6n.img ["),
        "no bar led by the escaped name: {shown:?}"
    );
    for raw in ["\u{1b}]", "\u{7}", "\u{1b}[6n"] {
        assert!(!shown.contains(raw), "{raw:?} sent raw: {shown:?}");
    }
}
