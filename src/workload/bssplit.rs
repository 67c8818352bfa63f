//! Per-I/O transfer sizes (`--bssplit`, fio's `bssplit`): each I/O draws its size from a list of
//! sizes and the percent of the I/Os each one takes. The user's words, parsed and checked; the
//! draw is the engines' (`engine::offsets`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Most sizes a split takes (fio's `BSSPLIT_MAX`).
pub const MAX_SIZES: usize = 64;

/// The sizes of a workload's I/Os and their shares, largest share first as given, summing to
/// 100 percent of the I/Os.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BsSplit(Vec<SizeShare>);

/// One size of a [`BsSplit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SizeShare {
    /// Transfer size in bytes.
    pub size: u64,
    /// Percent of the I/Os of this size.
    pub pct: u8,
}

const HOW: &str = "--bssplit takes SIZE/PCT:SIZE/PCT… (fio's bssplit): each size a transfer size, the percents of the I/Os summing to 100, a blank percent sharing the rest equally, e.g. 4k/70:64k/30";

impl BsSplit {
    /// The sizes and their shares, in the order given.
    pub fn shares(&self) -> &[SizeShare] {
        &self.0
    }

    /// The largest size: the I/O buffers hold one transfer of it.
    pub fn largest(&self) -> u64 {
        self.0.iter().map(|s| s.size).max().unwrap_or(0)
    }

    /// The smallest size: random offsets are drawn on its grid.
    pub fn smallest(&self) -> u64 {
        self.0.iter().map(|s| s.size).min().unwrap_or(0)
    }

    /// The size of the I/O whose draw `r` (0 to 99) fell in a share.
    #[inline]
    pub fn size_at(&self, r: u32) -> u64 {
        let mut below = 0u32;
        for s in &self.0 {
            below += u32::from(s.pct);
            if r < below {
                return s.size;
            }
        }
        self.largest()
    }
}

impl FromStr for BsSplit {
    type Err = String;

    /// fio's `SIZE/PCT:SIZE/PCT…`; a blank percent (`4k/`) shares what the others leave.
    fn from_str(text: &str) -> Result<BsSplit, String> {
        let how = |why: String| format!("'{text}': {why}; {HOW}");
        if text.contains(',') {
            return Err(how(
                "one split serves reads, writes and trims alike (fio's per-direction lists after a comma are not taken)".into(),
            ));
        }
        let mut sizes = Vec::new();
        for part in text.split(':') {
            let (size, pct) = part.split_once('/').unwrap_or((part, ""));
            let size = crate::units::parse_transfer_size(size.trim()).map_err(how)?;
            let pct = match pct.trim() {
                "" => None,
                p => match p.parse::<u8>() {
                    Ok(p) if (1..=100).contains(&p) => Some(p),
                    _ => {
                        return Err(how(format!(
                            "the percent '{p}' of size {size} is not a whole number from 1 to 100"
                        )))
                    }
                },
            };
            if sizes.iter().any(|&(s, _)| s == size) {
                return Err(how(format!("size {size} appears twice")));
            }
            sizes.push((size, pct));
        }
        if sizes.len() > MAX_SIZES {
            return Err(how(format!("more than {MAX_SIZES} sizes")));
        }
        let given: u32 = sizes.iter().filter_map(|s| s.1).map(u32::from).sum();
        let blank = sizes.iter().filter(|s| s.1.is_none()).count() as u32;
        if given > 100 || (blank == 0 && given != 100) || (blank > 0 && 100 - given < blank) {
            return Err(how(format!(
                "the percents sum to {given} with {blank} blank"
            )));
        }
        // The blanks share the rest; the first ones take what does not divide evenly.
        let (each, extra) = (
            (100 - given).checked_div(blank).unwrap_or(0),
            (100 - given) % blank.max(1),
        );
        let mut nth = 0u32;
        let shares = sizes
            .into_iter()
            .map(|(size, pct)| SizeShare {
                size,
                pct: pct.unwrap_or_else(|| {
                    nth += 1;
                    (each + u32::from(nth <= extra)) as u8
                }),
            })
            .collect();
        Ok(BsSplit(shares))
    }
}

impl fmt::Display for BsSplit {
    /// fio's form, sizes in k or M where they divide evenly: `4k/70:64k/30`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            match s.size {
                n if n.is_multiple_of(1 << 20) => write!(f, "{}M/{}", n >> 20, s.pct)?,
                n if n.is_multiple_of(1 << 10) => write!(f, "{}k/{}", n >> 10, s.pct)?,
                n => write!(f, "{n}/{}", s.pct)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(text: &str) -> Vec<(u64, u8)> {
        let split: BsSplit = text.parse().unwrap();
        split.shares().iter().map(|s| (s.size, s.pct)).collect()
    }

    #[test]
    fn fio_splits_parse_with_blank_percents_sharing_the_rest() {
        assert_eq!(sizes("4k/70:64k/30"), [(4096, 70), (65536, 30)]);
        assert_eq!(
            sizes("4k/50:1k/:32k/"),
            [(4096, 50), (1024, 25), (32768, 25)]
        );
        assert_eq!(sizes("512/:4k/:8k/"), [(512, 34), (4096, 33), (8192, 33)]);
        assert_eq!(sizes("1M"), [(1 << 20, 100)]);
    }

    #[test]
    fn splits_that_do_not_sum_to_100_or_repeat_a_size_are_refused() {
        for bad in [
            "4k/70:64k/20",
            "4k/70:64k/40",
            "4k/0:64k/100",
            "4k/70:4k/30",
            "4k/99:8k/:16k/",
            "4k/50.5:8k/49.5",
            "4x/100",
            "4k/50:8k/50,4k/100",
            "",
        ] {
            let err = bad.parse::<BsSplit>().unwrap_err();
            assert!(err.contains("--bssplit takes SIZE/PCT"), "{bad}: {err}");
            assert!(!err.contains('\n'), "{bad}: one line");
        }
    }

    #[test]
    fn each_draw_falls_in_its_share_and_the_form_reads_back() {
        let split: BsSplit = "512/4:4k/67:8k/29".parse().unwrap();
        let counts = (0..100).fold([0u32; 3], |mut c, r| {
            c[match split.size_at(r) {
                512 => 0,
                4096 => 1,
                _ => 2,
            }] += 1;
            c
        });
        assert_eq!(counts, [4, 67, 29]);
        assert_eq!((split.smallest(), split.largest()), (512, 8192));
        assert_eq!(split.to_string(), "512/4:4k/67:8k/29");
        assert_eq!(split.to_string().parse::<BsSplit>().unwrap(), split);
    }
}
