//! A simulated drive as a sync writer for the SLOG test: each sync write is the drive's write
//! followed by a flush, on simulated time, costing what the drive's cache makes it cost. A
//! drive with `thermal=` heats up with the programs and erases of its writes and flushes, is
//! slowed down by its throttle steps and reports its reading with every interval, as under a
//! soak (see [`super::thermal`]).

use std::sync::atomic::{AtomicBool, Ordering};

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

use super::device::Activity;
use super::drive::SimDrive;
use super::thermal::Thermal;
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
                    + (pages / f64::from(p.parallel_dies())).ceil() * program
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
    /// round before ends: its writes are then late by the difference. A drive with heat does a
    /// round's work slower while throttled, and its heat takes in the round's energy.
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
        let slots_per_page = u64::from(self.drive.device().ftl().geometry().slots_per_page);
        // The clock the drive's heat was last advanced to.
        let mut heat_t = 0.0f64;
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
            let round_start = device.activity();
            let mut before = round_start;
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
            // A throttled controller does the same work, slower.
            let slow = self.drive.device().heat().map_or(1.0, Thermal::slowdown);
            let (batch, flush) = (batch * slow, (flush + slowest) * slow);
            self.drive.device_mut().flush();
            for &s in &service {
                let latency = n as f64 * s * slow / kf + flush;
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
            let device = self.drive.device_mut();
            let round = device.activity().since(&round_start);
            let (scale, life) = (device.spec.scale, device.lifetime());
            if let Some(h) = device.heat_mut() {
                let energy = h.energy_j(&round, slots_per_page, scale);
                h.advance(t - heat_t, energy);
                heat_t = t;
                interval.health = Some(h.health(
                    life.host_bytes * k,
                    life.programmed_slots * 4096 / slots_per_page * k,
                ));
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Sample;

    #[test]
    fn sustained_sync_writes_heat_a_passive_drive_until_it_throttles_and_slows() {
        let drive = SimDrive::open("sim:nvme-tlc-1t,cache=plp,scale=16,thermal=m2").unwrap();
        let class = crate::sim::thermal::class("m2").unwrap();
        let mut writer = SimSyncWriter::new(drive);
        let phase = Phase {
            size: 128 << 10,
            mode: SyncMode::Fdatasync,
            writers: 32,
            min_seconds: 600.0,
            min_writes: 0,
            interval: Some(10.0),
            seed: 5,
            rate: None,
        };
        let mut samples = Vec::new();
        let counts = writer
            .run_phase(&phase, &AtomicBool::new(false), &mut |t0, t1, s| {
                samples.push(Sample::new(samples.len() as u64, t0, t1, s, 0));
                Ok(())
            })
            .unwrap();
        assert!(counts.failed.is_none());
        let health: Vec<_> = samples.iter().map(|s| s.health.clone().unwrap()).collect();
        let first = health[0].temperature_c.unwrap();
        let hottest = health
            .iter()
            .filter_map(|h| h.temperature_c)
            .fold(f64::MIN, f64::max);
        assert!(
            first < class.tmt1_c && hottest >= class.tmt1_c,
            "{first} → {hottest}"
        );
        let last = health.last().unwrap();
        assert!(last.tmt1_count.unwrap() > 0 && last.tmt1_s.unwrap() > 0.0);
        // The throttled intervals are the slow ones: each below every interval before the
        // first of them.
        let flags = crate::stats::throttled::throttled(&samples);
        let first_throttled = flags.iter().position(|&f| f).expect("some throttled");
        let free = samples[..first_throttled]
            .iter()
            .map(|s| s.iops)
            .fold(f64::MAX, f64::min);
        for (s, _) in samples.iter().zip(&flags).filter(|(_, &f)| f) {
            assert!(s.iops < free, "interval {}: {} ≥ {free}", s.index, s.iops);
        }
    }
}
