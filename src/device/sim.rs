//! A simulated drive (`sim:PRESET[,…]`) as a [`Device`]: the adapter between the device
//! interface and the simulator, which runs on its own clock and keeps its state in a `state=`
//! file between commands.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::record::{Found, RecordId, RecordReader, RecordStore, RECORD};
use super::spec::{Checked, Device, Gates, Opened, SyncOpened};
use crate::drive::{DriveInfo, Identity, OwnErase, OwnEraser, RunEnd};
use crate::engine::EngineKind;
use crate::pattern::{mix64, WriteContent};
use crate::sim::sync::SimSyncWriter;
use crate::sim::{SimDevice, SimDrive, SimEngine, SimSpec};

/// A simulated drive the user named.
pub struct SimTarget {
    spec: SimSpec,
}

impl SimTarget {
    pub fn new(spec: SimSpec) -> SimTarget {
        SimTarget { spec }
    }

    fn identity(&self) -> anyhow::Result<Identity> {
        crate::sim::identity(&self.spec.text)
    }

    /// A simulated drive runs on its own engine, has its size from its preset and needs no
    /// confirmation: options that only a real target takes are refused rather than ignored.
    fn refuse_real_only_options(
        &self,
        gates: &Gates,
        engine: Option<EngineKind>,
    ) -> anyhow::Result<()> {
        let target = &self.spec.text;
        if engine.is_some() {
            crate::bad_input!(
                "--engine does not apply to {target}: a simulated drive runs on its own engine; drop --engine"
            );
        }
        self.refuse_size(gates)?;
        if let Some(named) = &gates.destroy_data {
            if named.as_os_str() != target.as_str() {
                crate::bad_input!(
                    "--destroy-data names {}, not {target}: a simulated drive needs no confirmation; drop --destroy-data",
                    named.display()
                );
            }
        }
        Ok(())
    }
}

impl SimTarget {
    /// `--size`: a simulated drive's size comes from its preset.
    fn refuse_size(&self, gates: &Gates) -> anyhow::Result<()> {
        if gates.size.is_some() {
            crate::bad_input!(
                "--size does not apply to {}: a simulated drive's size comes from its preset (sim list); drop --size",
                self.spec.text
            );
        }
        Ok(())
    }
}

impl Device for SimTarget {
    fn target(&self) -> &str {
        &self.spec.text
    }

    fn short_name(&self) -> String {
        self.spec.short_name()
    }

    fn drive_info(&self) -> anyhow::Result<DriveInfo> {
        let text = &self.spec.text;
        Ok(crate::sim::drive_info(
            text,
            self.identity()?,
            crate::sim::wear(text)?,
        ))
    }

    fn describe(&self) -> anyhow::Result<DriveInfo> {
        let id = self.identity()?;
        Ok(DriveInfo {
            path: self.spec.text.clone(),
            kind: id.kind,
            name: id.name,
            model: id.model,
            serial: id.serial,
            firmware: id.firmware,
            size_bytes: Some(id.size_bytes),
            logical_block: Some(id.logical_block),
            physical_block: Some(id.physical_block),
            rotational: id.rotational,
            write_cache: id.write_cache,
            ..Default::default()
        })
    }

    fn geometry(&self, _size: Option<u64>) -> anyhow::Result<(u64, u64)> {
        let id = self.identity()?;
        Ok((id.size_bytes, u64::from(id.logical_block)))
    }

    fn check(&self, gates: &Gates) -> anyhow::Result<Checked> {
        // The same refusals as opening it: an experiment checks before it creates anything.
        self.refuse_real_only_options(gates, None)?;
        Ok(Checked {
            identity: self.identity()?,
            created: None,
        })
    }

    fn open_engine(
        &self,
        gates: &Gates,
        engine: Option<EngineKind>,
        _qd: u32,
        _bs: usize,
        _trims: bool,
    ) -> anyhow::Result<Opened> {
        self.refuse_real_only_options(gates, engine)?;
        let engine = SimEngine::open(&self.spec.text)?;
        Ok(Opened {
            identity: engine.identity(),
            engine: Box::new(engine),
            created: None,
        })
    }

    /// `--destroy-data` may name the other device of the test (a baseline): it is not refused.
    fn open_sync_writer(&self, gates: &Gates) -> anyhow::Result<SyncOpened> {
        self.refuse_real_only_options(
            &Gates {
                destroy_data: None,
                ..gates.clone()
            },
            None,
        )?;
        Ok(SyncOpened {
            identity: self.identity()?,
            writer: Box::new(SimSyncWriter::new(SimDrive::open(&self.spec.text)?)),
            created: None,
        })
    }

    fn open_storage(
        &self,
        _gates: &Gates,
        kept: Option<&str>,
    ) -> anyhow::Result<Box<dyn RecordStore>> {
        let text = &self.spec.text;
        let drive = match kept {
            Some(what) => SimDrive::open_kept(text, what)?,
            None => SimDrive::open(text)?,
        };
        Ok(Box::new(SimRecords(drive)))
    }

    fn open_readback(&self) -> anyhow::Result<Box<dyn RecordReader>> {
        let target = &self.spec.text;
        if self.spec.state.as_ref().is_none_or(|p| !p.exists()) {
            crate::bad_input!(
                "{target}: no state= file with the drive plp write used: give the same target"
            );
        }
        Ok(Box::new(SimReadback(crate::sim::open_device(&self.spec)?)))
    }

    fn open_block_reader(
        &self,
        w: &crate::workload::Workload,
        v: &crate::verify::Verifier,
    ) -> anyhow::Result<Box<dyn crate::verify::BlockReader>> {
        let target = &self.spec.text;
        if self.spec.state.as_ref().is_none_or(|p| !p.exists()) {
            crate::bad_input!(
                "{target}: no state= file with the drive the run wrote: give the run's target with its state= file"
            );
        }
        let device = crate::sim::open_device(&self.spec)?;
        Ok(Box::new(crate::sim::verify::SimReader::new(device, w, v)))
    }

    fn idle(&self, seconds: f64, _interrupt: &AtomicBool) -> anyhow::Result<RunEnd> {
        SimDrive::open_kept(&self.spec.text, "idle time")?
            .idle(Duration::from_secs_f64(seconds))?;
        Ok(RunEnd::Completed)
    }

    fn own_erase(&self, method: &str, span: Option<u64>) -> Option<anyhow::Result<OwnErase>> {
        Some(match method {
            "sim" | "auto" => Ok(OwnErase::Secure),
            "trim" => match span {
                Some(len) => Ok(OwnErase::Trim { offset: 0, len }),
                None => self
                    .identity()
                    .map(|id| OwnErase::Trim {
                        offset: 0,
                        len: id.size_bytes,
                    }),
            },
            other => Err(crate::error::BadInput(format!(
                "--method {other} does not apply to a simulated drive: use --method sim (secure erase) or trim"
            ))
            .into()),
        })
    }

    /// Opened (and locked) first: a drive without state=, held or damaged is refused before
    /// any record is made.
    fn open_own_erase(&self, how: OwnErase) -> anyhow::Result<Box<dyn OwnEraser>> {
        Ok(Box::new(SimDriveErase {
            drive: SimDrive::open_kept(&self.spec.text, "an erase")?,
            name: self.spec.short_name(),
            how,
        }))
    }

    fn takes_engine_choice(&self) -> bool {
        false
    }

    fn needs_io_buffers(&self) -> bool {
        false
    }

    fn keeps_state(&self) -> bool {
        true
    }

    fn wants_state_file(&self) -> bool {
        self.spec.state.is_none()
    }

    fn saved_state(&self) -> anyhow::Result<Option<crate::drive::StateStamp>> {
        crate::sim::saved_stamp(&self.spec.text)
    }

    fn last_saved_stamp(&self) -> Option<crate::drive::StateStamp> {
        crate::sim::last_saved_stamp(&self.spec.text)
    }
}

/// A simulated drive opened to erase the state it keeps.
struct SimDriveErase {
    drive: SimDrive,
    name: String,
    how: OwnErase,
}

impl OwnEraser for SimDriveErase {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run(mut self: Box<Self>) -> anyhow::Result<String> {
        self.drive.erase(self.how)
    }
}

/// The content stamp a simulated drive keeps for a record.
fn record_stamp(r: &RecordId) -> u64 {
    mix64(r.seq ^ r.value.rotate_left(17))
}

/// The tag a simulated drive shows for a record's page.
fn record_tag(r: &RecordId) -> u32 {
    (mix64(record_stamp(r)) as u32) | 1
}

/// The power-loss check's records on a simulated drive: each is a page write (and a flush)
/// stamped with the record's identity.
struct SimRecords(SimDrive);

impl RecordStore for SimRecords {
    fn size(&self) -> u64 {
        let spec = &self.0.device().spec;
        spec.size_bytes() / u64::from(spec.scale)
    }

    fn put(&mut self, r: RecordId, flush: bool) -> anyhow::Result<()> {
        let dev = self.0.device_mut();
        let content = WriteContent {
            stamp: record_stamp(&r),
            key: 0,
            pool_offset: 0,
            duplicate: false,
        };
        dev.write(r.slot * RECORD, RECORD, &content, 1.0);
        if flush {
            dev.flush();
        }
        Ok(())
    }

    fn close(mut self: Box<Self>) -> anyhow::Result<()> {
        self.0.save()
    }
}

/// A simulated drive read back after the power-loss check: a page's tag names the record it
/// holds, among those the listener says were written there.
struct SimReadback(SimDevice);

impl RecordReader for SimReadback {
    fn get(&mut self, slot: u64, written: &[RecordId]) -> anyhow::Result<Found> {
        let tag = self.0.content_tag(slot as u32);
        Ok(match written.iter().find(|r| record_tag(r) == tag) {
            Some(r) => Found::Record(*r),
            None if tag == 0 => Found::Empty,
            None => Found::Other(format!("other content (tag {tag:08x})")),
        })
    }
}
