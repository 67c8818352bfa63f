//! NVMe admin commands through `NVME_IOCTL_ADMIN_CMD`: Identify, Get Log Page (SMART, sanitize
//! status), Format NVM and Sanitize. Command building is pure (and unit-tested against the
//! specification's dword values); only [`submit`] touches the device.

use std::os::fd::AsRawFd;

pub use crate::drive::ControllerCaps;

/// `struct nvme_passthru_cmd` from `include/uapi/linux/nvme_ioctl.h` (72 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdminCommand {
    pub opcode: u8,
    pub flags: u8,
    pub rsvd1: u16,
    pub nsid: u32,
    pub cdw2: u32,
    pub cdw3: u32,
    pub metadata: u64,
    pub addr: u64,
    pub metadata_len: u32,
    pub data_len: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
    pub timeout_ms: u32,
    pub result: u32,
}

nix::ioctl_readwrite!(nvme_admin_cmd, b'N', 0x41, AdminCommand);
nix::ioctl_none!(nvme_ioctl_id, b'N', 0x40);

pub const OPC_GET_LOG_PAGE: u8 = 0x02;
pub const OPC_IDENTIFY: u8 = 0x06;
pub const OPC_GET_FEATURES: u8 = 0x0A;
/// Feature 0x06: Volatile Write Cache (result bit 0: WCE, the cache is on).
pub const FID_VOLATILE_WRITE_CACHE: u8 = 0x06;
pub const OPC_FORMAT_NVM: u8 = 0x80;
pub const OPC_SANITIZE: u8 = 0x84;
/// All namespaces (or "not namespace-specific" for controller-wide logs).
pub const NSID_ALL: u32 = 0xFFFF_FFFF;
pub const LID_SMART: u8 = 0x02;
pub const LID_SANITIZE_STATUS: u8 = 0x81;
/// nvme-cli's timeout for Format NVM.
pub const FORMAT_TIMEOUT_MS: u32 = 600_000;

/// Secure Erase Settings of Format NVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatErase {
    /// SES=1: user data erase.
    UserData,
    /// SES=2: cryptographic erase.
    Crypto,
}

/// Sanitize action (SANACT).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum SanitizeAction {
    Block,
    Crypto,
    Overwrite,
}

impl SanitizeAction {
    fn sanact(self) -> u32 {
        match self {
            SanitizeAction::Block => 2,
            SanitizeAction::Overwrite => 3,
            SanitizeAction::Crypto => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SanitizeAction::Block => "block erase",
            SanitizeAction::Overwrite => "overwrite",
            SanitizeAction::Crypto => "crypto erase",
        }
    }
}

/// Format NVM keeping LBA format `lbaf` (0..=63), erasing user data as `erase` says.
pub fn format_nvm(nsid: u32, lbaf: u8, erase: FormatErase) -> AdminCommand {
    let ses: u32 = match erase {
        FormatErase::UserData => 1,
        FormatErase::Crypto => 2,
    };
    let lbaf = u32::from(lbaf);
    AdminCommand {
        opcode: OPC_FORMAT_NVM,
        nsid,
        cdw10: (lbaf & 0xF) | (ses << 9) | ((lbaf >> 4) & 0x3) << 12,
        timeout_ms: FORMAT_TIMEOUT_MS,
        ..Default::default()
    }
}

/// Sanitize with `action`; overwrite uses one pass of the pattern 0 (CDW11).
pub fn sanitize(action: SanitizeAction) -> AdminCommand {
    let owpass: u32 = if action == SanitizeAction::Overwrite {
        1
    } else {
        0
    };
    AdminCommand {
        opcode: OPC_SANITIZE,
        nsid: 0,
        cdw10: action.sanact() | (owpass << 4),
        cdw11: 0,
        ..Default::default()
    }
}

/// Get Log Page of `len` bytes (a multiple of 4) into the buffer at `addr`.
pub fn get_log_page(lid: u8, nsid: u32, len: u32, addr: u64) -> AdminCommand {
    let numd = len / 4 - 1;
    AdminCommand {
        opcode: OPC_GET_LOG_PAGE,
        nsid,
        addr,
        data_len: len,
        cdw10: u32::from(lid) | (numd & 0xFFFF) << 16,
        cdw11: numd >> 16,
        ..Default::default()
    }
}

/// Identify with controller or namespace structure (`cns` 1 or 0), 4096 bytes.
pub fn identify(cns: u8, nsid: u32, addr: u64) -> AdminCommand {
    AdminCommand {
        opcode: OPC_IDENTIFY,
        nsid,
        addr,
        data_len: 4096,
        cdw10: u32::from(cns),
        ..Default::default()
    }
}

/// Get Features of `fid`, its current value (SEL 0); the value comes back in the result dword.
pub fn get_features(fid: u8) -> AdminCommand {
    AdminCommand {
        opcode: OPC_GET_FEATURES,
        nsid: 0,
        cdw10: u32::from(fid),
        ..Default::default()
    }
}

impl AdminCommand {
    /// The 64-byte submission queue entry the controller receives, with the command identifier
    /// and data pointer (both filled in by the kernel) left as zero.
    pub fn submission_entry(&self) -> [u8; 64] {
        let mut sqe = [0u8; 64];
        let dwords: [(usize, u32); 8] = [
            (0, u32::from(self.opcode) | u32::from(self.flags) << 8),
            (1, self.nsid),
            (10, self.cdw10),
            (11, self.cdw11),
            (12, self.cdw12),
            (13, self.cdw13),
            (14, self.cdw14),
            (15, self.cdw15),
        ];
        for (i, v) in dwords {
            sqe[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        sqe
    }

    /// One line per field that matters, then the submission entry in hex.
    pub fn describe(&self) -> String {
        format!(
            "NVMe admin opcode 0x{:02x} nsid 0x{:08x} cdw10 0x{:08x} cdw11 0x{:08x} cdw12 0x{:08x} data_len {} timeout {} ms\n  SQE bytes: {}",
            self.opcode,
            self.nsid,
            self.cdw10,
            self.cdw11,
            self.cdw12,
            self.data_len,
            self.timeout_ms,
            crate::units::hex(&self.submission_entry())
        )
    }
}

/// Sends an admin command; `Ok(0)` is success, `Ok(status)` an NVMe status code.
pub fn submit(fd: &impl AsRawFd, cmd: &mut AdminCommand) -> std::io::Result<u32> {
    // SAFETY: `cmd` is a valid nvme_passthru_cmd; any data buffer it names is owned by the
    // caller and at least `data_len` bytes long.
    let r = unsafe { nvme_admin_cmd(fd.as_raw_fd(), cmd) }?;
    Ok(r as u32)
}

/// Sends `cmd` with a fresh `len`-byte buffer for the data it returns.
pub fn submit_read(
    fd: &impl AsRawFd,
    mut cmd: AdminCommand,
    len: usize,
) -> anyhow::Result<Vec<u8>> {
    let mut buf = vec![0u8; len];
    cmd.addr = buf.as_mut_ptr() as u64;
    cmd.data_len = len as u32;
    let status = submit(fd, &mut cmd)
        .map_err(|e| anyhow::anyhow!("NVMe admin opcode 0x{:02x}: {e}", cmd.opcode))?;
    if status != 0 {
        anyhow::bail!(
            "NVMe admin opcode 0x{:02x} failed with status 0x{status:x}",
            cmd.opcode
        );
    }
    Ok(buf)
}

/// Sends a command that returns no data; its result dword (Get Features' value) on success.
pub fn submit_result(fd: &impl AsRawFd, mut cmd: AdminCommand) -> anyhow::Result<u32> {
    let status = submit(fd, &mut cmd)
        .map_err(|e| anyhow::anyhow!("NVMe admin opcode 0x{:02x}: {e}", cmd.opcode))?;
    if status != 0 {
        anyhow::bail!(
            "NVMe admin opcode 0x{:02x} failed with status 0x{status:x}",
            cmd.opcode
        );
    }
    Ok(cmd.result)
}

/// Who the controller is, from Identify Controller.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControllerIdentity {
    /// SN, bytes 4–23.
    pub serial: Option<String>,
    /// MN, bytes 24–63.
    pub model: Option<String>,
    /// FR, bytes 64–71.
    pub firmware: Option<String>,
    /// VWC bit 0 (byte 525): a volatile write cache is present.
    pub volatile_write_cache: bool,
}

fn id_string(b: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(b);
    let t = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    (!t.is_empty()).then(|| t.to_string())
}

/// Parses serial, model, firmware and the write cache bit out of Identify Controller.
pub fn parse_controller_identity(id: &[u8]) -> ControllerIdentity {
    ControllerIdentity {
        serial: id_string(&id[4..24]),
        model: id_string(&id[24..64]),
        firmware: id_string(&id[64..72]),
        volatile_write_cache: id[525] & 0x1 != 0,
    }
}

/// The volatile write cache as the controller has it: `None` when it has none (VWC clear in
/// Identify Controller `id`), else whether it is switched on (Get Features 0x06, WCE). The
/// kernel's "write back" says only that a cache is present.
pub fn volatile_write_cache(fd: &impl AsRawFd, id: &[u8]) -> anyhow::Result<Option<bool>> {
    if !parse_controller_identity(id).volatile_write_cache {
        return Ok(None);
    }
    let value = submit_result(fd, get_features(FID_VOLATILE_WRITE_CACHE))?;
    Ok(Some(value & 0x1 != 0))
}

/// How `info` and the records say it: the cache state in the kernel's words, with why.
pub fn write_cache_text(state: Option<bool>) -> String {
    match state {
        None => "write through (the controller has no volatile write cache)".into(),
        Some(true) => "write back".into(),
        Some(false) => "write through (the controller's volatile write cache is switched off: Get Features 0x06 WCE = 0)".into(),
    }
}

/// Namespace id of an NVMe block device.
pub fn namespace_id(fd: &impl AsRawFd) -> std::io::Result<u32> {
    // SAFETY: NVME_IOCTL_ID takes no argument and returns the nsid.
    unsafe { nvme_ioctl_id(fd.as_raw_fd()) }
        .map(|n| n as u32)
        .map_err(std::io::Error::from)
}

/// Parses the erase capabilities out of a 4096-byte Identify Controller structure.
pub fn parse_controller_caps(id: &[u8]) -> ControllerCaps {
    let oacs = u16::from_le_bytes([id[256], id[257]]);
    let sanicap = u32::from_le_bytes([id[328], id[329], id[330], id[331]]);
    let fna = id[524];
    ControllerCaps {
        format_nvm: oacs & 0x2 != 0,
        format_all_namespaces: fna & 0x1 != 0,
        format_crypto_erase: fna & 0x4 != 0,
        sanitize_crypto: sanicap & 0x1 != 0,
        sanitize_block: sanicap & 0x2 != 0,
        sanitize_overwrite: sanicap & 0x4 != 0,
    }
}

/// The LBA format in use, from Identify Namespace FLBAS (byte 26) and NLBAF (byte 25).
pub fn current_lbaf(id_ns: &[u8]) -> u8 {
    let flbas = id_ns[26];
    let nlbaf = id_ns[25];
    let low = flbas & 0xF;
    if nlbaf > 16 {
        low | ((flbas >> 5) & 0x3) << 4
    } else {
        low
    }
}

/// The SMART / Health Information log (LID 0x02), decoded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmartLog {
    pub critical_warning: u8,
    pub temperature_k: u16,
    pub available_spare: u8,
    pub spare_threshold: u8,
    pub percentage_used: u8,
    pub data_units_read: u128,
    pub data_units_written: u128,
    pub power_on_hours: u128,
    pub unsafe_shutdowns: u128,
    pub media_errors: u128,
    /// Minutes above the warning and the critical composite temperature threshold.
    pub warning_temp_min: u32,
    pub critical_temp_min: u32,
    /// Thermal-management transitions into TMT1 and TMT2, and seconds spent in each.
    pub tmt1_count: u32,
    pub tmt2_count: u32,
    pub tmt1_s: u32,
    pub tmt2_s: u32,
}

fn le_u128(b: &[u8]) -> u128 {
    let mut a = [0u8; 16];
    a.copy_from_slice(&b[..16]);
    u128::from_le_bytes(a)
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The warning composite temperature threshold (WCTEMP, kelvin) from Identify Controller
/// bytes 266–267; None when the controller reports none.
pub fn warning_temp_k(id: &[u8]) -> Option<u16> {
    let k = u16::from_le_bytes([*id.get(266)?, *id.get(267)?]);
    (k > 0).then_some(k)
}

/// Decodes a 512-byte SMART log page.
pub fn parse_smart_log(b: &[u8]) -> SmartLog {
    SmartLog {
        critical_warning: b[0],
        temperature_k: u16::from_le_bytes([b[1], b[2]]),
        available_spare: b[3],
        spare_threshold: b[4],
        percentage_used: b[5],
        data_units_read: le_u128(&b[32..]),
        data_units_written: le_u128(&b[48..]),
        power_on_hours: le_u128(&b[128..]),
        unsafe_shutdowns: le_u128(&b[144..]),
        media_errors: le_u128(&b[160..]),
        warning_temp_min: le_u32(&b[192..]),
        critical_temp_min: le_u32(&b[196..]),
        tmt1_count: le_u32(&b[216..]),
        tmt2_count: le_u32(&b[220..]),
        tmt1_s: le_u32(&b[224..]),
        tmt2_s: le_u32(&b[228..]),
    }
}

/// Reads the SMART log straight from the controller (needs CAP_SYS_ADMIN).
pub fn read_smart_log(fd: &impl AsRawFd) -> anyhow::Result<SmartLog> {
    let buf = submit_read(fd, get_log_page(LID_SMART, NSID_ALL, 512, 0), 512)?;
    Ok(parse_smart_log(&buf))
}

/// Progress of a sanitize operation, from the Sanitize Status log (LID 0x81).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SanitizeStatus {
    /// Fraction done as n/65536; 0xFFFF when no sanitize is running.
    pub progress: u16,
    /// SSTAT bits 2:0: 0 never, 1 ok, 2 in progress, 3 failed, 4 ok without deallocation.
    pub state: u8,
}

impl SanitizeStatus {
    pub fn in_progress(&self) -> bool {
        self.state == 2
    }
    pub fn failed(&self) -> bool {
        self.state == 3
    }
}

pub fn parse_sanitize_status(b: &[u8]) -> SanitizeStatus {
    SanitizeStatus {
        progress: u16::from_le_bytes([b[0], b[1]]),
        state: (u16::from_le_bytes([b[2], b[3]]) & 0x7) as u8,
    }
}

pub fn read_sanitize_status(fd: &impl AsRawFd) -> anyhow::Result<SanitizeStatus> {
    let buf = submit_read(fd, get_log_page(LID_SANITIZE_STATUS, NSID_ALL, 512, 0), 512)?;
    Ok(parse_sanitize_status(&buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passthru_struct_is_72_bytes_like_the_kernel_one() {
        assert_eq!(std::mem::size_of::<AdminCommand>(), 72);
        assert_eq!(std::mem::offset_of!(AdminCommand, addr), 24);
        assert_eq!(std::mem::offset_of!(AdminCommand, data_len), 36);
        assert_eq!(std::mem::offset_of!(AdminCommand, cdw10), 40);
        assert_eq!(std::mem::offset_of!(AdminCommand, timeout_ms), 64);
        assert_eq!(std::mem::offset_of!(AdminCommand, result), 68);
    }

    #[test]
    fn admin_ioctl_number_matches_the_uapi_header() {
        assert_eq!(nix::request_code_readwrite!(b'N', 0x41, 72), 0xC048_4E41);
        assert_eq!(nix::request_code_none!(b'N', 0x40), 0x4E40);
    }

    #[test]
    fn format_nvm_user_data_erase_is_cdw10_0x200() {
        let c = format_nvm(1, 0, FormatErase::UserData);
        assert_eq!((c.opcode, c.nsid, c.cdw10), (0x80, 1, 0x200));
        assert_eq!(c.timeout_ms, 600_000);
    }

    #[test]
    fn format_nvm_crypto_erase_is_cdw10_0x400() {
        assert_eq!(format_nvm(1, 0, FormatErase::Crypto).cdw10, 0x400);
    }

    #[test]
    fn format_nvm_keeps_the_lba_format_in_both_fields() {
        // LBAF 2 → bits 3:0; LBAF 17 → bits 3:0 = 1 and bits 13:12 = 1.
        assert_eq!(format_nvm(1, 2, FormatErase::UserData).cdw10, 0x202);
        assert_eq!(format_nvm(1, 17, FormatErase::UserData).cdw10, 0x1201);
    }

    #[test]
    fn sanitize_actions_set_sanact() {
        assert_eq!(sanitize(SanitizeAction::Block).cdw10, 0x2);
        assert_eq!(sanitize(SanitizeAction::Crypto).cdw10, 0x4);
        // Overwrite: SANACT 3 with one pass (OWPASS = 1 in bits 7:4).
        assert_eq!(sanitize(SanitizeAction::Overwrite).cdw10, 0x13);
        assert_eq!(sanitize(SanitizeAction::Block).opcode, 0x84);
    }

    #[test]
    fn smart_log_page_is_cdw10_0x007f0002() {
        let c = get_log_page(LID_SMART, NSID_ALL, 512, 0);
        assert_eq!(
            (c.opcode, c.nsid, c.cdw10, c.cdw11),
            (0x02, NSID_ALL, 0x007F_0002, 0)
        );
        assert_eq!(
            get_log_page(LID_SANITIZE_STATUS, NSID_ALL, 512, 0).cdw10,
            0x007F_0081
        );
    }

    #[test]
    fn submission_entry_puts_dwords_at_their_offsets() {
        let sqe = format_nvm(1, 0, FormatErase::UserData).submission_entry();
        assert_eq!(sqe[0], 0x80);
        assert_eq!(&sqe[4..8], &[1, 0, 0, 0]);
        assert_eq!(&sqe[40..44], &[0x00, 0x02, 0x00, 0x00]);
    }

    #[test]
    fn controller_caps_come_from_oacs_sanicap_and_fna() {
        let mut id = vec![0u8; 4096];
        id[256] = 0x02;
        id[328] = 0x03;
        id[524] = 0x05;
        let caps = parse_controller_caps(&id);
        assert!(caps.format_nvm && caps.format_all_namespaces && caps.format_crypto_erase);
        assert!(caps.sanitize_crypto && caps.sanitize_block && !caps.sanitize_overwrite);
    }

    #[test]
    fn smart_log_fields_decode_little_endian() {
        let mut b = vec![0u8; 512];
        b[1..3].copy_from_slice(&310u16.to_le_bytes());
        b[5] = 7;
        b[48..56].copy_from_slice(&123_456u64.to_le_bytes());
        b[160] = 2;
        let log = parse_smart_log(&b);
        assert_eq!(log.temperature_k, 310);
        assert_eq!(log.percentage_used, 7);
        assert_eq!(log.data_units_written, 123_456);
        assert_eq!(log.media_errors, 2);
    }

    #[test]
    fn thermal_fields_of_the_smart_log_and_wctemp_sit_at_their_spec_offsets() {
        let mut b = vec![0u8; 512];
        b[192..196].copy_from_slice(&9u32.to_le_bytes());
        b[196..200].copy_from_slice(&1u32.to_le_bytes());
        b[216..220].copy_from_slice(&3u32.to_le_bytes());
        b[220..224].copy_from_slice(&2u32.to_le_bytes());
        b[224..228].copy_from_slice(&720u32.to_le_bytes());
        b[228..232].copy_from_slice(&60u32.to_le_bytes());
        let log = parse_smart_log(&b);
        assert_eq!(
            (log.warning_temp_min, log.critical_temp_min),
            (9, 1),
            "{log:?}"
        );
        assert_eq!(
            (log.tmt1_count, log.tmt2_count, log.tmt1_s, log.tmt2_s),
            (3, 2, 720, 60)
        );
        let mut id = vec![0u8; 4096];
        assert_eq!(warning_temp_k(&id), None);
        id[266..268].copy_from_slice(&343u16.to_le_bytes());
        assert_eq!(warning_temp_k(&id), Some(343));
    }

    #[test]
    fn get_features_volatile_write_cache_is_opcode_0x0a_cdw10_6() {
        let c = get_features(FID_VOLATILE_WRITE_CACHE);
        assert_eq!((c.opcode, c.nsid, c.cdw10, c.data_len), (0x0A, 0, 6, 0));
    }

    #[test]
    fn controller_identity_and_cache_bit_come_from_identify_controller() {
        let mut id = vec![0u8; 4096];
        id[4..24].copy_from_slice(b"deadbeef            ");
        id[24..64].copy_from_slice(&[b' '; 40]);
        id[24..39].copy_from_slice(b"QEMU NVMe Ctrl ");
        id[64..72].copy_from_slice(b"7.2.22  ");
        let c = parse_controller_identity(&id);
        assert_eq!(c.serial.as_deref(), Some("deadbeef"));
        assert_eq!(c.model.as_deref(), Some("QEMU NVMe Ctrl"));
        assert_eq!(c.firmware.as_deref(), Some("7.2.22"));
        assert!(!c.volatile_write_cache);
        id[525] = 0x07;
        assert!(parse_controller_identity(&id).volatile_write_cache);
    }

    #[test]
    fn a_switched_off_cache_reads_as_write_through() {
        assert!(write_cache_text(Some(false)).starts_with("write through"));
        assert!(write_cache_text(None).starts_with("write through"));
        assert_eq!(write_cache_text(Some(true)), "write back");
    }

    #[test]
    fn sanitize_status_reads_progress_and_state() {
        let mut b = vec![0u8; 512];
        b[0..2].copy_from_slice(&0x8000u16.to_le_bytes());
        b[2] = 0x02;
        let s = parse_sanitize_status(&b);
        assert!(s.in_progress());
        assert_eq!(s.progress, 0x8000);
    }
}
