//! `plp listen`: the listener on the second machine. It answers each connection in its own
//! thread, up to a limit it derives from the open-file limit (more are refused with a line, not
//! by running out of descriptors); lines are bounded, idle connections closed, one machine
//! holds at most [`MAX_SESSIONS_PER_PEER`] of the [`MAX_SESSIONS`] sessions, and every session
//! is kept on disk ([`super::store`]) under a token only its writer learns.

use std::io::{BufReader, BufWriter, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::store::{self, Writing, MAX_SESSIONS, MAX_SESSIONS_PER_PEER, MAX_SLOTS};
use super::wire::{self, Line};

/// Descriptors one connection may hold: its socket, a second handle on it, a session file.
const FDS_PER_CONNECTION: u64 = 3;
/// Descriptors kept for everything else (standard streams, the listening socket, threads).
const FDS_RESERVED: u64 = 16;
/// Stack of a connection's thread: it reads lines of at most [`wire::MAX_LINE`] bytes and
/// keeps everything larger on the heap. The default 8 MiB of address space each let 64
/// connections under `ulimit -v` take all the process may map, and it aborted.
const CONNECTION_STACK: usize = 256 << 10;

/// How the listener runs.
#[derive(Clone, Debug)]
pub struct ListenRequest {
    /// HOST:PORT to bind (port 0 picks one).
    pub addr: String,
    /// Where sessions are kept.
    pub dir: PathBuf,
    /// Connections served at once (lowered to what the open-file limit allows).
    pub max_connections: usize,
    /// A connection silent for this long is closed.
    pub idle: Duration,
}

/// What the listener tells its user once it is listening.
pub struct Listening {
    pub addr: SocketAddr,
    pub dir: PathBuf,
    pub sessions: usize,
    pub max_connections: usize,
}

/// Listens until `stop` is set; `ready` hears where, before the first connection is taken.
pub fn listen(
    req: &ListenRequest,
    stop: &AtomicBool,
    ready: &mut dyn FnMut(&Listening),
) -> anyhow::Result<()> {
    // Session files are named by their tokens: only the listener's user may list them.
    let made = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&req.dir);
    if let Err(e) = made {
        crate::bad_input!(
            "cannot keep sessions in {}: {e} (give another --dir)",
            req.dir.display()
        );
    }
    let sessions = match store::count(&req.dir) {
        Ok(n) => n,
        Err(e) => crate::bad_input!(
            "cannot read {}: {e} (give another --dir)",
            req.dir.display()
        ),
    };
    let (soft, _) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)?;
    let allowed = soft.saturating_sub(FDS_RESERVED) / FDS_PER_CONNECTION;
    if allowed == 0 {
        crate::bad_input!(
            "the open-file limit ({soft}) leaves no room for a connection: raise it (ulimit -n 1024)"
        );
    }
    let max_connections = req.max_connections.min(allowed as usize);
    let listener = match TcpListener::bind(&req.addr) {
        Ok(l) => l,
        Err(e) => crate::bad_input!(
            "cannot listen on {}: {e} (choose another --port or --bind)",
            req.addr
        ),
    };
    listener.set_nonblocking(true)?;
    ready(&Listening {
        addr: listener.local_addr()?,
        dir: req.dir.clone(),
        sessions,
        max_connections,
    });
    let shared = Arc::new(Shared {
        dir: req.dir.clone(),
        idle: req.idle,
        open: AtomicUsize::new(0),
        begin: Mutex::new(()),
    });
    let mut last_complaint: Option<Instant> = None;
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((stream, peer)) => {
                if shared.open.load(Ordering::SeqCst) >= max_connections {
                    refuse(
                        stream,
                        &format!(
                            "busy: {max_connections} connections are open; try again when one ends"
                        ),
                    );
                    crate::note!("ssdfade plp listen: refused {peer}: {max_connections} connections are open");
                    continue;
                }
                shared.open.fetch_add(1, Ordering::SeqCst);
                let conn = Connection {
                    shared: shared.clone(),
                };
                let spawned = std::thread::Builder::new()
                    .name("plp-connection".into())
                    .stack_size(CONNECTION_STACK)
                    .spawn(move || conn.serve(stream, peer));
                if let Err(e) = spawned {
                    // The closure (and the Connection that counts it) was dropped.
                    crate::note!("ssdfade plp listen: cannot serve {peer}: {e}");
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => {
                // Out of descriptors or memory, or a connection reset before it was taken:
                // the listener keeps going and says so, at most once a minute.
                if last_complaint.is_none_or(|t| t.elapsed() > Duration::from_secs(60)) {
                    crate::note!(
                        "ssdfade plp listen: cannot take a connection: {e} (still listening)"
                    );
                    last_complaint = Some(Instant::now());
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
    Ok(())
}

/// Answers a connection it will not serve with one line.
fn refuse(stream: TcpStream, why: &str) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let _ = (&stream).write_all(format!("err {why}\n").as_bytes());
}

struct Shared {
    dir: PathBuf,
    idle: Duration,
    /// Connections being served.
    open: AtomicUsize,
    /// Held while a session is counted and created.
    begin: Mutex<()>,
}

/// A connection's reads, each line due whole by a deadline: a client that sends a byte now
/// and then never goes quite silent, and would otherwise hold its connection for ever.
struct LineDeadline {
    stream: TcpStream,
    deadline: Instant,
}

impl std::io::Read for LineDeadline {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf)
    }
}

/// One connection; counted in `open` until dropped.
struct Connection {
    shared: Arc<Shared>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.shared.open.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Connection {
    fn serve(self, stream: TcpStream, peer: SocketAddr) {
        if let Err(e) = self.talk(stream, peer) {
            crate::note!("ssdfade plp listen: {peer}: {e}");
        }
    }

    fn talk(&self, stream: TcpStream, peer: SocketAddr) -> anyhow::Result<()> {
        let idle = self.shared.idle;
        stream.set_write_timeout(Some(idle))?;
        stream.set_nodelay(true)?;
        let mut out = BufWriter::new(stream.try_clone()?);
        let mut reader = BufReader::new(LineDeadline {
            stream,
            deadline: Instant::now(),
        });
        let mut session: Option<Writing> = None;
        loop {
            reader.get_mut().deadline = Instant::now() + idle;
            let line = match wire::read_line(&mut reader) {
                Ok(Line::Text(t)) => t,
                Ok(Line::End) => return Ok(()),
                Ok(Line::TooLong) => {
                    let why = format!("a line longer than {} bytes", wire::MAX_LINE);
                    let _ = writeln!(out, "err {why}: closing").and_then(|()| out.flush());
                    anyhow::bail!("sent {why}: closed the connection");
                }
                Ok(Line::NotText) => {
                    let _ = writeln!(out, "err a line that is not text: closing")
                        .and_then(|()| out.flush());
                    anyhow::bail!("sent a line that is not text: closed the connection");
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    anyhow::bail!(
                        "no whole line within {} s: closed the connection",
                        idle.as_secs()
                    );
                }
                Err(e) => anyhow::bail!("reading: {e}"),
            };
            self.answer(&line, &mut session, peer, &mut out)?;
            out.flush()?;
        }
    }

    /// Writes the reply to one request line.
    fn answer(
        &self,
        line: &str,
        session: &mut Option<Writing>,
        peer: SocketAddr,
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
        let reply = match words.first().copied() {
            Some("begin") => match (words.get(1), num(2), num(3), words.len()) {
                (Some(name), Some(slots), Some(bytes), 4) => {
                    self.begin(name, slots, bytes, session, peer)
                }
                _ => Err("usage: begin NAME SLOTS RECORD_BYTES".into()),
            },
            Some(kind @ ("pre" | "post")) => match (session.as_mut(), num(1), num(2), num(3)) {
                (None, ..) => Err("no session on this connection: send begin first".into()),
                (Some(s), Some(seq), Some(slot), Some(value)) if words.len() == 4 => {
                    if kind == "pre" {
                        s.pre(seq, slot, value)
                    } else {
                        s.post(seq, slot, value)
                    }
                    .map(|()| "ok".into())
                }
                _ => Err(format!("usage: {kind} SEQ SLOT VALUE")),
            },
            Some("dump") => match (words.get(1), words.get(2), words.len()) {
                (Some(name), Some(token), 3) => return self.dump(name, token, out),
                _ => Err("usage: dump NAME TOKEN".into()),
            },
            _ => Err(format!(
                "unknown request '{}': use begin, pre, post or dump",
                wire::shown(line)
            )),
        };
        match reply {
            Ok(text) => writeln!(out, "{text}"),
            Err(why) => writeln!(out, "err {why}"),
        }
    }

    fn begin(
        &self,
        name: &str,
        slots: u64,
        bytes: u64,
        session: &mut Option<Writing>,
        peer: SocketAddr,
    ) -> Result<String, String> {
        if session.is_some() {
            return Err("this connection has its session already".into());
        }
        if !wire::valid_name(name) {
            return Err(format!(
                "'{}' is not a session name (at most {} characters of A-Z a-z 0-9 -_.,:=/+@%)",
                wire::shown(name),
                wire::MAX_NAME
            ));
        }
        if !(1..=MAX_SLOTS).contains(&slots) || bytes != super::RECORD {
            return Err(format!(
                "a session has 1 to {MAX_SLOTS} slots of {} bytes",
                super::RECORD
            ));
        }
        let dir = &self.shared.dir;
        let _one_at_a_time = self.shared.begin.lock().unwrap_or_else(|e| e.into_inner());
        let fail = |e: std::io::Error| format!("the listener cannot start a session ({e})");
        if store::count(dir).map_err(fail)? >= MAX_SESSIONS {
            return Err(format!(
                "the listener holds {MAX_SESSIONS} sessions: remove old ones from {} on the listener",
                dir.display()
            ));
        }
        // One machine cannot take every session and starve the others.
        if store::count_of(dir, peer.ip()).map_err(fail)? >= MAX_SESSIONS_PER_PEER {
            return Err(format!(
                "{} holds {MAX_SESSIONS_PER_PEER} sessions on this listener, the most one machine may: remove its old ones from {} on the listener",
                peer.ip(),
                dir.display()
            ));
        }
        let token = wire::new_token().map_err(fail)?;
        *session = Some(Writing::create(dir, &token, name, slots, peer.ip()).map_err(fail)?);
        crate::note!(
            "ssdfade plp listen: session {name} began from {peer} ({slots} slots); its token is {token}"
        );
        Ok(format!("ok {token}"))
    }

    /// Streams a session: its header, one line per slot holding a posted record, `end COUNT`.
    fn dump(&self, name: &str, token: &str, out: &mut impl Write) -> std::io::Result<()> {
        let nothing = || {
            format!(
                "err no session {} with that token here: give plp verify the --token plp write printed",
                wire::shown(name)
            )
        };
        let stored = match wire::valid_token(token).then(|| store::open(&self.shared.dir, token)) {
            Some(Ok(Some(s))) if s.name == name => s,
            Some(Err(e)) => return writeln!(out, "err cannot read the session: {e}"),
            _ => return writeln!(out, "{}", nothing()),
        };
        writeln!(
            out,
            "session {name} {} {} {} {}",
            stored.slots,
            super::RECORD,
            stored.last_ms,
            stored.records
        )?;
        let mut count = 0u64;
        stored.each_posted(&mut |slot, l| {
            count += 1;
            writeln!(
                out,
                "slot {slot} {} {} {} {} {}",
                l.post_seq, l.post_value, l.post_ms, l.pre_seq, l.pre_value
            )
        })?;
        writeln!(out, "end {count}")
    }
}
