//! The `state=PATH` file format: a simulated drive kept between commands.
//!
//! The file holds what cannot be rebuilt — the mapping (logical page → slot) with the per-page
//! content tags, per-block erase counts and states, the free pool order, the write frontier,
//! the lifetime figures and the writes still in a volatile cache. Everything else (reverse map,
//! live bits, GC buckets) is rebuilt on load. Where the file lives and how it is locked and
//! replaced is [`super::store`]'s job; this module only encodes and decodes, and refuses
//! anything it cannot trust.
//!
//! Layout (little-endian):
//!
//! ```text
//! magic "\xffSSDSIM\n" (8) · crc32 (4) · format version (4) · payload length (8) · payload
//! payload: sections, each  tag (4 ASCII bytes) · body length (8) · body
//! ```
//!
//! The CRC covers everything after itself (version, length and payload). The identity section
//! `IDNT` comes first; the others may come in any order, each once. To persist something new,
//! add a section: [`encode`] writes it, [`decode`] reads it and gives older files (which lack
//! it) a default. A reader refuses sections it does not know (the file is from a newer
//! ssdfade); bump [`VERSION`] only when an existing section changes meaning.
//!
//! Every index and count is checked against the preset's geometry before the FTL is rebuilt,
//! so a damaged or crafted file is refused with one line ([`BadInput`](crate::error::BadInput)),
//! never a panic in the FTL later.

use std::io::{self, Read, Write};

use super::device::{geometry, DriveStamp, Lifetime, SimDevice};
use super::ftl::{BlockState, Ftl, Geometry, GC_RESERVE, PACKED, UNMAPPED};
use super::spec::SimSpec;

const MAGIC: &[u8; 8] = b"\xffSSDSIM\n";
/// The magic of the first format (no checksum, no sections).
const MAGIC_V1: &[u8; 8] = b"SSDFSIM1";
/// The format version this build writes and the newest it reads.
pub const VERSION: u32 = 2;
const HEADER: u64 = 24;
/// Flag of a mapping entry whose page takes two slots (as in the FTL).
const TWO_SLOTS: u32 = 1 << 31;

const IDENTITY: [u8; 4] = *b"IDNT";
const LIFE: [u8; 4] = *b"LIFE";
const FRONTIER: [u8; 4] = *b"FRNT";
const ERASE_COUNTS: [u8; 4] = *b"ERAS";
const BLOCK_STATES: [u8; 4] = *b"BSTA";
/// Flag in a block state byte: an open or full block of the hot stream (see
/// [`Ftl::set_hot_window`]; files without it load with every block cold).
const HOT_BLOCK: u8 = 0x80;
const FREE_POOL: [u8; 4] = *b"FREE";
const MAP: [u8; 4] = *b"MAP ";
const UNFLUSHED: [u8; 4] = *b"CACH";
/// When each block was last opened (cost-benefit victim choice; older files: all alike).
const BLOCK_AGES: [u8; 4] = *b"BAGE";
/// The drive's heat (`thermal=`; older files, or a drive saved without it: it starts settled).
const HEAT: [u8; 4] = *b"HEAT";
/// Which drive and how many saves ([`DriveStamp`]); written second, so it is read cheaply.
const STAMP: [u8; 4] = *b"DRID";

/// Why a state file was refused (the caller prefixes the path and says what to do).
pub type Refusal = String;

/// Writes `dev` in the state format to `w`, a fresh file positioned at its start.
pub fn encode<W: Write + io::Seek>(dev: &SimDevice, w: &mut W) -> io::Result<()> {
    w.write_all(&[0u8; HEADER as usize])?;
    let mut out = Crc::new(&mut *w);
    let (map, erase_count, states, free, frontier, write_ptr) = dev.ftl().persistent();
    let life = dev.lifetime();
    section(&mut out, IDENTITY, identity_key(&dev.spec).as_bytes())?;
    let stamp = dev.stamp();
    let mut body = stamp.id.to_le_bytes().to_vec();
    body.extend_from_slice(&stamp.saves.to_le_bytes());
    section(&mut out, STAMP, &body)?;
    let mut body = Vec::with_capacity(40);
    for v in [life.power_on_s, life.history_pe, life.slc_fill_bytes] {
        body.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    body.extend_from_slice(&life.host_bytes.to_le_bytes());
    body.extend_from_slice(&life.programmed_slots.to_le_bytes());
    section(&mut out, LIFE, &body)?;
    let mut body = frontier.to_le_bytes().to_vec();
    body.extend_from_slice(&write_ptr.to_le_bytes());
    section(&mut out, FRONTIER, &body)?;
    u32s(
        &mut out,
        ERASE_COUNTS,
        erase_count.len(),
        erase_count.iter().copied(),
    )?;
    // A second (cold) frontier is saved as a full block: the state keeps one frontier. Blocks
    // of the hot stream, where the drive keeps hot and cold data apart, carry HOT_BLOCK.
    let cold = dev.ftl().cold_frontier();
    let states: Vec<u8> = states
        .iter()
        .enumerate()
        .map(|(b, &s)| {
            let hot = if dev.ftl().is_hot_block(b) {
                HOT_BLOCK
            } else {
                0
            };
            match s {
                BlockState::Open if b as u32 == cold => BlockState::Full as u8,
                s => s as u8 | hot,
            }
        })
        .collect();
    section(&mut out, BLOCK_STATES, &states)?;
    let opened = dev.ftl().opened();
    u32s(&mut out, BLOCK_AGES, opened.len(), opened.iter().copied())?;
    u32s(&mut out, FREE_POOL, free.len(), free.iter().copied())?;
    u32s(&mut out, MAP, 2 * map.len(), map.iter().flatten().copied())?;
    if let Some(h) = dev.heat() {
        let body: Vec<u8> = h.to_words().iter().flat_map(|w| w.to_le_bytes()).collect();
        section(&mut out, HEAT, &body)?;
    }
    let cache = dev.unflushed();
    u32s(
        &mut out,
        UNFLUSHED,
        2 * cache.len(),
        cache.iter().flat_map(|&(lpn, tag)| [lpn, tag]),
    )?;
    let (length, mut crc) = (out.bytes, out.hasher);
    let mut head = crc32fast::Hasher::new();
    head.update(&VERSION.to_le_bytes());
    head.update(&length.to_le_bytes());
    head.combine(&crc);
    crc = head;
    w.flush()?;
    w.seek(io::SeekFrom::Start(0))?;
    let mut header = MAGIC.to_vec();
    header.extend_from_slice(&crc.finalize().to_le_bytes());
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&length.to_le_bytes());
    w.write_all(&header)?;
    w.flush()
}

/// Reads a drive of `spec` from `r`, a file of `len` bytes; `Err` says why it cannot be
/// trusted (one line, without the path).
pub fn decode(spec: &SimSpec, r: &mut impl Read, len: u64) -> Result<SimDevice, Refusal> {
    let io = |e: io::Error| format!("cannot be read ({e})");
    let mut header = [0u8; HEADER as usize];
    if len < HEADER {
        return Err(if len >= 8 && read_magic(r)? == *MAGIC_V1 {
            old_format()
        } else {
            format!("is not a ssdfade simulated drive (only {len} bytes)")
        });
    }
    r.read_exact(&mut header).map_err(io)?;
    if header[..8] == *MAGIC_V1 {
        return Err(old_format());
    }
    if header[..8] != *MAGIC {
        return Err("is not a ssdfade simulated drive (no ssdfade header)".into());
    }
    let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
    let (crc, version) = (word(8), word(12));
    let length = u64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
    if version > VERSION {
        return Err(format!(
            "was written by a newer ssdfade (format {version}; this one reads formats up to {VERSION})"
        ));
    }
    if version < 2 {
        return Err(format!("has an unknown format version {version}"));
    }
    if length != len - HEADER {
        return Err(format!(
            "is truncated or has trailing bytes: the header announces {} bytes, the file has {len}",
            length + HEADER
        ));
    }
    let mut input = Crc::new(r.take(length));
    input.hasher.update(&header[12..24]);
    let parts = read_sections(spec, &mut input);
    // Damage shows as a checksum mismatch first, whatever the sections looked like.
    io::copy(&mut input, &mut io::sink()).map_err(io)?;
    if input.hasher.finalize() != crc {
        return Err("is damaged: its checksum does not match its content".into());
    }
    parts?.into_device(spec)
}

/// The stamp of a state file from its first two sections alone, without reading (or checking)
/// the rest: for a drive this process just saved, whose whole decode would cost a second per
/// gigabyte of map. `Err` when the file does not start as a state file with its stamp.
pub fn peek_stamp(r: &mut impl Read) -> Result<DriveStamp, Refusal> {
    let io = |e: io::Error| format!("cannot be read ({e})");
    let mut header = [0u8; HEADER as usize];
    r.read_exact(&mut header).map_err(io)?;
    if header[..8] != *MAGIC {
        return Err("is not a ssdfade simulated drive (no ssdfade header)".into());
    }
    for _ in 0..2 {
        let mut head = [0u8; 12];
        r.read_exact(&mut head).map_err(io)?;
        let len = u64::from_le_bytes(head[4..].try_into().expect("8 bytes"));
        match head[..4].try_into().expect("4 bytes") {
            IDENTITY if len <= 4096 => {
                read_bytes(r, len).map_err(io)?;
            }
            STAMP if len == 16 => {
                let v = read_u64s(r, 2).map_err(io)?;
                return Ok(DriveStamp {
                    id: v[0],
                    saves: v[1],
                });
            }
            _ => break,
        }
    }
    Err("is damaged: it does not start with the drive's identity and stamp".into())
}

fn old_format() -> Refusal {
    "was written by an older ssdfade (format 1, without a checksum), which this one no longer reads"
        .into()
}

fn read_magic(r: &mut impl Read) -> Result<[u8; 8], Refusal> {
    let mut magic = [0u8; 8];
    r.read_exact(&mut magic)
        .map_err(|e| format!("cannot be read ({e})"))?;
    Ok(magic)
}

/// The sections of a state file, as read (not yet checked against one another).
#[derive(Default)]
struct Parts {
    life: Option<Lifetime>,
    frontier: Option<(u32, u32)>,
    erase_count: Option<Vec<u32>>,
    states: Option<Vec<BlockState>>,
    free: Option<Vec<u32>>,
    map: Option<Vec<[u32; 2]>>,
    unflushed: Vec<(u32, u32)>,
    stamp: DriveStamp,
    opened: Option<Vec<u32>>,
    /// Per block: of the hot stream (empty when the file has no block states).
    hot: Vec<bool>,
    /// The heat section's words, as written.
    heat: Option<Vec<u64>>,
}

fn read_sections(spec: &SimSpec, r: &mut impl Read) -> Result<Parts, Refusal> {
    let geo = geometry(spec);
    let io = |e: io::Error| format!("is truncated or unreadable ({e})");
    let mut parts = Parts::default();
    let mut seen: Vec<[u8; 4]> = Vec::new();
    loop {
        let mut head = [0u8; 12];
        match r.read(&mut head[..1]).map_err(io)? {
            0 => break,
            _ => r.read_exact(&mut head[1..]).map_err(io)?,
        }
        let tag: [u8; 4] = head[..4].try_into().expect("4 bytes");
        let len = u64::from_le_bytes(head[4..].try_into().expect("8 bytes"));
        let name = String::from_utf8_lossy(&tag).trim().to_string();
        if seen.is_empty() && tag != IDENTITY {
            return Err("is damaged: it does not start with the drive's identity".into());
        }
        if seen.contains(&tag) {
            return Err(format!("is damaged: section {name} appears twice"));
        }
        seen.push(tag);
        // The expected body length of each known section (bounds what is allocated).
        let expect = |n: u64| -> Result<(), Refusal> {
            if len == n {
                Ok(())
            } else {
                Err(format!(
                    "does not fit the drive: section {name} has {len} bytes, the geometry needs {n}"
                ))
            }
        };
        let blocks = u64::from(geo.blocks);
        match tag {
            IDENTITY => {
                if len > 4096 {
                    return Err("is damaged: identity longer than 4096 bytes".into());
                }
                let key = String::from_utf8_lossy(&read_bytes(r, len).map_err(io)?).to_string();
                let want = identity_key(spec);
                if key != want {
                    return Err(format!(
                        "holds a drive made as {key}, not {want} (give the preset, scale= and capacity= it was made with)"
                    ));
                }
            }
            LIFE => {
                expect(40)?;
                let v = read_u64s(r, 5).map_err(io)?;
                let life = Lifetime {
                    power_on_s: f64::from_bits(v[0]),
                    history_pe: f64::from_bits(v[1]),
                    slc_fill_bytes: f64::from_bits(v[2]),
                    host_bytes: v[3],
                    programmed_slots: v[4],
                };
                for (what, x) in [
                    ("power-on time", life.power_on_s),
                    ("wear history", life.history_pe),
                    ("SLC cache fill", life.slc_fill_bytes),
                ] {
                    if !x.is_finite() || x < 0.0 {
                        return Err(format!("is inconsistent: {what} is {x}"));
                    }
                }
                parts.life = Some(life);
            }
            STAMP => {
                expect(16)?;
                let v = read_u64s(r, 2).map_err(io)?;
                parts.stamp = DriveStamp {
                    id: v[0],
                    saves: v[1],
                };
            }
            FRONTIER => {
                expect(8)?;
                let v = read_u32s(r, 2).map_err(io)?;
                parts.frontier = Some((v[0], v[1]));
            }
            ERASE_COUNTS => {
                expect(4 * blocks)?;
                parts.erase_count = Some(read_u32s(r, blocks).map_err(io)?);
            }
            BLOCK_STATES => {
                expect(blocks)?;
                let raw = read_bytes(r, blocks).map_err(io)?;
                let states = raw
                    .iter()
                    .map(|&b| match b {
                        0 => Ok(BlockState::Free),
                        1 | 0x81 => Ok(BlockState::Open),
                        2 | 0x82 => Ok(BlockState::Full),
                        3 => Ok(BlockState::Retired),
                        _ => Err(format!("is damaged: block state {b}")),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                parts.states = Some(states);
                parts.hot = raw.iter().map(|&b| b & HOT_BLOCK != 0).collect();
            }
            BLOCK_AGES => {
                expect(4 * blocks)?;
                parts.opened = Some(read_u32s(r, blocks).map_err(io)?);
            }
            FREE_POOL => {
                if len % 4 != 0 || len > 4 * blocks {
                    return Err(format!("is damaged: free pool of {len} bytes"));
                }
                parts.free = Some(read_u32s(r, len / 4).map_err(io)?);
            }
            MAP => {
                expect(8 * u64::from(geo.user_pages))?;
                let flat = read_u32s(r, 2 * u64::from(geo.user_pages)).map_err(io)?;
                parts.map = Some(flat.chunks_exact(2).map(|c| [c[0], c[1]]).collect());
            }
            HEAT => {
                expect(64)?;
                parts.heat = Some(read_u64s(r, 8).map_err(io)?);
            }
            UNFLUSHED => {
                if len % 8 != 0 || len / 8 > u64::from(geo.user_pages) {
                    return Err(format!("is damaged: write cache of {len} bytes"));
                }
                let flat = read_u32s(r, len / 4).map_err(io)?;
                parts.unflushed = flat.chunks_exact(2).map(|c| (c[0], c[1])).collect();
            }
            _ => {
                return Err(format!(
                    "has a section '{}' this ssdfade does not know (written by a newer version?)",
                    name.escape_default()
                ))
            }
        }
    }
    Ok(parts)
}

impl Parts {
    /// Checks the parts against one another and the geometry, then rebuilds the drive.
    fn into_device(self, spec: &SimSpec) -> Result<SimDevice, Refusal> {
        let missing = |what: &str| format!("is damaged: the {what} section is missing");
        let life = self.life.ok_or_else(|| missing("lifetime"))?;
        let (frontier, write_ptr) = self.frontier.ok_or_else(|| missing("frontier"))?;
        let erase_count = self.erase_count.ok_or_else(|| missing("erase count"))?;
        let states = self.states.ok_or_else(|| missing("block state"))?;
        let free = self.free.ok_or_else(|| missing("free pool"))?;
        let map = self.map.ok_or_else(|| missing("mapping"))?;
        let geo = geometry(spec);
        // Each step takes a fraction of a second on a full-size drive under load: a stop
        // signal is looked at between them (the caller says the load was interrupted).
        stopped()?;
        check_blocks(geo, &states, &free, frontier, write_ptr)?;
        stopped()?;
        check_map(geo, &map, &states, frontier, write_ptr)?;
        stopped()?;
        let mut ftl = Ftl::restore(
            geo,
            map,
            erase_count,
            states,
            free.into(),
            frontier,
            write_ptr,
        )
        .map_err(|e| format!("is inconsistent: {e}"))?;
        stopped()?;
        if let Some(opened) = self.opened {
            ftl.set_opened(opened);
        }
        ftl.set_hot_blocks(&self.hot);
        let mut dev = SimDevice::from_parts(spec, ftl);
        dev.set_lifetime(life);
        dev.set_stamp(self.stamp);
        if self.unflushed.len() > dev.cache_pages() {
            return Err(format!(
                "is inconsistent: {} unflushed writes in a cache of {} pages",
                self.unflushed.len(),
                dev.cache_pages()
            ));
        }
        if let Some(&(lpn, _)) = self
            .unflushed
            .iter()
            .find(|&&(lpn, _)| lpn >= geo.user_pages)
        {
            return Err(format!(
                "is inconsistent: an unflushed write to page {lpn} of {}",
                geo.user_pages
            ));
        }
        dev.set_unflushed(self.unflushed.into());
        if let (Some(words), Some(class)) = (self.heat, spec.thermal) {
            let heat = super::thermal::Thermal::from_words(class, &words)
                .ok_or("is damaged: its heat section holds no temperature a drive could have")?;
            dev.set_heat(heat);
        }
        Ok(dev)
    }
}

/// Mapped pages checked between two looks at the stop flag: tens of milliseconds (a full-size
/// drive has 14 million).
const PAGES_BETWEEN_STOP_CHECKS: usize = 1 << 20;

/// Refuses to go on once a stop signal came (see [`crate::stop`]).
fn stopped() -> Result<(), Refusal> {
    if crate::stop::requested() {
        return Err("was not loaded: stopped by a signal".into());
    }
    Ok(())
}

/// The free pool holds exactly the free blocks, each once; one open block is the frontier.
fn check_blocks(
    geo: Geometry,
    states: &[BlockState],
    free: &[u32],
    frontier: u32,
    write_ptr: u32,
) -> Result<(), Refusal> {
    let mut in_pool = vec![false; states.len()];
    for &b in free {
        let Some(seen) = in_pool.get_mut(b as usize) else {
            return Err(format!(
                "is inconsistent: free block {b} of {} blocks",
                geo.blocks
            ));
        };
        if std::mem::replace(seen, true) {
            return Err(format!("is inconsistent: block {b} is free twice"));
        }
        if states[b as usize] != BlockState::Free {
            return Err(format!("is inconsistent: block {b} is in use and free"));
        }
    }
    if let Some(b) = (0..states.len()).find(|&b| states[b] == BlockState::Free && !in_pool[b]) {
        return Err(format!("is inconsistent: free block {b} is lost"));
    }
    if free.len() < GC_RESERVE {
        return Err(format!(
            "is inconsistent: {} free blocks, fewer than the GC reserve of {GC_RESERVE}",
            free.len()
        ));
    }
    let open: Vec<usize> = (0..states.len())
        .filter(|&b| states[b] == BlockState::Open)
        .collect();
    let consistent = match open.as_slice() {
        [] => frontier == u32::MAX,
        [b] => *b == frontier as usize && write_ptr < geo.slots_per_block(),
        _ => false,
    };
    if !consistent {
        return Err(format!(
            "is inconsistent: write frontier {frontier} (at slot {write_ptr}) and open blocks {open:?}"
        ));
    }
    Ok(())
}

/// Every mapped page points into a written part of a used block, and no two pages share a slot.
fn check_map(
    geo: Geometry,
    map: &[[u32; 2]],
    states: &[BlockState],
    frontier: u32,
    write_ptr: u32,
) -> Result<(), Refusal> {
    let spb = geo.slots_per_block();
    let slots = u64::from(geo.blocks) * u64::from(spb);
    let mut taken = vec![0u64; slots.div_ceil(64) as usize];
    for (lpn, &[entry, _]) in map.iter().enumerate() {
        if lpn % PAGES_BETWEEN_STOP_CHECKS == 0 {
            stopped()?;
        }
        if entry == UNMAPPED || entry == PACKED {
            continue;
        }
        let (slot, size) = (
            entry & !TWO_SLOTS,
            if entry & TWO_SLOTS != 0 { 2 } else { 1 },
        );
        let bad = |why: &str| {
            Err(format!(
                "is inconsistent: page {lpn} maps to slot {slot}: {why}"
            ))
        };
        if size > geo.slots_per_page {
            return bad("a two-slot page on a drive without compression");
        }
        if u64::from(slot) + u64::from(size) > slots {
            return bad("outside the flash");
        }
        let (block, offset) = (slot / spb, slot % spb);
        if offset + size > spb {
            return bad("across two blocks");
        }
        match states[block as usize] {
            BlockState::Free => return bad("in a free block"),
            BlockState::Retired => return bad("in a retired block"),
            BlockState::Open if block != frontier || offset + size > write_ptr => {
                return bad("beyond the write frontier")
            }
            _ => {}
        }
        for s in slot..slot + size {
            let (word, bit) = ((s / 64) as usize, 1u64 << (s % 64));
            if taken[word] & bit != 0 {
                return bad("a slot another page holds");
            }
            taken[word] |= bit;
        }
    }
    Ok(())
}

/// What must match between a state file and the spec loading it.
fn identity_key(spec: &SimSpec) -> String {
    let geo = geometry(spec);
    format!(
        "{} scale={} blocks={} pages={} slots={}",
        spec.preset.name, spec.scale, geo.blocks, geo.user_pages, geo.slots_per_page
    )
}

/// A reader or writer that keeps the CRC and the count of the bytes through it.
struct Crc<T> {
    inner: T,
    hasher: crc32fast::Hasher,
    bytes: u64,
}

impl<T> Crc<T> {
    fn new(inner: T) -> Crc<T> {
        Crc {
            inner,
            hasher: crc32fast::Hasher::new(),
            bytes: 0,
        }
    }
}

impl<W: Write> Write for Crc<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Crc<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

fn section(w: &mut impl Write, tag: [u8; 4], body: &[u8]) -> io::Result<()> {
    w.write_all(&tag)?;
    w.write_all(&(body.len() as u64).to_le_bytes())?;
    w.write_all(body)
}

/// A section of `n` u32 values.
fn u32s(
    w: &mut impl Write,
    tag: [u8; 4],
    n: usize,
    values: impl Iterator<Item = u32>,
) -> io::Result<()> {
    w.write_all(&tag)?;
    w.write_all(&(4 * n as u64).to_le_bytes())?;
    let mut buf = Vec::with_capacity(1 << 16);
    for v in values {
        buf.extend_from_slice(&v.to_le_bytes());
        if buf.len() == 1 << 16 {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    w.write_all(&buf)
}

fn read_bytes(r: &mut impl Read, n: u64) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    r.take(n).read_to_end(&mut out)?;
    if out.len() as u64 != n {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(out)
}

fn read_u64s(r: &mut impl Read, n: usize) -> io::Result<Vec<u64>> {
    let bytes = read_bytes(r, 8 * n as u64)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

/// `n` u32 values, read in chunks (the length was checked against the geometry).
fn read_u32s(r: &mut impl Read, n: u64) -> io::Result<Vec<u32>> {
    let mut out = Vec::with_capacity(n as usize);
    let mut buf = vec![0u8; 1 << 16];
    let mut left = n as usize;
    while left > 0 {
        let take = left.min(buf.len() / 4);
        r.read_exact(&mut buf[..take * 4])?;
        out.extend(
            buf[..take * 4]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))),
        );
        left -= take;
    }
    Ok(out)
}
