//! ATA security erase through SG_IO with the 16-byte ATA PASS-THROUGH CDB (as hdparm does):
//! IDENTIFY DEVICE for the security state, then SECURITY SET PASSWORD, ERASE PREPARE and
//! ERASE UNIT. CDBs and the password sector are built by pure functions pinned by unit tests;
//! only [`send`] touches the device.

use std::os::fd::AsRawFd;

pub use crate::drive::Security;

pub const CMD_IDENTIFY: u8 = 0xEC;
pub const CMD_SECURITY_SET_PASSWORD: u8 = 0xF1;
pub const CMD_SECURITY_UNLOCK: u8 = 0xF2;
pub const CMD_SECURITY_ERASE_PREPARE: u8 = 0xF3;
pub const CMD_SECURITY_ERASE_UNIT: u8 = 0xF4;
pub const CMD_SECURITY_DISABLE_PASSWORD: u8 = 0xF6;

/// The temporary user password set before the erase (the erase clears it again).
pub const TEMP_PASSWORD: &str = "ssdfade";

/// Which way data moves for a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transfer {
    None,
    /// PIO data-in, 512 bytes (IDENTIFY).
    FromDevice,
    /// PIO data-out, 512 bytes (password sector).
    ToDevice,
}

/// One ATA command as sent: the CDB, the data block it carries and its timeout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtaCommand {
    pub name: &'static str,
    pub cdb: [u8; 16],
    pub transfer: Transfer,
    /// The 512-byte block sent with [`Transfer::ToDevice`].
    pub data_out: Option<Vec<u8>>,
    pub timeout_ms: u32,
}

/// ATA PASS-THROUGH (16) for a 28-bit command without LBA, `count` sectors (0 or 1).
pub fn ata16(command: u8, transfer: Transfer, count: u8) -> [u8; 16] {
    let (protocol, flags) = match transfer {
        // Non-data: protocol 3; CK_COND so the registers come back in the sense data.
        Transfer::None => (3u8, 0x20u8),
        // PIO-in: protocol 4; T_DIR from device, BYTE_BLOCK, T_LENGTH in the count field.
        Transfer::FromDevice => (4, 0x08 | 0x04 | 0x02),
        // PIO-out: protocol 5; BYTE_BLOCK, T_LENGTH in the count field.
        Transfer::ToDevice => (5, 0x04 | 0x02),
    };
    let mut cdb = [0u8; 16];
    cdb[0] = 0x85;
    cdb[1] = protocol << 1;
    cdb[2] = flags;
    cdb[6] = count;
    cdb[13] = 0x40; // device: LBA mode, as hdparm sends it
    cdb[14] = command;
    cdb
}

/// The 512-byte block of SET PASSWORD and ERASE UNIT: control word, then the 32-byte password.
pub fn password_sector(password: &str, enhanced: bool) -> Vec<u8> {
    let mut s = vec![0u8; 512];
    // byte 0 bit 0: user password (0); bit 1: enhanced erase (ERASE UNIT only).
    s[0] = if enhanced { 0x02 } else { 0x00 };
    let bytes = password.as_bytes();
    let n = bytes.len().min(32);
    s[2..2 + n].copy_from_slice(&bytes[..n]);
    s
}

pub fn identify() -> AtaCommand {
    AtaCommand {
        name: "IDENTIFY DEVICE",
        cdb: ata16(CMD_IDENTIFY, Transfer::FromDevice, 1),
        transfer: Transfer::FromDevice,
        data_out: None,
        timeout_ms: 15_000,
    }
}

pub fn set_password(password: &str) -> AtaCommand {
    AtaCommand {
        name: "SECURITY SET PASSWORD (user)",
        cdb: ata16(CMD_SECURITY_SET_PASSWORD, Transfer::ToDevice, 1),
        transfer: Transfer::ToDevice,
        data_out: Some(password_sector(password, false)),
        timeout_ms: 15_000,
    }
}

pub fn erase_prepare() -> AtaCommand {
    AtaCommand {
        name: "SECURITY ERASE PREPARE",
        cdb: ata16(CMD_SECURITY_ERASE_PREPARE, Transfer::None, 0),
        transfer: Transfer::None,
        data_out: None,
        timeout_ms: 15_000,
    }
}

pub fn erase_unit(password: &str, enhanced: bool, timeout_ms: u32) -> AtaCommand {
    AtaCommand {
        name: if enhanced {
            "SECURITY ERASE UNIT (enhanced)"
        } else {
            "SECURITY ERASE UNIT"
        },
        cdb: ata16(CMD_SECURITY_ERASE_UNIT, Transfer::ToDevice, 1),
        transfer: Transfer::ToDevice,
        data_out: Some(password_sector(password, enhanced)),
        timeout_ms,
    }
}

pub fn disable_password(password: &str) -> AtaCommand {
    AtaCommand {
        name: "SECURITY DISABLE PASSWORD (user)",
        cdb: ata16(CMD_SECURITY_DISABLE_PASSWORD, Transfer::ToDevice, 1),
        transfer: Transfer::ToDevice,
        data_out: Some(password_sector(password, false)),
        timeout_ms: 15_000,
    }
}

impl AtaCommand {
    /// The CDB and, when there is one, the data block (first 36 bytes; the rest are zero).
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} (ATA 0x{:02x}) timeout {} s\n  CDB: {}",
            self.name,
            self.cdb[14],
            self.timeout_ms / 1000,
            crate::units::hex(&self.cdb)
        );
        if let Some(d) = &self.data_out {
            s.push_str(&format!(
                "\n  data out (512 bytes, the rest zero): {}",
                crate::units::hex(&d[..36])
            ));
        }
        s
    }
}

fn word(id: &[u8], n: usize) -> u16 {
    u16::from_le_bytes([id[2 * n], id[2 * n + 1]])
}

fn erase_time_minutes(w: u16) -> Option<u32> {
    let units = if w & 0x8000 != 0 {
        u32::from(w & 0x7FFF)
    } else {
        u32::from(w & 0xFF)
    };
    (units != 0).then_some(units * 2)
}

/// Decodes the security words of a 512-byte IDENTIFY DEVICE block.
pub fn parse_security(id: &[u8]) -> Security {
    let w128 = word(id, 128);
    Security {
        supported: word(id, 82) & 0x2 != 0 && w128 & 0x1 != 0,
        enabled: w128 & 0x2 != 0,
        locked: w128 & 0x4 != 0,
        frozen: w128 & 0x8 != 0,
        enhanced_erase: w128 & 0x20 != 0,
        erase_minutes: erase_time_minutes(word(id, 89)),
        enhanced_erase_minutes: erase_time_minutes(word(id, 90)),
    }
}

/// hdparm's ERASE UNIT timeout: the drive's estimate plus an hour, at least the capacity at
/// 30 MB/s plus half an hour; 12 hours when nothing is known.
pub fn erase_timeout_ms(estimate_minutes: Option<u32>, capacity: u64) -> u32 {
    let by_size_min = capacity / 30_000_000 / 60 + 30;
    let minutes = match estimate_minutes {
        Some(m) => (u64::from(m) + 60).max(by_size_min),
        None if capacity > 0 => by_size_min,
        None => 12 * 60,
    };
    (minutes * 60_000).min(u64::from(u32::MAX)) as u32
}

/// `struct sg_io_hdr` from `<scsi/sg.h>` (88 bytes on 64-bit).
#[repr(C)]
struct SgIoHdr {
    interface_id: libc::c_int,
    dxfer_direction: libc::c_int,
    cmd_len: libc::c_uchar,
    mx_sb_len: libc::c_uchar,
    iovec_count: libc::c_ushort,
    dxfer_len: libc::c_uint,
    dxferp: *mut libc::c_void,
    cmdp: *const libc::c_uchar,
    sbp: *mut libc::c_uchar,
    timeout: libc::c_uint,
    flags: libc::c_uint,
    pack_id: libc::c_int,
    usr_ptr: *mut libc::c_void,
    status: libc::c_uchar,
    masked_status: libc::c_uchar,
    msg_status: libc::c_uchar,
    sb_len_wr: libc::c_uchar,
    host_status: libc::c_ushort,
    driver_status: libc::c_ushort,
    resid: libc::c_int,
    duration: libc::c_uint,
    info: libc::c_uint,
}

nix::ioctl_readwrite_bad!(sg_io, 0x2285, SgIoHdr);

const SG_DXFER_NONE: libc::c_int = -1;
const SG_DXFER_TO_DEV: libc::c_int = -2;
const SG_DXFER_FROM_DEV: libc::c_int = -3;

/// ATA status and error registers after a command, from the descriptor sense data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AtaResult {
    pub status: u8,
    pub error: u8,
}

impl AtaResult {
    /// ERR or DF set in the status register.
    pub fn failed(&self) -> bool {
        self.status & 0x21 != 0
    }
}

/// Finds the ATA Status Return descriptor (code 0x09) in descriptor-format sense data.
pub fn parse_sense(sb: &[u8]) -> Option<AtaResult> {
    if sb.len() < 8 || (sb[0] & 0x7F) != 0x72 {
        return None;
    }
    let end = (8 + usize::from(sb[7])).min(sb.len());
    let mut i = 8;
    while i + 1 < end {
        let (code, len) = (sb[i], usize::from(sb[i + 1]));
        if code == 0x09 && i + 14 <= sb.len() {
            return Some(AtaResult {
                error: sb[i + 3],
                status: sb[i + 13],
            });
        }
        i += 2 + len;
    }
    None
}

/// What SG_IO said about one command besides its data.
struct SgOutcome {
    status: u8,
    host_status: u16,
    driver_status: u16,
    /// The sense bytes the device wrote.
    sense: Vec<u8>,
}

/// Issues one SCSI command (`cdb`, 6 to 16 bytes) moving `data` in `direction`.
fn sg_call(
    fd: &impl AsRawFd,
    cdb: &[u8],
    direction: libc::c_int,
    data: &mut [u8],
    timeout_ms: u32,
) -> std::io::Result<SgOutcome> {
    let mut sense = [0u8; 64];
    let mut hdr = SgIoHdr {
        interface_id: b'S' as libc::c_int,
        dxfer_direction: direction,
        cmd_len: cdb.len() as u8,
        mx_sb_len: sense.len() as u8,
        iovec_count: 0,
        dxfer_len: data.len() as u32,
        dxferp: if data.is_empty() {
            std::ptr::null_mut()
        } else {
            data.as_mut_ptr().cast()
        },
        cmdp: cdb.as_ptr(),
        sbp: sense.as_mut_ptr(),
        timeout: timeout_ms,
        flags: 0,
        pack_id: 0,
        usr_ptr: std::ptr::null_mut(),
        status: 0,
        masked_status: 0,
        msg_status: 0,
        sb_len_wr: 0,
        host_status: 0,
        driver_status: 0,
        resid: 0,
        duration: 0,
        info: 0,
    };
    // SAFETY: the header points at the CDB, sense and data buffers above, which outlive the call.
    unsafe { sg_io(fd.as_raw_fd(), &mut hdr) }.map_err(std::io::Error::from)?;
    Ok(SgOutcome {
        status: hdr.status,
        host_status: hdr.host_status,
        driver_status: hdr.driver_status,
        sense: sense[..usize::from(hdr.sb_len_wr).min(sense.len())].to_vec(),
    })
}

/// Sends a SCSI command that reads `len` bytes (LOG SENSE, say); an error when the device
/// refused it or is not SCSI at all.
pub fn scsi_read(fd: &impl AsRawFd, name: &str, cdb: &[u8], len: usize) -> anyhow::Result<Vec<u8>> {
    let mut data = vec![0u8; len];
    let out = sg_call(fd, cdb, SG_DXFER_FROM_DEV, &mut data, 5_000)
        .map_err(|e| anyhow::anyhow!("{name}: SG_IO failed: {e}"))?;
    if out.status != 0 || out.host_status != 0 || out.driver_status & 0x0F != 0 {
        anyhow::bail!(
            "{name} failed: SCSI status 0x{:02x}, host 0x{:x}, driver 0x{:x} (the device does not support it)",
            out.status,
            out.host_status,
            out.driver_status
        );
    }
    Ok(data)
}

/// Sends one command; returns the data read (for IDENTIFY) and the ATA registers when the
/// sense data carried them.
pub fn send(fd: &impl AsRawFd, cmd: &AtaCommand) -> anyhow::Result<(Vec<u8>, Option<AtaResult>)> {
    let mut data = match (&cmd.transfer, &cmd.data_out) {
        (Transfer::ToDevice, Some(d)) => d.clone(),
        (Transfer::FromDevice, _) => vec![0u8; 512],
        _ => Vec::new(),
    };
    let direction = match cmd.transfer {
        Transfer::None => SG_DXFER_NONE,
        Transfer::ToDevice => SG_DXFER_TO_DEV,
        Transfer::FromDevice => SG_DXFER_FROM_DEV,
    };
    let hdr = sg_call(fd, &cmd.cdb, direction, &mut data, cmd.timeout_ms)
        .map_err(|e| anyhow::anyhow!("{}: SG_IO failed: {e}", cmd.name))?;
    let regs = parse_sense(&hdr.sense);
    if regs.is_some_and(|r| r.failed()) {
        let r = regs.unwrap_or_default();
        anyhow::bail!(
            "{} was aborted by the drive (status 0x{:02x}, error 0x{:02x})",
            cmd.name,
            r.status,
            r.error
        );
    }
    if hdr.host_status != 0 || ((hdr.driver_status & 0x0F) != 0 && regs.is_none()) {
        anyhow::bail!(
            "{} failed: SCSI status 0x{:02x}, host 0x{:x}, driver 0x{:x} (not an ATA drive, or a USB bridge without ATA pass-through?)",
            cmd.name,
            hdr.status,
            hdr.host_status,
            hdr.driver_status
        );
    }
    Ok((data, regs))
}

/// What IDENTIFY DEVICE says about the drive: its security state and who it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identify {
    pub security: Security,
    /// Words 10–19.
    pub serial: Option<String>,
    /// Words 27–46.
    pub model: Option<String>,
    /// Words 23–26.
    pub firmware: Option<String>,
    /// APM (words 83, 86, 91), as [`super::power::ata_apm`] reads it.
    pub apm: Option<Option<u8>>,
}

/// An ATA string: words `first..first + words`, each holding two characters high byte first.
fn ata_string(id: &[u8], first: usize, words: usize) -> Option<String> {
    let bytes: Vec<u8> = (first..first + words)
        .flat_map(|n| [id[2 * n + 1], id[2 * n]])
        .collect();
    let text = String::from_utf8_lossy(&bytes);
    let t = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    (!t.is_empty()).then(|| t.to_string())
}

/// Decodes a 512-byte IDENTIFY DEVICE block.
pub fn parse_identify(id: &[u8]) -> Identify {
    Identify {
        security: parse_security(id),
        serial: ata_string(id, 10, 10),
        model: ata_string(id, 27, 20),
        firmware: ata_string(id, 23, 4),
        apm: super::power::ata_apm(id),
    }
}

/// Sends IDENTIFY DEVICE and decodes the answer.
pub fn read_identify(fd: &impl AsRawFd) -> anyhow::Result<Identify> {
    let (id, _) = send(fd, &identify())?;
    if id.iter().all(|&b| b == 0) {
        anyhow::bail!("IDENTIFY DEVICE returned no data");
    }
    Ok(parse_identify(&id))
}

/// The commands of a security erase, in order.
pub fn erase_sequence(enhanced: bool, erase_timeout_ms: u32) -> Vec<AtaCommand> {
    vec![
        set_password(TEMP_PASSWORD),
        erase_prepare(),
        erase_unit(TEMP_PASSWORD, enhanced, erase_timeout_ms),
    ]
}

/// What to tell the user when an erase stopped after the password was set.
pub fn unlock_advice(dev: &str) -> String {
    format!(
        "the drive may still be locked with the temporary user password \"{TEMP_PASSWORD}\": unlock it with `hdparm --user-master u --security-unlock {TEMP_PASSWORD} {dev}` and then `hdparm --user-master u --security-disable {TEMP_PASSWORD} {dev}`"
    )
}

/// Why a frozen drive cannot be erased, and what to do.
pub fn frozen_advice(dev: &str) -> String {
    format!(
        "{dev} is security-frozen (the BIOS froze it at boot), so it refuses a security erase: suspend to RAM and resume (`systemctl suspend`), or unplug and replug its SATA cable while powered (hot-plug), then check with `ssdfade info {dev}` that it shows not frozen"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sg_io_header_is_88_bytes() {
        assert_eq!(std::mem::size_of::<SgIoHdr>(), 88);
    }

    #[test]
    fn erase_unit_cdb_is_pio_out_one_sector() {
        let c = erase_unit(TEMP_PASSWORD, false, 60_000);
        assert_eq!(
            c.cdb,
            [0x85, 0x0A, 0x06, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0x40, 0xF4, 0]
        );
    }

    #[test]
    fn erase_prepare_cdb_is_non_data_with_check_condition() {
        assert_eq!(
            erase_prepare().cdb,
            [0x85, 0x06, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0xF3, 0]
        );
    }

    #[test]
    fn set_password_and_disable_cdbs_carry_their_opcodes() {
        let set = set_password("x");
        assert_eq!(
            set.cdb,
            [0x85, 0x0A, 0x06, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0x40, 0xF1, 0]
        );
        let dis = disable_password("x");
        assert_eq!(dis.cdb[14], 0xF6);
        assert_eq!(&dis.cdb[..3], &[0x85, 0x0A, 0x06]);
    }

    #[test]
    fn identify_cdb_is_pio_in_one_sector() {
        assert_eq!(
            identify().cdb,
            [0x85, 0x08, 0x0E, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0x40, 0xEC, 0]
        );
    }

    #[test]
    fn password_sector_layout() {
        let s = password_sector("ssdfade", false);
        assert_eq!(s.len(), 512);
        assert_eq!(&s[0..2], &[0x00, 0x00]);
        assert_eq!(&s[2..9], b"ssdfade");
        assert!(s[9..].iter().all(|&b| b == 0));
        let e = password_sector("ssdfade", true);
        assert_eq!(e[0], 0x02);
        let long = password_sector(&"p".repeat(40), false);
        assert_eq!(&long[2..34], "p".repeat(32).as_bytes());
        assert_eq!(long[34], 0);
    }

    #[test]
    fn security_words_decode() {
        let mut id = vec![0u8; 512];
        id[164] = 0x02; // word 82 bit 1
        id[178] = 0x05; // word 89: 5 units → 10 min
        id[180..182].copy_from_slice(&0x8010u16.to_le_bytes()); // word 90: extended, 16 → 32 min
        id[256] = 0x29; // word 128: supported, frozen, enhanced
        let s = parse_security(&id);
        assert!(s.supported && s.frozen && s.enhanced_erase);
        assert!(!s.enabled && !s.locked);
        assert_eq!(s.erase_minutes, Some(10));
        assert_eq!(s.enhanced_erase_minutes, Some(32));
    }

    #[test]
    fn identify_strings_are_byte_swapped_words() {
        let mut id = vec![0u8; 512];
        let put = |id: &mut Vec<u8>, word: usize, text: &[u8]| {
            for (i, pair) in text.chunks(2).enumerate() {
                id[2 * (word + i)] = pair[1];
                id[2 * (word + i) + 1] = pair[0];
            }
        };
        put(&mut id, 10, b"            SATA0001");
        put(&mut id, 23, b"2.5+    ");
        put(&mut id, 27, b"QEMU-SATA-DISK                          ");
        let ident = parse_identify(&id);
        assert_eq!(ident.serial.as_deref(), Some("SATA0001"));
        assert_eq!(ident.firmware.as_deref(), Some("2.5+"));
        assert_eq!(ident.model.as_deref(), Some("QEMU-SATA-DISK"));
        assert_eq!(parse_identify(&[0u8; 512]).serial, None);
    }

    #[test]
    fn erase_timeout_follows_hdparm() {
        assert_eq!(erase_timeout_ms(None, 0), 12 * 3_600_000);
        // 60 GB at 30 MB/s is 33 min, + 30 = 63 min; estimate 2 + 60 = 62 → 63.
        assert_eq!(erase_timeout_ms(Some(2), 60_000_000_000), 63 * 60_000);
    }

    #[test]
    fn descriptor_sense_yields_status_and_error() {
        let mut sb = vec![0u8; 22];
        sb[0] = 0x72;
        sb[7] = 14;
        sb[8] = 0x09;
        sb[9] = 12;
        sb[11] = 0x04; // error: ABRT
        sb[21] = 0x51; // status: DRDY DSC ERR
        let r = parse_sense(&sb).unwrap();
        assert_eq!((r.status, r.error), (0x51, 0x04));
        assert!(r.failed());
        assert_eq!(parse_sense(&[0x70, 0, 0, 0, 0, 0, 0, 0]), None);
    }
}
