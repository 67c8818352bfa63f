//! How steady state is told to the user: one line after the fade line of a soak or a phase.

use crate::stats::steady::SteadyState;
use crate::units::{format_duration, format_gb};

/// One line: when and where the run reached steady state, or how close its last window came.
pub fn steady_line(s: &SteadyState) -> String {
    let label = "Steady state (SNIA PTS)";
    let at = |t: f64| format_duration(std::time::Duration::from_secs_f64(t.max(0.0)));
    let text = match (&s.window, s.reached) {
        (Some(w), true) => format!(
            "at {}: {:.0} IOPS\n  {:<28} after {}{}\n  {:<28} range {:.1} %, slope {:.1} % of the window average{}",
            at(s.at_s.unwrap_or(w.end_s)),
            w.avg,
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
                    "\n  {:<28} did not hold: the last window {:.0} IOPS ({drift:+.0} %)",
                    "", last.avg
                ),
                _ => String::new(),
            }
        ),
        (Some(w), false) => format!(
            "not reached in {} rounds; last window\n  {:<28} {}–{}: {:.0} IOPS, range {:.1} %, slope {:.1} %",
            s.rounds,
            "",
            at(w.start_s),
            at(w.end_s),
            w.avg,
            w.range_pct,
            w.slope_pct
        ),
        (None, _) => format!("not reached: {} rounds, a window needs 5", s.rounds),
    };
    format!("  {label:<28} {text}\n")
}
