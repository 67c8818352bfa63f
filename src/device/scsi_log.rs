//! A SCSI drive's temperature: LOG SENSE of the Temperature log page (0x0D, SPC-4), whose
//! parameter 0000h is the current temperature and 0001h the reference (the highest the maker
//! rates for continuous operation). The page is decoded by a pure function pinned by a unit
//! test; only [`read_temperature`] touches the device.

use std::os::fd::AsRawFd;

/// The Temperature log page.
const PAGE_TEMPERATURE: u8 = 0x0D;
const ALLOC: u16 = 64;

/// LOG SENSE (10) of the temperature page, cumulative values (PC 01b).
pub fn log_sense_cdb() -> [u8; 10] {
    let mut cdb = [0u8; 10];
    cdb[0] = 0x4D;
    cdb[2] = 0x40 | PAGE_TEMPERATURE;
    cdb[7..9].copy_from_slice(&ALLOC.to_be_bytes());
    cdb
}

/// Current and reference temperature, °C, from the page; 0xFF means the drive does not say.
pub fn parse_temperature(page: &[u8]) -> (Option<f64>, Option<f64>) {
    let mut out = (None, None);
    if page.len() < 4 || page[0] & 0x3F != PAGE_TEMPERATURE {
        return out;
    }
    let end = (4 + usize::from(u16::from_be_bytes([page[2], page[3]]))).min(page.len());
    let mut i = 4;
    while i + 4 <= end {
        let code = u16::from_be_bytes([page[i], page[i + 1]]);
        let len = usize::from(page[i + 3]);
        let value = (len >= 2 && i + 5 < end)
            .then(|| page[i + 5])
            .filter(|&t| t != 0xFF)
            .map(f64::from);
        match code {
            0 => out.0 = value,
            1 => out.1 = value,
            _ => {}
        }
        i += 4 + len;
    }
    out
}

/// Reads the current and reference temperature.
pub fn read_temperature(fd: &impl AsRawFd) -> anyhow::Result<(Option<f64>, Option<f64>)> {
    let page = super::ata::scsi_read(
        fd,
        "LOG SENSE (temperature page 0x0D)",
        &log_sense_cdb(),
        usize::from(ALLOC),
    )?;
    match parse_temperature(&page) {
        (None, _) => anyhow::bail!("the temperature log page carries no current temperature"),
        t => Ok(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdb_asks_for_cumulative_temperature_page() {
        assert_eq!(log_sense_cdb(), [0x4D, 0, 0x4D, 0, 0, 0, 0, 0, 64, 0]);
    }

    #[test]
    fn current_and_reference_temperature_decode() {
        let page = [
            0x0D, 0, 0, 12, // header: page 0x0D, 12 bytes of parameters
            0, 0, 0x03, 2, 0, 38, // 0000h: current 38 °C
            0, 1, 0x03, 2, 0, 70, // 0001h: reference 70 °C
        ];
        assert_eq!(parse_temperature(&page), (Some(38.0), Some(70.0)));
        let unknown = [0x0D, 0, 0, 6, 0, 0, 0x03, 2, 0, 0xFF];
        assert_eq!(parse_temperature(&unknown), (None, None));
        assert_eq!(parse_temperature(&[0x2F, 0, 0, 0]), (None, None));
    }
}
