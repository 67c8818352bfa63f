//! The power-loss check's records as a device stores them: the on-disk format of one record
//! (a 4 KiB slot: magic, sequence, slot, value, time, filler, CRC), and the two small
//! interfaces the check writes and reads records through. A path writes and reads the bytes;
//! a simulated drive keeps a content stamp per page, so it recognises a record only among the
//! ones the listener says were written to the slot.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// Bytes per record (and per slot).
pub const RECORD: u64 = 4096;
const MAGIC: &[u8; 8] = b"SSDFPLP1";

/// One record's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordId {
    pub seq: u64,
    pub slot: u64,
    pub value: u64,
}

/// Fills `buf` (RECORD bytes) with the record.
pub fn encode(r: RecordId, unix_ns: u64, buf: &mut [u8]) {
    let n = RECORD as usize;
    buf[..8].copy_from_slice(MAGIC);
    for (i, v) in [r.seq, r.slot, r.value, unix_ns].iter().enumerate() {
        buf[8 + 8 * i..16 + 8 * i].copy_from_slice(&v.to_le_bytes());
    }
    ChaCha8Rng::seed_from_u64(r.value).fill_bytes(&mut buf[40..n - 4]);
    let crc = crc32fast::hash(&buf[..n - 4]);
    buf[n - 4..n].copy_from_slice(&crc.to_le_bytes());
}

/// What a slot holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A whole record.
    Record(RecordId),
    /// The magic is there but the checksum fails: a write cut half way.
    Torn,
    /// No record (never written, or the write did not survive).
    Empty,
    /// Content that is none of the records asked about, described.
    Other(String),
}

/// Reads a slot's bytes.
pub fn decode(buf: &[u8]) -> Found {
    let n = RECORD as usize;
    if buf.len() < n || &buf[..8] != MAGIC {
        return Found::Empty;
    }
    let crc = u32::from_le_bytes(buf[n - 4..n].try_into().expect("4 bytes"));
    if crc32fast::hash(&buf[..n - 4]) != crc {
        return Found::Torn;
    }
    let u = |i: usize| u64::from_le_bytes(buf[8 + 8 * i..16 + 8 * i].try_into().expect("8"));
    Found::Record(RecordId {
        seq: u(0),
        slot: u(1),
        value: u(2),
    })
}

/// Where the power-loss check writes its records.
pub trait RecordStore {
    /// Bytes the records can go in.
    fn size(&self) -> u64;
    /// Writes `r` into its slot and, with `flush`, waits until the device says it is durable.
    fn put(&mut self, r: RecordId, flush: bool) -> anyhow::Result<()>;
    /// Keeps what was written (a simulated drive saves its state, its cache as it is: `ssdfade
    /// sim power-cut` decides what survives).
    fn close(self: Box<Self>) -> anyhow::Result<()>;
}

/// Where the power-loss check reads its records back.
pub trait RecordReader {
    /// What `slot` holds; `written` are the records the listener says went there (newest
    /// first), the only ones a device keeping content stamps can recognise.
    fn get(&mut self, slot: u64, written: &[RecordId]) -> anyhow::Result<Found>;
}
