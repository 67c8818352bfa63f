//! The write-saturation section of an experiment report (SNIA WSAT): the rounds table — IOPS
//! and the total host data written (TGBW, GB, and drive fills) by each round's end, every
//! n-th round and the last, as the terminal shows them. The figures are
//! [`crate::analysis::wsat`]'s.

use super::document::Document;
use super::run::secs;
use crate::analysis::wsat::WsatFigures;
use crate::results::Experiment;
use crate::text::steady::rounds_judged;

/// At most about this many rounds in the table (every n-th and the last).
const ROWS: usize = 16;

/// Adds the summary card: fresh IOPS (the first round), steady IOPS and where it settled
/// (round, time, TGBW and drive fills), steady ÷ fresh, and the last round.
pub fn add_summary(doc: &mut Document, f: &WsatFigures) {
    let Some(fresh) = f.fresh_iops() else { return };
    let mut rows = vec![vec![
        "Fresh IOPS (round 1)".into(),
        crate::units::format_count(fresh),
    ]];
    match f.steady_state.as_ref().filter(|s| s.reached) {
        Some(s) => {
            rows.push(vec![
                "Steady IOPS (SNIA window average)".into(),
                s.iops.map_or("-".into(), crate::units::format_count),
            ]);
            rows.push(vec![
                "Settled at".into(),
                format!(
                    "round {}, {}, TGBW {:.1} GB = {:.2} drive fills",
                    f.settled_round().map_or("-".into(), |r| r.to_string()),
                    s.at_s.map_or("-".into(), secs),
                    s.bytes_written.unwrap_or(0) as f64 / 1e9,
                    s.drive_fills.unwrap_or(0.0)
                ),
            ]);
            if let Some(pct) = f.steady_of_fresh_pct() {
                rows.push(vec!["Steady ÷ fresh".into(), format!("{pct:.0} %")]);
            }
        }
        None => rows.push(vec![
            "Steady IOPS".into(),
            format!(
                "not steady in {} judged rounds (of {})",
                f.steady_state.as_ref().map_or(0, |s| s.rounds),
                f.rounds.len()
            ),
        ]),
    }
    if let Some(last) = f.rounds.last() {
        rows.push(vec![
            format!("Last round ({})", f.rounds.len()),
            format!(
                "{} IOPS ({:.0} % of fresh) at TGBW {:.1} GB = {:.2} drive fills",
                crate::units::format_count(last.iops),
                100.0 * last.iops / fresh.max(f64::MIN_POSITIVE),
                last.tgbw_bytes as f64 / 1e9,
                last.drive_fills
            ),
        ]);
    }
    doc.heading("Summary");
    doc.table(&["Headline", ""], rows);
}

/// Adds the section to `doc` when `exp` is a WSAT experiment.
pub fn add(doc: &mut Document, exp: &Experiment) {
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
                crate::units::format_count(r.iops),
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
        "{}; {shown}.{}",
        rounds_judged(
            n,
            f.rounds[0].seconds,
            f.steady_state.as_ref().map(|s| s.rounds)
        ),
        f.partial_round
            .as_ref()
            .map_or_else(String::new, |p| format!(
                " A partial last round of {} ({} IOPS) is not counted as a round.",
                secs(p.seconds),
                crate::units::format_count(p.iops)
            ))
    ));
}
