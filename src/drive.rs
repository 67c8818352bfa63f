//! What describes a drive, real or simulated: the record `info` prints and runs keep before and
//! after (identity, geometry, cache, discard, erase capabilities, wear). `inspect` fills it from a
//! real device; the simulator fills it from its model, so neither needs the other.

use serde::{Deserialize, Serialize};

use crate::device::smart::Wear;
use crate::device::{ata, nvme};

/// Everything `info` reports about a target.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DriveInfo {
    pub path: String,
    /// `file`, `nvme`, `sata/sas`, `virtio`, `zram`, `loop`, `block` or `sim`.
    pub kind: String,
    pub name: String,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub size_bytes: Option<u64>,
    pub logical_block: Option<u32>,
    pub physical_block: Option<u32>,
    pub rotational: Option<bool>,
    /// `write back` or `write through` (the kernel's view).
    pub write_cache: Option<String>,
    pub fua: Option<bool>,
    pub discard: Option<Discard>,
    /// ATA security feature set (SATA drives).
    pub ata_security: Option<ata::Security>,
    /// NVMe namespace and erase capabilities.
    pub nvme: Option<NvmeInfo>,
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
    pub caps: Option<nvme::ControllerCaps>,
}
