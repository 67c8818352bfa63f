//! The writer's and verify's side of a connection to the listener: bounded lines, and errors
//! that name the listener and say what to do.

use std::io::{BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use super::wire::{self, Line};

pub struct Client {
    /// HOST:PORT as the user gave it.
    pub addr: String,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Client {
    pub fn connect(addr: &str) -> anyhow::Result<Client> {
        let Ok(mut addrs) = addr.to_socket_addrs() else {
            crate::bad_input!("--log {addr} is not HOST:PORT (e.g. 192.168.1.5:5400)");
        };
        let Some(sock) = addrs.next() else {
            crate::bad_input!("--log {addr} does not resolve to an address");
        };
        let stream = match TcpStream::connect_timeout(&sock, Duration::from_secs(10)) {
            Ok(s) => s,
            Err(e) => crate::bad_input!(
                "cannot reach the listener at {addr}: {e} (start ssdfade plp listen there first, or check --log)"
            ),
        };
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        stream.set_write_timeout(Some(Duration::from_secs(60)))?;
        stream.set_nodelay(true)?;
        Ok(Client {
            addr: addr.to_string(),
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    /// Reads one reply line (at most [`wire::MAX_LINE`] bytes).
    pub fn line(&mut self) -> anyhow::Result<String> {
        let addr = &self.addr;
        match wire::read_line(&mut self.reader) {
            Ok(Line::Text(t)) => Ok(t),
            Ok(Line::End) => anyhow::bail!(
                "the listener at {addr} closed the connection: see what it printed, and check it is still running"
            ),
            Ok(Line::TooLong | Line::NotText) => anyhow::bail!(
                "the listener at {addr} sent a line that is not a reply (too long or not text): is it an ssdfade plp listener?"
            ),
            Err(e) => anyhow::bail!(
                "the listener at {addr} stopped answering ({e}): check that it is still running and reachable"
            ),
        }
    }

    /// Sends one request line.
    pub fn send(&mut self, text: &str) -> anyhow::Result<()> {
        if let Err(e) = self.writer.write_all(format!("{text}\n").as_bytes()) {
            anyhow::bail!(
                "cannot send to the listener at {} ({e}): check that it is still running and reachable",
                self.addr
            );
        }
        Ok(())
    }

    /// Sends one request and returns what follows its `ok` (a refusal is an error).
    pub fn request(&mut self, text: &str) -> anyhow::Result<String> {
        self.send(text)?;
        let reply = self.line()?;
        match reply.strip_prefix("ok") {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => Ok(rest.trim().to_string()),
            _ => anyhow::bail!(
                "the listener at {} refused '{}': {}",
                self.addr,
                wire::shown(text),
                wire::shown(reply.strip_prefix("err ").unwrap_or(&reply))
            ),
        }
    }
}
