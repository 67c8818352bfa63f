//! An ATA drive's SMART data read straight through SG_IO (ATA PASS-THROUGH, as `info` sends
//! IDENTIFY): SMART READ DATA for the attribute table and SMART READ LOG 0xE0 for the SCT
//! status (the current temperature). The pages are decoded by pure functions pinned by unit
//! tests on buffers laid out as ATA8-ACS describes them; only the `read_*` functions touch the
//! device.

use std::os::fd::AsRawFd;

use super::ata::{self, AtaCommand, Transfer};

/// SMART (0xB0) with the signature the command needs in LBA mid / high.
const CMD_SMART: u8 = 0xB0;
const SMART_READ_DATA: u8 = 0xD0;
const SMART_READ_LOG: u8 = 0xD5;
/// The SCT command / status log.
const LOG_SCT_STATUS: u8 = 0xE0;

/// One attribute of the SMART data page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attribute {
    pub id: u8,
    /// Normalized value.
    pub value: u8,
    /// The 48-bit raw value, little-endian as the page stores it.
    pub raw: u64,
}

/// A SMART feature command reading one 512-byte block; `lba_low` is the log address for READ
/// LOG.
fn smart_command(name: &'static str, feature: u8, lba_low: u8) -> AtaCommand {
    let mut cdb = ata::ata16(CMD_SMART, Transfer::FromDevice, 1);
    cdb[4] = feature;
    cdb[8] = lba_low;
    cdb[10] = 0x4F;
    cdb[12] = 0xC2;
    AtaCommand {
        name,
        cdb,
        transfer: Transfer::FromDevice,
        data_out: None,
        timeout_ms: 5_000,
    }
}

/// SMART READ DATA: the attribute table.
pub fn read_data_command() -> AtaCommand {
    smart_command("SMART READ DATA", SMART_READ_DATA, 0)
}

/// SMART READ LOG of the SCT status (log 0xE0, one block).
pub fn sct_status_command() -> AtaCommand {
    smart_command(
        "SMART READ LOG (SCT status)",
        SMART_READ_LOG,
        LOG_SCT_STATUS,
    )
}

/// Decodes the SMART data page: 30 entries of 12 bytes from byte 2 (id, flags ×2, value,
/// worst, raw ×6, reserved); byte 511 makes the page's bytes sum to zero. None when the
/// checksum fails (a bridge that answered with something else).
pub fn parse_attributes(page: &[u8]) -> Option<Vec<Attribute>> {
    if page.len() < 512 || page[..512].iter().fold(0u8, |a, &b| a.wrapping_add(b)) != 0 {
        return None;
    }
    let attrs = page[2..362]
        .chunks_exact(12)
        .filter(|e| e[0] != 0)
        .map(|e| {
            let mut raw = [0u8; 8];
            raw[..6].copy_from_slice(&e[5..11]);
            Attribute {
                id: e[0],
                value: e[3],
                raw: u64::from_le_bytes(raw),
            }
        })
        .collect();
    Some(attrs)
}

/// The temperature of attribute 194 (Temperature_Celsius) or else 190 (Airflow_Temperature):
/// the raw value's lowest byte, °C.
pub fn attribute_temperature(attrs: &[Attribute]) -> Option<f64> {
    [194u8, 190]
        .iter()
        .find_map(|id| attrs.iter().find(|a| a.id == *id))
        .map(|a| f64::from((a.raw & 0xFF) as u8))
        .filter(|&t| t > 0.0)
}

/// The current temperature of an SCT status page (byte 200, signed °C; 0x80 means none).
pub fn sct_temperature(page: &[u8]) -> Option<f64> {
    let t = *page.get(200)? as i8;
    (t != i8::MIN && page[..2] != [0, 0]).then(|| f64::from(t))
}

/// Reads the attribute table.
pub fn read_attributes(fd: &impl AsRawFd) -> anyhow::Result<Vec<Attribute>> {
    let (page, _) = ata::send(fd, &read_data_command())?;
    parse_attributes(&page).ok_or_else(|| {
        anyhow::anyhow!("SMART READ DATA returned a page whose checksum fails (not SMART data)")
    })
}

/// Reads the SCT status temperature.
pub fn read_sct_temperature(fd: &impl AsRawFd) -> anyhow::Result<f64> {
    let (page, _) = ata::send(fd, &sct_status_command())?;
    sct_temperature(&page)
        .ok_or_else(|| anyhow::anyhow!("the SCT status page carries no temperature"))
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A SMART data page holding `attrs` (id, value, raw), checksummed.
    pub fn page(attrs: &[(u8, u8, u64)]) -> Vec<u8> {
        let mut p = vec![0u8; 512];
        p[0] = 0x10;
        for (i, &(id, value, raw)) in attrs.iter().enumerate() {
            let e = &mut p[2 + 12 * i..14 + 12 * i];
            e[0] = id;
            e[1] = 0x32;
            e[3] = value;
            e[4] = value;
            e[5..11].copy_from_slice(&raw.to_le_bytes()[..6]);
        }
        let sum = p[..511].iter().fold(0u8, |a, &b| a.wrapping_add(b));
        p[511] = 0u8.wrapping_sub(sum);
        p
    }

    #[test]
    fn smart_cdbs_carry_feature_signature_and_log_address() {
        assert_eq!(
            read_data_command().cdb,
            [0x85, 0x08, 0x0E, 0, 0xD0, 0, 0x01, 0, 0, 0, 0x4F, 0, 0xC2, 0x40, 0xB0, 0]
        );
        let sct = sct_status_command().cdb;
        assert_eq!((sct[4], sct[8], sct[14]), (0xD5, 0xE0, 0xB0));
    }

    #[test]
    fn attributes_decode_raw_48_bits_and_temperatures() {
        let p = page(&[
            (9, 100, 11_690),
            (194, 70, 0x0028_0012_0023),
            (241, 100, 1 << 40),
        ]);
        let attrs = parse_attributes(&p).unwrap();
        assert_eq!(attrs.len(), 3);
        assert_eq!(
            attrs[0],
            Attribute {
                id: 9,
                value: 100,
                raw: 11_690
            }
        );
        assert_eq!(attrs[2].raw, 1 << 40);
        // 194's raw carries min/max beside the current value in its lowest byte.
        assert_eq!(attribute_temperature(&attrs), Some(35.0));
        let airflow = parse_attributes(&page(&[(190, 60, 40)])).unwrap();
        assert_eq!(attribute_temperature(&airflow), Some(40.0));
    }

    #[test]
    fn a_page_whose_checksum_fails_is_not_smart_data() {
        let mut p = page(&[(194, 70, 35)]);
        p[100] ^= 1;
        assert_eq!(parse_attributes(&p), None);
        assert_eq!(parse_attributes(&[0u8; 100]), None);
    }

    #[test]
    fn sct_status_temperature_is_a_signed_byte_at_200() {
        let mut p = vec![0u8; 512];
        p[0] = 3;
        p[200] = 47;
        assert_eq!(sct_temperature(&p), Some(47.0));
        p[200] = 0xFB;
        assert_eq!(sct_temperature(&p), Some(-5.0));
        p[200] = 0x80;
        assert_eq!(sct_temperature(&p), None);
        assert_eq!(
            sct_temperature(&[0u8; 512]),
            None,
            "an all-zero answer is none"
        );
    }
}
