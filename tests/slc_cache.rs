//! `experiment slc-cache` on scaled simulated drives: the cache size, the in-cache and the
//! post-cache write speeds it reads from the data agree with the preset's model (computed here
//! from the preset's parameters, never read from the tool); the cache comes back at idle; a
//! drive without an SLC cache says so; crafted samples cannot make it panic; Ctrl-C then
//! `resume` finishes it.

mod common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{json_ok, ssdfade};
use serde_json::Value;
use ssdfade::sim::presets;

/// The transfer size the test writes with (the kind's default).
const BS: f64 = 1_048_576.0;

/// What the preset's parameters say a sequential 1 MiB write at depth does on an empty drive.
struct Model {
    /// The whole cache (static part plus dynamic part at this capacity).
    cache_bytes: f64,
    /// The static part: all that comes back at idle once the drive is full.
    static_bytes: f64,
    in_cache_mb_per_s: f64,
    post_cache_mb_per_s: f64,
}

/// The model of `preset` at `capacity` bytes: a 1 MiB write is 256 pages of 4 KiB; its time is
/// the slowest of the host link (bytes over the link rate plus the command's overhead), the
/// dies programming its pages (SLC or TLC program time, all dies at once), the channels moving
/// them and the controller's command rate. MB/s is 10^6 bytes a second.
fn model(preset: &str, capacity: u64) -> Model {
    let p = presets::find(preset).unwrap().with_capacity(capacity);
    let slc = p.slc.expect("a preset with an SLC cache");
    let pages = BS / 4096.0;
    let speed = |program_us: f64| {
        let link = BS / p.link_bytes_per_s + p.link_command_us * 1e-6;
        let dies = pages * program_us * 1e-6 / f64::from(p.parallel_dies());
        let channels = pages * p.transfer_us * 1e-6 / f64::from(p.channels);
        let controller = 1.0 / p.controller_iops;
        BS / link.max(dies).max(channels).max(controller) / 1e6
    };
    Model {
        cache_bytes: slc.bytes as f64,
        static_bytes: slc.static_bytes as f64,
        in_cache_mb_per_s: speed(slc.program_us),
        post_cache_mb_per_s: speed(p.program_us),
    }
}

/// Runs the experiment on `target` in a temporary directory; its `--json` summary.
fn run(work: &Path, target: &str) -> Value {
    json_ok(
        ssdfade(work)
            .args(["experiment", "slc-cache", target, "--json", "--out"])
            .arg(work.join("e")),
    )
}

/// `got` within 10 % of `want`.
fn near(what: &str, got: f64, want: f64) {
    let off = (got - want).abs() / want;
    println!(
        "{what}: measured {got:.4e}, model {want:.4e} ({:+.1} %)",
        100.0 * (got - want) / want
    );
    assert!(off <= 0.10, "{what}: measured {got}, model {want}");
}

/// The figures of a drive with a cache against its model, and the refill after idle.
fn check_against_model(preset: &str, capacity: u64, scale: u32) {
    let work = tempfile::tempdir().unwrap();
    let target = format!("sim:{preset},capacity={capacity},scale={scale}");
    let f = run(work.path(), &target);
    let m = model(preset, capacity);
    println!("{target}: {}", f["answer"]);
    let c = &f["cache"];
    near("cache bytes", c["bytes"].as_f64().unwrap(), m.cache_bytes);
    near(
        "in-cache MB/s",
        c["in_cache_mb_per_s"].as_f64().unwrap(),
        m.in_cache_mb_per_s,
    );
    near(
        "post-cache MB/s",
        c["post_cache_mb_per_s"].as_f64().unwrap(),
        m.post_cache_mb_per_s,
    );
    assert!(
        f["answer"].as_str().unwrap().starts_with("sustained "),
        "{f}"
    );
    assert_eq!(f["purged"], true);
    // A full drive keeps only the static part: the longest gap gives that back (within 20 %:
    // the edge of a short write is a few samples of a ramp), and more idle never gives less.
    let back: Vec<f64> = f["refills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["regained_bytes"].as_f64().unwrap())
        .collect();
    println!("cache back after each gap: {back:?}");
    assert_eq!(back.len(), 7);
    let last = back[back.len() - 1];
    assert!(
        (last - m.static_bytes).abs() <= 0.2 * m.static_bytes,
        "{last} back against a static part of {}",
        m.static_bytes
    );
    assert!(back[0] < last, "{back:?}");
    assert!(f["refilled_in_s"].as_f64().is_some(), "{f}");
    assert!(f["refill_bytes_per_min"].as_f64().unwrap() > 0.0, "{f}");
    for name in ["slc-cache.png", "slc-cache.chart.json", "report.md"] {
        assert!(work.path().join("e").join(name).is_file(), "{name}");
    }
}

#[test]
fn a_sata_tlc_drive_s_cache_and_speeds_agree_with_its_model() {
    check_against_model("sata-tlc-1t", 250_000_000_000, 64);
}

/// At 4 TB and scale=256 a sample holds one 268 MB lump of completions or none: the figures
/// still land on the model (the fill's 24 GB cache, its 12 GB static part after idle).
#[test]
fn a_4tb_sata_drive_s_lumpy_samples_still_agree_with_its_model() {
    check_against_model("sata-tlc-1t", 4_000_000_000_000, 256);
}

#[test]
fn an_nvme_tlc_drive_s_cache_and_speeds_agree_with_its_model() {
    check_against_model("nvme-tlc-1t", 500_000_000_000, 256);
}

#[test]
fn a_drive_without_an_slc_cache_says_so() {
    let work = tempfile::tempdir().unwrap();
    let f = run(work.path(), "sim:dc-ssd-400g,capacity=100GB,scale=64");
    let answer = f["answer"].as_str().unwrap();
    assert!(answer.starts_with("no SLC cache seen: "), "{answer}");
    assert!(answer.ends_with(" MB/s throughout"), "{answer}");
    assert_eq!(f["cache"], Value::Null);
    assert_eq!(f["refills"], serde_json::json!([]));
    // The crafted samples below: each file of the whole-drive write edited, then the report
    // and the charts made again from them; none may panic (exit 101).
    let fill = work.path().join("e/02-fill/samples.jsonl");
    let text = std::fs::read_to_string(&fill).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let crafted: Vec<String> = vec![
        String::new(),
        lines[..3].join("\n"),
        lines.iter().rev().copied().collect::<Vec<_>>().join("\n"),
        lines
            .iter()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                v["t_end_s"] = v["t_start_s"].clone();
                v["bytes_written_total"] = 0.into();
                v.to_string()
            })
            .collect::<Vec<_>>()
            .join("\n"),
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                v["bytes_written_total"] = (u64::MAX - i as u64).into();
                v["t_start_s"] = (-1e300).into();
                v.to_string()
            })
            .collect::<Vec<_>>()
            .join("\n"),
    ];
    for (i, samples) in crafted.iter().enumerate() {
        std::fs::write(&fill, samples).unwrap();
        for cmd in ["report", "plot"] {
            let out = ssdfade(work.path())
                .arg(cmd)
                .arg(work.path().join("e"))
                .output()
                .unwrap();
            assert_ne!(
                out.status.code(),
                Some(101),
                "crafted samples {i}: {cmd} panicked: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn ctrl_c_in_the_whole_drive_write_then_resume_finishes_the_experiment() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("e");
    let mut child = ssdfade(work.path())
        .args([
            "experiment",
            "slc-cache",
            "sim:sata-tlc-1t,capacity=64GB,scale=64",
            "--out",
        ])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let samples = dir.join("02-fill/samples.jsonl");
    let t0 = Instant::now();
    while std::fs::read_to_string(&samples).map_or(0, |t| t.lines().count()) < 20 {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "the fill never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let f = json_ok(ssdfade(work.path()).arg("resume").arg(&dir).arg("--json"));
    assert_eq!(f["status"], "completed", "{f}");
    assert!(
        f["answer"].as_str().unwrap().starts_with("sustained "),
        "{f}"
    );
}

/// sata-tlc-250g at scale 256 slows in two steps after its 12 GB cache: to about 400 MB/s for
/// some 5 GB, then to its 300 MB/s. Its samples are lumps of 268 MB, so the nine samples the
/// cache's edge is shared over span 4.8 GB: shared against the post-cache speed, the slower
/// step counted as cache (13.5 GB); against the speed just after the edge, the cache and the
/// post-cache speed are the model's within 10 %.
#[test]
fn a_cache_that_slows_in_two_steps_ends_at_the_first() {
    let work = tempfile::tempdir().unwrap();
    let target = "sim:sata-tlc-250g,scale=256";
    let capacity = ssdfade::sim::identity(target).unwrap().size_bytes;
    let f = run(work.path(), target);
    let m = model("sata-tlc-250g", capacity);
    let c = &f["cache"];
    near("cache bytes", c["bytes"].as_f64().unwrap(), m.cache_bytes);
    near(
        "post-cache MB/s",
        c["post_cache_mb_per_s"].as_f64().unwrap(),
        m.post_cache_mb_per_s,
    );
}
