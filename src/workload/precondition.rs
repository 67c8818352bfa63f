//! Fast preconditioning (`--precondition fast`): one physical write of the span that leaves a
//! purged drive in the random-write steady state, instead of SNIA's two or more drive writes of
//! random data.
//!
//! Under uniform random writes and greedy garbage collection a page written `a` host writes ago
//! is still valid with probability e^(−a/U) (U: the span's pages), so the blocks of a drive in
//! steady state hold valid fractions from 1 (just written) down to the victim's u, where
//! α = −ln u / (1 − u) (α: the physical space the span's data has, over the span). The plan
//! writes α·U pages (no garbage collection yet) such that the page written at position p is
//! the last write of its address with probability v(p) = e^(−(P − p)/(W·U)) (W = 1/(1 − u));
//! the other writes go to addresses written again later. Addresses are taken in the order of a
//! fixed permutation of the span, so the state is the one uniform random writes leave behind
//! (sprandom's idea, from fio's proposal; this is its own derivation).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Over-provisioning assumed for a drive that does not report its physical capacity:
/// GB-sized drives built from GiB-sized flash (1 GiB / 1 GB − 1).
pub const DEFAULT_OP_PCT: f64 = 7.37;

/// What the user asked for (`--precondition`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PreconditionSpec {
    /// No preconditioning: the workload starts at once (SNIA: the workload itself, until
    /// steady).
    #[default]
    None,
    /// Fast preconditioning; `op_pct` is the drive's over-provisioning when given (else the
    /// drive's reported physical capacity, else [`DEFAULT_OP_PCT`]).
    Fast { op_pct: Option<f64> },
}

impl PreconditionSpec {
    pub fn is_none(&self) -> bool {
        *self == PreconditionSpec::None
    }

    /// The plan for a span of `span` bytes on a purged drive of `size` bytes whose flash holds
    /// `physical` bytes when known. Media written in place has no garbage collection: its
    /// steady state is its fresh state once every address holds data, so the span is written
    /// once. Flash is written whole, however large its α: a purged drive's free blocks are
    /// erased already, so until the flash is written it skips the erases (and any collection)
    /// of its steady state (measured: 8 % faster at α 3.4, where greedy WA is only 1.04).
    pub fn resolve(
        &self,
        size: u64,
        span: u64,
        physical: Option<u64>,
        writes_in_place: bool,
    ) -> Option<Fast> {
        let PreconditionSpec::Fast { op_pct } = *self else {
            return None;
        };
        let op_pct = op_pct
            .or_else(|| physical.map(|p| (p as f64 / size as f64 - 1.0) * 100.0))
            .unwrap_or(DEFAULT_OP_PCT);
        let flash = size as f64 * (1.0 + op_pct / 100.0);
        let span_alpha = flash / span.max(1) as f64;
        let fast = Fast {
            drive_op_pct: op_pct,
            span_alpha,
            bytes: 0,
            flash_bytes: flash as u64,
            span_once: writes_in_place,
        };
        Some(Fast {
            bytes: (span as f64 * fast.plan_alpha()) as u64,
            ..fast
        })
    }
}

const USE: &str = "use none, fast, or fast:OP% with the drive's over-provisioning (e.g. fast:28%)";

impl FromStr for PreconditionSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once(':') {
            None if s == "none" => Ok(PreconditionSpec::None),
            None if s == "fast" => Ok(PreconditionSpec::Fast { op_pct: None }),
            Some(("fast", op)) => match op.trim_end_matches('%').parse::<f64>() {
                Ok(x) if (0.5..=300.0).contains(&x) => {
                    Ok(PreconditionSpec::Fast { op_pct: Some(x) })
                }
                _ => Err(format!(
                    "'{s}': the over-provisioning is a percent from 0.5 to 300 (physical / user − 1), e.g. fast:7%"
                )),
            },
            _ => Err(format!("'{s}': {USE}")),
        }
    }
}

impl fmt::Display for PreconditionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PreconditionSpec::None => f.write_str("none"),
            PreconditionSpec::Fast { op_pct: None } => f.write_str("fast"),
            PreconditionSpec::Fast { op_pct: Some(op) } => write!(f, "fast:{op}%"),
        }
    }
}

/// Fast preconditioning resolved against the target (recorded in run.json's workload).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Fast {
    /// Over-provisioning of the drive assumed, percent (physical / user − 1).
    pub drive_op_pct: f64,
    /// Physical space the span's data has, over the span (the span's α on a purged drive).
    pub span_alpha: f64,
    /// Bytes the preconditioning writes before the workload starts: α × span (the flash), or
    /// the span once on media written in place.
    pub bytes: u64,
    /// The flash the plan assumes, bytes (the user capacity × (1 + `drive_op_pct` / 100)):
    /// host bytes over it are physical drive writes. 0 in runs recorded before it was.
    #[serde(default)]
    pub flash_bytes: u64,
    /// The plan writes the span once: the drive's media is written in place.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub span_once: bool,
}

impl Fast {
    /// Writes of the span the plan makes: its α, or 1 on media written in place.
    pub fn plan_alpha(&self) -> f64 {
        if self.span_once {
            1.0
        } else {
            self.span_alpha
        }
    }
}

/// Victim validity u of greedy GC under uniform random writes at over-provisioning α:
/// α = −ln u / (1 − u).
pub fn victim_validity(alpha: f64) -> f64 {
    if alpha <= 1.0 {
        return 1.0;
    }
    let f = |u: f64| -u.ln() / (1.0 - u) - alpha;
    // f falls from +∞ (u → 0) to 1 − α < 0 (u → 1).
    let (mut lo, mut hi) = (1e-12, 1.0 - 1e-12);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// Steady-state write amplification of greedy GC under uniform random writes at α.
pub fn greedy_write_amplification(alpha: f64) -> f64 {
    1.0 / (1.0 - victim_validity(alpha)).max(1e-9)
}

/// The order of the preconditioning's writes over `units` transfer-sized positions.
#[derive(Clone, Debug)]
pub struct Plan {
    units: u64,
    writes: u64,
    /// W·U in writes: the decay length of validity with age.
    decay: f64,
    /// e^(−P/(W·U)): the oldest write's validity.
    oldest: f64,
    step: u64,
    shift: u64,
    seed: u64,
}

impl Plan {
    /// The plan for `units` positions at the span's α.
    pub fn new(units: u64, span_alpha: f64, seed: u64) -> Plan {
        let units = units.max(1);
        let writes = (units as f64 * span_alpha).round() as u64;
        let u = victim_validity(span_alpha);
        let decay = units as f64 / (1.0 - u).max(1e-9);
        let gcd = |mut a: u64, mut b: u64| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let mut step = ((units as f64 * 0.618_033_988_749_895) as u64).max(1);
        while gcd(step, units) != 1 {
            step += 1;
        }
        Plan {
            units,
            writes,
            decay,
            oldest: (-(writes as f64) / decay).exp(),
            step,
            shift: crate::pattern::mix64(seed ^ 0x7072_6563) % units,
            seed,
        }
    }

    /// Writes the plan makes.
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// Last writes of an address among the first `n` writes: ∫₀ⁿ v, scaled to end at U.
    fn finals_before(&self, n: u64) -> u64 {
        if self.writes <= self.units {
            // One write per address (α 1): each is its address's last.
            return n.min(self.units);
        }
        let v = (-((self.writes - n.min(self.writes)) as f64) / self.decay).exp();
        let f = (v - self.oldest) / (1.0 - self.oldest) * self.units as f64;
        (f.floor() as u64).min(self.units)
    }

    /// The position (in transfers from the span's start) of write `n` (< [`Plan::writes`]).
    pub fn position(&self, n: u64) -> u64 {
        let before = self.finals_before(n);
        let rank = if self.finals_before(n + 1) > before || before + 1 >= self.units {
            // The last write of address rank `before`.
            before.min(self.units - 1)
        } else {
            // A write to an address whose last write comes later.
            let left = self.units - before - 1;
            let r = crate::pattern::mix64(self.seed ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            before + 1 + ((u128::from(r) * u128::from(left)) >> 64) as u64
        };
        ((u128::from(rank) * u128::from(self.step) + u128::from(self.shift))
            % u128::from(self.units)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn victim_validity_solves_the_greedy_balance() {
        // α = −ln u / (1 − u) at u = 0.5: 2 ln 2.
        let alpha = 2.0 * std::f64::consts::LN_2;
        assert!((victim_validity(alpha) - 0.5).abs() < 1e-9);
        assert!((greedy_write_amplification(alpha) - 2.0).abs() < 1e-6);
    }

    #[test]
    fn every_position_is_last_written_once_and_validity_falls_with_age() {
        let units = 10_000;
        let plan = Plan::new(units, 1.3, 7);
        let writes = plan.writes();
        assert_eq!(writes, 13_000);
        let mut last = vec![u64::MAX; units as usize];
        for n in 0..writes {
            last[plan.position(n) as usize] = n;
        }
        assert!(
            last.iter().all(|&n| n != u64::MAX),
            "every position written"
        );
        // Valid fraction of the oldest and newest tenth against e^(−age/(W·U)).
        let valid_in = |from: u64, to: u64| {
            last.iter().filter(|&&n| n >= from && n < to).count() as f64 / (to - from) as f64
        };
        let u = victim_validity(1.3);
        let oldest = valid_in(0, writes / 10);
        let expect_oldest = {
            let d = units as f64 / (1.0 - u);
            let mid = writes as f64 * 0.95;
            (-mid / d).exp()
        };
        assert!(
            (oldest - expect_oldest).abs() < 0.03,
            "{oldest} vs {expect_oldest}"
        );
        assert!(valid_in(writes - writes / 10, writes) > 0.95);
    }

    #[test]
    fn parses_the_forms_and_refuses_the_rest() {
        assert_eq!("none".parse(), Ok(PreconditionSpec::None));
        assert_eq!("fast".parse(), Ok(PreconditionSpec::Fast { op_pct: None }));
        assert_eq!(
            "fast:28%".parse(),
            Ok(PreconditionSpec::Fast { op_pct: Some(28.0) })
        );
        assert!("fast:0%".parse::<PreconditionSpec>().is_err());
        assert!("slow".parse::<PreconditionSpec>().is_err());
    }

    #[test]
    fn resolves_the_span_alpha_from_the_physical_capacity() {
        let f = PreconditionSpec::Fast { op_pct: None }
            .resolve(1000, 500, Some(1280), false)
            .expect("fast");
        assert!((f.drive_op_pct - 28.0).abs() < 1e-9);
        assert!((f.span_alpha - 2.56).abs() < 1e-9);
        assert_eq!((f.bytes, f.flash_bytes), (1280, 1280));
    }

    #[test]
    fn writes_the_span_once_on_media_written_in_place_and_the_flash_otherwise() {
        let f = PreconditionSpec::Fast {
            op_pct: Some(300.0),
        }
        .resolve(1000, 1000, None, true)
        .expect("fast");
        assert_eq!((f.bytes, f.flash_bytes), (1000, 4000));
        assert!((f.span_alpha - 4.0).abs() < 1e-9 && f.plan_alpha() == 1.0);
        let plan = Plan::new(10_000, f.plan_alpha(), 3);
        let mut seen = vec![false; 10_000];
        for n in 0..plan.writes() {
            seen[plan.position(n) as usize] = true;
        }
        assert_eq!(plan.writes(), 10_000);
        assert!(seen.iter().all(|&s| s), "every position written once");
        // Flash at the same α: greedy WA only 1.02, but the free blocks are erased already,
        // so the whole flash is written.
        let f = PreconditionSpec::Fast {
            op_pct: Some(300.0),
        }
        .resolve(1000, 1000, None, false)
        .expect("fast");
        assert!(greedy_write_amplification(4.0) < 1.03);
        assert_eq!(f.bytes, 4000);
        assert!((f.plan_alpha() - 4.0).abs() < 1e-9);
    }
}
