//! The power-loss check, diskchecker's method: a writer on the machine under test writes
//! numbered, checksummed records at random slots and tells a listener on a second machine
//! `pre` before each write and `post` once the flush returned; the power is cut; after the
//! reboot `verify` reads every slot the listener holds a `post` for. A record acknowledged
//! (posted) and then missing or torn was lost by a drive that acknowledged a flush it had not
//! made durable.
//!
//! Protocol: plain line-oriented TCP, one request per line, one reply line each (`ok`, or
//! `err TEXT`); numbers in decimal:
//!
//! ```text
//! begin NAME SLOTS RECORD_BYTES       start (or restart) the session NAME  → ok
//! pre SEQ SLOT VALUE                  record SEQ is about to be written     → ok
//! post SEQ SLOT VALUE                 record SEQ is durable (flush returned) → ok
//! dump NAME                           → session NAME SLOTS RECORD_BYTES LAST_MS
//!                                       slot SLOT POST_SEQ POST_VALUE POST_MS PRE_SEQ PRE_VALUE  (per slot)
//!                                       end COUNT
//! ```
//!
//! Times are milliseconds since the session began on the listener's clock; LAST_MS is the last
//! message the writer sent (about when the power went). A slot line's PRE_SEQ is 0 when no
//! write newer than the posted one had begun there.
//!
//! Record layout (4096 bytes, slot N at byte N × 4096): `SSDFPLP1`, then little-endian u64
//! sequence number, slot, random value and Unix time in ns, random filler derived from the
//! value, and a CRC-32 of everything before it in the last 4 bytes.
//!
//! A simulated drive keeps content tags instead of bytes, so on `sim:` targets a record is the
//! tag of its (sequence, value). The writer saves the drive with what its cache still holds;
//! `ssdfade sim power-cut TARGET` then cuts its power before `verify`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::device::{Readback, Storage};
use crate::engine::AlignedBuf;
use crate::pattern::{mix64, WriteContent};
pub use crate::results::plp::{Loss, VerifyReport};

/// Bytes per record (and per slot).
pub const RECORD: u64 = 4096;
const MAGIC: &[u8; 8] = b"SSDFPLP1";
/// The listener's default port (diskchecker's).
pub const DEFAULT_PORT: u16 = 5400;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A whole record.
    Record(RecordId),
    /// The magic is there but the checksum fails: a write cut half way.
    Torn,
    /// No record (never written, or the write did not survive).
    Empty,
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

/// The content stamp a simulated drive keeps for a record.
fn sim_stamp(seq: u64, value: u64) -> u64 {
    mix64(seq ^ value.rotate_left(17))
}

/// The tag a simulated drive shows for a record's page.
fn sim_tag(seq: u64, value: u64) -> u32 {
    (mix64(sim_stamp(seq, value)) as u32) | 1
}

// ---------------------------------------------------------------- listener

/// What the listener holds about one slot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SlotLog {
    pub post_seq: u64,
    pub post_value: u64,
    pub post_ms: u64,
    /// A write newer than the posted one that had begun (0: none).
    pub pre_seq: u64,
    pub pre_value: u64,
}

/// One writer's session as the listener holds it.
#[derive(Clone, Debug, Default)]
pub struct Session {
    pub slots: u64,
    pub record_bytes: u64,
    pub last_ms: u64,
    pub log: HashMap<u64, SlotLog>,
    started: Option<Instant>,
}

type Sessions = Arc<Mutex<HashMap<String, Session>>>;

/// Listens on `addr` until `stop` is set; `ready` hears the address it bound (port 0 picks one).
pub fn listen(
    addr: &str,
    stop: &AtomicBool,
    ready: &mut dyn FnMut(std::net::SocketAddr),
) -> anyhow::Result<()> {
    let listener = match TcpListener::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            crate::bad_input!("cannot listen on {addr}: {e} (choose another --port or --bind)")
        }
    };
    listener.set_nonblocking(true)?;
    ready(listener.local_addr()?);
    let sessions: Sessions = Arc::default();
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((stream, peer)) => {
                let sessions = sessions.clone();
                std::thread::spawn(move || {
                    if let Err(e) = serve(stream, &sessions) {
                        crate::note!("ssdfade plp listen: connection from {peer}: {e:#}");
                    }
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(e).context("accepting a connection"),
        }
    }
    Ok(())
}

fn serve(stream: TcpStream, sessions: &Sessions) -> anyhow::Result<()> {
    stream.set_nonblocking(false)?;
    let mut out = stream.try_clone()?;
    let reader = BufReader::new(stream);
    let mut current: Option<String> = None;
    for line in reader.lines() {
        let line = line?;
        let reply = handle(&line, &mut current, sessions);
        out.write_all(reply.as_bytes())?;
    }
    Ok(())
}

/// Answers one request line (the reply ends with a newline).
fn handle(line: &str, current: &mut Option<String>, sessions: &Sessions) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let num = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
    let mut all = sessions.lock().expect("sessions lock");
    match words.first().copied() {
        Some("begin") => match (words.get(1), num(2), num(3)) {
            (Some(name), Some(slots), Some(bytes)) => {
                all.insert(
                    name.to_string(),
                    Session {
                        slots,
                        record_bytes: bytes,
                        started: Some(Instant::now()),
                        ..Default::default()
                    },
                );
                crate::note!("ssdfade plp listen: session {name} began ({slots} slots)");
                *current = Some(name.to_string());
                "ok\n".into()
            }
            _ => "err usage: begin NAME SLOTS RECORD_BYTES\n".into(),
        },
        Some(kind @ ("pre" | "post")) => {
            let Some(session) = current.as_ref().and_then(|n| all.get_mut(n)) else {
                return "err no session: send begin first\n".into();
            };
            let (Some(seq), Some(slot), Some(value)) = (num(1), num(2), num(3)) else {
                return format!("err usage: {kind} SEQ SLOT VALUE\n");
            };
            let ms = session
                .started
                .map_or(0, |s| s.elapsed().as_millis() as u64);
            session.last_ms = ms;
            let entry = session.log.entry(slot).or_default();
            if kind == "pre" {
                entry.pre_seq = seq;
                entry.pre_value = value;
            } else if seq >= entry.post_seq {
                entry.post_seq = seq;
                entry.post_value = value;
                entry.post_ms = ms;
                if entry.pre_seq <= seq {
                    entry.pre_seq = 0;
                    entry.pre_value = 0;
                }
            }
            "ok\n".into()
        }
        Some("dump") => {
            let Some(s) = words.get(1).and_then(|n| all.get(*n)) else {
                return format!(
                    "err no session {}: was plp write pointed at this listener?\n",
                    words.get(1).unwrap_or(&"")
                );
            };
            let mut text = format!(
                "session {} {} {} {}\n",
                words[1], s.slots, s.record_bytes, s.last_ms
            );
            let mut count = 0;
            for (slot, l) in &s.log {
                if l.post_seq > 0 {
                    text.push_str(&format!(
                        "slot {slot} {} {} {} {} {}\n",
                        l.post_seq, l.post_value, l.post_ms, l.pre_seq, l.pre_value
                    ));
                    count += 1;
                }
            }
            text.push_str(&format!("end {count}\n"));
            text
        }
        _ => format!("err unknown request '{line}': use begin, pre, post or dump\n"),
    }
}

// ---------------------------------------------------------------- client

struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Client {
    fn connect(addr: &str) -> anyhow::Result<Client> {
        let Ok(mut addrs) = addr.to_socket_addrs() else {
            crate::bad_input!("--log {addr} is not HOST:PORT (e.g. 192.168.1.5:5400)");
        };
        let Some(sock) = addrs.next() else {
            crate::bad_input!("--log {addr} does not resolve to an address");
        };
        let stream = match TcpStream::connect_timeout(&sock, Duration::from_secs(10)) {
            Ok(s) => s,
            Err(e) => crate::bad_input!(
                "cannot reach the listener at {addr}: {e} (start ssdfade plp listen there first)"
            ),
        };
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        stream.set_nodelay(true)?;
        Ok(Client {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    fn line(&mut self) -> anyhow::Result<String> {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line)?;
        anyhow::ensure!(n > 0, "the listener closed the connection");
        Ok(line.trim_end().to_string())
    }

    /// Sends one request and checks the `ok`.
    fn request(&mut self, text: &str) -> anyhow::Result<()> {
        self.writer.write_all(format!("{text}\n").as_bytes())?;
        let reply = self.line()?;
        anyhow::ensure!(reply == "ok", "listener answered '{reply}' to '{text}'");
        Ok(())
    }
}

// ---------------------------------------------------------------- writer

/// What `plp write` does.
#[derive(Clone, Debug)]
pub struct WriteRequest {
    pub target: String,
    pub log: String,
    pub destroy_data: Option<PathBuf>,
    pub force: bool,
    pub size: Option<u64>,
    /// Bytes of the target holding record slots, from offset 0 (default: all of it).
    pub span: Option<u64>,
    pub duration: Option<Duration>,
    /// Acknowledge when the write returns, without a flush (shows what a volatile cache loses).
    pub no_flush: bool,
    pub seed: u64,
}

/// What the writer did.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WriteReport {
    pub target: String,
    pub slots: u64,
    pub records_written: u64,
    pub records_acknowledged: u64,
    pub seconds: f64,
}

/// Writes records until `stop` or the duration; returns what was written.
pub fn write(req: &WriteRequest, stop: &AtomicBool) -> anyhow::Result<WriteReport> {
    let mut store = crate::device::open(&req.target)?.open_storage(
        &crate::device::Gates {
            writes: true,
            destroy_data: req.destroy_data.clone(),
            force: req.force,
            size: req.size,
        },
        Some("the power-loss check"),
    )?;
    let size = match &store {
        Storage::File(t) => t.size,
        Storage::Model(drive) => {
            let spec = &drive.device().spec;
            spec.size_bytes() / u64::from(spec.scale)
        }
    };
    let span = req.span.unwrap_or(size).min(size);
    let slots = span / RECORD;
    if slots == 0 {
        crate::bad_input!("--span {span} holds no 4096-byte record slot: give at least 4k");
    }
    let mut client = Client::connect(&req.log)?;
    client.request(&format!(
        "begin {} {slots} {RECORD}",
        session_name(&req.target)
    ))?;
    let mut rng = ChaCha8Rng::seed_from_u64(req.seed);
    let mut buf = AlignedBuf::new(RECORD as usize)?;
    let start = Instant::now();
    let mut report = WriteReport {
        target: req.target.clone(),
        slots,
        ..Default::default()
    };
    let mut seq = 0u64;
    let result = (|| -> anyhow::Result<()> {
        while !stop.load(Ordering::Relaxed) && req.duration.is_none_or(|d| start.elapsed() < d) {
            seq += 1;
            let r = RecordId {
                seq,
                slot: rng.next_u64() % slots,
                value: rng.next_u64() | 1,
            };
            client.request(&format!("pre {} {} {}", r.seq, r.slot, r.value))?;
            report.records_written += 1;
            match &mut store {
                Storage::File(t) => {
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_nanos() as u64);
                    encode(r, now, buf.as_mut_slice());
                    t.file
                        .write_all_at(buf.as_slice(), r.slot * RECORD)
                        .with_context(|| format!("writing record {} at slot {}", r.seq, r.slot))?;
                    if !req.no_flush {
                        t.file
                            .sync_data()
                            .with_context(|| format!("flushing record {}", r.seq))?;
                    }
                }
                Storage::Model(drive) => {
                    let dev = drive.device_mut();
                    let content = WriteContent {
                        stamp: sim_stamp(r.seq, r.value),
                        key: 0,
                        pool_offset: 0,
                        duplicate: false,
                    };
                    dev.write(r.slot * RECORD, RECORD, &content, 1.0);
                    if !req.no_flush {
                        dev.flush();
                    }
                }
            }
            client.request(&format!("post {} {} {}", r.seq, r.slot, r.value))?;
            report.records_acknowledged += 1;
        }
        Ok(())
    })();
    report.seconds = start.elapsed().as_secs_f64();
    if let Storage::Model(mut drive) = store {
        // Saved with its cache as it is: `ssdfade sim power-cut` decides what survives.
        drive.save()?;
    }
    result?;
    Ok(report)
}

/// The session name of a target (the same for write and verify).
fn session_name(target: &str) -> String {
    target.split_whitespace().collect::<Vec<_>>().join("_")
}

// ---------------------------------------------------------------- verify

impl VerifyReport {
    pub fn passed(&self) -> bool {
        self.lost.is_empty() && self.torn.is_empty()
    }
}

/// Reads every slot the listener holds a `post` for and classifies it.
pub fn verify(target: &str, log: &str) -> anyhow::Result<VerifyReport> {
    let name = session_name(target);
    let mut client = Client::connect(log)?;
    client
        .writer
        .write_all(format!("dump {name}\n").as_bytes())?;
    let head = client.line()?;
    if let Some(why) = head.strip_prefix("err ") {
        crate::bad_input!("the listener at {log} has nothing for {target}: {why}");
    }
    let h: Vec<&str> = head.split_whitespace().collect();
    anyhow::ensure!(
        h.len() == 5 && h[0] == "session",
        "unexpected reply from the listener: {head}"
    );
    let last_ms: u64 = h[4].parse()?;
    let mut logs = Vec::new();
    loop {
        let line = client.line()?;
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.first().copied() {
            Some("end") => break,
            Some("slot") if w.len() == 7 => {
                let n: Vec<u64> = w[1..]
                    .iter()
                    .map(|x| x.parse())
                    .collect::<Result<_, _>>()
                    .with_context(|| format!("bad slot line from the listener: {line}"))?;
                logs.push((
                    n[0],
                    SlotLog {
                        post_seq: n[1],
                        post_value: n[2],
                        post_ms: n[3],
                        pre_seq: n[4],
                        pre_value: n[5],
                    },
                ));
            }
            _ => anyhow::bail!("unexpected reply from the listener: {line}"),
        }
    }
    logs.sort_by_key(|l| l.0);
    let read = reader(target)?;
    let mut report = VerifyReport {
        target: target.into(),
        listener: log.into(),
        verified_utc: crate::results::utc_now(),
        acknowledged: logs.len() as u64,
        ..Default::default()
    };
    let mut buf = AlignedBuf::new(RECORD as usize)?;
    for (slot, l) in logs {
        let found = read_slot(&read, slot, &l, &mut buf)?;
        let loss = |found: String| Loss {
            slot,
            seq: l.post_seq,
            acknowledged_s_before_end: last_ms.saturating_sub(l.post_ms) as f64 / 1000.0,
            found,
        };
        let in_flight = l.pre_seq > l.post_seq;
        match found {
            Slot::Is(seq) if seq == l.post_seq => report.intact += 1,
            Slot::Is(seq) if in_flight && seq == l.pre_seq => report.newer_in_flight += 1,
            Slot::Torn if in_flight => report.newer_in_flight += 1,
            Slot::Torn => report
                .torn
                .push(loss("a torn record (checksum fails)".into())),
            Slot::Is(seq) => report.lost.push(loss(format!("record {seq} (older)"))),
            Slot::Other(what) => report.lost.push(loss(what)),
        }
    }
    Ok(report)
}

/// What a slot holds, as far as verify cares.
enum Slot {
    Is(u64),
    Torn,
    Other(String),
}

fn reader(target: &str) -> anyhow::Result<Readback> {
    crate::device::open(target)?.open_readback()
}

/// What a slot holds; a simulated drive's tag is matched against the records `log` names.
fn read_slot(
    reader: &Readback,
    slot: u64,
    log: &SlotLog,
    buf: &mut AlignedBuf,
) -> anyhow::Result<Slot> {
    {
        match reader {
            Readback::File(t) => {
                t.file
                    .read_exact_at(buf.as_mut_slice(), slot * RECORD)
                    .with_context(|| format!("reading slot {slot} of {}", t.path.display()))?;
                Ok(match decode(buf.as_slice()) {
                    Found::Record(r) if r.slot == slot => Slot::Is(r.seq),
                    Found::Record(r) => Slot::Other(format!("record {} of slot {}", r.seq, r.slot)),
                    Found::Torn => Slot::Torn,
                    Found::Empty => Slot::Other("no record".into()),
                })
            }
            Readback::Model(dev) => {
                let tag = dev.content_tag(slot as u32);
                Ok(if tag == sim_tag(log.post_seq, log.post_value) {
                    Slot::Is(log.post_seq)
                } else if log.pre_seq > 0 && tag == sim_tag(log.pre_seq, log.pre_value) {
                    Slot::Is(log.pre_seq)
                } else if tag == 0 {
                    Slot::Other("no record".into())
                } else {
                    Slot::Other(format!("other content (tag {tag:08x})"))
                })
            }
        }
    }
}

/// Writes `plp.json` into `out` (default `results/<UTC time>-<target name>-plp`).
pub fn record(report: &VerifyReport, out: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let name = crate::device::open(&report.target)?.short_name();
    let dir = crate::results::claim_dir(out.as_deref(), &format!("{name}-plp"), "plp.json")?;
    crate::results::write_json_atomic(&dir.join("plp.json"), report)?;
    Ok(dir)
}

/// The summary `plp verify` prints.
pub fn summary(r: &VerifyReport) -> String {
    let mut t = format!(
        "power-loss check of {}: {} acknowledged records, {} intact, {} overwritten by a newer write in flight, {} lost, {} torn\n",
        r.target,
        r.acknowledged,
        r.intact,
        r.newer_in_flight,
        r.lost.len(),
        r.torn.len()
    );
    for l in r.lost.iter().chain(&r.torn).take(20) {
        t.push_str(&format!(
            "  slot {}: record {} acknowledged {:.3} s before the end is lost: found {}\n",
            l.slot, l.seq, l.acknowledged_s_before_end, l.found
        ));
    }
    let more = (r.lost.len() + r.torn.len()).saturating_sub(20);
    if more > 0 {
        t.push_str(&format!("  … and {more} more (all in plp.json)\n"));
    }
    t.push_str(if r.passed() {
        "PASS: every acknowledged record survived\n"
    } else {
        "FAIL: the device acknowledged writes it did not keep\n"
    });
    t
}
