//! The figures of a benchmark preset (`measure --preset`): every completed point's access
//! specification, its IOPS and MB/s (10^6 bytes per second, as the benchmarks count), and the
//! benchmark's own columns — CrystalDiskMark's mean latency in µs; tiobench's rate, CPU %
//! (user + system CPU time over the run's time), average and maximum latency in ms, percent of
//! I/Os over 2 s and over 10 s and CPU efficiency (rate ÷ CPU share); Iometer's read and write
//! MBps and response times in ms (a transaction is one I/O: its time is the response time).
//! Every figure is the point's run.json summary. The terminal tables, `--json` and the bars
//! chart show these.

use serde::Serialize;

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
}

impl PresetTable {
    /// The table of the preset experiment `exp`: its completed points in the order run, the
    /// preparation write apart.
    pub fn of(exp: &Experiment) -> PresetTable {
        let benchmark = Benchmark::of(exp.name.as_str());
        let settings = &exp.record.settings;
        let mut prepare = None;
        let mut points = Vec::new();
        for p in exp
            .phases
            .iter()
            .filter(|p| p.record.status == Status::Completed)
        {
            let Some(run) = p.run.as_ref() else { continue };
            let name = p.record.phase.name.as_str();
            if name == "prepare" {
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
            span: settings["span"].as_u64(),
            point_duration_s: settings["point_duration_s"].as_f64(),
            left_out: settings["left_out"].as_str().map(str::to_string),
            prepare,
            points,
        }
    }
}
