//! Where the span starts (`--offset`) and how random offsets spread over it
//! (`--distribution`, fio's `random_distribution`): the user's words, parsed and checked. The
//! sampling itself is the engines' (`engine::offsets`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How random offsets spread over the span; sequential I/O is not affected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
}

impl Distribution {
    /// True for the default, which the report and workload line need not mention.
    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Uniform
    }
}

const USE: &str = "use uniform, zipf:θ (e.g. zipf:1.2), pareto:h (e.g. pareto:0.9), normal:σ% (e.g. normal:10) or hotcold:P/Q (e.g. hotcold:80/20)";

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
