//! Real storage controllers under QEMU 7.2 (TCG): NVMe (a 512 B namespace, a 4Kn one beside a
//! second namespace, one with its volatile write cache off), virtio-scsi, AHCI and virtio-blk.
//! The guest runs `tests/qemu/guest/ci.sh`, the short subset: info, erase and measure on each
//! controller, slog on two, the signature check without blkid / with busybox's / ambivalent, an
//! empty partition, serials and WWNs, the NVMe write cache, transport classes, dry runs that
//! refuse what real runs refuse, the drive's temperature in every sample (on a `scsi_debug` disk
//! the guest creates too; virtio-scsi, which refuses LOG SENSE, is asked once with one note) with
//! the sampler's CPU per ask under the interval, and power states against nvme-cli and hdparm.
//! Each check prints one `CHECK ok` or `CHECK FAIL` line; this test
//! fails on any failure. The full set runs from `tests/qemu/run-all.sh` (docs/qemu.md has its table).
//!
//! QEMU, the Debian kernel and the drive tools come from `tests/qemu/setup.sh` (apt-get download
//! into `target/qemu/root`, nothing installed). Skipped, with the reason, when they cannot be had
//! (offline, not root) or when `SSDFADE_QEMU=0`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::skip;

const TEST: &str = "emulated_controllers_pass_the_short_subset";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/qemu")
}

fn qdir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/qemu")
}

/// Runs a fixture script; its combined output when it fails.
fn script(name: &str, args: &[&str], env: &[(&str, &str)]) -> Result<String, String> {
    let out = Command::new("bash")
        .arg(fixture().join(name))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .map_err(|e| format!("cannot run bash {name}: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(text)
    } else {
        Err(text)
    }
}

/// Holds `target/qemu/lock` so that two test runs do not share the disks and share directory.
fn lock() -> std::fs::File {
    use std::os::fd::AsRawFd;
    std::fs::create_dir_all(qdir()).unwrap();
    let f = std::fs::File::create(qdir().join("lock")).unwrap();
    // SAFETY: flock on a descriptor we own; released when it closes.
    assert_eq!(unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) }, 0);
    f
}

#[test]
fn emulated_controllers_pass_the_short_subset() {
    if std::env::var("SSDFADE_QEMU").as_deref() == Ok("0") {
        skip(TEST, "SSDFADE_QEMU=0");
        return;
    }
    let _lock = lock();
    if !qdir().join("root/.complete").exists() && !nix::unistd::Uid::effective().is_root() {
        skip(
            TEST,
            "QEMU is not fetched yet and fetching it (tests/qemu/setup.sh, apt-get) needs root",
        );
        return;
    }
    if let Err(out) = script("setup.sh", &[], &[]) {
        let last = out.lines().last().unwrap_or("no output");
        skip(
            TEST,
            &format!(
                "tests/qemu/setup.sh could not fetch QEMU and the Debian kernel (offline?): {last}"
            ),
        );
        return;
    }
    script("build-initramfs.sh", &[env!("CARGO_BIN_EXE_ssdfade")], &[])
        .unwrap_or_else(|out| panic!("build-initramfs.sh failed:\n{out}"));
    let started = std::time::Instant::now();
    let ran = script("run-vm.sh", &["main", "ci.sh"], &[("VM_TIMEOUT", "900")]);
    let share = qdir().join("share/out");
    let log = std::fs::read_to_string(share.join("ci.sh.log")).unwrap_or_default();
    let console = std::fs::read_to_string(share.join("ci.sh.console")).unwrap_or_default();
    let tail = |t: &str| {
        t.lines()
            .rev()
            .take(30)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        ran.is_ok() && log.contains("GUEST-DONE"),
        "the guest did not finish ({:?}):\nconsole:\n{}\nlog:\n{}",
        ran.err(),
        tail(&console),
        tail(&log)
    );
    let failed: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("CHECK FAIL"))
        .collect();
    let passed = log.lines().filter(|l| l.starts_with("CHECK ok")).count();
    eprintln!(
        "qemu: {passed} checks passed, {} failed, in {:.0} s",
        failed.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failed.is_empty(),
        "{} check(s) failed in the guest (log: {}):\n{}",
        failed.len(),
        share.join("ci.sh.log").display(),
        failed.join("\n")
    );
    assert!(passed >= 80, "only {passed} checks ran:\n{}", tail(&log));
}
