//! What data verification (`--verify`, `ssdfade verify`) found, as recorded in run.json and
//! printed by `verify --json`, and `verify.map`: the generation of every block a run wrote,
//! kept beside run.json so a later `ssdfade verify` knows what each block should hold.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// The file name of the generation map inside a run directory.
pub const MAP_FILE: &str = "verify.map";

/// At most this many findings are kept one by one; the counts cover them all.
pub const MAX_LISTED: usize = 1000;

/// What a bad block held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A valid block of this run, but of another generation than the last acknowledged write
    /// (normally an older one: the write was lost), or nothing this run wrote.
    Lost,
    /// A valid block written for another offset.
    Misdirected,
    /// The block's checksum does not match its bytes.
    Corrupt,
    /// Reading the block failed.
    Unreadable,
}

impl FindingKind {
    /// The kind as written in the record (`lost`, `misdirected`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::Lost => "lost",
            FindingKind::Misdirected => "misdirected",
            FindingKind::Corrupt => "corrupt",
            FindingKind::Unreadable => "unreadable",
        }
    }
}

/// One bad block.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Finding {
    pub kind: FindingKind,
    /// Byte offset of the block on the target.
    pub offset: u64,
    /// Generation of the last write the target acknowledged there.
    pub expected_generation: u32,
    /// Generation the block holds (lost and misdirected writes; 0: nothing of this run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_generation: Option<u32>,
    /// Offset the block was written for (misdirected writes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_offset: Option<u64>,
    /// The read error (unreadable blocks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Findings by kind.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct FindingCounts {
    pub lost: u64,
    pub misdirected: u64,
    pub corrupt: u64,
    pub unreadable: u64,
}

impl FindingCounts {
    /// Every finding.
    pub fn total(&self) -> u64 {
        self.lost + self.misdirected + self.corrupt + self.unreadable
    }

    /// Counts one more finding of `kind`.
    pub fn add(&mut self, kind: FindingKind) {
        match kind {
            FindingKind::Lost => self.lost += 1,
            FindingKind::Misdirected => self.misdirected += 1,
            FindingKind::Corrupt => self.corrupt += 1,
            FindingKind::Unreadable => self.unreadable += 1,
        }
    }
}

/// What verification of one run (or one `ssdfade verify`) checked and found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VerifyReport {
    /// Blocks the run wrote at least once.
    pub blocks_written: u64,
    /// Blocks read back by the samples taken during the run (`--verify-every`).
    pub sampled_checks: u64,
    /// Blocks read back by the full pass (`--verify-end`, or `ssdfade verify`).
    pub full_pass_checks: u64,
    /// The full pass was stopped (Ctrl-C, SIGTERM) before its last block: the blocks after
    /// it were never checked, so the pass is no clean pass whatever it found.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub full_pass_stopped: bool,
    pub counts: FindingCounts,
    /// The first [`MAX_LISTED`] findings, in the order found.
    pub findings: Vec<Finding>,
    /// Writes in flight when the engine stopped (a ring that failed, an I/O error), whose
    /// completion was never seen: each block may hold the new data or the old, and is checked
    /// as holding either; absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unfinished_writes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl VerifyReport {
    /// True when nothing bad was found.
    pub fn clean(&self) -> bool {
        self.counts.total() == 0
    }

    /// One line: what was checked and what was found.
    pub fn line(&self) -> String {
        let c = &self.counts;
        let mut checked = format!(
            "{} blocks written, {} sampled checks, {} checked at the end",
            self.blocks_written, self.sampled_checks, self.full_pass_checks
        );
        if self.unfinished_writes > 0 {
            checked.push_str(&format!(
                " ({} writes in flight when the run stopped, old or new data accepted)",
                self.unfinished_writes
            ));
        }
        if self.full_pass_stopped {
            checked.push_str(" before that check was stopped");
        }
        if self.clean() && self.full_pass_stopped {
            format!("verify: {checked}: no bad block among them, the rest NOT checked")
        } else if self.clean() {
            format!("verify: {checked}: no bad block")
        } else {
            format!(
                "verify: {checked}: {} BAD blocks ({} lost writes, {} misdirected, {} corrupt, {} unreadable)",
                c.total(),
                c.lost,
                c.misdirected,
                c.corrupt,
                c.unreadable
            )
        }
    }
}

impl Finding {
    /// One line: kind, offset and what was found there.
    pub fn line(&self) -> String {
        let what = match self.kind {
            FindingKind::Lost => format!(
                "holds generation {} instead of {}",
                self.found_generation.unwrap_or(0),
                self.expected_generation
            ),
            FindingKind::Misdirected => format!(
                "holds the write for offset {} (generation {})",
                self.found_offset.unwrap_or(0),
                self.found_generation.unwrap_or(0)
            ),
            FindingKind::Corrupt => format!(
                "checksum does not match (generation {} expected)",
                self.expected_generation
            ),
            FindingKind::Unreadable => {
                format!("cannot be read: {}", self.error.as_deref().unwrap_or("?"))
            }
        };
        format!(
            "{:<11} offset {} (0x{:x}): {what}",
            self.kind.as_str(),
            self.offset,
            self.offset
        )
    }
}

/// The terminal's width, which [`VerifyReport::text`] keeps to.
const WIDTH: usize = 80;

/// `line` after `first`, or, when that is wider than [`WIDTH`], broken after its last ": "
/// with the rest on a line of its own after `rest`.
fn fitted(line: &str, first: &str, rest: &str) -> String {
    match line.rsplit_once(": ") {
        Some((head, tail)) if first.chars().count() + line.chars().count() > WIDTH => {
            format!("{first}{head}:\n{rest}{tail}\n")
        }
        _ => format!("{first}{line}\n"),
    }
}

impl VerifyReport {
    /// The summary line and the first `listed` findings, one per line, each broken after its
    /// colon when longer than 80 columns (what was checked, then what was found; the offset,
    /// then what the block holds).
    pub fn text(&self, listed: usize) -> String {
        let mut out = fitted(&self.line(), "", "  ");
        for f in self.findings.iter().take(listed) {
            out.push_str(&fitted(&f.line(), "  ", "      "));
        }
        let more = self.counts.total().saturating_sub(listed as u64);
        if more > 0 && !self.findings.is_empty() {
            out.push_str(&format!(
                "  … and {more} more (run.json, or ssdfade verify --json)\n"
            ));
        }
        out
    }
}

/// Saves the generation of every block (little-endian u32 each, trailing unwritten blocks
/// left out) as `dir/verify.map`, replacing the map kept as the run went atomically.
pub fn save_map(dir: &Path, generations: &[u32]) -> anyhow::Result<()> {
    let used = generations
        .iter()
        .rposition(|&g| g != 0)
        .map_or(0, |i| i + 1);
    let path = dir.join(MAP_FILE);
    let tmp = dir.join(format!("{MAP_FILE}.partial"));
    let mut bytes = Vec::with_capacity(used * 4);
    for g in &generations[..used] {
        bytes.extend_from_slice(&g.to_le_bytes());
    }
    let written = std::fs::File::create(&tmp)
        .and_then(|mut file| {
            file.write_all(&bytes)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}

/// `verify.map` kept as a run writes: every part of the map that changed since the last
/// [`GrowingMap::update`] is written in place, so after a crash (kill -9, a power cut) the map
/// holds every write acknowledged before the last update. Blocks written after it may hold a
/// later generation, which a check of such a map accepts.
pub struct GrowingMap {
    file: std::fs::File,
    saved: Vec<u32>,
}

/// Blocks written together when one of them changed (64 KiB of map).
const MAP_CHUNK: usize = 16384;

impl GrowingMap {
    /// Starts the map of a run of `blocks` blocks in `dir`, empty.
    pub fn create(dir: &Path, blocks: u64) -> anyhow::Result<GrowingMap> {
        let path = dir.join(MAP_FILE);
        let file = std::fs::File::create(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        Ok(GrowingMap {
            file,
            saved: vec![0; blocks as usize],
        })
    }

    /// Writes the chunks of `now` (the generation of every block) that changed.
    pub fn update(&mut self, now: &[u32]) -> anyhow::Result<()> {
        use std::os::unix::fs::FileExt;
        for (i, (was, is)) in self
            .saved
            .chunks_mut(MAP_CHUNK)
            .zip(now.chunks(MAP_CHUNK))
            .enumerate()
        {
            if was == is {
                continue;
            }
            was.copy_from_slice(is);
            let bytes: Vec<u8> = is.iter().flat_map(|g| g.to_le_bytes()).collect();
            self.file
                .write_all_at(&bytes, (i * MAP_CHUNK * 4) as u64)
                .context("cannot keep verify.map up to date")?;
        }
        Ok(())
    }
}

/// Loads `dir/verify.map` for a run of `blocks` blocks, of which the run's record says
/// `recorded` were written (when it recorded its verification): a map holding fewer written
/// blocks than that was emptied or cut short, and is refused.
pub fn load_map(dir: &Path, blocks: u64, recorded: Option<u64>) -> anyhow::Result<Vec<u32>> {
    let path = dir.join(MAP_FILE);
    // Read so that a stop signal ends it (a large drive's map is tens of MB).
    let mut bytes = Vec::new();
    let read = std::fs::File::open(&path).and_then(|f| {
        let buffered = std::io::BufReader::with_capacity(1 << 20, f);
        std::io::Read::read_to_end(&mut crate::stop::Reader::new(buffered), &mut bytes)
    });
    read.with_context(|| {
        format!(
            "cannot read {}: only a run made with --verify keeps one",
            path.display()
        )
    })?;
    if bytes.len() % 4 != 0 || (bytes.len() / 4) as u64 > blocks {
        anyhow::bail!(
            "{} does not fit the run's {blocks} blocks: it is damaged or from another run",
            path.display()
        );
    }
    let mut map = vec![0u32; blocks as usize];
    for (g, b) in map.iter_mut().zip(bytes.chunks_exact(4)) {
        *g = u32::from_le_bytes(b.try_into().expect("four bytes"));
    }
    let written = map.iter().filter(|&&g| g != 0).count() as u64;
    if let Some(recorded) = recorded.filter(|&r| written < r) {
        anyhow::bail!(
            "{} holds {written} written blocks where run.json records {recorded}: the map was emptied or cut short, so the check would miss blocks; verify with the run's own map",
            path.display()
        );
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_reads_back_as_saved() {
        let dir = tempfile::tempdir().unwrap();
        let map = vec![3, 0, 7, 1, 0, 0];
        save_map(dir.path(), &map).unwrap();
        assert_eq!(
            std::fs::metadata(dir.path().join(MAP_FILE)).unwrap().len(),
            16
        );
        assert_eq!(load_map(dir.path(), 6, Some(3)).unwrap(), map);
        assert!(load_map(dir.path(), 3, None).is_err());
        assert!(
            load_map(dir.path(), 6, Some(4)).is_err(),
            "fewer blocks than recorded"
        );
    }
}
