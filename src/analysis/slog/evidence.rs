//! The verdict's figures, read from run directories: the slog run's 4 KiB sync-write latency
//! and sustained phase, a soak's fade (`--from`), an erase's duration, a power-loss check's
//! outcome, and wear from SMART before and after each run (or the vendor's `--tbw`).

use std::path::{Path, PathBuf};

use super::verdict::{
    EnduranceEvidence, Evidence, FadeEvidence, LatencyEvidence, LoadEvidence, OpSweepEvidence,
    PlpEvidence, RecoveryEvidence, FADE_OK_PCT,
};
use crate::analysis::op_sweep::OpSweepFigures;
use crate::analysis::Fade;
use crate::drive::Identity;
use crate::results::slog::{Measured, SyncMode, LOG_WRITE};
use crate::results::{read_info, read_samples, EraseRecord, RunInfo, Status};
use crate::stats::Sample;

/// What `--from` directories hold, loaded once.
#[derive(Default)]
pub struct Sources {
    /// Soaks and measures: their run.json and samples.
    pub runs: Vec<(PathBuf, RunInfo, Vec<Sample>)>,
    pub erases: Vec<(PathBuf, EraseRecord)>,
    pub plp: Vec<(PathBuf, crate::results::plp::VerifyReport)>,
    /// Earlier slog runs: their 4 KiB latency.
    pub slogs: Vec<(PathBuf, crate::results::slog::SlogRecord)>,
}

impl Sources {
    /// Reads every directory; a directory holding none of the known records is bad input.
    pub fn load(dirs: &[PathBuf]) -> anyhow::Result<Sources> {
        let mut s = Sources::default();
        for dir in dirs {
            if dir.join("slog.json").exists() {
                s.slogs
                    .push((dir.clone(), crate::results::slog::read_record(dir)?));
            } else if dir.join("plp.json").exists() {
                s.plp
                    .push((dir.clone(), crate::results::plp::VerifyReport::load(dir)?));
            } else if dir.join("erase.json").exists() {
                s.erases.push((dir.clone(), EraseRecord::load(dir)?));
            } else if dir.join("run.json").exists() {
                let info = read_info(dir)?;
                let samples = read_samples(dir)?;
                s.runs.push((dir.clone(), info, samples));
            } else {
                crate::bad_input!(
                    "--from {}: no run.json, slog.json, erase.json or plp.json there; name a run directory of this device",
                    dir.display()
                );
            }
        }
        Ok(s)
    }
}

/// The model a twin's simulated drive reports after the drive's own.
const TWIN_MODEL_TAIL: &str = " (simulated twin)";

/// The advice of the op-sweep in `dir` (`--op-sweep`) for the drive `drive`: refused with one
/// line when `dir` is no op-sweep, has no advice yet, or was measured on (or predicted from a
/// twin of) another drive — model, size and, for a measured sweep, serial must match.
pub fn op_sweep_for(dir: &Path, drive: &Identity) -> anyhow::Result<OpSweepEvidence> {
    let shown = dir.display();
    let exp = match crate::results::load_experiment(dir) {
        Ok(exp) if exp.name.is_op_sweep() => exp,
        Ok(exp) => crate::bad_input!(
            "--op-sweep {shown}: that is an experiment {}, not an op-sweep: give the directory `ssdfade experiment op-sweep` wrote",
            exp.name
        ),
        Err(e) => crate::bad_input!(
            "--op-sweep {shown}: {e:#}: give the directory `ssdfade experiment op-sweep` wrote"
        ),
    };
    let f = OpSweepFigures::of(&exp);
    let id = &exp.record.identity;
    let twin = f.predicted_from_twin.is_some();
    let model = id.model.as_deref().map(|m| {
        if twin {
            m.strip_suffix(TWIN_MODEL_TAIL).unwrap_or(m)
        } else {
            m
        }
    });
    let same = model == drive.model.as_deref()
        && id.size_bytes == Some(drive.size_bytes)
        && (twin || id.serial == drive.serial);
    if !same {
        crate::bad_input!(
            "--op-sweep {shown}: it {} {} ({}, serial {}), not this drive ({}, serial {}): give an op-sweep of this drive or of its twin",
            if twin { "was predicted from a twin of" } else { "was measured on" },
            model.unwrap_or("an unnamed drive"),
            id.size_bytes.map_or("size unknown".into(), crate::units::format_bytes),
            if twin { "-" } else { id.serial.as_deref().unwrap_or("?") },
            drive.model.as_deref().unwrap_or("unnamed"),
            drive.serial.as_deref().unwrap_or("?")
        );
    }
    let Some(a) = f.advice else {
        crate::bad_input!(
            "--op-sweep {shown}: it has no advice yet (the least unpartitioned span and another one must reach steady state): finish it with `ssdfade resume {shown}`"
        );
    };
    Ok(OpSweepEvidence {
        unpartitioned_pct: a.unpartitioned_pct,
        from_unpartitioned_pct: a.from_unpartitioned_pct,
        from_iops: a.from_iops,
        to_iops: a.to_iops,
        from_p99_ms: a.from_p99_ms,
        to_p99_ms: a.to_p99_ms,
        bs: f.bs,
        twin: f.predicted_from_twin,
        source: shown.to_string(),
    })
}

/// The slog run itself, when there is one.
pub struct ThisRun<'a> {
    pub dir: &'a Path,
    pub measured: &'a Measured,
    pub info: &'a RunInfo,
    pub samples: &'a [Sample],
}

/// Gathers the evidence: the slog run first, then the `--from` sources.
pub fn collect(
    this: Option<&ThisRun>,
    sources: &Sources,
    zil_bytes_per_day: f64,
    tbw: Option<u64>,
) -> Evidence {
    let latency = this
        .and_then(|t| latency_of(t.dir, t.measured))
        .or_else(|| {
            sources
                .slogs
                .iter()
                .find_map(|(d, r)| latency_of(d, &r.device.measured))
        });
    // A soak of the device says more about fade than the slog run's short sustained phase.
    let longest = sources.runs.iter().max_by(|a, b| {
        duration(&a.2)
            .partial_cmp(&duration(&b.2))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let fade = match longest {
        Some((dir, info, samples)) => fade_of(
            samples,
            info.workload.interval,
            &format!("{} run {}", info.command, dir.display()),
        ),
        // A paced phase delivers its pace: its IOPS says nothing of fade.
        None => this
            .filter(|t| t.measured.sustained_load.is_none())
            .and_then(|t| {
                fade_of(
                    t.samples,
                    std::time::Duration::from_secs(1),
                    &format!(
                        "sustained phase of this run ({}/samples.jsonl)",
                        t.dir.display()
                    ),
                )
            }),
    };
    let recovery = sources.erases.iter().find_map(|(dir, e)| {
        (e.outcome == Status::Completed).then_some(())?;
        Some(RecoveryEvidence {
            erase_seconds: e.duration_s?,
            method: e.method.clone(),
            source: dir.display().to_string(),
        })
    });
    // A check too small to show anything is no evidence either way.
    let plp = sources
        .plp
        .iter()
        .filter(|(_, r)| r.evidence() != crate::results::plp::Outcome::NotTested);
    let plp = plp.map(|(dir, r)| PlpEvidence {
        acknowledged: r.acknowledged,
        acknowledged_bytes: r.acknowledged_bytes,
        seconds: r.seconds,
        lost: r.lost.len() as u64,
        torn: r.torn.len() as u64,
        source: format!("plp verify {}", dir.display()),
    });
    // The worst power-loss check counts.
    let plp = plp.max_by_key(|p| p.lost + p.torn);
    let infos: Vec<(&Path, &RunInfo)> = this
        .map(|t| (t.dir, t.info))
        .into_iter()
        .chain(sources.runs.iter().map(|(d, i, _)| (d.as_path(), i)))
        .collect();
    Evidence {
        latency,
        load: this.and_then(load_of),
        fade,
        recovery,
        plp,
        endurance: endurance(&infos, tbw),
        zil_bytes_per_day,
        volatile: None,
        over_provisioning: None,
    }
}

fn duration(samples: &[Sample]) -> f64 {
    samples.last().map_or(0.0, |s| s.t_end_s)
}

/// The slog run's sustained phase at `--zil-rate N/s`.
fn load_of(t: &ThisRun) -> Option<LoadEvidence> {
    let (p, at) = (
        t.measured.sustained.as_ref()?,
        t.measured.sustained_load.as_ref()?,
    );
    Some(LoadEvidence {
        at: at.clone(),
        writes: p.writes,
        delivered_iops: p.iops,
        seconds: p.seconds,
        lat_us: p.lat_us,
        source: format!(
            "sustained phase of this run at {}/s ({}/samples.jsonl)",
            at.rate_iops,
            t.dir.display()
        ),
    })
}

fn latency_of(dir: &Path, m: &Measured) -> Option<LatencyEvidence> {
    let p = m
        .size_point(SyncMode::Fdatasync, LOG_WRITE)
        .or_else(|| m.concurrency.first())?;
    (p.writes > 0).then(|| LatencyEvidence {
        mean_us: p.lat_us.mean,
        p99_us: p.lat_us.p99,
        source: format!(
            "{} QD1 write+fdatasync, {} writes in {:.1} s ({})",
            crate::units::format_bytes(p.size),
            p.writes,
            p.seconds,
            dir.display()
        ),
    })
}

/// The fade of a series: its first and last window (medians, see [`Fade`]), and the bytes
/// written when the rate of a full interval first fell below the threshold (a partial last
/// interval, or one in which the tool was stopped, is no reading of the drive's rate).
pub fn fade_of(
    samples: &[Sample],
    interval: std::time::Duration,
    source: &str,
) -> Option<FadeEvidence> {
    let f = Fade::of(samples, interval)?;
    let below = samples
        .iter()
        .filter(|s| crate::analysis::run::is_full(s, interval))
        .find(|s| s.iops < f.start_iops * FADE_OK_PCT / 100.0)
        .map(|s| s.bytes_written_total);
    Some(FadeEvidence {
        start_iops: f.start_iops,
        end_iops: f.end_iops,
        seconds: duration(samples),
        bytes_to_threshold: below,
        source: source.to_string(),
    })
}

/// Life left in host bytes: measured when a run moved the drive's wear indicator (bytes
/// written per percent of life), else the vendor's TBW less what the drive has written.
fn endurance(infos: &[(&Path, &RunInfo)], tbw: Option<u64>) -> Option<EnduranceEvidence> {
    let measured = infos
        .iter()
        .filter_map(|(dir, info)| {
            let before = &info.drive_before.as_ref()?.wear;
            let after = &info.drive_after.as_ref()?.wear;
            let used = |w: &crate::drive::Wear| {
                w.percentage_used
                    .map(f64::from)
                    .or(w.life_left_percent.map(|l| 100.0 - f64::from(l)))
            };
            let (u0, u1) = (used(before)?, used(after)?);
            let bytes = after
                .host_bytes_written?
                .checked_sub(before.host_bytes_written?)?;
            (u1 > u0 && bytes > 0).then(|| {
                let per_pct = bytes as f64 / (u1 - u0);
                EnduranceEvidence {
                    bytes_left: (100.0 - u1).max(0.0) * per_pct,
                    figure: format!(
                        "measured: wear {u0:.0} → {u1:.0} % used while {:.1} GB were written ({}), {:.0} % left",
                        bytes as f64 / 1e9,
                        dir.display(),
                        100.0 - u1
                    ),
                }
            })
        })
        .max_by(|a, b| a.bytes_left.total_cmp(&b.bytes_left));
    measured.or_else(|| {
        let tbw = tbw?;
        let written = infos
            .iter()
            .filter_map(|(_, i)| i.drive_after.as_ref()?.wear.host_bytes_written)
            .max();
        Some(match written {
            Some(w) => EnduranceEvidence {
                bytes_left: tbw.saturating_sub(w) as f64,
                figure: format!(
                    "--tbw {:.1} TB less {:.1} TB the drive reports written",
                    tbw as f64 / 1e12,
                    w as f64 / 1e12
                ),
            },
            None => EnduranceEvidence {
                bytes_left: tbw as f64,
                figure: format!(
                    "--tbw {:.1} TB (the drive reports no bytes written: all of it assumed left)",
                    tbw as f64 / 1e12
                ),
            },
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drive::{DriveInfo, Wear};
    use crate::results::{Command, TargetRecord};

    fn run_with_wear(before: Wear, after: Wear) -> RunInfo {
        let target = TargetRecord {
            path: "t".into(),
            identity: Default::default(),
        };
        let drive = |wear| DriveInfo {
            wear,
            ..Default::default()
        };
        let mut info = RunInfo::started(Command::Soak, target, Default::default(), "sim", None);
        info.drive_before = Some(drive(before));
        info.drive_after = Some(drive(after));
        info
    }

    fn wear(used: Option<u32>, life_left: Option<u32>, written: u64) -> Wear {
        Wear {
            percentage_used: used,
            life_left_percent: life_left,
            host_bytes_written: Some(written),
            ..Default::default()
        }
    }

    /// A series whose rate holds at 1000 IOPS over full intervals and whose partial last
    /// interval (0.1 s, 10 writes in flight at the end) reads 100 IOPS: the partial one is no
    /// fall below the threshold, so there are no bytes to the threshold.
    #[test]
    fn a_partial_last_interval_is_no_fall_below_the_threshold() {
        let sample = |i: u64, t0: f64, t1: f64, ops: u64| {
            let mut stats = crate::stats::IntervalStats::new();
            stats.write.record_n(ops, ops * 4096, 1000);
            Sample::new(i, t0, t1, &stats, i * 4_096_000)
        };
        let mut samples: Vec<Sample> = (0..10)
            .map(|i| sample(i, i as f64, i as f64 + 1.0, 1000))
            .collect();
        samples.push(sample(10, 10.0, 10.1, 10));
        assert_eq!(samples[10].iops.round(), 100.0);
        let f = fade_of(&samples, std::time::Duration::from_secs(1), "t").unwrap();
        assert_eq!(f.bytes_to_threshold, None);
        // A full interval that falls below it does count.
        samples[10] = sample(10, 10.0, 11.0, 100);
        let f = fade_of(&samples, std::time::Duration::from_secs(1), "t").unwrap();
        assert_eq!(f.bytes_to_threshold, Some(10 * 4_096_000 + 100 * 4096));
    }

    /// 2 TB written moved NVMe's percentage used from 10 to 12: 1 TB per percent, 88 % left
    /// is 88 TB — whatever --tbw says.
    #[test]
    fn endurance_from_a_wear_change_is_bytes_per_percent_times_what_is_left() {
        let info = run_with_wear(
            wear(Some(10), None, 1e12 as u64),
            wear(Some(12), None, 3e12 as u64),
        );
        let e = endurance(&[(Path::new("soak"), &info)], Some(1)).unwrap();
        assert!((e.bytes_left - 88e12).abs() < 1.0, "{}", e.bytes_left);
        assert!(
            e.figure.starts_with("measured: wear 10 → 12 % used"),
            "{}",
            e.figure
        );
    }

    /// An ATA drive gives life left: 95 → 90 % left while 0.5 TB were written.
    #[test]
    fn endurance_from_ata_life_left_counts_the_percent_used() {
        let info = run_with_wear(wear(None, Some(95), 0), wear(None, Some(90), 5e11 as u64));
        let e = endurance(&[(Path::new("soak"), &info)], None).unwrap();
        assert!((e.bytes_left - 90.0 * 1e11).abs() < 1.0, "{}", e.bytes_left);
    }

    /// No wear change: the vendor's TBW less what the drive reports written.
    #[test]
    fn without_a_wear_change_endurance_is_tbw_less_bytes_written() {
        let info = run_with_wear(
            wear(Some(10), None, 1e12 as u64),
            wear(Some(10), None, 4e12 as u64),
        );
        let e = endurance(&[(Path::new("soak"), &info)], Some(150e12 as u64)).unwrap();
        assert!((e.bytes_left - 146e12).abs() < 1.0, "{}", e.bytes_left);
        assert!(endurance(&[(Path::new("soak"), &info)], None).is_none());
    }

    /// A sustained phase cut short ends with a partial round of a few I/Os: that is not the
    /// drive falling below the threshold, and no full round did.
    #[test]
    fn a_partial_last_round_does_not_reach_the_fade_threshold() {
        use crate::stats::IntervalStats;
        let span = |i: u64, t0: f64, t1: f64, iops: f64, before: u64| {
            let ops = (iops * (t1 - t0)).round() as u64;
            let mut stats = IntervalStats::new();
            stats.write.record_n(ops, ops * 4096, 1000);
            Sample::new(i, t0, t1, &stats, before)
        };
        let mut samples = Vec::new();
        let mut written = 0;
        for i in 0..10 {
            let s = span(i, i as f64, i as f64 + 1.0, 5000.0, written);
            written = s.bytes_written_total;
            samples.push(s);
        }
        samples.push(span(10, 10.0, 10.05, 100.0, written));
        let f = fade_of(&samples, std::time::Duration::from_secs(1), "sustained").unwrap();
        assert_eq!(f.bytes_to_threshold, None);
    }
}
