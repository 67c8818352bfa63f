//! Simulated SSDs: `sim:PRESET[,key=value…]` targets backed by a flash-translation-layer model
//! that runs on simulated time, so an 8-hour soak takes seconds and shows why a drive fades.
//!
//! - [`ftl`]: page mapping, greedy GC, TRIM, secure erase, erase counts (no notion of time);
//! - [`device`]: the controller around it (compression, unaligned read-modify-write, SLC cache,
//!   lifetime throttling, write cache, faults, aging) and the clock;
//! - [`engine`]: the `sim` engine that runs a workload on a device;
//! - [`queue`]: the host's closed loop of QD I/Os that turns service times into latencies;
//! - [`presets`], [`spec`]: the drives and the options that change them;
//! - [`thermal`]: heat, temperature and thermal throttling (`thermal=`);
//! - [`state`]: the `state=PATH` file format (the drive kept between commands), [`store`]: that
//!   file locked for a command and replaced atomically, [`drive`]: a drive as a command holds it
//!   (erase, idle time, power cut).
//!
//! This module's functions are what other commands (`erase`, `info`) call.

pub mod bench;
pub mod contention;
pub mod device;
pub mod drive;
pub mod engine;
pub mod ftl;
mod huge;
pub mod presets;
pub mod queue;
pub mod spec;
pub mod state;
pub mod store;
pub mod sync;
pub mod thermal;
pub mod twin;
pub mod verify;

use std::fmt;

pub use device::SimDevice;
pub use drive::SimDrive;
pub use engine::SimEngine;
pub use spec::SimSpec;

use crate::drive::Identity;

/// What the drive's write cache does with acknowledged writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheMode {
    /// Write-through: a write completes once programmed.
    None,
    /// Write-back without protection: a power cut loses unflushed writes.
    Volatile,
    /// Write-back with power-loss protection: nothing acknowledged is lost.
    Plp,
    /// Write-back that acknowledges flushes without persisting.
    Lying,
}

impl fmt::Display for CacheMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CacheMode::None => "none",
            CacheMode::Volatile => "volatile",
            CacheMode::Plp => "plp",
            CacheMode::Lying => "lying",
        })
    }
}

/// True when `target` names a simulated drive (`sim:…`).
pub fn is_sim_target(target: &str) -> bool {
    target.starts_with("sim:")
}

pub use crate::drive::OwnErase as SimErase;

/// Erases the drive kept in the spec's `state=` file (refused as bad input without one; a
/// new drive when the file is absent or empty), saves it and returns one line saying what was
/// done. A command that records the erase opens the drive first with
/// [`SimDrive::open_kept`], so a refusal comes before any record is made.
pub fn erase(spec: &str, how: SimErase) -> anyhow::Result<String> {
    SimDrive::open_kept(spec, "an erase")?.erase(how)
}

/// The identity a simulated drive shows as a target (cheap: no model is built).
pub fn identity(spec: &str) -> anyhow::Result<Identity> {
    Ok(identity_of(&SimSpec::parse(spec)?))
}

/// The preset's model name, with the capacity it was resized to (`capacity=`) where that is not
/// the one the name gives.
fn model_shown(spec: &SimSpec) -> String {
    let model = spec.preset.model;
    match presets::find(spec.preset.name) {
        Some(named) if named.user_bytes != spec.preset.user_bytes => format!(
            "{model}, resized to {}",
            crate::units::format_size(spec.preset.user_bytes)
        ),
        _ => model.to_string(),
    }
}

fn identity_of(spec: &SimSpec) -> Identity {
    Identity {
        kind: "sim".into(),
        name: spec.short_name(),
        size_bytes: spec.size_bytes(),
        logical_block: 512,
        physical_block: 4096,
        model: Some(model_shown(spec)),
        serial: Some(
            spec.serial
                .clone()
                .unwrap_or_else(|| format!("SIM-{}-{}", spec.preset.name, spec.seed)),
        ),
        wwn: None,
        firmware: Some(format!("ssdfade-sim {}", env!("CARGO_PKG_VERSION"))),
        rotational: Some(false),
        write_cache: Some(match spec.cache {
            CacheMode::None => "write through".into(),
            mode => format!("write back ({mode})"),
        }),
        backing_device: spec.state.as_ref().map(|p| p.display().to_string()),
    }
}

/// Wear figures of a simulated drive (what `info` shows).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SimWear {
    /// Bytes the host has written over the drive's life.
    pub host_bytes_written: u64,
    /// Bytes programmed into NAND (host data after compression, plus GC copies).
    pub nand_bytes_written: u64,
    /// NAND bytes / host bytes over the drive's life.
    pub write_amplification: f64,
    pub erase_count_min: u32,
    pub erase_count_mean: f64,
    pub erase_count_max: u32,
    /// Average P/E cycles including history that was not simulated write by write.
    pub mean_pe: f64,
    pub rated_pe: Option<f64>,
    pub power_on_hours: f64,
    /// P/E cycles above the lifetime-throttling curve (negative: below it).
    pub throttle_debt_pe: Option<f64>,
    /// Fraction of the full write rate the throttle allows now.
    pub throttle_fraction: f64,
    /// Bytes holding data (not trimmed or erased).
    pub mapped_bytes: u64,
    /// Bytes trimmed whose flash the drive kept (incomplete TRIM; a rewrite or secure erase
    /// frees them).
    pub kept_bytes: u64,
    /// Erase blocks retired as worn out (full-size drive).
    pub retired_blocks: u64,
    /// Spare blocks still in service, percent of those the drive was built with (SMART's
    /// available spare).
    pub available_spare_percent: u32,
    /// Worn-out blocks used up the spare area: writes fail (EROFS).
    pub read_only: bool,
}

/// Wear of the drive in the spec's `state=` file (or of a new drive when there is none).
pub fn wear(spec: &str) -> anyhow::Result<SimWear> {
    let spec = SimSpec::parse(spec)?;
    Ok(wear_of(&open_device(&spec)?))
}

/// Wear of a drive in memory.
pub fn wear_of(dev: &SimDevice) -> SimWear {
    let spec = &dev.spec;
    let k = u64::from(spec.scale);
    let life = dev.lifetime();
    let geo = dev.ftl().geometry();
    let counts = dev.ftl().erase_counts();
    let host = life.host_bytes * k;
    let nand = life.programmed_slots * 4096 / u64::from(geo.slots_per_page) * k;
    SimWear {
        host_bytes_written: host,
        nand_bytes_written: nand,
        write_amplification: if host > 0 {
            nand as f64 / host as f64
        } else {
            0.0
        },
        erase_count_min: counts.iter().copied().min().unwrap_or(0),
        erase_count_mean: counts.iter().map(|&c| f64::from(c)).sum::<f64>() / counts.len() as f64,
        erase_count_max: counts.iter().copied().max().unwrap_or(0),
        mean_pe: dev.mean_pe(),
        rated_pe: Some(spec.preset.endurance_pe).filter(|&n| n > 0.0),
        power_on_hours: life.power_on_s / 3600.0,
        throttle_debt_pe: dev.throttle_debt_pe(),
        throttle_fraction: dev.throttle_fraction(),
        mapped_bytes: dev.ftl().mapped_pages() * 4096 * k,
        kept_bytes: dev.ftl().kept_pages() * 4096 * k,
        retired_blocks: u64::from(dev.ftl().retired_blocks()) * k,
        available_spare_percent: (dev.ftl().spare_fraction() * 100.0).round() as u32,
        read_only: dev.read_only(),
    }
}

/// Which drive the spec's `state=` file holds and how often it was saved (`None`: no saved
/// drive).
pub fn saved_stamp(spec: &str) -> anyhow::Result<Option<crate::drive::StateStamp>> {
    let stamp = drive::saved_stamp(&SimSpec::parse(spec)?)?;
    Ok(stamp.map(|s| crate::drive::StateStamp {
        id: format!("{:016x}", s.id),
        saves: s.saves,
    }))
}

/// Which drive the spec's `state=` file holds and how often it was saved, from the file's head
/// alone (cheap; unchecked): for a drive this process just saved.
pub fn last_saved_stamp(spec: &str) -> Option<crate::drive::StateStamp> {
    let stamp = drive::last_saved_stamp(&SimSpec::parse(spec).ok()?)?;
    Some(crate::drive::StateStamp {
        id: format!("{:016x}", stamp.id),
        saves: stamp.saves,
    })
}

/// The drive of `spec` as last saved in its `state=` file, or new (read-only: not locked).
pub fn open_device(spec: &SimSpec) -> anyhow::Result<SimDevice> {
    drive::saved_device(spec)
}

/// The record of a simulated drive from its identity and wear (`info` on a `sim:` target, and
/// the sim engine, which has the drive in memory).
pub fn drive_info(spec: &str, id: Identity, w: SimWear) -> crate::drive::DriveInfo {
    let used = w
        .rated_pe
        .filter(|r| *r > 0.0)
        .map(|r| w.mean_pe / r * 100.0);
    let parsed = SimSpec::parse(spec).ok();
    crate::drive::DriveInfo {
        path: spec.into(),
        kind: "sim".into(),
        name: id.name.clone(),
        model: id.model.clone(),
        serial: id.serial.clone(),
        firmware: id.firmware.clone(),
        size_bytes: Some(id.size_bytes),
        flash_bytes: parsed
            .as_ref()
            .map(|s| (s.size_bytes() as f64 * s.preset.alpha) as u64),
        writes_in_place: parsed.as_ref().is_some_and(|s| s.preset.erase_us == 0.0),
        logical_block: Some(id.logical_block),
        physical_block: Some(id.physical_block),
        rotational: id.rotational,
        write_cache: id.write_cache.clone(),
        discard: Some(crate::drive::Discard {
            supported: true,
            ..Default::default()
        }),
        notes: id
            .backing_device
            .iter()
            .map(|state| format!("state file: {state}"))
            .collect(),
        wear: crate::drive::Wear {
            source: "sim".into(),
            percentage_used: used.map(|u| u.round() as u32),
            life_left_percent: used.map(|u| (100.0 - u).clamp(0.0, 100.0).round() as u32),
            host_bytes_written: Some(w.host_bytes_written),
            nand_bytes_written: Some(w.nand_bytes_written),
            erase_cycles: Some(w.mean_pe.round() as u64),
            power_on_hours: Some(w.power_on_hours as u64),
            available_spare_percent: Some(w.available_spare_percent),
            // NVMe critical warning: spare below threshold (bit 0), media read-only (bit 3).
            critical_warning: Some(
                u32::from(w.available_spare_percent < 10) | (u32::from(w.read_only) << 3),
            ),
            notes: w
                .read_only
                .then(|| "read-only: spare used up by worn blocks; writes fail (EROFS)".to_string())
                .into_iter()
                .chain([format!(
                "simulated: lifetime write amplification {:.2}, erase counts {}/{:.1}/{} (min/mean/max), {} bytes mapped, writes allowed at {:.0} % of full rate",
                w.write_amplification,
                w.erase_count_min,
                w.erase_count_mean,
                w.erase_count_max,
                w.mapped_bytes,
                w.throttle_fraction * 100.0
            )])
            .chain((w.kept_bytes > 0).then(|| format!(
                "TRIM left {} bytes of trimmed data allocated in flash (incomplete TRIM after incompressible data; rewriting them or a secure erase frees them)",
                w.kept_bytes
            )))
            .collect(),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::identity;

    #[test]
    fn serial_option_names_the_drive_and_the_default_keeps_preset_and_seed() {
        let given = identity("sim:dc-ssd-400g,serial=ABC-7").unwrap();
        assert_eq!(given.serial.as_deref(), Some("ABC-7"));
        let default = identity("sim:dc-ssd-400g,seed=3").unwrap();
        assert_eq!(default.serial.as_deref(), Some("SIM-dc-ssd-400g-3"));
    }

    #[test]
    fn a_resized_drive_says_its_capacity_beside_the_presets_name() {
        assert_eq!(
            identity("sim:vertex2-60g").unwrap().model.unwrap(),
            "OCZ Vertex 2 60GB (simulated SF-1200)"
        );
        let model = |spec: &str| identity(spec).unwrap().model.unwrap();
        assert_eq!(
            model("sim:vertex2-60g,capacity=30GB"),
            "OCZ Vertex 2 60GB (simulated SF-1200), resized to 30 GB"
        );
        assert_eq!(
            model("sim:vertex2-60g,capacity=30G"),
            "OCZ Vertex 2 60GB (simulated SF-1200), resized to 30 GiB"
        );
    }
}
