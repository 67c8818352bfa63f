//! Trims in a workload on a simulated drive: the trimmed pages hold no data, so garbage
//! collection copies fewer pages and the write amplification (NAND bytes per host byte
//! written) falls below that of pure random writes in steady state, on the engine and in a
//! `soak` as the user runs it.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{json_ok, ssdfade};

use ssdfade::engine::{Control, Engine, IntervalSink};
use ssdfade::pattern::Pattern;
use ssdfade::sim::{self, SimEngine};
use ssdfade::stats::IntervalStats;
use ssdfade::workload::Workload;

/// What a run did: writes, trims and NAND bytes.
#[derive(Default)]
struct Tally {
    writes: u64,
    write_bytes: u64,
    trims: u64,
    trim_bytes: u64,
    reads: u64,
    nand_bytes: u64,
}

impl IntervalSink for Tally {
    fn interval(&mut self, _: f64, _: f64, s: &IntervalStats) -> anyhow::Result<()> {
        self.writes += s.write.ops;
        self.write_bytes += s.write.bytes;
        self.trims += s.trim.ops;
        self.trim_bytes += s.trim.bytes;
        self.reads += s.read.ops;
        self.nand_bytes += s.nand_bytes.expect("a simulated drive reports NAND bytes");
        Ok(())
    }
}

/// 4 KiB random I/O at QD 32 over the whole drive, `trim_pct` of it trims, until `bytes`.
fn run(engine: &mut SimEngine, trim_pct: u8, bytes: u64, seed: u64) -> Tally {
    let w = Workload {
        bs: 4096,
        align: 4096,
        trim_pct,
        random_pct: 100,
        qd: 32,
        span: engine.identity().size_bytes,
        bytes: Some(bytes),
        duration: None,
        interval: Duration::from_secs(10),
        seed,
        pattern: Pattern::Random,
        ..Default::default()
    };
    let mut tally = Tally::default();
    engine.run(&w, &Control::default(), &mut tally).unwrap();
    tally
}

/// NAND bytes per host byte written of a drive brought to steady state by two drive-writes of
/// random writes, then measured over one drive's worth of I/O with `trim_pct` trims.
fn steady_wa(trim_pct: u8) -> (f64, Tally) {
    let spec = "sim:dc-ssd-400g,scale=1024";
    let size = sim::identity(spec).unwrap().size_bytes;
    let mut engine = SimEngine::open(spec).unwrap();
    run(&mut engine, 0, 2 * size, 1);
    let t = run(&mut engine, trim_pct, size, 2);
    (t.nand_bytes as f64 / t.write_bytes as f64, t)
}

#[test]
fn random_writes_with_a_fifth_of_trims_amplify_less_than_pure_random_writes() {
    let (pure, p) = steady_wa(0);
    let (trimmed, t) = steady_wa(20);
    eprintln!(
        "steady-state WA (NAND/host), dc-ssd-400g scale=1024: pure random writes {pure:.3}, \
         with 20 % trims {trimmed:.3}"
    );
    assert_eq!(p.trims, 0);
    // A fifth of the I/Os are trims, counted apart from the writes (and no reads).
    let share = t.trims as f64 / (t.trims + t.writes) as f64;
    assert!((share - 0.20).abs() < 0.01, "trim share {share}");
    assert_eq!(t.reads, 0);
    assert_eq!(t.trim_bytes, t.trims * 4096);
    // Pure random 4 KiB writes on 28 % over-provisioning amplify; trims leave GC fewer pages.
    assert!(
        pure > 1.5,
        "pure random writes in steady state amplify: {pure}"
    );
    assert!(
        trimmed < pure * 0.95,
        "trims lower the WA: {trimmed} with 20 % trims, {pure} without"
    );
}

/// What a `soak --trim-pct` run directory says: the run's write amplification (run.json, from
/// the drive's counters), that of its last quarter of samples (NAND bytes over written bytes,
/// steady state) and the share of trims among the writes and trims of that quarter.
fn soak_wa(work: &Path, trim_pct: u8) -> (f64, f64, f64) {
    let dir = work.join(format!("trim{trim_pct}"));
    let v = json_ok(
        ssdfade(work)
            .args(["soak", "sim:dc-ssd-400g,scale=1024", "--duration", "4h"])
            .args(["--seed", "7", "--json", "--trim-pct"])
            .arg(trim_pct.to_string())
            .arg("--out")
            .arg(&dir),
    );
    assert_eq!(v["status"], "completed", "{v}");
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let whole = run["write_amplification"]["factor"].as_f64().unwrap();
    let samples: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = &samples[samples.len() * 3 / 4..];
    let sum = |f: &dyn Fn(&serde_json::Value) -> u64| last.iter().map(f).sum::<u64>() as f64;
    let nand = sum(&|s| s["nand_bytes"].as_u64().unwrap());
    let written = sum(&|s| s["write"]["bytes"].as_u64().unwrap_or(0));
    let writes = sum(&|s| s["write"]["ops"].as_u64().unwrap_or(0));
    let trims = sum(&|s| s["trim"]["ops"].as_u64().unwrap_or(0));
    (whole, nand / written, trims / (writes + trims))
}

#[test]
fn a_soak_with_trims_amplifies_less_than_the_same_soak_without() {
    let work = tempfile::tempdir().unwrap();
    let (pure, pure_steady, none) = soak_wa(work.path(), 0);
    let (trimmed, trimmed_steady, share) = soak_wa(work.path(), 20);
    eprintln!(
        "soak sim:dc-ssd-400g,scale=1024 4h: WA {pure:.3} (last quarter {pure_steady:.3}) \
         without trims, {trimmed:.3} (last quarter {trimmed_steady:.3}) with 20 % trims"
    );
    assert_eq!(none, 0.0);
    assert!((share - 0.20).abs() < 0.01, "trim share {share}");
    // Four hours of random writes take the drive well past its first fill: pure random writes
    // amplify there, and trims leave garbage collection fewer pages to copy.
    assert!(
        pure_steady > 1.5,
        "pure random writes amplify: {pure_steady}"
    );
    assert!(
        trimmed_steady < pure_steady * 0.9,
        "trims lower the steady WA: {trimmed_steady} against {pure_steady}"
    );
    assert!(
        trimmed < pure,
        "trims lower the run's WA: {trimmed} against {pure}"
    );
}

/// The terminal table of `soak TARGET --trim-pct 20` over four drive fills, and the run's
/// write amplification recomputed from its samples (NAND over written bytes, all of them).
fn trimmed_soak(work: &Path, target: &str, out: &str) -> (String, f64) {
    let size = sim::identity(target).unwrap().size_bytes;
    let text = common::run_ok(
        ssdfade(work)
            .args(["soak", target, "--trim-pct", "20", "--seed", "7"])
            .args(["--interval", "10s", "--bytes", &(4 * size).to_string()])
            .args(["--out", out]),
    );
    let samples: Vec<serde_json::Value> =
        std::fs::read_to_string(work.join(out).join("samples.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    let sum = |f: &dyn Fn(&serde_json::Value) -> u64| samples.iter().map(f).sum::<u64>() as f64;
    let nand = sum(&|s| s["nand_bytes"].as_u64().unwrap());
    let written = sum(&|s| s["write"]["bytes"].as_u64().unwrap_or(0));
    (text, nand / written)
}

/// The table's write amplification row of a run with trims.
fn wa_row(text: &str) -> &str {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix("Write amplification"))
        .unwrap_or_else(|| panic!("no write amplification row in\n{text}"))
        .trim()
}

/// A drive that writes in place (optane-375g: garbage collection never copies a page) gives
/// trims nothing to lower, and `soak --trim-pct` says so beside its write amplification; a
/// drive whose garbage collection copies pages (ram-8g at 4 × capacity of random writes) shows
/// its figure alone. Which is which is recomputed from the samples.
#[test]
fn a_trimmed_soak_says_when_the_drive_copied_nothing_for_trims_to_save() {
    let work = tempfile::tempdir().unwrap();
    let (optane, optane_wa) = trimmed_soak(
        work.path(),
        "sim:optane-375g,capacity=8GB,scale=64",
        "optane",
    );
    let (ram, ram_wa) = trimmed_soak(work.path(), "sim:ram-8g,capacity=8GB,scale=64", "ram");
    eprintln!("WA with 20 % trims: optane-375g {optane_wa:.4}, ram-8g {ram_wa:.4}");
    assert!((optane_wa - 1.0).abs() < 1e-3, "optane {optane_wa}");
    assert!(ram_wa > 1.01, "ram-8g {ram_wa}");
    let words = ": nothing copied by GC, trims cannot lower it";
    let row = wa_row(&optane);
    assert_eq!(
        row,
        format!("{}{words}", ssdfade::units::format_sig(optane_wa, 3))
    );
    let row = wa_row(&ram);
    assert_eq!(row, ssdfade::units::format_sig(ram_wa, 3));
}
