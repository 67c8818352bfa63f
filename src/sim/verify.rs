//! `--verify` on a simulated drive: the drive keeps no bytes, only a content tag per 4 KiB
//! page, so the engine writes tags made from each block's identity ([`Verifier::content_id`])
//! and [`SimReader`] tells from a page's tag whether it holds the expected write, an older one
//! of the same block (lost write), another block's (misdirected) or nothing known (corrupt).

use std::borrow::Borrow;
use std::collections::HashMap;

use super::device::{tag_of, SimDevice, PAGE};
use crate::verify::{BlockReader, Header, Seen, Verifier};
use crate::workload::Workload;

/// Older generations of a block looked for before a page counts as corrupt.
const HISTORY: u32 = 1024;
/// Generations of every block looked for when a page holds another block's write.
const OWNED: u32 = 64;

/// Reads a simulated drive's blocks back for the verifier.
pub struct SimReader<D: Borrow<SimDevice>> {
    device: D,
    /// Offset of block 0 and bytes per block on the simulated (scaled) drive.
    base: u64,
    bs: u64,
    /// The tag of each recent write → its block and generation (built at the first page that
    /// holds another block's write, to name where that write belonged).
    expected: Option<HashMap<u32, (u64, u32)>>,
}

/// Where the engine puts the blocks of `w` on a drive scaled `scale` times smaller:
/// (offset of block 0, blocks), both on the simulated drive.
pub fn scaled_blocks(w: &Workload, scale: u64) -> (u64, u64) {
    let span = (w.span / scale / w.align * w.align).max(w.bs);
    (w.offset / scale / w.align * w.align, span / w.bs)
}

impl<D: Borrow<SimDevice>> SimReader<D> {
    /// A reader of the blocks a run of `w` wrote on `device`; tells `v` how the drive is
    /// scaled.
    pub fn new(device: D, w: &Workload, v: &Verifier) -> SimReader<D> {
        let scale = u64::from(device.borrow().spec.scale);
        let (base, blocks) = scaled_blocks(w, scale);
        v.set_scale(blocks, scale);
        SimReader {
            device,
            base,
            bs: w.bs,
            expected: None,
        }
    }

    /// The write (block and generation) whose tag is `tag`, among the last [`OWNED`]
    /// generations of every block written.
    fn owner_of(&mut self, v: &Verifier, tag: u32) -> Option<(u64, u32)> {
        let map = self.expected.get_or_insert_with(|| {
            let mut map = HashMap::new();
            for b in 0..v.blocks() {
                let last = v.expected(b);
                for g in last.saturating_sub(OWNED - 1).max(1)..=last {
                    map.insert(tag_of(v.content_id(b, g)), (b, g));
                }
            }
            map
        });
        map.get(&tag).copied()
    }
}

impl<D: Borrow<SimDevice>> BlockReader for SimReader<D> {
    fn read(&mut self, v: &Verifier, block: u64, expected: u32) -> Seen {
        let want = tag_of(v.content_id(block, expected));
        let first = (self.base + block * self.bs) / PAGE;
        let pages = self.bs / PAGE;
        let device = self.device.borrow();
        if let Some(fault) = device.fault(false, self.base + block * self.bs, self.bs) {
            let error = crate::error::errno_words(fault.errno);
            return Seen::Unreadable(format!("{error} (simulated drive)"));
        }
        let Some(found) = (first..first + pages)
            .map(|p| device.content_tag(p as u32))
            .find(|&t| t != want)
        else {
            return Seen::Header(Header {
                offset: v.offset_of(block),
                generation: expected,
                tag: v.tag(),
            });
        };
        if found == 0 {
            return Seen::Blank;
        }
        let older = (expected.saturating_sub(HISTORY)..expected)
            .rev()
            .find(|&g| g > 0 && tag_of(v.content_id(block, g)) == found);
        if let Some(generation) = older {
            return Seen::Header(Header {
                offset: v.offset_of(block),
                generation,
                tag: v.tag(),
            });
        }
        match self.owner_of(v, found) {
            Some((other, generation)) => Seen::Header(Header {
                offset: v.offset_of(other),
                generation,
                tag: v.tag(),
            }),
            None => Seen::BadChecksum,
        }
    }
}
