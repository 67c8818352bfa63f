//! Reading a real drive's health during a run (temperature, thermal-management counters, host
//! bytes) with the ioctls `info` uses: for NVMe, the SMART / health log (Get Log Page 0x02) and
//! the warning threshold from Identify Controller. The run's sampler thread calls the reader
//! once per interval (see `run::telemetry`); a drive kind with no reader here gets no thread.

use std::fs::File;

use super::nvme;
use crate::drive::{DriveInfo, Health};

/// One reading of the drive; an error says why it could not be read.
pub type HealthReader = Box<dyn FnMut() -> anyhow::Result<Health> + Send>;

/// The reader of `drive`'s health, None for a kind that has none (files, loop, zram, virtio,
/// and for now SATA and SCSI, whose temperature `info` takes from smartctl).
pub fn reader(drive: &DriveInfo) -> Option<HealthReader> {
    if drive.kind != "nvme" {
        return None;
    }
    let file = File::open(&drive.path).ok()?;
    let warning_c = nvme::submit_read(&file, nvme::identify(1, 0, 0), 4096)
        .ok()
        .and_then(|id| nvme::warning_temp_k(&id))
        .map(|k| f64::from(k) - 273.15);
    Some(Box::new(move || {
        let log = nvme::read_smart_log(&file)?;
        Ok(nvme_health(&log, warning_c))
    }))
}

/// A reading from the NVMe SMART / health log (`warning_c`: WCTEMP, read once).
pub fn nvme_health(log: &nvme::SmartLog, warning_c: Option<f64>) -> Health {
    let clamp = |n: u128| n.min(u128::from(u64::MAX)) as u64;
    Health {
        temperature_c: (log.temperature_k > 0).then(|| f64::from(log.temperature_k) - 273.15),
        warning_c,
        tmt1_count: Some(u64::from(log.tmt1_count)),
        tmt2_count: Some(u64::from(log.tmt2_count)),
        tmt1_s: Some(f64::from(log.tmt1_s)),
        tmt2_s: Some(f64::from(log.tmt2_s)),
        warning_temp_min: Some(u64::from(log.warning_temp_min)),
        critical_temp_min: Some(u64::from(log.critical_temp_min)),
        host_bytes_written: Some(
            clamp(log.data_units_written).saturating_mul(super::smart::NVME_DATA_UNIT),
        ),
        host_bytes_read: Some(
            clamp(log.data_units_read).saturating_mul(super::smart::NVME_DATA_UNIT),
        ),
        nand_bytes_written: None,
    }
}
