//! A target as the user named it, parsed once at the edge, and the one interface every command
//! reaches a device through (fio's ioengine ops table is the model): what the target is, how it
//! opens for a workload or for sync writes, how it idles and erases itself, and what it keeps
//! between commands. Two implementations: a path ([`super::path`]) and a simulated drive
//! ([`super::sim`]). Only `device/` and `sim/` know which one a target is.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::drive::{DriveInfo, Identity, RunEnd};
use crate::drive::{OwnErase, OwnEraser};
use crate::engine::sync::SyncWriter;
use crate::engine::{Engine, EngineKind};
use crate::sim::SimSpec;

use super::record::{RecordReader, RecordStore};

/// A parsed target: a file or block device, or a simulated drive (`sim:PRESET[,…]`).
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    Path(PathBuf),
    Sim(Box<SimSpec>),
}

impl Spec {
    /// Parses `text`; a malformed `sim:` target is bad input.
    pub fn parse(text: &str) -> anyhow::Result<Spec> {
        Ok(if text.starts_with("sim:") {
            Spec::Sim(Box::new(SimSpec::parse(text)?))
        } else {
            Spec::Path(PathBuf::from(text))
        })
    }

    /// The device this spec names (nothing is opened or written yet).
    pub fn device(self) -> Box<dyn Device> {
        match self {
            Spec::Path(path) => Box::new(super::path::PathDevice::new(path)),
            Spec::Sim(spec) => Box::new(super::sim::SimTarget::new(*spec)),
        }
    }
}

/// Parses `text` and returns its device: the usual first step of a command.
pub fn open(text: &str) -> anyhow::Result<Box<dyn Device>> {
    Ok(Spec::parse(text)?.device())
}

/// True when `text` names a file path that does not exist yet (one `--size` would create);
/// false for simulated drives and for paths that exist, even as a dangling link.
pub fn is_absent_path(text: &str) -> bool {
    !crate::sim::is_sim_target(text)
        && matches!(std::fs::symlink_metadata(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

/// A target's short name for result directories (`zram3`, `test.img`, a simulated drive's
/// preset name); a malformed `sim:` target is called `sim`.
pub fn short_name(text: &str) -> String {
    open(text).map_or_else(|_| "sim".into(), |d| d.short_name())
}

/// The safety gates of an open that may write.
#[derive(Clone, Debug, Default)]
pub struct Gates {
    /// The workload writes (false for a pure read test).
    pub writes: bool,
    /// `--destroy-data PATH`: must name the same device or file.
    pub destroy_data: Option<PathBuf>,
    /// `--force`: write even over a filesystem or partition-table signature.
    pub force: bool,
    /// `--size`: size of a file to create (or grow to).
    pub size: Option<u64>,
}

/// What the gates let through: the target's identity and the test file this open created.
pub struct Checked {
    pub identity: Identity,
    pub created: Option<PathBuf>,
}

/// A device opened for a workload: its identity, the engine that drives it and the test file
/// this open created (removed again when the run is refused).
pub struct Opened {
    pub identity: Identity,
    pub engine: Box<dyn Engine>,
    pub created: Option<PathBuf>,
}

/// A device opened for the SLOG test's sync writes: its identity, the writer and the test file
/// this open created (removed again when the run is refused).
pub struct SyncOpened {
    pub identity: Identity,
    pub writer: Box<dyn SyncWriter>,
    pub created: Option<PathBuf>,
}

/// One target, whatever it is.
pub trait Device {
    /// The target as the user wrote it.
    fn target(&self) -> &str;
    /// The name result directories carry (`zram3`, `test.img`, `vertex2-60g`).
    fn short_name(&self) -> String;
    /// What the target says it is, read without writing: identity, geometry, cache, erase
    /// capabilities, wear (a simulated drive's wear comes from its `state=` file).
    fn drive_info(&self) -> anyhow::Result<DriveInfo>;
    /// What the target is, cheaply: as [`Device::drive_info`], without wear for a simulated
    /// drive (its state file is not read).
    fn describe(&self) -> anyhow::Result<DriveInfo>;
    /// Size and logical block of the target before anything is opened for writing (a test file
    /// still to be created takes `size`).
    fn geometry(&self, size: Option<u64>) -> anyhow::Result<(u64, u64)>;
    /// Passes the target through the gates of writing without keeping it open.
    fn check(&self, gates: &Gates) -> anyhow::Result<Checked>;
    /// Opens the target for a workload of `bs`-byte I/Os at `qd` with the engine chosen
    /// (`None`: the default for them there); with `trims`, refuses (bad input, nothing
    /// written) a target that cannot take them.
    fn open_engine(
        &self,
        gates: &Gates,
        engine: Option<EngineKind>,
        qd: u32,
        bs: usize,
        trims: bool,
    ) -> anyhow::Result<Opened>;
    /// Opens the target for the SLOG test's timed sync writes.
    fn open_sync_writer(&self, gates: &Gates) -> anyhow::Result<SyncOpened>;
    /// Opens the target for sync writes. `kept` names a command that needs the state the
    /// device kept from earlier commands (a simulated drive must then have a `state=` file).
    fn open_storage(
        &self,
        gates: &Gates,
        kept: Option<&str>,
    ) -> anyhow::Result<Box<dyn RecordStore>>;
    /// Opens the target to read back what sync writes left.
    fn open_readback(&self) -> anyhow::Result<Box<dyn RecordReader>>;
    /// Opens the target to read back the blocks a run of `w` made with `--verify` wrote.
    fn open_block_reader(
        &self,
        w: &crate::workload::Workload,
        v: &crate::verify::Verifier,
    ) -> anyhow::Result<Box<dyn crate::verify::BlockReader>>;
    /// Leaves the device powered with no host I/O for `seconds` (its own seconds).
    fn idle(&self, seconds: f64, interrupt: &AtomicBool) -> anyhow::Result<RunEnd>;
    /// The erase the device does by itself for `--method method` (and `--span`); `None` when
    /// erasing it goes through the protocol plans (NVMe, ATA, discard…). Bad input when the
    /// method cannot apply to it.
    fn own_erase(&self, method: &str, span: Option<u64>) -> Option<anyhow::Result<OwnErase>>;
    /// Opens (and locks) the device for the erase [`Device::own_erase`] planned.
    fn open_own_erase(&self, how: OwnErase) -> anyhow::Result<Box<dyn OwnEraser>>;
    /// Whether `--engine` applies (a simulated drive runs on its own engine).
    fn takes_engine_choice(&self) -> bool;
    /// Whether a run needs I/O buffers in memory (bs × QD plus the data pool).
    fn needs_io_buffers(&self) -> bool;
    /// The device keeps its own state between commands and runs on its own clock: a run cut
    /// short goes on from what it saved, and time between commands does not pass for it.
    fn keeps_state(&self) -> bool;
    /// A device that keeps its state but was given no file to keep it in: an experiment gives
    /// it one in its directory.
    fn wants_state_file(&self) -> bool;
    /// Which saved state the device holds now (`None`: it keeps none, or none is saved yet);
    /// bad input when the saved state cannot be trusted.
    fn saved_state(&self) -> anyhow::Result<Option<crate::drive::StateStamp>>;
    /// The stamp of the state this process just saved, read cheaply and unchecked (`None`: it
    /// keeps none, or it cannot be read); [`Device::saved_state`] checks the whole state.
    fn last_saved_stamp(&self) -> Option<crate::drive::StateStamp>;
}

/// A path's last component, or `fallback`.
pub(super) fn file_name(path: &Path, fallback: &str) -> String {
    path.file_name()
        .map_or_else(|| fallback.into(), |n| n.to_string_lossy().into_owned())
}
