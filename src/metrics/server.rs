//! The `/metrics` endpoint: one route on a small HTTP server in a background thread, built to
//! outlive hostile clients. It serves at most [`MAX_CONNECTIONS`] at once and at most
//! [`MAX_PER_PEER`] of them from one address, so one machine cannot take every connection
//! (more are answered `503` and closed, never by running out of descriptors), gives a client
//! [`TIMEOUT`] to send a
//! request of at most [`MAX_REQUEST`] bytes, and keeps listening when `accept` fails (EMFILE, a
//! reset), so neither a slow scraper nor a descriptor shortage stops the endpoint or the run.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{IpAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use super::Exporter;

/// Connections answered at once; one more is refused with `503`.
pub const MAX_CONNECTIONS: usize = 16;
/// Connections answered at once from one address (half of [`MAX_CONNECTIONS`]): one more from
/// it is refused with `503` while another machine is still served.
pub const MAX_PER_PEER: usize = MAX_CONNECTIONS / 2;
/// The longest request head read; a longer one is answered `431`.
pub const MAX_REQUEST: usize = 8 * 1024;
/// A client has this long to send its request (and to take the answer).
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// Binds `addr` (`ADDR:PORT`); an address that cannot be bound is bad input.
pub(super) fn bind(addr: &str) -> anyhow::Result<TcpListener> {
    match TcpListener::bind(addr) {
        Ok(listener) => Ok(listener),
        Err(e) => crate::bad_input!(
            "--metrics-listen {addr}: cannot listen there ({e}); give ADDR:PORT of a free local port, e.g. 127.0.0.1:9477"
        ),
    }
}

/// Answers `GET /metrics` with the exposition text, anything else with an error status, until
/// the process ends (or the exporter is gone).
pub(super) fn serve(listener: TcpListener, exporter: Weak<Exporter>) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("metrics".into())
        .spawn(move || accept_loop(&listener, &exporter))?;
    Ok(())
}

fn accept_loop(listener: &TcpListener, exporter: &Weak<Exporter>) {
    let open = Arc::new(Mutex::new(Open::default()));
    let mut last_complaint: Option<Instant> = None;
    loop {
        let (stream, peer) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of descriptors or memory, or a connection reset before it was taken:
                // the endpoint keeps going and says so, at most once a minute.
                if last_complaint.is_none_or(|t| t.elapsed() > Duration::from_secs(60)) {
                    crate::note!(
                        "ssdfade: metrics endpoint cannot take a connection: {e} (still listening)"
                    );
                    last_complaint = Some(Instant::now());
                }
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        if exporter.strong_count() == 0 {
            break;
        }
        let slot = match Slot::take(&open, peer.ip()) {
            Ok(slot) => slot,
            Err(busy) => {
                let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                respond(&stream, "503 Service Unavailable", "text/plain", &busy);
                continue;
            }
        };
        let exporter = exporter.clone();
        let spawned = std::thread::Builder::new()
            .name("metrics-client".into())
            .spawn(move || {
                let _slot = slot;
                answer(stream, &exporter);
            });
        if let Err(e) = spawned {
            // The closure (with its slot and the connection) was dropped.
            crate::note!("ssdfade: metrics endpoint cannot serve {peer}: {e}");
        }
    }
}

/// The connections being served: in all and per address.
#[derive(Default)]
struct Open {
    total: usize,
    per_peer: HashMap<IpAddr, usize>,
}

/// One connection being served, counted (in all and for its address) until dropped.
struct Slot {
    open: Arc<Mutex<Open>>,
    peer: IpAddr,
}

impl Slot {
    /// A slot for a connection from `peer`, or why there is none (the words of the `503`).
    fn take(open: &Arc<Mutex<Open>>, peer: IpAddr) -> Result<Self, String> {
        // An IPv4 client of a dual-stack socket is the same machine as over IPv4.
        let peer = peer.to_canonical();
        let mut o = open.lock().unwrap_or_else(|e| e.into_inner());
        if o.total >= MAX_CONNECTIONS {
            return Err(format!(
                "{MAX_CONNECTIONS} connections are open; try again when one ends"
            ));
        }
        let mine = o.per_peer.entry(peer).or_insert(0);
        if *mine >= MAX_PER_PEER {
            return Err(format!(
                "{peer} holds {MAX_PER_PEER} connections, the most one address may; try again when one ends"
            ));
        }
        *mine += 1;
        o.total += 1;
        Ok(Slot {
            open: open.clone(),
            peer,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut o = self.open.lock().unwrap_or_else(|e| e.into_inner());
        o.total -= 1;
        if let Some(n) = o.per_peer.get_mut(&self.peer) {
            *n -= 1;
            if *n == 0 {
                o.per_peer.remove(&self.peer);
            }
        }
    }
}

/// Reads one bounded request within [`TIMEOUT`] and answers it; the connection then closes.
fn answer(stream: TcpStream, exporter: &Weak<Exporter>) {
    if stream.set_read_timeout(Some(TIMEOUT)).is_err()
        || stream.set_write_timeout(Some(TIMEOUT)).is_err()
    {
        return;
    }
    let head = match read_head(&stream) {
        Head::Complete(head) => head,
        Head::TooLong => {
            let why = format!("a request head is at most {MAX_REQUEST} bytes");
            respond(
                &stream,
                "431 Request Header Fields Too Large",
                "text/plain",
                &why,
            );
            return drain(&stream);
        }
        Head::Gone => return,
    };
    let line = head.lines().next().unwrap_or("");
    let mut words = line.split(' ');
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    if method != "GET" {
        return respond(
            &stream,
            "405 Method Not Allowed",
            "text/plain",
            "ssdfade: GET /metrics",
        );
    }
    if target.split('?').next() != Some("/metrics") {
        return respond(
            &stream,
            "404 Not Found",
            "text/plain",
            "ssdfade: metrics are on /metrics",
        );
    }
    let Some(exporter) = exporter.upgrade() else {
        return;
    };
    respond(
        &stream,
        "200 OK",
        "application/openmetrics-text; version=1.0.0; charset=utf-8",
        &exporter.encode(),
    );
}

enum Head {
    Complete(String),
    TooLong,
    /// The client hung up, went silent or dawdled past [`TIMEOUT`].
    Gone,
}

/// The request up to its blank line, read with a bound on size and on total time (a client
/// trickling a byte at a time is cut off like a silent one).
fn read_head(mut stream: &TcpStream) -> Head {
    let deadline = Instant::now() + TIMEOUT;
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    loop {
        let ends =
            |h: &[u8]| h.windows(4).any(|w| w == b"\r\n\r\n") || h.windows(2).any(|w| w == b"\n\n");
        if ends(&head) {
            return Head::Complete(String::from_utf8_lossy(&head).into_owned());
        }
        if head.len() > MAX_REQUEST {
            return Head::TooLong;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Head::Gone;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return Head::Gone,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
}

/// Writes a whole HTTP/1.1 answer; a client that hung up is its own problem.
fn respond(mut stream: &TcpStream, status: &str, content_type: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()))
        .and_then(|()| stream.flush());
}

/// Reads and drops what the client still sends (a bounded amount, for a second) before the
/// connection closes, so that the answer reaches it rather than a reset.
fn drain(mut stream: &TcpStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    let mut buf = [0u8; 4096];
    for _ in 0..64 {
        if matches!(stream.read(&mut buf), Ok(0) | Err(_)) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One address takes at most half the connections; another is served beside it, and the
    /// total bound holds over all addresses; a slot dropped is free again.
    #[test]
    fn one_address_cannot_take_every_connection() {
        let open = Arc::new(Mutex::new(Open::default()));
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        let mut held: Vec<Slot> = (0..MAX_PER_PEER)
            .map(|_| Slot::take(&open, a).unwrap())
            .collect();
        let busy = Slot::take(&open, mapped).err().unwrap();
        assert!(busy.starts_with("127.0.0.1 holds 8 connections"), "{busy}");
        for i in 0..MAX_CONNECTIONS - MAX_PER_PEER {
            let other: IpAddr = format!("10.0.0.{i}").parse().unwrap();
            held.push(Slot::take(&open, other).unwrap());
        }
        let full = Slot::take(&open, "10.0.1.1".parse().unwrap())
            .err()
            .unwrap();
        assert!(full.starts_with("16 connections are open"), "{full}");
        held.remove(0);
        assert!(Slot::take(&open, a).is_ok());
        drop(held);
        let o = open.lock().unwrap();
        assert_eq!((o.total, o.per_peer.len()), (0, 0));
    }
}
