//! Wear: how used a drive is and how much the host and the NAND have written. Read with
//! `smartctl -j` when it is installed (it knows vendor attribute names and units, SAT bridges and
//! checksums), otherwise straight from the NVMe SMART / Health log. Whatever a drive does not
//! report stays `None` ("unknown"), never an error.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::device::nvme;
pub use crate::drive::{AtaAttribute, Wear, WriteAmplification};

/// One NVMe data unit: 1000 × 512 bytes.
pub const NVME_DATA_UNIT: u64 = 512_000;
const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

impl Wear {
    /// No wear data, and why.
    pub fn unknown(why: impl Into<String>) -> Wear {
        Wear {
            source: "none".into(),
            notes: vec![why.into()],
            ..Default::default()
        }
    }

    fn has_figures(&self) -> bool {
        self.percentage_used.is_some()
            || self.life_left_percent.is_some()
            || self.host_bytes_written.is_some()
            || self.nand_bytes_written.is_some()
    }
}

/// Model, serial and firmware as smartctl reports them (SATA has no serial in sysfs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SmartIdentity {
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
}

/// Reads the wear of a block device of the given kind (`nvme`, `sata`, `scsi`, …) open as `fd`.
pub fn read(path: &str, kind: &str, fd: &std::fs::File) -> (Wear, SmartIdentity) {
    if matches!(kind, "zram" | "loop" | "virtio") {
        let why = format!(
            "a {kind} device reports no SMART wear data (loop and virtio wear is the host disk's)"
        );
        return (Wear::unknown(why), SmartIdentity::default());
    }
    let mut notes = Vec::new();
    let mut identity = SmartIdentity::default();
    match smartctl_json(path) {
        Ok(json) => {
            identity = identity_from_smartctl(&json);
            let mut wear = from_smartctl(&json);
            if wear.has_figures() || kind != "nvme" {
                return (wear, identity);
            }
            notes.append(&mut wear.notes);
        }
        Err(why) => notes.push(why),
    }
    if kind == "nvme" {
        match nvme::read_smart_log(fd) {
            Ok(log) => {
                let mut wear = from_nvme_log(&log);
                wear.notes.extend(notes);
                return (wear, identity);
            }
            Err(e) => notes.push(format!("NVMe SMART log: {e:#}")),
        }
    }
    let wear = Wear {
        source: "none".into(),
        notes,
        ..Default::default()
    };
    (wear, identity)
}

/// Model, serial and firmware from smartctl's JSON.
pub fn identity_from_smartctl(json: &Value) -> SmartIdentity {
    let text = |k: &str| json[k].as_str().map(|s| s.trim().to_string());
    SmartIdentity {
        model: text("model_name"),
        serial: text("serial_number"),
        firmware: text("firmware_version"),
    }
}

/// Runs `smartctl -j -x PATH` (20 s at most) and returns its JSON even when the exit status
/// has bits set; an error when smartctl is missing or printed nothing usable.
fn smartctl_json(path: &str) -> Result<Value, String> {
    let mut child = match Command::new("smartctl")
        .args(["-j", "-x", path])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("smartctl is not installed (apt install smartmontools)".into())
        }
        Err(e) => return Err(format!("cannot run smartctl: {e}")),
    };
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut out) = stdout {
            let _ = std::io::Read::read_to_string(&mut out, &mut text);
        }
        text
    });
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > Duration::from_secs(20) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("smartctl did not answer within 20 s".into());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("waiting for smartctl: {e}")),
        }
    }
    let text = reader.join().unwrap_or_default();
    serde_json::from_str(&text).map_err(|e| format!("smartctl printed no JSON: {e}"))
}

fn u64_at(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64).or_else(|| {
        // Integers of 2^53 and above also come as a string in KEY_s.
        v.get(format!("{key}_s"))
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<u128>().ok())
            .map(|n| n.min(u128::from(u64::MAX)) as u64)
    })
}

/// Wear from the JSON of `smartctl -j -a` or `-x`.
pub fn from_smartctl(json: &Value) -> Wear {
    let mut wear = Wear {
        source: "smartctl".into(),
        ..Default::default()
    };
    let exit = json["smartctl"]["exit_status"].as_u64().unwrap_or(0);
    if exit & 0x7 != 0 {
        let msg = json["smartctl"]["messages"]
            .as_array()
            .and_then(|m| m.first())
            .and_then(|m| m["string"].as_str())
            .unwrap_or("no message");
        wear.notes.push(format!(
            "smartctl could not read everything (exit {exit}): {msg}"
        ));
    }
    if exit & 0x8 != 0 {
        wear.notes
            .push("smartctl says: SMART overall health FAILING".into());
    }
    wear.temperature_c = json["temperature"]["current"]
        .as_i64()
        .filter(|t| crate::drive::plausible_c(*t as f64).is_some());
    wear.power_on_hours = json["power_on_time"]["hours"].as_u64();

    let nvme = &json["nvme_smart_health_information_log"];
    if nvme.is_object() {
        wear.percentage_used = nvme["percentage_used"].as_u64().map(|n| n as u32);
        wear.available_spare_percent = nvme["available_spare"].as_u64().map(|n| n as u32);
        wear.critical_warning = nvme["critical_warning"].as_u64().map(|n| n as u32);
        wear.media_errors = u64_at(nvme, "media_errors");
        wear.unsafe_shutdowns = u64_at(nvme, "unsafe_shutdowns");
        wear.power_on_hours = u64_at(nvme, "power_on_hours").or(wear.power_on_hours);
        wear.host_bytes_written =
            u64_at(nvme, "data_units_written").map(|n| n.saturating_mul(NVME_DATA_UNIT));
        wear.host_bytes_read =
            u64_at(nvme, "data_units_read").map(|n| n.saturating_mul(NVME_DATA_UNIT));
    }
    if let Some(table) = json["ata_smart_attributes"]["table"].as_array() {
        for attr in table {
            apply_ata_attribute(&mut wear, attr);
        }
    }
    if let Some(pages) = json["ata_device_statistics"]["pages"].as_array() {
        for entry in pages.iter().filter_map(|p| p["table"].as_array()).flatten() {
            let value = entry["value"].as_u64();
            match entry["name"].as_str().unwrap_or("") {
                "Logical Sectors Written" if wear.host_bytes_written.is_none() => {
                    wear.host_bytes_written = value.map(|n| n.saturating_mul(512));
                }
                "Logical Sectors Read" if wear.host_bytes_read.is_none() => {
                    wear.host_bytes_read = value.map(|n| n.saturating_mul(512));
                }
                "Percentage Used Endurance Indicator" => {
                    wear.percentage_used = value.map(|n| n as u32);
                }
                _ => {}
            }
        }
    }
    wear
}

/// Maps one ATA attribute by its (drivedb) name; the id alone does not fix the units.
fn apply_ata_attribute(wear: &mut Wear, attr: &Value) {
    let name = attr["name"].as_str().unwrap_or("").to_string();
    let value = attr["value"].as_u64().unwrap_or(0) as u32;
    let raw = attr["raw"]["value"].as_u64().unwrap_or(0);
    let meaning: &str = match name.as_str() {
        "Wear_Leveling_Count" => {
            wear.life_left_percent = Some(value);
            wear.erase_cycles = Some(raw);
            "normalized = % life left, raw = average P/E cycles"
        }
        "Media_Wearout_Indicator"
        | "SSD_Life_Left"
        | "Percent_Lifetime_Remain"
        | "Remaining_Lifetime_Perc" => {
            wear.life_left_percent = Some(value);
            "normalized = % life left"
        }
        "Ave_Block-Erase_Count" | "Average_Erase_Count" | "Avg_Erase_Count" => {
            wear.erase_cycles = Some(raw);
            "raw = average P/E cycles"
        }
        "Total_LBAs_Written" => {
            wear.host_bytes_written = Some(raw.saturating_mul(512));
            "raw = host writes in 512-byte sectors"
        }
        "Total_LBAs_Read" => {
            wear.host_bytes_read = Some(raw.saturating_mul(512));
            "raw = host reads in 512-byte sectors"
        }
        "Host_Writes_32MiB" => {
            wear.host_bytes_written = Some(raw.saturating_mul(32 * MIB));
            "raw = host writes in 32 MiB"
        }
        "Host_Reads_32MiB" => {
            wear.host_bytes_read = Some(raw.saturating_mul(32 * MIB));
            "raw = host reads in 32 MiB"
        }
        "Host_Writes_MiB" => {
            wear.host_bytes_written = Some(raw.saturating_mul(MIB));
            "raw = host writes in MiB"
        }
        "Host_Reads_MiB" => {
            wear.host_bytes_read = Some(raw.saturating_mul(MIB));
            "raw = host reads in MiB"
        }
        "Lifetime_Writes_GiB" | "Host_Writes_GiB" => {
            wear.host_bytes_written = Some(raw.saturating_mul(GIB));
            "raw = host writes in GiB"
        }
        "Lifetime_Reads_GiB" | "Host_Reads_GiB" => {
            wear.host_bytes_read = Some(raw.saturating_mul(GIB));
            "raw = host reads in GiB"
        }
        "NAND_Writes_1GiB" | "NAND_Writes_GiB" | "Total_NAND_Writes_GiB" => {
            wear.nand_bytes_written = Some(raw.saturating_mul(GIB));
            "raw = NAND writes in GiB"
        }
        "NAND_Writes_32MiB" => {
            wear.nand_bytes_written = Some(raw.saturating_mul(32 * MIB));
            "raw = NAND writes in 32 MiB"
        }
        // SandForce: 233 is commonly read as NAND GiB written (not documented by the vendor).
        "SandForce_Internal" if attr["id"].as_u64() == Some(233) => {
            wear.nand_bytes_written = Some(raw.saturating_mul(GIB));
            "raw = NAND writes in GiB (SandForce; commonly read so, not vendor-documented)"
        }
        "Reported_Uncorrect" => {
            wear.media_errors = Some(raw);
            "raw = uncorrectable errors reported to the host"
        }
        "Unexpect_Power_Loss_Ct" | "Unsafe_Shutdown_Count" => {
            wear.unsafe_shutdowns = Some(raw);
            "raw = unsafe shutdowns"
        }
        _ => return,
    };
    wear.attributes.push(AtaAttribute {
        id: attr["id"].as_u64().unwrap_or(0) as u32,
        name,
        value,
        worst: attr["worst"].as_u64().unwrap_or(0) as u32,
        thresh: attr["thresh"].as_u64().unwrap_or(0) as u32,
        raw,
        meaning: meaning.into(),
    });
}

/// Wear from the NVMe SMART / Health log read directly.
pub fn from_nvme_log(log: &nvme::SmartLog) -> Wear {
    let clamp = |n: u128| n.min(u128::from(u64::MAX)) as u64;
    Wear {
        source: "nvme-smart-log".into(),
        percentage_used: Some(u32::from(log.percentage_used)),
        host_bytes_written: Some(clamp(log.data_units_written).saturating_mul(NVME_DATA_UNIT)),
        host_bytes_read: Some(clamp(log.data_units_read).saturating_mul(NVME_DATA_UNIT)),
        media_errors: Some(clamp(log.media_errors)),
        power_on_hours: Some(clamp(log.power_on_hours)),
        unsafe_shutdowns: Some(clamp(log.unsafe_shutdowns)),
        available_spare_percent: Some(u32::from(log.available_spare)),
        critical_warning: Some(u32::from(log.critical_warning)),
        temperature_c: (log.temperature_k > 0)
            .then(|| i64::from(log.temperature_k) - 273)
            .filter(|t| crate::drive::plausible_c(*t as f64).is_some()),
        ..Default::default()
    }
}

/// The write amplification between `before` and `after`, when both report host and NAND
/// writes and the host wrote something in between.
pub fn write_amplification(before: &Wear, after: &Wear) -> Option<WriteAmplification> {
    let host = after
        .host_bytes_written?
        .checked_sub(before.host_bytes_written?)?;
    let nand = after
        .nand_bytes_written?
        .checked_sub(before.nand_bytes_written?)?;
    (host > 0).then(|| WriteAmplification {
        host_bytes: host,
        nand_bytes: nand,
        factor: nand as f64 / host as f64,
        note: if after.source == "sim" {
            "from the simulated drive's model, counted in bytes".into()
        } else {
            "from the drive's own counters; counters in GiB or 32 MiB units make short runs coarse"
                .into()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Value {
        let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    }

    #[test]
    fn sandforce_attributes_map_by_name_and_unit() {
        let w = from_smartctl(&fixture("smartctl-sandforce-vertex2.json"));
        assert_eq!(w.source, "smartctl");
        assert_eq!(w.life_left_percent, Some(94));
        assert_eq!(w.host_bytes_written, Some(3_392 * GIB));
        assert_eq!(w.host_bytes_read, Some(1_987 * GIB));
        assert_eq!(w.nand_bytes_written, Some(4_416 * GIB));
        assert_eq!(w.power_on_hours, Some(11_690));
        assert_eq!(w.temperature_c, Some(30));
        assert!(w.attributes.iter().any(|a| a.id == 233));
        assert!(w.notes.is_empty(), "{:?}", w.notes);
    }

    #[test]
    fn nvme_health_log_maps_data_units_to_bytes() {
        let w = from_smartctl(&fixture("smartctl-nvme.json"));
        assert_eq!(w.percentage_used, Some(3));
        assert_eq!(w.host_bytes_written, Some(41_234_567 * NVME_DATA_UNIT));
        assert_eq!(w.host_bytes_read, Some(52_345_678 * NVME_DATA_UNIT));
        assert_eq!(w.media_errors, Some(0));
        assert_eq!(w.unsafe_shutdowns, Some(42));
        assert_eq!(w.available_spare_percent, Some(100));
        assert_eq!(w.nand_bytes_written, None);
    }

    /// `info`'s two wear readers, given a real drive's answers with only the temperature
    /// changed: a reading inside [`crate::drive::PLAUSIBLE_C`] is kept as the drive said it,
    /// one past either bound (an unset 0xFFFF kelvin field, a stuck byte) is left out.
    #[test]
    fn a_temperature_no_sensor_can_mean_is_left_out_by_both_wear_readers() {
        let (cold, hot) = crate::drive::PLAUSIBLE_C;
        for celsius in [
            cold as i64 - 1,
            cold as i64,
            41,
            hot as i64,
            hot as i64 + 1,
            1000,
        ] {
            let meant = (cold..=hot).contains(&(celsius as f64));
            let mut json = fixture("smartctl-nvme.json");
            json["temperature"]["current"] = celsius.into();
            let read = from_smartctl(&json).temperature_c;
            assert_eq!(read, meant.then_some(celsius), "smartctl says {celsius} °C");
            let log = nvme::SmartLog {
                temperature_k: u16::try_from(celsius + 273).unwrap_or(u16::MAX),
                ..Default::default()
            };
            let read = from_nvme_log(&log).temperature_c;
            assert_eq!(
                read,
                meant.then_some(celsius),
                "the NVMe log says {celsius} °C"
            );
        }
        let unset = nvme::SmartLog {
            temperature_k: u16::MAX,
            ..Default::default()
        };
        assert_eq!(from_nvme_log(&unset).temperature_c, None, "0xFFFF kelvin");
    }

    #[test]
    fn failed_open_is_a_note_not_an_error() {
        let json: Value = serde_json::from_str(
            r#"{"smartctl":{"exit_status":1,"messages":[{"string":"/dev/vda: Unable to detect device type","severity":"error"}]}}"#,
        )
        .unwrap();
        let w = from_smartctl(&json);
        assert!(!w.has_figures());
        assert!(w.notes[0].contains("Unable to detect device type"));
    }

    #[test]
    fn big_integers_are_read_from_their_string_twin() {
        let json: Value = serde_json::from_str(
            r#"{"nvme_smart_health_information_log":{"data_units_written":9007199254740993,"data_units_written_s":"9007199254740993"}}"#,
        )
        .unwrap();
        let w = from_smartctl(&json);
        assert_eq!(
            w.host_bytes_written,
            Some(9_007_199_254_740_993u64.saturating_mul(NVME_DATA_UNIT))
        );
    }

    #[test]
    fn write_amplification_is_nand_over_host_delta() {
        let before = Wear {
            host_bytes_written: Some(10 * GIB),
            nand_bytes_written: Some(12 * GIB),
            ..Default::default()
        };
        let after = Wear {
            host_bytes_written: Some(20 * GIB),
            nand_bytes_written: Some(27 * GIB),
            ..Default::default()
        };
        let wa = write_amplification(&before, &after).unwrap();
        assert_eq!(wa.host_bytes, 10 * GIB);
        assert!((wa.factor - 1.5).abs() < 1e-9);
        assert!(write_amplification(&before, &before).is_none());
        assert!(write_amplification(&Wear::default(), &after).is_none());
    }
}
