//! Heat in simulated drives (`thermal=`): a passively cooled M.2 drive throttles under a long
//! sequential write and the whole path shows it (samples, steady state, report, chart); a
//! datacenter drive does not; the model's NAND and host bytes are what each interval says.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use ssdfade::analysis::predict::{predict, Setting};
use ssdfade::analysis::thermal::{throttled, Thermal};
use ssdfade::analysis::wa::WaSeries;
use ssdfade::engine::{Control, Engine, IntervalSink};
use ssdfade::pattern::Pattern;
use ssdfade::results::{read_run, Run};
use ssdfade::sim::{self, SimEngine};
use ssdfade::stats::steady::{Criteria, SteadyTracker};
use ssdfade::stats::{IntervalStats, Sample};
use ssdfade::workload::Workload;

/// A 30-minute sequential 128 KiB write at QD 32 on `target`, then its report; the run.
fn soak(target: &str, dir: &Path) -> (Run, String) {
    soak_with(target, dir, &["--bs", "128k", "--random-pct", "0"], "30m")
}

/// A soak at QD 32 of `duration` on `target` with `args`, then its report; the run.
fn soak_with(target: &str, dir: &Path, args: &[&str], duration: &str) -> (Run, String) {
    let bin = env!("CARGO_BIN_EXE_ssdfade");
    let out = Command::new(bin)
        .args(["soak", target, "--qd", "32"])
        .args(args)
        .args(["--duration", duration, "--interval", "10s", "--out"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = Command::new(bin).arg("report").arg(dir).output().unwrap();
    assert!(report.status.success());
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    (read_run(dir).unwrap(), md)
}

/// Rounds the steady-state test counts over `samples`.
fn rounds(samples: &[Sample]) -> usize {
    let mut t = SteadyTracker::new(Criteria::default(), 0);
    samples.iter().for_each(|s| {
        t.push(s);
    });
    t.into_rounds().len()
}

#[test]
fn a_passive_m2_drive_throttles_under_a_long_sequential_write_and_every_presenter_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (run, md) = soak("sim:nvme-tlc-1t,scale=16,thermal=m2", dir.path());
    // Every sample carries the drive's temperature.
    assert!(run
        .samples
        .iter()
        .all(|s| s.health.as_ref().is_some_and(|h| h.temperature_c.is_some())));
    let flags = throttled(&run.samples);
    let hot = flags.iter().filter(|&&f| f).count();
    assert!(hot > 0 && hot < run.samples.len(), "{hot} throttled");
    // The throttled intervals are those whose TMT time rose; the drive slowed in them.
    let heat = Thermal::of(&run.samples).unwrap();
    assert!(heat.tmt1.unwrap() >= 1, "{heat:?}");
    let words = heat.words();
    assert!(
        words.starts_with("throttled for ") && words.contains("TMT1 ×"),
        "{words}"
    );
    assert!(
        md.contains(&words),
        "the report does not say '{words}':\n{md}"
    );
    // Kept out of the steady state: the same samples without their readings count more rounds.
    let blind: Vec<Sample> = run
        .samples
        .iter()
        .cloned()
        .map(|mut s| {
            s.health = None;
            s
        })
        .collect();
    assert!(rounds(&run.samples) < rounds(&blind));
    // The heat chart drew the throttled spans and the temperature.
    let drawn = std::fs::read_to_string(dir.path().join("fade-heat.chart.json")).unwrap();
    assert!(drawn.contains("thermally throttled") && drawn.contains("composite temperature"));
}

#[test]
fn a_datacenter_drive_in_airflow_does_not_throttle_at_its_full_write_rate() {
    let dir = tempfile::tempdir().unwrap();
    let (run, md) = soak("sim:dc-ssd-400g,scale=4,thermal=dc", dir.path());
    assert!(throttled(&run.samples).iter().all(|&f| !f));
    let heat = Thermal::of(&run.samples).unwrap();
    assert_eq!((heat.tmt1, heat.tmt2), (Some(0), Some(0)));
    assert!(heat.max_c < heat.warning_c.unwrap());
    assert!(md.contains("not throttled (highest "), "{md}");
}

/// The fade prediction of a random-write soak on the passive M.2 drive is made from the
/// intervals it was not throttled in: the same as from those intervals alone, and not the one
/// the throttled intervals would give if they counted. It is still dated at the last sample.
#[test]
fn the_fade_prediction_leaves_throttled_intervals_out_of_its_fit() {
    let dir = tempfile::tempdir().unwrap();
    let (run, _) = soak_with(
        "sim:nvme-tlc-1t,scale=16,thermal=m2",
        dir.path(),
        &["--bs", "4k", "--random-pct", "100"],
        "1h",
    );
    let flags = throttled(&run.samples);
    assert!(flags.contains(&true) && flags.contains(&false));
    let setting = Setting::of(&run.info, Criteria::default()).unwrap();
    let curve = setting.curve().unwrap();
    let p = predict(&run.samples, &curve, &setting).expect("a prediction");
    let last = run.samples.last().unwrap();
    assert_eq!(p.made_at_s, last.t_end_s);
    // Without their readings the kept intervals are judged as they are; with the throttled
    // ones counted as if cool, the level is another.
    let blind = |keep: &dyn Fn(usize) -> bool| -> Vec<Sample> {
        run.samples
            .iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .map(|(_, s)| Sample {
                health: None,
                ..s.clone()
            })
            .collect()
    };
    let cool = predict(&blind(&|i| !flags[i]), &curve, &setting).unwrap();
    assert_eq!((p.iops, p.low, p.high), (cool.iops, cool.low, cool.high));
    let counted = predict(&blind(&|_| true), &curve, &setting).map(|q| q.iops);
    assert_ne!(counted, Some(p.iops));
}

/// A simulated drive kept in a `state=` file keeps its heat: a second run starts as warm as
/// the first left it, with the drive's thermal-management counters carried on.
#[test]
fn a_resumed_simulated_drive_continues_warm() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("m2.state");
    let target = format!(
        "sim:nvme-tlc-1t,scale=16,thermal=m2,state={}",
        state.display()
    );
    let seq = ["--bs", "128k", "--random-pct", "0"];
    let (first, _) = soak_with(&target, &dir.path().join("a"), &seq, "10m");
    let (second, _) = soak_with(&target, &dir.path().join("b"), &seq, "1m");
    let health = |s: &Sample| s.health.clone().unwrap();
    let (cold, left) = (
        health(&first.samples[0]),
        health(first.samples.last().unwrap()),
    );
    let resumed = health(&second.samples[0]);
    let t = |h: &ssdfade::drive::Health| h.temperature_c.unwrap();
    assert!(t(&left) > t(&cold) + 10.0, "{left:?} {cold:?}");
    assert!(t(&resumed) > t(&cold) + 10.0, "{resumed:?} {cold:?}");
    assert!(resumed.tmt1_count.unwrap() >= left.tmt1_count.unwrap());
    assert!(resumed.tmt1_s.unwrap() >= left.tmt1_s.unwrap());
}

/// Collects the samples of a library run.
#[derive(Default)]
struct Collect(Vec<Sample>, u64);

impl IntervalSink for Collect {
    fn interval(&mut self, t0: f64, t1: f64, s: &IntervalStats) -> anyhow::Result<()> {
        let sample = Sample::new(self.0.len() as u64, t0, t1, s, self.1);
        self.1 = sample.bytes_written_total;
        self.0.push(sample);
        Ok(())
    }
}

#[test]
fn wa_per_interval_on_a_simulated_drive_is_the_models_nand_over_host_bytes() {
    let spec = "sim:dc-ssd-400g,capacity=8GB,scale=1,aged=0s,thermal=dc";
    let mut engine = SimEngine::open(spec).unwrap();
    let size = engine.identity().size_bytes;
    let before = sim::wear_of(engine.device());
    let w = Workload {
        bs: 4096,
        align: 4096,
        random_pct: 100,
        qd: 32,
        span: size,
        bytes: Some(3 * size),
        interval: Duration::from_secs(5),
        seed: 3,
        pattern: Pattern::Random,
        ..Default::default()
    };
    let mut c = Collect::default();
    engine.run(&w, &Control::default(), &mut c).unwrap();
    let after = sim::wear_of(engine.device());
    let samples = c.0;
    // The intervals' NAND and host bytes add up to the model's own counters.
    let nand: u64 = samples.iter().map(|s| s.nand_bytes.unwrap()).sum();
    let host: u64 = samples
        .iter()
        .filter_map(|s| s.write.as_ref())
        .map(|w| w.bytes)
        .sum();
    assert_eq!(nand, after.nand_bytes_written - before.nand_bytes_written);
    assert_eq!(host, after.host_bytes_written - before.host_bytes_written);
    // The analysis' series: each interval's WA is its NAND over its host bytes, and the
    // overall WA the model's.
    let series = WaSeries::of_samples(&samples).unwrap();
    for (p, s) in series.points.iter().zip(&samples) {
        let written = s.write.as_ref().map_or(0, |w| w.bytes);
        let expected = (written > 0).then(|| s.nand_bytes.unwrap() as f64 / written as f64);
        assert_eq!(p.wa, expected, "interval {}", s.index);
    }
    let model_wa = (after.nand_bytes_written - before.nand_bytes_written) as f64
        / (after.host_bytes_written - before.host_bytes_written) as f64;
    assert_eq!(series.overall(), Some(model_wa));
    // Garbage collection ran: the WA rose above 1.
    assert!(model_wa > 1.05, "WA {model_wa}");
    // The drive's last telemetry reading holds the same lifetime counters as its wear.
    let last = samples.last().unwrap().health.clone().unwrap();
    assert_eq!(last.nand_bytes_written, Some(after.nand_bytes_written));
    assert_eq!(last.host_bytes_written, Some(after.host_bytes_written));
}

/// An experiment on the passive M.2 drive: its report gives the heat over all its phases, the
/// coolest and hottest temperature any phase's samples carry.
#[test]
fn an_experiments_report_names_the_heat_of_all_its_phases() {
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("slc");
    let out = Command::new(env!("CARGO_BIN_EXE_ssdfade"))
        .args([
            "experiment",
            "slc-cache",
            "sim:nvme-tlc-1t,capacity=64GB,scale=64,thermal=m2",
            "--seed",
            "1",
            "--out",
        ])
        .arg(&exp)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut temps = Vec::new();
    for entry in std::fs::read_dir(&exp).unwrap() {
        let samples = entry.unwrap().path().join("samples.jsonl");
        if let Ok(text) = std::fs::read_to_string(&samples) {
            for line in text.lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                temps.extend(v["health"]["temperature_c"].as_f64());
            }
        }
    }
    assert!(!temps.is_empty(), "no phase carried a temperature");
    let lo = temps.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = temps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let md = std::fs::read_to_string(exp.join("report.md")).unwrap();
    let heat = format!("Heat: {lo:.0}–{hi:.0} °C");
    assert!(
        md.contains(&heat),
        "the report does not say '{heat}':\n{md}"
    );
}

#[test]
fn a_simulated_drive_heats_up_under_the_slog_tests_sync_writes_and_its_report_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("slog");
    let bin = env!("CARGO_BIN_EXE_ssdfade");
    let slog = |target: &str, out: &Path| {
        let o = Command::new(bin)
            .args([
                "slog",
                target,
                "--sustain",
                "10m",
                "--max-size",
                "4k",
                "--seed",
                "3",
            ])
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let text = slog("sim:nvme-tlc-1t,cache=plp,thermal=m2", &run_dir);
    let samples = ssdfade::results::read_samples(&run_dir).unwrap();
    let temps: Vec<f64> = samples
        .iter()
        .map(|s| s.health.as_ref().and_then(|h| h.temperature_c).unwrap())
        .collect();
    assert!(temps.len() >= 100, "{} samples", temps.len());
    // The drive starts settled at idle and warms up under the sustained sync writes.
    let settled = sim::thermal::class("m2").map(|c| c.ambient_c + c.idle_w * c.r_c_per_w);
    assert!(temps[0] < temps[temps.len() - 1] - 5.0, "{temps:?}");
    assert!(temps[0] >= settled.unwrap() - 1e-9, "{temps:?}");
    // The slog text and report give the heat the analysis finds in those samples.
    let heat = Thermal::of(&samples).unwrap();
    assert!(
        text.contains(&format!("Heat: {}", heat.range_words())),
        "{text}"
    );
    let report = Command::new(bin)
        .arg("report")
        .arg(&run_dir)
        .output()
        .unwrap();
    assert!(report.status.success());
    let md = std::fs::read_to_string(run_dir.join("report.md")).unwrap();
    assert!(md.contains(&heat.range_words()), "{md}");
    // Throttled rounds are slower: a throttled interval's IOPS is below the run's best.
    let flags = throttled(&samples);
    let best = samples.iter().map(|s| s.iops).fold(0.0, f64::max);
    for (s, _) in samples.iter().zip(&flags).filter(|(_, &f)| f) {
        assert!(s.iops < best, "interval {}", s.index);
    }
    // Without thermal= the same test carries no reading and says nothing of heat.
    let cool = dir.path().join("cool");
    let text = slog("sim:nvme-tlc-1t,cache=plp", &cool);
    assert!(!text.contains("Heat:"), "{text}");
    assert!(ssdfade::results::read_samples(&cool)
        .unwrap()
        .iter()
        .all(|s| s.health.is_none()));
}
