//! The power-loss check, diskchecker's method: a writer on the machine under test writes
//! numbered, checksummed records at random slots and tells a listener on a second machine
//! `pre` before each write and `post` once the flush returned; the power is cut; after the
//! reboot `verify` reads every slot the listener holds a `post` for. A record acknowledged
//! (posted) and then missing or torn was lost by a drive that acknowledged a flush it had not
//! made durable.
//!
//! Protocol: plain line-oriented TCP, one request per line, one reply line each (`ok …`, or
//! `err TEXT`), lines of at most 1024 bytes; numbers in decimal:
//!
//! ```text
//! begin NAME SLOTS RECORD_BYTES       start a new session              → ok TOKEN
//! pre SEQ SLOT VALUE                  record SEQ is about to be written → ok
//! post SEQ SLOT VALUE                 record SEQ is durable (flush returned) → ok
//! dump NAME TOKEN                     → session NAME SLOTS RECORD_BYTES LAST_MS RECORDS
//!                                       slot SLOT POST_SEQ POST_VALUE POST_MS PRE_SEQ PRE_VALUE  (per slot)
//!                                       end COUNT
//! ```
//!
//! NAME is the target, `%`-encoded ([`wire::session_name`]). `pre` and `post` go to the
//! connection's own session, in order (SEQ 1, 2, …, each `post` after its `pre`). Only the
//! TOKEN `begin` answered reads a session back, and nobody can restart one: a new `begin` is a
//! new session. Times are milliseconds since the session began, on the listener's clock;
//! LAST_MS is the last message the writer sent (about when the power went), RECORDS the
//! records it acknowledged. A slot line's PRE_SEQ is 0 when no write newer than the posted one
//! had begun there.
//!
//! Record layout (4096 bytes, slot N at byte N × 4096): `SSDFPLP1`, then little-endian u64
//! sequence number, slot, random value and Unix time in ns, random filler derived from the
//! value, and a CRC-32 of everything before it in the last 4 bytes ([`crate::device::record`]).
//! Records are written and read back through the device's record interface; a simulated drive
//! recognises a record among those the listener says went to the slot, and keeps what its
//! cache still holds when the writing ends (`ssdfade sim power-cut TARGET` then cuts its power
//! before `verify`).

mod client;
mod listener;
mod store;
pub mod wire;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::device::record::RecordReader;
pub use crate::device::record::{decode, encode, Found, RecordId, RECORD};
pub use crate::results::plp::{Loss, Outcome, VerifyReport, MIN_ACKNOWLEDGED};
use client::Client;
pub use listener::{listen, ListenRequest, Listening};
pub use store::MAX_SLOTS;

/// The listener's default port (diskchecker's).
pub const DEFAULT_PORT: u16 = 5400;

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
    /// The listener's token for this session: `plp verify --token` needs it.
    pub token: String,
    pub slots: u64,
    pub records_written: u64,
    pub records_acknowledged: u64,
    pub seconds: f64,
}

/// Writes records until `stop` or the duration; returns what was written. `began` hears the
/// session's token as soon as the listener gave it, before the first record.
pub fn write(
    req: &WriteRequest,
    stop: &AtomicBool,
    began: &mut dyn FnMut(&WriteReport),
) -> anyhow::Result<WriteReport> {
    if req.duration == Some(Duration::ZERO) {
        crate::bad_input!("--duration 0s writes no record: give how long to write (e.g. 10m), or leave it out to write until Ctrl-C");
    }
    let mut store = crate::device::open(&req.target)?.open_storage(
        &crate::device::Gates {
            writes: true,
            destroy_data: req.destroy_data.clone(),
            force: req.force,
            size: req.size,
        },
        Some("the power-loss check"),
    )?;
    let size = store.size();
    if req.span.is_some_and(|s| s > MAX_SLOTS * RECORD) {
        crate::bad_input!(
            "--span is at most {} (a listener keeps {MAX_SLOTS} slots per session)",
            crate::units::format_bytes(MAX_SLOTS * RECORD)
        );
    }
    let span = req.span.unwrap_or(size).min(size).min(MAX_SLOTS * RECORD);
    let slots = span / RECORD;
    if slots == 0 {
        crate::bad_input!("--span {span} holds no 4096-byte record slot: give at least 4k");
    }
    let mut client = Client::connect(&req.log)?;
    let token = client.request(&format!(
        "begin {} {slots} {RECORD}",
        wire::session_name(&req.target)
    ))?;
    anyhow::ensure!(
        wire::valid_token(&token),
        "the listener at {} answered begin without a session token: is it an ssdfade plp listener of this version?",
        req.log
    );
    let mut report = WriteReport {
        target: req.target.clone(),
        token,
        slots,
        ..Default::default()
    };
    began(&report);
    let mut rng = ChaCha8Rng::seed_from_u64(req.seed);
    let start = Instant::now();
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
            store.put(r, !req.no_flush)?;
            client.request(&format!("post {} {} {}", r.seq, r.slot, r.value))?;
            report.records_acknowledged += 1;
        }
        Ok(())
    })();
    report.seconds = start.elapsed().as_secs_f64();
    // Kept whatever the writing ended with.
    store.close()?;
    result.with_context(|| {
        format!(
            "after {} acknowledged records (the listener keeps them: plp verify --token {})",
            report.records_acknowledged, report.token
        )
    })?;
    Ok(report)
}

// ---------------------------------------------------------------- verify

/// The listener's account of a session: its last message (ms), records acknowledged, and the
/// slots holding a posted record.
struct Dump {
    last_ms: u64,
    records: u64,
    slots: Vec<(u64, SlotLog)>,
}

/// Asks the listener for the session `name` and reads its answer, trusting none of it: every
/// line is bounded, every slot inside the session and named once, the count checked.
fn dump(client: &mut Client, name: &str, token: &str, target: &str) -> anyhow::Result<Dump> {
    let addr = client.addr.clone();
    let odd = |line: &str| {
        anyhow::anyhow!(
            "the listener at {addr} sent '{}' where the session belongs: is it an ssdfade plp listener of this version?",
            wire::shown(line)
        )
    };
    client.send(&format!("dump {name} {token}"))?;
    let head = client.line()?;
    if let Some(why) = head.strip_prefix("err ") {
        crate::bad_input!(
            "the listener at {addr} has nothing for {target}: {}",
            wire::shown(why)
        );
    }
    let h: Vec<&str> = head.split_whitespace().collect();
    let num = |w: &str| w.parse::<u64>().ok();
    let (slots, last_ms, records) = match h.as_slice() {
        ["session", n, slots, bytes, last, records] if *n == name => {
            match (num(slots), num(bytes), num(last), num(records)) {
                (Some(s), Some(RECORD), Some(l), Some(r)) if (1..=MAX_SLOTS).contains(&s) => {
                    (s, l, r)
                }
                _ => return Err(odd(&head)),
            }
        }
        _ => return Err(odd(&head)),
    };
    let mut logs: Vec<(u64, SlotLog)> = Vec::new();
    loop {
        let line = client.line()?;
        let n: Option<Vec<u64>> = line.split_whitespace().skip(1).map(num).collect();
        match (line.split_whitespace().next(), n.as_deref()) {
            (Some("end"), Some(&[count])) if count == logs.len() as u64 => break,
            (Some("slot"), Some(&[slot, post_seq, post_value, post_ms, pre_seq, pre_value]))
                if slot < slots && post_seq > 0 && logs.last().is_none_or(|l| l.0 < slot) =>
            {
                logs.push((
                    slot,
                    SlotLog {
                        post_seq,
                        post_value,
                        post_ms,
                        pre_seq,
                        pre_value,
                    },
                ));
            }
            _ => return Err(odd(&line)),
        }
    }
    Ok(Dump {
        last_ms,
        records,
        slots: logs,
    })
}

/// Reads every slot the listener holds a `post` for and classifies it.
pub fn verify(target: &str, log: &str, token: &str) -> anyhow::Result<VerifyReport> {
    if !wire::valid_token(token) {
        crate::bad_input!(
            "--token {} is not a session token: give the 32 hex digits plp write printed (the listener printed them too)",
            wire::shown(token)
        );
    }
    let mut client = Client::connect(log)?;
    let dump = dump(&mut client, &wire::session_name(target), token, target)?;
    drop(client);
    let mut read = reader(target)?;
    let acknowledged = dump.slots.len() as u64;
    let mut report = VerifyReport {
        target: target.into(),
        listener: log.into(),
        verified_utc: crate::results::utc_now(),
        acknowledged,
        acknowledged_bytes: acknowledged * RECORD,
        records_acknowledged: dump.records,
        seconds: dump.last_ms as f64 / 1000.0,
        min_acknowledged: MIN_ACKNOWLEDGED,
        ..Default::default()
    };
    for (slot, l) in dump.slots {
        let found = read_slot(read.as_mut(), slot, &l)?;
        let loss = |found: String| Loss {
            slot,
            seq: l.post_seq,
            acknowledged_s_before_end: dump.last_ms.saturating_sub(l.post_ms) as f64 / 1000.0,
            found,
        };
        let in_flight = l.pre_seq > l.post_seq;
        match found {
            Slot::Is(r) if r == (l.post_seq, l.post_value) => report.intact += 1,
            Slot::Is(r) if in_flight && r == (l.pre_seq, l.pre_value) => {
                report.newer_in_flight += 1
            }
            Slot::Torn if in_flight => report.newer_in_flight += 1,
            Slot::Torn => report
                .torn
                .push(loss("a torn record (checksum fails)".into())),
            Slot::Is((seq, _)) if seq < l.post_seq => {
                report.lost.push(loss(format!("record {seq} (older)")))
            }
            Slot::Is((seq, _)) => report.lost.push(loss(format!(
                "record {seq} with another value (not one this session acknowledged)"
            ))),
            Slot::Other(what) => report.lost.push(loss(what)),
        }
    }
    report.outcome = report.judged();
    Ok(report)
}

/// What a slot holds, as far as verify cares.
enum Slot {
    /// A whole record of this slot: (sequence, value).
    Is((u64, u64)),
    Torn,
    Other(String),
}

fn reader(target: &str) -> anyhow::Result<Box<dyn RecordReader>> {
    crate::device::open(target)?.open_readback()
}

/// What a slot holds, among the records `log` says were written there.
fn read_slot(reader: &mut dyn RecordReader, slot: u64, log: &SlotLog) -> anyhow::Result<Slot> {
    let id = |seq, value| RecordId { seq, slot, value };
    let mut written = vec![id(log.post_seq, log.post_value)];
    if log.pre_seq > 0 {
        written.push(id(log.pre_seq, log.pre_value));
    }
    Ok(match reader.get(slot, &written)? {
        Found::Record(r) if r.slot == slot => Slot::Is((r.seq, r.value)),
        Found::Record(r) => Slot::Other(format!("record {} of slot {}", r.seq, r.slot)),
        Found::Torn => Slot::Torn,
        Found::Empty => Slot::Other("no record".into()),
        Found::Other(what) => Slot::Other(what),
    })
}

/// Writes `plp.json` into `out` (default `results/<UTC time>-<target name>-plp`).
pub fn record(report: &VerifyReport, out: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let name = crate::device::open(&report.target)?.short_name();
    let (dir, _) = crate::results::claim_dir(out.as_deref(), &format!("{name}-plp"), "plp.json")?;
    crate::results::write_json_atomic(&dir.join("plp.json"), report)?;
    Ok(dir)
}

/// The summary `plp verify` prints.
pub fn summary(r: &VerifyReport) -> String {
    let mut t = format!(
        "power-loss check of {}: {} acknowledged records checked ({}, {} acknowledged in {:.1} s of writing), {} intact, {} overwritten by a newer write in flight, {} lost, {} torn\n",
        r.target,
        r.acknowledged,
        crate::units::format_bytes(r.acknowledged_bytes),
        r.records_acknowledged,
        r.seconds,
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
    t.push_str(&match r.outcome {
        Outcome::Pass => format!(
            "PASS: all {} acknowledged records ({}, {:.1} s of writing) survived\n",
            r.acknowledged,
            crate::units::format_bytes(r.acknowledged_bytes),
            r.seconds
        ),
        Outcome::Fail => "FAIL: the device acknowledged writes it did not keep\n".into(),
        Outcome::NotTested => format!(
            "NOT TESTED: {} acknowledged records are too few to show anything (a pass needs at least {}): run plp write longer before cutting the power\n",
            r.acknowledged, r.min_acknowledged
        ),
    });
    t
}
