//! The OCP Datacenter NVMe SSD specification's SMART / Health Information Extended log (Log
//! Identifier C0h, 512 bytes), where a drive offers it: the bytes programmed into and read from
//! the media (NAND bytes, so write amplification during a run) and the thermal throttling
//! events and current state. A drive is taken to offer it when the page reads and ends with
//! the log's GUID; the layout's source is in docs/telemetry.md ("Where NAND writes come from").

use std::os::fd::AsRawFd;

use super::nvme;

/// The log's identifier.
pub const LID: u8 = 0xC0;

/// Bytes 496–511 of the page, as the drive returns them: GUID AFD514C97C6F4F9CA4F2BFEA2810AFC5
/// stored least significant byte first.
pub const GUID: [u8; 16] = [
    0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF,
];

/// What a run reads of the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OcpSmart {
    /// Physical Media Units Written (bytes 0–15), in bytes.
    pub media_bytes_written: u128,
    /// Physical Media Units Read (bytes 16–31), in bytes.
    pub media_bytes_read: u128,
    /// Thermal throttling events since the drive was made (byte 96).
    pub throttle_events: u8,
    /// Current throttling status (byte 97): 0 when not throttled, else the throttle level the
    /// drive is in.
    pub throttle_status: u8,
}

/// The log from a 512-byte page; None when the page is short or does not end with [`GUID`]
/// (the drive does not offer the log, or offers another under the same identifier).
pub fn parse(b: &[u8]) -> Option<OcpSmart> {
    if b.len() < 512 || b[496..512] != GUID {
        return None;
    }
    let u128_at = |at: usize| u128::from_le_bytes(b[at..at + 16].try_into().unwrap());
    Some(OcpSmart {
        media_bytes_written: u128_at(0),
        media_bytes_read: u128_at(16),
        throttle_events: b[96],
        throttle_status: b[97],
    })
}

/// Reads the log; `Ok(None)` when the drive answered with a page that is not it.
pub fn read(fd: &impl AsRawFd) -> anyhow::Result<Option<OcpSmart>> {
    let buf = nvme::submit_read(fd, nvme::get_log_page(LID, nvme::NSID_ALL, 512, 0), 512)?;
    Ok(parse(&buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page laid out as the OCP Datacenter NVMe SSD Specification 2.0's table "SMART / Health
    /// Information Extended (Log Identifier C0h)" places its fields (nvme-cli's `struct
    /// ocp_smart_extended_log` has the same offsets): offsets and widths written out here, not
    /// taken from the parser.
    fn page(written: u128, read: u128, events: u8, status: u8) -> Vec<u8> {
        let mut b = vec![0u8; 512];
        // Physical Media Units Written, then Read: 16 bytes each.
        b[0..16].copy_from_slice(&written.to_le_bytes());
        b[16..32].copy_from_slice(&read.to_le_bytes());
        // Bad User NAND Blocks (raw), a neighbour the parser must not read.
        b[32..38].copy_from_slice(&[7, 0, 0, 0, 0, 0]);
        // Thermal Throttling Status and Count: the count, then the current status.
        b[96] = events;
        b[97] = status;
        // Log Page Version, then the Log Page GUID AFD514C97C6F4F9CA4F2BFEA2810AFC5, least
        // significant byte first.
        b[494..496].copy_from_slice(&3u16.to_le_bytes());
        let guid: u128 = 0xAFD5_14C9_7C6F_4F9C_A4F2_BFEA_2810_AFC5;
        b[496..512].copy_from_slice(&guid.to_le_bytes());
        b
    }

    #[test]
    fn the_pages_media_bytes_and_throttling_are_read_from_their_offsets() {
        let written = 3 * (1u128 << 40) + 12_345;
        let read = (1u128 << 70) + 9;
        let got = parse(&page(written, read, 4, 1)).unwrap();
        assert_eq!(
            got,
            OcpSmart {
                media_bytes_written: written,
                media_bytes_read: read,
                throttle_events: 4,
                throttle_status: 1,
            }
        );
    }

    #[test]
    fn a_page_without_the_guid_or_short_is_not_the_log() {
        let mut other = page(1, 1, 0, 0);
        other[500] ^= 0xFF;
        assert_eq!(parse(&other), None);
        assert_eq!(parse(&page(1, 1, 0, 0)[..511]), None);
        assert_eq!(parse(&[0u8; 512]), None);
    }
}
