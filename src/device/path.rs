//! A file or block device as a [`Device`]: opened with O_DIRECT through the safety gates,
//! described by `inspect`, driven by the real engines, idle on the wall clock.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::record::{decode, encode, Found, RecordId, RecordReader, RecordStore, RECORD};
use super::spec::{file_name, Checked, Device, Gates, Opened, SyncOpened};
use super::{OpenRequest, Target};
use crate::drive::{DriveInfo, OwnErase, OwnEraser, RunEnd};
use crate::engine::sync::FileSyncWriter;
use crate::engine::{AlignedBuf, EngineKind};
use anyhow::Context;

/// A path the user named.
pub struct PathDevice {
    path: PathBuf,
    text: String,
}

impl PathDevice {
    pub fn new(path: PathBuf) -> PathDevice {
        let text = path.to_string_lossy().into_owned();
        PathDevice { path, text }
    }

    fn open_target(&self, gates: &Gates) -> anyhow::Result<Target> {
        Target::open(&OpenRequest {
            path: self.path.clone(),
            writes: gates.writes,
            destroy_data: gates.destroy_data.clone(),
            force: gates.force,
            size: gates.size,
        })
    }
}

impl Device for PathDevice {
    fn target(&self) -> &str {
        &self.text
    }

    fn short_name(&self) -> String {
        file_name(&self.path, "target")
    }

    fn drive_info(&self) -> anyhow::Result<DriveInfo> {
        super::inspect::gather(&self.text)
    }

    fn describe(&self) -> anyhow::Result<DriveInfo> {
        super::inspect::gather(&self.text)
    }

    fn geometry(&self, size: Option<u64>) -> anyhow::Result<(u64, u64)> {
        let target = &self.text;
        if !Path::new(target).exists() {
            return match size {
                Some(size) => Ok((size, 512)),
                None => {
                    crate::bad_input!("{target} does not exist: give --size to create a test file")
                }
            };
        }
        let info = super::inspect::gather(target)?;
        let size = size.or(info.size_bytes).unwrap_or(0);
        Ok((size, u64::from(info.logical_block.unwrap_or(512))))
    }

    fn check(&self, gates: &Gates) -> anyhow::Result<Checked> {
        let opened = self.open_target(gates)?;
        Ok(Checked {
            created: opened.created.then(|| opened.path.clone()),
            identity: opened.identity,
        })
    }

    fn open_engine(
        &self,
        gates: &Gates,
        engine: Option<EngineKind>,
        qd: u32,
        bs: usize,
        trims: bool,
    ) -> anyhow::Result<Opened> {
        let opened = self.open_target(gates)?;
        let created = opened.created.then(|| opened.path.clone());
        let identity = opened.identity.clone();
        if let Some(why) = trims
            .then(|| crate::engine::trim::unsupported(&opened))
            .flatten()
        {
            if let Some(file) = &created {
                let _ = std::fs::remove_file(file);
            }
            crate::bad_input!("{why}");
        }
        // A refused engine choice must not leave a created test file behind.
        let engine = crate::engine::real_engine(engine, Arc::new(opened), qd, bs, gates.writes)
            .inspect_err(|_| {
                if let Some(file) = &created {
                    let _ = std::fs::remove_file(file);
                }
            })?;
        Ok(Opened {
            identity,
            engine,
            created,
        })
    }

    fn open_sync_writer(&self, gates: &Gates) -> anyhow::Result<SyncOpened> {
        let opened = self.open_target(gates)?;
        Ok(SyncOpened {
            identity: opened.identity.clone(),
            created: opened.created.then(|| opened.path.clone()),
            writer: Box::new(FileSyncWriter::new(Arc::new(opened))),
        })
    }

    fn open_storage(
        &self,
        gates: &Gates,
        _kept: Option<&str>,
    ) -> anyhow::Result<Box<dyn RecordStore>> {
        Ok(Box::new(Records {
            target: self.open_target(gates)?,
            buf: AlignedBuf::new(RECORD as usize)?,
        }))
    }

    fn open_readback(&self) -> anyhow::Result<Box<dyn RecordReader>> {
        Ok(Box::new(Records {
            target: self.open_target(&Gates::default())?,
            buf: AlignedBuf::new(RECORD as usize)?,
        }))
    }

    fn open_block_reader(
        &self,
        w: &crate::workload::Workload,
        _v: &crate::verify::Verifier,
    ) -> anyhow::Result<Box<dyn crate::verify::BlockReader>> {
        let target = Arc::new(self.open_target(&Gates::default())?);
        Ok(Box::new(crate::engine::verifying::FileReader::new(
            target, w.bs,
        )?))
    }

    fn idle(&self, seconds: f64, interrupt: &AtomicBool) -> anyhow::Result<RunEnd> {
        let until = Instant::now() + Duration::from_secs_f64(seconds);
        while Instant::now() < until {
            if interrupt.load(Ordering::Relaxed) {
                return Ok(RunEnd::Interrupted);
            }
            let left = until.saturating_duration_since(Instant::now());
            std::thread::sleep(left.min(Duration::from_millis(100)));
        }
        Ok(RunEnd::Completed)
    }

    fn open_own_erase(&self, _how: OwnErase) -> anyhow::Result<Box<dyn OwnEraser>> {
        crate::bad_input!(
            "{}: a file or block device is erased through its protocol (--method), not by itself",
            self.path.display()
        )
    }

    fn own_erase(&self, _method: &str, _span: Option<u64>) -> Option<anyhow::Result<OwnErase>> {
        None
    }

    fn takes_engine_choice(&self) -> bool {
        true
    }

    fn needs_io_buffers(&self) -> bool {
        true
    }

    fn keeps_state(&self) -> bool {
        false
    }

    fn wants_state_file(&self) -> bool {
        false
    }

    fn saved_state(&self) -> anyhow::Result<Option<crate::drive::StateStamp>> {
        Ok(None)
    }

    fn last_saved_stamp(&self) -> Option<crate::drive::StateStamp> {
        None
    }
}

/// The power-loss check's records on a file or block device: the bytes of each record.
struct Records {
    target: Target,
    buf: AlignedBuf,
}

impl RecordStore for Records {
    fn size(&self) -> u64 {
        self.target.size
    }

    fn put(&mut self, r: RecordId, flush: bool) -> anyhow::Result<()> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        encode(r, now, self.buf.as_mut_slice());
        self.target
            .file
            .write_all_at(self.buf.as_slice(), r.slot * RECORD)
            .with_context(|| format!("writing record {} at slot {}", r.seq, r.slot))?;
        if flush {
            self.target
                .file
                .sync_data()
                .with_context(|| format!("flushing record {}", r.seq))?;
        }
        Ok(())
    }

    fn close(self: Box<Self>) -> anyhow::Result<()> {
        Ok(())
    }
}

impl RecordReader for Records {
    /// A slot past the target's end (a target truncated or swapped for a smaller one since
    /// the records were written) or one that cannot be read holds no record: a finding of the
    /// verdict, not a reason to stop checking.
    fn get(&mut self, slot: u64, _written: &[RecordId]) -> anyhow::Result<Found> {
        let size = self.target.file.metadata().map_or(self.target.size, |m| {
            if m.is_file() {
                m.len()
            } else {
                self.target.size
            }
        });
        if (slot + 1) * RECORD > size {
            return Ok(Found::Other(format!(
                "nothing: slot {slot} lies past the end of {} ({size} bytes; shorter than the records written)",
                self.target.path.display()
            )));
        }
        Ok(
            match self
                .target
                .file
                .read_exact_at(self.buf.as_mut_slice(), slot * RECORD)
            {
                Ok(()) => decode(self.buf.as_slice()),
                Err(e) => Found::Other(format!("unreadable: {}", crate::error::io_words(&e))),
            },
        )
    }
}
