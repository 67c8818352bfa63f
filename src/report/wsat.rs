//! The write-saturation section of an experiment report (SNIA WSAT): the rounds table — IOPS
//! and the total host data written (TGBW, GB, and drive fills) by each round's end, every
//! n-th round and the last, as the terminal shows them. The figures are
//! [`crate::analysis::wsat`]'s.

use super::document::Document;
use super::run::secs;
use crate::analysis::wsat::WsatFigures;
use crate::results::{Experiment, ExperimentKind};

/// At most about this many rounds in the table (every n-th and the last).
const ROWS: usize = 16;

/// Adds the section to `doc` when `exp` is a WSAT experiment.
pub fn add(doc: &mut Document, exp: &Experiment) {
    if exp.name != ExperimentKind::Wsat {
        return;
    }
    let f = WsatFigures::of(exp);
    if f.rounds.is_empty() {
        return;
    }
    doc.heading("Rounds (SNIA WSAT)");
    let n = f.rounds.len();
    let step = n.div_ceil(ROWS).max(1);
    let rows = f
        .rounds
        .iter()
        .enumerate()
        .filter(|(i, _)| i % step == 0 || i + 1 == n)
        .map(|(i, r)| {
            vec![
                (i + 1).to_string(),
                secs(r.t_end_s),
                format!("{:.0}", r.iops),
                format!("{:.1}", r.tgbw_bytes as f64 / 1e9),
                format!("{:.2}", r.drive_fills),
            ]
        })
        .collect();
    doc.table(&["Round", "Time", "IOPS", "TGBW GB", "Drive fills"], rows);
    let shown = if step == 1 {
        "all shown".to_string()
    } else {
        format!("one round in {step} shown, and the last")
    };
    doc.paragraph(format!(
        "{n} rounds of {}; {shown}.{}",
        secs(f.rounds[0].seconds),
        f.partial_round
            .as_ref()
            .map_or_else(String::new, |p| format!(
                " A partial last round of {} ({:.0} IOPS) is not counted as a round.",
                secs(p.seconds),
                p.iops
            ))
    ));
}
