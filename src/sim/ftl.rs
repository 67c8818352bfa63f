//! The flash translation layer of a simulated SSD: a page-mapped logical-to-physical table over
//! erase blocks, one write frontier (or two where the preset keeps hot and cold data apart),
//! greedy garbage collection with O(1) victim choice (or sampled cost-benefit choice), TRIM,
//! secure erase and per-block erase counts.
//!
//! It knows nothing about time: it counts the NAND work it does (slots programmed, relocations,
//! erases) and the timing model turns those counts into seconds.
//!
//! A block holds `pages_per_block × slots_per_page` slots. Without compression a logical 4 KiB
//! page takes one slot (one NAND page); with compression a slot is half a page and a logical
//! page takes one slot (compressed to half or less, or a deduplicated reference) or two, or
//! none: data that compresses to a small part of a page rides in the slots of other pages
//! ([`PACKED`]).
//! Greedy victim choice keeps full blocks in intrusive doubly-linked lists ("buckets") keyed by
//! their valid-slot count; the victim is the head of the lowest non-empty bucket.

use std::collections::VecDeque;

/// Mapping value of a logical page that holds no data.
pub const UNMAPPED: u32 = u32::MAX;
/// Mapping value of a page whose data compressed to so little that it rides in the slots of
/// pages written around it: it takes no slot of its own, so garbage collection does not move
/// it and overwriting it frees nothing (a two-slot value never reaches it: slot numbers stay
/// below 2³¹ − 2).
pub const PACKED: u32 = u32::MAX - 1;
/// Flag in a mapping or reverse-map value: the page takes two slots.
const TWO_SLOTS: u32 = 1 << 31;
const NIL: u32 = u32::MAX;
/// Content tag of a trimmed page whose flash a TRIM left allocated (written data always has an
/// odd tag; 0 is no data).
const KEPT: u32 = 2;
/// Foreground GC runs when taking a new block would leave fewer free blocks than this (the low
/// watermark); it then reclaims until the reserve plus the burst are free.
pub const GC_RESERVE: usize = 2;
/// Epochs per user capacity of host writes, for telling hot data from cold.
const EPOCHS_PER_FILL: f64 = 256.0;
/// The write frontier of host writes (of hot data, where hot and cold are kept apart).
const HOT: usize = 0;
/// The write frontier of cold data: host writes of pages not rewritten recently and the pages
/// garbage collection relocates (used only where hot and cold are kept apart).
const COLD: usize = 1;

/// What a block is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    /// Erased, in the free pool.
    Free = 0,
    /// The write frontier.
    Open = 1,
    /// Written full; a GC candidate.
    Full = 2,
    /// Worn out and taken out of service (its erase count passed its endurance).
    Retired = 3,
}

/// Geometry of the simulated flash, in the units the FTL works in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    /// Logical 4 KiB pages the host sees.
    pub user_pages: u32,
    /// Erase blocks.
    pub blocks: u32,
    /// 4 KiB NAND pages per block.
    pub pages_per_block: u32,
    /// 2 when the controller compresses (a slot is half a page), else 1.
    pub slots_per_page: u32,
}

impl Geometry {
    /// Slots in one block.
    pub fn slots_per_block(&self) -> u32 {
        self.pages_per_block * self.slots_per_page
    }

    /// Physical 4 KiB pages.
    pub fn physical_pages(&self) -> u64 {
        u64::from(self.blocks) * u64::from(self.pages_per_block)
    }
}

/// Cumulative NAND work since the FTL was made or loaded.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    /// Slots written by the host.
    pub host_slots: u64,
    /// Slots copied by garbage collection.
    pub gc_slots: u64,
    /// Block erases.
    pub erases: u64,
}

/// A block's GC bookkeeping, side by side so that invalidating a page and moving the block to
/// its new valid-count bucket touch one cache line per block (16 bytes, aligned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
struct Books {
    /// Live slots.
    valid: u32,
    /// The next and previous full blocks in its valid-count bucket (NIL: none).
    next: u32,
    prev: u32,
}

impl Books {
    /// An erased block's: nothing live, in no bucket.
    const EMPTY: Books = Books {
        valid: 0,
        next: NIL,
        prev: NIL,
    };
}

/// The page-mapped FTL.
pub struct Ftl {
    geo: Geometry,
    /// Per logical page: `[slot index (plus TWO_SLOTS) or UNMAPPED, content tag]`, side by
    /// side so a write touches one cache line.
    map: Vec<[u32; 2]>,
    /// Per slot: the logical page whose data starts there, plus [`TWO_SLOTS`] (meaningful
    /// while the slot's live bit is set).
    p2l: Vec<u32>,
    /// Reclaim's list of live entries (kept to avoid allocating).
    moving: Vec<u32>,
    /// Per slot: set while the slot holds live data.
    live: Vec<u64>,
    /// Per block: its live slots and its place in its valid-count bucket.
    books: Vec<Books>,
    erase_count: Vec<u32>,
    state: Vec<BlockState>,
    /// Head of each valid-count bucket of full blocks.
    head: Vec<u32>,
    /// No full block has fewer live slots than this.
    min_bucket: usize,
    free: VecDeque<u32>,
    /// Open block and its next slot, per stream ([`HOT`], [`COLD`]).
    frontier: [u32; 2],
    write_ptr: [u32; 2],
    /// Hot/cold separation (see [`Ftl::set_hot_window`]): a host write of a page written
    /// fewer than this many epochs ago is hot (0: one stream).
    hot_window: u32,
    /// Per logical page: the epoch of its last host write, where hot and cold are kept apart
    /// (empty otherwise). An epoch is 1/[`EPOCHS_PER_FILL`] of the user capacity in host writes.
    written: Vec<u16>,
    /// Host writes so far (epochs are counted in them).
    host_writes: u64,
    in_gc: bool,
    /// Blocks a foreground GC burst frees beyond the reserve (see [`Ftl::set_gc_burst`]).
    gc_burst: usize,
    /// Logical pages that hold data.
    mapped: u32,
    /// Mean erase count at which blocks wear out (0: never; see [`Ftl::set_endurance`]).
    endurance: f64,
    /// Blocks retired so far.
    retired: u32,
    /// Fraction of trimmed two-slot (incompressible) pages whose flash a TRIM leaves allocated
    /// (see [`Ftl::set_trim_keeps`]).
    trim_keeps: f64,
    /// Victims by cost-benefit instead of greedily (see [`Ftl::set_cost_benefit`]).
    cost_benefit: bool,
    /// Per block: the value of `clock` when it was last opened (its age, for cost-benefit).
    opened: Vec<u32>,
    /// Per block: the stream it was last opened for ([`HOT`] or [`COLD`]).
    stream: Vec<u8>,
    /// Blocks in use (open or full) per stream.
    pool_blocks: [u32; 2],
    /// Host writes per stream since the target was last set (halved each time).
    pool_writes: [u64; 2],
    /// Blocks the hot stream should hold (see [`Ftl::set_pool_target`]), and the victims
    /// chosen since it was set.
    hot_target: u32,
    since_target: u32,
    /// Blocks opened so far.
    clock: u32,
    /// Slots one NAND page read returns (see [`Ftl::set_read_page`]).
    read_slots: u32,
    /// NAND page reads and slots relocated by garbage collection, decayed per victim (see
    /// [`Ftl::gc_reads_per_slot`]).
    gc_reads: [f64; 2],
    work: Work,
}

impl Ftl {
    /// An empty (freshly erased) FTL.
    pub fn new(geo: Geometry) -> Ftl {
        assert!(
            u64::from(geo.blocks) * u64::from(geo.slots_per_block()) < u64::from(TWO_SLOTS),
            "simulated flash too large for 31-bit slot numbers: use a larger scale="
        );
        Ftl::empty(
            geo,
            super::huge::filled(geo.user_pages as usize, [UNMAPPED, 0]),
            vec![0; geo.blocks as usize],
        )
    }

    fn empty(geo: Geometry, map: Vec<[u32; 2]>, erase_count: Vec<u32>) -> Ftl {
        let slots = geo.blocks as usize * geo.slots_per_block() as usize;
        Ftl {
            geo,
            map,
            p2l: super::huge::filled(slots, 0),
            moving: Vec::with_capacity(geo.slots_per_block() as usize),
            live: super::huge::filled(slots.div_ceil(64), 0),
            books: vec![Books::EMPTY; geo.blocks as usize],
            erase_count,
            state: vec![BlockState::Free; geo.blocks as usize],
            head: vec![NIL; geo.slots_per_block() as usize + 1],
            min_bucket: 0,
            free: (0..geo.blocks).collect(),
            frontier: [NIL; 2],
            write_ptr: [0; 2],
            hot_window: 0,
            written: Vec::new(),
            host_writes: 0,
            in_gc: false,
            gc_burst: 1,
            mapped: 0,
            endurance: 0.0,
            retired: 0,
            trim_keeps: 0.0,
            cost_benefit: false,
            opened: vec![0; geo.blocks as usize],
            stream: vec![HOT as u8; geo.blocks as usize],
            pool_blocks: [0; 2],
            pool_writes: [0; 2],
            hot_target: 0,
            since_target: 0,
            clock: 0,
            read_slots: geo.slots_per_page,
            gc_reads: [0.0; 2],
            work: Work::default(),
        }
    }

    /// Rebuilds an FTL from its persistent parts: the mapping with content tags, erase counts,
    /// block states, the free pool and the frontier (see the `state` module).
    pub fn restore(
        geo: Geometry,
        map: Vec<[u32; 2]>,
        erase_count: Vec<u32>,
        state: Vec<BlockState>,
        free: VecDeque<u32>,
        frontier: u32,
        write_ptr: u32,
    ) -> anyhow::Result<Ftl> {
        anyhow::ensure!(
            map.len() == geo.user_pages as usize
                && erase_count.len() == geo.blocks as usize
                && state.len() == geo.blocks as usize
                && (frontier < geo.blocks || frontier == NIL)
                && write_ptr <= geo.slots_per_block(),
            "the saved mapping does not fit the preset's geometry"
        );
        let mut ftl = Ftl::empty(geo, map, erase_count);
        ftl.retired = state.iter().filter(|&&s| s == BlockState::Retired).count() as u32;
        ftl.state = state;
        ftl.free = free;
        ftl.frontier[HOT] = frontier;
        ftl.write_ptr[HOT] = write_ptr;
        let spb = geo.slots_per_block();
        let slots = ftl.p2l.len();
        for lpn in 0..ftl.map.len() {
            // A full-size drive's rebuild took a second under load: a stop signal ends it.
            if lpn % (1 << 20) == 0 && crate::stop::requested() {
                anyhow::bail!("stopped by a signal");
            }
            let entry = ftl.map[lpn][0];
            if entry == UNMAPPED {
                continue;
            }
            if let Some((slot, size)) = located(entry) {
                anyhow::ensure!(
                    (slot as usize) + (size as usize) <= slots,
                    "the saved mapping points outside the flash"
                );
                ftl.p2l[slot as usize] = lpn as u32 | (entry & TWO_SLOTS);
                for s in slot..slot + size {
                    ftl.set_live(s);
                }
                ftl.books[(slot / spb) as usize].valid += size;
            }
            if ftl.map[lpn][1] != KEPT {
                ftl.mapped += 1;
            }
        }
        for b in 0..geo.blocks {
            if ftl.state[b as usize] == BlockState::Full {
                ftl.bucket_insert(b);
            }
            // Cold unless the saved drive says otherwise (see [`Ftl::set_hot_blocks`]).
            if matches!(ftl.state[b as usize], BlockState::Full | BlockState::Open) {
                ftl.stream[b as usize] = COLD as u8;
                ftl.pool_blocks[COLD] += 1;
            }
        }
        Ok(ftl)
    }

    pub fn geometry(&self) -> Geometry {
        self.geo
    }

    /// NAND work done so far.
    #[inline]
    pub fn work(&self) -> Work {
        Work {
            host_slots: counter(&self.work.host_slots),
            gc_slots: counter(&self.work.gc_slots),
            erases: counter(&self.work.erases),
        }
    }

    /// Asks the CPU to fetch the mapping entry of `lpn` ahead of its use.
    #[inline]
    pub fn prefetch(&self, lpn: u32) {
        #[cfg(target_arch = "x86_64")]
        if let Some(entry) = self.map.get(lpn as usize) {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: SSE is part of the x86_64 baseline, and a prefetch of a valid address
            // only warms the cache.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(entry.as_ptr().cast()) };
        }
    }

    /// Second step after [`Ftl::prefetch`]: reads the (now cached) mapping entry of `lpn` and
    /// fetches what overwriting it will touch — the live-bit word of its old slot and the old
    /// block's state and GC bookkeeping.
    #[inline]
    pub fn prefetch_old_location(&self, lpn: u32) {
        #[cfg(target_arch = "x86_64")]
        if let Some(&[entry, _]) = self.map.get(lpn as usize) {
            let Some((slot, _)) = located(entry) else {
                return;
            };
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let block = (slot / self.geo.slots_per_block()) as usize;
            for p in [
                self.live[(slot / 64) as usize..].as_ptr().cast::<i8>(),
                self.books[block..].as_ptr().cast(),
                self.state[block..].as_ptr().cast(),
            ] {
                // SAFETY: as in `prefetch`.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
            }
        }
    }

    /// True when the logical page holds data.
    #[inline]
    pub fn is_mapped(&self, lpn: u32) -> bool {
        let [entry, tag] = self.map[lpn as usize];
        entry != UNMAPPED && tag != KEPT
    }

    /// The content tag of a logical page (0: never written, trimmed or erased).
    #[inline]
    pub fn tag(&self, lpn: u32) -> u32 {
        match self.map[lpn as usize][1] {
            KEPT => 0,
            tag => tag,
        }
    }

    /// Changes a page's content tag without writing it (a power cut undoing a cached write).
    pub fn set_tag(&mut self, lpn: u32, tag: u32) {
        self.map[lpn as usize][1] = tag;
    }

    /// Writes logical page `lpn` with content `tag`, taking `slots` slots (1 or 2; 0: the
    /// page is [`PACKED`] into other pages' slots); garbage-collects first when the free pool
    /// runs low.
    #[inline]
    pub fn write(&mut self, lpn: u32, slots: u32, tag: u32) {
        if !self.is_mapped(lpn) {
            self.mapped += 1;
        }
        let stream = self.stream_of(lpn);
        self.pool_writes[stream] += 1;
        self.invalidate(lpn);
        if slots == 0 {
            self.map[lpn as usize][0] = PACKED;
        } else {
            self.place(lpn, slots, stream);
        }
        self.map[lpn as usize][1] = tag;
        self.work.host_slots += u64::from(slots);
    }

    /// Deallocates logical page `lpn` (TRIM). A page kept by [`Ftl::set_trim_keeps`] reads as
    /// trimmed (content tag 0) but keeps its flash: GC goes on copying it until the page is
    /// written again or the drive is secure erased.
    #[inline]
    pub fn trim(&mut self, lpn: u32) {
        let [entry, tag] = self.map[lpn as usize];
        if tag == KEPT {
            return;
        }
        if located(entry).is_some_and(|(_, size)| size == 2) && self.trim_keeps > 0.0 {
            let h = crate::pattern::mix64(u64::from(lpn) ^ 0x7e1a_0b5e);
            if ((h >> 11) as f64) < self.trim_keeps * (1u64 << 53) as f64 {
                self.map[lpn as usize][1] = KEPT;
                self.mapped -= 1;
                return;
            }
        }
        if entry != UNMAPPED {
            self.mapped -= 1;
        }
        self.invalidate(lpn);
        self.map[lpn as usize] = [UNMAPPED, 0];
    }

    /// Erases every block that holds data and forgets the whole mapping; erase counts stay.
    pub fn secure_erase(&mut self) {
        for b in 0..self.geo.blocks as usize {
            if self.state[b] != BlockState::Retired
                && (self.state[b] != BlockState::Free || self.books[b].valid > 0)
            {
                self.erase_count[b] += 1;
                self.work.erases += 1;
            }
        }
        self.map.fill([UNMAPPED, 0]);
        self.mapped = 0;
        self.live.fill(0);
        self.books.fill(Books::EMPTY);
        for st in &mut self.state {
            if *st != BlockState::Retired {
                *st = BlockState::Free;
            }
        }
        self.head.fill(NIL);
        self.min_bucket = 0;
        // Least-worn blocks first, so wear levels out across erases.
        let mut order: Vec<u32> = (0..self.geo.blocks)
            .filter(|&b| self.state[b as usize] != BlockState::Retired)
            .collect();
        order.sort_by_key(|&b| (self.erase_count[b as usize], b));
        self.free = order.into();
        self.frontier = [NIL; 2];
        self.pool_blocks = [0; 2];
    }

    /// Collects garbage until `target` blocks are free or no block would gain much
    /// (idle-time background GC). It takes the emptiest block whatever the preset's victim
    /// policy: idle time is spent where it frees the most, and cost-benefit's old, fuller cold
    /// blocks are left to foreground GC.
    pub fn background_gc(&mut self, target: usize) {
        while self.free.len() < target {
            let Some(victim) = self.greedy_victim() else {
                return;
            };
            if self.books[victim as usize].valid + self.geo.slots_per_block() / 8
                >= self.geo.slots_per_block()
            {
                return;
            }
            self.in_gc = true;
            self.reclaim(victim);
            self.in_gc = false;
        }
    }

    /// Makes foreground GC run in bursts: once the free pool falls to the reserve (the low
    /// watermark), reclaim until `blocks` more than the reserve are free (the high watermark).
    /// 1 (the default) reclaims one block at a time. The burst never takes more than the
    /// spare area holds beside the reserve and the open frontiers: a small `capacity=` of a
    /// preset has fewer spare blocks than the preset's burst, and a larger burst would leave no
    /// block to retire (the drive read-only from birth).
    pub fn set_gc_burst(&mut self, blocks: usize) {
        let spare = self.geo.blocks.saturating_sub(self.user_blocks()) as usize;
        let room = spare.saturating_sub(GC_RESERVE + 3 + 1);
        self.gc_burst = blocks.min(room).max(1);
    }

    /// Makes blocks wear out: a block whose erase count passes its own endurance (around
    /// `rated_pe`) is retired at its next erase, shrinking the spare area, until only the
    /// blocks the FTL needs are left ([`Ftl::spare_exhausted`]); worn blocks then stay in
    /// service. 0 (the default): blocks never wear out.
    pub fn set_endurance(&mut self, rated_pe: f64) {
        self.endurance = rated_pe;
    }

    /// Makes TRIM incomplete for incompressible data, as on SandForce drives: of the trimmed
    /// pages that take two slots, this fraction (chosen per page, fixed) stays allocated in
    /// flash (see [`Ftl::trim`]); only rewriting the page or a secure erase frees it. 0 (the
    /// default): TRIM frees what it names.
    pub fn set_trim_keeps(&mut self, fraction: f64) {
        self.trim_keeps = fraction;
    }

    /// Chooses victims by cost-benefit, as firmware that keeps hot and cold data apart does:
    /// of a sample of full blocks, the one with the most free space times age per cost,
    /// `(1 − u) · age / (1 + u)` (u: its valid fraction; age: blocks opened since it was).
    /// Cold data, rewritten rarely, sits in old blocks that are collected once they are
    /// mostly invalid, and stays together; hot blocks are collected young. Under skewed
    /// writes this lowers write amplification below that of uniform writes, where greedy
    /// choice raises it (Rosenblum & Ousterhout 1992; Desnoyers 2012). False (the default):
    /// greedy, the block with the fewest valid slots.
    pub fn set_cost_benefit(&mut self, on: bool) {
        self.cost_benefit = on;
    }

    /// Sets the flash's page size in 4 KiB pages: garbage collection reads a victim's live
    /// data one NAND page at a time, one read serving every live slot of that page (1, the
    /// default: one read per 4 KiB page).
    pub fn set_read_page(&mut self, pages: u32) {
        self.read_slots = pages.max(1) * self.geo.slots_per_page;
    }

    /// NAND page reads garbage collection makes per slot it relocates, over its recent victims
    /// (a victim's weight decays by 1/64 per victim after it): the live slots of one NAND page
    /// move together on one read. Before the first victim, one read per 4 KiB page.
    pub fn gc_reads_per_slot(&self) -> f64 {
        match self.gc_reads {
            [r, slots] if slots > 0.0 => r / slots,
            _ => 1.0 / f64::from(self.geo.slots_per_page),
        }
    }

    /// Keeps hot and cold data apart, as enterprise firmware that separates write streams by
    /// temperature does: a host write of a page last written less than `fraction` × the user
    /// capacity of host writes ago is hot and goes to the hot frontier; other host writes
    /// (first writes and pages not rewritten recently) go to a cold one. Garbage collection
    /// relocates a victim's live pages within its stream, except the pages of a hot victim
    /// not written within the window, which go cold, and chooses the stream to collect so
    /// that each holds the share of the blocks that minimises write amplification (see
    /// [`Ftl::set_pool_target`]). 0 (the default): one frontier for everything. The pages'
    /// write times are not saved: a loaded drive starts with every page and block cold.
    pub fn set_hot_window(&mut self, fraction: f64) {
        self.hot_window = (fraction * EPOCHS_PER_FILL).round() as u32;
        self.written = Vec::new();
        if self.hot_window == 0 {
            return;
        }
        // Now is a window after epoch 0: the pages in hot blocks count as written now, the
        // rest as written at epoch 0 (cold).
        self.host_writes = u64::from(self.hot_window) * self.per_epoch();
        let now = self.epoch();
        let spb = self.geo.slots_per_block();
        self.written = self
            .map
            .iter()
            .map(|&[entry, _]| {
                let hot = located(entry).is_some_and(|(slot, _)| {
                    self.stream[(slot / spb) as usize] == HOT as u8
                        && self.state[(slot / spb) as usize] != BlockState::Free
                });
                if hot {
                    now
                } else {
                    0
                }
            })
            .collect();
    }

    /// Marks the in-use blocks `hot` names as the hot stream's (a saved drive's streams; see
    /// the `state` module). Called before [`Ftl::set_hot_window`].
    pub fn set_hot_blocks(&mut self, hot: &[bool]) {
        for (b, _) in hot.iter().enumerate().filter(|&(_, &h)| h) {
            if matches!(self.state.get(b), Some(BlockState::Full | BlockState::Open))
                && self.stream[b] == COLD as u8
            {
                self.stream[b] = HOT as u8;
                self.pool_blocks[COLD] -= 1;
                self.pool_blocks[HOT] += 1;
            }
        }
    }

    /// True when block `b` is in use by the hot stream of a drive that keeps hot and cold
    /// data apart.
    pub fn is_hot_block(&self, b: usize) -> bool {
        self.hot_window > 0
            && self.stream[b] == HOT as u8
            && matches!(self.state[b], BlockState::Full | BlockState::Open)
    }

    /// The frontier a host write of `lpn` goes to (see [`Ftl::set_hot_window`]), noting the
    /// write's epoch.
    #[inline]
    fn stream_of(&mut self, lpn: u32) -> usize {
        if self.hot_window == 0 {
            return HOT;
        }
        let hot = self.is_mapped(lpn) && self.written_lately(lpn);
        self.written[lpn as usize] = self.epoch();
        self.host_writes += 1;
        if hot {
            HOT
        } else {
            COLD
        }
    }

    /// The current epoch of host writes (see [`Ftl::set_hot_window`]).
    #[inline]
    fn epoch(&self) -> u16 {
        (self.host_writes / self.per_epoch()) as u16
    }

    /// Host writes per epoch.
    #[inline]
    fn per_epoch(&self) -> u64 {
        (f64::from(self.geo.user_pages) / EPOCHS_PER_FILL).max(1.0) as u64
    }

    /// True when the host wrote `lpn` within the hot window (see [`Ftl::set_hot_window`]).
    #[inline]
    fn written_lately(&self, lpn: u32) -> bool {
        u32::from(self.epoch().wrapping_sub(self.written[lpn as usize])) < self.hot_window
    }

    /// The open block of the cold stream other than the host frontier (NIL when none): a
    /// saved drive records it as full (see the `state` module).
    pub fn cold_frontier(&self) -> u32 {
        self.frontier[COLD]
    }

    /// Per block: the count of blocks opened when it was last opened (kept in the state file).
    pub fn opened(&self) -> &[u32] {
        &self.opened
    }

    /// Restores the blocks' ages (see [`Ftl::opened`]) of a saved drive.
    pub fn set_opened(&mut self, opened: Vec<u32>) {
        if opened.len() == self.opened.len() {
            self.clock = opened
                .iter()
                .copied()
                .max()
                .map_or(0, |m| m.wrapping_add(1));
            self.opened = opened;
        }
    }

    /// Blocks retired as worn out.
    pub fn retired_blocks(&self) -> u32 {
        self.retired
    }

    /// Spare blocks (beyond what the user data fills at its largest) still in service, as a
    /// fraction of those the drive was built with.
    pub fn spare_fraction(&self) -> f64 {
        let spare = f64::from(self.geo.blocks - self.user_blocks());
        (spare - f64::from(self.retired)) / spare
    }

    /// True once wear has retired every spare block the FTL can do without.
    pub fn spare_exhausted(&self) -> bool {
        self.endurance > 0.0 && !self.can_retire()
    }

    /// Blocks a foreground GC burst frees beyond the reserve.
    pub fn gc_burst(&self) -> usize {
        self.gc_burst
    }

    /// Blocks in the free pool.
    pub fn free_blocks(&self) -> usize {
        self.free.len()
    }

    /// Valid fraction of the block greedy GC would reclaim next (None when no block is full).
    /// In steady state each reclaim copies this fraction of a block to free the rest, so
    /// `v / (1 − v)` relocations per host write is what GC needs to keep up.
    pub fn victim_valid_fraction(&mut self) -> Option<f64> {
        let victim = self.peek_victim()?;
        Some(f64::from(self.books[victim as usize].valid) / f64::from(self.geo.slots_per_block()))
    }

    /// Per-block erase counts.
    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }

    /// Adds `n` erases to every block (wear from a history that is not simulated write by write).
    pub fn add_wear(&mut self, n: u32) {
        for c in &mut self.erase_count {
            *c += n;
        }
        self.work.erases += u64::from(n) * u64::from(self.geo.blocks);
    }

    /// Logical pages that hold data.
    pub fn mapped_pages(&self) -> u64 {
        u64::from(self.mapped)
    }

    /// Trimmed pages whose flash the drive kept (see [`Ftl::set_trim_keeps`]); counted by a
    /// pass over the mapping, for reports.
    pub fn kept_pages(&self) -> u64 {
        self.map.iter().filter(|[_, tag]| *tag == KEPT).count() as u64
    }

    /// The persistent parts, for saving: mapping with tags, erase counts, block states, free
    /// pool, frontier block and its write pointer.
    #[allow(clippy::type_complexity)]
    pub fn persistent(&self) -> (&[[u32; 2]], &[u32], &[BlockState], &VecDeque<u32>, u32, u32) {
        (
            &self.map,
            &self.erase_count,
            &self.state,
            &self.free,
            self.frontier[HOT],
            self.write_ptr[HOT],
        )
    }

    #[inline]
    fn invalidate(&mut self, lpn: u32) {
        let Some((slot, size)) = located(self.map[lpn as usize][0]) else {
            return;
        };
        for s in slot..slot + size {
            self.clear_live(s);
        }
        let b = slot / self.geo.slots_per_block();
        if self.state[b as usize] == BlockState::Full {
            self.bucket_remove(b);
            self.books[b as usize].valid -= size;
            self.bucket_insert(b);
        } else {
            self.books[b as usize].valid -= size;
        }
    }

    /// Writes `lpn` at the frontier of `stream`.
    #[inline]
    fn place(&mut self, lpn: u32, size: u32, stream: usize) {
        let spb = self.geo.slots_per_block();
        if self.frontier[stream] == NIL || self.write_ptr[stream] + size > spb {
            // A two-slot page never straddles blocks: an odd slot left over stays empty.
            if self.frontier[stream] != NIL {
                self.close_frontier(stream);
            }
            // Garbage collection first: its relocations may open (and fill) frontiers.
            self.collect_if_low();
            if self.frontier[stream] != NIL && self.write_ptr[stream] + size > spb {
                self.close_frontier(stream);
            }
            if self.frontier[stream] == NIL {
                self.open_frontier(stream);
            }
        }
        let frontier = self.frontier[stream];
        let slot = frontier * spb + self.write_ptr[stream];
        let flag = if size == 2 { TWO_SLOTS } else { 0 };
        self.p2l[slot as usize] = lpn | flag;
        for s in slot..slot + size {
            self.set_live(s);
        }
        self.books[frontier as usize].valid += size;
        self.map[lpn as usize][0] = slot | flag;
        self.write_ptr[stream] += size;
        if self.write_ptr[stream] == spb {
            self.close_frontier(stream);
        }
    }

    fn close_frontier(&mut self, stream: usize) {
        let b = self.frontier[stream];
        self.state[b as usize] = BlockState::Full;
        self.bucket_insert(b);
        self.frontier[stream] = NIL;
    }

    /// Takes a free block as the frontier of `stream`.
    fn open_frontier(&mut self, stream: usize) {
        let b = self
            .free
            .pop_front()
            .expect("the GC reserve keeps a free block for relocation");
        self.state[b as usize] = BlockState::Open;
        self.opened[b as usize] = self.clock;
        self.stream[b as usize] = stream as u8;
        self.pool_blocks[stream] += 1;
        self.clock = self.clock.wrapping_add(1);
        self.frontier[stream] = b;
        self.write_ptr[stream] = 0;
    }

    /// Foreground GC: when taking a block would leave the free pool below the reserve (the low
    /// watermark), reclaims until `reserve + burst` blocks are free (the high watermark).
    /// Relocation needs at most one block per victim, so it never runs dry.
    fn collect_if_low(&mut self) {
        // With two frontiers one victim's relocations may open a block on each.
        let reserve = GC_RESERVE + usize::from(self.hot_window > 0);
        if self.in_gc || self.free.len() > reserve {
            return;
        }
        self.in_gc = true;
        while self.free.len() < reserve + self.gc_burst {
            // Past the reserve, a victim that is all valid would free nothing: the burst ends.
            match self.peek_victim() {
                Some(v)
                    if self.free.len() <= reserve
                        || self.books[v as usize].valid < self.geo.slots_per_block() =>
                {
                    self.reclaim(v)
                }
                _ => break,
            }
        }
        self.in_gc = false;
    }

    /// Relocates the live data of full block `victim` and erases it.
    fn reclaim(&mut self, victim: u32) {
        self.bucket_remove(victim);
        let spb = self.geo.slots_per_block();
        let base = victim * spb;
        let mut moving = std::mem::take(&mut self.moving);
        moving.clear();
        let mut s = 0;
        // NAND pages read: one per page of the victim holding live data (the first slot of
        // an entry and its last, for one that straddles two pages).
        let (mut reads, mut last_read) = (0u32, u32::MAX);
        while s < spb {
            let slot = base + s;
            if self.is_live(slot) {
                let entry = self.p2l[slot as usize];
                self.prefetch(entry & !TWO_SLOTS);
                moving.push(entry);
                let size = split(entry).1;
                for page in [s / self.read_slots, (s + size - 1) / self.read_slots] {
                    if page != last_read {
                        reads += 1;
                        last_read = page;
                    }
                }
                s += size;
            } else {
                s += 1;
            }
        }
        if !moving.is_empty() {
            let keep = 63.0 / 64.0;
            let slots: u32 = moving.iter().map(|&e| split(e).1).sum();
            self.gc_reads = [
                self.gc_reads[0] * keep + f64::from(reads),
                self.gc_reads[1] * keep + f64::from(slots),
            ];
        }
        let from = self.stream[victim as usize] as usize;
        self.pool_blocks[from] -= 1;
        for &entry in &moving {
            let (lpn, size) = split(entry);
            let stream = match self.hot_window {
                0 => HOT,
                _ if from == HOT && !self.written_lately(lpn) => COLD,
                _ => from,
            };
            self.place(lpn, size, stream);
            self.work.gc_slots += u64::from(size);
        }
        self.moving = moving;
        let words = (base / 64) as usize..((base + spb) / 64) as usize;
        if base.is_multiple_of(64) && spb.is_multiple_of(64) {
            self.live[words].fill(0);
        } else {
            for s in base..base + spb {
                self.clear_live(s);
            }
        }
        self.books[victim as usize].valid = 0;
        self.erase_count[victim as usize] += 1;
        self.work.erases += 1;
        // A worn block leaves service unless the free pool is at its reserve (then it waits
        // for its next erase), so garbage collection always gains ground.
        if self.free.len() >= GC_RESERVE && self.worn_out(victim) && self.can_retire() {
            self.state[victim as usize] = BlockState::Retired;
            self.retired += 1;
            return;
        }
        self.state[victim as usize] = BlockState::Free;
        self.free.push_back(victim);
    }

    /// True when block `b` has passed its own endurance: the preset's rated P/E spread over
    /// the blocks (a normal distribution, 10 % standard deviation, fixed per block).
    fn worn_out(&self, b: u32) -> bool {
        if self.endurance <= 0.0 {
            return false;
        }
        let h = crate::pattern::mix64(u64::from(b) ^ 0x5eed_b10c);
        // Four 16-bit uniforms summed: mean 2, variance 1/3, close enough to normal.
        let sum: f64 = (0..4)
            .map(|i| ((h >> (16 * i)) & 0xffff) as f64 / 65536.0)
            .sum();
        let z = (sum - 2.0) * 3f64.sqrt();
        f64::from(self.erase_count[b as usize]) > self.endurance * (1.0 + 0.1 * z)
    }

    /// True while retiring one more block leaves the FTL the blocks it needs to work: the user
    /// data (at its largest), the GC reserve, a burst and the frontiers.
    fn can_retire(&self) -> bool {
        let in_service = self.geo.blocks - self.retired;
        let frontiers = if self.hot_window > 0 { 3 } else { 2 };
        in_service > self.user_blocks() + (GC_RESERVE + self.gc_burst) as u32 + frontiers
    }

    /// Blocks the user data fills at its largest (every page taking a whole NAND page).
    fn user_blocks(&self) -> u32 {
        self.geo.user_pages.div_ceil(self.geo.pages_per_block)
    }

    /// The next foreground victim by the preset's policy (cost-benefit or greedy).
    fn peek_victim(&mut self) -> Option<u32> {
        if self.hot_window > 0 {
            if self.since_target == 0 {
                self.set_pool_target();
            }
            self.since_target = (self.since_target + 1) % 64;
            let pool = if self.pool_blocks[HOT] > self.hot_target {
                HOT
            } else {
                COLD
            };
            let chosen = self.pool_victim(pool);
            if chosen != NIL {
                return Some(chosen);
            }
        } else if self.cost_benefit {
            let chosen = self.sample_victim();
            if chosen != NIL {
                return Some(chosen);
            }
        }
        self.greedy_victim()
    }

    /// Sets the blocks the hot stream should hold so that write amplification is lowest: the
    /// split of the blocks in use between the two streams that minimises
    /// `f_hot · A(α_hot) + f_cold · A(α_cold)` (f: each stream's share of the host writes,
    /// α: its blocks over its live data, A: greedy write amplification at α, Lambert-W), the
    /// optimum of Desnoyers (2012) for data kept apart by temperature.
    fn set_pool_target(&mut self) {
        let spb = f64::from(self.geo.slots_per_block());
        let mut live = [0.0f64; 2];
        for b in 0..self.geo.blocks as usize {
            if matches!(self.state[b], BlockState::Full | BlockState::Open) {
                live[self.stream[b] as usize] += f64::from(self.books[b].valid) / spb;
            }
        }
        let blocks = f64::from(self.pool_blocks[HOT] + self.pool_blocks[COLD]);
        let writes = (self.pool_writes[HOT] + self.pool_writes[COLD]).max(1) as f64;
        let f_hot = self.pool_writes[HOT] as f64 / writes;
        self.pool_writes = self.pool_writes.map(|w| w / 2);
        let (lo, hi) = (live[HOT] * 1.02 + 1.0, blocks - live[COLD] * 1.02 - 1.0);
        if live[HOT] < 1.0 || live[COLD] < 1.0 || lo >= hi {
            self.hot_target = self.pool_blocks[HOT];
            return;
        }
        let cost = |p: f64| {
            f_hot * lambert_w_write_amplification(p / live[HOT])
                + (1.0 - f_hot) * lambert_w_write_amplification((blocks - p) / live[COLD])
        };
        // Golden-section search: the cost is convex in the split.
        let g = (5f64.sqrt() - 1.0) / 2.0;
        let (mut a, mut b) = (lo, hi);
        for _ in 0..40 {
            let (c, d) = (b - g * (b - a), a + g * (b - a));
            if cost(c) < cost(d) {
                b = d;
            } else {
                a = c;
            }
        }
        self.hot_target = ((a + b) / 2.0) as u32;
    }

    /// The emptiest of a sample of full blocks of `pool` (NIL when the sample holds none).
    fn pool_victim(&self, pool: usize) -> u32 {
        const SAMPLE: usize = 32;
        let (mut best, mut fewest) = (NIL, u32::MAX);
        let (mut found, mut draw) = (0, 0u64);
        for _ in 0..SAMPLE * 16 {
            draw += 1;
            let h = crate::pattern::mix64((u64::from(self.clock) << 16) ^ draw ^ 0x57_4ea3);
            let b = (((h >> 32) * u64::from(self.geo.blocks)) >> 32) as usize;
            if self.state[b] != BlockState::Full || self.stream[b] as usize != pool {
                continue;
            }
            if self.books[b].valid < fewest {
                (best, fewest) = (b as u32, self.books[b].valid);
            }
            found += 1;
            if found == SAMPLE {
                break;
            }
        }
        best
    }

    /// The full block with the fewest live slots.
    fn greedy_victim(&mut self) -> Option<u32> {
        while self.min_bucket < self.head.len() {
            let h = self.head[self.min_bucket];
            if h != NIL {
                return Some(h);
            }
            self.min_bucket += 1;
        }
        None
    }

    /// Cost-benefit choice among a sample of full blocks (see [`Ftl::set_cost_benefit`]); NIL
    /// when the sample holds no block with anything to free (greedy choice then decides). The
    /// sample is drawn from the count of blocks opened, so the choice follows from the drive's
    /// state alone (a drive saved and loaded chooses as one that never was).
    fn sample_victim(&self) -> u32 {
        const SAMPLE: usize = 32;
        let spb = f64::from(self.geo.slots_per_block());
        let (mut best, mut best_score) = (NIL, 0.0);
        let (mut found, mut draw) = (0, 0u64);
        for _ in 0..SAMPLE * 8 {
            draw += 1;
            let h = crate::pattern::mix64((u64::from(self.clock) << 16) ^ draw ^ 0xc0_57be_4e11);
            let b = (((h >> 32) * u64::from(self.geo.blocks)) >> 32) as u32;
            if self.state[b as usize] != BlockState::Full {
                continue;
            }
            let u = f64::from(self.books[b as usize].valid) / spb;
            let age = f64::from(self.clock.wrapping_sub(self.opened[b as usize])) + 1.0;
            let score = (1.0 - u) * age / (1.0 + u);
            if score > best_score {
                (best, best_score) = (b, score);
            }
            found += 1;
            if found == SAMPLE {
                break;
            }
        }
        best
    }

    #[inline]
    fn bucket_insert(&mut self, b: u32) {
        let k = self.books[b as usize].valid as usize;
        let h = self.head[k];
        self.books[b as usize].next = h;
        self.books[b as usize].prev = NIL;
        if h != NIL {
            self.books[h as usize].prev = b;
        }
        self.head[k] = b;
        if k < self.min_bucket {
            self.min_bucket = k;
        }
    }

    #[inline]
    fn bucket_remove(&mut self, b: u32) {
        let (n, p) = (self.books[b as usize].next, self.books[b as usize].prev);
        if p != NIL {
            self.books[p as usize].next = n;
        } else {
            self.head[self.books[b as usize].valid as usize] = n;
        }
        if n != NIL {
            self.books[n as usize].prev = p;
        }
    }

    #[inline]
    fn is_live(&self, slot: u32) -> bool {
        self.live[(slot / 64) as usize] & (1 << (slot % 64)) != 0
    }

    #[inline]
    fn set_live(&mut self, slot: u32) {
        self.live[(slot / 64) as usize] |= 1 << (slot % 64);
    }

    #[inline]
    fn clear_live(&mut self, slot: u32) {
        self.live[(slot / 64) as usize] &= !(1 << (slot % 64));
    }
}

/// A counter read on its own, 8 bytes: the engine reads the counters after every I/O, just
/// after they were written one by one, and a copy the compiler widens into 16-byte loads over
/// two of them cannot take them from the store buffer; it waits instead for every older store
/// to reach the cache (the mapping's cache misses of the I/O before it).
#[inline(always)]
pub fn counter(value: &u64) -> u64 {
    // SAFETY: a reference is valid and aligned for a read; a volatile read is only one that the
    // compiler keeps as it is written.
    unsafe { std::ptr::read_volatile(value) }
}

/// The slot and size of a mapping value with flash of its own (not [`UNMAPPED`] or
/// [`PACKED`]).
#[inline]
fn located(entry: u32) -> Option<(u32, u32)> {
    (entry < PACKED).then(|| split(entry))
}

#[inline]
fn split(entry: u32) -> (u32, u32) {
    (
        entry & !TWO_SLOTS,
        if entry & TWO_SLOTS != 0 { 2 } else { 1 },
    )
}

/// Steady-state write amplification of greedy/FIFO GC under uniform random writes at
/// over-provisioning `alpha` (physical / user): `α / (α + W₀(−α·e^{−α}))`.
pub fn lambert_w_write_amplification(alpha: f64) -> f64 {
    let x = -alpha * (-alpha).exp();
    // W₀ on (−1/e, 0) by Newton's method from a start near the branch point.
    let mut w: f64 = -0.5;
    for _ in 0..100 {
        let ew = w.exp();
        let step = (w * ew - x) / (ew * (w + 1.0));
        w -= step;
        if step.abs() < 1e-14 {
            break;
        }
    }
    alpha / (alpha + w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::{RngCore, SeedableRng};

    fn geo(user: u32, alpha: f64, np: u32, spp: u32) -> Geometry {
        Geometry {
            user_pages: user,
            blocks: ((f64::from(user) * alpha) / f64::from(np)).round() as u32,
            pages_per_block: np,
            slots_per_page: spp,
        }
    }

    #[test]
    fn lambert_w_matches_the_published_table() {
        for (alpha, wa) in [(1.07, 7.82), (1.12, 4.85), (1.28, 2.48)] {
            let got = lambert_w_write_amplification(alpha);
            assert!((got - wa).abs() < 0.01, "α {alpha}: {got} vs {wa}");
        }
    }

    #[test]
    fn every_mapped_page_stays_live_through_gc_and_trim() {
        let g = geo(4096, 1.1, 32, 2);
        let mut ftl = Ftl::new(g);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for i in 0..100_000u32 {
            let lpn = rng.next_u32() % g.user_pages;
            if i % 17 == 0 {
                ftl.trim(lpn);
            } else {
                ftl.write(lpn, rng.next_u32() % 3, 2 * i + 1);
            }
        }
        let live_slots: u32 = ftl.books.iter().map(|b| b.valid).sum();
        let mapped: u32 = ftl
            .map
            .iter()
            .filter_map(|e| located(e[0]))
            .map(|(_, size)| size)
            .sum();
        assert_eq!(live_slots, mapped);
        assert!(ftl.map.iter().any(|e| e[0] == PACKED));
        for (lpn, e) in ftl.map.iter().enumerate() {
            if let Some((slot, _)) = located(e[0]) {
                assert_eq!(split(ftl.p2l[slot as usize]).0, lpn as u32);
            }
        }
        let (l2p, ec, st, free, f, wp) = ftl.persistent();
        let again = Ftl::restore(
            g,
            l2p.to_vec(),
            ec.to_vec(),
            st.to_vec(),
            free.clone(),
            f,
            wp,
        )
        .unwrap();
        let valid = |f: &Ftl| f.books.iter().map(|b| b.valid).collect::<Vec<_>>();
        assert_eq!(valid(&again), valid(&ftl));
        assert_eq!(again.mapped, ftl.mapped);
    }

    /// Garbage collection reads a victim's NAND pages, not its live 4 KiB pages: under uniform
    /// random writes a victim's live pages are scattered independently, so with valid fraction
    /// v and NAND pages of n 4 KiB pages it reads (1 − (1 − v)ⁿ) / (n v) pages per page moved;
    /// with 4 KiB NAND pages exactly one.
    #[test]
    fn gc_reads_a_nand_page_once_for_its_live_pages() {
        for n in [1, 4] {
            let g = geo(8192, 1.1, 64, 1);
            let mut ftl = Ftl::new(g);
            ftl.set_read_page(n);
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            for lpn in 0..g.user_pages {
                ftl.write(lpn, 1, 1);
            }
            for _ in 0..6 * g.user_pages {
                ftl.write(rng.next_u32() % g.user_pages, 1, 1);
            }
            let before = ftl.work();
            for _ in 0..2 * g.user_pages {
                ftl.write(rng.next_u32() % g.user_pages, 1, 1);
            }
            let w = ftl.work();
            let v = (w.gc_slots - before.gc_slots) as f64
                / ((w.erases - before.erases) as f64 * f64::from(g.slots_per_block()));
            let got = ftl.gc_reads_per_slot();
            if n == 1 {
                assert_eq!(got, 1.0);
                continue;
            }
            let k = f64::from(n);
            let expected = (1.0 - (1.0 - v).powf(k)) / (k * v);
            assert!(
                (got / expected - 1.0).abs() < 0.1,
                "v {v:.3}: {got:.3} reads per page moved, {expected:.3} expected"
            );
            assert!(got > 1.0 / k && got < 1.0, "{got}");
        }
    }

    #[test]
    fn secure_erase_unmaps_everything_and_keeps_wear() {
        let g = geo(2048, 1.2, 32, 1);
        let mut ftl = Ftl::new(g);
        for round in 0..5 {
            for lpn in 0..g.user_pages {
                ftl.write((lpn * 7 + round) % g.user_pages, 1, 1);
            }
        }
        let wear: u64 = ftl.erase_counts().iter().map(|&c| u64::from(c)).sum();
        ftl.secure_erase();
        assert_eq!(ftl.mapped_pages(), 0);
        let after: u64 = ftl.erase_counts().iter().map(|&c| u64::from(c)).sum();
        assert!(after > wear);
    }
}
