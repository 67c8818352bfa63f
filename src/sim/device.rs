//! One simulated SSD: the FTL plus what a controller adds around it — compression and
//! deduplication, read-modify-write of unaligned writes, an SLC cache, lifetime throttling,
//! a write cache that a power cut can empty, injected faults, aging, and the clock that turns
//! the NAND work of a batch of I/Os into simulated seconds and each I/O's service time.
//!
//! Addresses here are in the simulated (scaled) drive: with `scale=k` the drive is k times
//! smaller and every I/O stands for k real ones, so times are multiplied by k.

use std::collections::VecDeque;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use super::ftl::{Ftl, Geometry, Work};
use super::spec::SimSpec;
use super::CacheMode;
use crate::pattern::{mix64, WriteContent};

const PAGE: u64 = 4096;
/// Region-fills of random writes the aging service makes in its hot region.
const SERVICE_FILLS: u32 = 4;

/// Lifetime figures that outlive the FTL's per-session counters (kept in the state file).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lifetime {
    /// Power-on time.
    pub power_on_s: f64,
    /// Bytes the host has written (simulated drive units).
    pub host_bytes: u64,
    /// NAND slots programmed before this session (host and GC).
    pub programmed_slots: u64,
    /// P/E cycles from history that was not simulated write by write (aging).
    pub history_pe: f64,
    /// Bytes in the SLC cache waiting to be folded.
    pub slc_fill_bytes: f64,
}

/// Counts of what the drive did (since it was made or loaded, or between two snapshots), to be
/// turned into time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Activity {
    pub work: Work,
    /// NAND pages read (host reads and read-modify-write reads).
    pub read_pages: u64,
    pub aligned_writes: u64,
    pub unaligned_writes: u64,
    /// Writes smaller than a page whose data does not compress (see the preset's
    /// `subpage_incompressible_cost`).
    pub subpage_incompressible_writes: u64,
    pub reads: u64,
    pub bytes: u64,
    /// Host slots that went to the SLC cache.
    pub slc_slots: u64,
}

impl Activity {
    /// Every count, in a fixed order.
    #[inline]
    fn counts(&self) -> [u64; 10] {
        [
            self.work.host_slots,
            self.work.gc_slots,
            self.work.erases,
            self.read_pages,
            self.aligned_writes,
            self.unaligned_writes,
            self.reads,
            self.bytes,
            self.slc_slots,
            self.subpage_incompressible_writes,
        ]
    }

    #[inline]
    fn from_counts(c: [u64; 10]) -> Activity {
        Activity {
            work: Work {
                host_slots: c[0],
                gc_slots: c[1],
                erases: c[2],
            },
            read_pages: c[3],
            aligned_writes: c[4],
            unaligned_writes: c[5],
            reads: c[6],
            bytes: c[7],
            slc_slots: c[8],
            subpage_incompressible_writes: c[9],
        }
    }

    /// What was done between `before` and `self` (two snapshots of [`SimDevice::activity`]).
    #[inline]
    pub fn since(&self, before: &Activity) -> Activity {
        let (now, then) = (self.counts(), before.counts());
        Activity::from_counts(std::array::from_fn(|f| now[f] - then[f]))
    }

    /// Adds `other`'s counts to these.
    #[inline]
    pub fn add(&mut self, other: &Activity) {
        let (mine, theirs) = (self.counts(), other.counts());
        *self = Activity::from_counts(std::array::from_fn(|f| mine[f] + theirs[f]));
    }
}

/// An I/O the device failed on purpose (`fail_after=`, `fail_at=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub errno: i32,
}

/// A simulated SSD.
pub struct SimDevice {
    pub spec: SimSpec,
    ftl: Ftl,
    life: Lifetime,
    activity: Activity,
    /// Writes acknowledged but not yet persisted: (page, tag it had before).
    unflushed: VecDeque<(u32, u32)>,
    cache_pages: usize,
    writes_this_session: u64,
}

impl SimDevice {
    /// A new drive of the spec's preset, aged as the spec says.
    pub fn create(spec: &SimSpec) -> SimDevice {
        let ftl = Ftl::new(geometry(spec));
        let mut dev = SimDevice::from_parts(spec, ftl);
        if !spec.aged.is_zero() {
            dev.age();
        }
        dev
    }

    /// A drive from saved parts.
    pub fn from_parts(spec: &SimSpec, ftl: Ftl) -> SimDevice {
        let cache_pages = match spec.cache {
            CacheMode::None => 0,
            _ => (spec.preset.cache_bytes / PAGE / u64::from(spec.scale)) as usize,
        };
        SimDevice {
            spec: spec.clone(),
            ftl,
            life: Lifetime::default(),
            activity: Activity::default(),
            unflushed: VecDeque::with_capacity(cache_pages.min(1 << 20)),
            cache_pages,
            writes_this_session: 0,
        }
    }

    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// Lifetime figures including this session's work.
    pub fn lifetime(&self) -> Lifetime {
        let w = self.ftl.work();
        Lifetime {
            programmed_slots: self.life.programmed_slots + w.host_slots + w.gc_slots,
            ..self.life
        }
    }

    /// Sets lifetime figures loaded from a state file (on a drive just rebuilt from it).
    pub fn set_lifetime(&mut self, life: Lifetime) {
        self.life = life;
    }

    /// What the device has done since it was made or loaded.
    pub fn activity(&self) -> Activity {
        Activity {
            work: self.ftl.work(),
            ..self.activity
        }
    }

    /// Average P/E cycles of the flash (simulated programs plus history).
    pub fn mean_pe(&self) -> f64 {
        let geo = self.ftl.geometry();
        let pages = self.lifetime().programmed_slots as f64 / f64::from(geo.slots_per_page);
        pages / geo.physical_pages() as f64 + self.life.history_pe
    }

    /// P/E cycles above the throttling life curve (negative: below it); None without throttling.
    pub fn throttle_debt_pe(&self) -> Option<f64> {
        let t = self.spec.preset.throttle?;
        let allowed = t.rated_pe * (self.life.power_on_s / 3600.0 + t.credit_h) / t.warranty_h;
        Some(self.mean_pe() - allowed)
    }

    /// Fraction of the throttle's maximum program rate allowed now (1 without throttling).
    pub fn throttle_fraction(&self) -> f64 {
        match (self.spec.preset.throttle, self.throttle_debt_pe()) {
            (Some(t), Some(debt)) => (-debt / t.debt_scale_pe).exp().clamp(t.min_fraction, 1.0),
            _ => 1.0,
        }
    }

    /// Checks the injected faults for an I/O at `offset..offset+len` (simulated bytes).
    #[inline]
    pub fn fault(&self, write: bool, offset: u64, len: u64) -> Option<Fault> {
        if let Some(at) = self.spec.fail_at {
            let at = at / u64::from(self.spec.scale);
            if (offset..offset + len).contains(&at) {
                return Some(Fault { errno: libc::EIO });
            }
        }
        match self.spec.fail_after {
            Some(n) if write && self.writes_this_session >= n => Some(Fault { errno: libc::EIO }),
            _ => None,
        }
    }

    /// Writes `len` bytes at `offset` with `content` whose bytes compress to `compressed`
    /// of their size. Partly covered 4 KiB pages are read, merged and rewritten.
    #[inline]
    pub fn write(&mut self, offset: u64, len: u64, content: &WriteContent, compressed: f64) {
        let first = offset / PAGE;
        let last = (offset + len - 1) / PAGE;
        let slots = if self.ftl.geometry().slots_per_page == 2
            && (content.duplicate || compressed <= 0.5)
        {
            1
        } else {
            self.ftl.geometry().slots_per_page
        };
        let unaligned = !offset.is_multiple_of(PAGE) || !len.is_multiple_of(PAGE);
        let tag = (mix64(content.stamp) as u32) | 1;
        let pages = u64::from(self.ftl.geometry().user_pages);
        for page in first..=last.min(pages - 1) {
            let lpn = page as u32;
            let partial = page * PAGE < offset || (page + 1) * PAGE > offset + len;
            let old = self.ftl.tag(lpn);
            let new = if partial && self.ftl.is_mapped(lpn) {
                self.activity.read_pages += 1;
                (mix64(u64::from(old) ^ u64::from(tag)) as u32) | 1
            } else {
                tag
            };
            self.ftl.write(lpn, slots, new);
            if self.cache_pages > 0 {
                if self.unflushed.len() == self.cache_pages {
                    self.unflushed.pop_front();
                }
                self.unflushed.push_back((lpn, old));
            }
        }
        let n = last.min(pages - 1) + 1 - first;
        if let Some(slc) = self.spec.preset.slc {
            if self.life.slc_fill_bytes < slc.bytes as f64 {
                self.activity.slc_slots += n * u64::from(slots);
                self.life.slc_fill_bytes += (n * PAGE * u64::from(self.spec.scale)) as f64;
            }
        }
        self.life.host_bytes += len;
        if len < PAGE && compressed > 0.5 && !content.duplicate {
            self.activity.subpage_incompressible_writes += 1;
        }
        if unaligned {
            self.activity.unaligned_writes += 1;
        } else {
            self.activity.aligned_writes += 1;
        }
        self.activity.bytes += len;
        self.writes_this_session += 1;
    }

    /// Reads `len` bytes at `offset`; unwritten pages cost the controller only.
    #[inline]
    pub fn read(&mut self, offset: u64, len: u64) {
        let pages = u64::from(self.ftl.geometry().user_pages);
        for page in offset / PAGE..=((offset + len - 1) / PAGE).min(pages - 1) {
            if self.ftl.is_mapped(page as u32) {
                self.activity.read_pages += 1;
            }
        }
        self.activity.reads += 1;
        self.activity.bytes += len;
    }

    /// Deallocates the whole 4 KiB pages inside `offset..offset+len` (simulated bytes); returns
    /// how many pages were trimmed.
    pub fn trim(&mut self, offset: u64, len: u64) -> u64 {
        let first = offset.div_ceil(PAGE);
        let end = ((offset + len) / PAGE).min(u64::from(self.ftl.geometry().user_pages));
        for page in first..end {
            self.ftl.trim(page as u32);
        }
        end.saturating_sub(first)
    }

    /// Resets the mapping and the caches; wear, power-on time and throttling debt stay.
    pub fn secure_erase(&mut self) {
        self.ftl.secure_erase();
        self.unflushed.clear();
        self.life.slc_fill_bytes = 0.0;
    }

    /// Persists the write cache (a flush). A lying drive acknowledges without persisting.
    pub fn flush(&mut self) {
        if self.spec.cache != CacheMode::Lying {
            self.unflushed.clear();
        }
    }

    /// Cuts the power: a volatile or lying cache loses its unflushed writes (their pages go
    /// back to the content they had). Returns the number of writes lost.
    pub fn power_cut(&mut self) -> u64 {
        let lost = match self.spec.cache {
            CacheMode::Volatile | CacheMode::Lying => self.unflushed.len() as u64,
            CacheMode::None | CacheMode::Plp => 0,
        };
        if lost > 0 {
            while let Some((lpn, old)) = self.unflushed.pop_back() {
                self.ftl.set_tag(lpn, old);
            }
        }
        self.unflushed.clear();
        lost
    }

    /// Writes acknowledged but not yet persisted, oldest first: (logical page, the tag it had
    /// before), what a power cut undoes (kept in the state file).
    pub fn unflushed(&self) -> &VecDeque<(u32, u32)> {
        &self.unflushed
    }

    /// Restores the unflushed writes of a saved drive (at most [`SimDevice::cache_pages`]).
    pub fn set_unflushed(&mut self, writes: VecDeque<(u32, u32)>) {
        self.unflushed = writes;
    }

    /// Capacity of the write cache in 4 KiB pages of the simulated drive (0: write-through).
    pub fn cache_pages(&self) -> usize {
        self.cache_pages
    }

    /// The content tag of logical page `lpn` (0: never written, trimmed or erased).
    pub fn content_tag(&self, lpn: u32) -> u32 {
        self.ftl.tag(lpn)
    }

    /// Hints that the I/O at `offset` comes soon, so its mapping entry is fetched early.
    #[inline]
    pub fn prefetch(&self, offset: u64) {
        self.ftl.prefetch((offset / PAGE) as u32);
    }

    /// Second prefetch step for the I/O at `offset`, some time after [`SimDevice::prefetch`].
    #[inline]
    pub fn prefetch_old_location(&self, offset: u64) {
        self.ftl.prefetch_old_location((offset / PAGE) as u32);
        if !offset.is_multiple_of(PAGE) {
            self.ftl.prefetch_old_location((offset / PAGE + 1) as u32);
        }
    }

    /// Powered idle for `seconds`: power-on time runs (throttling debt falls), the SLC cache
    /// folds and background GC refills the free pool.
    pub fn idle(&mut self, seconds: f64) {
        self.life.power_on_s += seconds;
        if let Some(slc) = self.spec.preset.slc {
            self.life.slc_fill_bytes =
                (self.life.slc_fill_bytes - slc.fold_bytes_per_s * seconds).max(0.0);
        }
        let target = (self.ftl.geometry().blocks as usize / 50).max(4);
        self.ftl.background_gc(target);
    }

    /// Turns the work of a batch of I/Os into simulated time at queue depth `qd` and advances
    /// power-on time by it. `ios` holds what each I/O of the batch did (see
    /// [`Activity::since`]); `service` (as long as `ios`) receives each I/O's service time, the
    /// batch's seconds shared out: every I/O gets its floor (the fastest it can complete) over
    /// `qd`, and the time beyond the floors goes to the I/Os in proportion to the work they
    /// caused (NAND programs, reads and erases, garbage collection included, controller, link
    /// and throttle time). The shares add up to the returned batch time.
    pub fn finish_batch(&mut self, ios: &[Activity], qd: u32, service: &mut [f64]) -> f64 {
        let mut total = Activity::default();
        for a in ios {
            total.add(a);
        }
        let p = &self.spec.preset;
        let k = f64::from(self.spec.scale);
        let program_rate = match p.throttle {
            Some(t) => t.max_pages_per_s * self.throttle_fraction(),
            None => f64::INFINITY,
        };
        let [die, channel, controller, link, throttle] =
            self.resource_seconds(&total, program_rate);
        let busy = k * die.max(channel).max(controller).max(link).max(throttle);
        let writes = (total.aligned_writes + total.unaligned_writes) as f64;
        let reads = total.reads as f64;
        let ops = (writes + reads) * k;
        // The fastest one I/O can complete: acknowledged from the cache, or after its program.
        let write_floor = match self.spec.cache {
            CacheMode::None => (p.transfer_us + p.program_us) * 1e-6,
            _ => p.ack_us * 1e-6,
        };
        let read_floor = (p.transfer_us + p.read_us) * 1e-6;
        let floor = if ops > 0.0 {
            (writes * write_floor + reads * read_floor) / (writes + reads)
        } else {
            write_floor
        };
        let throughput = (ops / busy.max(1e-12)).min(f64::from(qd) / floor);
        let seconds = if ops > 0.0 { ops / throughput } else { 0.0 };
        self.life.power_on_s += seconds;

        // The resources' time is linear in the counts: price each count once, by the time all
        // resources together spend on one unit of it.
        let prices: [f64; 10] = std::array::from_fn(|f| {
            let mut unit = [0; 10];
            unit[f] = 1;
            let r = self.resource_seconds(&Activity::from_counts(unit), program_rate);
            r.iter().sum()
        });
        let mut demand = 0.0;
        for (s, a) in service.iter_mut().zip(ios) {
            let counts = a.counts();
            // Per-I/O counts are small: through i64, the conversion is one instruction.
            *s = (0..9)
                .map(|f| prices[f] * counts[f] as i64 as f64)
                .sum::<f64>();
            demand += *s;
        }
        let floors = k * (writes * write_floor + reads * read_floor) / f64::from(qd);
        let per_demand = if demand > 0.0 {
            (seconds - floors).max(0.0) / demand
        } else {
            0.0
        };
        for (s, a) in service.iter_mut().zip(ios) {
            let floor = if a.reads > 0 { read_floor } else { write_floor };
            *s = k * floor / f64::from(qd) + *s * per_demand;
        }
        seconds
    }

    /// Seconds each resource of the drive spends on `a` (one simulated I/O each, not scaled):
    /// NAND dies (work spread over all dies), channels, the controller's command limit, the host
    /// link and the throttle's program budget (`program_rate` 4 KiB programs per second).
    #[inline]
    fn resource_seconds(&self, a: &Activity, program_rate: f64) -> [f64; 5] {
        let p = &self.spec.preset;
        let spp = f64::from(self.ftl.geometry().slots_per_page);
        let host_slots = a.work.host_slots as f64;
        let gc_slots = a.work.gc_slots as f64;
        let slc_slots = a.slc_slots as f64;
        let erases = a.work.erases as f64;
        let read_pages = a.read_pages as f64 + gc_slots / spp;
        let programs = (host_slots + gc_slots) / spp;
        let slc_us = p.slc.map_or(p.program_us, |s| s.program_us);
        let program_time = (host_slots - slc_slots) / spp * p.program_us
            + slc_slots / spp * slc_us
            + gc_slots / spp * p.program_us;
        let die = (program_time + read_pages * p.read_us + erases * p.erase_us) / f64::from(p.dies)
            * 1e-6;
        let channel = (programs + read_pages) * p.transfer_us / f64::from(p.channels) * 1e-6;
        let controller = (a.aligned_writes as f64
            + a.unaligned_writes as f64 * p.unaligned_cost
            + a.subpage_incompressible_writes as f64 * p.subpage_incompressible_cost
            + a.reads as f64)
            / p.controller_iops;
        let link = a.bytes as f64 / p.link_bytes_per_s;
        [die, channel, controller, link, programs / program_rate]
    }

    /// Applies the preset's service history for `spec.aged`: the whole drive written once
    /// sequentially (old data), then a ZIL-like service rewriting a hot fraction of it at random
    /// until the hot region is in steady state; power-on time advances by the age, and with
    /// throttling the wear is set to the life curve less the preset's margin (the throttle keeps
    /// a drive in heavy service there).
    fn age(&mut self) {
        let spec = self.spec.clone();
        let slots = self.ftl.geometry().slots_per_page;
        let mut rng = ChaCha8Rng::seed_from_u64(spec.seed ^ 0xa6ed);
        let pages = spec.user_pages();
        for lpn in 0..pages {
            self.ftl
                .write(lpn, slots, (mix64(rng.next_u64()) as u32) | 1);
        }
        let hot = ((f64::from(pages) * spec.preset.service.hot_fraction) as u32).max(1);
        let mut batch = [0u32; 64];
        let batches = u64::from(hot) * u64::from(SERVICE_FILLS) / 64;
        for _ in 0..batches {
            for lpn in &mut batch {
                *lpn = ((u64::from(rng.next_u32()) * u64::from(hot)) >> 32) as u32;
                self.ftl.prefetch(*lpn);
            }
            for &lpn in &batch {
                self.ftl.prefetch_old_location(lpn);
            }
            for &lpn in &batch {
                self.ftl
                    .write(lpn, slots, (mix64(rng.next_u64()) as u32) | 1);
            }
        }
        self.life.host_bytes += (u64::from(pages) + batches * 64) * PAGE;
        self.life.power_on_s += spec.aged.as_secs_f64();
        if let Some(debt) = self.throttle_debt_pe() {
            let missing = -spec.preset.service.margin_pe - debt;
            if missing > 0.0 {
                self.life.history_pe += missing;
                self.ftl.add_wear(missing.round() as u32);
            }
        }
    }
}

/// The FTL geometry of a spec.
pub fn geometry(spec: &SimSpec) -> Geometry {
    Geometry {
        user_pages: spec.user_pages(),
        blocks: spec.blocks(),
        pages_per_block: spec.preset.pages_per_block,
        slots_per_page: if spec.preset.compression { 2 } else { 1 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(stamp: u64) -> WriteContent {
        WriteContent {
            stamp,
            key: 0,
            pool_offset: 0,
            duplicate: false,
        }
    }

    fn device(cache: &str) -> SimDevice {
        let spec =
            SimSpec::parse(&format!("sim:vertex2-60g,scale=64,aged=0s,cache={cache}")).unwrap();
        SimDevice::create(&spec)
    }

    #[test]
    fn a_power_cut_loses_unflushed_writes_only_without_protection() {
        for (cache, flush, lost) in [
            ("volatile", false, true),
            ("volatile", true, false),
            ("lying", true, true),
            ("plp", false, false),
            ("none", false, false),
        ] {
            let mut dev = device(cache);
            dev.write(0, 4096, &content(1), 1.0);
            dev.flush();
            let persisted = dev.content_tag(0);
            dev.write(0, 4096, &content(2), 1.0);
            let acknowledged = dev.content_tag(0);
            if flush {
                dev.flush();
            }
            let n = dev.power_cut();
            assert_eq!(n > 0, lost, "cache={cache} flush={flush}");
            // A lying drive ignored the first flush too: nothing it acknowledged is on flash.
            let want = match (lost, cache) {
                (true, "lying") => 0,
                (true, _) => persisted,
                (false, _) => acknowledged,
            };
            assert_eq!(dev.content_tag(0), want, "cache={cache} flush={flush}");
        }
    }

    #[test]
    fn unaligned_writes_rewrite_both_pages_they_touch() {
        let mut dev = device("none");
        let before = dev.activity();
        dev.write(512, 4096, &content(1), 1.0);
        dev.write(8192, 4096, &content(2), 1.0);
        let after = dev.activity();
        assert_eq!(after.work.host_slots - before.work.host_slots, 3 * 2);
        assert_eq!(after.unaligned_writes, 1);
        assert_eq!(after.aligned_writes, 1);
        // Rewriting a page that holds data reads it first (read-modify-write).
        dev.write(4096 + 512, 4096, &content(3), 1.0);
        assert_eq!(dev.activity().read_pages - after.read_pages, 2);
    }

    #[test]
    fn compressible_and_duplicate_data_take_half_the_flash() {
        let mut dev = device("none");
        dev.write(0, 4096, &content(1), 0.0);
        let dup = WriteContent {
            duplicate: true,
            ..content(1)
        };
        dev.write(4096, 4096, &dup, 1.0);
        assert_eq!(dev.activity().work.host_slots, 2);
    }

    #[test]
    fn throttling_debt_survives_secure_erase_and_idle_time_pays_it_back() {
        let mut dev = device("none");
        dev.life.history_pe = 200.0;
        let debt = dev.throttle_debt_pe().unwrap();
        assert!(debt > 50.0);
        dev.secure_erase();
        assert_eq!(dev.throttle_debt_pe().unwrap(), debt);
        let slow = dev.throttle_fraction();
        dev.idle(2000.0 * 3600.0);
        assert!(dev.throttle_debt_pe().unwrap() < debt - 300.0);
        assert!(dev.throttle_fraction() > slow);
    }

    #[test]
    fn service_times_add_up_to_the_batch_time_and_follow_the_work() {
        let mut dev = device("volatile");
        let mut ios = Vec::new();
        // Fill the drive so that later writes run garbage collection.
        let pages = u64::from(dev.ftl().geometry().user_pages);
        for i in 0..3 * pages + 64 {
            let before = dev.activity();
            dev.write(mix64(i) % pages * 4096, 4096, &content(i), 1.0);
            ios.push(dev.activity().since(&before));
        }
        let batch = &ios[ios.len() - 64..];
        let mut service = [0.0; 64];
        let seconds = dev.finish_batch(batch, 128, &mut service);
        let total: f64 = service.iter().sum();
        assert!((total - seconds).abs() < 1e-9 * seconds);
        let gc = |a: &Activity| a.work.gc_slots + a.work.erases;
        let (busy, plain): (Vec<_>, Vec<_>) =
            batch.iter().zip(service).partition(|(a, _)| gc(a) > 0);
        assert!(!busy.is_empty() && !plain.is_empty());
        let slowest_plain = plain.iter().map(|p| p.1).fold(0.0, f64::max);
        assert!(busy.iter().all(|b| b.1 > 10.0 * slowest_plain));
    }
}
