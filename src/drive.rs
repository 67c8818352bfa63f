//! What describes a drive, real or simulated: the record `info` prints and runs keep before and
//! after (identity, geometry, cache, discard, erase capabilities, wear). `inspect` fills it from a
//! real device; the simulator fills it from its model, so neither needs the other. Also how a
//! run ended. A leaf: it imports nothing of the crate, so every layer can share these values.

use serde::{Deserialize, Serialize};

/// Which saved state a device keeps (a simulated drive's `state=` file): the drive's id, drawn
/// when it was made, and how many times it was saved. An experiment records it to refuse
/// another drive, or an older copy of its own, on resume.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StateStamp {
    /// 16 hex digits.
    pub id: String,
    pub saves: u64,
}

/// Everything `info` reports about a target.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DriveInfo {
    pub path: String,
    /// `file`, `nvme`, `sata` (ATA, also behind a SCSI-ATA translation), `scsi` (SCSI, SAS,
    /// virtio-scsi), `virtio` (virtio-blk), `zram`, `loop`, `block` or `sim`.
    pub kind: String,
    pub name: String,
    pub model: Option<String>,
    /// The serial number from the device's own identify data (ATA IDENTIFY, SCSI VPD page 0x80,
    /// NVMe Identify Controller, virtio-blk serial).
    pub serial: Option<String>,
    /// World wide name (`naa.…`, `eui.…`, `t10.…`) as the kernel reports it, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wwn: Option<String>,
    pub firmware: Option<String>,
    pub size_bytes: Option<u64>,
    /// Flash capacity behind the user capacity, when the drive tells (simulated drives): what
    /// `--precondition fast` takes the over-provisioning from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flash_bytes: Option<u64>,
    /// The media is written in place (3D XPoint, RAM): no erase blocks, so no garbage
    /// collection and a steady state that is the fresh one. Simulated drives tell; a real drive
    /// is taken to have flash.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub writes_in_place: bool,
    pub logical_block: Option<u32>,
    pub physical_block: Option<u32>,
    pub rotational: Option<bool>,
    /// `write back` or `write through` (the kernel's view).
    pub write_cache: Option<String>,
    pub fua: Option<bool>,
    pub discard: Option<Discard>,
    /// ATA security feature set (SATA drives).
    pub ata_security: Option<Security>,
    /// NVMe namespace and erase capabilities.
    pub nvme: Option<NvmeInfo>,
    /// Power management the drive reports (NVMe power states and APST, ATA APM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<PowerManagement>,
    /// Why writing would be refused (mounted, swap, holders), when it would.
    pub in_use: Option<String>,
    /// Filesystem or partition-table signature found on the device.
    pub signature: Option<String>,
    /// For a partition: the whole disk it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_of: Option<String>,
    /// For files: the block device holding them.
    pub backing_device: Option<String>,
    pub wear: Wear,
    /// Why some figures are unknown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl DriveInfo {
    /// The flash a purged drive writes before its garbage collection starts, when the drive
    /// tells: none on media written in place, whose steady state begins once the span is
    /// written.
    pub fn flash_to_fill(&self) -> Option<u64> {
        self.flash_bytes.filter(|_| !self.writes_in_place)
    }
}

/// A drive's power management: a drive resting in a deep state between phases pays its exit
/// latency in the first interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PowerManagement {
    /// NVMe APST (autonomous power state transitions) on or off; None where the controller
    /// has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apst: Option<bool>,
    /// NVMe power states of Identify Controller.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nvme_states: Vec<NvmePowerState>,
    /// ATA APM (advanced power management): the level (1 most saving … 254 fastest) when on,
    /// null when supported and off; absent when unsupported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apm_level: Option<Option<u8>>,
}

/// One NVMe power state descriptor.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NvmePowerState {
    pub state: u8,
    /// Maximum power, W.
    pub max_watts: f64,
    /// False for a non-operational state (no I/O served until the drive leaves it).
    pub operational: bool,
    pub entry_latency_us: u32,
    pub exit_latency_us: u32,
}

/// Discard (TRIM) support as the block layer reports it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Discard {
    pub supported: bool,
    pub granularity: Option<u64>,
    pub max_bytes: Option<u64>,
    pub write_zeroes_max_bytes: Option<u64>,
}

/// NVMe namespace facts that Format NVM and Sanitize need.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NvmeInfo {
    pub nsid: Option<u32>,
    /// LBA format in use (kept by a format).
    pub lba_format: Option<u8>,
    pub caps: Option<ControllerCaps>,
}

/// What the target is, as far as the system tells.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Identity {
    /// `file`, `nvme`, `sata` (ATA, also behind a SCSI-ATA translation), `scsi` (SCSI, SAS,
    /// virtio-scsi), `virtio` (virtio-blk), `zram`, `loop`, `block` or `sim`.
    pub kind: String,
    /// Kernel name (`sda`, `zram1`) or file name.
    pub name: String,
    pub size_bytes: u64,
    pub logical_block: u32,
    pub physical_block: u32,
    pub model: Option<String>,
    /// From the device's own identify data, as in [`DriveInfo::serial`].
    pub serial: Option<String>,
    /// World wide name, as in [`DriveInfo::wwn`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wwn: Option<String>,
    pub firmware: Option<String>,
    pub rotational: Option<bool>,
    /// `write back` or `write through`, from the kernel's view of the device.
    pub write_cache: Option<String>,
    /// For files: the block device holding the filesystem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backing_device: Option<String>,
}

impl Identity {
    /// The identity as a report may show it: its strings on one line
    /// ([`crate::console::one_line`]), so a record's model, serial or firmware holding a line
    /// break cannot start a line of a report, a comparison or a fleet table.
    pub fn on_one_line(&mut self) {
        let optional = [
            &mut self.model,
            &mut self.serial,
            &mut self.wwn,
            &mut self.firmware,
            &mut self.write_cache,
            &mut self.backing_device,
        ];
        for text in std::iter::once(&mut self.name).chain(optional.into_iter().flatten()) {
            *text = crate::console::one_line(text);
        }
    }
}

/// Wear and write counters of a drive.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Wear {
    /// Where the figures come from: `smartctl`, `nvme-smart-log`, `sim` or `none`.
    pub source: String,
    /// Endurance used, percent (NVMe percentage_used; may exceed 100).
    pub percentage_used: Option<u32>,
    /// Life left, percent, from a normalized ATA wear attribute.
    pub life_left_percent: Option<u32>,
    pub host_bytes_written: Option<u64>,
    pub host_bytes_read: Option<u64>,
    /// NAND (flash) writes, where the drive reports them.
    pub nand_bytes_written: Option<u64>,
    /// Average program/erase cycles per block.
    pub erase_cycles: Option<u64>,
    pub media_errors: Option<u64>,
    pub power_on_hours: Option<u64>,
    pub unsafe_shutdowns: Option<u64>,
    pub available_spare_percent: Option<u32>,
    pub critical_warning: Option<u32>,
    pub temperature_c: Option<i64>,
    /// The ATA attributes the figures were taken from, as the drive reported them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<AtaAttribute>,
    /// Why figures are missing, or caveats about them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One ATA SMART attribute.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AtaAttribute {
    pub id: u32,
    pub name: String,
    pub value: u32,
    pub worst: u32,
    pub thresh: u32,
    pub raw: u64,
    /// What ssdfade read it as.
    pub meaning: String,
}

/// The security state from IDENTIFY DEVICE words 82, 89, 90 and 128.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Security {
    pub supported: bool,
    pub enabled: bool,
    pub locked: bool,
    pub frozen: bool,
    pub enhanced_erase: bool,
    /// Estimated minutes for a normal erase, when the drive says.
    pub erase_minutes: Option<u32>,
    pub enhanced_erase_minutes: Option<u32>,
}

/// What Identify Controller says about erasing.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct ControllerCaps {
    pub format_nvm: bool,
    /// FNA bit 0: a format applies to every namespace.
    pub format_all_namespaces: bool,
    /// FNA bit 2: cryptographic erase supported as part of format.
    pub format_crypto_erase: bool,
    pub sanitize_crypto: bool,
    pub sanitize_block: bool,
    pub sanitize_overwrite: bool,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "reason", content = "detail")]
pub enum RunEnd {
    /// The stop rule was met.
    Completed,
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// An I/O error stopped the run.
    Failed(String),
}

/// Write amplification of a run: NAND writes over host writes between two readings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WriteAmplification {
    pub host_bytes: u64,
    pub nand_bytes: u64,
    pub factor: f64,
    /// The counters' resolution, as a caveat for short runs.
    pub note: String,
}

/// An erase a device does by itself, outside the protocol plans (a simulated drive erasing the
/// state it keeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnErase {
    /// Reset the mapping (wear, power-on time and throttling debt stay).
    Secure,
    /// Deallocate the whole 4 KiB pages inside a byte range.
    Trim { offset: u64, len: u64 },
}

/// An own erase, its device opened (and locked) so nothing else changes it until it runs.
pub trait OwnEraser {
    /// The name result directories carry.
    fn name(&self) -> String;
    /// Runs the erase and says in one line what was done.
    fn run(self: Box<Self>) -> anyhow::Result<String>;
}

/// The coldest and hottest temperatures a drive's sensor can mean (°C): past them a reading
/// is the sensor's garbage (an unset 0xFFFF kelvin field, a stuck byte), never the drive's
/// heat. Readers leave such a reading out, so a record holding one was edited.
pub const PLAUSIBLE_C: (f64, f64) = (-60.0, 200.0);

/// `celsius` when a drive's sensor can mean it ([`PLAUSIBLE_C`]), else None.
pub fn plausible_c(celsius: f64) -> Option<f64> {
    (PLAUSIBLE_C.0..=PLAUSIBLE_C.1)
        .contains(&celsius)
        .then_some(celsius)
}

/// What a drive says about itself at one moment of a run (a telemetry reading): its
/// temperature, its thermal-management counters and its lifetime byte counters, each where the
/// drive reports it (NVMe SMART / health log 0x02, ATA SMART and SCT status, a simulated
/// drive's model). Counters are the drive's own, since it was made: a run compares readings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Health {
    /// Composite temperature, °C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature_c: Option<f64>,
    /// The drive's warning composite temperature threshold (NVMe WCTEMP), °C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning_c: Option<f64>,
    /// Thermal-management transitions into the light (TMT1) and heavy (TMT2) throttle step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmt1_count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmt2_count: Option<u64>,
    /// Seconds spent in the light and heavy throttle step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmt1_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmt2_s: Option<f64>,
    /// Minutes above the warning and the critical composite temperature threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning_temp_min: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_temp_min: Option<u64>,
    /// Bytes the host has written and read, and bytes programmed into NAND (where a vendor
    /// attribute or the model reports them; see docs/telemetry.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_bytes_written: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_bytes_read: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nand_bytes_written: Option<u64>,
    /// Thermal throttling events since the drive was made, where the drive offers the OCP
    /// datacenter log C0h (byte 96; docs/telemetry.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle_events: Option<u64>,
}
