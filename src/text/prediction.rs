//! How a steady-state prediction is told in words: the soak summary's lines, and the phrase
//! for SNIA's predicted pass, which the report uses too.

use crate::results::{Basis, Prediction};
use crate::units::{format_duration, format_gb};

/// "should pass SNIA at 3h09m00s (489.0 GB written)", host data in GB as everywhere (it fits
/// the soak summary's column within 80 columns); None when the model predicts no pass.
pub fn snia_pass(p: &Prediction) -> Option<String> {
    let (t, b) = p.steady_at_s.zip(p.steady_at_bytes)?;
    Some(format!(
        "should pass SNIA at {} ({} written)",
        format_duration(std::time::Duration::from_secs_f64(t.max(0.0))),
        format_gb(b)
    ))
}

/// The model that made the prediction, by its name in run.json, and what it found: "model
/// greedy: WA 2.50 at α 1.28", or for a throttle (`rise` before the figure, `per` after its
/// unit) "model throttle: +47.7 µs per write per hour".
pub fn model(p: &Prediction, rise: &str, per: &str) -> String {
    let found = match p.rise_us_per_h {
        Some(r) => format!("{rise}{r:.1} µs per {per}"),
        None => format!("WA {:.2} at α {:.2}", p.write_amplification, p.span_alpha),
    };
    format!("model {}: {found}", p.model.name())
}

/// Lines in the soak summary's columns: "  Steady state predicted  36100 IOPS (34980–37290:
/// −3.1 % / +3.3 %)", then the model's write amplification, then when SNIA's test should pass.
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
        "  {:<28} {:.0} IOPS ({})\n  {:<28} {model}{at}",
        head,
        p.iops,
        p.range(),
        ""
    )
}
