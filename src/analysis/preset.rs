//! The figures of a benchmark preset (`measure --preset`): every completed point's access
//! specification, its IOPS and MB/s (10^6 bytes per second, as the benchmarks count), and the
//! benchmark's own columns — CrystalDiskMark's mean latency in µs; tiobench's rate, CPU %
//! (user + system CPU time over the run's time), average and maximum latency in ms, percent of
//! I/Os over 2 s and over 10 s and CPU efficiency (rate ÷ CPU share); Iometer's read and write
//! MBps and response times in ms (a transaction is one I/O: its time is the response time).
//! Every figure is the point's run.json summary. The terminal tables, `--json` and the bars
//! chart show these.

use serde::Serialize;

use crate::results::settings::Settings;
use crate::results::{Experiment, Run, Status, Summary};

/// Which benchmark's columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Benchmark {
    Cdm,
    Tiobench,
    Iometer,
}

impl Benchmark {
    /// The benchmark of the preset an experiment records by `name`.
    pub fn of(name: &str) -> Benchmark {
        match name {
            "cdm" => Benchmark::Cdm,
            "tiobench" => Benchmark::Tiobench,
            _ => Benchmark::Iometer,
        }
    }
}

/// CrystalDiskMark's column beyond MB/s and IOPS.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CdmFigures {
    /// Mean latency, µs.
    pub lat_us: Option<f64>,
}

/// tiobench's columns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TiobenchFigures {
    pub threads: u32,
    pub rate_mb_per_s: f64,
    /// User + system CPU time over the run's time, percent.
    pub cpu_pct: f64,
    pub avg_lat_ms: Option<f64>,
    pub max_lat_ms: Option<f64>,
    pub pct_over_2s: f64,
    pub pct_over_10s: f64,
    /// Rate ÷ (CPU % ÷ 100); none without CPU time.
    pub cpu_eff: Option<f64>,
}

/// Iometer's columns beyond IOps (MBps in 10^6 bytes, times in ms).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IometerFigures {
    pub read_mbps: f64,
    pub write_mbps: f64,
    pub avg_response_ms: Option<f64>,
    pub avg_read_response_ms: Option<f64>,
    pub avg_write_response_ms: Option<f64>,
    /// Equal to the average response time: these specifications have no reply.
    pub avg_transaction_ms: Option<f64>,
}

/// The benchmark's own columns of a point.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum BenchmarkFigures {
    Cdm(CdmFigures),
    Tiobench(TiobenchFigures),
    Iometer(IometerFigures),
}

/// One completed point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PresetPoint {
    /// Its phase name (`seq1m-q8t1-read`…).
    pub name: String,
    pub bs: u64,
    pub qd: u32,
    pub read_pct: u8,
    pub random_pct: u8,
    pub engine: String,
    pub seconds: f64,
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    /// 10^6 bytes per second.
    pub mb_per_s: f64,
    pub run_dir: String,
    #[serde(flatten)]
    pub figures: BenchmarkFigures,
}

/// The preparation write of the test region.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prepared {
    pub bytes: u64,
    pub seconds: f64,
    pub mb_per_s: f64,
    pub run_dir: String,
}

/// A preset's table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PresetTable {
    pub preset: String,
    /// The test region, bytes.
    pub span: Option<u64>,
    pub point_duration_s: Option<f64>,
    /// The line saying which transfer sizes the target could not take.
    pub left_out: Option<String>,
    pub prepare: Option<Prepared>,
    pub points: Vec<PresetPoint>,
}

fn ms(us: f64) -> f64 {
    us / 1000.0
}

/// tiobench's CPU %: process user + system time over the run's time.
pub fn cpu_pct(s: &Summary) -> f64 {
    if s.seconds > 0.0 {
        100.0 * s.cpu_seconds / s.seconds
    } else {
        0.0
    }
}

impl BenchmarkFigures {
    /// `benchmark`'s columns of the point measured by `run` (`s` its summary).
    pub fn of(benchmark: Benchmark, run: &Run, s: &Summary) -> BenchmarkFigures {
        match benchmark {
            Benchmark::Cdm => BenchmarkFigures::Cdm(CdmFigures {
                lat_us: s.lat_us.map(|l| l.mean),
            }),
            Benchmark::Tiobench => {
                let cpu = cpu_pct(s);
                BenchmarkFigures::Tiobench(TiobenchFigures {
                    threads: run.info.workload.qd,
                    rate_mb_per_s: s.mb_per_s,
                    cpu_pct: cpu,
                    avg_lat_ms: s.lat_us.map(|l| ms(l.mean)),
                    max_lat_ms: s.lat_us.map(|l| ms(l.max)),
                    pct_over_2s: s.pct_over_2s,
                    pct_over_10s: s.pct_over_10s,
                    cpu_eff: (cpu > 0.0).then(|| s.mb_per_s / (cpu / 100.0)),
                })
            }
            Benchmark::Iometer => {
                let rt = s.lat_us.map(|l| ms(l.mean));
                BenchmarkFigures::Iometer(IometerFigures {
                    read_mbps: s.read_mb_per_s,
                    write_mbps: s.write_mb_per_s,
                    avg_response_ms: rt,
                    avg_read_response_ms: s.read_lat_us.map(|l| ms(l.mean)),
                    avg_write_response_ms: s.write_lat_us.map(|l| ms(l.mean)),
                    avg_transaction_ms: rt,
                })
            }
        }
    }
}

impl PresetPoint {
    /// The point `name` measured by `run`, with `benchmark`'s columns; None without a summary.
    pub fn of(benchmark: Benchmark, name: &str, run: &Run) -> Option<PresetPoint> {
        let s = run.info.summary.as_ref()?;
        let w = &run.info.workload;
        Some(PresetPoint {
            name: name.into(),
            bs: w.bs,
            qd: w.qd,
            read_pct: w.read_pct,
            random_pct: w.random_pct,
            engine: run.info.engine.clone(),
            seconds: s.seconds,
            ops: s.ops,
            bytes: s.bytes,
            iops: s.iops,
            mb_per_s: s.mb_per_s,
            run_dir: run.dir.display().to_string(),
            figures: BenchmarkFigures::of(benchmark, run, s),
        })
    }

    /// True for a point that reads.
    pub fn reads(&self) -> bool {
        self.read_pct == 100
    }

    /// True for a point at random offsets.
    pub fn random(&self) -> bool {
        self.random_pct == 100
    }

    /// CrystalDiskMark's key of the point: "SEQ1M Q8T1", "RND4K Q32T1" (T1: one thread).
    pub fn cdm_key(&self) -> String {
        let size = match self.bs {
            b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}M", b >> 20),
            b if b % 1024 == 0 => format!("{}K", b >> 10),
            b => format!("{b}B"),
        };
        let access = if self.random() { "RND" } else { "SEQ" };
        format!("{access}{size} Q{}T1", self.qd)
    }
}

impl PresetTable {
    /// The table of the preset experiment `exp`: its completed points in the order run, the
    /// preparation write apart.
    pub fn of(exp: &Experiment) -> PresetTable {
        let benchmark = Benchmark::of(exp.name.as_str());
        let settings = match &exp.record.settings {
            Settings::Preset(s) => Some(s),
            _ => None,
        };
        let mut prepare = None;
        let mut points = Vec::new();
        for p in exp
            .phases
            .iter()
            .filter(|p| p.record.status == Status::Completed)
        {
            let Some(run) = p.run.as_ref() else { continue };
            let name = p.record.phase.name.as_str();
            if name == PREPARE {
                prepare = run.info.summary.as_ref().map(|s| Prepared {
                    bytes: s.bytes,
                    seconds: s.seconds,
                    mb_per_s: s.mb_per_s,
                    run_dir: run.dir.display().to_string(),
                });
            } else {
                points.extend(PresetPoint::of(benchmark, name, run));
            }
        }
        PresetTable {
            preset: exp.name.as_str().to_string(),
            span: settings.map(|s| s.span),
            point_duration_s: settings.map(|s| s.point_duration_s),
            left_out: settings.and_then(|s| s.left_out.clone()),
            prepare,
            points,
        }
    }

    /// The points paired as CrystalDiskMark's rows: one per test, read and write side by side.
    pub fn cdm_tests(&self) -> Vec<CdmTest<'_>> {
        let mut rows: Vec<CdmTest> = Vec::new();
        for p in &self.points {
            let key = p.cdm_key();
            let i = match rows.iter().position(|r| r.key == key) {
                Some(i) => i,
                None => {
                    rows.push(CdmTest {
                        key,
                        read: None,
                        write: None,
                    });
                    rows.len() - 1
                }
            };
            if p.reads() {
                rows[i].read = Some(p);
            } else {
                rows[i].write = Some(p);
            }
        }
        rows
    }
}

/// The phase name of a preset's preparation write: the test region filled before the tests,
/// as CrystalDiskMark fills its test file. It is preparation, not one of the benchmark's tests.
pub const PREPARE: &str = "prepare";

/// tiobench's tests in the order it prints them: (title, read, random).
pub const TIOBENCH_TESTS: [(&str, bool, bool); 4] = [
    ("Sequential Reads", true, false),
    ("Random Reads", true, true),
    ("Sequential Writes", false, false),
    ("Random Writes", false, true),
];

/// A transfer size as Iometer names it in its access specifications (`512B`, `4K`, `1M`).
pub fn iometer_size_name(bs: u64) -> String {
    match bs {
        b if b >= 1 << 20 => format!("{}M", b >> 20),
        b if b >= 1 << 10 => format!("{}K", b >> 10),
        b => format!("{b}B"),
    }
}

/// The names the presets' experiments are recorded under (`measure --preset`).
pub const NAMES: [&str; 3] = ["cdm", "tiobench", "iometer-allinone"];

/// True when `kind` is a benchmark preset of `measure --preset`: its figures are its table, not
/// a fade.
pub fn is_preset(kind: &crate::results::ExperimentKind) -> bool {
    NAMES.contains(&kind.as_str())
}

/// True when `phase` of an experiment of `kind` is a preset's preparation write.
pub fn is_preparation(kind: &crate::results::ExperimentKind, phase: &str) -> bool {
    is_preset(kind) && phase == PREPARE
}

/// One row of CrystalDiskMark's window: the test's key ("SEQ1M Q8T1") with its read and its
/// write point, in the order the reads ran.
#[derive(Clone, Debug, PartialEq)]
pub struct CdmTest<'a> {
    pub key: String,
    pub read: Option<&'a PresetPoint>,
    pub write: Option<&'a PresetPoint>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Command, RunInfo, TargetRecord};
    use crate::stats::IntervalStats;

    /// A point at 4 threads in 2 s with 0.5 s of CPU: 900 writes at 1 ms, 70 reads at 3 s and
    /// 30 writes at 12 s, 4 KiB each.
    fn point() -> Run {
        let mut total = IntervalStats::default();
        total.write.record_n(900, 900 * 4096, 1_000_000);
        total.read.record_n(70, 70 * 4096, 3_000_000_000);
        total.write.record_n(30, 30 * 4096, 12_000_000_000);
        let target = TargetRecord {
            path: "t".into(),
            identity: Default::default(),
        };
        let workload = crate::workload::Workload {
            qd: 4,
            ..Default::default()
        };
        let mut info = RunInfo::started(Command::Measure, target, workload, "threads", None);
        info.summary = Some(Summary::new(&total, 2.0, 0.5, 2.0, "threads"));
        Run {
            dir: "p".into(),
            info,
            samples: Vec::new(),
        }
    }

    fn near(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs()
    }

    /// MB/s (what the bars chart draws) counts 10^6 bytes: 4 096 000 bytes in 2 s.
    #[test]
    fn a_points_rate_is_in_millions_of_bytes_per_second() {
        let p = PresetPoint::of(Benchmark::Cdm, "rnd4k-q4t1-write", &point()).unwrap();
        assert!(near(p.mb_per_s, 2.048, 1e-9), "{}", p.mb_per_s);
        assert!(near(p.iops, 500.0, 1e-9), "{}", p.iops);
        let BenchmarkFigures::Cdm(f) = p.figures else {
            panic!("{:?}", p.figures)
        };
        let mean_us = (900.0 * 1e3 + 70.0 * 3e6 + 30.0 * 12e6) / 1000.0;
        assert!(near(f.lat_us.unwrap(), mean_us, 0.01), "{:?}", f.lat_us);
    }

    /// tiobench's columns from distinct inputs: 10 % of I/Os over 2 s, 3 % over 10 s, CPU
    /// 0.5 s in 2 s is 25 %, efficiency 2.048 MB/s ÷ 0.25.
    #[test]
    fn tiobench_columns_are_each_their_own_figure() {
        let run = point();
        let BenchmarkFigures::Tiobench(f) = BenchmarkFigures::of(
            Benchmark::Tiobench,
            &run,
            run.info.summary.as_ref().unwrap(),
        ) else {
            panic!("not tiobench's figures")
        };
        assert_eq!(f.threads, 4);
        assert!(near(f.pct_over_2s, 10.0, 1e-9), "{}", f.pct_over_2s);
        assert!(near(f.pct_over_10s, 3.0, 1e-9), "{}", f.pct_over_10s);
        assert!(near(f.cpu_pct, 25.0, 1e-9), "{}", f.cpu_pct);
        assert!(near(f.rate_mb_per_s, 2.048, 1e-9));
        assert!(near(f.cpu_eff.unwrap(), 8.192, 1e-9), "{:?}", f.cpu_eff);
        let mean_ms = (900.0 * 1.0 + 70.0 * 3e3 + 30.0 * 12e3) / 1000.0;
        assert!(
            near(f.avg_lat_ms.unwrap(), mean_ms, 0.01),
            "{:?}",
            f.avg_lat_ms
        );
        assert!(
            near(f.max_lat_ms.unwrap(), 12_000.0, 0.01),
            "{:?}",
            f.max_lat_ms
        );
    }

    /// Iometer's MBps per direction (10^6 bytes) and response times in ms, reads and writes
    /// apart; a transaction is one I/O.
    #[test]
    fn iometer_columns_split_reads_and_writes_in_ms() {
        let run = point();
        let BenchmarkFigures::Iometer(f) =
            BenchmarkFigures::of(Benchmark::Iometer, &run, run.info.summary.as_ref().unwrap())
        else {
            panic!("not Iometer's figures")
        };
        assert!(
            near(f.read_mbps, 70.0 * 4096.0 / 2e6, 1e-9),
            "{}",
            f.read_mbps
        );
        assert!(
            near(f.write_mbps, 930.0 * 4096.0 / 2e6, 1e-9),
            "{}",
            f.write_mbps
        );
        assert!(near(f.avg_read_response_ms.unwrap(), 3000.0, 0.01));
        let write_ms = (900.0 * 1.0 + 30.0 * 12e3) / 930.0;
        assert!(near(f.avg_write_response_ms.unwrap(), write_ms, 0.01));
        assert_eq!(f.avg_transaction_ms, f.avg_response_ms);
        let all_ms = (900.0 * 1.0 + 70.0 * 3e3 + 30.0 * 12e3) / 1000.0;
        assert!(near(f.avg_response_ms.unwrap(), all_ms, 0.01));
    }
    /// CrystalDiskMark's rows pair each test's read and write under its own key, in the order
    /// the reads ran; a test measured in one direction only keeps the other empty.
    #[test]
    fn cdm_rows_pair_reads_and_writes_under_crystaldiskmarks_keys() {
        let run = point();
        let at = |name: &str, bs: u64, qd: u32, read: bool, random: bool| {
            let mut p = PresetPoint::of(Benchmark::Cdm, name, &run).unwrap();
            (p.bs, p.qd, p.read_pct, p.random_pct) = (
                bs,
                qd,
                if read { 100 } else { 0 },
                if random { 100 } else { 0 },
            );
            p
        };
        let table = PresetTable {
            preset: "cdm".into(),
            span: None,
            point_duration_s: None,
            left_out: None,
            prepare: None,
            points: vec![
                at("seq1m-q8t1-read", 1 << 20, 8, true, false),
                at("rnd4k-q32t1-read", 4096, 32, true, true),
                at("seq1m-q8t1-write", 1 << 20, 8, false, false),
                at("rnd4k-q1t1-write", 4096, 1, false, true),
            ],
        };
        let rows = table.cdm_tests();
        let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["SEQ1M Q8T1", "RND4K Q32T1", "RND4K Q1T1"]);
        assert_eq!(rows[0].read.unwrap().name, "seq1m-q8t1-read");
        assert_eq!(rows[0].write.unwrap().name, "seq1m-q8t1-write");
        assert!(rows[1].write.is_none() && rows[2].read.is_none());
        assert!(is_preparation(&"cdm".into(), "prepare"));
        assert!(!is_preparation(&"vertex2".into(), "prepare"));
    }
}
