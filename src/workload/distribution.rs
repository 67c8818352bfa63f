//! Where the span starts (`--offset`) and how random offsets spread over it
//! (`--distribution`, fio's `random_distribution`): the user's words, parsed and checked. The
//! sampling itself is the engines' (`engine::offsets`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How random offsets spread over the span; sequential I/O is not affected.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Distribution {
    /// Every aligned offset equally likely (the default).
    #[default]
    Uniform,
    /// Block of popularity rank i drawn with probability ∝ 1 / i^θ; the hottest blocks are
    /// spread over the span.
    Zipf { theta: f64 },
    /// Pareto: a fraction `h` of the I/Os goes to the hottest `1 − h` of the blocks (0.9: 90 %
    /// to 10 %), spread over the span.
    Pareto { h: f64 },
    /// Normal around the middle of the span with standard deviation `sigma_pct` percent of the
    /// span, wrapping around at its ends.
    Normal { sigma_pct: f64 },
    /// `hot_io_pct` percent of the I/Os go uniformly to the first `hot_span_pct` percent of the
    /// span, the rest uniformly to the remainder.
    Hotcold { hot_io_pct: u8, hot_span_pct: u8 },
    /// fio's `zoned`: the span cut into consecutive zones from its start, each taking its
    /// percent of the I/Os uniformly over its percent of the span (SNIA's enterprise composite
    /// workload: `zoned:50/5:30/15:20/80`).
    Zoned { zones: Vec<Zone> },
}

/// One zone of [`Distribution::Zoned`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Zone {
    /// Percent of the I/Os that go to the zone.
    pub io_pct: u8,
    /// Percent of the span the zone covers.
    pub span_pct: u8,
}

impl Distribution {
    /// True for the default, which the report and workload line need not mention.
    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Uniform
    }
}

const USE: &str = "use uniform, zipf:θ (e.g. zipf:1.2), pareto:h (e.g. pareto:0.9), normal:σ% (e.g. normal:10), hotcold:P/Q (e.g. hotcold:80/20) or zoned:P/S:P/S… (e.g. zoned:50/5:30/15:20/80)";

/// Most zones a `zoned` distribution takes.
pub const MAX_ZONES: usize = 100;

/// fio's `zoned:P1/S1:P2/S2:…` (P percent of the I/Os to the next S percent of the span); both
/// lists of percents sum to 100 and every zone covers some of the span.
fn zoned(s: &str, v: &str) -> Result<Distribution, String> {
    let how = || {
        format!("'{s}': zoned:P/S:P/S… sends P % of the I/Os to each next S % of the span, the Ps and the Ss each summing to 100 (at most {MAX_ZONES} zones), e.g. zoned:50/5:30/15:20/80")
    };
    let zones = v
        .split(':')
        .map(|z| {
            let (p, q) = z.split_once('/').ok_or_else(how)?;
            match (p.trim().parse::<u8>(), q.trim().parse::<u8>()) {
                (Ok(io_pct), Ok(span_pct)) if io_pct <= 100 && (1..=100).contains(&span_pct) => {
                    Ok(Zone { io_pct, span_pct })
                }
                _ => Err(how()),
            }
        })
        .collect::<Result<Vec<Zone>, String>>()?;
    let sum = |f: fn(&Zone) -> u8| zones.iter().map(|z| u32::from(f(z))).sum::<u32>();
    if zones.len() > MAX_ZONES || sum(|z| z.io_pct) != 100 || sum(|z| z.span_pct) != 100 {
        return Err(how());
    }
    Ok(Distribution::Zoned { zones })
}

impl FromStr for Distribution {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let number = |v: &str, what: &str, ok: &dyn Fn(f64) -> bool| -> Result<f64, String> {
            match v.parse::<f64>() {
                Ok(x) if x.is_finite() && ok(x) => Ok(x),
                _ => Err(format!("'{s}': {what}")),
            }
        };
        let hotcold = || {
            format!("'{s}': hotcold:P/Q sends P % of the I/Os (0 to 100) to the first Q % of the span (1 to 99), e.g. hotcold:80/20")
        };
        let percent = |v: &str, lo: u8, hi: u8| -> Result<u8, String> {
            match v.parse::<u8>() {
                Ok(n) if (lo..=hi).contains(&n) => Ok(n),
                _ => Err(hotcold()),
            }
        };
        match s.split_once(':') {
            None if s == "uniform" => Ok(Distribution::Uniform),
            Some(("zipf", v)) => Ok(Distribution::Zipf {
                theta: number(
                    v,
                    "the zipf exponent θ must be above 0 and at most 100, e.g. zipf:1.2",
                    &|x| x > 0.0 && x <= 100.0,
                )?,
            }),
            Some(("pareto", v)) => Ok(Distribution::Pareto {
                h: number(
                    v,
                    "the pareto h must be between 0 and 1 (exclusive), e.g. pareto:0.9",
                    &|x| x > 0.0 && x < 1.0,
                )?,
            }),
            Some(("normal", v)) => Ok(Distribution::Normal {
                sigma_pct: number(
                    v.trim_end_matches('%'),
                    "the normal σ is a percent of the span above 0 and at most 100, e.g. normal:10",
                    &|x| x > 0.0 && x <= 100.0,
                )?,
            }),
            Some(("hotcold", v)) => {
                let (p, q) = v.split_once('/').ok_or_else(hotcold)?;
                Ok(Distribution::Hotcold {
                    hot_io_pct: percent(p, 0, 100)?,
                    hot_span_pct: percent(q, 1, 99)?,
                })
            }
            Some(("zoned", v)) => zoned(s, v),
            _ => Err(format!("unknown distribution '{s}': {USE}")),
        }
    }
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Distribution::Uniform => f.write_str("uniform"),
            Distribution::Zipf { theta } => write!(f, "zipf:{theta}"),
            Distribution::Pareto { h } => write!(f, "pareto:{h}"),
            Distribution::Normal { sigma_pct } => write!(f, "normal:{sigma_pct}"),
            Distribution::Hotcold {
                hot_io_pct,
                hot_span_pct,
            } => write!(f, "hotcold:{hot_io_pct}/{hot_span_pct}"),
            Distribution::Zoned { zones } => {
                f.write_str("zoned")?;
                for z in zones {
                    write!(f, ":{}/{}", z.io_pct, z.span_pct)?;
                }
                Ok(())
            }
        }
    }
}

/// Where the span starts, as the user gave it: bytes, or a percent of the target's size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpanStart {
    Bytes(u64),
    Percent(f64),
}

impl Default for SpanStart {
    fn default() -> Self {
        SpanStart::Bytes(0)
    }
}

impl SpanStart {
    /// The byte offset on a target of `size` bytes; a percent is rounded down to a whole MiB
    /// (so that every phase of an experiment starts at the same byte whatever its transfer
    /// size) and to `align`.
    pub fn bytes(self, size: u64, align: u64) -> u64 {
        const MIB: u64 = 1 << 20;
        match self {
            SpanStart::Bytes(b) => b,
            SpanStart::Percent(p) => {
                let b = (size as f64 * p / 100.0) as u64 / MIB * MIB;
                b / align.max(1) * align.max(1)
            }
        }
    }
}

impl FromStr for SpanStart {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().strip_suffix('%') {
            Some(p) => match p.trim().parse::<f64>() {
                Ok(x) if (0.0..100.0).contains(&x) => Ok(SpanStart::Percent(x)),
                _ => Err(format!(
                    "'{s}': an offset in percent of the target is from 0 to below 100, e.g. 50%"
                )),
            },
            None => crate::units::parse_size(s).map(SpanStart::Bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_parse_print_and_refuse_out_of_range() {
        for s in [
            "uniform",
            "zipf:1.2",
            "pareto:0.9",
            "normal:10",
            "hotcold:80/20",
            "zoned:50/5:30/15:20/80",
            "zoned:0/50:100/50",
        ] {
            let d: Distribution = s.parse().unwrap();
            assert_eq!(d.to_string(), s);
        }
        for bad in [
            "zipf:0",
            "zipf:x",
            "pareto:1",
            "pareto:0",
            "normal:0",
            "normal:101",
            "hotcold:80",
            "hotcold:101/20",
            "hotcold:80/100",
            "hotcold:80/0",
            "gauss:3",
            "zoned:50/5:30/15:20/70",
            "zoned:50/5:30/15:10/80",
            "zoned:50/0:50/100",
            "zoned:100",
            "zoned:x/100",
            "zoned:",
        ] {
            assert!(bad.parse::<Distribution>().is_err(), "{bad}");
        }
    }

    #[test]
    fn offsets_are_bytes_or_percent_rounded_to_the_alignment() {
        assert_eq!(
            "1M".parse::<SpanStart>().unwrap().bytes(1 << 30, 4096),
            1 << 20
        );
        assert_eq!(
            "50%".parse::<SpanStart>().unwrap().bytes(10 << 30, 4096),
            5 << 30
        );
        assert_eq!(
            "33%".parse::<SpanStart>().unwrap().bytes(100 << 20, 4096),
            33 << 20
        );
        assert!("100%".parse::<SpanStart>().is_err());
        assert!("x%".parse::<SpanStart>().is_err());
    }
}
