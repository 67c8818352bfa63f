//! The simulated drives `sim:NAME` can name, with every parameter of their model.
//!
//! Timing is per 4 KiB of NAND (a controller that programs larger pages or several planes at
//! once is folded into a shorter time per 4 KiB). Sources for the figures are in docs/simulator.md
//! ("Calibration") and in the FTL model notes the presets were calibrated from.

use std::time::Duration;

/// DuraClass-like lifetime throttling: NAND programs are held to a life curve over power-on time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throttle {
    /// Rated program/erase cycles.
    pub rated_pe: f64,
    /// Warranty period the life curve spans, in power-on hours.
    pub warranty_h: f64,
    /// Credit a new drive starts with, in power-on hours.
    pub credit_h: f64,
    /// NAND 4 KiB programs per second allowed while the drive is on or under its curve.
    pub max_pages_per_s: f64,
    /// Debt (P/E cycles above the curve) that divides the allowed rate by e.
    pub debt_scale_pe: f64,
    /// The allowed rate never falls below this fraction of the maximum.
    pub min_fraction: f64,
}

/// An SLC write cache in front of slower (TLC) flash: fast until full; folded into TLC (read
/// from SLC, programmed into TLC) when idle, and while the host writes once the host's data
/// needs the space its blocks take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlcCache {
    /// Largest size of the cache (on an empty drive).
    pub bytes: u64,
    /// Part of the cache that is always there; the rest is free TLC space run as SLC (a third
    /// of its capacity), so a fuller drive has a smaller cache.
    pub static_bytes: u64,
    /// SLC program time per 4 KiB.
    pub program_us: f64,
    /// The cache of the family's models larger than this one (`capacity=` above the preset's
    /// capacity) is at most this (0: no limit); the preset's own capacity and smaller ones
    /// follow the scaling rule alone.
    pub family_max_bytes: u64,
    /// The dynamic part exists only while at least this fraction of the user capacity is free,
    /// and then whole (all or nothing, as some vendors document it); 0: it shrinks with the
    /// free space instead (a third of it, down to the static part).
    pub dynamic_min_free: f64,
}

/// How the firmware paces garbage collection against host I/O, second to second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GcPacing {
    /// Each burst is worked off at (1 − b) × the host's mean, then the host runs at (1 + b) ×
    /// until the next: a regular wave (b: `burstiness`).
    Waves,
    /// The collection takes exactly what each host write needs, all the time (enterprise
    /// firmware that budgets GC per command): 1-second IOPS stay flat.
    Continuous,
    /// Client firmware: collection waits until the free pool falls to its low watermark, then
    /// takes the drive by urgency, the share of the burst's work still outstanding: host I/O
    /// drops to (1 − b) × its mean as a burst starts and recovers as the burst is collected,
    /// then runs at (1 + b / 4) × until the next, the firmware collecting in the background
    /// (b: `burstiness`). How long each burst holds the
    /// host follows from its victims' valid data, so the seconds spread without a drawn term.
    Watermarks,
}

/// How garbage collection is scheduled against host I/O (the second-to-second shape of
/// steady state; the mean is set by the NAND work alone).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GcSchedule {
    /// Erase blocks (of the full-size drive) a foreground GC burst frees beyond the reserve:
    /// the distance between the free pool's low and high watermarks.
    pub burst_blocks: u32,
    /// How unevenly the drive works the burst off: while a burst is outstanding host I/O runs
    /// at (1 − b) × its steady-state mean, between bursts at (1 + b) ×. 0 is perfectly even.
    pub burstiness: f64,
    /// Host I/O slips in between GC operations (enterprise firmware): a host I/O waits at most
    /// one erase for a die busy collecting, not a whole victim's relocation.
    pub interleaved: bool,
    /// Second-to-second pacing of the collection.
    pub pacing: GcPacing,
    /// Victims by cost-benefit (free space × age per cost) instead of greedily: the firmware
    /// keeps hot and cold data apart, so skewed writes amplify less than uniform ones (see
    /// [`super::ftl::Ftl::set_cost_benefit`]).
    pub cost_benefit: bool,
    /// Hot and cold data on separate frontiers, with the blocks split between them so that
    /// write amplification is lowest (enterprise firmware that separates streams by
    /// temperature): a page rewritten within this fraction of the user capacity of host
    /// writes is hot (see [`super::ftl::Ftl::set_hot_window`]). 0: one stream.
    pub hot_window: f64,
    /// Erase suspend: a host I/O on a die that is erasing waits at most this long, in µs, for
    /// the erase to be suspended (0: the firmware does not suspend; it waits the whole erase).
    pub suspend_us: f64,
    /// Controller commands a host read of NAND costs beyond its own when it finds its die
    /// programming or erasing: suspending that work and resuming it (see
    /// [`super::contention::suspend_commands`]). 0: mixes cost nothing extra.
    pub suspend_cost: f64,
}

/// History applied by `aged=`: years of service compressed into a preconditioning.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Service {
    /// Fraction of the logical space the service (a ZIL) rewrote; the rest holds old data.
    pub hot_fraction: f64,
    /// P/E cycles the service left the drive below its throttling curve (negative: above it,
    /// where a drive in heavy service sits with the throttle holding it back).
    pub margin_pe: f64,
}

/// One simulated drive model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub model: &'static str,
    /// Capacity the host sees.
    pub user_bytes: u64,
    /// Over-provisioning α = physical / user capacity.
    pub alpha: f64,
    /// 4 KiB pages per erase block.
    pub pages_per_block: u32,
    /// The flash's page size in 4 KiB pages: what one NAND read returns. Garbage collection
    /// reads a victim's live data a NAND page at a time (see [`super::ftl::Ftl::set_read_page`]).
    pub read_page: u32,
    pub channels: u32,
    /// Dies (planes working in parallel) across all channels: the flash of this capacity in
    /// dies of the family's density.
    pub dies: u32,
    /// The most dies the controller keeps working at once (its channels × chip enables and
    /// write buffers): a model with more flash runs no more in parallel (0: no limit). See
    /// [`Preset::parallel_dies`].
    pub max_dies: u32,
    pub read_us: f64,
    /// Controller time after a NAND read before its data goes out (ECC decoding), in µs: part
    /// of a read's latency, spent while the die already reads the next page, so it lowers
    /// queue-depth-1 reads and not the dies' read rate.
    pub decode_us: f64,
    pub program_us: f64,
    pub erase_us: f64,
    /// Rated program/erase cycles of the flash: blocks wear out around it (0: never), program
    /// and erase slow down and reads need retries as the drive nears it.
    pub endurance_pe: f64,
    /// Channel transfer time per 4 KiB.
    pub transfer_us: f64,
    /// Controller limit in aligned 4 KiB commands per second.
    pub controller_iops: f64,
    /// Controller time of one page relocated by garbage collection, in aligned commands: the
    /// firmware issues its read and program and updates the mapping, time the host's commands
    /// then do not get (0: collection is done by hardware beside the controller's commands).
    pub gc_command_cost: f64,
    /// Controller cost of a read relative to an aligned write (SandForce: a write is one
    /// compressed command, a read is decompressed and checked through the same engine).
    pub read_cost: f64,
    /// Controller cost of an unaligned write relative to an aligned one.
    pub unaligned_cost: f64,
    /// Further controller cost (relative to an aligned write) of a write smaller than a page
    /// whose data does not compress: the controller merges it into the old page and pushes the
    /// whole merged page through its compression engine.
    pub subpage_incompressible_cost: f64,
    /// Host link bandwidth in bytes per second.
    pub link_bytes_per_s: f64,
    /// Link time per command beyond its bytes (command, status and setup frames; doorbells and
    /// completions on NVMe), in µs: the link carries `commands × this + bytes / bandwidth`.
    pub link_command_us: f64,
    /// Host-protocol latency per command in µs (driver, interrupt, AHCI or NVMe queue
    /// handling): part of every I/O's latency as the host sees it, spent by no resource of the
    /// drive, so it matters at low queue depth only.
    pub host_us: f64,
    /// The controller reads ahead: a read that continues the previous one is served from the
    /// read-ahead buffer (its NAND work still counts, its latency is the controller's alone).
    pub readahead: bool,
    /// Time to acknowledge a write into the write cache.
    pub ack_us: f64,
    /// The latency tail of the media and controller (retries, wear-levelling moves, internal
    /// housekeeping): the extra wait of a command at the 99th and the 99.999th percentile, in
    /// µs, a power law through the two drawn from the command's sequence number and the seed
    /// (see [`super::contention::tail_wait`]; 0: no tail beyond garbage collection's).
    pub tail_us: [f64; 2],
    /// Page types of a cell (MLC 2, TLC 3; 1: all alike): their read and program times spread
    /// evenly over ± `page_spread` of the mean (see [`super::contention::page_factor`]).
    pub page_types: u32,
    pub page_spread: f64,
    /// Write cache capacity in bytes (unflushed writes a power cut can lose).
    pub cache_bytes: u64,
    /// Default `cache=` mode.
    pub cache: super::CacheMode,
    /// DuraWrite-like compression and deduplication.
    pub compression: bool,
    /// Fraction of trimmed incompressible pages whose flash a TRIM leaves allocated until the
    /// page is rewritten or the drive secure erased (SandForce: TRIM after an incompressible
    /// fill restores only part of the speed). 0: TRIM frees what it names.
    pub trim_keeps_incompressible: f64,
    pub throttle: Option<Throttle>,
    pub slc: Option<SlcCache>,
    pub gc: GcSchedule,
    pub service: Service,
    /// Default `aged=`.
    pub aged: Duration,
    /// Default `scale=`.
    pub scale: u32,
}

/// humantime's month (30.44 days), so the default prints as `4months`.
const MONTH: u64 = 2_630_016;

/// Client NVMe 1 TB, fitted to Samsung's 970 EVO Plus 1 TB; the 500 GB drive of the family
/// differs only in its dies, cache and GC burst.
const NVME_TLC_1T: Preset = Preset {
    name: "nvme-tlc-1t",
    description: "consumer NVMe 1 TB, TLC behind a 40 GB SLC write cache: fast until the cache fills, then a cliff",
    model: "Generic 1TB TLC NVMe (simulated)",
    user_bytes: 1_000_000_000_000,
    alpha: 1.0995,
    pages_per_block: 512,
    read_page: 4,
    channels: 8,
    dies: 32,
    // The controller runs 32 dies at once (8 channels × 4): the 2 TB model (32 dies of
    // 512 Gbit) is no faster (970 EVO Plus: 1 750 MB/s after its cache, 420 000 random
    // writes, against 1 700 / 400 000 at 1 TB).
    max_dies: 32,
    // The dies read at the family's QD32 random read rates, which scale with them (970 EVO
    // Plus: 250 000 / 480 000 IOPS from 8 / 16 dies: 32 µs a read); the rest of the 1 TB
    // model's QD1 read (19 000 IOPS, about 53 µs with the protocol, link and controller)
    // is decoding in the controller.
    read_us: 32.0,
    decode_us: 8.0,
    // Fitted to the family's post-cache sequential writes, which scale with the dies
    // (970 EVO Plus: 400 / 900 / 1 700 MB/s from 8 / 16 / 32 dies of 256 Gbit, about
    // 53 MB/s a die: four-plane one-shot TLC programming).
    program_us: 77.0,
    erase_us: 5000.0,
    endurance_pe: 1500.0,
    transfer_us: 5.0,
    controller_iops: 600_000.0,
    gc_command_cost: 0.0,
    read_cost: 1.0,
    unaligned_cost: 1.2,
    subpage_incompressible_cost: 0.0,
    link_bytes_per_s: 3.5e9,
    link_command_us: 0.5,
    host_us: 5.0,
    readahead: true,
    ack_us: 8.0,
    tail_us: [0.0; 2],
    page_types: 3,
    page_spread: 0.25,
    cache_bytes: 256 << 20,
    cache: super::CacheMode::Volatile,
    compression: false,
    trim_keeps_incompressible: 0.0,
    throttle: None,
    slc: Some(SlcCache {
        bytes: 40_000_000_000,
        static_bytes: 6_000_000_000,
        // Four-plane SLC programming: the 250 GB model's 8 dies write 2 300 MB/s into the
        // cache (the 1 TB model's 32 are held to 3 300 by the link and controller).
        program_us: 14.2,
        // 970 EVO Plus 2 TB: 78 GB, the family's largest.
        family_max_bytes: 78_000_000_000,
        dynamic_min_free: 0.0,
    }),
    gc: GcSchedule {
        // Client NVMe firmware lets the free pool run down and then collects hard: a burst of
        // 1 024 blocks holds the host long enough that 1-second IOPS swing ± 30–40 % as
        // AnandTech's and Tom's Hardware's consistency plots of client TLC drives do (p5 / p95
        // 0.62 / 1.30 × the median, `scripts/sim-scatter-shape.sh`); 2 048 swing wider but
        // leave a drive idle 5 s no faster than in steady state (`tests/sim_idle_recovery.rs`).
        burst_blocks: 1024,
        burstiness: 0.9,
        interleaved: false,
        pacing: GcPacing::Watermarks,
        cost_benefit: false,
        hot_window: 0.0,
        suspend_us: 0.0,
        suspend_cost: 0.0,
    },
    service: Service {
        hot_fraction: 0.3,
        margin_pe: 0.0,
    },
    aged: Duration::ZERO,
    scale: 16,
};

/// Samsung 970 EVO Plus 500 GB: 16 dies of the 1 TB model's kind, 22 GB of SLC cache (4 GB
/// static), 3 200 MB/s into it and 900 MB/s after it (Samsung's data sheet, [DIG] and [970D]
/// in docs/simulator-presets.md and docs/development.md).
const NVME_TLC_500G: Preset = Preset {
    name: "nvme-tlc-500g",
    description: "consumer NVMe 500 GB of the 1 TB model's family (Samsung 970 EVO Plus 500 GB class): 16 dies, 22 GB SLC cache, about 0.9 GB/s after it",
    model: "Generic 500GB TLC NVMe (simulated)",
    user_bytes: 500_000_000_000,
    dies: 16,
    slc: Some(SlcCache {
        bytes: 22_000_000_000,
        static_bytes: 4_000_000_000,
        program_us: 14.2,
        family_max_bytes: 78_000_000_000,
        dynamic_min_free: 0.0,
    }),
    gc: GcSchedule {
        burst_blocks: 512,
        ..NVME_TLC_1T.gc
    },
    ..NVME_TLC_1T
};

/// Client SATA 1 TB, fitted to Samsung's 860 EVO 1 TB (and 870 EVO where noted).
const SATA_TLC_1T: Preset = Preset {
    name: "sata-tlc-1t",
    description: "client SATA SSD 1 TB, 3D TLC behind a 6 GB static plus 36 GB dynamic SLC cache (Samsung 860 / 870 EVO class), about 450 MB/s after it; the dynamic part only while the drive has room for it",
    model: "Generic 1TB TLC SATA SSD (simulated)",
    user_bytes: 1_000_000_000_000,
    alpha: 1.0995,
    pages_per_block: 512,
    read_page: 4,
    channels: 8,
    dies: 32,
    // The family's post-cache writes stop growing with its capacity: about 440 MB/s at 1 TB
    // (PCWorld: 450 GB in 1 012 s, the cache's 42 GB at 530 MB/s) and 400 MB/s at 4 TB
    // (TechPowerUp), against 300 MB/s from the 250 GB model's 8 dies. The controller keeps
    // 12 dies programming at once (8 channels, 1.5 dies each), 451 MB/s of TLC; fitted to
    // [PCW870] in docs/simulator-presets.md, the 4 TB's figure a check.
    max_dies: 12,
    // Between the 860 EVO's QD1 figures (10 000 / 42 000 IOPS) and the 870 EVO's (13 000 /
    // 36 000), within 15 % of both.
    read_us: 58.0,
    decode_us: 0.0,
    program_us: 109.0,
    erase_us: 5000.0,
    endurance_pe: 1500.0,
    transfer_us: 8.0,
    controller_iops: 98_000.0,
    gc_command_cost: 0.0,
    read_cost: 1.0,
    unaligned_cost: 1.2,
    subpage_incompressible_cost: 0.0,
    link_bytes_per_s: 550e6,
    link_command_us: 2.5,
    host_us: 2.0,
    readahead: true,
    ack_us: 3.5,
    tail_us: [0.0; 2],
    page_types: 3,
    page_spread: 0.25,
    cache_bytes: 64 << 20,
    cache: super::CacheMode::Volatile,
    compression: false,
    trim_keeps_incompressible: 0.0,
    throttle: None,
    slc: Some(SlcCache {
        bytes: 42_000_000_000,
        static_bytes: 6_000_000_000,
        program_us: 40.0,
        // The 870 EVO 4 TB, measured from empty: 480 MB/s for 24 GB, then 400 MB/s to full
        // (TechPowerUp, [TPU870] in docs/simulator-presets.md). Samsung's sheets (and
        // KitGuru's 860 EVO 4 TB review, quoting them) give 6 + 72 GB; the measured fill is
        // the figure a fill of the model should show.
        family_max_bytes: 24_000_000_000,
        // The 36 GB dynamic part runs free TLC as SLC: it needs three times its size
        // free (108 GB of 1 TB) and is there, whole, only while that much is free.
        dynamic_min_free: 0.108,
    }),
    gc: GcSchedule {
        burst_blocks: 256,
        // Samsung's SATA drives hold a band in steady state, no stalls: AnandTech's
        // 1-second consistency runs of the 850 EVO show 5 000–8 000 IOPS (review 8747), 0.77–
        // 1.23 × its middle; these bursts give 0.80 / 1.19 × at p5 / p95 on the 250 GB model.
        burstiness: 0.5,
        interleaved: false,
        pacing: GcPacing::Watermarks,
        cost_benefit: true,
        hot_window: 0.0,
        suspend_us: 0.0,
        suspend_cost: 0.0,
    },
    service: Service {
        hot_fraction: 0.3,
        margin_pe: 0.0,
    },
    aged: Duration::ZERO,
    scale: 16,
};

/// Samsung 860 EVO 250 GB: the SATA TLC drive that drops after its cache. A quarter of the
/// 1 TB model's dies (8), so 300 MB/s once its 12 GB Intelligent TurboWrite region (3 GB
/// static, 9 GB dynamic) is full, against 520 MB/s into it (Samsung's figures, [MYCE] in
/// docs/simulator-presets.md).
const SATA_TLC_250G: Preset = Preset {
    name: "sata-tlc-250g",
    description: "client SATA SSD 250 GB of the 1 TB model's family (Samsung 860 EVO 250 GB class): 8 dies behind a 3 GB static plus 9 GB dynamic SLC cache, about 300 MB/s after it",
    model: "Generic 250GB TLC SATA SSD (simulated)",
    user_bytes: 250_000_000_000,
    dies: 8,
    slc: Some(SlcCache {
        bytes: 12_000_000_000,
        static_bytes: 3_000_000_000,
        program_us: 40.0,
        family_max_bytes: 78_000_000_000,
        dynamic_min_free: 0.108,
    }),
    gc: GcSchedule {
        burst_blocks: 64,
        ..SATA_TLC_1T.gc
    },
    ..SATA_TLC_1T
};

/// Every preset, in the order `ssdfade sim list` prints them.
pub const PRESETS: [Preset; 8] = [
    Preset {
        name: "vertex2-60g",
        description: "OCZ Vertex 2 60 GB as pulled from 4 months of ZIL service (SF-1200, 34 nm MLC, compression and lifetime throttling)",
        model: "OCZ Vertex 2 60GB (simulated SF-1200)",
        user_bytes: 60_000_000_000,
        alpha: 1.145,
        pages_per_block: 256,
        read_page: 1,
        channels: 8,
        dies: 16,
        max_dies: 0,
        read_us: 50.0,
        decode_us: 0.0,
        program_us: 450.0,
        erase_us: 3000.0,
        endurance_pe: 5000.0,
        transfer_us: 80.0,
        controller_iops: 40_000.0,
        gc_command_cost: 0.0,
        // SandForce reads are not compressed-write commands: ~25 000 random reads at QD32
        // against 40 000 compressible writes (the command limit) is 1.6 commands a read.
        read_cost: 1.6,
        unaligned_cost: 5.71,
        subpage_incompressible_cost: 2.78,
        link_bytes_per_s: 280e6,
        link_command_us: 5.5,
        host_us: 22.0,
        readahead: true,
        ack_us: 100.0,
        tail_us: [0.0; 2],
        page_types: 2,
        page_spread: 0.2,
        cache_bytes: 4 << 20,
        cache: super::CacheMode::Volatile,
        compression: true,
        trim_keeps_incompressible: 0.75,
        throttle: Some(Throttle {
            rated_pe: 5000.0,
            warranty_h: 3.0 * 8760.0,
            credit_h: 0.02 * 3.0 * 8760.0,
            max_pages_per_s: 30_000.0,
            debt_scale_pe: 30.0,
            min_fraction: 0.05,
        }),
        slc: None,
        gc: GcSchedule {
            burst_blocks: 32,
            burstiness: 0.5,
            interleaved: false,
            pacing: GcPacing::Waves,
            cost_benefit: false,
            hot_window: 0.0,
            suspend_us: 0.0,
            suspend_cost: 0.0,
        },
        service: Service {
            hot_fraction: 0.20,
            margin_pe: -28.8,
        },
        aged: Duration::from_secs(4 * MONTH),
        scale: 1,
    },
    NVME_TLC_1T,
    NVME_TLC_500G,
    Preset {
        name: "dc-ssd-400g",
        description: "enterprise SATA SSD 400 GB of the Intel DC S3700 class: HET-MLC, 28% over-provisioning, power-loss protection, flat in steady state",
        model: "Generic 400GB DC SSD (simulated)",
        user_bytes: 400_000_000_000,
        alpha: 1.28,
        pages_per_block: 256,
        read_page: 2,
        channels: 8,
        dies: 64,
        max_dies: 0,
        read_us: 50.0,
        decode_us: 0.0,
        program_us: 328.0,
        erase_us: 3000.0,
        endurance_pe: 30_000.0,
        transfer_us: 56.0,
        controller_iops: 75_000.0,
        gc_command_cost: 0.73,
        read_cost: 1.0,
        unaligned_cost: 1.2,
        subpage_incompressible_cost: 0.0,
        link_bytes_per_s: 525e6,
        link_command_us: 5.5,
        host_us: 22.0,
        readahead: true,
        ack_us: 20.0,
        tail_us: [0.0; 2],
        page_types: 2,
        page_spread: 0.2,
        cache_bytes: 512 << 20,
        cache: super::CacheMode::Plp,
        compression: false,
        trim_keeps_incompressible: 0.0,
        throttle: None,
        slc: None,
        gc: GcSchedule {
            burst_blocks: 512,
            burstiness: 0.12,
            interleaved: true,
            pacing: GcPacing::Continuous,
            // Enterprise firmware keeps hot and cold data apart: skewed writes amplify less
            // than uniform ones.
            cost_benefit: true,
            // It also writes hot and cold data to separate blocks.
            hot_window: 1.0,
            suspend_us: 300.0,
            // A read that suspends a program costs the firmware almost half a command more:
            // fitted to the Intel DC P3700's 70/30 mix, 0.86 of its reads' and writes'
            // harmonic mean (265 000 against 460 000 / 175 000 IOPS).
            suspend_cost: 0.45,
        },
        service: Service {
            hot_fraction: 0.3,
            margin_pe: 0.0,
        },
        aged: Duration::ZERO,
        scale: 8,
    },
    Preset {
        name: "ram-8g",
        description: "RAM-based log device 8 GiB (DDRdrive-class, battery/flash backed): no fade",
        model: "RAM log device 8GiB (simulated)",
        user_bytes: 8 << 30,
        alpha: 2.0,
        pages_per_block: 64,
        read_page: 1,
        channels: 8,
        dies: 64,
        max_dies: 0,
        read_us: 1.0,
        decode_us: 0.0,
        program_us: 1.0,
        erase_us: 0.0,
        endurance_pe: 0.0,
        transfer_us: 0.5,
        controller_iops: 300_000.0,
        gc_command_cost: 0.0,
        read_cost: 1.0,
        unaligned_cost: 1.0,
        subpage_incompressible_cost: 0.0,
        link_bytes_per_s: 2.0e9,
        link_command_us: 0.0,
        host_us: 0.0,
        readahead: false,
        ack_us: 3.0,
        tail_us: [0.0; 2],
        page_types: 1,
        page_spread: 0.0,
        cache_bytes: 0,
        cache: super::CacheMode::Plp,
        compression: false,
        trim_keeps_incompressible: 0.0,
        throttle: None,
        slc: None,
        gc: GcSchedule {
            burst_blocks: 64,
            burstiness: 0.0,
            interleaved: true,
            pacing: GcPacing::Continuous,
            cost_benefit: false,
            hot_window: 0.0,
            suspend_us: 0.0,
            suspend_cost: 0.0,
        },
        service: Service {
            hot_fraction: 0.3,
            margin_pe: 0.0,
        },
        aged: Duration::ZERO,
        scale: 1,
    },
    Preset {
        name: "optane-375g",
        description: "Optane-class log device 375 GB (Intel Optane SSD DC P4800X class, 3D XPoint, NVMe): write in place, µs latencies, power-loss protection, no fade",
        model: "Generic 375GB Optane-class SSD (simulated)",
        user_bytes: 375_000_000_000,
        // Write in place: no erase blocks to collect. Modelled as a large spare area with
        // nothing to erase, so the collection is 2 % of the writes and never binds.
        alpha: 4.0,
        pages_per_block: 64,
        read_page: 1,
        channels: 7,
        dies: 28,
        max_dies: 28,
        read_us: 0.9,
        decode_us: 0.0,
        program_us: 55.0,
        erase_us: 0.0,
        endurance_pe: 0.0,
        transfer_us: 2.0,
        controller_iops: 500_000.0,
        gc_command_cost: 0.0,
        read_cost: 0.91,
        unaligned_cost: 1.0,
        subpage_incompressible_cost: 0.0,
        link_bytes_per_s: 2.5e9,
        link_command_us: 0.2,
        host_us: 2.0,
        readahead: false,
        ack_us: 2.0,
        // P4800X QoS: QD1 4 KiB reads at 8.9 µs mean, 10 µs at the 99th percentile and 37 µs
        // at the 99.999th measured (AnandTech 11209; Intel's bound < 60 µs): 1.4 and 28.4 µs
        // above the 8.6 µs of a read without the tail.
        tail_us: [1.4, 28.4],
        page_types: 1,
        page_spread: 0.0,
        cache_bytes: 0,
        cache: super::CacheMode::Plp,
        compression: false,
        trim_keeps_incompressible: 0.0,
        throttle: None,
        slc: None,
        gc: GcSchedule {
            burst_blocks: 64,
            burstiness: 0.0,
            interleaved: true,
            pacing: GcPacing::Continuous,
            cost_benefit: false,
            hot_window: 0.0,
            suspend_us: 0.0,
            suspend_cost: 0.0,
        },
        service: Service {
            hot_fraction: 0.3,
            margin_pe: 0.0,
        },
        aged: Duration::ZERO,
        scale: 16,
    },
    SATA_TLC_1T,
    SATA_TLC_250G,
];

impl Preset {
    /// The dies the model runs in parallel: all of them, up to the controller's `max_dies`.
    pub fn parallel_dies(&self) -> u32 {
        if self.max_dies > 0 {
            self.dies.min(self.max_dies)
        } else {
            self.dies
        }
    }

    /// The same drive family at `user_bytes` (`capacity=`): the dies scale with the capacity
    /// as the family's lines do (dies of the same density and speed, at least one on each
    /// channel: smaller models use smaller dies), and the controller still runs at most
    /// `max_dies` of them at once. The SLC cache's dynamic part and the GC burst scale with
    /// the capacity (the cache's static part with its square root; above the preset's
    /// capacity the whole cache at most `family_max_bytes`); timing per die, controller and
    /// link stay. Over-provisioning and the block size stay, so the blocks scale too.
    pub fn with_capacity(&self, user_bytes: u64) -> Preset {
        let f = user_bytes as f64 / self.user_bytes as f64;
        let dies = ((f64::from(self.dies) * f).round() as u32).max(self.channels);
        Preset {
            user_bytes,
            dies,
            // The dynamic part scales with the capacity, the static part with its square root
            // (Samsung's TurboWrite: 3 / 4 / 6 GB static at 250 / 500 / 1 000 GB).
            slc: self.slc.map(|s| {
                let cap = if s.family_max_bytes > 0 {
                    s.family_max_bytes as f64
                } else {
                    f64::INFINITY
                };
                let static_bytes = (s.static_bytes as f64 * f.sqrt()).min(cap);
                let dynamic = (s.bytes - s.static_bytes) as f64 * f;
                let bytes = if f > 1.0 {
                    (static_bytes + dynamic).min(cap)
                } else {
                    static_bytes + dynamic
                };
                SlcCache {
                    bytes: bytes as u64,
                    static_bytes: static_bytes as u64,
                    // An all-or-nothing dynamic part needs room for what it is at this
                    // capacity, not for what it would be without the family's cap.
                    dynamic_min_free: if dynamic > 0.0 {
                        s.dynamic_min_free * (bytes - static_bytes) / dynamic
                    } else {
                        s.dynamic_min_free
                    },
                    ..s
                }
            }),
            gc: GcSchedule {
                burst_blocks: ((f64::from(self.gc.burst_blocks) * f).round() as u32).max(1),
                ..self.gc
            },
            ..*self
        }
    }
}

/// The preset called `name`.
pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::find;

    /// The largest capacities of a family run no more dies than its controller and keep its
    /// cache of its larger models: the 970 EVO Plus 2 TB runs 32 dies (1 750 MB/s after its
    /// cache, not twice the 1 TB's), the 870 EVO 4 TB fills a 24 GB cache (TechPowerUp's
    /// measurement, not the rule's 156 GB) while the 1 TB keeps its 42 GB; the 870 EVO writes
    /// about 440 MB/s after its cache at 1 TB and 400 at 4 TB, 300 at 250 GB.
    #[test]
    fn the_largest_capacities_keep_the_family_s_dies_and_cache() {
        let nvme = find("nvme-tlc-1t").unwrap();
        assert_eq!(nvme.with_capacity(2_000_000_000_000).parallel_dies(), 32);
        assert_eq!(nvme.with_capacity(250_000_000_000).parallel_dies(), 8);
        let sata = find("sata-tlc-1t").unwrap();
        assert_eq!(sata.parallel_dies(), 12);
        assert_eq!(sata.with_capacity(4_000_000_000_000).parallel_dies(), 12);
        assert_eq!(sata.with_capacity(250_000_000_000).parallel_dies(), 8);
        let slc = |bytes: u64| sata.with_capacity(bytes).slc.unwrap();
        assert_eq!(slc(4_000_000_000_000).bytes, 24_000_000_000);
        assert_eq!(slc(2_000_000_000_000).bytes, 24_000_000_000);
        assert_eq!(slc(1_000_000_000_000), sata.slc.unwrap());
        assert_eq!(sata.slc.unwrap().bytes, 42_000_000_000);
        // The static part at 4 TB is 6 GB × √4 = 12 GB; the capped dynamic part (the other
        // 12 GB) needs three times its size free: 36 GB of 4 TB.
        let four = slc(4_000_000_000_000);
        assert_eq!(four.static_bytes, 12_000_000_000);
        let need = four.dynamic_min_free * 4e12;
        assert!((need / 3.0 - 12e9).abs() < 0.1e9, "{need}");
    }

    /// The named smaller drives are their family's capacity points: the same die, controller,
    /// link and pacing as `capacity=` gives them, with the vendor's cache size where the
    /// scaling rule's differs (970 EVO Plus 500 GB: 22 GB against the rule's 21.2).
    #[test]
    fn the_smaller_drives_are_their_family_s_capacity_points() {
        for (small, big) in [
            ("nvme-tlc-500g", "nvme-tlc-1t"),
            ("sata-tlc-250g", "sata-tlc-1t"),
        ] {
            let p = *find(small).unwrap();
            let rule = find(big).unwrap().with_capacity(p.user_bytes);
            let (cache, rule_cache) = (p.slc.unwrap(), rule.slc.unwrap());
            let off = cache.bytes as f64 / rule_cache.bytes as f64 - 1.0;
            assert!(off.abs() < 0.05, "{small}: cache {off:+.3} from the rule");
            assert_eq!(cache.program_us, rule_cache.program_us, "{small}");
            let same = super::Preset {
                name: rule.name,
                description: rule.description,
                model: rule.model,
                slc: rule.slc,
                ..p
            };
            assert_eq!(same, rule, "{small} differs from {big} at its capacity");
        }
    }

    /// Smaller models of a line use smaller dies, one on each channel at least: the DC S3700
    /// class at 8 GB keeps its 8 channels busy (it read 73 MB/s from one die), and its 400 GB
    /// model is every die it has (no controller limit set).
    #[test]
    fn small_capacities_keep_a_die_on_every_channel() {
        let dc = find("dc-ssd-400g").unwrap();
        assert_eq!(dc.with_capacity(8_000_000_000).parallel_dies(), 8);
        assert_eq!(dc.with_capacity(8_000_000_000).channels, 8);
        assert_eq!(dc.with_capacity(800_000_000_000).parallel_dies(), 128);
        let v2 = find("vertex2-60g").unwrap();
        assert_eq!(v2.with_capacity(120_000_000_000).dies, 32);
    }
}
