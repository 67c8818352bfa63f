//! A run and an erase started from code, without a command line: what an experiment phase, a
//! sweep point or the slog test does. Simulated targets, so no device is needed.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use ssdfade::engine::RunEnd;
use ssdfade::erase::{EraseRequest, Method, NoEraseProgress};
use ssdfade::pattern::Pattern;
use ssdfade::results::{read_info, read_samples, Command, RunInfo, Status};
use ssdfade::run::{run, RunObserver, RunRequest, Safety, Stop, WorkloadSpec};
use ssdfade::stats::Sample;

fn request(target: &str, out: &Path, duration: Duration) -> RunRequest {
    RunRequest {
        target: target.into(),
        records_within: None,
        workload: WorkloadSpec {
            bs: 4096,
            align: None,
            read_pct: 0,
            random_pct: 100,
            qd: 32,
            span: None,
            seed: Some(7),
            pattern: Pattern::Random,
            ..Default::default()
        },
        stop: Stop::new(Some(duration), None, Duration::from_secs(60)),
        interval: Duration::from_secs(5),
        engine: None,
        safety: Safety::default(),
        out: Some(out.to_path_buf()),
        command: "library-test".into(),
        interrupt: Arc::new(AtomicBool::new(false)),
        checkpoint: None,
    }
}

/// Remembers everything the run told it.
#[derive(Default)]
struct Log {
    started: Vec<String>,
    samples: Vec<Sample>,
    ended: Vec<RunEnd>,
}

impl RunObserver for Log {
    fn started(&mut self, _dir: &Path, info: &RunInfo) {
        self.started.push(info.command.to_string());
    }
    fn sample(&mut self, sample: &Sample) {
        self.samples.push(sample.clone());
    }
    fn finished(&mut self, end: &RunEnd) {
        self.ended.push(end.clone());
    }
}

#[test]
fn a_run_from_code_records_what_its_observer_saw() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let mut log = Log::default();
    let outcome = run(
        &request("sim:vertex2-60g", &dir, Duration::from_secs(30)),
        &mut log,
    )
    .unwrap();
    assert_eq!(outcome.end, RunEnd::Completed);
    assert_eq!(outcome.dir, dir);
    assert_eq!(log.started, vec!["library-test".to_string()]);
    assert_eq!(log.ended, vec![RunEnd::Completed]);

    let samples = read_samples(&dir).unwrap();
    assert_eq!(samples.len(), 6, "30 s in 5 s intervals");
    assert_eq!(log.samples.len(), samples.len());
    for (i, (seen, stored)) in log.samples.iter().zip(&samples).enumerate() {
        assert_eq!(seen.index, i as u64);
        assert_eq!(seen.bytes, stored.bytes);
        assert!((seen.t_end_s - stored.t_end_s).abs() < 1e-9);
    }
    let bytes: u64 = samples.iter().map(|s| s.bytes).sum();
    assert!(bytes > 0);
    assert_eq!(samples.last().unwrap().bytes_written_total, bytes);

    let info = read_info(&dir).unwrap();
    assert_eq!(info.command, Command::Other("library-test".into()));
    assert_eq!(info.status, Status::Completed);
    assert_eq!(info.workload.qd, 32);
    assert_eq!(info.workload.seed, 7);
    assert_eq!(
        info.workload.align, 4096,
        "align defaults to the transfer size"
    );
    assert_eq!(info.workload.span, info.target.identity.size_bytes);
    assert_eq!(info.workload.duration, Some(Duration::from_secs(30)));
}

#[test]
fn a_run_whose_interrupt_flag_is_set_ends_interrupted_with_its_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let req = request("sim:vertex2-60g", &dir, Duration::from_secs(3600));
    req.interrupt
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let outcome = run(&req, &mut ssdfade::run::NoProgress).unwrap();
    assert_eq!(outcome.end, RunEnd::Interrupted);
    assert_eq!(read_info(&dir).unwrap().status, Status::Interrupted);
    assert!(outcome.summary.seconds < 3600.0);
}

#[test]
fn a_refused_run_creates_no_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let mut req = request("sim:vertex2-60g", &dir, Duration::from_secs(10));
    req.workload.bs = 1000;
    let err = run(&req, &mut ssdfade::run::NoProgress).err().unwrap();
    assert_eq!(ssdfade::error::exit_code(&err), 2, "{err:#}");
    assert!(!dir.exists());
}

#[test]
fn stop_rule_defaults_match_the_cli() {
    let d = Duration::from_secs(60);
    let both = Stop::new(None, None, d);
    assert_eq!((both.duration, both.bytes), (Some(d), None));
    let bytes_only = Stop::new(None, Some(1 << 30), d);
    assert_eq!(
        (bytes_only.duration, bytes_only.bytes),
        (None, Some(1 << 30))
    );
    let given = Stop::new(Some(Duration::from_secs(5)), Some(9), d);
    assert_eq!(given.duration, Some(Duration::from_secs(5)));
    assert_eq!(given.bytes, Some(9));
}

#[test]
fn an_erase_from_code_writes_its_record_and_resets_the_simulated_drive() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("drive.json");
    let target = format!("sim:vertex2-60g,aged=0s,state={}", state.display());
    // Fill the simulated drive a little so the erase has something to forget.
    let mut req = request(&target, &tmp.path().join("soak"), Duration::from_secs(20));
    req.command = "soak".into();
    run(&req, &mut ssdfade::run::NoProgress).unwrap();

    let dir = tmp.path().join("erase");
    let erase = EraseRequest {
        target: target.clone(),
        records_within: None,
        method: Method::Auto,
        destroy_data: None,
        force: false,
        crypto: false,
        action: None,
        span: None,
        chunk: 1 << 30,
        out: Some(dir.clone()),
        interrupt: Arc::new(AtomicBool::new(false)),
    };
    let planned = ssdfade::erase::plan_erase(&erase).unwrap();
    assert_eq!(planned.method, Method::Sim);
    assert_eq!(planned.describe(), vec!["simulator: Secure".to_string()]);

    let outcome = ssdfade::erase::erase(&erase, &mut NoEraseProgress).unwrap();
    assert_eq!(outcome.end, RunEnd::Completed);
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("erase.json")).unwrap()).unwrap();
    assert_eq!(stored["outcome"], "completed");
    assert_eq!(stored["method"], "sim");
    assert_eq!(stored["method_requested"], "auto");
    let detail = outcome.record.done.unwrap().detail;
    assert!(detail.contains("pages forgotten"), "{detail}");
    assert!(
        !detail.contains(" 0 mapped"),
        "the soak mapped pages: {detail}"
    );

    // A method the simulator cannot apply is refused before anything is recorded.
    let refused = EraseRequest {
        method: Method::Zeroout,
        out: Some(tmp.path().join("refused")),
        ..erase
    };
    let err = ssdfade::erase::erase(&refused, &mut NoEraseProgress)
        .err()
        .unwrap();
    assert_eq!(ssdfade::error::exit_code(&err), 2, "{err:#}");
    assert!(!tmp.path().join("refused").exists());
}

#[test]
fn a_sync_mode_workload_is_an_ordinary_run_of_durable_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sync");
    let mut req = request("sim:dc-ssd-400g", &out, Duration::from_secs(3));
    req.interval = Duration::from_secs(1);
    req.workload.qd = 1;
    req.workload.sync = Some(ssdfade::workload::SyncWrites {
        mode: ssdfade::workload::SyncMode::Dsync,
        min_writes: 0,
    });
    let mut log = Log::default();
    let outcome = run(&req, &mut log).unwrap();
    assert_eq!(outcome.end, RunEnd::Completed);
    let info = read_info(&out).unwrap();
    assert_eq!(info.status, Status::Completed);
    assert_eq!(info.engine, "sim");
    assert_eq!(info.workload.sync, req.workload.sync);
    let samples = read_samples(&out).unwrap();
    let ops = |s: &[Sample]| s.iter().map(|s| (s.index, s.ops)).collect::<Vec<_>>();
    assert_eq!(ops(&samples), ops(&log.samples));
    assert_eq!(samples.len(), 3);
    let writes: u64 = samples.iter().map(|s| s.ops).sum();
    assert!(writes > 0);
    assert_eq!(writes, outcome.summary.ops);
    assert!(samples
        .iter()
        .all(|s| s.read.is_none() && s.write.is_some()));
}
