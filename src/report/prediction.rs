//! The steady-state prediction in a run's report: a summary row (predicted IOPS with its
//! interval and SNIA's predicted pass), and a paragraph saying how it compared with what the
//! run measured (the figures of `analysis::prediction`).

use crate::analysis::prediction::{Onward, PredictionCheck};
use crate::results::Basis;

use super::run::secs;

/// "7900 IOPS (7528–8311: −4.7 % / +5.2 %); should pass SNIA at 3h09m00s (489.0 GB written);
/// first made at 58m00s, last at 8h00m00s".
pub(super) fn summary(check: &PredictionCheck) -> String {
    let p = &check.prediction;
    let pass = crate::text::prediction::snia_pass(p)
        .unwrap_or_else(|| "no SNIA pass predicted within the model's horizon".into());
    let basis = match p.basis {
        Basis::Settled => String::new(),
        b => format!(" {}", b.label()),
    };
    format!(
        "{} IOPS{basis} ({}); {pass}; {}",
        crate::units::format_count(p.iops),
        p.range(),
        crate::text::prediction::made_at(p)
    )
}

/// The paragraph: the prediction, when it was first and last made, and how it compared with
/// the measured steady window and settled level, and where the drive goes on to from a pass on
/// a level it will leave (`onward`).
pub(super) fn paragraph(check: &PredictionCheck, onward: Option<Onward>) -> String {
    let p = &check.prediction;
    let model = crate::text::prediction::model(p, "time per write rising ", "hour of writing");
    let mut out = format!("Steady state predicted ({model}): {}.", summary(check));
    let judged = |name: &str, measured: f64| {
        let (err, inside) = check.against(measured);
        format!(
            " {name} {} IOPS: the prediction is {err:+.1} % off, {} its interval.",
            crate::units::format_count(measured),
            if inside { "inside" } else { "OUTSIDE" }
        )
    };
    // Each level is judged only against the prediction of that level: a throttled drive's
    // IOPS at the plan's end is not its SNIA window's.
    let plan_end = p.basis == Basis::PlanEnd;
    match (check.steady_iops, check.steady_at_s) {
        (Some(iops), Some(at)) => {
            if plan_end {
                out += &format!(
                    " Measured: SNIA's steady window {} IOPS.",
                    crate::units::format_count(iops)
                );
            } else {
                out += &judged("Measured: SNIA's steady window", iops);
            }
            if let Some(o) = onward {
                out += &format!(" SNIA steady state reached; {}.", o.words());
            }
            // The record keeps the last prediction: its pass time is a forecast only when it
            // was made before the pass.
            match p.steady_at_s {
                None if p.made_at_s <= at => {}
                Some(t) if p.made_at_s <= at => {
                    out += &format!(
                        " SNIA's test passed at {} (predicted at {}: {}, {:+.0} %).",
                        secs(at),
                        secs(p.made_at_s),
                        secs(t),
                        (t / at - 1.0) * 100.0
                    )
                }
                _ => {
                    out += &format!(
                        " SNIA's test passed at {}, before the prediction was made (at {}): it is no forecast of the pass.",
                        secs(at),
                        secs(p.made_at_s)
                    )
                }
            }
        }
        _ => out += " Measured: SNIA's test did not pass in this run.",
    }
    if let Some(end) = check.end_iops {
        out += &judged("The plan's last minute", end);
    }
    if let Some(settled) = check.settled_iops.filter(|_| p.basis == Basis::Settled) {
        out += &judged("The last span-write's mean", settled);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Model, Prediction};

    #[test]
    fn a_plan_end_prediction_is_judged_by_the_plans_last_minute_only() {
        let check = PredictionCheck {
            prediction: Prediction {
                iops: 950.0,
                low: 920.0,
                high: 980.0,
                half_width_pct: 3.2,
                write_amplification: 2.5,
                span_alpha: 1.145,
                steady_at_s: Some(10_620.0),
                steady_at_bytes: Some(61_654_470_656),
                made_at_s: 28_800.0,
                made_at_bytes: 141_935_992_832,
                first_made_at_s: Some(3480.0),
                basis: Basis::PlanEnd,
                rise_us_per_h: Some(47.7),
                model: Model::Throttle,
            },
            steady_iops: Some(1241.0),
            steady_at_s: Some(10_620.0),
            settled_iops: Some(1044.0),
            end_iops: Some(950.0),
        };
        let text = paragraph(&check, None);
        assert!(text.contains("950 IOPS at the plan's end"), "{text}");
        assert!(
            text.contains("model throttle: time per write rising 47.7 µs per hour"),
            "{text}"
        );
        assert!(
            text.contains("The plan's last minute 950 IOPS: the prediction is +0.0 % off, inside"),
            "{text}"
        );
        // The SNIA window and the last span-write are other levels: named, not judged.
        assert!(!text.contains("OUTSIDE"), "{text}");
    }

    /// A 24 h soak whose SNIA test passed at 1h45m and whose first prediction came at 21h32m
    /// (its model puts the pass at 1h45m too): never "predicted 1h45m00s, +0 %", as if it had
    /// been foreseen; every line names when the prediction was first made.
    #[test]
    fn a_prediction_made_after_the_pass_is_no_forecast_of_it() {
        let check = PredictionCheck {
            prediction: Prediction {
                iops: 1340.0,
                low: 1246.0,
                high: 1434.0,
                half_width_pct: 7.0,
                write_amplification: 2.5,
                span_alpha: 1.145,
                steady_at_s: Some(6300.0),
                steady_at_bytes: Some(30_000_000_000),
                made_at_s: 86_400.0,
                made_at_bytes: 400_000_000_000,
                first_made_at_s: Some(77_520.0),
                basis: Basis::Settled,
                rise_us_per_h: None,
                model: Model::Greedy,
            },
            steady_iops: Some(2400.0),
            steady_at_s: Some(6300.0),
            settled_iops: None,
            end_iops: None,
        };
        let text = paragraph(&check, None);
        assert!(!text.contains("(predicted"), "{text}");
        assert!(!text.contains("should pass"), "{text}");
        assert!(
            text.contains("first made at 21h32m00s, last at 24h00m00s"),
            "{text}"
        );
        assert!(
            text.contains("SNIA's test passed at 1h45m00s, before the prediction was made"),
            "{text}"
        );
        let row = summary(&check);
        assert!(row.contains("first made at 21h32m00s"), "{row}");
        assert!(row.contains("before it was made"), "{row}");
        let line = crate::text::prediction::prediction_line(&check.prediction);
        assert!(line.contains("first made at 21h32m00s"), "{line}");
        assert!(line.lines().all(|l| l.chars().count() <= 80), "{line}");
        // Made before the pass, the pass time is a forecast, said with when it was made.
        let mut early = check.clone();
        early.prediction.made_at_s = 3000.0;
        early.prediction.first_made_at_s = Some(2400.0);
        let text = paragraph(&early, None);
        assert!(
            text.contains("SNIA's test passed at 1h45m00s (predicted at 50m00s: 1h45m00s, +0 %)"),
            "{text}"
        );
        assert!(
            text.contains("first made at 40m00s, last at 50m00s"),
            "{text}"
        );
    }
}
