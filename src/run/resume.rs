//! Continuing a run that was cut short (a crash, SIGKILL, power loss, Ctrl-C): the same run
//! directory and the same samples series, for the time or bytes it has left.
//!
//! The series goes on from the last sample kept: indexes continue, the run's time line continues
//! from that sample's end, bytes written continue from its total; run.json records the resume
//! (`resumes[]`) with the outage in wall seconds. A real drive keeps every sample that reached
//! stable storage. A simulated drive only knows what it saved (at the end of a run and at its
//! checkpoints), so the series is cut back to the last sample whose bytes written match the
//! drive's own counter: the drive and the samples then agree, and nothing written after the
//! drive was saved is counted.

use std::time::{Duration, SystemTime};

use super::{execute, open, CreatedFile, Outcome, RunObserver, RunRequest};
use crate::bad_input;
use crate::results::Status;
use crate::results::{
    read_info, read_samples_to_damage, utc_now, ProcessStamp, Resume, RunDir, Summary,
};
use crate::stats::{LatencySummary, Sample};

/// Continues the run in `request.out` (which must hold one that did not complete) with the
/// workload recorded in its run.json and what is left of its stop rule. Refuses (exit 2) a
/// directory without a run, a completed run, or one made on another target.
pub fn continue_run(
    request: &RunRequest,
    observer: &mut dyn RunObserver,
) -> anyhow::Result<Outcome> {
    let Some(dir) = request.out.clone() else {
        bad_input!("continuing a run needs its run directory");
    };
    let mut info = match read_info(&dir) {
        Ok(info) => info,
        Err(e) => bad_input!(
            "{} holds no run that can be continued: {e:#}",
            dir.display()
        ),
    };
    if info.status == Status::Completed {
        bad_input!(
            "{} holds a completed run: nothing to continue",
            dir.display()
        );
    }
    if info.target.path != request.recorded_target() {
        bad_input!(
            "{} holds a run on {}, not {}: continue it on the same target",
            dir.display(),
            info.target.path,
            request.recorded_target()
        );
    }
    // Good samples before a damaged line are kept; damage with good samples after it is
    // refused (naming the line) rather than dropping them.
    let (samples, damage) = read_samples_to_damage(&dir)?;
    if let Some(d) = damage.as_ref().filter(|d| d.good_after) {
        bad_input!(
            "{}:{}: damaged sample line ({}) with good samples after it: repair that line, then resume (nothing was changed)",
            d.path.display(),
            d.line,
            d.why
        );
    }
    let damaged = damage.map_or(0, |d| d.lines_from_there);
    let outage_s = std::fs::metadata(dir.join("samples.jsonl"))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .map(|d| d.as_secs_f64());
    let mut created = CreatedFile(None);
    let mut opened = open(request, &mut created)?;
    let (keep, note) = if opened.device.keeps_state() {
        let host = |d: &Option<crate::drive::DriveInfo>| {
            d.as_ref()
                .and_then(|d| d.wear.host_bytes_written)
                .unwrap_or(0)
        };
        let saved = host(&super::drive_info(opened.engine.as_ref(), &request.target))
            .saturating_sub(host(&info.drive_before));
        let keep = samples
            .iter()
            .take_while(|s| s.bytes_written_total <= saved)
            .count();
        let kept_bytes = keep
            .checked_sub(1)
            .map_or(0, |i| samples[i].bytes_written_total);
        let note = if kept_bytes == saved {
            format!("simulated drive saved after {saved} bytes of this run: the series continues from there")
        } else {
            format!("simulated drive saved after {saved} bytes of this run, but the samples kept end at {kept_bytes}: the series and the drive disagree by the difference")
        };
        (keep, note)
    } else {
        (
            samples.len(),
            "every sample on stable storage kept; the interval in progress at the cut was lost"
                .to_string(),
        )
    };
    let note = match damaged {
        0 => note,
        n => format!(
            "{note}; {n} damaged line(s) at the end of samples.jsonl dropped (the {} good samples before them kept)",
            samples.len()
        ),
    };
    let kept = samples[..keep].to_vec();
    let run_dir = RunDir::reopen(&dir, &kept, request.records_within.as_deref())?;
    let (index, at_s) = kept.last().map_or((0, 0.0), |s| (s.index + 1, s.t_end_s));
    let bytes_done: u64 = kept.iter().map(|s| s.bytes).sum();

    let mut left = info.workload.clone();
    left.duration = left
        .duration
        .map(|d| d.saturating_sub(Duration::from_secs_f64(at_s)));
    left.bytes = left.bytes.map(|b| b.saturating_sub(bytes_done));
    // Fresh offsets and data for the rest: replaying the first interval's sequence would not.
    left.seed = crate::pattern::mix64(left.seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    if left.duration.is_some_and(|d| d.is_zero()) || left.bytes.is_some_and(|b| b < left.bs) {
        // Nothing left but the bookkeeping: a run cut between its last sample and run.json.
        left.duration = Some(Duration::from_millis(1));
        left.bytes = None;
    }
    info.resumes.push(Resume {
        index,
        at_s,
        resumed_utc: utc_now(),
        outage_s: (!opened.device.keeps_state()).then_some(outage_s).flatten(),
        dropped_samples: (samples.len() - keep + damaged) as u64,
        note,
    });
    info.status = Status::Running;
    info.ended_utc = None;
    info.end = None;
    info.interrupted_by = None;
    info.process = Some(ProcessStamp::current());
    run_dir.write_info(&info)?;
    let outcome = execute(
        request,
        opened.engine.as_mut(),
        info,
        run_dir,
        &left,
        kept,
        observer,
    );
    // A run that stopped on an error of its own (a full disk under its directory, buffers it
    // could not get) has nothing to draw or no room to draw it: its error says so alone.
    if outcome.is_ok() {
        crate::observe::finish::run(&dir);
    }
    outcome
}

/// The whole-run summary of a continued run: counts, rates, means and the maximum are exact
/// (from the samples before the resume and this session's totals); p50/p99/p99.9 are the
/// I/O-weighted average of the intervals' percentiles, since the histograms of a session cut
/// short are lost; CPU figures are this session's.
pub(super) fn whole_run_summary(previous: &[Sample], session: &Summary) -> Summary {
    let mut s = session.clone();
    // Running time: each interval's span less the time the tool was stopped in it.
    let seconds: f64 = previous
        .iter()
        .map(|x| x.t_end_s - x.t_start_s - x.stopped_s.unwrap_or(0.0))
        .sum::<f64>()
        + session.seconds;
    let pause = |part: fn(&Sample) -> Option<f64>, now: Option<f64>| {
        let all = previous.iter().filter_map(part).sum::<f64>() + now.unwrap_or(0.0);
        (all > 0.0).then_some(all)
    };
    s.stopped_s = pause(|x| x.stopped_s, session.stopped_s);
    s.suspended_s = pause(|x| x.suspended_s, session.suspended_s);
    let dir = |x: &Sample, read: bool| {
        let d = if read { &x.read } else { &x.write };
        d.as_ref().map_or((0, 0), |d| (d.ops, d.bytes))
    };
    let sum = |read: bool| {
        previous.iter().fold((0u64, 0u64), |(o, b), x| {
            let (dop, db) = dir(x, read);
            (o + dop, b + db)
        })
    };
    let ((r_ops, r_bytes), (w_ops, w_bytes)) = (sum(true), sum(false));
    let per_s = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
    let session_read_ops = (session.read_iops * session.seconds).round() as u64;
    let session_write_ops = (session.write_iops * session.seconds).round() as u64;
    s.seconds = seconds;
    s.ops = previous.iter().map(|x| x.ops).sum::<u64>() + session.ops;
    s.bytes = previous.iter().map(|x| x.bytes).sum::<u64>() + session.bytes;
    s.iops = per_s(s.ops as f64);
    s.mb_per_s = per_s(s.bytes as f64 / 1e6);
    s.read_iops = per_s((r_ops + session_read_ops) as f64);
    s.write_iops = per_s((w_ops + session_write_ops) as f64);
    s.read_mb_per_s = per_s((r_bytes as f64 + session.read_mb_per_s * session.seconds * 1e6) / 1e6);
    s.write_mb_per_s =
        per_s((w_bytes as f64 + session.write_mb_per_s * session.seconds * 1e6) / 1e6);
    // I/O-weighted means of the parts' figures; `None` when no part had I/O.
    let blend = |parts: Vec<(u64, Option<LatencySummary>)>| {
        let parts: Vec<(u64, LatencySummary)> = parts
            .into_iter()
            .filter_map(|(o, l)| Some((o, l?)))
            .filter(|(o, _)| *o > 0)
            .collect();
        let n: u64 = parts.iter().map(|p| p.0).sum();
        if n == 0 {
            return None;
        }
        let avg = |f: fn(&LatencySummary) -> f64| {
            parts.iter().map(|(o, l)| *o as f64 * f(l)).sum::<f64>() / n as f64
        };
        Some(LatencySummary {
            mean: avg(|l| l.mean),
            p50: avg(|l| l.p50),
            p99: avg(|l| l.p99),
            p999: avg(|l| l.p999),
            max: parts.iter().map(|p| p.1.max).fold(0.0, f64::max),
        })
    };
    let mut all: Vec<_> = previous.iter().map(|x| (x.ops, x.lat_us)).collect();
    all.push((session.ops, session.lat_us));
    s.lat_us = blend(all);
    let mut reads: Vec<_> = previous
        .iter()
        .filter_map(|x| x.read.as_ref().map(|d| (d.ops, d.lat_us)))
        .collect();
    reads.push((session_read_ops, session.read_lat_us));
    s.read_lat_us = blend(reads);
    let mut writes: Vec<_> = previous
        .iter()
        .filter_map(|x| x.write.as_ref().map(|d| (d.ops, d.lat_us)))
        .collect();
    writes.push((session_write_ops, session.write_lat_us));
    s.write_lat_us = blend(writes);
    // Trims, apart from reads and writes: counts exact, latencies blended as above.
    let trims: Vec<&crate::stats::DirSample> = previous
        .iter()
        .filter_map(|x| x.trim.as_ref())
        .chain(session.trim.as_ref())
        .collect();
    s.trim = (!trims.is_empty()).then(|| {
        let ops = trims.iter().map(|d| d.ops).sum::<u64>();
        let bytes = trims.iter().map(|d| d.bytes).sum::<u64>();
        crate::stats::DirSample {
            ops,
            bytes,
            iops: per_s(ops as f64),
            mb_per_s: per_s(bytes as f64 / 1e6),
            lat_us: blend(trims.iter().map(|d| (d.ops, d.lat_us)).collect()),
        }
    });
    // Slow I/Os are known only for this session and for intervals whose maximum stayed under.
    let share = if s.ops > 0 {
        session.ops as f64 / s.ops as f64
    } else {
        0.0
    };
    s.pct_over_2s = session.pct_over_2s * share;
    s.pct_over_10s = session.pct_over_10s * share;
    s.errors = previous.iter().map(|x| x.errors).sum::<u64>() + session.errors;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::IntervalStats;

    fn interval(ops: u64, latency_ns: u64) -> IntervalStats {
        let mut stats = IntervalStats::new();
        stats.write.record_n(ops, ops * 4096, latency_ns);
        stats
    }

    #[test]
    fn a_continued_run_sums_counts_and_rates_over_both_sessions() {
        // Before the cut: 2 s at 1000 IOPS, 100 µs. After: 2 s at 3000 IOPS, 300 µs.
        let mut previous = Vec::new();
        let mut written = 0;
        for i in 0..2u64 {
            let s = Sample::new(
                i,
                i as f64,
                i as f64 + 1.0,
                &interval(1000, 100_000),
                written,
            );
            written = s.bytes_written_total;
            previous.push(s);
        }
        let mut after = interval(3000, 300_000);
        after.merge(&interval(3000, 300_000));
        let session = Summary::new(&after, 2.0, 0.1, 2.0, "sim");
        let s = whole_run_summary(&previous, &session);
        assert_eq!(s.ops, 8000);
        assert_eq!(s.bytes, 8000 * 4096);
        assert_eq!(s.seconds, 4.0);
        assert_eq!(s.iops, 2000.0);
        assert_eq!(s.write_iops, 2000.0);
        assert_eq!(s.read_iops, 0.0);
        assert!((s.mb_per_s - 8000.0 * 4096.0 / 1e6 / 4.0).abs() < 1e-9);
        // Means weighted by I/Os: (2000 × 100 + 6000 × 300) / 8000 = 250 µs (histogram precision).
        assert!(
            (s.lat_us.unwrap().mean - 250.0).abs() < 1.0,
            "{}",
            s.lat_us.unwrap().mean
        );
        assert!((s.write_lat_us.unwrap().mean - 250.0).abs() < 1.0);
        assert!((s.lat_us.unwrap().max - 300.0).abs() < 1.0);
    }
}
