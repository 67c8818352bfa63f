//! Parsing `sim:PRESET[,key=value…]` (or `sim:@FILE` of a fitted twin, see [`super::twin`])
//! into a preset plus the options that change it.
//!
//! Options are separated by commas. A value holding a comma is quoted or escaped as a shell
//! would: `state='/tmp/a,b.sim'` keeps everything between single quotes literally,
//! `state="/tmp/a,b.sim"` too except that `\"` and `\\` stand for `"` and `\`, and outside
//! quotes `\,` (any `\x`) stands for the character itself. Each option may be given once.

use std::path::PathBuf;
use std::time::Duration;

use super::presets::{self, Preset};
use super::CacheMode;
use crate::bad_input;
use crate::units::{parse_duration, parse_size};

/// A parsed `sim:` target.
#[derive(Clone, Debug, PartialEq)]
pub struct SimSpec {
    /// The text the user gave.
    pub text: String,
    /// The preset with `alpha=`, `compression=`, `throttle=` and `cache=` applied.
    pub preset: Preset,
    /// Simulate a drive `scale` times smaller whose every I/O stands for `scale` real ones.
    pub scale: u32,
    /// Service history applied to a new drive.
    pub aged: Duration,
    pub cache: CacheMode,
    /// Writes fail with EIO once this many host writes have succeeded (with `scale=k`, in whole
    /// simulated writes of k host writes each: the one that would pass the count fails).
    pub fail_after: Option<u64>,
    /// I/O covering this byte offset fails with EIO.
    pub fail_at: Option<u64>,
    /// `fault=`: writes the drive acknowledges but gets wrong (to prove `--verify` finds them).
    pub fault: Option<WriteFault>,
    /// Where the drive is kept between commands.
    pub state: Option<PathBuf>,
    /// Seed of the aging history.
    pub seed: u64,
    /// `serial=`: the serial number the drive reports (else `SIM-PRESET-SEED`).
    pub serial: Option<String>,
    /// `thermal=m2|dc`: the drive heats up and throttles as its class does, and reports its
    /// temperature and counters every interval (see [`super::thermal`]); `None` without.
    pub thermal: Option<super::thermal::ThermalClass>,
}

/// `fault=KIND:N`: every Nth write of a session is acknowledged but dropped (`drop`), stored
/// one block further on (`misdirect`) or stored damaged (`corrupt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteFault {
    Drop(u64),
    Misdirect(u64),
    Corrupt(u64),
}

impl WriteFault {
    /// This fault when it strikes write number `n` (counted from 1), else `None`.
    pub fn strikes(self, n: u64) -> Option<WriteFault> {
        let (WriteFault::Drop(every) | WriteFault::Misdirect(every) | WriteFault::Corrupt(every)) =
            self;
        n.is_multiple_of(every).then_some(self)
    }

    fn parse(value: &str) -> Option<WriteFault> {
        let (kind, n) = value.split_once(':')?;
        let n = n.parse::<u64>().ok().filter(|&n| n > 0)?;
        match kind {
            "drop" => Some(WriteFault::Drop(n)),
            "misdirect" => Some(WriteFault::Misdirect(n)),
            "corrupt" => Some(WriteFault::Corrupt(n)),
            _ => None,
        }
    }
}

/// The oldest service history `aged=` accepts.
const MAX_AGE: Duration = Duration::from_secs(30 * 365 * 86_400);

const OPTIONS: &str =
    "aged=DURATION, scale=N, capacity=SIZE, alpha=X, cache=none|volatile|plp|lying, \
compression=on|off, throttle=on|off, fail_after=N, fail_at=OFFSET, fault=drop|misdirect|corrupt:N, \
state=PATH, seed=N, serial=TEXT, thermal=m2|dc|off";

impl SimSpec {
    /// Parses `sim:PRESET[,key=value…]`; bad input names the offending part and what to use.
    pub fn parse(text: &str) -> anyhow::Result<SimSpec> {
        let Some(rest) = text.strip_prefix("sim:") else {
            bad_input!("'{text}' is not a simulated target: write sim:PRESET[,key=value…]");
        };
        let parts = match split_options(rest) {
            Ok(parts) => parts,
            Err(why) => bad_input!("{text}: {why}"),
        };
        let mut parts = parts.into_iter();
        let name = parts.next().unwrap_or_default();
        let name = name.as_str();
        let mut parts: Vec<String> = parts.collect();
        let preset = if let Some(file) = name.strip_prefix('@') {
            // `sim:@FILE`: a twin fitted by `sim fit`, named after its file, with its options
            // before the user's (which win).
            let path = std::path::Path::new(file);
            let stem = path
                .file_stem()
                .map_or("twin".into(), |s| s.to_string_lossy());
            let name: &'static str = Box::leak(format!("twin-{stem}").into_boxed_str());
            let twin = super::twin::Twin::load(path)?;
            let key = |p: &str| p.split('=').next().unwrap_or_default().to_string();
            let given: Vec<String> = parts.iter().map(|p| key(p)).collect();
            let mut own: Vec<String> = twin
                .options
                .split(',')
                .filter(|o| !o.is_empty() && !given.contains(&key(o)))
                .map(str::to_string)
                .collect();
            own.append(&mut parts);
            parts = own;
            twin.preset(name)
        } else if let Some(preset) = presets::find(name) {
            *preset
        } else {
            let names: Vec<_> = presets::PRESETS.iter().map(|p| p.name).collect();
            bad_input!(
                "unknown simulated drive '{name}': use one of {} or @FILE of a fitted twin (see `ssdfade sim list`)",
                names.join(", ")
            );
        };
        let mut spec = SimSpec {
            text: text.to_string(),
            preset,
            scale: preset.scale,
            aged: preset.aged,
            cache: preset.cache,
            fail_after: None,
            fail_at: None,
            fault: None,
            state: None,
            seed: 1,
            serial: None,
            thermal: None,
        };
        let mut seen: Vec<String> = Vec::new();
        for part in parts {
            let Some((key, value)) = part.split_once('=') else {
                bad_input!("'{part}' in {text} is not key=value: options are {OPTIONS}");
            };
            if seen.iter().any(|k| k == key) {
                bad_input!("{key}= is given twice in {text}: give each option once");
            }
            seen.push(key.to_string());
            let bad = |what: &str| -> anyhow::Result<()> {
                bad_input!("{key}={value} in {text}: {what}");
            };
            match key {
                "aged" => match parse_duration(value) {
                    Ok(d) if d <= MAX_AGE => spec.aged = d,
                    Ok(_) => bad("use a service history of at most 30 years")?,
                    Err(e) => bad(&e)?,
                },
                "scale" => match value.parse::<u32>() {
                    Ok(n) if (1..=4096).contains(&n) => spec.scale = n,
                    _ => bad("use a whole number from 1 to 4096")?,
                },
                "capacity" => match parse_size(value) {
                    Ok(n) if (preset.user_bytes / 64..=preset.user_bytes * 16).contains(&n) => {
                        spec.preset = spec.preset.with_capacity(n)
                    }
                    Ok(_) => bad(&format!(
                        "use a capacity from 1/64 to 16 times the preset's {} GB",
                        preset.user_bytes / 1_000_000_000
                    ))?,
                    Err(e) => bad(&e)?,
                },
                "alpha" => match value.parse::<f64>() {
                    // NaN and infinities are outside the range too.
                    Ok(a) if (1.01..=4.0).contains(&a) => spec.preset.alpha = a,
                    _ => bad("use a ratio physical/user from 1.01 to 4, such as 1.07")?,
                },
                "cache" => match value {
                    "none" => spec.cache = CacheMode::None,
                    "volatile" => spec.cache = CacheMode::Volatile,
                    "plp" => spec.cache = CacheMode::Plp,
                    "lying" => spec.cache = CacheMode::Lying,
                    _ => bad("use none, volatile, plp or lying")?,
                },
                "compression" | "throttle" => {
                    let on = match value {
                        "on" => true,
                        "off" => false,
                        _ => bad_input!("{key}={value} in {text}: use on or off"),
                    };
                    if key == "compression" {
                        spec.preset.compression = on;
                    } else if !on {
                        spec.preset.throttle = None;
                    } else if spec.preset.throttle.is_none() {
                        bad("this preset has no lifetime throttling to turn on")?;
                    }
                }
                "fail_after" => match value.parse::<u64>() {
                    Ok(n) => spec.fail_after = Some(n),
                    _ => bad("use a number of writes")?,
                },
                "fail_at" => match parse_size(value) {
                    Ok(n) if n < preset.user_bytes => spec.fail_at = Some(n),
                    Ok(_) => bad("the offset is beyond the end of the drive")?,
                    Err(e) => bad(&e)?,
                },
                "fault" => match WriteFault::parse(value) {
                    Some(f) => spec.fault = Some(f),
                    None => bad("use drop:N, misdirect:N or corrupt:N (every Nth write, N ≥ 1)")?,
                },
                "state" if !value.is_empty() => spec.state = Some(PathBuf::from(value)),
                "seed" => match value.parse::<u64>() {
                    Ok(n) => spec.seed = n,
                    _ => bad("use a whole number")?,
                },
                "serial" => match value {
                    v if !v.is_empty()
                        && v.len() <= 40
                        && v.bytes().all(|b| b.is_ascii_graphic() && b != b'/') =>
                    {
                        spec.serial = Some(v.to_string())
                    }
                    _ => bad("use 1 to 40 printable characters without spaces or '/'")?,
                },
                "thermal" => match (value, super::thermal::class(value)) {
                    ("off", _) => spec.thermal = None,
                    (_, Some(c)) => spec.thermal = Some(c),
                    _ => bad("use m2 (a passively cooled M.2 drive), dc (a datacenter drive in airflow) or off")?,
                },
                _ => bad_input!("unknown option '{key}' in {text}: options are {OPTIONS}"),
            }
        }
        if spec.fail_at.is_some_and(|at| at >= spec.preset.user_bytes) {
            bad_input!(
                "fail_at= in {text} is beyond the end of the drive of capacity={}: give an offset inside it",
                spec.preset.user_bytes
            );
        }
        // Without `scale=` the default is the preset's, or the largest below it that leaves the
        // drive enough blocks (a small capacity); a `scale=` given that cannot work is refused.
        if !seen.iter().any(|k| k == "scale") {
            while spec.scale > 1 && spec.scale_problem().is_some() {
                spec.scale -= 1;
            }
        }
        if let Some(why) = spec.scale_problem() {
            bad_input!("scale={} leaves {text} with {why}", spec.scale);
        }
        Ok(spec)
    }

    /// Why this scale cannot model the drive (None: it can): too few erase blocks, or, on a
    /// drive whose worn blocks retire, too few spare blocks beyond the GC reserve and the open
    /// frontiers (it would be read-only before its first write).
    fn scale_problem(&self) -> Option<String> {
        let blocks = self.blocks();
        if blocks < 64 {
            return Some(format!("only {blocks} erase blocks: use a smaller scale"));
        }
        let spare = blocks.saturating_sub(self.user_pages().div_ceil(self.preset.pages_per_block));
        let needed = (super::ftl::GC_RESERVE + 3 + 2) as u32;
        (self.preset.endurance_pe > 0.0 && spare < needed).then(|| {
            format!(
                "only {spare} spare erase blocks ({needed} needed): use a smaller scale or a larger capacity"
            )
        })
    }

    /// Memory the model of this drive takes (mapping, reverse map, live bits, block lists), in
    /// bytes: what must be available before it is built.
    pub fn model_bytes(&self) -> u64 {
        let spp: u64 = if self.preset.compression { 2 } else { 1 };
        let slots = u64::from(self.blocks()) * u64::from(self.preset.pages_per_block) * spp;
        let epochs = if self.preset.gc.hot_window > 0.0 {
            2
        } else {
            0
        };
        u64::from(self.user_pages()) * (8 + epochs)
            + slots * 4
            + slots / 8
            + u64::from(self.blocks()) * 22
    }

    /// Logical 4 KiB pages of the simulated (scaled) drive.
    pub fn user_pages(&self) -> u32 {
        (self.preset.user_bytes / 4096 / u64::from(self.scale)) as u32
    }

    /// Erase blocks of the simulated (scaled) drive that hold the host's data: the user
    /// capacity times α, less the TLC blocks an SLC cache's static part runs as SLC (three
    /// times the bytes it holds), which garbage collection cannot use as spare.
    pub fn blocks(&self) -> u32 {
        let slc_pages = self.preset.slc.map_or(0.0, |s| {
            3.0 * s.static_bytes as f64 / 4096.0 / f64::from(self.scale)
        });
        let user = f64::from(self.user_pages());
        // At least the 1 % of spare the smallest `alpha=` leaves.
        ((user * self.preset.alpha - slc_pages).max(user * 1.01)
            / f64::from(self.preset.pages_per_block))
        .ceil() as u32
    }

    /// Bytes the host sees (the full, unscaled drive, a whole number of 4 KiB pages).
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.user_pages()) * 4096 * u64::from(self.scale)
    }

    /// A name fit for a run directory (`sim-vertex2-60g`).
    pub fn short_name(&self) -> String {
        format!("sim-{}", self.preset.name)
    }
}

/// Splits `text` at the commas outside quotes, undoing the quoting (see the module doc).
fn split_options(text: &str) -> Result<Vec<String>, String> {
    let mut parts = vec![String::new()];
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        let part = parts.last_mut().expect("never empty");
        match c {
            ',' => parts.push(String::new()),
            '\\' => match chars.next() {
                Some(next) => part.push(next),
                None => {
                    return Err("a trailing \\ escapes nothing: write \\\\ for a backslash".into())
                }
            },
            '\'' => loop {
                match chars.next() {
                    Some('\'') => break,
                    Some(inner) => part.push(inner),
                    None => return Err("a ' is never closed: close the quote".into()),
                }
            },
            '"' => loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some(next) => part.push(next),
                        None => return Err("a \" is never closed: close the quote".into()),
                    },
                    Some(inner) => part.push(inner),
                    None => return Err("a \" is never closed: close the quote".into()),
                }
            },
            _ => part.push(c),
        }
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_override_the_preset() {
        let s = SimSpec::parse(
            "sim:vertex2-60g,scale=16,alpha=1.12,aged=0s,cache=lying,throttle=off,state=/tmp/x",
        )
        .unwrap();
        assert_eq!(s.scale, 16);
        assert_eq!(s.preset.alpha, 1.12);
        assert_eq!(s.aged, Duration::ZERO);
        assert_eq!(s.cache, CacheMode::Lying);
        assert!(s.preset.throttle.is_none());
        assert_eq!(s.state, Some(PathBuf::from("/tmp/x")));
        assert_eq!(s.size_bytes() % 4096, 0);
    }

    /// Without `scale=`, the smallest capacity of every preset gets the largest scale that
    /// models it (the preset's own where it can); a `scale=` that cannot is refused.
    #[test]
    fn the_default_scale_fits_small_capacities() {
        for preset in &presets::PRESETS {
            let gb = (preset.user_bytes / 64).div_ceil(1_000_000_000);
            let target = format!("sim:{},capacity={gb}GB", preset.name);
            let spec = SimSpec::parse(&target).unwrap_or_else(|e| panic!("{target}: {e:#}"));
            assert!(spec.scale <= preset.scale, "{target}: scale {}", spec.scale);
            assert!(spec.scale_problem().is_none(), "{target}");
            if spec.scale < preset.scale {
                let larger = format!("{target},scale={}", spec.scale + 1);
                let err = SimSpec::parse(&larger).unwrap_err();
                assert!(
                    err.downcast_ref::<crate::error::BadInput>().is_some(),
                    "{larger}"
                );
            }
            let given = format!("{target},scale={}", spec.scale);
            assert_eq!(SimSpec::parse(&given).unwrap().scale, spec.scale, "{given}");
        }
        // The preset's default capacity keeps the preset's scale.
        for preset in &presets::PRESETS {
            let spec = SimSpec::parse(&format!("sim:{}", preset.name)).unwrap();
            assert_eq!(spec.scale, preset.scale, "{}", preset.name);
        }
        let small = SimSpec::parse("sim:sata-tlc-250g,capacity=8GB").unwrap();
        assert!(small.scale < 16, "scale {}", small.scale);
        assert!(SimSpec::parse("sim:sata-tlc-250g,capacity=8GB,scale=16").is_err());
    }

    #[test]
    fn bad_options_are_bad_input() {
        for text in [
            "sim:nope",
            "sim:ram-8g,scale=0",
            "sim:ram-8g,colour=red",
            "sim:ram-8g,fail_at=9T",
            "sim:ram-8g,scale=4096",
            "sim:ram-8g,throttle=on",
            "sim:ram-8g,aged=1e30",
            "sim:ram-8g,aged=31years",
            "sim:ram-8g,alpha=NaN",
            "sim:ram-8g,alpha=inf",
            "sim:ram-8g,alpha=1",
            "sim:ram-8g,alpha=0.5",
            "sim:ram-8g,scale=99999999999",
            "sim:ram-8g,scale=-1",
            "sim:ram-8g,seed=1,seed=2",
            "sim:ram-8g,state=/tmp/a,state=/tmp/b",
            "sim:ram-8g,state='/tmp/a",
            "sim:ram-8g,state=\"/tmp/a",
            "sim:ram-8g,state=/tmp/a\\",
            "sim:ram-8g,fail_at=1e30T",
            "sim:ram-8g,serial=",
            "sim:ram-8g,serial=a/b",
            "sim:ram-8g,serial='a b'",
        ] {
            let err = SimSpec::parse(text).unwrap_err();
            assert!(
                err.downcast_ref::<crate::error::BadInput>().is_some(),
                "{text}"
            );
        }
    }

    #[test]
    fn quoted_and_escaped_values_keep_their_commas() {
        for (text, want) in [
            ("sim:ram-8g,state='/tmp/a,b.sim'", "/tmp/a,b.sim"),
            (
                "sim:ram-8g,state=\"/tmp/a,b \\\"c\\\".sim\"",
                "/tmp/a,b \"c\".sim",
            ),
            ("sim:ram-8g,state=/tmp/a\\,b.sim,seed=3", "/tmp/a,b.sim"),
            ("sim:ram-8g,'state=/tmp/x=y'", "/tmp/x=y"),
        ] {
            let s = SimSpec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(s.state, Some(PathBuf::from(want)), "{text}");
        }
        let s = SimSpec::parse("sim:ram-8g,state=/tmp/a\\,b.sim,seed=3").unwrap();
        assert_eq!(s.seed, 3);
    }

    #[test]
    fn duplicate_options_are_refused_naming_the_key() {
        let err = SimSpec::parse("sim:ram-8g,cache=plp,scale=4,cache=none").unwrap_err();
        assert!(
            err.to_string().starts_with("cache= is given twice"),
            "{err}"
        );
    }

    /// Random and hostile strings: the parser answers Ok or bad input, never panics.
    #[test]
    fn parser_never_panics_on_random_input() {
        use rand_chacha::ChaCha8Rng;
        use rand_core::{RngCore, SeedableRng};
        const PIECES: &[&str] = &[
            "sim:",
            "ram-8g",
            "vertex2-60g",
            "nvme-tlc-1t",
            ",",
            "=",
            "'",
            "\"",
            "\\",
            "aged",
            "scale",
            "alpha",
            "cache",
            "state",
            "seed",
            "fail_at",
            "fail_after",
            "compression",
            "throttle",
            "1e30",
            "NaN",
            "-1",
            "0",
            "4096",
            "18446744073709551616",
            "1.0000001",
            "inf",
            "9T",
            "on",
            "off",
            "lying",
            "/tmp/x",
            "é",
            "\0",
            " ",
            "1h",
            "99999y",
            "0.5",
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        for _ in 0..20_000 {
            let mut text = String::from(if rng.next_u32() % 8 == 0 { "" } else { "sim:" });
            for _ in 0..rng.next_u32() % 12 {
                if rng.next_u32() % 5 == 0 {
                    text.push(char::from_u32(rng.next_u32() % 0x3000).unwrap_or('?'));
                } else {
                    text += PIECES[rng.next_u32() as usize % PIECES.len()];
                }
            }
            if let Err(e) = SimSpec::parse(&text) {
                assert!(
                    e.downcast_ref::<crate::error::BadInput>().is_some(),
                    "{text}: {e}"
                );
                assert!(
                    !e.to_string().contains('\n') || text.contains('\n'),
                    "{text}: {e}"
                );
            }
        }
    }
}
