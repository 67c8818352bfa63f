//! Which SMART attributes count host and NAND writes, vendor by vendor, and in what unit. The
//! attribute ids alone do not fix the meaning (241 is 512-byte sectors on a Samsung, 32 MiB on
//! an Intel, GiB on a Kingston), so a drive is matched by its model name first. The source of
//! each row is listed in docs/telemetry.md ("Where NAND writes come from").

use super::ata_smart::Attribute;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

/// What an attribute's raw value counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Counts {
    /// Bytes the host wrote, `unit` bytes per count.
    Host(u64),
    /// Bytes programmed into NAND, `unit` bytes per count.
    Nand(u64),
    /// NAND pages programmed for host writes (Micron 247).
    HostPages,
    /// NAND pages programmed by the FTL itself (Micron 248).
    FtlPages,
}

/// One vendor's attributes.
struct Vendor {
    /// Model-name prefixes, matched case-insensitively.
    models: &'static [&'static str],
    attributes: &'static [(u8, Counts)],
}

const TABLE: &[Vendor] = &[
    Vendor {
        models: &["Samsung", "MZ7"],
        attributes: &[(241, Counts::Host(512))],
    },
    Vendor {
        models: &["INTEL"],
        attributes: &[(241, Counts::Host(32 * MIB)), (249, Counts::Nand(GIB))],
    },
    Vendor {
        models: &["Micron", "Crucial", "CT"],
        attributes: &[
            (246, Counts::Host(512)),
            (247, Counts::HostPages),
            (248, Counts::FtlPages),
        ],
    },
    Vendor {
        models: &["KINGSTON", "OCZ", "SandForce"],
        attributes: &[(241, Counts::Host(GIB)), (233, Counts::Nand(GIB))],
    },
];

/// Host and NAND bytes written, as far as the drive's attributes tell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Writes {
    pub host_bytes: Option<u64>,
    pub nand_bytes: Option<u64>,
}

/// The host and NAND bytes of a drive named `model` from its attribute table; nothing for a
/// vendor the table does not know.
pub fn writes(model: &str, attrs: &[Attribute]) -> Writes {
    let model = model.trim().to_ascii_lowercase();
    let Some(vendor) = TABLE.iter().find(|v| {
        v.models
            .iter()
            .any(|m| model.starts_with(&m.to_ascii_lowercase()))
    }) else {
        return Writes::default();
    };
    let raw = |want: Counts| {
        let id = vendor.attributes.iter().find(|(_, c)| *c == want)?.0;
        attrs.iter().find(|a| a.id == id).map(|a| a.raw)
    };
    let mut out = Writes::default();
    for &(_, counts) in vendor.attributes {
        match counts {
            Counts::Host(unit) => out.host_bytes = raw(counts).map(|n| n.saturating_mul(unit)),
            Counts::Nand(unit) => out.nand_bytes = raw(counts).map(|n| n.saturating_mul(unit)),
            Counts::HostPages | Counts::FtlPages => {}
        }
    }
    // Micron counts pages, not bytes: NAND = host bytes × (host pages + FTL pages) / host
    // pages, the WAF of its technical note applied to the host bytes.
    if let (Some(host), Some(hp), Some(fp)) = (
        out.host_bytes,
        raw(Counts::HostPages),
        raw(Counts::FtlPages),
    ) {
        if hp > 0 {
            let nand = u128::from(host) * u128::from(hp + fp) / u128::from(hp);
            out.nand_bytes = Some(nand.min(u128::from(u64::MAX)) as u64);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::ata_smart::{parse_attributes, tests::page};

    fn attrs(list: &[(u8, u8, u64)]) -> Vec<Attribute> {
        parse_attributes(&page(list)).unwrap()
    }

    #[test]
    fn units_follow_the_vendor_not_the_id() {
        let a = attrs(&[(241, 100, 1000), (249, 100, 700), (233, 100, 900)]);
        let intel = writes("INTEL SSDSC2CT120A3", &a);
        assert_eq!(intel.host_bytes, Some(1000 * 32 * MIB));
        assert_eq!(intel.nand_bytes, Some(700 * GIB));
        let samsung = writes("Samsung SSD 860 EVO 500GB", &a);
        assert_eq!(samsung.host_bytes, Some(1000 * 512));
        assert_eq!(
            samsung.nand_bytes, None,
            "Samsung documents no NAND-bytes attribute"
        );
        let sandforce = writes("OCZ-VERTEX2", &a);
        assert_eq!(sandforce.host_bytes, Some(1000 * GIB));
        assert_eq!(sandforce.nand_bytes, Some(900 * GIB));
        assert_eq!(writes("WDC WDS500G2B0A", &a), Writes::default());
    }

    #[test]
    fn micron_nand_is_host_bytes_times_its_page_ratio() {
        // 2 000 000 host sectors; 1000 host pages and 500 FTL pages: WAF 1.5.
        let a = attrs(&[(246, 100, 2_000_000), (247, 100, 1000), (248, 100, 500)]);
        let w = writes("CT500MX500SSD1", &a);
        assert_eq!(w.host_bytes, Some(2_000_000 * 512));
        assert_eq!(w.nand_bytes, Some(3_000_000 * 512));
        let no_pages = writes("Micron_5100_MTFDDAK480TBY", &attrs(&[(246, 100, 10)]));
        assert_eq!(no_pages.nand_bytes, None);
    }
}
