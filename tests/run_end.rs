//! Every run's end is known: a killed run is listed as crashed, a double Ctrl-C still records
//! "interrupted", a hangup (also a closed terminal) ends a run interrupted and resumable, a full
//! disk under the run directory ends the run as failed with whole sample lines, runs started in
//! the same second get their own directories, and a refused run leaves no directory.

mod common;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{root_or_skip, ssdfade};
use ssdfade::results::Status;
use ssdfade::results::{read_info, read_samples};

/// Waits until `dir/samples.jsonl` holds at least `lines` lines (the run is under way).
fn wait_for_samples(child: &mut Child, dir: &Path, lines: usize) {
    let t0 = Instant::now();
    loop {
        let n = std::fs::read_to_string(dir.join("samples.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n >= lines {
            return;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended early with {status}");
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no samples after 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn file_soak(dir: &Path) -> Child {
    ssdfade(dir)
        .args([
            "soak",
            "t.img",
            "--size",
            "32M",
            "--qd",
            "2",
            "--interval",
            "100ms",
            "--out",
            "run",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn signal(child: &Child, sig: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
}

fn runs_json(dir: &Path) -> Vec<serde_json::Value> {
    let out = ssdfade(dir).args(["runs", ".", "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_killed_run_is_listed_as_crashed_with_its_iops_from_the_samples() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = file_soak(dir.path());
    let run = dir.path().join("run");
    wait_for_samples(&mut child, &run, 5);
    let info = read_info(&run).unwrap();
    let stamp = info.process.expect("run.json names its process");
    assert_eq!(stamp.pid, child.id());
    assert_eq!(runs_json(dir.path())[0]["status"], "running");

    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        read_info(&run).unwrap().status,
        Status::Running,
        "the record itself cannot know"
    );
    let listed = runs_json(dir.path());
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["status"], "crashed");
    assert!(listed[0]["note"].as_str().unwrap().contains("is gone"));
    let samples = read_samples(&run).unwrap();
    let ops: u64 = samples.iter().map(|s| s.ops).sum();
    let secs: f64 = samples.iter().map(|s| s.t_end_s - s.t_start_s).sum();
    let iops = listed[0]["iops"].as_f64().unwrap();
    assert!((iops - ops as f64 / secs).abs() < 1e-6 * iops, "{iops}");

    let table = ssdfade(dir.path()).args(["runs", "."]).output().unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(
        table.lines().nth(1).unwrap().starts_with("crashed"),
        "{table}"
    );
    assert!(table.lines().all(|l| l.chars().count() <= 80), "{table}");
}

#[test]
fn a_second_ctrl_c_still_records_the_run_as_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = file_soak(dir.path());
    let run = dir.path().join("run");
    wait_for_samples(&mut child, &run, 3);
    signal(&child, nix::sys::signal::SIGINT);
    // Two signals sent at once may arrive as one: give the first a moment to be seen.
    std::thread::sleep(Duration::from_millis(2));
    signal(&child, nix::sys::signal::SIGINT);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let info = read_info(&run).unwrap();
    assert_eq!(info.status, Status::Interrupted);
    assert!(info.ended_utc.is_some());
    assert!(read_samples(&run).unwrap().len() >= 3);
    let names: Vec<String> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.starts_with('.') && !n.ends_with(".tmp")),
        "no temporary files left: {names:?}"
    );
    assert_eq!(runs_json(dir.path())[0]["status"], "interrupted");
}

#[test]
fn a_full_disk_ends_the_run_as_failed_with_whole_sample_lines() {
    if !root_or_skip("a_full_disk_ends_the_run_as_failed_with_whole_sample_lines") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=400k", "tmpfs"])
        .arg(&mnt)
        .status()
        .unwrap();
    assert!(mounted.success());
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(self.0).status();
        }
    }
    let _unmount = Unmount(&mnt);

    // A simulated soak writes thousands of samples a second: it fills 400 KiB at once.
    let out = ssdfade(dir.path())
        .args([
            "soak",
            "sim:ram-8g,scale=64",
            "--duration",
            "10h",
            "--interval",
            "1s",
        ])
        .arg("--out")
        .arg(mnt.join("run"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    // Whichever of the run's growing files met the full disk first is named (latency.hlog's
    // lines grow with the spread of the latencies, samples.jsonl's with the interval count).
    assert!(
        stderr.contains("samples.jsonl") || stderr.contains("latency.hlog"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no space left on device") || stderr.contains("is the disk full?"),
        "{stderr}"
    );
    let run = mnt.join("run");
    let info = read_info(&run).unwrap();
    assert_eq!(info.status, Status::Failed);
    let text = std::fs::read_to_string(run.join("samples.jsonl")).unwrap();
    assert!(text.ends_with('\n'), "samples.jsonl ends with a whole line");
    let lines = text.lines().count();
    assert!(lines > 100, "{lines} samples before the disk filled");
    assert_eq!(
        read_samples(&run).unwrap().len(),
        lines,
        "every line parses"
    );
    assert!(!run.join(".space-reserve").exists());
}

#[test]
fn runs_started_in_the_same_second_get_their_own_directories() {
    let dir = tempfile::tempdir().unwrap();
    let children: Vec<Child> = (0..3)
        .map(|_| {
            ssdfade(dir.path())
                .args(["measure", "sim:ram-8g,scale=64", "--duration", "2s"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let listed = runs_json(&dir.path().join("results"));
    assert_eq!(listed.len(), 3, "{listed:?}");
    for run in &listed {
        assert_eq!(run["status"], "completed");
        assert!(
            (run["seconds"].as_f64().unwrap() - 2.0).abs() < 0.02,
            "{run}"
        );
    }
}

#[test]
fn a_size_below_an_existing_files_is_refused_and_the_file_kept() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.img");
    std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    let out = ssdfade(dir.path())
        .args([
            "measure",
            "t.img",
            "--size",
            "512k",
            "--destroy-data",
            "t.img",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("never shrunk"));
    assert_eq!(std::fs::read(&file).unwrap(), vec![7u8; 1 << 20]);
}

#[test]
fn a_refused_run_or_erase_creates_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["measure", "sim:ram-8g", "--bs", "1000"][..],
        &["soak", "sim:ram-8g", "--qd", "0"],
        &["erase", "t.img", "--method", "trim"],
        &["erase", "sim:vertex2-60g,scale=64", "--method", "sim"],
        // Options that do not apply are refused, not ignored.
        &["measure", "sim:ram-8g", "--engine", "threads"],
        &["measure", "sim:ram-8g", "--size", "1G"],
        &["measure", "sim:ram-8g", "--destroy-data", "/dev/sda"],
        &[
            "erase",
            "sim:ram-8g,state=x.sim",
            "--method",
            "trim",
            "--action",
            "crypto",
        ],
        &["erase", "sim:ram-8g,state=x.sim", "--dry-run", "--json"],
    ] {
        let out = ssdfade(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_hangup_ends_a_soak_as_interrupted_with_hangup_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = file_soak(dir.path());
    let run = dir.path().join("run");
    wait_for_samples(&mut child, &run, 3);
    signal(&child, nix::sys::signal::SIGHUP);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted (hangup)"), "{stderr}");
    let info = read_info(&run).unwrap();
    assert_eq!(info.status, Status::Interrupted);
    assert_eq!(info.interrupted_by.as_deref(), Some("hangup"));
    assert!(read_samples(&run).unwrap().len() >= 3);
    assert_eq!(runs_json(dir.path())[0]["status"], "interrupted");
}

#[test]
fn a_soak_started_with_hangups_ignored_keeps_running_through_one() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = ssdfade(dir.path());
    cmd.args(["soak", "t.img", "--size", "32M", "--interval", "100ms"])
        .args(["--duration", "2s", "--out", "run"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: only an async-signal-safe call between fork and exec, as `nohup` does.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let run = dir.path().join("run");
    wait_for_samples(&mut child, &run, 3);
    signal(&child, nix::sys::signal::SIGHUP);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info = read_info(&run).unwrap();
    assert_eq!(info.status, Status::Completed);
    assert_eq!(info.interrupted_by, None);
}

#[test]
fn a_hangup_interrupts_an_experiment_that_resumes_to_its_end() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("exp");
    let mut child = ssdfade(work.path())
        .args(["experiment", "wsat", "sim:vertex2-60g,scale=16", "--out"])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let run = loop {
        let started = std::fs::read_dir(&dir).ok().and_then(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .find(|p| p.join("samples.jsonl").exists())
        });
        if let Some(run) = started {
            break run;
        }
        assert!(child.try_wait().unwrap().is_none(), "ended before a phase");
        assert!(t0.elapsed() < Duration::from_secs(60), "no phase started");
        std::thread::sleep(Duration::from_millis(5));
    };
    wait_for_samples(&mut child, &run, 2);
    signal(&child, nix::sys::signal::SIGHUP);
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("experiment.json")).unwrap()).unwrap();
    assert_eq!(record["status"], "interrupted", "{record}");
    assert_eq!(record["interrupted_by"], "hangup", "{record}");
    let info = read_info(&run).unwrap();
    assert_eq!(info.status, Status::Interrupted);
    assert_eq!(info.interrupted_by.as_deref(), Some("hangup"));

    let out = ssdfade(work.path())
        .arg("resume")
        .arg(&dir)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("experiment.json")).unwrap()).unwrap();
    assert_eq!(record["status"], "completed", "{record}");
    assert!(record.get("interrupted_by").is_none(), "{record}");
}

/// A terminal (a pty) whose other end the test holds: the master (non-blocking, and not
/// inherited by the processes the tests start, so that dropping it closes it) and the slave's
/// path.
fn open_pty() -> (std::fs::File, std::path::PathBuf) {
    use std::os::fd::FromRawFd;
    // SAFETY: plain libc calls on a descriptor this function owns; ptsname_r writes at most
    // `buf.len()` bytes.
    unsafe {
        let master =
            libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_NONBLOCK | libc::O_CLOEXEC);
        assert!(master >= 0, "posix_openpt failed");
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let mut buf = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(master, buf.as_mut_ptr(), buf.len()), 0);
        let slave = std::ffi::CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
        (std::fs::File::from_raw_fd(master), slave.into())
    }
}

/// An SSH session dropping, as the kernel does it: the experiment runs on a terminal as its
/// session's leader (its progress drawn there) and the terminal's other end is closed. The
/// kernel sends SIGHUP and every later write to the terminal fails; the run still ends
/// interrupted by "hangup" with its records written, and `resume` takes it to its end.
#[test]
fn a_closed_terminal_interrupts_an_experiment_that_resumes() {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("exp");
    let (mut master, slave) = open_pty();
    let tty = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&slave)
            .unwrap()
    };
    let mut cmd = ssdfade(work.path());
    cmd.args(["experiment", "wsat", "sim:vertex2-60g,scale=16", "--out"])
        .arg(&dir)
        .stdin(tty())
        .stdout(tty())
        .stderr(tty());
    // SAFETY: only async-signal-safe calls between fork and exec: a new session whose
    // controlling terminal is the pty on stdin, as a login shell has.
    unsafe {
        cmd.pre_exec(|| {
            nix::unistd::setsid()?;
            if libc::ioctl(0, libc::TIOCSCTTY, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    drop(cmd);
    let mut shown = Vec::new();
    let mut drain = |shown: &mut Vec<u8>| {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = master.read(&mut buf) {
            shown.extend_from_slice(&buf[..n]);
        }
    };
    let t0 = Instant::now();
    let samples = |run: &Path| {
        std::fs::read_to_string(run.join("samples.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    loop {
        drain(&mut shown);
        let started = std::fs::read_dir(&dir).ok().and_then(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .find(|p| samples(p) >= 2)
        });
        if started.is_some() {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "ended before a phase");
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no samples after 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drain(&mut shown);
    assert!(!shown.is_empty(), "nothing was drawn on the terminal");
    drop(master);
    let status = child.wait().unwrap();
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("experiment.json")).unwrap()).unwrap();
    assert_eq!(status.code(), Some(130), "{status}; {record}");
    assert_eq!(record["status"], "interrupted", "{record}");
    assert_eq!(record["interrupted_by"], "hangup", "{record}");

    let out = ssdfade(work.path())
        .arg("resume")
        .arg(&dir)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("experiment.json")).unwrap()).unwrap();
    assert_eq!(record["status"], "completed", "{record}");
}

/// A run stopped with SIGSTOP and continued with SIGCONT: the seconds it was stopped are
/// recorded as the tool's, on the intervals they fell in, and no interval reads as the drive
/// doing nothing.
#[test]
fn a_run_stopped_and_continued_records_the_gap_as_its_own_not_the_drives() {
    let work = tempfile::tempdir().unwrap();
    let mut child = ssdfade(work.path())
        .args(["measure", "t.img", "--size", "32M", "--qd", "2"])
        .args(["--interval", "1s", "--duration", "10s", "--out", "run"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let run = work.path().join("run");
    wait_for_samples(&mut child, &run, 2);
    common::stop_for(child.id(), Duration::from_secs(5));
    assert!(child.wait().unwrap().success());
    let samples = read_samples(&run).unwrap();
    let stopped: f64 = samples.iter().filter_map(|s| s.stopped_s).sum();
    assert!(
        (4.0..7.0).contains(&stopped),
        "stopped {stopped} s: {samples:?}"
    );
    for s in &samples {
        let ran = s.t_end_s - s.t_start_s - s.stopped_s.unwrap_or(0.0);
        if ran >= 0.1 {
            // Every interval with time to run saw the drive work, at its rate over that time.
            // (Below 0.1 s of running time beside a stop, the sample carries no rate: see
            // stats::sample's STOP_RESOLUTION_S.)
            assert!(s.iops > 0.0, "{s:?}");
            assert!(
                (s.iops - s.ops as f64 / ran).abs() <= 1e-6 * s.iops,
                "{s:?}"
            );
        }
    }
}

/// The I/O in flight while the process was stopped completes after SIGCONT: its wait is the
/// pause, not the drive, and stays out of the latency figures (max, p99.99 far below the 5 s
/// stop), while the interval records the pause as `stopped_s`.
#[test]
fn the_io_in_flight_across_a_stop_does_not_carry_the_pause_into_the_latency() {
    let work = tempfile::tempdir().unwrap();
    let mut child = ssdfade(work.path())
        .args(["measure", "t.img", "--size", "32M", "--qd", "1"])
        .args(["--interval", "1s", "--duration", "10s", "--out", "run"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let run = work.path().join("run");
    wait_for_samples(&mut child, &run, 2);
    common::stop_for(child.id(), Duration::from_secs(5));
    assert!(child.wait().unwrap().success());
    let samples = read_samples(&run).unwrap();
    let stopped: f64 = samples.iter().filter_map(|s| s.stopped_s).sum();
    assert!(stopped >= 4.0, "stopped {stopped} s: {samples:?}");
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    let max_us = info["summary"]["lat_us"]["max"].as_f64().unwrap();
    assert!(max_us < 2.5e6, "max latency {max_us} µs holds the stop");
    for s in &samples {
        let max = s.lat_us.as_ref().map_or(0.0, |l| l.max);
        assert!(max < 2.5e6, "an interval's max holds the stop: {s:?}");
    }
}

/// The sync engine (slog) too: the write in flight across a stop does not carry the pause into
/// the sustained phase's latency, and the samples record the pause as the tool's.
#[test]
fn a_slog_stopped_and_continued_keeps_the_pause_out_of_the_sync_write_latency() {
    let work = tempfile::tempdir().unwrap();
    let mut child = ssdfade(work.path())
        .args(["slog", "t.img", "--size", "32M", "--max-size", "4k"])
        .args(["--sustain", "12s", "--seed", "1", "--out", "run", "--json"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let run = work.path().join("run");
    wait_for_samples(&mut child, &run, 2);
    common::stop_for(child.id(), Duration::from_secs(5));
    assert!(child.wait().unwrap().success());
    let samples = read_samples(&run).unwrap();
    let stopped: f64 = samples.iter().filter_map(|s| s.stopped_s).sum();
    assert!(stopped >= 4.0, "stopped {stopped} s: {samples:?}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("slog.json")).unwrap()).unwrap();
    let max_us = record["device"]["measured"]["sustained"]["lat_us"]["max"]
        .as_f64()
        .unwrap();
    assert!(max_us < 2.5e6, "max latency {max_us} µs holds the stop");
    for s in &samples {
        let max = s.lat_us.as_ref().map_or(0.0, |l| l.max);
        assert!(max < 2.5e6, "an interval's max holds the stop: {s:?}");
    }
}

/// Every file under `dir` (charts, reports, records) last written at or after `since`.
fn written_since(dir: &Path, since: std::time::SystemTime) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let meta = entry.metadata().unwrap();
        if meta.is_dir() {
            found.extend(written_since(&path, since));
        } else if meta.modified().unwrap() >= since {
            found.push(path);
        }
    }
    found
}

/// The deepest samples.jsonl under `dir` with at least `lines` lines exists (a run under way).
fn samples_under(dir: &Path, lines: usize) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let path = e.path();
        if path.is_dir() {
            samples_under(&path, lines)
        } else {
            path.file_name().is_some_and(|n| n == "samples.jsonl")
                && common::lines_in(&path) >= lines
        }
    })
}

/// SIGTERM ends each long command (an experiment, a sweep, a group, a slog) within 1.5 s (a
/// loaded 2-core machine; about 0.2–0.6 s idle), recorded as terminated, and nothing but records is written after it: before, an experiment
/// drew its charts three times and decoded its whole saved drive after the signal (a full-size
/// `experiment vertex2` took 4.3 s), and a group drew its comparison.
#[test]
fn a_long_command_ends_within_a_second_and_a_half_of_sigterm_drawing_nothing() {
    let work = tempfile::tempdir().unwrap();
    let commands: [(&str, &[&str]); 4] = [
        ("experiment", &["experiment", "vertex2", "--seed", "3"]),
        (
            "sweep",
            &[
                "sweep",
                "sim:vertex2-60g,scale=8",
                "--qd",
                "1,32",
                "--point-duration",
                "4h",
            ],
        ),
        (
            "group",
            &[
                "soak",
                "sim:vertex2-60g,scale=8",
                "sim:dc-ssd-400g,scale=16",
                "--duration",
                "4h",
            ],
        ),
        ("slog", &["slog", "sim:vertex2-60g,scale=8", "--seed", "3"]),
    ];
    for (name, args) in commands {
        let out = work.path().join(name);
        let mut child = ssdfade(work.path())
            .args(args)
            .arg("--out")
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let t0 = Instant::now();
        while !samples_under(&out, 20) {
            assert!(child.try_wait().unwrap().is_none(), "{name} ended early");
            assert!(
                t0.elapsed() < Duration::from_secs(120),
                "{name}: no samples"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // Past the mtime granularity of what was drawn before the signal.
        std::thread::sleep(Duration::from_millis(50));
        let sent = std::time::SystemTime::now();
        let ended = common::signal_and_reap(
            &mut child,
            nix::sys::signal::SIGTERM,
            Duration::from_secs(15),
        );
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(ended.status.code(), Some(130), "{name}: {stderr}");
        // Its work after the signal, which a loaded machine's wait for a CPU does not add to.
        assert!(
            ended.cpu < Duration::from_millis(1500),
            "{name} worked {:?} after the signal ({:?} in all)",
            ended.cpu,
            ended.wall
        );
        let drawn: Vec<_> = written_since(&out, sent)
            .into_iter()
            .filter(|p| {
                let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
                ["png", "svg", "html", "md"].contains(&ext)
            })
            .collect();
        assert!(drawn.is_empty(), "{name} drew after the signal: {drawn:?}");
        assert!(stderr.contains("ssdfade report"), "{name}: {stderr}");
        if name == "sweep" {
            let text = std::fs::read_to_string(out.join("experiment.json")).unwrap();
            let record: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(record["status"], "interrupted", "{record}");
            assert_eq!(record["interrupted_by"], "terminate", "{record}");
        }
    }
}

/// A soak stopped (SIGSTOP, a suspended job) for about three intervals and continued: the
/// intervals it was stopped in carry `stopped_s`, those wholly inside the stop have no rate and
/// are the tool's, and the fade's lowest interval — on the terminal and in the report — is the
/// lowest of the intervals the drive ran, not the pause's zero.
#[test]
fn a_soak_stopped_for_three_intervals_keeps_the_pause_out_of_its_fade() {
    let work = tempfile::tempdir().unwrap();
    let mut child = ssdfade(work.path())
        .args(["soak", "t.img", "--size", "32M", "--qd", "2"])
        .args(["--interval", "1s", "--duration", "14s", "--out", "run"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let run = work.path().join("run");
    wait_for_samples(&mut child, &run, 3);
    common::stop_for(child.id(), Duration::from_millis(3500));
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let samples = read_samples(&run).unwrap();
    let whole: Vec<_> = samples
        .iter()
        .filter(|s| {
            s.stopped_s
                .is_some_and(|t| t >= 0.99 * (s.t_end_s - s.t_start_s))
        })
        .collect();
    assert!(
        !whole.is_empty(),
        "no interval wholly in the stop: {samples:?}"
    );
    // No running time, no rate (an I/O the sampler saw finish in its 50 ms poll around the
    // stop may count in such an interval, but not as a rate of the drive).
    assert!(whole.iter().all(|s| s.iops == 0.0), "{whole:?}");
    let lowest = samples
        .iter()
        .filter(|s| s.stopped_s.is_none() && s.t_end_s - s.t_start_s > 0.99)
        .map(|s| s.iops.round() as u64)
        .min()
        .unwrap();
    assert!(lowest > 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("lowest interval {lowest} IOPS")),
        "{lowest}: {text}"
    );
    let report = ssdfade(work.path())
        .args(["report", "run"])
        .output()
        .unwrap();
    assert!(report.status.success());
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    // The report groups thousands ("10 779"): its digits are the figure.
    let shown: String = md
        .split_once("lowest full interval ")
        .and_then(|(_, rest)| rest.split([';', '.']).next())
        .unwrap_or_else(|| panic!("no lowest interval: {md}"))
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    assert_eq!(shown, lowest.to_string(), "{md}");
}

/// SIGTERM while an experiment (here a sweep) makes its full-size simulated drive, which takes
/// about 12 s on this machine, ends it at once, recorded as interrupted before any phase:
/// before, the signal waited until the drive was made, saved and read back (21.9 s).
#[test]
fn a_signal_while_an_experiment_makes_its_drive_ends_it_at_once() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("sweep");
    let mut child = ssdfade(work.path())
        .args([
            "sweep",
            "sim:vertex2-60g",
            "--qd",
            "1",
            "--point-duration",
            "1s",
        ])
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !out.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the sweep ended early");
        assert!(t0.elapsed() < Duration::from_secs(60), "no directory");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    let ended = common::signal_and_reap(
        &mut child,
        nix::sys::signal::SIGTERM,
        Duration::from_secs(30),
    );
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(ended.status.code(), Some(130), "{stderr}");
    // Most of what is left is the kernel freeing the half-made drive (1.9 s at load 10): the
    // CPU it took, which a loaded machine's wait for a CPU does not add to.
    assert!(
        ended.cpu < Duration::from_secs(5),
        "worked {:?} after the signal ({:?} in all)",
        ended.cpu,
        ended.wall
    );
    let text = std::fs::read_to_string(out.join("experiment.json")).unwrap();
    let record: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(record["status"], "interrupted", "{record}");
    assert_eq!(record["phases"][0]["attempts"], 0, "{record}");
}
