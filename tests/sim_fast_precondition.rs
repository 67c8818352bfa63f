//! `--precondition fast` on simulated drives, where the steady state is known: one physical
//! write of the span lands the drive where a long soak of random writes settles, and the
//! steady-state rounds start only after it.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use ssdfade::results::{read_info, read_samples};
use ssdfade::run::{run, NoProgress, RunRequest, Safety, Stop, WorkloadSpec};
use ssdfade::workload::PreconditionSpec;

const DRIVE: &str = "sim:dc-ssd-400g,scale=256";
const CAPACITY: u64 = 400_000_000_000;

fn soak(out: &Path, precondition: PreconditionSpec, stop: Stop) -> ssdfade::results::RunInfo {
    soak_on(DRIVE, None, out, precondition, stop)
}

fn soak_on(
    target: &str,
    span: Option<u64>,
    out: &Path,
    precondition: PreconditionSpec,
    stop: Stop,
) -> ssdfade::results::RunInfo {
    let request = RunRequest {
        target: target.into(),
        records_within: None,
        workload: WorkloadSpec {
            seed: Some(3),
            span,
            precondition,
            ..Default::default()
        },
        stop,
        interval: Duration::from_secs(10),
        engine: None,
        safety: Safety::default(),
        out: Some(out.to_path_buf()),
        command: "soak".into(),
        interrupt: Arc::new(AtomicBool::new(false)),
        checkpoint: None,
    };
    run(&request, &mut NoProgress).expect("the soak runs");
    read_info(out).expect("run.json")
}

/// Mean IOPS of the samples whose cumulative writes fall in `[from, to)` drive writes.
fn iops_between(dir: &Path, from: f64, to: f64) -> f64 {
    iops_between_on(dir, CAPACITY, from, to)
}

fn iops_between_on(dir: &Path, capacity: u64, from: f64, to: f64) -> f64 {
    let samples = read_samples(dir).expect("samples");
    let within: Vec<_> = samples
        .iter()
        .filter(|s| {
            let fills = s.bytes_written_total as f64 / capacity as f64;
            fills >= from && fills < to
        })
        .collect();
    let ops: u64 = within.iter().map(|s| s.ops).sum();
    let secs: f64 = within.iter().map(|s| s.t_end_s - s.t_start_s).sum();
    ops as f64 / secs
}

#[test]
fn fast_preconditioning_reaches_the_steady_iops_a_long_random_soak_settles_at() {
    let tmp = tempfile::tempdir().unwrap();
    let slow = tmp.path().join("slow");
    soak(
        &slow,
        PreconditionSpec::None,
        Stop::new(None, Some(9 * CAPACITY), Duration::from_secs(60)),
    );
    let settled = iops_between(&slow, 8.0, 9.0);
    // The slow way is still far from it after one physical write of random data.
    let early = iops_between(&slow, 1.3, 1.5);
    assert!(
        early > settled * 1.2,
        "early {early:.0}, settled {settled:.0}"
    );

    let fast = tmp.path().join("fast");
    let info = soak(
        &fast,
        PreconditionSpec::Fast { op_pct: None },
        Stop::new(Some(Duration::from_secs(30 * 86_400)), None, Duration::ZERO)
            .with_steady(Duration::from_secs(60), true),
    );
    let plan = info.workload.precondition.expect("the plan is recorded");
    assert!((plan.drive_op_pct - 28.0).abs() < 0.01, "{plan:?}");
    let steady = info.steady_state.expect("steady state recorded");
    assert!(steady.reached, "{steady:?}");
    let iops = steady.iops.unwrap();
    assert!(
        (iops / settled - 1.0).abs() < 0.05,
        "after fast preconditioning {iops:.0} IOPS, settled {settled:.0}"
    );
    // One physical write (1.28 drive writes) and five rounds.
    let fills = steady.drive_fills.unwrap();
    assert!(fills < 1.5, "steady after {fills:.2} drive writes");
    // The same in physical drive writes: over the flash (1.28 × the capacity).
    let physical = steady.flash_fills.expect("physical drive writes recorded");
    assert!(
        (physical * 1.28 / fills - 1.0).abs() < 0.01,
        "{physical:.3} of the flash against {fills:.3} fills"
    );
    let size = info.target.identity.size_bytes as f64;
    assert!(
        (plan.flash_bytes as f64 / size - 1.28).abs() < 1e-6,
        "{plan:?}"
    );
    // The rounds start after the preconditioning: the fresh-speed writes never count.
    let window = steady.window.unwrap();
    let samples = read_samples(&fast).unwrap();
    let first_round = samples.iter().find(|s| s.t_end_s > window.start_s).unwrap();
    assert!(first_round.bytes_written_total >= plan.bytes);
}

/// A small span of a flash drive whose fresh rate is its flash's (100 GB: fewer dies): its
/// greedy WA is only 1.03 (α 3.66), yet its steady state is 8 % below the fresh rate, for a
/// purged drive's free blocks are erased already. The plan writes the whole flash, not the
/// span once (it did, and came out 9 % fast).
#[test]
fn a_small_span_of_flash_gets_the_whole_flash_written() {
    let tmp = tempfile::tempdir().unwrap();
    let (drive, capacity) = ("sim:dc-ssd-400g,capacity=100G,scale=64", 100_000_000_000);
    let span = Some(capacity / 100 * 35);
    let long = Stop::new(None, Some(3 * capacity), Duration::from_secs(60));
    let slow = tmp.path().join("slow");
    soak_on(drive, span, &slow, PreconditionSpec::None, long);
    let fresh = iops_between_on(&slow, capacity, 0.1, 1.0);
    let settled = iops_between_on(&slow, capacity, 2.5, 3.0);
    assert!(
        settled < fresh * 0.95,
        "fresh {fresh:.0}, settled {settled:.0}"
    );

    let fast = tmp.path().join("fast");
    let info = soak_on(
        drive,
        span,
        &fast,
        PreconditionSpec::Fast { op_pct: None },
        Stop::new(Some(Duration::from_secs(30 * 86_400)), None, Duration::ZERO)
            .with_steady(Duration::from_secs(60), true),
    );
    let plan = info.workload.precondition.expect("the plan is recorded");
    assert!(
        !plan.span_once && plan.bytes >= plan.flash_bytes - 4096,
        "{plan:?}"
    );
    let iops = info.steady_state.and_then(|s| s.iops).expect("steady");
    assert!(
        (iops / settled - 1.0).abs() < 0.05,
        "after fast preconditioning {iops:.0} IOPS, settled {settled:.0}"
    );
}

/// Media written in place (the Optane-class preset, modelled with 4 × its capacity of spare
/// area) has no flash to fill: the plan writes the span once, and a plain soak's rounds count
/// once the span is written, not after the modelled 4 drive writes.
#[test]
fn media_written_in_place_is_steady_once_the_span_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let optane = "sim:optane-375g,scale=256";
    let until_steady = Stop::new(Some(Duration::from_secs(30 * 86_400)), None, Duration::ZERO)
        .with_steady(Duration::from_secs(60), true);
    let info = soak_on(
        optane,
        None,
        &tmp.path().join("plain"),
        PreconditionSpec::None,
        until_steady,
    );
    let steady = info.steady_state.expect("steady state recorded");
    // The span once, then five one-minute rounds at ~500 000 IOPS (1.7 drive writes).
    let fills = steady.drive_fills.expect("fills");
    assert!(steady.reached && fills < 3.0, "{steady:?}");
    assert_eq!(steady.flash_fills, None, "no flash to count against");

    let info = soak_on(
        optane,
        None,
        &tmp.path().join("fast"),
        PreconditionSpec::Fast { op_pct: None },
        until_steady,
    );
    let plan = info.workload.precondition.expect("the plan is recorded");
    assert!(
        plan.span_once && plan.bytes == info.workload.span,
        "{plan:?}"
    );
}

#[test]
fn until_predicted_stops_after_fast_preconditioning_with_the_settled_iops_in_its_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let slow = tmp.path().join("slow");
    soak(
        &slow,
        PreconditionSpec::None,
        Stop::new(None, Some(9 * CAPACITY), Duration::from_secs(60)),
    );
    let settled = iops_between(&slow, 8.0, 9.0);
    // Before the cliff there is nothing to predict from.
    let early = read_info(&slow).unwrap();
    assert!(
        early.prediction.is_some(),
        "a 9-fill soak ends with a prediction"
    );

    let fast = tmp.path().join("fast");
    let mut stop = Stop::new(Some(Duration::from_secs(30 * 86_400)), None, Duration::ZERO)
        .with_steady(Duration::from_secs(60), false);
    stop.steady.stop_when_predicted = true;
    let info = soak(&fast, PreconditionSpec::Fast { op_pct: None }, stop);
    let p = info.prediction.expect("a prediction");
    assert!(p.half_width_pct <= 5.0, "{p:?}");
    assert!(
        p.low <= settled && settled <= p.high,
        "{p:?} vs {settled:.0}"
    );
    // It stopped there: well before the month it was allowed.
    assert!(info.summary.unwrap().seconds < 86_400.0);
}
