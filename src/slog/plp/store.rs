//! The listener's sessions on disk, one file each named by the session's token: a header (name,
//! slots, when it began, the writer's last message, records acknowledged) and a fixed entry per
//! slot, updated in place before each `pre` or `post` is answered. A session therefore survives
//! a listener restart, takes no memory, and at most [`MAX_SLOTS`] entries of disk.
//!
//! A session only takes a writer's messages in order: `pre` numbers each record one past the
//! last, in a slot of the session, and `post` must name the record whose `pre` came last.

use std::fs::File;
use std::net::IpAddr;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::wire;
use super::SlotLog;

/// The most slots a session may have (4 GiB of 4 KiB records; 40 MiB of session file).
pub const MAX_SLOTS: u64 = 1 << 20;
/// The most sessions a listener directory holds.
pub const MAX_SESSIONS: usize = 256;
/// The most sessions of one peer (one IP address): one machine cannot take every session.
pub const MAX_SESSIONS_PER_PEER: usize = 32;
const MAGIC: &[u8; 8] = b"SSDFPLS1";
const HEADER: u64 = 1024;
const ENTRY: u64 = 40;
/// Header offsets of the fields that change: last message (ms), records acknowledged.
const LAST_MS_AT: u64 = 32;
/// Header offset of the writer's IP address (text, zero-padded to [`PEER_LEN`] bytes; all zeros
/// in a session of a listener before it was kept).
const PEER_AT: usize = 960;
const PEER_LEN: usize = 64;

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn path(dir: &Path, token: &str) -> PathBuf {
    dir.join(format!("{token}.session"))
}

/// Sessions in `dir`.
pub fn count(dir: &Path) -> std::io::Result<usize> {
    Ok(session_files(dir)?.count())
}

fn session_files(dir: &Path) -> std::io::Result<impl Iterator<Item = PathBuf>> {
    Ok(std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".session"))
        .map(|e| e.path()))
}

/// Sessions in `dir` begun by a writer at `peer`.
pub fn count_of(dir: &Path, peer: IpAddr) -> std::io::Result<usize> {
    let want = peer.to_string();
    Ok(session_files(dir)?
        .filter(|path| {
            let mut field = [0u8; PEER_LEN];
            File::open(path)
                .and_then(|f| f.read_exact_at(&mut field, PEER_AT as u64))
                .is_ok_and(|()| field.split(|&b| b == 0).next() == Some(want.as_bytes()))
        })
        .count())
}

fn le(bytes: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
}

/// A session being written: its file and where the writer is.
pub struct Writing {
    file: File,
    slots: u64,
    began_ms: u64,
    records: u64,
    last_seq: u64,
    /// The record whose `pre` came last and has no `post` yet: (seq, slot, value).
    pending: Option<(u64, u64, u64)>,
}

impl Writing {
    /// Creates the session file `dir/TOKEN.session` of a writer at `peer`.
    pub fn create(
        dir: &Path,
        token: &str,
        name: &str,
        slots: u64,
        peer: IpAddr,
    ) -> std::io::Result<Writing> {
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path(dir, token))?;
        let began_ms = unix_ms();
        let mut head = Vec::with_capacity(HEADER as usize);
        head.extend_from_slice(MAGIC);
        for v in [slots, super::RECORD, began_ms, 0, 0, name.len() as u64] {
            head.extend_from_slice(&v.to_le_bytes());
        }
        head.extend_from_slice(name.as_bytes());
        head.resize(PEER_AT, 0);
        let peer = peer.to_string();
        head.extend_from_slice(peer.as_bytes());
        head.resize(PEER_AT + PEER_LEN, 0);
        file.set_len(HEADER + slots * ENTRY)?;
        file.write_all_at(&head, 0)?;
        Ok(Writing {
            file,
            slots,
            began_ms,
            records: 0,
            last_seq: 0,
            pending: None,
        })
    }

    fn entry(&self, slot: u64) -> std::io::Result<SlotLog> {
        let mut b = [0u8; ENTRY as usize];
        self.file.read_exact_at(&mut b, HEADER + slot * ENTRY)?;
        Ok(SlotLog {
            post_seq: le(&b, 0),
            post_value: le(&b, 1),
            post_ms: le(&b, 2),
            pre_seq: le(&b, 3),
            pre_value: le(&b, 4),
        })
    }

    fn put(&mut self, slot: u64, l: &SlotLog, ms: u64) -> std::io::Result<()> {
        let mut b = Vec::with_capacity(ENTRY as usize);
        for v in [l.post_seq, l.post_value, l.post_ms, l.pre_seq, l.pre_value] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        self.file.write_all_at(&b, HEADER + slot * ENTRY)?;
        let mut h = ms.to_le_bytes().to_vec();
        h.extend_from_slice(&self.records.to_le_bytes());
        self.file.write_all_at(&h, LAST_MS_AT)
    }

    /// Takes `pre SEQ SLOT VALUE`; `Err` is the refusal to send.
    pub fn pre(&mut self, seq: u64, slot: u64, value: u64) -> Result<(), String> {
        if slot >= self.slots {
            return Err(format!(
                "slot {slot} is outside this session's {} slots",
                self.slots
            ));
        }
        if self.pending.is_some() || seq != self.last_seq + 1 {
            return Err(format!(
                "pre {seq} out of order: the next record is {} (replayed or forged traffic?)",
                self.last_seq + 1
            ));
        }
        let mut entry = self.entry(slot).map_err(stored)?;
        entry.pre_seq = seq;
        entry.pre_value = value;
        let ms = unix_ms().saturating_sub(self.began_ms);
        self.put(slot, &entry, ms).map_err(stored)?;
        self.pending = Some((seq, slot, value));
        self.last_seq = seq;
        Ok(())
    }

    /// Takes `post SEQ SLOT VALUE`; `Err` is the refusal to send.
    pub fn post(&mut self, seq: u64, slot: u64, value: u64) -> Result<(), String> {
        if self.pending != Some((seq, slot, value)) {
            return Err(format!(
                "post {seq} names no record whose pre came last (replayed or forged traffic?)"
            ));
        }
        let ms = unix_ms().saturating_sub(self.began_ms);
        let mut entry = self.entry(slot).map_err(stored)?;
        entry.post_seq = seq;
        entry.post_value = value;
        entry.post_ms = ms;
        entry.pre_seq = 0;
        entry.pre_value = 0;
        self.records += 1;
        self.put(slot, &entry, ms).map_err(stored)?;
        self.pending = None;
        Ok(())
    }
}

fn stored(e: std::io::Error) -> String {
    format!("the listener cannot keep the session on its disk ({e}): stop and free space there")
}

/// A session as its file holds it.
pub struct Stored {
    pub name: String,
    pub slots: u64,
    pub last_ms: u64,
    pub records: u64,
    file: File,
}

/// Opens the session `token` of `dir`; `None` when there is none.
pub fn open(dir: &Path, token: &str) -> std::io::Result<Option<Stored>> {
    let file = match File::open(path(dir, token)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut head = [0u8; HEADER as usize];
    file.read_exact_at(&mut head, 0)?;
    let bad = |what: &str| std::io::Error::other(format!("session file of {token}: {what}"));
    if &head[..8] != MAGIC {
        return Err(bad("not a session file"));
    }
    let h = &head[8..];
    let (slots, name_len) = (le(h, 0), le(h, 5) as usize);
    if slots == 0 || slots > MAX_SLOTS || name_len > wire::MAX_NAME {
        return Err(bad("damaged header"));
    }
    if file.metadata()?.len() != HEADER + slots * ENTRY {
        return Err(bad("truncated or extended"));
    }
    let name = String::from_utf8_lossy(&h[48..48 + name_len]).into_owned();
    Ok(Some(Stored {
        name,
        slots,
        last_ms: le(h, 3),
        records: le(h, 4),
        file,
    }))
}

impl Stored {
    /// Calls `each` with every slot holding a posted record, in slot order, reading the file in
    /// pieces (no more than 64 KiB in memory).
    pub fn each_posted(
        &self,
        each: &mut dyn FnMut(u64, &SlotLog) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        const CHUNK: u64 = 1638;
        let mut buf = vec![0u8; (CHUNK * ENTRY) as usize];
        let mut first = 0;
        while first < self.slots {
            let n = CHUNK.min(self.slots - first);
            let piece = &mut buf[..(n * ENTRY) as usize];
            self.file.read_exact_at(piece, HEADER + first * ENTRY)?;
            for (i, e) in piece.chunks_exact(ENTRY as usize).enumerate() {
                let l = SlotLog {
                    post_seq: le(e, 0),
                    post_value: le(e, 1),
                    post_ms: le(e, 2),
                    pre_seq: le(e, 3),
                    pre_value: le(e, 4),
                };
                if l.post_seq > 0 {
                    each(first + i as u64, &l)?;
                }
            }
            first += n;
        }
        Ok(())
    }
}
