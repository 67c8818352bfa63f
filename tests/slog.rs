//! `ssdfade slog` on simulated drives, a zram RAM device and a loop device: the sweep's figures,
//! the run directory, the verdict and its numbers, the RAM baseline's cleanup, and refusals.

mod common;

use std::path::Path;

use common::{json_ok, root_or_skip, ssdfade, Loop, Zram};
use serde_json::Value;
use ssdfade::results::read_samples;

fn slog_json(dir: &Path, args: &[&str]) -> Value {
    json_ok(ssdfade(dir).arg("slog").args(args).arg("--json"))
}

fn reason<'a>(record: &'a Value, topic: &str) -> &'a Value {
    record["verdict"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["topic"].as_str().unwrap().starts_with(topic))
        .unwrap_or_else(|| panic!("no reason about {topic}"))
}

fn point<'a>(record: &'a Value, mode: &str, size: u64) -> &'a Value {
    record["device"]["measured"]["sizes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["mode"] == mode && p["size"] == size)
        .unwrap_or_else(|| panic!("no {mode} point of {size} bytes"))
}

/// Every size point met the stop rule (≥ 1 s and ≥ 250 writes) and its rate adds up.
fn check_sweep(record: &Value, sizes: &[u64]) {
    for mode in ["fdatasync", "dsync"] {
        for &size in sizes {
            let p = point(record, mode, size);
            let writes = p["writes"].as_u64().unwrap();
            let seconds = p["seconds"].as_f64().unwrap();
            assert!(writes >= 250 && seconds >= 1.0, "{mode} {size}: {p}");
            let mb = writes as f64 * size as f64 / 1e6 / seconds;
            assert!((p["mb_per_s"].as_f64().unwrap() - mb).abs() < 1e-6 * mb.max(1.0));
            let lat = &p["lat_us"];
            let (p50, p99, max) = (
                lat["p50"].as_f64().unwrap(),
                lat["p99"].as_f64().unwrap(),
                lat["max"].as_f64().unwrap(),
            );
            assert!(
                0.0 < p50 && p50 <= p99 * 1.001 && p99 <= max * 1.001,
                "{lat}"
            );
        }
    }
    let writers: Vec<u64> = record["device"]["measured"]["concurrency"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["writers"].as_u64().unwrap())
        .collect();
    assert_eq!(writers, [1, 2, 4, 8]);
}

/// The verdict's latency is the 4 KiB fdatasync point, and its fade starts at the median of the
/// samples' first window.
fn check_verdict_numbers(record: &Value, run: &Path) {
    let p = point(record, "fdatasync", 4096);
    let latency = &record["evidence"]["latency"];
    assert_eq!(latency["mean_us"], p["lat_us"]["mean"]);
    assert_eq!(latency["p99_us"], p["lat_us"]["p99"]);
    let value = reason(record, "4 KiB").clone();
    let shown = format!(
        "{} mean",
        ssdfade::units::format_latency_us(p["lat_us"]["mean"].as_f64().unwrap())
    );
    assert!(
        value["value"].as_str().unwrap().starts_with(&shown),
        "{value}"
    );
    let samples = read_samples(run).unwrap();
    let fade = &record["evidence"]["fade"];
    let interval = samples[0].t_end_s - samples[0].t_start_s;
    let (start, _) = common::window_medians(&samples, interval);
    assert_eq!(fade["start_iops"].as_f64().unwrap(), start);
    let sustained = &record["device"]["measured"]["sustained"];
    let ops: u64 = samples.iter().map(|s| s.ops).sum();
    assert_eq!(sustained["writes"].as_u64().unwrap(), ops);
    // The library's loader recomputes the same verdict from the run directory.
    let again = serde_json::to_value(ssdfade::slog::verdict_of_dir(run).unwrap()).unwrap();
    assert_eq!(again["rating"], record["verdict"]["rating"]);
    for (a, b) in again["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .zip(record["verdict"]["reasons"].as_array().unwrap())
    {
        assert_eq!((&a["rating"], &a["value"]), (&b["rating"], &b["value"]));
    }
}

/// Held by every test here that makes a zram device or has ssdfade make one: the kernel gives
/// a freed zram number to the next device made, so a test that checks its device is gone must
/// not run beside one that makes another (it would see the new device under the old name).
fn zram_numbers() -> std::sync::MutexGuard<'static, ()> {
    static NUMBERS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    NUMBERS.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn ram_and_enterprise_ssd_presets_are_suitable() {
    let dir = tempfile::tempdir().unwrap();
    for (preset, band) in [("ram-8g", "excellent"), ("dc-ssd-400g", "excellent")] {
        let out = format!("run-{preset}");
        let r = slog_json(
            dir.path(),
            &[
                &format!("sim:{preset}"),
                "--sustain",
                "3s",
                "--seed",
                "7",
                "--out",
                &out,
            ],
        );
        assert_eq!(
            r["verdict"]["rating"], "suitable",
            "{preset}: {}",
            r["verdict"]
        );
        let latency = reason(&r, "4 KiB");
        assert!(
            latency["value"].as_str().unwrap().contains(band),
            "{latency}"
        );
        assert_eq!(reason(&r, "power-loss")["value"], "not tested");
        assert_eq!(r["device"]["cache"]["write_cache"], "write back (plp)");
        check_sweep(
            &r,
            &[512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072],
        );
        let run = dir.path().join(&out);
        assert_eq!(read_samples(&run).unwrap().len(), 3);
        check_verdict_numbers(&r, &run);
        let info: Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
        assert_eq!(info["command"], "slog");
        assert_eq!(info["status"], "completed");
    }
}

#[test]
fn a_volatile_cache_pays_for_every_flush_in_nand_programs() {
    let dir = tempfile::tempdir().unwrap();
    let run = |cache: &str| {
        slog_json(
            dir.path(),
            &[
                &format!("sim:dc-ssd-400g,cache={cache}"),
                "--sustain",
                "0",
                "--max-size",
                "8k",
                "--out",
                cache,
            ],
        )
    };
    let mean = |r: &Value| {
        point(r, "fdatasync", 4096)["lat_us"]["mean"]
            .as_f64()
            .unwrap()
    };
    let (plp, volatile, lying) = (run("plp"), run("volatile"), run("lying"));
    // One 4 KiB NAND program is 328 µs on this preset: every flush waits for at least one,
    // which takes the drive out of the NAND-with-PLP band (≤ 300 µs).
    assert!(mean(&volatile) > 328.0, "{}", mean(&volatile));
    assert!(mean(&plp) < 100.0);
    assert_ne!(reason(&volatile, "4 KiB")["rating"], "suitable");
    // A lying cache is as fast as a protected one: only the power-loss check tells.
    assert!((mean(&lying) - mean(&plp)).abs() < 1.0);
}

#[test]
fn vertex2_after_a_soak_is_unsuitable_for_its_fade_with_a_maintenance_answer() {
    let dir = tempfile::tempdir().unwrap();
    json_ok(ssdfade(dir.path()).args([
        "soak",
        "sim:vertex2-60g",
        "--duration",
        "1h",
        "--interval",
        "60s",
        "--align",
        "512",
        "--seed",
        "910",
        "--json",
        "--out",
        "soak",
    ]));
    let r = slog_json(
        dir.path(),
        &[
            "sim:vertex2-60g",
            "--sustain",
            "0",
            "--max-size",
            "16k",
            "--from",
            "soak",
            "--out",
            "slog",
        ],
    );
    assert_eq!(r["verdict"]["rating"], "unsuitable");
    let fade = reason(&r, "fade");
    assert_eq!(fade["rating"], "unsuitable", "{fade}");
    let samples = read_samples(&dir.path().join("soak")).unwrap();
    let e = &r["evidence"]["fade"];
    // The medians of the first and last windows (the run's last interval may be cut short).
    let (start, last) = common::window_medians(&samples, 60.0);
    assert_eq!(e["start_iops"].as_f64().unwrap(), start);
    assert_eq!(e["end_iops"].as_f64().unwrap(), last);
    let threshold = samples
        .iter()
        .find(|s| s.iops < start * 0.8)
        .unwrap()
        .bytes_written_total;
    assert_eq!(e["bytes_to_threshold"].as_u64().unwrap(), threshold);
    let pct = format!("{:.0} % of fresh", 100.0 * last / start);
    assert!(fade["value"].as_str().unwrap().contains(&pct), "{fade}");
    let plan = r["verdict"]["plan"].as_str().unwrap();
    assert!(
        plan.starts_with("stripe the log over") || plan.starts_with("no practical plan"),
        "{plan}"
    );
    assert!(
        plan.contains(&format!("{:.1} GB", threshold as f64 / 1e9)),
        "{plan}"
    );
}

#[test]
fn tbw_gives_the_endurance_in_years_at_the_zil_rate() {
    let dir = tempfile::tempdir().unwrap();
    let r = slog_json(
        dir.path(),
        &[
            "sim:ram-8g",
            "--sustain",
            "0",
            "--max-size",
            "4k",
            "--tbw",
            "730TB",
            "--zil-rate",
            "100GB/day",
            "--out",
            "run",
        ],
    );
    let e = reason(&r, "endurance");
    let written = r["evidence"]["endurance"]["bytes_left"].as_f64().unwrap();
    // 730 TB less what the drive reports written (the sweep's writes), at 100 GB a day.
    assert!(written < 730e12 && written > 729e12, "{written}");
    let years = written / 100e9 / 365.0;
    assert!(e["value"]
        .as_str()
        .unwrap()
        .starts_with(&format!("{years:.1} years")));
    assert!(e["source"].as_str().unwrap().starts_with("--tbw 730.0 TB"));
}

#[test]
fn bad_options_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for (args, words) in [
        (vec!["sim:ram-8g", "--max-size", "12k"], "power of two"),
        (vec!["sim:ram-8g", "--max-size", "16M"], "power of two"),
        (vec!["sim:ram-8g", "--from", "nowhere"], "--from nowhere"),
        (vec!["sim:ram-8g", "--zil-rate", "lots"], "200GB/day"),
        (vec!["sim:ram-8g", "--baseline", "."], "without slog.json"),
    ] {
        let out = ssdfade(dir.path())
            .arg("slog")
            .args(&args)
            .args(["--out", "run"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(words), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!dir.path().join("run").exists());
    }
}

#[test]
fn zram_device_is_suitable_and_its_cache_mode_is_reported() {
    if !root_or_skip("zram_device_is_suitable_and_its_cache_mode_is_reported") {
        return;
    }
    let _one_at_a_time = zram_numbers();
    let zram = Zram::new(256 << 20);
    let dir = tempfile::tempdir().unwrap();
    let dev = zram.path.to_str().unwrap();
    // Refused without confirmation, and nothing created.
    let out = ssdfade(dir.path())
        .args(["slog", dev, "--out", "refused"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--destroy-data"));
    assert!(!dir.path().join("refused").exists());

    let r = slog_json(
        dir.path(),
        &[
            dev,
            "--destroy-data",
            dev,
            "--max-size",
            "16k",
            "--sustain",
            "2s",
            "--out",
            "run",
        ],
    );
    check_sweep(&r, &[4096, 8192, 16384]);
    assert_eq!(r["device"]["kind"], "zram");
    assert_eq!(r["device"]["cache"]["write_cache"], "write through");
    assert!(r["device"]["cache"]["meaning"]
        .as_str()
        .unwrap()
        .starts_with("write through"));
    let run = dir.path().join("run");
    check_verdict_numbers(&r, &run);
    assert_eq!(
        reason(&r, "4 KiB")["rating"],
        "suitable",
        "{}",
        r["verdict"]
    );
}

#[test]
fn loop_device_sweep_starts_at_its_logical_block() {
    if !root_or_skip("loop_device_sweep_starts_at_its_logical_block") {
        return;
    }
    let lo = Loop::new(64 << 20);
    let dir = tempfile::tempdir().unwrap();
    let dev = lo.path.to_str().unwrap();
    let r = slog_json(
        dir.path(),
        &[
            dev,
            "--destroy-data",
            dev,
            "--max-size",
            "8k",
            "--sustain",
            "2s",
            "--out",
            "run",
        ],
    );
    assert_eq!(r["device"]["kind"], "loop");
    let lb: u64 = std::fs::read_to_string(format!(
        "/sys/block/{}/queue/logical_block_size",
        lo.path.file_name().unwrap().to_str().unwrap()
    ))
    .unwrap()
    .trim()
    .parse()
    .unwrap();
    let sizes: Vec<u64> = std::iter::successors(Some(lb), |s| Some(s * 2))
        .take_while(|s| *s <= 8192)
        .collect();
    check_sweep(&r, &sizes);
    check_verdict_numbers(&r, &dir.path().join("run"));
}

#[test]
fn ram_baseline_is_shown_with_ratios_and_removed_afterwards() {
    if !root_or_skip("ram_baseline_is_shown_with_ratios_and_removed_afterwards") {
        return;
    }
    let _one_at_a_time = zram_numbers();
    let dir = tempfile::tempdir().unwrap();
    let r = slog_json(
        dir.path(),
        &[
            "sim:dc-ssd-400g",
            "--baseline",
            "ram",
            "--max-size",
            "8k",
            "--sustain",
            "0",
            "--out",
            "run",
        ],
    );
    let b = &r["baseline"];
    assert_eq!(b["kind"], "zram");
    let dev = b["target"].as_str().unwrap();
    assert!(!Path::new(dev).exists(), "{dev} was left behind");
    assert!(b["label"].as_str().unwrap().contains("removed"));
    let sizes: Vec<u64> = b["measured"]["sizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["size"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [4096, 8192, 4096, 8192]);
    // The table shows both side by side with the ratio.
    let text = ssdfade::slog::table::render(
        &serde_json::from_value(r.clone()).unwrap(),
        Path::new("run"),
    );
    let dev_mean = point(&r, "fdatasync", 4096)["lat_us"]["mean"]
        .as_f64()
        .unwrap();
    let base_mean = b["measured"]["sizes"][0]["lat_us"]["mean"]
        .as_f64()
        .unwrap();
    assert!(
        text.contains(&format!("{:.1}×", dev_mean / base_mean)),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    // An earlier run directory serves as a baseline too.
    let again = slog_json(
        dir.path(),
        &[
            "sim:ram-8g",
            "--baseline",
            "run",
            "--max-size",
            "4k",
            "--sustain",
            "0",
            "--out",
            "run2",
        ],
    );
    assert_eq!(again["baseline"]["label"], "run run");
    assert_eq!(again["baseline"]["measured"], r["device"]["measured"]);
}

#[test]
fn ram_baseline_is_removed_after_ctrl_c() {
    if !root_or_skip("ram_baseline_is_removed_after_ctrl_c") {
        return;
    }
    let _one_at_a_time = zram_numbers();
    let dir = tempfile::tempdir().unwrap();
    let mut child = ssdfade(dir.path())
        .args([
            "slog",
            "sim:ram-8g",
            "--baseline",
            "ram",
            "--max-size",
            "8M",
            "--sustain",
            "0",
            "--out",
            "run",
        ])
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the baseline device exists, then interrupt.
    use std::io::BufRead;
    let stderr = child.stderr.take().unwrap();
    let mut lines = std::io::BufReader::new(stderr).lines();
    let made = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.contains("baseline: RAM device"))
        .expect("the baseline started");
    let dev = made.rsplit(' ').next().unwrap().to_string();
    assert!(Path::new(&dev).exists());
    std::thread::sleep(std::time::Duration::from_millis(300));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    for _ in lines {}
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(!Path::new(&dev).exists(), "{dev} left behind after Ctrl-C");
    let info: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/run.json")).unwrap())
            .unwrap();
    assert_eq!(info["status"], "interrupted");
    // The baseline's point under way when Ctrl-C came is a run that ended interrupted.
    let mut points: Vec<_> = std::fs::read_dir(dir.path().join("run/baseline"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    points.sort();
    let last = run_json(points.last().unwrap());
    assert_eq!(last["status"], "interrupted", "{last}");
}

#[test]
fn ram_baseline_guard_removes_the_device_when_the_run_fails() {
    if !root_or_skip("ram_baseline_guard_removes_the_device_when_the_run_fails") {
        return;
    }
    let mut path = None;
    let result = (|| -> anyhow::Result<()> {
        let ram = ssdfade::slog::baseline::RamDevice::create(64 << 20)?;
        path = Some(ram.path.clone());
        anyhow::ensure!(ram.path.exists());
        anyhow::bail!("the sweep failed")
    })();
    assert!(result.is_err());
    let path = path.unwrap();
    assert!(!path.exists(), "{} left behind", path.display());
    // And after a panic (a bug mid-run) as well.
    let made = std::panic::catch_unwind(|| {
        let ram = ssdfade::slog::baseline::RamDevice::create(64 << 20).unwrap();
        let p = ram.path.clone();
        std::panic::panic_any(p);
    });
    let p = made.unwrap_err().downcast::<std::path::PathBuf>().unwrap();
    assert!(!p.exists());
}

#[test]
fn another_file_as_baseline_needs_its_own_confirmation() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.img"), vec![7u8; 1 << 20]).unwrap();
    // An existing file holding data is refused unless --destroy-data names it too.
    let out = ssdfade(dir.path())
        .args([
            "slog",
            "sim:ram-8g",
            "--baseline",
            "old.img",
            "--out",
            "run",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--destroy-data"));
    assert!(!dir.path().join("run").exists());

    let r = slog_json(
        dir.path(),
        &[
            "sim:ram-8g",
            "--baseline",
            "old.img",
            "--destroy-data",
            "old.img",
            "--max-size",
            "8k",
            "--sustain",
            "0",
            "--out",
            "run",
        ],
    );
    let b = &r["baseline"];
    assert_eq!(b["label"], "old.img");
    assert_eq!(b["kind"], "file");
    let writes = b["measured"]["sizes"][0]["writes"].as_u64().unwrap();
    assert!(writes >= 250);
    assert_eq!(b["measured"]["concurrency"].as_array().unwrap().len(), 4);
}

#[test]
fn the_report_of_a_slog_run_carries_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let record = slog_json(
        dir.path(),
        &[
            "sim:vertex2-60g,scale=16",
            "--max-size",
            "4k",
            "--sustain",
            "3s",
            "--zil-rate",
            "500/s",
            "--out",
            "v",
        ],
    );
    let rating = record["verdict"]["rating"].as_str().unwrap().to_string();
    let out = ssdfade(dir.path()).args(["report", "v"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(dir.path().join("v/report.md")).unwrap();
    // The verdict opens the report, with the SLOG chart drawn beside it.
    let headings: Vec<&str> = report.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(headings.first(), Some(&"## SLOG verdict"), "{report}");
    let verdict_part = &report[..report.find("## Results").unwrap_or(report.len())];
    assert!(verdict_part.contains("(slog.png)"), "{report}");
    assert!(dir.path().join("v/slog.png").is_file());
    assert!(
        report.contains(&format!("{} as a ZFS log device", rating.to_uppercase())),
        "{report}"
    );
    // The latency reason's figure is the run's own.
    let latency = reason(&record, "4 KiB")["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(report.contains(&latency), "{latency} not in {report}");
    // The chart's sustained panel is titled with the rate asked for and the phase's exact
    // figures, as slog.json holds them (not estimated from its intervals), rendered as the
    // verdict renders a latency.
    let html = std::fs::read_to_string(dir.path().join("v/report.html")).unwrap();
    let lat = &record["device"]["measured"]["sustained"]["lat_us"];
    let us = |name: &str| ssdfade::units::format_latency_us(lat[name].as_f64().unwrap());
    let title = format!(
        "Sustained 4 KiB write+fdatasync at 500/s: mean {} · p99 {} · max {}",
        us("mean"),
        us("p99"),
        us("max")
    );
    assert!(html.contains(&title), "'{title}' not in the chart");
    // The verdict's sources name the run, not where this machine keeps it.
    let local = dir.path().to_str().unwrap();
    assert!(!html.contains(local) && !report.contains(local), "{report}");
}

/// A slog run without its sustained phase (`--sustain 0`) has no samples: its report and its
/// charts are the sweep and the verdict, not a refusal for want of samples.
#[test]
fn a_slog_run_without_a_sustained_phase_still_has_a_report_and_a_chart() {
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args([
            "slog",
            "sim:dc-ssd-400g",
            "--max-size",
            "4k",
            "--sustain",
            "0",
        ])
        .args(["--seed", "5", "--out", "s"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("no charts drawn"), "{stderr}");
    assert!(dir.path().join("s/slog.png").is_file());
    for command in ["report", "plot"] {
        let out = ssdfade(dir.path()).args([command, "s"]).output().unwrap();
        assert!(
            out.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let report = std::fs::read_to_string(dir.path().join("s/report.md")).unwrap();
    assert!(report.contains("## SLOG verdict"), "{report}");
    assert!(report.contains("SUITABLE as a ZFS log device"), "{report}");
}

/// A sustained phase of 2.5 s ends with a half interval: the chart draws the two full ones,
/// not the half as a third second.
#[test]
fn the_sustained_phases_partial_last_interval_is_not_drawn_as_a_full_one() {
    let dir = tempfile::tempdir().unwrap();
    slog_json(
        dir.path(),
        &[
            "sim:dc-ssd-400g",
            "--max-size",
            "4k",
            "--sustain",
            "2500ms",
            "--out",
            "r",
        ],
    );
    let run = dir.path().join("r");
    let samples = read_samples(&run).unwrap();
    assert_eq!(samples.len(), 3, "{samples:?}");
    let last = samples.last().unwrap();
    assert!(last.t_end_s - last.t_start_s < 0.9, "{last:?}");
    let chart = ssdfade::plot::slog_chart(&run).unwrap();
    assert_eq!(chart.sustained.len(), 2, "{:?}", chart.sustained);
}

/// `--zil-rate N/s` issues the sustained phase on an open-loop schedule: a drive that keeps up
/// delivers the rate exactly with no late write, one that cannot (Vertex 2, about 1400 sync
/// writes/s) counts its late writes, and the verdict judges both at that load.
#[test]
fn a_zil_rate_in_writes_per_second_paces_the_sustained_phase_and_is_judged() {
    let dir = tempfile::tempdir().unwrap();
    let held = slog_json(
        dir.path(),
        &[
            "sim:dc-ssd-400g",
            "--max-size",
            "4k",
            "--sustain",
            "30s",
            "--zil-rate",
            "3000/s",
            "--seed",
            "3",
            "--out",
            "held",
        ],
    );
    assert_eq!(held["plan"]["rate_iops"], 3000);
    let s = &held["device"]["measured"]["sustained"];
    let delivered = s["iops"].as_f64().unwrap();
    assert!((delivered - 3000.0).abs() <= 30.0, "{s}");
    let load = &held["device"]["measured"]["sustained_load"];
    assert_eq!(load["late"], 0, "{load}");
    let r = reason(&held, "sync writes at 3000/s");
    assert_eq!(r["rating"], "suitable", "{r}");
    // A paced phase delivers its pace: its IOPS cannot fade, so it is no evidence of fade.
    let fade = reason(&held, "fade under sustained writes");
    assert_eq!(fade["rating"], serde_json::Value::Null, "{fade}");
    assert!(
        fade["value"].as_str().unwrap().contains("paced at 3000/s"),
        "{fade}"
    );
    // Every second of the phase carries its schedule.
    let samples = read_samples(&dir.path().join("held")).unwrap();
    assert!(samples.len() >= 29);
    let paced: u64 = samples
        .iter()
        .map(|x| x.pacing.as_ref().unwrap().paced)
        .sum();
    assert_eq!(paced, s["writes"].as_u64().unwrap());
    // The endurance line reads the same rate as bytes per day: 3000 × 4 KiB × 86400.
    let per_day = held["evidence"]["zil_bytes_per_day"].as_f64().unwrap();
    assert_eq!(per_day, 3000.0 * 4096.0 * 86400.0);

    let behind = slog_json(
        dir.path(),
        &[
            "sim:vertex2-60g",
            "--max-size",
            "4k",
            "--sustain",
            "20s",
            "--zil-rate",
            "2000/s",
            "--seed",
            "3",
            "--out",
            "behind",
        ],
    );
    let s = &behind["device"]["measured"]["sustained"];
    let load = &behind["device"]["measured"]["sustained_load"];
    let writes = s["writes"].as_u64().unwrap();
    assert!(s["iops"].as_f64().unwrap() < 1900.0, "{s}");
    assert!(load["late"].as_u64().unwrap() > writes / 2, "{load}");
    assert!(load["writes_over_10ms"].as_u64().unwrap() > 0, "{load}");
    let r = reason(&behind, "sync writes at 2000/s");
    assert_eq!(r["rating"], "unsuitable", "{r}");
    assert_eq!(behind["verdict"]["rating"], "unsuitable");
}

/// A sync-write rate paces the sustained phase: with the phase skipped it is refused.
#[test]
fn a_zil_rate_per_second_without_a_sustained_phase_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args([
            "slog",
            "sim:ram-8g",
            "--zil-rate",
            "2000/s",
            "--sustain",
            "0",
        ])
        .args(["--out", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--zil-rate 2000/s"), "{stderr}");
    assert!(!dir.path().join("x").exists());
}

/// On a real device (zram) the sync engine keeps the schedule: 1000 writes/s for 10 s
/// delivered within 1 %.
#[test]
fn zram_holds_a_zil_rate_within_one_percent() {
    if !root_or_skip("zram_holds_a_zil_rate_within_one_percent") {
        return;
    }
    let _one_at_a_time = zram_numbers();
    let zram = Zram::new(256 << 20);
    let dev = zram.path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let record = slog_json(
        dir.path(),
        &[
            dev,
            "--destroy-data",
            dev,
            "--max-size",
            "4k",
            "--sustain",
            "10s",
            "--zil-rate",
            "1000/s",
            "--out",
            "z",
        ],
    );
    let s = &record["device"]["measured"]["sustained"];
    let writes = s["writes"].as_f64().unwrap();
    assert!((writes - 10_000.0).abs() <= 100.0, "{s}");
    // Late writes are counted, not dropped (on a busy machine the host itself falls behind:
    // those are late by the host, so their number is not pinned here).
    let load = &record["device"]["measured"]["sustained_load"];
    assert!(load["late"].as_f64().unwrap() <= writes, "{load}");
    assert!(reason(&record, "sync writes at 1000/s")["rating"].is_string());
}

fn run_json(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap()
}

fn point_dirs(run: &Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(run.join("points"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_point_is_a_run_with_its_own_directory_status_and_samples() {
    let dir = tempfile::tempdir().unwrap();
    let r = slog_json(
        dir.path(),
        &[
            "sim:dc-ssd-400g",
            "--max-size",
            "8k",
            "--sustain",
            "3s",
            "--out",
            "run",
        ],
    );
    let run = dir.path().join("run");
    let dirs = point_dirs(&run);
    let names: Vec<String> = dirs
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "01-fdatasync-512",
            "02-fdatasync-1024",
            "03-fdatasync-2048",
            "04-fdatasync-4096",
            "05-fdatasync-8192",
            "06-dsync-512",
            "07-dsync-1024",
            "08-dsync-2048",
            "09-dsync-4096",
            "10-dsync-8192",
            "11-writers-1",
            "12-writers-2",
            "13-writers-4",
            "14-writers-8",
            "15-sustained"
        ]
    );
    let measured = &r["device"]["measured"];
    let table: Vec<&Value> = measured["sizes"]
        .as_array()
        .unwrap()
        .iter()
        .chain(measured["concurrency"].as_array().unwrap())
        .chain(std::iter::once(&measured["sustained"]))
        .collect();
    for (d, p) in dirs.iter().zip(table) {
        let info = run_json(d);
        assert_eq!(info["status"], "completed", "{}", d.display());
        assert_eq!(info["command"], "slog");
        assert_eq!(
            info["workload"]["sync"]["mode"],
            p["mode"],
            "{}",
            d.display()
        );
        assert_eq!(info["workload"]["bs"], p["size"]);
        assert_eq!(info["workload"]["qd"], p["writers"]);
        // The point's run directory holds every write the table counts.
        let samples = read_samples(d).unwrap();
        let ops: u64 = samples.iter().map(|s| s.ops).sum();
        assert_eq!(Some(ops), p["writes"].as_u64(), "{}", d.display());
        assert_eq!(info["summary"]["ops"], p["writes"]);
    }
    // The sustained point's series is the slog run's own.
    assert_eq!(
        read_samples(&dirs[14]).unwrap(),
        read_samples(&run).unwrap()
    );
    assert_eq!(run_json(&run)["summary"], run_json(&dirs[14])["summary"]);
}

#[test]
fn a_failed_write_ends_its_point_and_the_slog_run_as_failed() {
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args(["slog", "sim:dc-ssd-400g,fail_after=1000", "--sustain", "0"])
        .args(["--out", "run"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = dir.path().join("run");
    let dirs = point_dirs(&run);
    assert_eq!(dirs.len(), 1, "the plan stops at the failed point");
    let point = run_json(&dirs[0]);
    assert_eq!(point["status"], "failed");
    assert!(
        point["end"]
            .to_string()
            .contains("input/output error (EIO)"),
        "{point}"
    );
    assert_eq!(run_json(&run)["status"], "failed");
}

/// A SLOG on a file in RAM (tmpfs) is the fastest there is and worthless at power-off: the run
/// warns as it starts and the verdict counts it as unsuitable, saying why.
#[test]
fn a_slog_on_a_file_in_ram_warns_and_the_verdict_says_it_is_lost_at_power_off() {
    if !Path::new("/dev/shm").is_dir() {
        return common::skip(
            "a_slog_on_a_file_in_ram_warns_and_the_verdict_says_it_is_lost_at_power_off",
            "no /dev/shm (tmpfs) on this machine",
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let file = shm.path().join("log.img");
    let file = file.to_str().unwrap();
    let out = ssdfade(dir.path())
        .args(["slog", file, "--size", "16M", "--max-size", "4k"])
        .args(["--sustain", "2s", "--out", "run", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("ssdfade slog: warning: ")
                && l.contains("on tmpfs")
                && l.contains("lost at power-off")),
        "{stderr}"
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(r["evidence"]["volatile"]
        .as_str()
        .unwrap()
        .contains("tmpfs"));
    let volatile = reason(&r, "contents survive power-off");
    assert_eq!(volatile["rating"], "unsuitable");
    assert_eq!(r["verdict"]["rating"], "unsuitable");
    // The report, recomputing the verdict from the directory, says so too.
    common::run_ok(ssdfade(dir.path()).args(["report", "run"]));
    let report = std::fs::read_to_string(dir.path().join("run/report.md")).unwrap();
    assert!(report.contains("lost at power-off"), "{report}");
}

/// Removes a zram device a killed ssdfade left behind, if the test fails before ssdfade does.
struct Leftover(Option<u32>);

impl Drop for Leftover {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            if Path::new(&format!("/sys/block/zram{i}")).exists() {
                let _ = std::fs::write(format!("/sys/block/zram{i}/reset"), "1");
                let _ = std::fs::write("/sys/class/zram-control/hot_remove", i.to_string());
            }
        }
    }
}

/// SIGKILL leaves the RAM baseline behind (no guard runs); the next `runs` finds its owner
/// gone and removes it (a refusal of bad input before it does not), and leaves every zram
/// device ssdfade did not make alone.
#[test]
fn a_ram_baseline_left_by_a_killed_slog_is_removed_by_the_next_command_and_no_other_zram() {
    let name =
        "a_ram_baseline_left_by_a_killed_slog_is_removed_by_the_next_command_and_no_other_zram";
    if !root_or_skip(name) {
        return;
    }
    let _one_at_a_time = zram_numbers();
    let theirs = Zram::new(64 << 20);
    let dir = tempfile::tempdir().unwrap();
    let mut child = ssdfade(dir.path())
        .args([
            "slog",
            "sim:ram-8g",
            "--baseline",
            "ram",
            "--max-size",
            "8M",
        ])
        .args(["--sustain", "0", "--out", "run"])
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let stderr = child.stderr.take().unwrap();
    let mut lines = std::io::BufReader::new(stderr).lines();
    let made = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.contains("baseline: RAM device"))
        .expect("the baseline started");
    let dev = made.rsplit(' ').next().unwrap().to_string();
    let index: u32 = dev.trim_start_matches("/dev/zram").parse().unwrap();
    let _guard = Leftover(Some(index));
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(Path::new(&dev).exists(), "SIGKILL cannot remove {dev}");
    // Refusing bad input stays one line and tidies nothing on the way.
    let out = ssdfade(dir.path())
        .args([
            "slog",
            "sim:ram-8g",
            "--baseline",
            "ram",
            "--max-size",
            "3x",
        ])
        .output()
        .unwrap();
    let refusal = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{refusal}");
    assert_eq!(refusal.trim_end().lines().count(), 1, "{refusal}");
    assert!(Path::new(&dev).exists(), "a refusal removed {dev}");
    let out = ssdfade(dir.path()).args(["runs", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("removed {dev}, the RAM baseline")),
        "{stderr}"
    );
    assert!(!Path::new(&dev).exists(), "{dev} left behind");
    assert!(theirs.path.exists(), "a zram the test made was removed");
    assert!(Path::new("/dev/zram0").exists() || index == 0);
    // Nothing is left to remove the next time.
    let out = ssdfade(dir.path()).args(["runs", "."]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("removed"));
}

/// `--op-sweep DIR`: a fading drive's maintenance plan says what the op-sweep of this drive, or
/// of its twin, found leaving part of it unpartitioned gives, with the op-sweep's own figures
/// and source, and slog.json records them. An op-sweep of another drive is refused with one
/// line before anything is written.
#[test]
fn the_maintenance_plan_takes_what_an_op_sweep_of_this_drive_or_its_twin_found() {
    let dir = tempfile::tempdir().unwrap();
    let drive = "sim:vertex2-60g,scale=64";
    json_ok(ssdfade(dir.path()).args([
        "soak",
        drive,
        "--duration",
        "1h",
        "--interval",
        "60s",
        "--align",
        "512",
        "--seed",
        "910",
        "--json",
        "--out",
        "soak",
    ]));
    // The same drive as a twin (its model and size; the twin file keeps the preset's shape).
    std::fs::write(
        dir.path().join("twin.toml"),
        "base = \"vertex2-60g\"\nmodel = \"OCZ Vertex 2 60GB (simulated SF-1200)\"\ncapacity = 60000000000\nalpha = 1.145\nspeed = 1.0\noptions = \"scale=64\"\n",
    )
    .unwrap();
    let sweep = |out: &str, target: &str, twin: bool| {
        let mut cmd = ssdfade(dir.path());
        cmd.args(["experiment", "op-sweep", target, "--span", "100%,80%"]);
        cmd.args(["--seed", "3", "--json", "--out", out]);
        if twin {
            cmd.args(["--on-twin", "twin.toml"]);
        }
        json_ok(&mut cmd)
    };
    for (ops, twin) in [("ops", false), ("twin-ops", true)] {
        let target = if twin { "/dev/no-such-drive" } else { drive };
        let advice = sweep(ops, target, twin)["advice"].clone();
        let r = slog_json(
            dir.path(),
            &[
                drive,
                "--sustain",
                "0",
                "--max-size",
                "16k",
                "--from",
                "soak",
                "--op-sweep",
                ops,
                "--out",
                &format!("slog-{ops}"),
            ],
        );
        assert_eq!(reason(&r, "fade")["rating"], "unsuitable");
        let e = &r["evidence"]["over_provisioning"];
        for key in ["from_iops", "to_iops", "from_p99_ms", "to_p99_ms"] {
            assert_eq!(e[key], advice[key], "{key}: {e} against {advice}");
        }
        assert_eq!(e["source"], ops);
        assert_eq!(e["twin"].is_string(), twin, "{e}");
        let saved: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(format!("slog-{ops}/slog.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(&saved["evidence"]["over_provisioning"], e);
        let plan = r["verdict"]["plan"].as_str().unwrap();
        let words = format!(
            "with {:.0} % left unpartitioned this drive would hold about {:.0} IOPS of steady 4 KiB random writes instead of {:.0}",
            advice["unpartitioned_pct"].as_f64().unwrap(),
            advice["to_iops"].as_f64().unwrap(),
            advice["from_iops"].as_f64().unwrap()
        );
        assert!(plan.contains(&words), "{plan}");
        let source = if twin {
            "(from its twin twin.toml, op-sweep twin-ops)"
        } else {
            "(measured by the op-sweep in ops)"
        };
        assert!(plan.ends_with(source), "{plan}");
    }
    // Another drive's op-sweep (and a twin's sweep given for another drive) is refused.
    for (target, ops) in [
        ("sim:dc-ssd-400g,scale=64", "ops"),
        ("sim:nvme-tlc-1t", "twin-ops"),
    ] {
        let out = ssdfade(dir.path())
            .args(["slog", target, "--sustain", "0", "--op-sweep", ops])
            .args(["--out", "refused"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("--op-sweep {ops}: it was")), "{err}");
        assert!(err.contains("not this drive"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!dir.path().join("refused").exists());
    }
    // A directory that is no op-sweep is refused too.
    let out = ssdfade(dir.path())
        .args([
            "slog",
            drive,
            "--sustain",
            "0",
            "--op-sweep",
            "soak",
            "--out",
            "refused",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("ssdfade: --op-sweep soak:"), "{err}");
    assert!(!dir.path().join("refused").exists());
}

/// A drive that reports its temperature has the heat of its sustained phase in `slog`'s text
/// and in the report, in the same words, from the phase's samples. (The simulator's sync-write
/// path has no heat model, so the run's samples are given the readings a real drive's sampler
/// thread would have put there: 40 °C rising a degree per interval.)
#[test]
fn the_heat_of_the_sustained_phase_is_in_the_text_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    slog_json(
        dir.path(),
        &[
            "sim:nvme-tlc-1t,scale=16",
            "--max-size",
            "4k",
            "--sustain",
            "5s",
            "--out",
            "h",
        ],
    );
    let run = dir.path().join("h");
    let path = run.join("samples.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            v["health"] = serde_json::json!({"temperature_c": 40.0 + i as f64, "warning_c": 70.0});
            v.to_string()
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let heat = ssdfade::analysis::thermal::Thermal::of_dir(&run).expect("a temperature");
    let words = heat.range_words();
    assert_eq!(
        words,
        format!("40–{} °C, not throttled", 40 + lines.len() - 1)
    );
    let record = ssdfade::results::slog::read_record(&run).unwrap();
    let table = ssdfade::slog::table::render(&record, &run);
    assert!(table.contains(&format!("Heat: {words}")), "{table}");
    let report = ssdfade(dir.path()).args(["report", "h"]).output().unwrap();
    assert!(report.status.success());
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        md.contains(&format!("Heat during the sustained phase: {words}.")),
        "{md}"
    );
}
