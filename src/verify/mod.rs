//! Data verification (`--verify`): every block a run writes carries a [`header`] (offset,
//! generation, run tag, checksum); the [`Verifier`] keeps the generation of the last write the
//! target acknowledged at every block and judges what a block read back holds: a lost write
//! (older generation), a misdirected one (another offset), corruption (bad checksum) or an
//! unreadable block. Reading blocks back is a [`BlockReader`]'s job (a file or block device in
//! `engine`, the simulator's content tags in `sim`); [`sample`] and [`full_pass`] drive it.
//!
//! On the I/O path a write claims its block (one atomic compare-and-swap, which also keeps two
//! writes of the same block from being in flight together, so the last acknowledged write is
//! the one the block must hold) and releases it on completion: no lock, no allocation.

pub mod header;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::results::verify::{Finding, FindingCounts, FindingKind, VerifyReport, MAX_LISTED};
use crate::workload::Workload;
pub use header::Header;

/// A write or a check of the block is in flight.
const BUSY: u32 = 1 << 31;
/// The last write failed: the block holds its generation or the one before.
const UNSURE: u32 = 1 << 30;
const GENERATION: u32 = UNSURE - 1;

/// Blocks read back at each `--verify-every` check.
pub const SAMPLE_BLOCKS: usize = 256;

/// Which pass a check belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    Sample,
    Full,
}

/// What one block was found to hold, as a reader saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    /// A header with a good checksum.
    Header(Header),
    /// Bytes whose checksum does not match.
    BadChecksum,
    /// Nothing was ever written there (all zeros, or a simulated page never written).
    Blank,
    /// The read failed.
    Unreadable(String),
}

/// Reads blocks back for checking.
pub trait BlockReader {
    /// Reads block `block` of the run and says what it holds; `expected` is the generation
    /// the verifier expects (a simulated drive, which keeps no headers, needs it).
    fn read(&mut self, v: &Verifier, block: u64, expected: u32) -> Seen;
}

/// The generation map of one run and what checking it found.
pub struct Verifier {
    map: Box<[AtomicU32]>,
    /// Tells this run's blocks from another run's.
    tag: u32,
    /// Offset of block 0 and the block size, on the target.
    base: u64,
    bs: u64,
    /// A simulated drive scaled k times smaller uses the first 1/k of the blocks, each
    /// standing for k: (blocks in use, bytes from one block to the next on the target).
    scaled: OnceLock<(u64, u64)>,
    found: Mutex<Found>,
    sampled: AtomicU64,
    full: AtomicU64,
    /// Set when the full pass was stopped before its last block.
    full_pass_stopped: AtomicBool,
    /// The map was saved while the run was still writing (a run that crashed): a block may
    /// hold a later generation than the map's, written after the last save, and is not lost.
    later_writes_possible: bool,
}

#[derive(Default)]
struct Found {
    counts: FindingCounts,
    listed: Vec<Finding>,
    /// Each bad block counts once, however many passes see it.
    seen: HashSet<Finding>,
}

impl Verifier {
    /// The verifier of a run of workload `w` (made with --verify) that has written nothing.
    pub fn new(w: &Workload) -> Verifier {
        Verifier::with_map(w, &[], false)
    }

    /// The verifier of a run of `w` whose generation map was `map`; `saved_while_running`
    /// when the map is the one kept as the run went, not the one saved at its end (see
    /// [`crate::results::verify::GrowingMap`]).
    pub fn with_map(w: &Workload, map: &[u32], saved_while_running: bool) -> Verifier {
        let blocks = Verifier::blocks_of(w);
        Verifier {
            map: (0..blocks)
                .map(|i| AtomicU32::new(map.get(i as usize).copied().unwrap_or(0)))
                .collect(),
            tag: crate::pattern::mix64(w.seed ^ 0x7665_7269_6679) as u32,
            base: w.offset,
            bs: w.bs,
            scaled: OnceLock::new(),
            found: Mutex::new(Found::default()),
            sampled: AtomicU64::new(0),
            full: AtomicU64::new(0),
            full_pass_stopped: AtomicBool::new(false),
            later_writes_possible: saved_while_running,
        }
    }

    /// Blocks of `bs` bytes in the span of `w`.
    pub fn blocks_of(w: &Workload) -> u64 {
        w.span / w.bs
    }

    /// Bytes in a block.
    pub fn bs_bytes(&self) -> u64 {
        self.bs
    }

    /// Blocks of the run.
    pub fn blocks(&self) -> u64 {
        self.scaled.get().map_or(self.map.len() as u64, |s| s.0)
    }

    /// Tells the verifier that a simulated drive scaled `scale` times smaller uses only its
    /// first `blocks` blocks.
    pub fn set_scale(&self, blocks: u64, scale: u64) {
        let _ = self
            .scaled
            .set((blocks.min(self.map.len() as u64), self.bs * scale));
    }

    /// What a simulated drive keeps of write `generation` of `block` (it keeps no bytes, so no
    /// header: this identity stands for them).
    pub fn content_id(&self, block: u64, generation: u32) -> u64 {
        crate::pattern::mix64(
            crate::pattern::mix64(block) ^ u64::from(generation) ^ u64::from(self.tag) << 32,
        )
    }

    /// The run's tag, carried in every header.
    pub fn tag(&self) -> u32 {
        self.tag
    }

    /// The block at byte `offset` of the target.
    #[inline]
    pub fn block_of(&self, offset: u64) -> u64 {
        (offset - self.base) / self.bs
    }

    /// Byte offset of `block` on the target.
    pub fn offset_of(&self, block: u64) -> u64 {
        self.base + block * self.scaled.get().map_or(self.bs, |s| s.1)
    }

    /// Claims `block` for a write: its new generation, or `None` when a write or check of it is
    /// in flight (take another block).
    #[inline]
    pub fn claim_write(&self, block: u64) -> Option<u32> {
        let slot = &self.map[block as usize];
        let now = slot.load(Ordering::Acquire);
        if now & BUSY != 0 {
            return None;
        }
        let generation = ((now & GENERATION) % GENERATION) + 1;
        // The block keeps whether its last write failed until this one is issued or cancelled.
        let claimed = generation | BUSY | (now & UNSURE);
        slot.compare_exchange(now, claimed, Ordering::AcqRel, Ordering::Relaxed)
            .ok()
            .map(|_| generation)
    }

    /// Puts the header of write `generation` of the block at `offset` into `buf`.
    #[inline]
    pub fn stamp(&self, buf: &mut [u8], offset: u64, generation: u32) {
        header::stamp(
            buf,
            Header {
                offset,
                generation,
                tag: self.tag,
            },
        );
    }

    /// Releases `block` after write `generation` completed (`ok`) or failed.
    #[inline]
    pub fn finish_write(&self, block: u64, generation: u32, ok: bool) {
        let value = if ok { generation } else { generation | UNSURE };
        self.map[block as usize].store(value, Ordering::Release);
    }

    /// Releases `block` claimed for write `generation` that was never issued (the run stopped
    /// before it): the block still holds the write before, as it did (never written when this
    /// was its first). Releasing it as a failed write would expect a write that never happened
    /// and count a never-written block as written.
    #[inline]
    pub fn cancel_write(&self, block: u64, generation: u32) {
        let slot = &self.map[block as usize];
        let before = match generation {
            1 => 0,
            g => (g - 1) | (slot.load(Ordering::Acquire) & UNSURE),
        };
        slot.store(before, Ordering::Release);
    }

    /// Claims `block` for a check: what it should hold, or `None` when it is busy or was never
    /// written.
    fn claim_check(&self, block: u64) -> Option<u32> {
        let slot = &self.map[block as usize];
        let now = slot.load(Ordering::Acquire);
        if now & BUSY != 0 || now & GENERATION == 0 {
            return None;
        }
        slot.compare_exchange(now, now | BUSY, Ordering::AcqRel, Ordering::Relaxed)
            .ok()
            .map(|_| now)
    }

    fn release_check(&self, block: u64, value: u32) {
        self.map[block as usize].store(value, Ordering::Release);
    }

    /// The generation map (what `verify.map` keeps). A write still in flight, whose completion
    /// was never seen, is kept as unsure: the block holds its generation or the one before.
    pub fn generations(&self) -> Vec<u32> {
        self.map
            .iter()
            .map(|g| unfinished_as_unsure(g.load(Ordering::Acquire)))
            .collect()
    }

    /// Settles the writes a stopped engine left in flight (a ring that failed, an I/O thread
    /// that ended on an error): their completion was never seen, so each block holds the new
    /// generation or the one before, and is judged as a failed write's is, never as a write
    /// known to have landed (which would report a false lost write). Returns how many.
    pub fn settle_unfinished(&self) -> u64 {
        let mut unfinished = 0;
        for slot in self.map.iter() {
            let now = slot.load(Ordering::Acquire);
            if now & BUSY != 0 {
                slot.store(unfinished_as_unsure(now), Ordering::Release);
                unfinished += 1;
            }
        }
        unfinished
    }

    /// The generation block `block` should hold now (0: never written), as a checker sees it.
    pub fn expected(&self, block: u64) -> u32 {
        self.map[block as usize].load(Ordering::Acquire) & GENERATION
    }

    /// Checks one block with `reader`; false when it was busy or never written.
    fn check(&self, reader: &mut dyn BlockReader, block: u64, pass: Pass) -> bool {
        let Some(value) = self.claim_check(block) else {
            return false;
        };
        let expected = value & GENERATION;
        let seen = reader.read(self, block, expected);
        self.release_check(block, value);
        match pass {
            Pass::Sample => self.sampled.fetch_add(1, Ordering::Relaxed),
            Pass::Full => self.full.fetch_add(1, Ordering::Relaxed),
        };
        if let Some(finding) = self.judge(block, value, seen) {
            let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
            if found.seen.insert(finding.clone()) {
                found.counts.add(finding.kind);
                if found.listed.len() < MAX_LISTED {
                    found.listed.push(finding);
                }
            }
        }
        true
    }

    /// What is wrong with block `block`, expected to hold map value `value`, when `seen`.
    fn judge(&self, block: u64, value: u32, seen: Seen) -> Option<Finding> {
        let expected = value & GENERATION;
        let finding = |kind| Finding {
            kind,
            offset: self.offset_of(block),
            expected_generation: expected,
            found_generation: None,
            found_offset: None,
            error: None,
        };
        match seen {
            Seen::Unreadable(error) => Some(Finding {
                error: Some(error),
                ..finding(FindingKind::Unreadable)
            }),
            Seen::BadChecksum => Some(finding(FindingKind::Corrupt)),
            // A failed first write may have left nothing.
            Seen::Blank if value & UNSURE != 0 && expected == 1 => None,
            Seen::Blank => Some(Finding {
                found_generation: Some(0),
                ..finding(FindingKind::Lost)
            }),
            Seen::Header(h) if h.tag != self.tag => Some(Finding {
                found_generation: Some(0),
                ..finding(FindingKind::Lost)
            }),
            Seen::Header(h) if h.offset != self.offset_of(block) => Some(Finding {
                found_generation: Some(h.generation),
                found_offset: Some(h.offset),
                ..finding(FindingKind::Misdirected)
            }),
            Seen::Header(h) => {
                let unsure = value & UNSURE != 0 && h.generation + 1 == expected;
                let written_after_save = self.later_writes_possible && h.generation > expected;
                (h.generation != expected && !unsure && !written_after_save).then(|| Finding {
                    found_generation: Some(h.generation),
                    ..finding(FindingKind::Lost)
                })
            }
        }
    }

    /// What checking found so far.
    pub fn report(&self) -> VerifyReport {
        let found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        VerifyReport {
            blocks_written: self
                .map
                .iter()
                .filter(|g| g.load(Ordering::Relaxed) & GENERATION != 0)
                .count() as u64,
            sampled_checks: self.sampled.load(Ordering::Relaxed),
            full_pass_checks: self.full.load(Ordering::Relaxed),
            full_pass_stopped: self.full_pass_stopped.load(Ordering::Relaxed),
            counts: found.counts,
            findings: found.listed.clone(),
            unfinished_writes: 0,
        }
    }
}

/// Reads back [`SAMPLE_BLOCKS`] written blocks picked at random with `pick` (a generator of
/// random numbers), skipping those busy; at most four times as many tries.
pub fn sample(v: &Verifier, reader: &mut dyn BlockReader, pick: &mut dyn FnMut() -> u64) {
    let blocks = v.blocks().max(1);
    let mut done = 0;
    for _ in 0..SAMPLE_BLOCKS * 4 {
        if v.check(reader, pick() % blocks, Pass::Sample) {
            done += 1;
            if done == SAMPLE_BLOCKS {
                break;
            }
        }
    }
}

/// The map value of a block as a check should take it: a claimed block (a write in flight)
/// holds its new generation or the one before.
fn unfinished_as_unsure(value: u32) -> u32 {
    if value & BUSY != 0 {
        (value & !BUSY) | UNSURE
    } else {
        value
    }
}

/// Reads back every block the run wrote, until `stop` says to give up; false when it gave up
/// (the report then says the pass was stopped: it is no clean pass).
pub fn full_pass(v: &Verifier, reader: &mut dyn BlockReader, stop: &dyn Fn() -> bool) -> bool {
    for block in 0..v.blocks() {
        if block % 4096 == 0 && stop() {
            v.full_pass_stopped.store(true, Ordering::Relaxed);
            return false;
        }
        v.check(reader, block, Pass::Full);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload() -> Workload {
        Workload {
            bs: 4096,
            align: 4096,
            span: 64 * 4096,
            offset: 8192,
            seed: 5,
            ..Workload::default()
        }
    }

    #[test]
    fn a_block_in_flight_cannot_be_claimed_twice() {
        let v = Verifier::new(&workload());
        let g = v.claim_write(3).unwrap();
        assert_eq!(g, 1);
        assert_eq!(v.claim_write(3), None);
        assert_eq!(v.claim_check(3), None);
        v.finish_write(3, g, true);
        assert_eq!(v.claim_write(3), Some(2));
    }

    #[test]
    fn each_kind_of_bad_block_is_told_apart() {
        let v = Verifier::new(&workload());
        for _ in 0..3 {
            let g = v.claim_write(2).unwrap();
            v.finish_write(2, g, true);
        }
        let at = v.offset_of(2);
        let header = |offset, generation, tag| {
            Seen::Header(Header {
                offset,
                generation,
                tag,
            })
        };
        let kind = |seen| v.judge(2, 3, seen).map(|f| f.kind);
        assert_eq!(kind(header(at, 3, v.tag)), None);
        assert_eq!(kind(header(at, 2, v.tag)), Some(FindingKind::Lost));
        assert_eq!(kind(header(at, 3, v.tag ^ 1)), Some(FindingKind::Lost));
        assert_eq!(
            kind(header(at + 4096, 3, v.tag)),
            Some(FindingKind::Misdirected)
        );
        assert_eq!(kind(Seen::BadChecksum), Some(FindingKind::Corrupt));
        assert_eq!(kind(Seen::Blank), Some(FindingKind::Lost));
        assert_eq!(
            kind(Seen::Unreadable("EIO".into())),
            Some(FindingKind::Unreadable)
        );
        // A failed write leaves either generation.
        assert_eq!(v.judge(2, 3 | UNSURE, header(at, 2, v.tag)), None);
    }

    /// Reads every block as never written.
    struct BlankDrive;
    impl BlockReader for BlankDrive {
        fn read(&mut self, _: &Verifier, _: u64, _: u32) -> Seen {
            Seen::Blank
        }
    }

    #[test]
    fn a_write_claimed_but_never_issued_leaves_the_block_as_it_was() {
        let v = Verifier::new(&workload());
        // Block 4: the run stopped before its first write went out.
        let g = v.claim_write(4).unwrap();
        v.cancel_write(4, g);
        // Block 6: written twice, the third write claimed and never issued.
        for _ in 0..2 {
            let g = v.claim_write(6).unwrap();
            v.finish_write(6, g, true);
        }
        let g = v.claim_write(6).unwrap();
        v.cancel_write(6, g);
        assert_eq!((v.expected(4), v.expected(6)), (0, 2));
        full_pass(&v, &mut BlankDrive, &|| false);
        let report = v.report();
        assert_eq!(report.blocks_written, 1, "{report:?}");
        assert_eq!(report.full_pass_checks, 1, "{report:?}");
        // Block 6 is blank: lost. Block 4 was never written: nothing to find there.
        assert_eq!(report.findings.len(), 1, "{report:?}");
        assert_eq!(report.findings[0].offset, v.offset_of(6));
        assert_eq!(report.findings[0].expected_generation, 2);
    }

    /// Reads every block as holding generation 1 of its own offset.
    struct FirstGeneration;
    impl BlockReader for FirstGeneration {
        fn read(&mut self, v: &Verifier, block: u64, _: u32) -> Seen {
            Seen::Header(Header {
                offset: v.offset_of(block),
                generation: 1,
                tag: v.tag,
            })
        }
    }

    #[test]
    fn writes_left_in_flight_by_a_stopped_engine_are_unsure_not_lost() {
        let w = workload();
        let v = Verifier::new(&w);
        // Block 5 written once and done; block 7 written once, its second write in flight;
        // block 9's first write in flight. The engine then stops (a ring that failed).
        for b in [5, 7] {
            let g = v.claim_write(b).unwrap();
            v.finish_write(b, g, true);
        }
        assert_eq!(v.claim_write(7), Some(2));
        assert_eq!(v.claim_write(9), Some(1));
        assert_eq!(v.settle_unfinished(), 2);
        // The map as saved and read back by `ssdfade verify`: the drive never saw the writes
        // in flight (block 7 holds generation 1, block 9 nothing), which is no lost write.
        let again = Verifier::with_map(&w, &v.generations(), false);
        full_pass(&again, &mut FirstGeneration, &|| false);
        let report = again.report();
        assert_eq!(report.full_pass_checks, 3, "{report:?}");
        assert!(report.findings.is_empty(), "{report:?}");
        full_pass(&v, &mut BlankDrive, &|| false);
        let lost: Vec<u64> = v.report().findings.iter().map(|f| f.offset).collect();
        assert_eq!(
            lost,
            [v.offset_of(5), v.offset_of(7)],
            "only what was acknowledged"
        );
    }

    #[test]
    fn a_stopped_full_pass_is_no_clean_pass() {
        let w = Workload {
            span: 3 * 4096 * 4096,
            ..workload()
        };
        let v = Verifier::new(&w);
        for b in [0, 4096 * 2] {
            let g = v.claim_write(b).unwrap();
            v.finish_write(b, g, true);
        }
        let calls = std::cell::Cell::new(0);
        let whole = full_pass(&v, &mut FirstGeneration, &|| {
            calls.set(calls.get() + 1);
            calls.get() > 1
        });
        let report = v.report();
        assert!(!whole);
        assert!(report.full_pass_stopped && report.clean(), "{report:?}");
        assert!(report.line().contains("NOT checked"), "{}", report.line());
    }

    /// A drive whose every block holds generation 3 of this run.
    struct ThirdGeneration;
    impl BlockReader for ThirdGeneration {
        fn read(&mut self, v: &Verifier, block: u64, _: u32) -> Seen {
            Seen::Header(Header {
                offset: v.offset_of(block),
                generation: 3,
                tag: v.tag,
            })
        }
    }

    #[test]
    fn a_map_kept_as_the_run_went_accepts_later_generations_only() {
        let w = workload();
        // Blocks 1 and 2 saved at generations 2 and 5; the drive holds 3 in both.
        let kept = Verifier::with_map(&w, &[0, 2, 5], true);
        full_pass(&kept, &mut ThirdGeneration, &|| false);
        let lost: Vec<u64> = kept.report().findings.iter().map(|f| f.offset).collect();
        assert_eq!(
            lost,
            [kept.offset_of(2)],
            "an older generation is still lost"
        );
        let at_end = Verifier::with_map(&w, &[0, 2, 5], false);
        full_pass(&at_end, &mut ThirdGeneration, &|| false);
        assert_eq!(at_end.report().counts.lost, 2, "a final map is exact");
    }

    #[test]
    fn a_failed_first_write_may_leave_the_block_blank() {
        let v = Verifier::new(&workload());
        let g = v.claim_write(1).unwrap();
        v.finish_write(1, g, false);
        full_pass(&v, &mut BlankDrive, &|| false);
        assert!(v.report().findings.is_empty(), "{:?}", v.report());
    }
}
