//! Where the next I/O goes and whether it reads or writes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::stats::OpKind;
use crate::workload::Workload;

/// Per-stream chooser of (operation, offset); sequential I/O shares one cursor across streams so
/// that outstanding sequential I/Os are adjacent, as Iometer issues them.
pub struct OffsetGen {
    rng: ChaCha8Rng,
    positions: u64,
    align: u64,
    bs: u64,
    sequential_span: u64,
    read_pct: u32,
    random_pct: u32,
    cursor: Arc<AtomicU64>,
}

impl OffsetGen {
    /// The generator of stream `stream`; every stream of a run shares `cursor`.
    pub fn new(w: &Workload, stream: u64, cursor: Arc<AtomicU64>) -> Self {
        OffsetGen {
            rng: ChaCha8Rng::seed_from_u64(
                w.seed ^ 0x6f66_6673 ^ stream.wrapping_mul(0xd6e8_feb8_6659_fd93),
            ),
            positions: w.positions(),
            align: w.align,
            bs: w.bs,
            sequential_span: w.span / w.bs * w.bs,
            read_pct: u32::from(w.read_pct),
            random_pct: u32::from(w.random_pct),
            cursor,
        }
    }

    /// The next operation and byte offset.
    #[inline]
    pub fn next_op(&mut self) -> (OpKind, u64) {
        let op = if self.read_pct == 100
            || (self.read_pct > 0 && self.rng.next_u32() % 100 < self.read_pct)
        {
            OpKind::Read
        } else {
            OpKind::Write
        };
        let offset = if self.random_pct == 100
            || (self.random_pct > 0 && self.rng.next_u32() % 100 < self.random_pct)
        {
            let r = self.rng.next_u64();
            ((u128::from(r) * u128::from(self.positions)) >> 64) as u64 * self.align
        } else {
            // Sequential transfers follow each other from 0 and wrap before the end of the span.
            self.cursor.fetch_add(self.bs, Ordering::Relaxed) % self.sequential_span
        };
        (op, offset)
    }
}
