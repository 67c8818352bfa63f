//! Reading a real drive's health during a run (temperature, thermal-management counters, host
//! and NAND bytes) with the ioctls `info` uses: for NVMe, the SMART / health log (Get Log Page
//! 0x02) and the warning threshold from Identify Controller, and where the drive offers it the
//! OCP datacenter log C0h ([`super::ocp_log`]: NAND bytes, throttling events); for SATA, SMART
//! READ DATA (the temperature of attribute 194 or 190, host and NAND bytes by the vendor table in
//! [`super::vendor_wear`]) and the SCT status temperature; for SCSI, the LOG SENSE temperature
//! page. The run's sampler thread calls the reader once per interval (see `run::telemetry`); a
//! drive kind with no reader here (files, loop, zram, virtio) gets no thread.

use std::fs::File;

use super::{ata_smart, nvme, ocp_log, scsi_log, vendor_wear};
use crate::drive::{plausible_c, DriveInfo, Health};

/// One reading of the drive; an error says why it could not be read.
pub type HealthReader = Box<dyn FnMut() -> anyhow::Result<Health> + Send>;

/// The reader of `drive`'s health, None for a kind that has none (files, loop, zram, virtio).
/// A temperature its sensor cannot mean is left out of the reading.
pub fn reader(drive: &DriveInfo) -> Option<HealthReader> {
    raw_reader(drive).map(plausible_only)
}

/// `read` with every temperature its sensor cannot mean ([`crate::drive::PLAUSIBLE_C`]) left
/// out of its readings.
fn plausible_only(mut read: HealthReader) -> HealthReader {
    Box::new(move || {
        read().map(|h| Health {
            temperature_c: h.temperature_c.and_then(plausible_c),
            warning_c: h.warning_c.and_then(plausible_c),
            ..h
        })
    })
}

/// The reader of `drive`'s health as the drive answers.
fn raw_reader(drive: &DriveInfo) -> Option<HealthReader> {
    match drive.kind.as_str() {
        "nvme" => nvme_reader(File::open(&drive.path).ok()?),
        "sata" => Some(ata_reader(
            File::open(&drive.path).ok()?,
            drive.model.clone().unwrap_or_default(),
        )),
        "scsi" => {
            let file = File::open(&drive.path).ok()?;
            Some(Box::new(move || {
                let (temperature_c, warning_c) = scsi_log::read_temperature(&file)?;
                Ok(Health {
                    temperature_c,
                    warning_c,
                    ..Default::default()
                })
            }))
        }
        _ => None,
    }
}

/// An ATA drive's reader: SMART READ DATA each time, and the SCT status temperature while
/// the drive answers it (a drive that refuses it once is not asked again).
fn ata_reader(file: File, model: String) -> HealthReader {
    let mut sct = true;
    Box::new(move || {
        let attrs = ata_smart::read_attributes(&file)?;
        let sct_t = if sct {
            let t = ata_smart::read_sct_temperature(&file).ok();
            sct = t.is_some();
            t
        } else {
            None
        };
        Ok(ata_health(&model, &attrs, sct_t))
    })
}

/// A reading from an ATA drive's attributes (`sct_c`: the SCT status temperature, preferred).
pub fn ata_health(model: &str, attrs: &[ata_smart::Attribute], sct_c: Option<f64>) -> Health {
    let writes = vendor_wear::writes(model, attrs);
    Health {
        temperature_c: sct_c.or_else(|| ata_smart::attribute_temperature(attrs)),
        host_bytes_written: writes.host_bytes,
        nand_bytes_written: writes.nand_bytes,
        ..Default::default()
    }
}

fn nvme_reader(file: File) -> Option<HealthReader> {
    let warning_c = nvme::submit_read(&file, nvme::identify(1, 0, 0), 4096)
        .ok()
        .and_then(|id| nvme::warning_temp_k(&id))
        .map(|k| f64::from(k) - 273.15);
    // Asked while the drive answers with the OCP log; a drive that does not is not asked again.
    let mut ocp = true;
    Some(Box::new(move || {
        let log = nvme::read_smart_log(&file)?;
        let mut health = nvme_health(&log, warning_c);
        if ocp {
            match ocp_log::read(&file).ok().flatten() {
                Some(extended) => with_ocp(&mut health, &extended),
                None => ocp = false,
            }
        }
        Ok(health)
    }))
}

/// Adds what the OCP extended log says to an NVMe reading: the NAND bytes and the throttling
/// events.
pub fn with_ocp(health: &mut Health, log: &ocp_log::OcpSmart) {
    health.nand_bytes_written = Some(log.media_bytes_written.min(u128::from(u64::MAX)) as u64);
    health.throttle_events = Some(u64::from(log.throttle_events));
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
        throttle_events: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::ata_smart::{parse_attributes, tests::page};

    #[test]
    fn an_ata_reading_prefers_sct_temperature_and_maps_vendor_counters() {
        let attrs =
            parse_attributes(&page(&[(194, 70, 41), (241, 100, 50), (233, 100, 65)])).unwrap();
        let h = ata_health("OCZ-VERTEX2", &attrs, Some(44.0));
        assert_eq!(h.temperature_c, Some(44.0));
        assert_eq!(h.host_bytes_written, Some(50 << 30));
        assert_eq!(h.nand_bytes_written, Some(65 << 30));
        assert_eq!(
            ata_health("OCZ-VERTEX2", &attrs, None).temperature_c,
            Some(41.0)
        );
    }

    /// A temperature past what a sensor can mean (−60 °C to 200 °C: a 0xFFFF kelvin field is
    /// 65262 °C) is left out of the reading, the edges and everything else kept as read.
    #[test]
    fn the_reader_leaves_out_temperatures_no_sensor_can_mean() {
        let said = [
            (Some(41.0), Some(70.0)),
            (Some(1000.0), Some(-61.0)),
            (Some(-60.0), Some(200.0)),
            (Some(200.5), Some(65535.0 - 273.15)),
            (Some(f64::NAN), None),
        ];
        let mut next = said.into_iter();
        let mut read = plausible_only(Box::new(move || {
            let (temperature_c, warning_c) = next.next().unwrap();
            Ok(Health {
                temperature_c,
                warning_c,
                host_bytes_written: Some(5 << 30),
                ..Default::default()
            })
        }));
        let kept = |c: Option<f64>| c.filter(|c| *c >= -60.0 && *c <= 200.0);
        for (temperature_c, warning_c) in said {
            let h = read().unwrap();
            assert_eq!(h.temperature_c, kept(temperature_c), "{temperature_c:?}");
            assert_eq!(h.warning_c, kept(warning_c), "{warning_c:?}");
            assert_eq!(h.host_bytes_written, Some(5 << 30));
        }
    }

    #[test]
    fn the_ocp_log_gives_an_nvme_reading_its_nand_bytes_and_throttling_events() {
        let mut h = Health {
            host_bytes_written: Some(3 << 30),
            ..Default::default()
        };
        let log = ocp_log::OcpSmart {
            media_bytes_written: 7 << 30,
            media_bytes_read: 1 << 30,
            throttle_events: 2,
            throttle_status: 1,
        };
        with_ocp(&mut h, &log);
        assert_eq!(h.nand_bytes_written, Some(7 << 30));
        assert_eq!(h.throttle_events, Some(2));
        assert_eq!(
            h.host_bytes_written,
            Some(3 << 30),
            "the health log's stays"
        );
    }

    #[test]
    fn kinds_that_answer_nothing_get_no_reader() {
        for kind in ["zram", "loop", "virtio", "file"] {
            let drive = DriveInfo {
                kind: kind.into(),
                path: "/dev/null".into(),
                ..Default::default()
            };
            assert!(reader(&drive).is_none(), "{kind}");
        }
    }
}
