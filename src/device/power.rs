//! A drive's power management, as `info` shows it and run.json records it: the NVMe power
//! states of Identify Controller and whether APST (autonomous power state transitions, Get
//! Features 0x0C) moves the drive between them; ATA APM (IDENTIFY DEVICE words 83, 86 and
//! 91). A drive resting in a deep state between phases pays its exit latency in the first
//! interval. The buffers are decoded by pure functions pinned by unit tests.

use std::os::fd::AsRawFd;

use super::nvme;
pub use crate::drive::{NvmePowerState, PowerManagement};

/// Get Features: Autonomous Power State Transition.
const FID_APST: u8 = 0x0C;

/// The power state descriptors of an Identify Controller structure: NPSS (byte 263, zero
/// based) states of 32 bytes from byte 2048; MP in 0.01 W (0.0001 W with MXPS), NOPS, ENLAT
/// and EXLAT in µs.
pub fn nvme_power_states(id: &[u8]) -> Vec<NvmePowerState> {
    if id.len() < 4096 {
        return Vec::new();
    }
    (0..=usize::from(id[263]).min(31))
        .map(|i| {
            let d = &id[2048 + 32 * i..2080 + 32 * i];
            let mp = f64::from(u16::from_le_bytes([d[0], d[1]]));
            let dword = |at: usize| u32::from_le_bytes(d[at..at + 4].try_into().expect("4 bytes"));
            NvmePowerState {
                state: i as u8,
                max_watts: mp * if d[3] & 0x1 != 0 { 0.0001 } else { 0.01 },
                operational: d[3] & 0x2 == 0,
                entry_latency_us: dword(4),
                exit_latency_us: dword(8),
            }
        })
        .collect()
}

/// APSTA, Identify Controller byte 265 bit 0: the controller can transition on its own.
pub fn nvme_apst_supported(id: &[u8]) -> bool {
    id.get(265).is_some_and(|b| b & 0x1 != 0)
}

/// Whether APST is on (Get Features 0x0C, APSTE in the result's bit 0; the command returns
/// the 256-byte transition table too, read into a buffer of its own).
pub fn nvme_apst_enabled(fd: &impl AsRawFd) -> anyhow::Result<bool> {
    let mut table = vec![0u8; 256];
    let mut cmd = nvme::get_features(FID_APST);
    cmd.addr = table.as_mut_ptr() as u64;
    cmd.data_len = table.len() as u32;
    let status = nvme::submit(fd, &mut cmd)
        .map_err(|e| anyhow::anyhow!("NVMe Get Features 0x0C (APST): {e}"))?;
    if status != 0 {
        anyhow::bail!("NVMe Get Features 0x0C (APST) failed with status 0x{status:x}");
    }
    Ok(cmd.result & 0x1 != 0)
}

/// ATA APM from IDENTIFY DEVICE: None when unsupported (word 83 bit 3), else Some(level)
/// with the level of word 91 (1 most saving … 254 fastest) when enabled (word 86 bit 3), or
/// Some(None) when supported and off.
pub fn ata_apm(id: &[u8]) -> Option<Option<u8>> {
    let word = |n: usize| u16::from_le_bytes([id[2 * n], id[2 * n + 1]]);
    if id.len() < 512 || word(83) & 0x8 == 0 {
        return None;
    }
    Some((word(86) & 0x8 != 0).then(|| (word(91) & 0xFF) as u8))
}

/// `info`'s line: "APST on; 5 states: 0 8.00 W … 4 0.005 W non-operational (exit 2000 µs)",
/// "APM level 128", or None when the drive reports neither.
pub fn text(p: &PowerManagement) -> Option<String> {
    let mut parts = Vec::new();
    match p.apst {
        Some(true) => parts.push("APST on".to_string()),
        Some(false) => parts.push("APST off".to_string()),
        None if !p.nvme_states.is_empty() => parts.push("no APST".to_string()),
        None => {}
    }
    if !p.nvme_states.is_empty() {
        let states: Vec<String> = p
            .nvme_states
            .iter()
            .map(|s| {
                let kind = if s.operational {
                    String::new()
                } else {
                    format!(" non-operational (exit {} µs)", s.exit_latency_us)
                };
                format!("{} {:.3} W{kind}", s.state, s.max_watts)
            })
            .collect();
        parts.push(format!("power states: {}", states.join(", ")));
    }
    match p.apm_level {
        Some(Some(level)) => parts.push(format!("APM level {level}")),
        Some(None) => parts.push("APM off".into()),
        None => {}
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvme_power_state_descriptors_decode() {
        let mut id = vec![0u8; 4096];
        id[263] = 2; // three states
        id[265] = 1;
        let put = |id: &mut Vec<u8>, i: usize, mp: u16, flags: u8, enlat: u32, exlat: u32| {
            let d = &mut id[2048 + 32 * i..2080 + 32 * i];
            d[0..2].copy_from_slice(&mp.to_le_bytes());
            d[3] = flags;
            d[4..8].copy_from_slice(&enlat.to_le_bytes());
            d[8..12].copy_from_slice(&exlat.to_le_bytes());
        };
        put(&mut id, 0, 800, 0, 0, 0);
        put(&mut id, 1, 350, 0, 5, 5);
        put(&mut id, 2, 50, 0x3, 2000, 8000); // MXPS: 50 × 0.0001 W; non-operational
        let states = nvme_power_states(&id);
        assert_eq!(states.len(), 3);
        assert_eq!(states[0].max_watts, 8.0);
        assert!(states[1].operational && (states[1].max_watts - 3.5).abs() < 1e-9);
        assert!(!states[2].operational);
        assert!((states[2].max_watts - 0.005).abs() < 1e-9);
        assert_eq!(
            (states[2].entry_latency_us, states[2].exit_latency_us),
            (2000, 8000)
        );
        assert!(nvme_apst_supported(&id));
        let p = PowerManagement {
            apst: Some(true),
            nvme_states: states,
            apm_level: None,
        };
        assert_eq!(
            text(&p).unwrap(),
            "APST on; power states: 0 8.000 W, 1 3.500 W, 2 0.005 W non-operational (exit 8000 µs)"
        );
    }

    #[test]
    fn ata_apm_is_word_91_when_words_83_and_86_say_so() {
        let mut id = vec![0u8; 512];
        assert_eq!(ata_apm(&id), None);
        id[166] = 0x08; // word 83 bit 3: supported
        assert_eq!(ata_apm(&id), Some(None));
        id[172] = 0x08; // word 86 bit 3: enabled
        id[182] = 0x80; // word 91: level 128
        assert_eq!(ata_apm(&id), Some(Some(128)));
        let p = PowerManagement {
            apm_level: ata_apm(&id),
            ..Default::default()
        };
        assert_eq!(text(&p).unwrap(), "APM level 128");
        assert_eq!(text(&PowerManagement::default()), None);
    }
}
