//! How a steady-state prediction is told in words: the soak summary's lines, and the phrase
//! for SNIA's predicted pass, which the report uses too.

use crate::results::{Basis, Prediction};
use crate::units::{format_duration, format_gb};

/// "should pass SNIA at 3h09m00s (489.0 GB written)", host data in GB as everywhere (it fits
/// the soak summary's column within 80 columns); a pass the model puts before the prediction
/// was made is no forecast: "model's SNIA pass 1h45m00s: before it was made".
/// None when the model predicts no pass.
pub fn snia_pass(p: &Prediction) -> Option<String> {
    let (t, b) = p.steady_at_s.zip(p.steady_at_bytes)?;
    let at = format_duration(std::time::Duration::from_secs_f64(t.max(0.0)));
    Some(if t < p.made_at_s {
        format!("model's SNIA pass {at}: before it was made")
    } else {
        format!("should pass SNIA at {at} ({} written)", format_gb(b))
    })
}

/// "first made at 21h32m00s" (and "last at 24h00m00s" when it was made again later).
pub fn made_at(p: &Prediction) -> String {
    let text = |s: f64| format_duration(std::time::Duration::from_secs_f64(s.max(0.0)));
    let first = p.first_made_s();
    if p.made_at_s > first {
        format!(
            "first made at {}, last at {}",
            text(first),
            text(p.made_at_s)
        )
    } else {
        format!("first made at {}", text(first))
    }
}

/// The model that made the prediction, by its name in run.json, and what it found: "model
/// greedy: WA 2.5 at α 1.28", or for a throttle (`rise` before the figure, `per` after its
/// unit) "model throttle: +47.7 µs per write per hour".
pub fn model(p: &Prediction, rise: &str, per: &str) -> String {
    let found = match p.rise_us_per_h {
        Some(r) => format!("{rise}{r:.1} µs per {per}"),
        None => format!(
            "WA {} at α {:.2}",
            crate::units::format_sig(p.write_amplification, 3),
            p.span_alpha
        ),
    };
    format!("model {}: {found}", p.model.name())
}

/// Lines in the soak summary's columns: "  Steady state predicted  36100 IOPS (34980–37290:
/// −3.1 % / +3.3 %)", then the model's write amplification, when SNIA's test should pass, and
/// when the prediction was first made.
pub fn prediction_line(p: &Prediction) -> String {
    let at = snia_pass(p)
        .map(|pass| format!("\n  {:<28} {pass}", ""))
        .unwrap_or_default();
    let model = model(p, "+", "write per hour");
    let head = match p.basis {
        Basis::Settled => "Steady state predicted".to_string(),
        b => format!("Predicted {}", b.label()),
    };
    format!(
        "  {:<28} {} IOPS ({})\n  {:<28} {model}{at}\n  {:<28} {}",
        head,
        crate::units::format_count(p.iops),
        p.range(),
        "",
        "",
        made_at(p)
    )
}
