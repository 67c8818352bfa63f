//! The access specification (Iometer's terms, fio's basics) and the stop rule, checked against
//! the target before anything runs.

pub mod distribution;
pub mod memory;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::bad_input;
use crate::pattern::Pattern;
pub use distribution::{Distribution, SpanStart};

/// The shortest sample period: below it the clock reads and bookkeeping dominate the interval.
pub const MIN_INTERVAL: Duration = Duration::from_millis(10);

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
    /// `None`: the transfer size.
    pub align: Option<u64>,
    pub read_pct: u8,
    pub random_pct: u8,
    pub qd: u32,
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
}

/// The command line's defaults (4 KiB random writes at QD 128, random data, stop on an error):
/// code that builds a spec names what differs and takes the rest from here.
impl Default for WorkloadSpec {
    fn default() -> Self {
        WorkloadSpec {
            bs: 4096,
            align: None,
            read_pct: 0,
            random_pct: 100,
            qd: 128,
            span: None,
            offset: SpanStart::default(),
            distribution: Distribution::Uniform,
            seed: None,
            pattern: Pattern::Random,
            refill: false,
            on_error: OnError::Stop,
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
        let align = self.align.unwrap_or(self.bs);
        let offset = self.offset.bytes(size, align);
        Workload {
            bs: self.bs,
            align,
            read_pct: self.read_pct,
            random_pct: self.random_pct,
            qd: self.qd,
            span: self.span.unwrap_or(size.saturating_sub(offset)),
            offset,
            distribution: self.distribution,
            duration,
            bytes,
            interval,
            seed: self.seed.unwrap_or_else(fresh_seed),
            pattern: self.pattern,
            refill: self.refill,
            on_error: self.on_error,
        }
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
    /// Transfer size in bytes.
    pub bs: u64,
    /// Offsets are multiples of this.
    pub align: u64,
    /// Percent of I/Os that are reads.
    pub read_pct: u8,
    /// Percent of I/Os at a random offset; the rest continue sequentially.
    pub random_pct: u8,
    /// Outstanding I/Os.
    pub qd: u32,
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
}

/// The defaults of [`WorkloadSpec`] on an empty target (span 0: set it), one-second intervals,
/// seed 0 and no stop rule: code that builds a workload names what differs.
impl Default for Workload {
    fn default() -> Self {
        let spec = WorkloadSpec::default();
        Workload {
            bs: spec.bs,
            align: spec.bs,
            read_pct: spec.read_pct,
            random_pct: spec.random_pct,
            qd: spec.qd,
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
        }
    }
}

impl Workload {
    /// Checks the workload against a target's size and block size.
    pub fn validate(&self, target_size: u64, logical_block: u32) -> anyhow::Result<()> {
        let lb = u64::from(logical_block.max(1));
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
        if self.qd == 0 || self.qd > 4096 {
            bad_input!(
                "--qd {} is out of range: use 1 to 4096 outstanding I/Os",
                self.qd
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
