//! Parsing `sim:PRESET[,key=value…]` into a preset plus the options that change it.

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
    /// Writes fail with EIO once this many have succeeded.
    pub fail_after: Option<u64>,
    /// I/O covering this byte offset fails with EIO.
    pub fail_at: Option<u64>,
    /// Where the drive is kept between commands.
    pub state: Option<PathBuf>,
    /// Seed of the aging history.
    pub seed: u64,
}

const OPTIONS: &str = "aged=DURATION, scale=N, alpha=X, cache=none|volatile|plp|lying, \
compression=on|off, throttle=on|off, fail_after=N, fail_at=OFFSET, state=PATH, seed=N";

impl SimSpec {
    /// Parses `sim:PRESET[,key=value…]`; bad input names the offending part and what to use.
    pub fn parse(text: &str) -> anyhow::Result<SimSpec> {
        let Some(rest) = text.strip_prefix("sim:") else {
            bad_input!("'{text}' is not a simulated target: write sim:PRESET[,key=value…]");
        };
        let mut parts = rest.split(',');
        let name = parts.next().unwrap_or_default();
        let Some(preset) = presets::find(name) else {
            let names: Vec<_> = presets::PRESETS.iter().map(|p| p.name).collect();
            bad_input!(
                "unknown simulated drive '{name}': use one of {} (see `ssdfade sim list`)",
                names.join(", ")
            );
        };
        let mut spec = SimSpec {
            text: text.to_string(),
            preset: *preset,
            scale: preset.scale,
            aged: preset.aged,
            cache: preset.cache,
            fail_after: None,
            fail_at: None,
            state: None,
            seed: 1,
        };
        for part in parts {
            let Some((key, value)) = part.split_once('=') else {
                bad_input!("'{part}' in {text} is not key=value: options are {OPTIONS}");
            };
            let bad = |what: &str| -> anyhow::Result<()> {
                bad_input!("{key}={value} in {text}: {what}");
            };
            match key {
                "aged" => match parse_duration(value) {
                    Ok(d) => spec.aged = d,
                    Err(e) => bad(&e)?,
                },
                "scale" => match value.parse::<u32>() {
                    Ok(n) if (1..=4096).contains(&n) => spec.scale = n,
                    _ => bad("use a whole number from 1 to 4096")?,
                },
                "alpha" => match value.parse::<f64>() {
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
                "state" if !value.is_empty() => spec.state = Some(PathBuf::from(value)),
                "seed" => match value.parse::<u64>() {
                    Ok(n) => spec.seed = n,
                    _ => bad("use a whole number")?,
                },
                _ => bad_input!("unknown option '{key}' in {text}: options are {OPTIONS}"),
            }
        }
        let blocks = spec.blocks();
        if blocks < 64 {
            bad_input!(
                "scale={} leaves {text} with only {blocks} erase blocks: use a smaller scale",
                spec.scale
            );
        }
        Ok(spec)
    }

    /// Logical 4 KiB pages of the simulated (scaled) drive.
    pub fn user_pages(&self) -> u32 {
        (self.preset.user_bytes / 4096 / u64::from(self.scale)) as u32
    }

    /// Erase blocks of the simulated (scaled) drive.
    pub fn blocks(&self) -> u32 {
        (f64::from(self.user_pages()) * self.preset.alpha / f64::from(self.preset.pages_per_block))
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

    #[test]
    fn bad_options_are_bad_input() {
        for text in [
            "sim:nope",
            "sim:ram-8g,scale=0",
            "sim:ram-8g,colour=red",
            "sim:ram-8g,fail_at=9T",
            "sim:ram-8g,scale=4096",
            "sim:ram-8g,throttle=on",
        ] {
            let err = SimSpec::parse(text).unwrap_err();
            assert!(
                err.downcast_ref::<crate::error::BadInput>().is_some(),
                "{text}"
            );
        }
    }
}
