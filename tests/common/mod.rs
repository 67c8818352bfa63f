//! Helpers for integration tests: the ssdfade binary, and RAM and loop devices that a test
//! creates for itself and that are removed when the guard drops, even when the test fails.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The built `ssdfade` binary, run from `dir`.
pub fn ssdfade(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ssdfade"));
    cmd.current_dir(dir);
    cmd
}

/// The built `ssdfade` binary, run from `dir` under a resource limit: `limit` is the `ulimit`
/// option and value (`-v 400000`, `-n 16`), set by a shell that then becomes ssdfade.
pub fn ssdfade_under(dir: &Path, limit: &str) -> Command {
    let mut cmd = Command::new("sh");
    cmd.current_dir(dir)
        .arg("-c")
        .arg(format!("ulimit {limit} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_ssdfade"));
    cmd
}

/// Records that `test` did not run and why: printed (into the test's captured output) and,
/// when `SSDFADE_TEST_SKIPS` names a file, appended to it as one line, so that `.ci/run` can
/// list every skip with its reason after `cargo test` (which reports a skipped test as `ok`).
pub fn skip(test: &str, reason: &str) {
    let line = format!("skipped {test}: {reason}");
    eprintln!("{line}");
    if let Some(path) = std::env::var_os("SSDFADE_TEST_SKIPS") {
        use std::io::Write;
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()));
        if let Err(e) = appended {
            panic!("recording a skip in {}: {e}", Path::new(&path).display());
        }
    }
}

/// True when running as root; otherwise records why the calling test is skipped.
pub fn root_or_skip(test: &str) -> bool {
    let root = nix::unistd::Uid::effective().is_root();
    if !root {
        skip(test, "needs root to create zram and loop devices");
    }
    root
}

pub fn sh(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A zram RAM device made for one test (hot_add), reset and hot_removed on drop.
pub struct Zram {
    pub index: u32,
    pub path: PathBuf,
}

impl Zram {
    pub fn new(size: u64) -> Zram {
        if !Path::new("/sys/class/zram-control").exists() {
            let _ = Command::new("modprobe")
                .args(["zram", "num_devices=0"])
                .status();
        }
        let index: u32 = std::fs::read_to_string("/sys/class/zram-control/hot_add")
            .expect("zram hot_add (is the zram module available?)")
            .trim()
            .parse()
            .expect("zram index");
        let zram = Zram {
            index,
            path: PathBuf::from(format!("/dev/zram{index}")),
        };
        std::fs::write(format!("/sys/block/zram{index}/disksize"), size.to_string())
            .expect("zram disksize");
        for _ in 0..100 {
            if zram.path.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        zram
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        // A process killed by the test (or an io_uring ring torn down late) may still hold the
        // device for a moment: reset fails with EBUSY until it lets go, so keep trying.
        for _ in 0..200 {
            let reset = std::fs::write(format!("/sys/block/zram{}/reset", self.index), "1");
            if reset.is_ok()
                && std::fs::write("/sys/class/zram-control/hot_remove", self.index.to_string())
                    .is_ok()
            {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        eprintln!(
            "could not remove zram{} (still busy after 10 s)",
            self.index
        );
    }
}

/// A loop device with direct I/O over a temporary file, detached on drop.
pub struct Loop {
    pub path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Loop {
    pub fn new(size: u64) -> Loop {
        let dir = tempfile::tempdir_in(std::env::temp_dir()).expect("temp dir");
        let backing = dir.path().join("backing.img");
        let f = std::fs::File::create(&backing).expect("backing file");
        f.set_len(size).expect("backing file size");
        drop(f);
        let path = sh(Command::new("losetup")
            .args(["--direct-io=on", "--find", "--show"])
            .arg(&backing));
        Loop {
            path: PathBuf::from(path),
            _dir: dir,
        }
    }
}

impl Loop {
    /// A loop device over a file of `size` bytes with an MBR partition table holding `parts`
    /// (first sector, sectors; type 0x83, nothing inside), its partitions scanned (`-P`); `None`
    /// (the device detached again) when the kernel shows no partition: one built without
    /// MSDOS partition support.
    pub fn partitioned(size: u64, parts: &[(u32, u32)]) -> Option<Loop> {
        let dir = tempfile::tempdir_in(std::env::temp_dir()).expect("temp dir");
        let backing = dir.path().join("backing.img");
        let mut mbr = vec![0u8; 512];
        for (i, (start, sectors)) in parts.iter().enumerate() {
            let e = 446 + 16 * i;
            mbr[e + 4] = 0x83;
            mbr[e + 8..e + 12].copy_from_slice(&start.to_le_bytes());
            mbr[e + 12..e + 16].copy_from_slice(&sectors.to_le_bytes());
        }
        mbr[510] = 0x55;
        mbr[511] = 0xAA;
        std::fs::write(&backing, &mbr).expect("backing file");
        std::fs::File::options()
            .write(true)
            .open(&backing)
            .and_then(|f| f.set_len(size))
            .expect("backing file size");
        let path = sh(Command::new("losetup")
            .args(["--direct-io=on", "--partscan", "--find", "--show"])
            .arg(&backing));
        let first = PathBuf::from(format!("{path}p1"));
        // Made before waiting, so that it is detached whatever happens.
        let lo = Loop {
            path: PathBuf::from(path),
            _dir: dir,
        };
        for _ in 0..100 {
            if first.exists() {
                return Some(lo);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        None
    }

    /// The file the loop device reads and writes.
    pub fn backing(&self) -> PathBuf {
        self._dir.path().join("backing.img")
    }
}

/// `mkfs.ext4` options for a fixture that does not change its own blocks after mount: without
/// them ext4 initialises its inode tables and journal lazily, in the background, for seconds.
pub const INERT_EXT4: &[&str] = &["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"];

/// Polls `condition` every 20 ms until it holds, for at most `secs` seconds; panics saying
/// `what` it waited for otherwise. For tests that need a process to have got somewhere.
pub fn wait_for(what: &str, secs: u64, mut condition: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while !condition() {
        assert!(
            std::time::Instant::now() < deadline,
            "waited {secs} s for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Stops the process `pid` with SIGSTOP, holds it stopped for `hold` from the moment every
/// one of its threads is stopped, and continues it with SIGCONT. The kernel stops a process
/// only once the thread that took the signal leaves an uninterruptible wait: ssdfade's sampler
/// fsyncs each sample, and on a busy disk that can take seconds, so a SIGCONT sent a fixed
/// time after the SIGSTOP may come before the stop did (and cancel it). Returns how long the
/// stop took to take hold.
pub fn stop_for(pid: u32, hold: std::time::Duration) -> std::time::Duration {
    use nix::sys::signal::{kill, Signal};
    let target = nix::unistd::Pid::from_raw(pid as i32);
    let asked = std::time::Instant::now();
    kill(target, Signal::SIGSTOP).unwrap();
    wait_for(&format!("process {pid} to stop"), 60, || all_stopped(pid));
    let took = asked.elapsed();
    std::thread::sleep(hold);
    kill(target, Signal::SIGCONT).unwrap();
    took
}

/// How a child process ended (after a signal): its exit status, the wall time from the signal
/// until the test saw it end, and the CPU time the child spent after the signal. The CPU time
/// is the child's own work towards its end, which neither the child's nor the test's waiting
/// for a CPU on a loaded machine adds to: a bound on how long a stop takes is asserted on it,
/// with a wall-time bound far above it for a child that waits instead of working.
pub struct Ended {
    pub status: std::process::ExitStatus,
    pub wall: std::time::Duration,
    pub cpu: std::time::Duration,
}

/// Sends `signal` to `child` and reaps it (do not wait on `child` again; read its pipes),
/// killing it and failing when it still runs `limit` after the signal.
pub fn signal_and_reap(
    child: &mut std::process::Child,
    signal: nix::sys::signal::Signal,
    limit: std::time::Duration,
) -> Ended {
    let pid = child.id() as i32;
    let before = cpu_so_far(pid);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal).unwrap();
    let ended = reap(child, limit);
    Ended {
        cpu: ended.cpu.saturating_sub(before),
        ..ended
    }
}

/// Waits for `child` to end and reaps it (do not wait on `child` again; read its pipes): its
/// status, the wall time from now and all the CPU time it used. Kills it and fails when it
/// still runs after `limit`.
pub fn reap(child: &mut std::process::Child, limit: std::time::Duration) -> Ended {
    use std::os::unix::process::ExitStatusExt;
    let pid = child.id() as i32;
    let start = std::time::Instant::now();
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; wait4 fills it for the child this test started.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: wait4 on the id of a child of this process that nothing else reaps.
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(reaped >= 0, "wait4: {}", std::io::Error::last_os_error());
        if reaped == pid {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("process {pid} still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let seconds =
        |t: libc::timeval| std::time::Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Ended {
        status: std::process::ExitStatus::from_raw(status),
        wall: start.elapsed(),
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
    }
}

/// The CPU time process `pid` has used so far (all its threads; /proc/PID/stat's utime and
/// stime, in clock ticks).
fn cpu_so_far(pid: i32) -> std::time::Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    // utime and stime are fields 14 and 15 of stat; the split starts at field 3.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    std::time::Duration::from_secs_f64(ticks as f64 / per_second)
}

/// True when every thread of `pid` is stopped (state T or t in /proc/PID/task/TID/stat), or
/// has exited.
fn all_stopped(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return true;
    };
    tasks.flatten().all(|task| {
        // The state follows the command name, which is in parentheses and may hold any.
        std::fs::read_to_string(task.path().join("stat")).map_or(true, |stat| {
            let state = stat
                .rsplit_once(')')
                .map_or("", |(_, rest)| rest.trim_start());
            matches!(state.chars().next(), Some('T' | 't' | 'Z' | 'X') | None)
        })
    })
}

/// Number of complete lines in `path` (0 when it does not exist yet).
pub fn lines_in(path: &Path) -> usize {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.path).output();
        let _ = Command::new("swapoff").arg(&self.path).output();
        let _ = Command::new("losetup").arg("-d").arg(&self.path).output();
    }
}

/// Runs a command that must succeed and print one JSON object, and returns that object.
pub fn json_ok(cmd: &mut Command) -> serde_json::Value {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{cmd:?} printed no JSON object: {e}"))
}

/// Runs `measure TARGET --destroy-data TARGET --json OPTIONS` in `dir` on a device the test
/// created (`options` as typed, split at spaces), and returns its --json object.
pub fn measure_json(dir: &Path, target: &str, options: &str) -> serde_json::Value {
    json_ok(
        ssdfade(dir)
            .args(["measure", target, "--destroy-data", target, "--json"])
            .args(options.split_whitespace()),
    )
}

/// Mean I/Os in flight over the samples `full` (Little's law: their I/Os × mean latency ÷ the
/// time the process ran, a sample's stopped time left out).
pub fn in_flight(full: &[ssdfade::stats::Sample]) -> f64 {
    let busy: f64 = full
        .iter()
        .map(|s| s.ops as f64 * s.lat_us.unwrap().mean / 1e6)
        .sum();
    let ran: f64 = full
        .iter()
        .map(|s| s.t_end_s - s.t_start_s - s.stopped_s.unwrap_or(0.0))
        .sum();
    busy / ran
}

/// Runs a command and returns its stdout, panicking with its stderr on failure.
pub fn run_ok(cmd: &mut Command) -> String {
    sh(cmd)
}

/// The headline fade's fresh and faded levels recomputed from `samples` by README's definition
/// ("How figures are defined"): the median IOPS of the full intervals (at least 99 % of
/// `interval_s` long) in the first and in the last window, each window a minute, at least five
/// intervals, at most a quarter of the run and at least one interval.
pub fn window_medians(samples: &[ssdfade::stats::Sample], interval_s: f64) -> (f64, f64) {
    let full: Vec<&ssdfade::stats::Sample> = samples
        .iter()
        .filter(|s| s.t_end_s - s.t_start_s >= 0.99 * interval_s)
        .collect();
    // No full interval: the last one stands for the end (README: "when no sample is full, the
    // last one is used").
    let last: &ssdfade::stats::Sample = full.last().copied().unwrap_or(samples.last().unwrap());
    let (t0, t1) = (samples[0].t_start_s, last.t_end_s);
    let span = t1 - t0;
    let window = 60f64.max(5.0 * interval_s).min(span / 4.0).max(interval_s);
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    let start = full
        .iter()
        .filter(|s| s.t_end_s <= t0 + window + 1e-9)
        .map(|s| s.iops)
        .collect::<Vec<_>>();
    let end = full
        .iter()
        .filter(|s| s.t_start_s >= t1 - window - 1e-9)
        .map(|s| s.iops)
        .collect::<Vec<_>>();
    // A window shorter than the interval at its edge holds none: the edge interval stands.
    let start = if start.is_empty() {
        samples[0].iops
    } else {
        median(start)
    };
    let end = if end.is_empty() {
        last.iops
    } else {
        median(end)
    };
    (start, end)
}

/// Copies the directory tree `from` into `to` (the examples are only read; `report` writes).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// The phases of experiment directory `dir` run again as the plain commands their kinds name
/// (`erase`, `soak`, `measure`) on one kept simulated drive (`state=` a file in `work`), each
/// with its phase's workload and seed as its run.json records them: the same drive in the same
/// state before each phase. Returns the directory holding a run directory per phase, named as
/// the experiment's.
pub fn replay_phases(work: &Path, dir: &Path, target: &str) -> PathBuf {
    let into = work.join("replay");
    let drive = format!("{target},state={}", work.join("replay.sim").display());
    let exp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("experiment.json")).unwrap())
            .unwrap();
    for phase in exp["phases"].as_array().unwrap() {
        let sub = phase["dir"].as_str().unwrap();
        let kind = phase["kind"].as_str().unwrap();
        let mut cmd = ssdfade(work);
        cmd.args([kind, &drive]).arg("--out").arg(into.join(sub));
        if kind == "erase" {
            cmd.args(["--method", "sim"]);
        } else {
            let run: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join(sub).join("run.json")).unwrap(),
            )
            .unwrap();
            let w = &run["workload"];
            let arg = |k: &str| w[k].to_string();
            cmd.args(["--bs", &arg("bs"), "--read-pct", &arg("read_pct")])
                .args(["--random-pct", &arg("random_pct"), "--qd", &arg("qd")])
                .args(["--interval", &format!("{}s", arg("interval"))])
                .args(["--seed", &w["seed"].as_u64().unwrap().to_string()]);
            match w["bytes"].as_u64() {
                Some(bytes) => cmd.args(["--bytes", &bytes.to_string()]),
                None => cmd.args(["--duration", &format!("{}s", arg("duration"))]),
            };
        }
        run_ok(&mut cmd);
    }
    into
}
