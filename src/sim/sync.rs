//! A simulated drive as a sync writer for the SLOG test: each sync write is the drive's write
//! followed by a flush, on simulated time, costing what the drive's cache makes it cost.

use std::sync::atomic::{AtomicBool, Ordering};

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

use super::device::Activity;
use super::drive::SimDrive;
use super::CacheMode;
use crate::drive::DriveInfo;
use crate::engine::sync::{
    random_offset, CacheReport, IntervalFn, Phase, PhaseCounts, SyncMode, SyncWriter,
};
use crate::pattern::{make_pool, Pattern, PatternGen};
use crate::stats::{ErrorEvent, IntervalStats, OpKind};

/// A simulated drive: each sync write is the device's write followed by a flush, on
/// simulated time. The flush costs what the drive's cache makes it cost: a write-through drive
/// (`cache=none`) has programmed the data already; a `volatile` cache programs the pages it
/// holds (spread over the dies); `plp` and `lying` acknowledge at once (the first because its
/// capacitors will finish the job, the second because it lies).
pub struct SimSyncWriter {
    drive: SimDrive,
}

impl SimSyncWriter {
    pub fn new(drive: SimDrive) -> Self {
        SimSyncWriter { drive }
    }

    /// Seconds (host units) the flush after `pages` freshly written 4 KiB pages costs.
    fn persist_seconds(&self, pages: u64, mode: SyncMode) -> f64 {
        let device = self.drive.device();
        let p = &device.spec.preset;
        let command = match mode {
            SyncMode::Fdatasync => p.ack_us,
            // FUA on the write itself: no separate flush command.
            SyncMode::Dsync => 0.0,
        };
        let us = match device.spec.cache {
            CacheMode::None | CacheMode::Plp | CacheMode::Lying => command,
            CacheMode::Volatile => {
                let cached = (p.cache_bytes / 4096).max(1);
                let pages = pages.min(cached) as f64;
                let life = device.lifetime();
                let program = match p.slc {
                    Some(slc) if life.slc_fill_bytes < slc.bytes as f64 => slc.program_us,
                    _ => p.program_us,
                };
                command
                    + (pages / f64::from(p.dies)).ceil() * program
                    + pages * p.transfer_us / f64::from(p.channels)
            }
        };
        us * 1e-6
    }
}

impl SyncWriter for SimSyncWriter {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn drive_info(&self) -> Option<DriveInfo> {
        let device = self.drive.device();
        Some(super::drive_info(
            &device.spec.text,
            super::identity_of(&device.spec),
            super::wear_of(device),
        ))
    }

    /// O_DSYNC writes are modelled as FUA writes.
    fn cache(&self, _info: Option<&DriveInfo>) -> CacheReport {
        let (write_cache, meaning) = match self.drive.device().spec.cache {
            CacheMode::None => ("write through", "no write cache: the data is on NAND when the write completes, so the flush has nothing left to do"),
            CacheMode::Volatile => ("write back (volatile)", "volatile write cache: every flush (and FUA write) waits for NAND programs"),
            CacheMode::Plp => ("write back (plp)", "write cache protected by power-loss capacitors: flushes return at once"),
            CacheMode::Lying => ("write back (lying)", "a cache that acknowledges flushes without persisting: as fast as a protected one, and only the power-loss check (ssdfade plp) tells them apart"),
        };
        CacheReport {
            write_cache: Some(write_cache.into()),
            fua: Some(true),
            meaning: meaning.into(),
        }
    }

    fn size(&self) -> u64 {
        self.drive.device().spec.size_bytes()
    }

    fn logical_block(&self) -> u64 {
        512
    }

    fn save(&mut self) -> anyhow::Result<()> {
        self.drive.save()
    }

    /// Rounds of `writers` concurrent writes: the batch at queue depth `writers` (the model's
    /// service times), then one flush persisting all of them (the block layer merges
    /// concurrent flushes). With `scale=k` each simulated write stands for k host writes made
    /// one after another by the same writer. Under a rate, a round starts when its first write
    /// is due (the drive stands idle until then) or, when the drive is behind, as soon as the
    /// round before ends: its writes are then late by the difference.
    fn run_phase(
        &mut self,
        phase: &Phase,
        stop: &AtomicBool,
        intervals: &mut IntervalFn,
    ) -> anyhow::Result<PhaseCounts> {
        let k = u64::from(self.drive.device().spec.scale);
        let kf = k as f64;
        let n = phase.writers.max(1) as usize;
        let span = self.drive.device().spec.size_bytes() / k;
        let pool = make_pool(phase.seed, 0)?;
        let mut content = PatternGen::new(Pattern::Random, false, pool, phase.seed, 0);
        let compressed = content.compressed_fraction();
        let mut rng = ChaCha8Rng::seed_from_u64(phase.seed ^ 0x5109);
        let pages_per_write = phase.size.div_ceil(4096);
        let mut ios = vec![Activity::default(); n];
        let mut service = vec![0.0; n];
        let mut own = vec![0.0; n];
        let (mut t, mut t_cut, mut writes) = (0.0f64, 0.0f64, 0u64);
        let mut total = IntervalStats::new();
        let mut interval = IntervalStats::new();
        let mut failed = None;
        loop {
            let done = t >= phase.min_seconds && writes >= phase.min_writes;
            if done || stop.load(Ordering::Relaxed) {
                break;
            }
            let lag = match phase.rate {
                Some(_) => match phase.due_s(writes) {
                    Some(due) => {
                        let lag = (t - due).max(0.0);
                        t = t.max(due);
                        Some(lag)
                    }
                    None => break,
                },
                None => None,
            };
            let device = self.drive.device_mut();
            let mut before = device.activity();
            for io in ios.iter_mut() {
                let offset = random_offset(&mut rng, span, phase.size);
                if let Some(fault) = device.fault(true, offset, phase.size) {
                    let event = ErrorEvent {
                        t_s: t,
                        op: OpKind::Write,
                        offset: offset * k,
                        errno: fault.errno,
                        message: format!(
                            "{} (injected by the simulated drive)",
                            crate::error::errno_words(libc::EIO)
                        ),
                    };
                    failed = Some(event.describe());
                    interval.record_error(event);
                    break;
                }
                device.write(offset, phase.size, &content.next_content(), compressed);
                let now = device.activity();
                *io = now.since(&before);
                before = now;
            }
            if failed.is_some() {
                break;
            }
            let batch = device.finish_batch(&ios, n as u32, &mut service, &mut own);
            let flush = self.persist_seconds(pages_per_write * n as u64, phase.mode);
            // A flush that programs waits for the slowest of its programs: each one's page type
            // and the work already on its die (see `SimDevice::program_wait`).
            let slowest = if flush > self.persist_seconds(0, phase.mode) {
                let device = self.drive.device();
                (0..n as u64)
                    .map(|i| device.program_wait(writes + i, n as u32))
                    .fold(f64::MIN, f64::max)
            } else {
                0.0
            };
            let flush = flush + slowest;
            self.drive.device_mut().flush();
            for &s in &service {
                let latency = n as f64 * s / kf + flush;
                interval
                    .write
                    .record_n(k, k * phase.size, (latency * 1e9 + 0.5) as u64);
            }
            if let Some(lag) = lag {
                interval
                    .pacing
                    .record_n(k * n as u64, (lag * 1e9 + 0.5) as u64);
            }
            t += batch + kf * flush;
            writes += k * n as u64;
            if let Some(every) = phase.interval {
                if t - t_cut >= every {
                    intervals(t_cut, t, &interval)?;
                    total.merge(&interval);
                    interval.clear();
                    t_cut = t;
                }
            }
        }
        if phase.interval.is_some() && (interval.ops() > 0 || interval.errors > 0) {
            intervals(t_cut, t, &interval)?;
        }
        total.merge(&interval);
        Ok(PhaseCounts {
            total,
            seconds: t,
            failed,
        })
    }
}
