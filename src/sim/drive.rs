//! A simulated drive as one command uses it: the device, plus its `state=` file locked for as
//! long as the command holds the drive. The operations that act on a kept drive outside a run
//! (an erase, powered idle time, a power cut) live here; each saves the drive when it is done.

use std::time::Duration;

use super::spec::SimSpec;
use super::state;
use super::store::Store;
use super::{SimDevice, SimErase};
use crate::bad_input;

/// How long after a stop signal an interrupted run may still spend saving its drive: the
/// process is to end within a second of the signal, and the records come after the save.
pub const STOP_SAVE_BUDGET: Duration = Duration::from_millis(300);

/// A drive opened by this command (its state file, if any, locked until it is dropped).
pub struct SimDrive {
    device: SimDevice,
    store: Option<Store>,
}

/// What a stretch of powered idle time did to a drive.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct IdleReport {
    pub seconds: f64,
    /// Free erase blocks before and after.
    pub free_blocks_before: usize,
    pub free_blocks_after: usize,
    /// Bytes background GC copied and the blocks it erased (full-size drive units).
    pub gc_copied_bytes: u64,
    pub erases: u64,
    /// Bytes the SLC cache held before and after (folded into TLC in between).
    pub slc_bytes_before: f64,
    pub slc_bytes_after: f64,
    /// P/E cycles above the throttling life curve before and after (None: no throttling).
    pub throttle_debt_before: Option<f64>,
    pub throttle_debt_after: Option<f64>,
}

/// What a power cut did to a drive.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PowerCutReport {
    /// The cache mode (`none`, `volatile`, `plp`, `lying`).
    pub cache: String,
    /// Acknowledged writes lost (4 KiB pages, full-size drive units).
    pub lost_writes: u64,
}

impl SimDrive {
    /// Opens the drive of `spec`: loaded from its `state=` file (locked until the drive is
    /// dropped) when that file has content, else a new drive. Refuses, as bad input, a spec
    /// whose model does not fit in the available memory, a state file another command holds,
    /// in an unwritable directory, or that cannot be trusted.
    pub fn open(spec: &str) -> anyhow::Result<SimDrive> {
        let spec = SimSpec::parse(spec)?;
        check_memory(&spec)?;
        let Some(path) = spec.state.clone() else {
            return Ok(SimDrive {
                device: created(&spec)?,
                store: None,
            });
        };
        let store = Store::lock(&path)?;
        let (len, mut reader) = store.reader()?;
        let device = decode(&spec, store.path(), &mut reader, len)?;
        Ok(SimDrive {
            device,
            store: Some(store),
        })
    }

    /// Opens a drive for `what` (e.g. "an erase"), which only makes sense on a drive kept in a
    /// `state=` file: refused as bad input without one.
    pub fn open_kept(spec: &str, what: &str) -> anyhow::Result<SimDrive> {
        let parsed = SimSpec::parse(spec)?;
        if parsed.state.is_none() {
            bad_input!(
                "{spec} has no state= file, so {what} would act on a drive nobody uses again: add ,state=PATH to the target (the same for every command on that drive)"
            );
        }
        SimDrive::open(spec)
    }

    pub fn device(&self) -> &SimDevice {
        &self.device
    }

    pub fn device_mut(&mut self) -> &mut SimDevice {
        &mut self.device
    }

    /// Saves the drive to its state file (nothing without `state=`), counting the save in its
    /// stamp.
    pub fn save(&mut self) -> anyhow::Result<()> {
        let Some(store) = &mut self.store else {
            return Ok(());
        };
        let mut stamp = self.device.stamp();
        stamp.saves += 1;
        self.device.set_stamp(stamp);
        store.replace(|w| state::encode(&self.device, w))
    }

    /// Saves the drive unless a stop signal came more than [`STOP_SAVE_BUDGET`] ago, giving
    /// up as soon as it has (a full-size drive's state is hundreds of MB: under load its save
    /// took most of a second). A save given up leaves the file as last saved (the run's start
    /// or a checkpoint), which `resume` continues from, cutting the samples back to it as
    /// after a crash. Only for a run that did not complete: true when saved.
    pub fn save_unless_stopped(&mut self) -> anyhow::Result<bool> {
        let Some(store) = &mut self.store else {
            return Ok(true);
        };
        let before = self.device.stamp();
        let mut stamp = before;
        stamp.saves += 1;
        self.device.set_stamp(stamp);
        let late = || crate::stop::asked_ago().is_some_and(|ago| ago > STOP_SAVE_BUDGET);
        let saved = store.replace_unless(&late, |w| state::encode(&self.device, w))?;
        if !saved {
            self.device.set_stamp(before);
        }
        Ok(saved)
    }

    /// The state file's path (None without `state=`).
    pub fn state_path(&self) -> Option<&std::path::Path> {
        self.store.as_ref().map(Store::path)
    }

    /// Applies an erase, saves the drive and returns one line saying what was done.
    pub fn erase(&mut self, how: SimErase) -> anyhow::Result<String> {
        let dev = &mut self.device;
        let text = dev.spec.text.clone();
        let k = u64::from(dev.spec.scale);
        let line = match how {
            SimErase::Secure => {
                let mapped = dev.ftl().mapped_pages() * k;
                dev.secure_erase();
                format!(
                    "secure erase of {text}: {mapped} mapped 4 KiB pages forgotten, every block erased; wear kept (mean {:.1} P/E){}",
                    dev.mean_pe(),
                    debt_note(dev)
                )
            }
            SimErase::Trim { offset, len } => {
                let size = dev.spec.size_bytes();
                if offset.checked_add(len).is_none_or(|end| end > size) {
                    bad_input!(
                        "trim range {offset}+{len} goes beyond the end of {text} ({size} bytes)"
                    );
                }
                let pages = dev.trim(offset / k, len / k) * k;
                format!(
                    "TRIM of {len} bytes at {offset} on {text}: {pages} 4 KiB pages deallocated"
                )
            }
        };
        self.save()?;
        Ok(line)
    }

    /// Leaves the drive powered and idle for `duration` of simulated time (background GC,
    /// SLC folding, throttling debt paid off), saves it and reports what happened.
    pub fn idle(&mut self, duration: Duration) -> anyhow::Result<IdleReport> {
        let dev = &mut self.device;
        let k = u64::from(dev.spec.scale);
        let free_before = dev.ftl().persistent().3.len();
        let (slc_before, debt_before) = (dev.lifetime().slc_fill_bytes, dev.throttle_debt_pe());
        let work_before = dev.ftl().work();
        dev.idle(duration.as_secs_f64());
        let work = dev.ftl().work();
        let slot_bytes = 4096 / u64::from(dev.ftl().geometry().slots_per_page);
        let report = IdleReport {
            seconds: duration.as_secs_f64(),
            free_blocks_before: free_before,
            free_blocks_after: dev.ftl().persistent().3.len(),
            gc_copied_bytes: (work.gc_slots - work_before.gc_slots) * slot_bytes * k,
            erases: work.erases - work_before.erases,
            slc_bytes_before: slc_before,
            slc_bytes_after: dev.lifetime().slc_fill_bytes,
            throttle_debt_before: debt_before,
            throttle_debt_after: dev.throttle_debt_pe(),
        };
        self.save()?;
        Ok(report)
    }

    /// Cuts the power: a `volatile` cache loses the writes not yet flushed, a `lying` one
    /// everything it acknowledged and still holds; saves the drive and reports the loss.
    pub fn power_cut(&mut self) -> anyhow::Result<PowerCutReport> {
        let lost = self.device.power_cut() * u64::from(self.device.spec.scale);
        self.save()?;
        Ok(PowerCutReport {
            cache: self.device.spec.cache.to_string(),
            lost_writes: lost,
        })
    }
}

impl std::fmt::Display for IdleReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "idle {}: free erase blocks {} → {}, background GC copied {} in {} block erases",
            humantime::format_duration(Duration::from_secs_f64(self.seconds)),
            self.free_blocks_before,
            self.free_blocks_after,
            crate::units::format_bytes(self.gc_copied_bytes),
            self.erases
        )?;
        if self.slc_bytes_before > 0.0 || self.slc_bytes_after > 0.0 {
            writeln!(
                f,
                "  SLC cache {} → {} (folded into TLC)",
                crate::units::format_bytes(self.slc_bytes_before as u64),
                crate::units::format_bytes(self.slc_bytes_after as u64)
            )?;
        }
        if let (Some(a), Some(b)) = (self.throttle_debt_before, self.throttle_debt_after) {
            writeln!(
                f,
                "  wear against the throttling life curve {a:+.1} → {b:+.1} P/E (negative: under it)"
            )?;
        }
        Ok(())
    }
}

impl std::fmt::Display for PowerCutReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = match self.cache.as_str() {
            "none" => "write-through cache: every acknowledged write was on flash",
            "plp" => "power-loss protection flushed the cache",
            "lying" => "the cache acknowledged flushes without persisting",
            _ => "unflushed writes in a volatile cache",
        };
        writeln!(
            f,
            "power cut (cache={}): {} acknowledged 4 KiB writes lost ({why})",
            self.cache, self.lost_writes
        )
    }
}

/// The stamp of the drive saved in the spec's `state=` file; `None` when none is saved (no
/// `state=`, no file, or an empty one). A file that cannot be trusted is bad input saying why.
pub fn saved_stamp(spec: &SimSpec) -> anyhow::Result<Option<super::device::DriveStamp>> {
    let Some(path) = &spec.state else {
        return Ok(None);
    };
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => bad_input!("cannot read state={} ({e})", path.display()),
    };
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(None);
    }
    check_memory(spec)?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    match state::decode(spec, &mut crate::stop::Reader::new(&mut reader), len) {
        Ok(dev) => Ok(Some(dev.stamp())),
        Err(_) if crate::stop::requested() => Err(stopped_loading(path)),
        Err(why) => bad_input!("state={} {why}", path.display()),
    }
}

/// The stamp of the drive last saved in the spec's `state=` file, read from the file's head
/// only (see [`state::peek_stamp`]); `None` when there is none or its head cannot be read.
pub fn last_saved_stamp(spec: &SimSpec) -> Option<super::device::DriveStamp> {
    let file = std::fs::File::open(spec.state.as_ref()?).ok()?;
    state::peek_stamp(&mut std::io::BufReader::with_capacity(8192, file)).ok()
}

/// The drive of `spec` as last saved, read without taking the lock (saves replace the file
/// atomically, so this is one consistent drive), or a new drive when there is no saved one.
pub fn saved_device(spec: &SimSpec) -> anyhow::Result<SimDevice> {
    check_memory(spec)?;
    let Some(path) = &spec.state else {
        return created(spec);
    };
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return created(spec),
        Err(e) => bad_input!("cannot read state={} ({e})", path.display()),
    };
    let len = file.metadata()?.len();
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    decode(spec, path, &mut reader, len)
}

/// A new drive of `spec`; an interruption while it is aged (seconds for a large drive) is an
/// error, so that no half-aged drive is used or saved.
fn created(spec: &SimSpec) -> anyhow::Result<SimDevice> {
    let device = SimDevice::create(spec);
    if crate::stop::requested() {
        return Err(anyhow::Error::new(crate::error::Interrupted(
            "interrupted while the simulated drive was made: nothing ran".into(),
        )));
    }
    Ok(device)
}

/// A new drive for an empty file, else the saved one (refused as bad input when untrusted).
fn decode(
    spec: &SimSpec,
    path: &std::path::Path,
    reader: &mut impl std::io::Read,
    len: u64,
) -> anyhow::Result<SimDevice> {
    if len == 0 {
        return created(spec);
    }
    match state::decode(spec, &mut crate::stop::Reader::new(reader), len) {
        Ok(dev) => Ok(dev),
        Err(_) if crate::stop::requested() => Err(stopped_loading(path)),
        Err(why) => bad_input!(
            "state={} {why}: delete it (or give another state= file) to start from a new drive",
            path.display()
        ),
    }
}

/// A load of a saved drive given up for a stop signal (a full-size drive took over a second
/// under load): nothing ran on it, and its file is as it was.
fn stopped_loading(path: &std::path::Path) -> anyhow::Error {
    anyhow::Error::new(crate::error::Interrupted(format!(
        "interrupted while the simulated drive was loaded from {}: nothing ran on it",
        path.display()
    )))
}

fn debt_note(dev: &SimDevice) -> String {
    match dev.throttle_debt_pe() {
        Some(d) if d > 0.0 => format!(
            ", throttling debt {d:.1} P/E above the life curve (writes held to {:.0} % of full rate)",
            dev.throttle_fraction() * 100.0
        ),
        Some(d) => format!(", {:.1} P/E under the throttling life curve", -d),
        None => String::new(),
    }
}

/// Refuses a model larger than the memory available now (MemAvailable in /proc/meminfo) or
/// than the address space this process may still map (`ulimit -v`): building it would
/// otherwise abort the process half-way.
fn check_memory(spec: &SimSpec) -> anyhow::Result<()> {
    let need = spec.model_bytes();
    if let Some(available) = memory_available().filter(|&a| need > a) {
        let scale = (u64::from(spec.scale) * need)
            .div_ceil(available)
            .next_power_of_two();
        bad_input!(
            "{} needs {} of memory for its model, {} is available: use scale={scale} or more",
            spec.text,
            crate::units::format_bytes(need),
            crate::units::format_bytes(available)
        );
    }
    let whole_run = need + BESIDE_THE_MODEL;
    if let Some(left) = address_space_left().filter(|&a| whole_run > a) {
        bad_input!(
            "{} needs about {} of address space for its model and the run, but this process \
             may map only {} more (ulimit -v): raise the limit by at least {} or use a larger \
             scale=",
            spec.text,
            crate::units::format_bytes(whole_run),
            crate::units::format_bytes(left),
            crate::units::format_bytes(whole_run - left)
        );
    }
    Ok(())
}

/// Address space a simulated run maps beside its model (I/O threads' stacks and malloc
/// arenas, sample buffers, the state file's copy). Measured: a full-size vertex2-60g soak
/// (a 245 MiB model) aborted under `ulimit -v 330000` and ran under `ulimit -v 380000`.
const BESIDE_THE_MODEL: u64 = 128 << 20;

/// MemAvailable from /proc/meminfo, in bytes.
fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Address space the process may still map under its RLIMIT_AS (None when unlimited):
/// the limit less what /proc/self/status says is mapped now (VmSize).
fn address_space_left() -> Option<u64> {
    use nix::sys::resource::{getrlimit, Resource, RLIM_INFINITY};
    let (soft, _) = getrlimit(Resource::RLIMIT_AS).ok()?;
    if soft == RLIM_INFINITY {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let mapped_kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(soft.saturating_sub(mapped_kib * 1024))
}
