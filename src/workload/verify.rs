//! `--verify`, `--verify-every`, `--verify-end`: what data verification a run does, and the
//! workloads it cannot check (refused before anything is written).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Workload;
use crate::bad_input;
use crate::pattern::Pattern;

/// Data verification of a run (see `docs/verify.md`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct VerifyOptions {
    /// Read back a sample of written blocks this often, in seconds (`--verify-every`).
    #[serde(default, with = "super::secs_opt")]
    #[schemars(with = "Option<f64>")]
    pub every: Option<Duration>,
    /// Read back every written block when the run ends (`--verify-end`).
    #[serde(default)]
    pub end: bool,
}

impl Workload {
    /// Refuses a verified workload whose blocks cannot carry or keep a header.
    pub(super) fn validate_verify(&self) -> anyhow::Result<()> {
        let Some(v) = self.verify else {
            return Ok(());
        };
        match self.pattern {
            Pattern::Repeat | Pattern::Zero => bad_input!(
                "--verify with --pattern {}: its blocks cannot carry a header (offset, generation, checksum); use --pattern random",
                self.pattern
            ),
            Pattern::Dedupe(_) => bad_input!(
                "--verify with --pattern {}: the header makes every write unique, so nothing would repeat; use --pattern random",
                self.pattern
            ),
            Pattern::Compressible(n) if n > 90 => bad_input!(
                "--verify with --pattern {}: the header needs the first 48 bytes of a block random; use compressible:90 or less",
                self.pattern
            ),
            _ => {}
        }
        if self.read_pct == 100 {
            bad_input!("--verify with --read-pct 100: a run that writes nothing has nothing to verify; lower --read-pct");
        }
        if self.align < self.bs {
            bad_input!(
                "--verify with --align {} and --bs {}: writes would overlap, so no block would hold one write to check; drop --align",
                self.align,
                self.bs
            );
        }
        if self.align > self.bs {
            bad_input!(
                "--verify with --align {} and --bs {}: verified blocks lie on a grid of --bs bytes; drop --align",
                self.align,
                self.bs
            );
        }
        if !self.bs.is_multiple_of(4096) {
            bad_input!(
                "--verify with --bs {}: verified blocks are whole 4 KiB pages; use --bs 4k or a multiple",
                self.bs
            );
        }
        let in_flight = u64::from(self.outstanding());
        if self.span / self.bs < 2 * in_flight {
            bad_input!(
                "--verify with a span of {} blocks at {} I/Os in flight (--jobs × --qd): every I/O in flight needs a block of its own; give a --span of at least {} bytes",
                self.span / self.bs,
                in_flight,
                2 * in_flight * self.bs
            );
        }
        if v.every.is_some_and(|d| d.is_zero()) {
            bad_input!("--verify-every must be longer than zero (e.g. --verify-every 10s)");
        }
        Ok(())
    }
}
