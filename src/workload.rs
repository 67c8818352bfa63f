//! The access specification (Iometer's terms, fio's basics) and the stop rule, checked against
//! the target before anything runs.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::bad_input;
use crate::pattern::Pattern;

/// What to do when an I/O fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// End the run (exit 1), keeping every sample.
    Stop,
    /// Count the error and go on.
    Continue,
}

/// One workload, fully resolved against its target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// Bytes of the target in use, from offset 0.
    pub span: u64,
    /// Stop after this long.
    #[serde(with = "secs_opt")]
    pub duration: Option<Duration>,
    /// Stop after this many bytes transferred.
    pub bytes: Option<u64>,
    /// Sample period.
    #[serde(with = "secs")]
    pub interval: Duration,
    pub seed: u64,
    pub pattern: Pattern,
    /// Fresh ChaCha data for every write instead of the keyed pool.
    pub refill: bool,
    pub on_error: OnError,
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
        if self.interval.is_zero() {
            bad_input!("--interval must be longer than zero");
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
    pub fn serialize<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let v: f64 = serde::Deserialize::deserialize(d)?;
        Ok(Duration::from_secs_f64(v))
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
        Ok(v.map(Duration::from_secs_f64))
    }
}
