//! A steady state SNIA's test found before a purged drive's garbage collection could have
//! settled: a run of uniform random writes without a fast plan, with no prediction, whose
//! test passed where the greedy model's write amplification was still well below its steady
//! value. Such a pass is the drive's fresh rate, or a ceiling (its controller or link) that
//! hides what garbage collection costs: three sata-tlc-1t drives that write alike to 1.5 drive
//! writes settle 1.47 times apart, and SNIA's test passes on each at the ceiling
//! (docs/fast-steady-state.md). Nothing can be predicted there; the run can say so.

use super::predict::Setting;
use crate::results::RunInfo;
use crate::stats::steady::Criteria;

/// The share of its rate a drive whose time per write follows the model's WA would still
/// lose from the pass on, from which the pass is told as unsettled. Below it the drive has
/// little collection left to meet (or little to meet at all: at α 2, greedy WA 1.26).
const MIN_FALL: f64 = 0.25;

/// Where SNIA's test passed on the model's way to its steady write amplification.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unsettled {
    /// The model's WA where the test passed, and in steady state.
    pub wa_at_pass: f64,
    pub wa_steady: f64,
    /// The span's α the model ran at.
    pub span_alpha: f64,
}

impl Unsettled {
    /// The unsettled pass of the run `info` describes; `None` when the test did not pass, the
    /// run measured the level leave it ("did not hold"), the run made a prediction (which
    /// says where the level goes), the drive does not report its flash, the run is not
    /// uniform random writes, or the model's WA had (as after a fast plan) settled.
    pub fn of(info: &RunInfo) -> Option<Unsettled> {
        let steady = info
            .steady_state
            .as_ref()
            .filter(|s| s.reached && s.drift_pct().is_none())?;
        // The model's α is the drive's only where the drive reports its flash; a RAM device
        // or a drive with more spare flash than assumed would be cautioned for nothing.
        let flash_known = info
            .drive_before
            .as_ref()
            .is_some_and(|d| d.flash_bytes.is_some());
        if info.prediction.is_some() || !flash_known {
            return None;
        }
        // After a fast plan the model's WA is its steady one from the start: never unsettled.
        let setting = Setting::of(info, Criteria::default())?;
        let curve = setting.curve()?;
        let x = steady.bytes_written? as f64 / setting.span.max(1) as f64;
        let wa_at_pass = curve.at(x);
        (1.0 - wa_at_pass / curve.steady >= MIN_FALL).then_some(Unsettled {
            wa_at_pass,
            wa_steady: curve.steady,
            span_alpha: setting.span_alpha,
        })
    }

    /// "if the drive was purged, its garbage collection had not settled there (…)".
    pub fn words(&self) -> String {
        format!(
            "if the drive was purged, its garbage collection had not settled there (greedy model at α {:.2}: WA {} of its steady {}), so its level can still fall: run on, or start with `--precondition fast`",
            self.span_alpha,
            crate::units::format_sig(self.wa_at_pass, 3),
            crate::units::format_sig(self.wa_steady, 3)
        )
    }
}
