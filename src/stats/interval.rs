//! What one worker (or the whole run) did during one interval: counts, bytes, a latency
//! histogram per direction, and the I/O errors met. Recording never allocates.

use hdrhistogram::Histogram;

/// Latencies above this are clamped in the histogram (the exact maximum is kept apart).
pub const MAX_TRACKED_NS: u64 = 100_000_000_000;
/// At most this many error events are kept per interval; the rest are only counted.
const MAX_ERROR_EVENTS: usize = 16;

/// Read, write or trim (a discard: fio's third direction, counted apart from the other two).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Read,
    Write,
    Trim,
}

/// Counters and latency histogram of one direction.
#[derive(Clone, Debug)]
pub struct DirStats {
    pub ops: u64,
    pub bytes: u64,
    /// Latency in nanoseconds, 3 significant figures.
    pub latency_ns: Histogram<u64>,
    /// Exact largest latency in nanoseconds.
    pub max_ns: u64,
}

impl Default for DirStats {
    fn default() -> Self {
        DirStats {
            ops: 0,
            bytes: 0,
            latency_ns: Histogram::new_with_bounds(1, MAX_TRACKED_NS, 3)
                .expect("valid histogram bounds"),
            max_ns: 0,
        }
    }
}

impl DirStats {
    /// Counts whose latencies are kept elsewhere: the histogram holds a few bytes instead of
    /// the 229 KiB of the full range, and stays empty (see [`IntervalStats::counts_only`]).
    fn counts_only() -> Self {
        DirStats {
            ops: 0,
            bytes: 0,
            latency_ns: Histogram::new(1).expect("valid histogram precision"),
            max_ns: 0,
        }
    }

    /// Counts one completed I/O.
    #[inline]
    pub fn record(&mut self, bytes: u64, latency_ns: u64) {
        self.ops += 1;
        self.bytes += bytes;
        self.latency_ns.saturating_record(latency_ns.max(1));
        self.max_ns = self.max_ns.max(latency_ns);
    }

    /// Counts `count` I/Os of the same latency at once (a simulated I/O standing for several).
    #[inline]
    pub fn record_n(&mut self, count: u64, bytes: u64, latency_ns: u64) {
        if count == 0 {
            return;
        }
        self.ops += count;
        self.bytes += bytes;
        let _ = self
            .latency_ns
            .record_n(latency_ns.clamp(1, MAX_TRACKED_NS), count);
        self.max_ns = self.max_ns.max(latency_ns);
    }

    /// Adds another set of counts to this one.
    pub fn merge(&mut self, other: &DirStats) {
        // Walking an empty histogram costs as much as a full one: skip it.
        if other.ops == 0 {
            return;
        }
        self.ops += other.ops;
        self.bytes += other.bytes;
        self.latency_ns
            .add(&other.latency_ns)
            .expect("histograms share bounds");
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// Empties the counts, keeping the memory.
    pub fn clear(&mut self) {
        if self.ops == 0 {
            return;
        }
        self.ops = 0;
        self.bytes = 0;
        self.latency_ns.reset();
        self.max_ns = 0;
    }
}

/// An I/O that failed: when, where and why.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ErrorEvent {
    /// Seconds since the start of the run, on the engine's clock.
    pub t_s: f64,
    pub op: OpKind,
    pub offset: u64,
    pub errno: i32,
    pub message: String,
}

impl ErrorEvent {
    /// One line for the user: `write error at offset 4096 after 1.2 s: Input/output error`.
    pub fn describe(&self) -> String {
        let op = match self.op {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Trim => "trim",
        };
        format!(
            "{op} error at offset {} after {:.1} s: {}",
            self.offset, self.t_s, self.message
        )
    }
}

/// Everything counted in one interval.
#[derive(Clone, Debug, Default)]
pub struct IntervalStats {
    pub read: DirStats,
    pub write: DirStats,
    /// Trims (discards): kept apart from reads and writes, as fio keeps its trim direction.
    pub trim: DirStats,
    pub errors: u64,
    pub error_events: Vec<ErrorEvent>,
    /// How far behind an issue rate's schedule the I/Os went (empty without a rate).
    pub pacing: super::Pacing,
    /// Seconds of the interval in which ssdfade itself was not running (SIGSTOP, a machine
    /// too busy to schedule it): set by the sampler, not the workers.
    pub stopped_s: f64,
    /// Seconds the machine was suspended during the interval (not on the run's clock): set by
    /// the sampler.
    pub suspended_s: f64,
    /// Bytes the drive programmed into NAND for this interval's I/Os (host data and garbage
    /// collection's copies), where the drive reports it: a simulated drive's model does;
    /// `None` for real drives.
    pub nand_bytes: Option<u64>,
    /// The drive's last telemetry reading in the interval, where the engine reads it itself
    /// (a simulated drive's model); real drives are read by the run's sampler thread.
    pub health: Option<crate::drive::Health>,
}

impl IntervalStats {
    /// A fresh set of counters with room reserved for error events.
    pub fn new() -> Self {
        IntervalStats {
            error_events: Vec::with_capacity(MAX_ERROR_EVENTS),
            ..Default::default()
        }
    }

    /// Counts, bytes and errors without room for latencies: for a real engine's worker, which
    /// ships its latencies as a list for the driver to record into the interval's one
    /// histogram. Its histograms stay empty, so [`IntervalStats::merge`] and
    /// [`IntervalStats::clear`] skip them; allocating and zeroing two full ones per worker
    /// and spare (128 of 229 KiB at QD 32) was 14 % of a short run's user-space instructions
    /// (docs/performance-cpu.md).
    pub fn counts_only() -> Self {
        IntervalStats {
            read: DirStats::counts_only(),
            write: DirStats::counts_only(),
            trim: DirStats::counts_only(),
            errors: 0,
            error_events: Vec::with_capacity(MAX_ERROR_EVENTS),
            pacing: super::Pacing::default(),
            stopped_s: 0.0,
            suspended_s: 0.0,
            nand_bytes: None,
            health: None,
        }
    }

    /// The counters of one direction.
    #[inline]
    pub fn dir_mut(&mut self, op: OpKind) -> &mut DirStats {
        match op {
            OpKind::Read => &mut self.read,
            OpKind::Write => &mut self.write,
            OpKind::Trim => &mut self.trim,
        }
    }

    /// Counts a failed I/O, keeping its details while there is room.
    pub fn record_error(&mut self, event: ErrorEvent) {
        self.errors += 1;
        if self.error_events.len() < MAX_ERROR_EVENTS {
            self.error_events.push(event);
        }
    }

    /// Adds another interval's counts to this one.
    pub fn merge(&mut self, other: &IntervalStats) {
        self.read.merge(&other.read);
        self.write.merge(&other.write);
        self.trim.merge(&other.trim);
        self.errors += other.errors;
        self.pacing.merge(&other.pacing);
        self.nand_bytes = match (self.nand_bytes, other.nand_bytes) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        if other.health.is_some() {
            self.health.clone_from(&other.health);
        }
        let room = MAX_ERROR_EVENTS.saturating_sub(self.error_events.len());
        self.error_events
            .extend(other.error_events.iter().take(room).cloned());
    }

    /// Empties the counters, keeping the memory.
    pub fn clear(&mut self) {
        self.read.clear();
        self.write.clear();
        self.trim.clear();
        self.errors = 0;
        self.error_events.clear();
        self.pacing = super::Pacing::default();
        self.stopped_s = 0.0;
        self.suspended_s = 0.0;
        // A drive that reports NAND bytes reports them for every interval, empty ones too.
        self.nand_bytes = self.nand_bytes.map(|_| 0);
        // The health reading is the drive's state, not a count: it stands until the next one.
    }

    /// Reads and writes together (trims are counted apart).
    pub fn ops(&self) -> u64 {
        self.read.ops + self.write.ops
    }
}
