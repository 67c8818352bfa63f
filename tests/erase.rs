//! `erase` and `info` on devices and files the tests create: the erased region reads back as
//! zeros, every erase is recorded, dry runs print the command bytes and change nothing, and the
//! refusals of writing apply.

mod common;

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use common::{json_ok, root_or_skip, run_ok, ssdfade, Loop, Zram};

const REGION: usize = 4 << 20;

/// Fills the first `REGION` bytes of `path` with a non-zero pattern and syncs it.
fn fill(path: &Path) {
    let data: Vec<u8> = (0..REGION).map(|i| (i % 251) as u8 | 1).collect();
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all(&data).unwrap();
    f.sync_all().unwrap();
}

fn head(path: &Path) -> Vec<u8> {
    let mut f = std::fs::File::open(path).unwrap();
    f.seek(SeekFrom::Start(0)).unwrap();
    let mut buf = vec![0u8; REGION];
    f.read_exact(&mut buf).unwrap();
    buf
}

fn is_filled(path: &Path) -> bool {
    head(path).iter().all(|&b| b != 0)
}

fn is_zero(path: &Path) -> bool {
    head(path).iter().all(|&b| b == 0)
}

/// Runs `ssdfade erase` on `dev` with `method`, expects success and returns erase.json.
fn erase_ok(dev: &Path, method: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let d = dev.to_str().unwrap();
    let out = ssdfade(dir.path())
        .args(["erase", d, "--method", method, "--destroy-data", d])
        .args(["--chunk", "1M", "--out", "rec"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("rec/erase.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn assert_erased(dev: &Path, method: &str) {
    fill(dev);
    assert!(is_filled(dev));
    let started = std::time::Instant::now();
    let rec = erase_ok(dev, method);
    let wall = started.elapsed().as_secs_f64();
    assert!(is_zero(dev), "{method} left data on {}", dev.display());
    assert_eq!(rec["outcome"], "completed");
    assert_eq!(rec["method"], method);
    let took = rec["duration_s"].as_f64().unwrap();
    assert!(
        took > 0.0 && took <= wall,
        "erase.json says {took} s; the command took {wall:.3} s"
    );
    assert!(rec["drive_before"]["kind"].is_string());
}

#[test]
fn trim_and_zeroout_on_zram_read_back_zeros() {
    if !root_or_skip("trim_and_zeroout_on_zram_read_back_zeros") {
        return;
    }
    let zram = Zram::new(32 << 20);
    assert_erased(&zram.path, "trim");
    assert_erased(&zram.path, "zeroout");
}

#[test]
fn trim_and_zeroout_on_loop_read_back_zeros() {
    if !root_or_skip("trim_and_zeroout_on_loop_read_back_zeros") {
        return;
    }
    let lo = Loop::new(32 << 20);
    assert_erased(&lo.path, "trim");
    assert_erased(&lo.path, "zeroout");
}

#[test]
fn punch_on_a_file_frees_it_and_keeps_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data.img");
    std::fs::write(&file, vec![0xAAu8; REGION]).unwrap();
    let f = file.to_str().unwrap();
    let out = ssdfade(dir.path())
        .args(["erase", f, "--destroy-data", f, "--out", "rec"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::metadata(&file).unwrap().len(), REGION as u64);
    assert!(is_zero(&file));
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("rec/erase.json")).unwrap())
            .unwrap();
    assert_eq!(rec["method_requested"], "auto");
    assert_eq!(rec["method"], "punch");
    assert!(rec["notes"][0]
        .as_str()
        .unwrap()
        .contains("auto chose punch"));
}

#[test]
fn erase_without_destroy_data_is_refused_and_writes_nothing() {
    if !root_or_skip("erase_without_destroy_data_is_refused_and_writes_nothing") {
        return;
    }
    let zram = Zram::new(16 << 20);
    let other = Zram::new(16 << 20);
    fill(&zram.path);
    let dir = tempfile::tempdir().unwrap();
    let d = zram.path.to_str().unwrap();
    let out = ssdfade(dir.path())
        .args(["erase", d, "--method", "trim", "--out", "rec"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--destroy-data"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // Naming another device is refused too.
    let out = ssdfade(dir.path())
        .args(["erase", d, "--method", "trim", "--out", "rec"])
        .args(["--destroy-data", other.path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(is_filled(&zram.path));
    assert!(!dir.path().join("rec").exists());
}

#[test]
fn erase_of_a_mounted_loop_device_is_refused() {
    if !root_or_skip("erase_of_a_mounted_loop_device_is_refused") {
        return;
    }
    let lo = Loop::new(32 << 20);
    let d = lo.path.to_str().unwrap();
    run_ok(
        std::process::Command::new("mkfs.ext4")
            .args(common::INERT_EXT4)
            .arg(d),
    );
    let mnt = tempfile::tempdir().unwrap();
    run_ok(
        std::process::Command::new("mount")
            .args(["-o", "ro", d])
            .arg(mnt.path()),
    );
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args([
            "erase",
            d,
            "--method",
            "trim",
            "--destroy-data",
            d,
            "--force",
        ])
        .output()
        .unwrap();
    let _ = std::process::Command::new("umount")
        .arg(mnt.path())
        .output();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mounted"), "{err}");
}

#[test]
fn dry_runs_print_the_command_bytes_and_change_nothing() {
    if !root_or_skip("dry_runs_print_the_command_bytes_and_change_nothing") {
        return;
    }
    let zram = Zram::new(16 << 20);
    fill(&zram.path);
    let d = zram.path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dry = |method: &[&str]| {
        let out = ssdfade(dir.path())
            .args(["erase", d, "--destroy-data", d, "--dry-run"])
            .args(method)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let trim = dry(&["--method", "trim", "--chunk", "8M"]);
    assert!(trim.contains("BLKDISCARD (0x1277) × 2 call(s)"), "{trim}");
    assert!(
        trim.contains("start 8388608 len 8388608: 00 00 80 00 00 00 00 00 00 00 80 00 00 00 00 00"),
        "{trim}"
    );
    let zero = dry(&["--method", "zeroout"]);
    assert!(zero.contains("BLKZEROOUT (0x127f)"), "{zero}");
    assert!(is_filled(&zram.path));
    assert!(!dir.path().join("results").exists());
}

/// Runs `erase` on `dev` with `args`, with and without `--dry-run`, and returns both outputs.
fn real_and_dry(dir: &Path, dev: &str, args: &[&str]) -> [std::process::Output; 2] {
    let run = |extra: &[&str]| {
        ssdfade(dir)
            .args(["erase", dev, "--destroy-data", dev])
            .args(args)
            .args(extra)
            .output()
            .unwrap()
    };
    [run(&["--out", "rec"]), run(&["--dry-run"])]
}

#[test]
fn a_dry_run_refuses_what_the_real_run_refuses() {
    if !root_or_skip("a_dry_run_refuses_what_the_real_run_refuses") {
        return;
    }
    let zram = Zram::new(16 << 20);
    fill(&zram.path);
    let d = zram.path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--method", "ata-secure-erase"][..],
        &["--method", "nvme-format"],
        &["--method", "nvme-sanitize", "--action", "crypto"],
        &["--method", "punch"],
    ] {
        let [real, dry] = real_and_dry(dir.path(), d, args);
        let (real_err, dry_err) = (
            String::from_utf8_lossy(&real.stderr),
            String::from_utf8_lossy(&dry.stderr),
        );
        assert_eq!(real.status.code(), Some(2), "{args:?}: {real_err}");
        assert_eq!(dry.status.code(), Some(2), "{args:?}: {dry_err}");
        assert_eq!(real_err, dry_err, "{args:?}");
        assert!(dry.stdout.is_empty(), "{args:?}");
    }
    assert!(is_filled(&zram.path));
    assert!(!dir.path().join("rec").exists());
}

#[test]
fn secure_discard_the_device_rejects_is_refused_before_a_run_directory_exists() {
    if !root_or_skip("secure_discard_the_device_rejects_is_refused_before_a_run_directory_exists") {
        return;
    }
    // Neither zram nor a loop device supports BLKSECDISCARD, and sysfs cannot say so.
    let zram = Zram::new(16 << 20);
    fill(&zram.path);
    let d = zram.path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let [real, dry] = real_and_dry(dir.path(), d, &["--method", "secure-discard"]);
    for out in [&real, &dry] {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("does not support secure discard"), "{err}");
        assert!(err.contains("no sysfs attribute"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    assert!(!dir.path().join("rec").exists());
    assert!(is_filled(&zram.path));
}

/// A directory holding one executable `blkid` shell script with `body`.
fn fake_blkid(body: &str) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("blkid");
    std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// `info --json` and the signature it found, with PATH set to `path`.
fn signature_with_path(dev: &str, path: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .env("PATH", path)
        .args(["info", dev, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "info with PATH={path}: exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["signature"].clone()
}

#[test]
fn the_signature_check_works_when_blkid_is_absent_failing_or_ambivalent() {
    if !root_or_skip("the_signature_check_works_when_blkid_is_absent_failing_or_ambivalent") {
        return;
    }
    let lo = Loop::new(32 << 20);
    let d = lo.path.to_str().unwrap();
    let failing = fake_blkid("exit 4");
    let ambivalent = fake_blkid("exit 8");
    let busybox = fake_blkid("echo \"$4: TYPE=\\\"ext4\\\"\"");
    let empty = tempfile::tempdir().unwrap();
    let path = |d: &tempfile::TempDir| format!("{}:/usr/bin:/bin", d.path().display());
    // Empty: no signature (an empty PATH finds /usr/sbin/blkid all the same).
    for p in [path(&empty), path(&failing), path(&busybox)] {
        assert!(signature_with_path(d, &p).is_null(), "{p}");
    }
    run_ok(
        std::process::Command::new("mkfs.ext4")
            .args(common::INERT_EXT4)
            .arg(d),
    );
    assert_eq!(signature_with_path(d, &path(&empty)), "ext4");
    for p in [path(&failing), path(&busybox)] {
        assert_eq!(signature_with_path(d, &p), "ext2/3/4", "{p}");
    }
    let sig = signature_with_path(d, &path(&ambivalent));
    assert!(sig.as_str().unwrap().contains("several"), "{sig}");
    // The gate holds with a failing blkid: no --force, no write.
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .env("PATH", path(&failing))
        .args([
            "erase",
            d,
            "--method",
            "zeroout",
            "--destroy-data",
            d,
            "--out",
            "rec",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("ext2/3/4 signature") && err.contains("--force"),
        "{err}"
    );
    assert!(!dir.path().join("rec").exists());
}

#[test]
fn partition_table_entries_alone_are_not_a_signature() {
    if !root_or_skip("partition_table_entries_alone_are_not_a_signature") {
        return;
    }
    // What `blkid -p` prints for an empty partition: where it lies, nothing about its contents.
    let lo = Loop::new(16 << 20);
    let d = lo.path.to_str().unwrap();
    let entries = fake_blkid(
        "printf 'DEVNAME=%s\\nPART_ENTRY_SCHEME=dos\\nPART_ENTRY_TYPE=0x83\\nPART_ENTRY_NUMBER=1\\n' \"$4\"",
    );
    let path = format!("{}:/usr/bin:/bin", entries.path().display());
    assert!(signature_with_path(d, &path).is_null());
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .env("PATH", &path)
        .args([
            "erase",
            d,
            "--method",
            "zeroout",
            "--destroy-data",
            d,
            "--out",
            "rec",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_empty_partition_of_a_loop_device_needs_no_force() {
    if !root_or_skip("an_empty_partition_of_a_loop_device_needs_no_force") {
        return;
    }
    let Some(lo) = Loop::partitioned(16 << 20, &[(2048, 8192)]) else {
        common::skip(
            "an_empty_partition_of_a_loop_device_needs_no_force",
            "this kernel reads no MSDOS partition tables (CONFIG_MSDOS_PARTITION); tests/qemu.rs covers partitions",
        );
        return;
    };
    let part = format!("{}p1", lo.path.display());
    let dir = tempfile::tempdir().unwrap();
    let info = json_ok(ssdfade(dir.path()).args(["info", &part, "--json"]));
    assert!(info["signature"].is_null(), "{info}");
    assert_eq!(
        info["partition_of"],
        lo.path.file_name().unwrap().to_str().unwrap()
    );
    let whole = json_ok(ssdfade(dir.path()).args(["info", lo.path.to_str().unwrap(), "--json"]));
    assert_eq!(whole["signature"], "dos");
    let out = ssdfade(dir.path())
        .args([
            "erase",
            &part,
            "--method",
            "zeroout",
            "--destroy-data",
            &part,
            "--out",
            "rec",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn methods_that_do_not_fit_the_target_are_refused() {
    if !root_or_skip("methods_that_do_not_fit_the_target_are_refused") {
        return;
    }
    let zram = Zram::new(16 << 20);
    fill(&zram.path);
    let d = zram.path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for method in [
        "nvme-format",
        "nvme-sanitize",
        "ata-secure-erase",
        "punch",
        "sim",
    ] {
        let out = ssdfade(dir.path())
            .args(["erase", d, "--destroy-data", d, "--method", method])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{method}");
    }
    assert!(is_filled(&zram.path));
}

#[test]
fn info_shows_zram_and_files_with_unknown_wear() {
    if !root_or_skip("info_shows_zram_and_files_with_unknown_wear") {
        return;
    }
    let zram = Zram::new(16 << 20);
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args(["info", zram.path.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "zram");
    assert_eq!(v["size_bytes"], 16 << 20);
    assert_eq!(v["logical_block"], 4096);
    assert_eq!(v["discard"]["supported"], true);
    assert_eq!(v["wear"]["source"], "none");
    assert!(v["in_use"].is_null());

    let table = ssdfade(dir.path())
        .args(["info", zram.path.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("host writes       unknown"), "{text}");

    let file = dir.path().join("f.img");
    std::fs::write(&file, b"x").unwrap();
    let out = ssdfade(dir.path())
        .args(["info", file.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "file");
    assert!(v["backing_device"].is_string());
}

#[test]
fn measure_records_drive_info_before_and_after() {
    if !root_or_skip("measure_records_drive_info_before_and_after") {
        return;
    }
    let zram = Zram::new(32 << 20);
    let d = zram.path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args(["measure", d, "--destroy-data", d, "--duration", "1s"])
        .args(["--qd", "2", "--out", "run"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let info = ssdfade::results::read_info(&dir.path().join("run")).unwrap();
    assert_eq!(info.drive_before.unwrap().kind, "zram");
    assert_eq!(info.drive_after.unwrap().size_bytes, Some(32 << 20));
    assert!(info.write_amplification.is_none());
}

/// Runs `measure` on a sim target for 10 simulated seconds and returns its IOPS.
fn sim_iops(dir: &Path, target: &str, out: &str) -> f64 {
    let v = json_ok(
        ssdfade(dir)
            .args([
                "measure",
                target,
                "--duration",
                "10s",
                "--align",
                "512",
                "--json",
            ])
            .args(["--out", out]),
    );
    v["iops"].as_f64().unwrap()
}

#[test]
fn sim_secure_erase_restores_sim_performance() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("v2.state");
    let target = format!("sim:vertex2-60g,state={}", state.display());
    let probe = ssdfade(dir.path())
        .args(["info", &target])
        .output()
        .unwrap();
    if String::from_utf8_lossy(&probe.stderr).contains("not built in") {
        common::skip(
            "sim_secure_erase_restores_sim_performance",
            "simulated targets are not built in this build",
        );
        return;
    }
    let aged = sim_iops(dir.path(), &target, "before");
    let out = ssdfade(dir.path())
        .args(["erase", &target, "--method", "sim", "--out", "erase"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh = sim_iops(dir.path(), &target, "after");
    assert!(
        fresh > aged * 1.2,
        "aged {aged:.0} IOPS, after erase {fresh:.0}"
    );
    let rec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("erase/erase.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(rec["method"], "sim");
    assert_eq!(rec["outcome"], "completed");
    let run = ssdfade::results::read_info(&dir.path().join("after")).unwrap();
    let wa = run
        .write_amplification
        .expect("sim reports host and NAND writes");
    assert!(wa.factor >= 1.0, "{wa:?}");
}

/// Waits until `path` exists and holds `text`.
fn wait_for_text(path: &Path, text: &str) {
    common::wait_for(&format!("{text} in {}", path.display()), 60, || {
        std::fs::read_to_string(path).is_ok_and(|t| t.contains(text))
    });
}

fn erase_json(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("erase.json")).unwrap()).unwrap()
}

fn group_alive(group: i32) -> bool {
    ssdfade::erase::external::group_alive(group as u32)
}

#[test]
fn sigterm_during_a_command_erase_stops_its_process_group_and_records_an_interruption() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.img"), vec![1u8; 1 << 20]).unwrap();
    let mut child = ssdfade(dir.path())
        .args(["erase", "x.img", "--destroy-data", "x.img", "--out", "er"])
        .args(["--method", "command:sleep 600 & echo started; wait"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let record = dir.path().join("er/erase.json");
    wait_for_text(&record, "tool_process_group");
    let group = erase_json(&dir.path().join("er"))["tool_process_group"]
        .as_i64()
        .unwrap() as i32;
    assert_ne!(group, child.id() as i32, "the tool has a group of its own");
    assert!(group_alive(group));
    let ended = common::signal_and_reap(
        &mut child,
        nix::sys::signal::SIGTERM,
        std::time::Duration::from_secs(15),
    );
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(ended.status.code(), Some(130), "{stderr}");
    // Within 1.5 s of the signal, as every long command: its work after the signal, which a
    // loaded machine's wait for a CPU does not add to.
    assert!(
        ended.cpu < std::time::Duration::from_millis(1500),
        "worked {:?} after the signal ({:?} in all)",
        ended.cpu,
        ended.wall
    );
    let record = erase_json(&dir.path().join("er"));
    assert_eq!(record["outcome"], "interrupted", "{record}");
    assert!(record["done"].is_null(), "{record}");
    assert!(!group_alive(group), "the tool's sleep still runs");
}

#[test]
fn resume_refuses_while_a_killed_experiments_erase_command_still_runs() {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("t.img"), vec![1u8; 16 << 20]).unwrap();
    let mut child = ssdfade(work.path())
        .args([
            "experiment",
            "wsat",
            "t.img",
            "--destroy-data",
            "t.img",
            "--out",
            "exp",
        ])
        .args(["--erase-method", "command:sleep 600; true"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let record = work.path().join("exp/01-purge/erase.json");
    wait_for_text(&record, "tool_process_group");
    let group = erase_json(&work.path().join("exp/01-purge"))["tool_process_group"]
        .as_i64()
        .unwrap() as i32;
    child.kill().unwrap();
    child.wait().unwrap();
    let stop_tool = || {
        let _ =
            nix::sys::signal::killpg(nix::unistd::Pid::from_raw(group), nix::sys::signal::SIGKILL);
    };
    let result = std::panic::catch_unwind(|| {
        assert!(group_alive(group), "the tool outlived its ssdfade");
        let out = ssdfade(work.path())
            .args(["resume", "exp"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("still runs (process group {group})")),
            "{stderr}"
        );
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    });
    stop_tool();
    result.unwrap();
}
