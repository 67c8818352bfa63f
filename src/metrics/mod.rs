//! Prometheus metrics of running runs: a [`MetricsObserver`] wraps any run's observer and
//! keeps per-target gauges and counters up to date (last interval's IOPS, throughput and
//! latency quantiles, bytes written, errors, run state, steady state, drive wear), labelled by
//! host, target, model, serial, run and phase, so a dashboard can group a fleet by model (label
//! values are escaped as the exposition format asks: backslash, double quote, newline). An [`ExperimentMetrics`] observer adds which phase of
//! an experiment is running. An [`Exporter`] serves them on `GET /metrics` and/or rewrites a
//! textfile for node_exporter's textfile collector atomically after every sample.

mod experiment;
mod server;
mod textfile;

pub use experiment::ExperimentMetrics;

use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::drive::DriveInfo;
use crate::drive::RunEnd;
use crate::observe::run::RunObserver;
use crate::results::{ProcessStamp, RunInfo, Status};
use crate::stats::steady::SteadyState;
use crate::stats::Sample;

/// Which run a series belongs to: few values per host, never one per interval.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RunLabels {
    /// The host the run runs on, as its record's process stamp names it (`run.json`
    /// `process.host`, the host `ssdfade fleet` reports).
    pub host: String,
    /// The target as given (`/dev/nvme0n1`, `sim:…`).
    pub target: String,
    pub model: String,
    pub serial: String,
    /// The run directory's name; for a phase of an experiment, the experiment directory's.
    pub run: String,
    /// The experiment phase the run is (`soak`, `fresh`…); empty (no label) for a plain run.
    pub phase: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QuantileLabels {
    #[prometheus(flatten)]
    run: RunLabels,
    quantile: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    #[prometheus(flatten)]
    run: RunLabels,
    state: String,
}

type FloatGauge = Gauge<f64, AtomicU64>;

/// The run states `ssdfade_run_state` reports, one series each (1 for the current one).
const STATES: [Status; 4] = [
    Status::Running,
    Status::Completed,
    Status::Interrupted,
    Status::Failed,
];

/// The metric families of every run in this process.
struct Families {
    iops: Family<RunLabels, FloatGauge>,
    throughput: Family<RunLabels, FloatGauge>,
    latency: Family<QuantileLabels, FloatGauge>,
    latency_mean: Family<RunLabels, FloatGauge>,
    elapsed: Family<RunLabels, FloatGauge>,
    written: Family<RunLabels, Counter>,
    errors: Family<RunLabels, Counter>,
    samples: Family<RunLabels, Counter>,
    state: Family<StateLabels, Gauge>,
    wear_used: Family<RunLabels, Gauge>,
    life_left: Family<RunLabels, Gauge>,
    steady: Family<RunLabels, Gauge>,
    steady_at: Family<RunLabels, FloatGauge>,
    steady_iops: Family<RunLabels, FloatGauge>,
    experiment: experiment::Families,
}

impl Families {
    fn register(registry: &mut Registry) -> Families {
        let f = Families {
            iops: Family::default(),
            throughput: Family::default(),
            latency: Family::default(),
            latency_mean: Family::default(),
            elapsed: Family::default(),
            written: Family::default(),
            errors: Family::default(),
            samples: Family::default(),
            state: Family::default(),
            wear_used: Family::default(),
            life_left: Family::default(),
            steady: Family::default(),
            steady_at: Family::default(),
            steady_iops: Family::default(),
            experiment: experiment::Families::default(),
        };
        let r = registry;
        r.register(
            "iops",
            "I/Os per second, reads and writes, in the last interval",
            f.iops.clone(),
        );
        r.register(
            "throughput_bytes_per_second",
            "Bytes per second, reads and writes, in the last interval",
            f.throughput.clone(),
        );
        r.register(
            "latency_seconds",
            "I/O latency of the last interval, reads and writes: quantiles 0.5, 0.99, 0.999 and 1 (the maximum)",
            f.latency.clone(),
        );
        r.register(
            "latency_mean_seconds",
            "Mean I/O latency of the last interval, reads and writes",
            f.latency_mean.clone(),
        );
        r.register(
            "elapsed_seconds",
            "End of the last interval, seconds since the run started (simulated time for sim targets)",
            f.elapsed.clone(),
        );
        r.register(
            "written_bytes",
            "Bytes written since the run started",
            f.written.clone(),
        );
        r.register(
            "errors",
            "I/O errors since the run started",
            f.errors.clone(),
        );
        r.register(
            "samples",
            "Intervals recorded since the run started",
            f.samples.clone(),
        );
        r.register(
            "run_state",
            "1 for the run's current state (running, completed, interrupted, failed), else 0",
            f.state.clone(),
        );
        r.register(
            "drive_percentage_used",
            "Drive endurance used, percent (NVMe percentage_used, the simulator's wear), as last read (at the run's start and end), when known",
            f.wear_used.clone(),
        );
        r.register(
            "drive_life_left_percent",
            "Drive life left, percent (ATA wear attribute, the simulator's wear), as last read (at the run's start and end), when known",
            f.life_left.clone(),
        );
        r.register(
            "steady_state_reached",
            "1 once the run (one that writes) has reached SNIA steady state, else 0",
            f.steady.clone(),
        );
        r.register(
            "steady_state_reached_at_seconds",
            "When the run reached steady state: end of the first steady window, seconds since the run started (run.json steady_state.at_s)",
            f.steady_at.clone(),
        );
        r.register(
            "steady_state_iops",
            "Average IOPS of the first steady window (run.json steady_state.iops)",
            f.steady_iops.clone(),
        );
        f.experiment.register(r);
        f
    }
}

/// Where the metrics of this process go: an HTTP endpoint, a textfile, or both.
pub struct Exporter {
    registry: Registry,
    families: Families,
    textfile: Option<PathBuf>,
    /// One writer of the textfile at a time (runs of a group sample in their own threads).
    textfile_lock: Mutex<()>,
    /// Held while a sample's values are set and while they are encoded, so a scrape sees every
    /// figure of one interval together.
    consistent: Mutex<()>,
    /// The endpoint's address, said on stderr once, when the first run starts: a command
    /// refused before it runs then says its refusal alone, in one line.
    endpoint: Option<std::net::SocketAddr>,
    said: std::sync::Once,
}

impl Exporter {
    /// Starts exporting: `listen` (`ADDR:PORT`) serves `/metrics` from a background thread;
    /// `textfile` is rewritten after every sample. `None` when neither is asked for. An address
    /// that cannot be bound or a textfile whose directory is missing is bad input.
    pub fn start(
        listen: Option<&str>,
        textfile: Option<&Path>,
    ) -> anyhow::Result<Option<Arc<Exporter>>> {
        if listen.is_none() && textfile.is_none() {
            return Ok(None);
        }
        if let Some(path) = textfile {
            textfile::check(path)?;
        }
        let http = listen.map(server::bind).transpose()?;
        let endpoint = http
            .as_ref()
            .map(|h| {
                h.local_addr()
                    .context("the metrics endpoint has no address")
            })
            .transpose()?;
        let mut registry = Registry::with_prefix("ssdfade");
        let families = Families::register(&mut registry);
        let exporter = Arc::new(Exporter {
            registry,
            families,
            textfile: textfile.map(Path::to_path_buf),
            textfile_lock: Mutex::new(()),
            consistent: Mutex::new(()),
            endpoint,
            said: std::sync::Once::new(),
        });
        if let Some(http) = http {
            server::serve(http, Arc::downgrade(&exporter))?;
        }
        Ok(Some(exporter))
    }

    /// Says where the endpoint listens (the port bound, so `HOST:0` can be scraped), once.
    fn say_where(&self) {
        if let Some(addr) = self.endpoint {
            self.said
                .call_once(|| crate::note!("ssdfade: metrics on http://{addr}/metrics"));
        }
    }

    /// The metrics in the text exposition format.
    pub fn encode(&self) -> String {
        let _whole_intervals = self.consistent.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .expect("writing to a String cannot fail");
        text
    }

    fn write_textfile(&self) {
        if let Some(path) = &self.textfile {
            let _one_writer = self.textfile_lock.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(e) = textfile::replace(path, &self.encode()) {
                crate::note!("ssdfade: metrics textfile: {e:#}");
            }
        }
    }

    /// Wraps `inner` so the run it watches is exported too.
    pub fn observer(self: &Arc<Self>, inner: Box<dyn RunObserver + Send>) -> MetricsObserver {
        MetricsObserver {
            exporter: self.clone(),
            labels: None,
            phase: None,
            inner,
        }
    }

    /// Wraps `inner` so the experiment it watches, and every run in it, is exported too.
    pub fn experiment_observer(
        self: &Arc<Self>,
        inner: Box<dyn crate::observe::experiment::ExperimentObserver + Send>,
    ) -> ExperimentMetrics {
        ExperimentMetrics::new(self.clone(), inner)
    }
}

/// A [`RunObserver`] exporting its run and passing every event on to the observer it wraps
/// (one that can go to another thread, unless it wraps one that cannot).
pub struct MetricsObserver<O: RunObserver + ?Sized = dyn RunObserver + Send> {
    exporter: Arc<Exporter>,
    labels: Option<RunLabels>,
    /// For a phase of an experiment: its target as given, the experiment directory's name and
    /// the phase's.
    phase: Option<PhaseOf>,
    inner: Box<O>,
}

/// The labels of a run that is a phase of an experiment: the experiment's target (without the
/// simulated drive's `state=` the phase runs with), directory and the phase's name.
#[derive(Clone, Debug)]
struct PhaseOf {
    target: String,
    run: String,
    phase: String,
}

impl<O: RunObserver + ?Sized> MetricsObserver<O> {
    fn set_wear(&self, labels: &RunLabels, wear: &crate::drive::Wear) {
        let f = &self.exporter.families;
        if let Some(used) = wear.percentage_used {
            f.wear_used.get_or_create(labels).set(i64::from(used));
        }
        if let Some(left) = wear.life_left_percent {
            f.life_left.get_or_create(labels).set(i64::from(left));
        }
    }

    fn set_state(&self, labels: &RunLabels, now: Status) {
        for state in STATES {
            let key = StateLabels {
                run: labels.clone(),
                state: state.to_string(),
            };
            self.exporter
                .families
                .state
                .get_or_create(&key)
                .set(i64::from(state == now));
        }
    }
}

impl<O: RunObserver + ?Sized> RunObserver for MetricsObserver<O> {
    fn started(&mut self, dir: &Path, info: &RunInfo) {
        self.exporter.say_where();
        let identity = &info.target.identity;
        let dir_name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let of = self.phase.clone().unwrap_or(PhaseOf {
            target: info.target.path.clone(),
            run: dir_name,
            phase: String::new(),
        });
        let labels = RunLabels {
            host: info
                .process
                .as_ref()
                .map_or_else(|| ProcessStamp::current().host, |p| p.host.clone()),
            target: of.target,
            model: identity.model.clone().unwrap_or_default(),
            serial: identity.serial.clone().unwrap_or_default(),
            run: of.run,
            phase: of.phase,
        };
        let f = &self.exporter.families;
        // Counters appear at 0 from the start, so a rate() has its first point.
        f.written.get_or_create(&labels).inc_by(0);
        f.errors.get_or_create(&labels).inc_by(0);
        f.samples.get_or_create(&labels).inc_by(0);
        if info.workload.read_pct < 100 {
            f.steady.get_or_create(&labels).set(0);
        }
        if let Some(drive) = &info.drive_before {
            self.set_wear(&labels, &drive.wear);
        }
        self.set_state(&labels, Status::Running);
        self.labels = Some(labels);
        self.exporter.write_textfile();
        self.inner.started(dir, info);
    }

    fn sample(&mut self, sample: &Sample) {
        if let Some(labels) = &self.labels {
            let whole_interval = self
                .exporter
                .consistent
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let f = &self.exporter.families;
            f.iops.get_or_create(labels).set(sample.iops);
            f.throughput
                .get_or_create(labels)
                .set(sample.mb_per_s * 1e6);
            f.elapsed.get_or_create(labels).set(sample.t_end_s);
            // An interval without I/O has no latency: NaN, a gap in a graph.
            let lat = sample.lat_us.unwrap_or(crate::stats::LatencySummary {
                mean: f64::NAN,
                p50: f64::NAN,
                p99: f64::NAN,
                p999: f64::NAN,
                max: f64::NAN,
            });
            for (quantile, us) in [
                ("0.5", lat.p50),
                ("0.99", lat.p99),
                ("0.999", lat.p999),
                ("1", lat.max),
            ] {
                let key = QuantileLabels {
                    run: labels.clone(),
                    quantile: quantile.into(),
                };
                f.latency.get_or_create(&key).set(us / 1e6);
            }
            f.latency_mean.get_or_create(labels).set(lat.mean / 1e6);
            let written = f.written.get_or_create(labels);
            written.inc_by(sample.bytes_written_total.saturating_sub(written.get()));
            f.errors.get_or_create(labels).inc_by(sample.errors);
            f.samples.get_or_create(labels).inc();
            drop(whole_interval);
            self.exporter.write_textfile();
        }
        self.inner.sample(sample);
    }

    fn steady_reached(&mut self, state: &SteadyState) {
        if let Some(labels) = &self.labels {
            let f = &self.exporter.families;
            f.steady.get_or_create(labels).set(1);
            if let Some(at) = state.at_s {
                f.steady_at.get_or_create(labels).set(at);
            }
            if let Some(iops) = state.iops {
                f.steady_iops.get_or_create(labels).set(iops);
            }
            self.exporter.write_textfile();
        }
        self.inner.steady_reached(state);
    }

    fn drive_after(&mut self, drive: &DriveInfo) {
        if let Some(labels) = &self.labels {
            self.set_wear(labels, &drive.wear);
            self.exporter.write_textfile();
        }
        self.inner.drive_after(drive);
    }

    fn finished(&mut self, end: &RunEnd) {
        if let Some(labels) = &self.labels {
            self.set_state(labels, Status::of_end(end));
            self.exporter.write_textfile();
        }
        self.inner.finished(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drive::{Identity, Wear};
    use crate::observe::run::NoProgress;
    use crate::results::{Command, TargetRecord};
    use crate::stats::LatencySummary;

    /// The value of the one series of `name` whose labels contain `label`.
    fn value(text: &str, name: &str, label: &str) -> f64 {
        let found: Vec<f64> = text
            .lines()
            .filter(|l| l.starts_with(&format!("ssdfade_{name}{{")) && l.contains(label))
            .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(found.len(), 1, "{name} {label}:\n{text}");
        found[0]
    }

    /// Every exported metric against the crafted sample, steady state and wear it came from,
    /// each value distinct so a metric wired to the wrong field (or unit) fails.
    #[test]
    fn every_metric_is_its_figure_in_base_units() {
        let work = tempfile::tempdir().unwrap();
        let textfile = work.path().join("ssdfade.prom");
        let exporter = Exporter::start(None, Some(&textfile)).unwrap().unwrap();
        let mut observer = exporter.observer(Box::new(NoProgress));
        let target = TargetRecord {
            path: "/dev/test0".into(),
            identity: Identity {
                model: Some("M".into()),
                serial: Some("S1".into()),
                ..Default::default()
            },
        };
        let mut info = RunInfo::started(Command::Soak, target, Default::default(), "sim", None);
        // A host name with every character the exposition format escapes.
        info.process = Some(ProcessStamp {
            host: "rack \"7\"\\a\nb".into(),
            ..ProcessStamp::current()
        });
        info.drive_before = Some(DriveInfo {
            wear: Wear {
                percentage_used: Some(6),
                life_left_percent: Some(94),
                ..Default::default()
            },
            ..Default::default()
        });
        observer.started(&work.path().join("run-a"), &info);
        let sample = Sample {
            index: 0,
            t_start_s: 10.0,
            t_end_s: 20.0,
            ops: 12_345,
            bytes: 50_625_000,
            iops: 1234.5,
            mb_per_s: 5.0625,
            lat_us: Some(LatencySummary {
                mean: 300.0,
                p50: 100.0,
                p99: 2500.0,
                p999: 7000.0,
                max: 9000.0,
            }),
            read: None,
            write: None,
            trim: None,
            errors: 3,
            error_events: Vec::new(),
            bytes_written_total: 8_388_608,
            pacing: None,
            stopped_s: None,
            suspended_s: None,
            nand_bytes: None,
            health: None,
        };
        observer.sample(&sample);
        observer.steady_reached(&SteadyState {
            reached: true,
            at_s: Some(15.0),
            bytes_written: None,
            drive_fills: None,
            flash_fills: None,
            iops: Some(1111.0),
            window: None,
            rounds: 5,
            last_window: None,
        });
        observer.drive_after(&DriveInfo {
            wear: Wear {
                percentage_used: Some(7),
                life_left_percent: Some(93),
                ..Default::default()
            },
            ..Default::default()
        });
        observer.finished(&RunEnd::Completed);
        let text = std::fs::read_to_string(&textfile).unwrap();
        assert_eq!(text, exporter.encode());
        let run = "run=\"run-a\"";
        assert!(
            text.contains(
                r#"{host="rack \"7\"\\a\nb",target="/dev/test0",model="M",serial="S1",run="run-a""#
            ),
            "{text}"
        );
        // Escaped, the host's newline splits no series: every line is a comment or one sample.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            assert!(
                line.starts_with("ssdfade_") && line.contains("} "),
                "{line}"
            );
        }
        assert_eq!(value(&text, "iops", run), 1234.5);
        assert_eq!(value(&text, "throughput_bytes_per_second", run), 5.0625e6);
        assert_eq!(value(&text, "latency_seconds", "quantile=\"0.5\""), 1e-4);
        assert_eq!(value(&text, "latency_seconds", "quantile=\"0.99\""), 2.5e-3);
        assert_eq!(value(&text, "latency_seconds", "quantile=\"0.999\""), 7e-3);
        assert_eq!(value(&text, "latency_seconds", "quantile=\"1\""), 9e-3);
        assert_eq!(value(&text, "latency_mean_seconds", run), 3e-4);
        assert_eq!(value(&text, "elapsed_seconds", run), 20.0);
        assert_eq!(value(&text, "written_bytes_total", run), 8_388_608.0);
        assert_eq!(value(&text, "errors_total", run), 3.0);
        assert_eq!(value(&text, "samples_total", run), 1.0);
        assert_eq!(value(&text, "run_state", "state=\"completed\""), 1.0);
        assert_eq!(value(&text, "run_state", "state=\"running\""), 0.0);
        assert_eq!(value(&text, "drive_percentage_used", run), 7.0);
        assert_eq!(value(&text, "drive_life_left_percent", run), 93.0);
        assert_eq!(value(&text, "steady_state_reached", run), 1.0);
        assert_eq!(value(&text, "steady_state_reached_at_seconds", run), 15.0);
        assert_eq!(value(&text, "steady_state_iops", run), 1111.0);
    }
}
