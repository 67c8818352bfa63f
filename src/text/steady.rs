//! How steady state is told in words: the soak's and a phase's summary line, and the phrase
//! for a run that did not reach it, which the report uses too.

use crate::stats::steady::SteadyState;
use crate::units::{format_duration, format_gb};

/// One line: when and where the run reached steady state, or how close its last window came.
pub fn steady_line(s: &SteadyState) -> String {
    let label = "Steady state (SNIA PTS)";
    let at = |t: f64| format_duration(std::time::Duration::from_secs_f64(t.max(0.0)));
    let text = match (&s.window, s.reached) {
        (Some(w), true) => format!(
            "at {}: {} IOPS\n  {:<28} after {}{}\n  {:<28} range {:.1} %, slope {:.1} % of the window average{}",
            at(s.at_s.unwrap_or(w.end_s)),
            crate::units::format_count(w.avg),
            "",
            format_gb(s.bytes_written.unwrap_or(0)),
            match (s.drive_fills, s.flash_fills) {
                (Some(d), Some(f)) => format!(" ({d:.2} fills, {f:.2} of the flash)"),
                (Some(d), None) => format!(" ({d:.2} fills)"),
                _ => String::new(),
            },
            "",
            w.range_pct,
            w.slope_pct,
            match (s.drift_pct(), s.last_window) {
                (Some(drift), Some(last)) => format!(
                    "\n  {:<28} did not hold: the last window {} IOPS ({drift:+.0} %)",
                    "",
                    crate::units::format_count(last.avg)
                ),
                _ => String::new(),
            }
        ),
        (Some(w), false) => format!(
            "{}; last window\n  {:<28} {}–{}: {} IOPS\n  {:<28} range {:.1} %, slope {:.1} %",
            not_reached(s.rounds),
            "",
            at(w.start_s),
            at(w.end_s),
            crate::units::format_count(w.avg),
            "",
            w.range_pct,
            w.slope_pct
        ),
        (None, _) => not_reached(s.rounds),
    };
    format!("  {label:<28} {text}\n")
}

/// Two counts of rounds in words that say what each counts: every full round of the phase
/// (`total`, each `round_s` long) and the rounds steady state was judged on (run.json's
/// `steady_state.rounds`), which count only once the drive has been written through.
pub fn rounds_judged(total: usize, round_s: f64, judged: Option<usize>) -> String {
    let rounds = format!(
        "{total} rounds of {}",
        format_duration(std::time::Duration::from_secs_f64(round_s.max(0.0)))
    );
    match judged {
        Some(j) if j >= total => format!("{rounds}, all judged for steady state"),
        Some(j) => format!(
            "{rounds}; steady state judged on rounds {}–{total} ({j}: rounds count once the drive has been written through)",
            total - j + 1
        ),
        None => rounds,
    }
}

/// "not reached in 12 rounds", "not reached: 3 rounds, a window needs 5", or, when no round
/// counted yet (rounds count once the span, and the drive's flash where known, has been
/// written through), "not reached: no round counted yet". Short enough for the soak summary's
/// column within 80 columns.
pub fn not_reached(rounds: usize) -> String {
    match rounds {
        0 => "not reached: no round counted yet".into(),
        1..=4 => format!("not reached: {rounds} rounds, a window needs 5"),
        _ => format!("not reached in {rounds} rounds"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_with_no_counted_round_says_why_not_zero_rounds() {
        assert!(!not_reached(0).contains("0 rounds"), "{}", not_reached(0));
        assert_eq!(not_reached(3), "not reached: 3 rounds, a window needs 5");
        assert_eq!(not_reached(12), "not reached in 12 rounds");
    }
}
