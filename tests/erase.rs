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
    let format = dry(&["--method", "nvme-format"]);
    assert!(format.contains("cdw10 0x00000200"), "{format}");
    assert!(
        format.contains("SQE bytes: 80 00 00 00 01 00 00 00"),
        "{format}"
    );
    let crypto = dry(&["--method", "nvme-format", "--crypto"]);
    assert!(crypto.contains("cdw10 0x00000400"), "{crypto}");
    let sanitize = dry(&["--method", "nvme-sanitize", "--action", "crypto"]);
    assert!(sanitize.contains("opcode 0x84"), "{sanitize}");
    assert!(sanitize.contains("cdw10 0x00000004"), "{sanitize}");
    let ata = dry(&["--method", "ata-secure-erase"]);
    assert!(
        ata.contains("CDB: 85 0a 06 00 00 00 01 00 00 00 00 00 00 40 f1 00"),
        "{ata}"
    );
    assert!(
        ata.contains("CDB: 85 06 20 00 00 00 00 00 00 00 00 00 00 40 f3 00"),
        "{ata}"
    );
    assert!(ata.contains("00 00 73 73 64 66 61 64 65 00"), "{ata}");
    let trim = dry(&["--method", "trim"]);
    assert!(trim.contains("BLKDISCARD (0x1277)"), "{trim}");
    assert!(is_filled(&zram.path));
    assert!(!dir.path().join("results").exists());
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
    let child = ssdfade(dir.path())
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
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::SIGTERM,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
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
