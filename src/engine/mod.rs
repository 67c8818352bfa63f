//! How I/O is issued. Every engine runs a [`Workload`] and hands one [`IntervalStats`] per
//! interval, stamped with the engine's own clock, to an [`IntervalSink`].
//!
//! Real engines (`threads`, `uring`) share the [`realtime`] driver: workers count into private
//! stats and ship them at interval boundaries, so nothing on the I/O path locks or allocates.

mod buffer;
mod choice;
mod clock;
mod offsets;
mod pace;
pub mod realtime;
mod stopwatch;
pub mod sync;
mod target;
pub mod threads;
pub mod trim;
pub mod uring;
pub mod verifying;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use crate::drive::RunEnd;
pub use crate::workload::EngineKind;
pub use buffer::{io_buffers, AlignedBuf};
pub use offsets::{Cursors, OffsetGen};
pub use target::Target;

use crate::stats::IntervalStats;
use crate::workload::Workload;

/// Receives each finished interval.
pub trait IntervalSink {
    /// Called once per interval with its start and end in seconds since the run began.
    fn interval(
        &mut self,
        t_start_s: f64,
        t_end_s: f64,
        stats: &IntervalStats,
    ) -> anyhow::Result<()>;
}

/// What an engine shares with whoever started it.
#[derive(Clone, Default)]
pub struct Control {
    /// Set by the signal handler: finish the interval in progress and stop.
    pub interrupted: Arc<AtomicBool>,
    /// A simulated drive with a state file saves itself every this much of its clock, right
    /// after the sample of that moment is recorded (real engines have nothing to save).
    pub checkpoint: Option<std::time::Duration>,
    /// The run's data verification (`--verify`): claims and stamps every write, keeps what
    /// checking found.
    pub verify: Option<Arc<crate::verify::Verifier>>,
}

/// An I/O engine.
pub trait Engine {
    /// Name recorded in run.json (`threads`, `uring`, `sim`).
    fn name(&self) -> &'static str;
    /// Runs the workload to its stop rule, an interrupt or a failure.
    fn run(
        &mut self,
        workload: &Workload,
        control: &Control,
        sink: &mut dyn IntervalSink,
    ) -> anyhow::Result<RunEnd>;
    /// The drive's identity and wear as the engine itself knows them (a simulated drive);
    /// `None` means ask the system about the target instead.
    fn drive_info(&self) -> Option<crate::drive::DriveInfo> {
        None
    }
}

/// The engine the user chose, or the default for `bs`-byte I/Os at `qd` on `target` (see
/// [`choice`]; `writes`: the workload writes), said in one line on standard error when it was
/// chosen by more than the rule.
pub fn real_engine(
    choice: Option<EngineKind>,
    target: Arc<Target>,
    qd: u32,
    bs: usize,
    writes: bool,
) -> anyhow::Result<Box<dyn Engine>> {
    let kind = choice.unwrap_or_else(|| {
        let chosen = choice::default_for(&target, qd, bs, writes);
        if let Some(why) = chosen.why {
            crate::note!("ssdfade: {why}");
        }
        chosen.kind
    });
    Ok(match kind {
        EngineKind::Threads => Box::new(threads::ThreadsEngine::new(target)),
        EngineKind::Uring if !uring::available() => crate::bad_input!(
            "--engine uring: this kernel does not let ssdfade set up an io_uring \
             (too old, or disabled by kernel.io_uring_disabled): use --engine threads"
        ),
        EngineKind::Uring => Box::new(uring::UringEngine::new(target)),
    })
}
