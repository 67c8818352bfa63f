//! The access specification (Iometer's terms, fio's basics) and the stop rule, checked against
//! the target before anything runs.

pub mod bssplit;
pub mod distribution;
pub mod memory;
pub mod precondition;
pub mod verify;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::bad_input;
use crate::pattern::Pattern;
pub use bssplit::BsSplit;
pub use distribution::{Distribution, SpanStart};
pub use precondition::PreconditionSpec;
pub use verify::VerifyOptions;

/// The shortest sample period: below it the clock reads and bookkeeping dominate the interval.
pub const MIN_INTERVAL: Duration = Duration::from_millis(10);

/// The highest `--rate-iops` accepted (a billion would be a typo, not a device).
pub const MAX_RATE_IOPS: u64 = 100_000_000;

/// What to do when an I/O fails.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// End the run (exit 1), keeping every sample.
    Stop,
    /// Count the error and go on.
    Continue,
}

/// The access specification before it meets a target: `None` fields take the target's values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WorkloadSpec {
    pub bs: u64,
    /// Per-I/O sizes (`--bssplit`) in place of `bs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bssplit: Option<BsSplit>,
    /// `None`: the transfer size.
    pub align: Option<u64>,
    pub read_pct: u8,
    /// Percent of I/Os that are trims (discards of `bs` bytes).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub trim_pct: u8,
    pub random_pct: u8,
    /// Outstanding I/Os of each job.
    pub qd: u32,
    /// Submitters (fio's numjobs), each with `qd` I/Os of its own in flight.
    #[serde(default = "one_job", skip_serializing_if = "is_one_job")]
    pub jobs: u32,
    /// `None`: the rest of the target from `offset`.
    pub span: Option<u64>,
    /// Where the span starts.
    #[serde(default)]
    pub offset: SpanStart,
    /// How random offsets spread over the span.
    #[serde(default)]
    pub distribution: Distribution,
    /// `None`: a fresh seed (recorded in run.json).
    pub seed: Option<u64>,
    pub pattern: Pattern,
    pub refill: bool,
    pub on_error: OnError,
    /// `None`: as fast as the device goes (closed loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Every write made durable before the writer's next one; `None`: ordinary I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncWrites>,
    /// Data verification (`--verify`…), if asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyOptions>,
    /// Writes before the workload that bring a purged drive to its random-write steady state.
    #[serde(default, skip_serializing_if = "PreconditionSpec::is_none")]
    pub precondition: PreconditionSpec,
}

/// Sync mode of a workload, what a ZFS intent log does to its device: each of `qd` writers
/// writes and waits until the device says the data is durable before it writes again. The run
/// goes on past its duration until at least `min_writes` writes are done (diskinfo's batch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SyncWrites {
    pub mode: SyncMode,
    #[serde(default)]
    pub min_writes: u64,
}

/// How a write is made durable before the next one starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SyncMode {
    /// pwrite, then fdatasync (a cache flush: what ZFS's ZIL does on Linux).
    Fdatasync,
    /// Each write with O_DSYNC semantics (`pwritev2` with `RWF_DSYNC`: FUA or write + flush).
    Dsync,
}

/// An issue rate per target (fio's `rate_iops` / `rate`): I/O n is due at start + n / rate,
/// whenever the I/Os before it completed (open loop, at most `qd` in flight).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Rate {
    /// I/Os per second.
    Iops(u64),
    /// Bytes per second (I/Os per second = this / the transfer size).
    BytesPerS(u64),
}

impl Rate {
    /// Nanoseconds from the start of the schedule to I/O `n` of `bs` bytes (exact: no drift).
    pub fn due_ns(self, n: u64, bs: u64) -> u64 {
        let (num, den) = match self {
            Rate::Iops(iops) => (1_000_000_000u128, u128::from(iops.max(1))),
            Rate::BytesPerS(b) => (1_000_000_000u128 * u128::from(bs), u128::from(b.max(1))),
        };
        u64::try_from(u128::from(n) * num / den).unwrap_or(u64::MAX)
    }

    /// I/Os per second at `bs` bytes per I/O.
    pub fn iops(self, bs: u64) -> f64 {
        match self {
            Rate::Iops(iops) => iops as f64,
            Rate::BytesPerS(b) => b as f64 / bs.max(1) as f64,
        }
    }
}

/// The command line's defaults (4 KiB random writes at QD 128, random data, stop on an error):
/// code that builds a spec names what differs and takes the rest from here.
impl Default for WorkloadSpec {
    fn default() -> Self {
        WorkloadSpec {
            bs: 4096,
            bssplit: None,
            align: None,
            read_pct: 0,
            trim_pct: 0,
            random_pct: 100,
            qd: 128,
            jobs: 1,
            span: None,
            offset: SpanStart::default(),
            distribution: Distribution::Uniform,
            seed: None,
            pattern: Pattern::Random,
            refill: false,
            on_error: OnError::Stop,
            rate: None,
            sync: None,
            verify: None,
            precondition: PreconditionSpec::None,
        }
    }
}

impl WorkloadSpec {
    /// The workload on a target of `size` bytes with this stop rule and sample period; a seed
    /// not given is a fresh one. Not yet validated against the target.
    pub fn on_target(
        &self,
        size: u64,
        duration: Option<Duration>,
        bytes: Option<u64>,
        interval: Duration,
    ) -> Workload {
        // A split's I/Os take buffers of its largest size and offsets on its smallest's grid.
        let bs = self.bssplit.as_ref().map_or(self.bs, BsSplit::largest);
        let align = (self.align)
            .or(self.bssplit.as_ref().map(BsSplit::smallest))
            .unwrap_or(bs);
        let offset = self.offset.bytes(size, align);
        Workload {
            bs,
            bssplit: self.bssplit.clone(),
            align,
            read_pct: self.read_pct,
            trim_pct: self.trim_pct,
            random_pct: self.random_pct,
            qd: self.qd,
            jobs: self.jobs,
            span: self.span.unwrap_or(size.saturating_sub(offset)),
            offset,
            distribution: self.distribution.clone(),
            duration,
            bytes,
            interval,
            seed: self.seed.unwrap_or_else(fresh_seed),
            pattern: self.pattern,
            refill: self.refill,
            on_error: self.on_error,
            rate: self.rate,
            sync: self.sync,
            verify: self.verify,
            precondition: None,
        }
    }
}

fn is_zero(pct: &u8) -> bool {
    *pct == 0
}

/// A record written before `jobs` existed ran one job.
fn one_job() -> u32 {
    1
}

fn is_one_job(jobs: &u32) -> bool {
    *jobs == 1
}

/// What a heading says before a queue depth: "4 jobs × " when more than one job submits, else
/// nothing ("QD 16" alone is one job's).
pub fn jobs_prefix(jobs: u32) -> String {
    if jobs > 1 {
        format!("{jobs} jobs × ")
    } else {
        String::new()
    }
}

/// A seed drawn from the clock and the process id, for a run or experiment given none.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    crate::pattern::mix64(nanos as u64 ^ u64::from(std::process::id()) << 32)
}

/// One workload, fully resolved against its target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Workload {
    /// Transfer size in bytes (with `bssplit`, its largest size).
    pub bs: u64,
    /// Per-I/O sizes drawn from the run's seeded generator (fio's bssplit); each I/O's offset
    /// is a multiple of its own size. `None`: every I/O is `bs` bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bssplit: Option<BsSplit>,
    /// Offsets are multiples of this (with `bssplit`, its smallest size).
    pub align: u64,
    /// Percent of I/Os that are reads.
    pub read_pct: u8,
    /// Percent of I/Os that are trims (discards of `bs` bytes: BLKDISCARD on a block device,
    /// a punched hole in a file, the simulated drive's TRIM); the rest are writes.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub trim_pct: u8,
    /// Percent of I/Os at a random offset; the rest continue sequentially.
    pub random_pct: u8,
    /// Outstanding I/Os of each job.
    pub qd: u32,
    /// Submitters (fio's numjobs), each with its own `qd` I/Os in flight, its own stream of
    /// offsets and, for sequential I/O, its own slice of the span (see
    /// [`crate::engine::OffsetGen`]); a record without it ran one.
    #[serde(default = "one_job", skip_serializing_if = "is_one_job")]
    pub jobs: u32,
    /// Bytes of the target in use, from `offset`.
    pub span: u64,
    /// First byte of the span.
    #[serde(default)]
    pub offset: u64,
    /// How random offsets spread over the span.
    #[serde(default)]
    pub distribution: Distribution,
    /// Stop after this long.
    #[serde(with = "secs_opt")]
    #[schemars(with = "Option<f64>")]
    pub duration: Option<Duration>,
    /// Stop after this many bytes transferred.
    pub bytes: Option<u64>,
    /// Sample period.
    #[serde(with = "secs")]
    #[schemars(with = "f64")]
    pub interval: Duration,
    pub seed: u64,
    pub pattern: Pattern,
    /// Fresh ChaCha data for every write instead of the keyed pool.
    pub refill: bool,
    pub on_error: OnError,
    /// Issue rate; `None`: closed loop, as fast as the target goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Every write made durable before the writer's next one (the SLOG test's points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncWrites>,
    /// Data verification (`--verify`…), if asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyOptions>,
    /// Fast preconditioning written before the workload (its bytes count in the run's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precondition: Option<precondition::Fast>,
}

/// The defaults of [`WorkloadSpec`] on an empty target (span 0: set it), one-second intervals,
/// seed 0 and no stop rule: code that builds a workload names what differs.
impl Default for Workload {
    fn default() -> Self {
        let spec = WorkloadSpec::default();
        Workload {
            bs: spec.bs,
            bssplit: None,
            align: spec.bs,
            read_pct: spec.read_pct,
            trim_pct: spec.trim_pct,
            random_pct: spec.random_pct,
            qd: spec.qd,
            jobs: spec.jobs,
            span: 0,
            offset: 0,
            distribution: spec.distribution,
            duration: None,
            bytes: None,
            interval: Duration::from_secs(1),
            seed: 0,
            pattern: spec.pattern,
            refill: spec.refill,
            on_error: spec.on_error,
            rate: spec.rate,
            sync: spec.sync,
            verify: spec.verify,
            precondition: None,
        }
    }
}

impl Workload {
    /// I/Os in flight in all: every job's queue depth.
    pub fn outstanding(&self) -> u32 {
        self.jobs.saturating_mul(self.qd)
    }

    /// Checks the workload against a target's size and block size.
    pub fn validate(&self, target_size: u64, logical_block: u32) -> anyhow::Result<()> {
        let lb = u64::from(logical_block.max(1));
        self.validate_bssplit(lb)?;
        if self.bs == 0 || !self.bs.is_multiple_of(lb) {
            bad_input!(
                "--bs {} is not a multiple of the target's logical block size {lb}: use a multiple such as {}",
                self.bs,
                lb.max(4096)
            );
        }
        if self.align < lb || !self.align.is_multiple_of(lb) {
            bad_input!(
                "--align {} is below or not a multiple of the target's logical block size {lb}: O_DIRECT needs at least {lb}",
                self.align
            );
        }
        if self.read_pct > 100 || self.random_pct > 100 {
            bad_input!("--read-pct and --random-pct are percentages from 0 to 100");
        }
        if u16::from(self.read_pct) + u16::from(self.trim_pct) > 100 {
            bad_input!(
                "--read-pct {} plus --trim-pct {} is over 100: the two shares together are at most 100 % of the I/Os (the rest are writes)",
                self.read_pct,
                self.trim_pct
            );
        }
        if self.trim_pct > 0 && self.verify.is_some() {
            bad_input!(
                "--trim-pct with --verify: a trimmed block holds no data to check; drop one of them"
            );
        }
        if self.random_pct == 0 && self.distribution != Distribution::Uniform {
            bad_input!(
                "--distribution {} with --random-pct 0: every I/O is sequential, so no offset is drawn from it; drop --distribution or raise --random-pct",
                self.distribution
            );
        }
        if self.qd == 0 || self.qd > 4096 {
            bad_input!(
                "--qd {} is out of range: use 1 to 4096 outstanding I/Os",
                self.qd
            );
        }
        if self.jobs == 0 || u64::from(self.jobs) * u64::from(self.qd) > 4096 {
            bad_input!(
                "--jobs {} at --qd {} is out of range: use at least one job and at most 4096 outstanding I/Os in all (jobs × QD)",
                self.jobs,
                self.qd
            );
        }
        if self.jobs > 1 && self.random_pct < 100 && self.span / u64::from(self.jobs) < self.bs {
            bad_input!(
                "--jobs {}: each job's sequential slice of the span ({} B of --span {}) is smaller than one transfer of {} B: give fewer jobs or a larger span",
                self.jobs,
                self.span / u64::from(self.jobs),
                self.span,
                self.bs
            );
        }
        if !self.offset.is_multiple_of(self.align) {
            bad_input!(
                "--offset {} is not a multiple of the offset alignment {} B (--align, default the transfer size): use e.g. --offset {}",
                self.offset,
                self.align,
                self.offset / self.align * self.align
            );
        }
        if self.offset >= target_size {
            bad_input!(
                "--offset {} is at or beyond the end of the target ({} bytes): give a smaller offset",
                self.offset,
                target_size
            );
        }
        if self.offset > 0 && self.offset.saturating_add(self.span) > target_size {
            bad_input!(
                "--offset {} plus --span {} ends beyond the target ({} bytes): give at most --span {}",
                self.offset,
                self.span,
                target_size,
                target_size - self.offset
            );
        }
        if self.span > target_size {
            bad_input!(
                "--span {} is larger than the target ({} bytes): use at most the target's size",
                self.span,
                target_size
            );
        }
        if self.span < self.bs {
            bad_input!(
                "--span {} is smaller than one transfer of --bs {}",
                self.span,
                self.bs
            );
        }
        if self.duration.is_none() && self.bytes.is_none() {
            bad_input!("no stop rule: give --duration, --bytes or both");
        }
        crate::units::check_transfer(self.bs)?;
        if self.duration.is_some_and(|d| d.is_zero()) {
            bad_input!("--duration must be longer than zero");
        }
        if self.bytes == Some(0) {
            bad_input!("--bytes must be larger than zero");
        }
        if let Some(bytes) = self.bytes.filter(|&b| b < self.bs) {
            bad_input!(
                "--bytes {bytes} is smaller than one transfer of --bs {}: give at least {} bytes",
                self.bs,
                self.bs
            );
        }
        if self.interval < MIN_INTERVAL {
            bad_input!(
                "--interval {} is shorter than {} ms: sample at least 10 ms apart (e.g. --interval 1s)",
                humantime::format_duration(self.interval),
                MIN_INTERVAL.as_millis()
            );
        }
        if let Some(duration) = self.duration.filter(|&d| self.interval > d) {
            bad_input!(
                "--interval {} is longer than --duration {}: give an interval at most as long as the run",
                humantime::format_duration(self.interval),
                humantime::format_duration(duration)
            );
        }
        self.validate_rate()?;
        self.validate_verify()?;
        Ok(())
    }

    /// Checks `--bssplit` against the target's logical block and the options that need one
    /// transfer size.
    fn validate_bssplit(&self, lb: u64) -> anyhow::Result<()> {
        let Some(split) = &self.bssplit else {
            return Ok(());
        };
        if let Some(s) = split.shares().iter().find(|s| !s.size.is_multiple_of(lb)) {
            bad_input!(
                "--bssplit size {} is not a multiple of the target's logical block size {lb}: O_DIRECT moves whole blocks; give sizes of {lb} bytes or multiples",
                s.size
            );
        }
        if self.verify.is_some() {
            bad_input!(
                "--bssplit with --verify: verified blocks are all one size; give --bs instead"
            );
        }
        if matches!(self.rate, Some(Rate::BytesPerS(_))) {
            bad_input!(
                "--rate in bytes per second with --bssplit: the schedule needs one transfer size; give --rate-iops"
            );
        }
        if self.precondition.is_some() || self.sync.is_some() {
            bad_input!(
                "--bssplit with --precondition or sync writes: both write one transfer size; give --bs"
            );
        }
        Ok(())
    }

    /// Checks `--rate-iops` / `--rate` against the transfer size and the byte budget.
    fn validate_rate(&self) -> anyhow::Result<()> {
        match self.rate {
            None => {}
            Some(Rate::Iops(0)) => {
                bad_input!("--rate-iops 0 issues nothing: give a rate of at least 1 I/O per second")
            }
            Some(Rate::BytesPerS(b)) if b < self.bs => bad_input!(
                "--rate {b} bytes/s is less than one --bs {} transfer per second: give at least {}",
                self.bs,
                self.bs
            ),
            Some(Rate::Iops(n)) if n > MAX_RATE_IOPS => bad_input!(
                "--rate-iops {n} is above {MAX_RATE_IOPS}: no device here goes that fast; leave the rate out to run flat out"
            ),
            Some(_) => {}
        }
        Ok(())
    }

    /// Number of distinct offsets a transfer can start at.
    pub fn positions(&self) -> u64 {
        (self.span - self.bs) / self.align + 1
    }
}

mod secs {
    use std::time::Duration;

    /// A time read from a record: a negative, infinite or huge one is an error like a type
    /// error, not a panic.
    pub fn seconds<E: serde::de::Error>(v: f64) -> Result<Duration, E> {
        const MAX: f64 = crate::units::MAX_DURATION.as_secs_f64();
        if v.is_finite() && (0.0..=MAX).contains(&v) {
            Ok(Duration::from_secs_f64(v))
        } else {
            Err(E::custom(format!(
                "{v} is not a number of seconds from 0 to {MAX}"
            )))
        }
    }

    pub fn serialize<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let v: f64 = serde::Deserialize::deserialize(d)?;
        seconds(v)
    }
}

mod secs_opt {
    use std::time::Duration;
    pub fn serialize<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&d.as_secs_f64()),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Duration>, D::Error> {
        let v: Option<f64> = serde::Deserialize::deserialize(d)?;
        v.map(super::secs::seconds).transpose()
    }
}

/// The real engines a user can choose with `--engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineKind {
    /// One thread per outstanding I/O, synchronous pread/pwrite (fio psync, numjobs = QD).
    Threads,
    /// One thread keeping QD I/Os in flight through io_uring (fio io_uring, iodepth = QD).
    Uring,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload() -> Workload {
        Workload {
            bs: 4096,
            align: 4096,
            read_pct: 0,
            random_pct: 100,
            qd: 1,
            span: 1 << 20,
            duration: Some(Duration::from_secs(10)),
            bytes: None,
            interval: Duration::from_secs(1),
            seed: 1,
            pattern: Pattern::Random,
            ..Default::default()
        }
    }

    fn refusal(w: &Workload) -> String {
        let err = w.validate(1 << 30, 512).unwrap_err();
        assert_eq!(crate::error::exit_code(&err), 2, "{err}");
        err.to_string()
    }

    #[test]
    fn stop_rules_and_intervals_out_of_range_are_refused() {
        assert!(workload().validate(1 << 30, 512).is_ok());
        let mut w = workload();
        w.duration = Some(Duration::ZERO);
        assert!(refusal(&w).contains("--duration must be longer than zero"));
        let mut w = workload();
        w.bytes = Some(0);
        assert!(refusal(&w).contains("--bytes must be larger than zero"));
        let mut w = workload();
        w.interval = Duration::from_millis(9);
        assert!(refusal(&w).contains("--interval 9ms is shorter than 10 ms"));
        w.interval = MIN_INTERVAL;
        assert!(w.validate(1 << 30, 512).is_ok());
        let mut w = workload();
        w.interval = Duration::from_secs(11);
        assert!(refusal(&w).contains("longer than --duration 10s"));
        w.duration = None;
        w.bytes = Some(1 << 20);
        assert!(
            w.validate(1 << 30, 512).is_ok(),
            "no duration: any interval"
        );
    }

    #[test]
    fn trim_shares_over_the_rest_or_with_verification_are_refused() {
        let mut w = workload();
        w.read_pct = 70;
        w.trim_pct = 31;
        assert!(refusal(&w).contains("--read-pct 70 plus --trim-pct 31 is over 100"));
        w.trim_pct = 30;
        assert!(w.validate(1 << 30, 512).is_ok());
        w.verify = Some(VerifyOptions::default());
        assert!(refusal(&w).contains("--trim-pct with --verify"));
    }

    #[test]
    fn rates_that_issue_nothing_are_refused() {
        let mut w = workload();
        w.rate = Some(Rate::Iops(0));
        assert!(refusal(&w).contains("--rate-iops 0 issues nothing"));
        w.rate = Some(Rate::BytesPerS(4095));
        assert!(refusal(&w).contains("less than one --bs 4096 transfer per second"));
        w.rate = Some(Rate::BytesPerS(4096));
        assert!(w.validate(1 << 30, 512).is_ok());
        w.bytes = Some(4095);
        assert!(refusal(&w).contains("--bytes 4095 is smaller than one transfer of --bs 4096"));
        w.rate = Some(Rate::Iops(MAX_RATE_IOPS + 1));
        w.bytes = None;
        assert!(refusal(&w).contains("is above"));
    }

    #[test]
    fn the_schedule_is_exact_at_any_distance() {
        assert_eq!(Rate::Iops(3).due_ns(1, 4096), 333_333_333);
        assert_eq!(
            Rate::Iops(3).due_ns(3_000_000_000, 4096),
            1_000_000_000_000_000_000
        );
        assert_eq!(Rate::BytesPerS(8192).due_ns(5, 4096), 2_500_000_000);
    }

    #[test]
    fn a_transfer_beyond_one_linux_write_is_refused() {
        let mut w = workload();
        w.bs = 2 << 30;
        w.align = 4096;
        w.span = 4 << 30;
        let err = w.validate(8 << 30, 512).unwrap_err();
        assert!(
            err.to_string()
                .contains("larger than one Linux read or write"),
            "{err}"
        );
    }
}
