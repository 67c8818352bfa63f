//! Every steady-state prediction a soak made, replayed round by round from its run directory
//! (the code the run uses), against the IOPS the soak settled at (the mean over its last
//! span-write). Prints one markdown row (with the drive writes from which every prediction is
//! within 10 %), and on stderr every prediction whose interval missed;
//! `scripts/predict-replay-validate.sh` runs it over its soaks. The directory's name is
//! `DRIVE~SPAN%~BS`.
//!
//! usage: predict_replay DIR

use std::path::PathBuf;

use ssdfade::analysis::predict::{replay, Setting};
use ssdfade::results::{read_info, read_samples};
use ssdfade::stats::steady::Criteria;

/// Drive writes at which the prediction is judged against the 10 %.
const AT_DW: f64 = 1.5;
/// The band around the settled IOPS, percent.
const BAND_PCT: f64 = 10.0;

fn main() -> anyhow::Result<()> {
    let dir = PathBuf::from(std::env::args().nth(1).expect("usage: predict_replay DIR"));
    let info = read_info(&dir)?;
    let samples = read_samples(&dir)?;
    let name = dir.file_name().unwrap_or_default().to_string_lossy();
    let name: Vec<&str> = name.split('~').collect();
    let cap = info.target.identity.size_bytes as f64;
    let span = info.workload.span;
    let total = samples.last().map_or(0, |s| s.bytes_written_total);
    let last: Vec<_> = samples
        .iter()
        .filter(|s| s.bytes_written_total > total.saturating_sub(span))
        .collect();
    let settled = last.iter().map(|s| s.ops).sum::<u64>() as f64
        / last.iter().map(|s| s.t_end_s - s.t_start_s).sum::<f64>();
    let Some(setting) = Setting::of(&info, Criteria::default()) else {
        // Not uniform random writes (a skewed distribution): the model makes no prediction.
        println!(
            "| {} | {} % | {} | {settled:.0} | none (not uniform random writes) | – | – | – | – | – |",
            name.first().unwrap_or(&"?"),
            name.get(1).unwrap_or(&"?"),
            name.get(2).unwrap_or(&"?"),
        );
        return Ok(());
    };
    let all = replay(&samples, &setting);
    let dw = |b: u64| b as f64 / cap;
    let err = |iops: f64| (iops / settled - 1.0) * 100.0;
    let outside: Vec<_> = all
        .iter()
        .filter(|p| !(p.low..=p.high).contains(&settled))
        .collect();
    for p in &outside {
        eprintln!(
            "{}: made at {:.2} drive writes: {:.0} in [{:.0}, {:.0}], settled at {settled:.0}",
            dir.display(),
            dw(p.made_at_bytes),
            p.iops,
            p.low,
            p.high
        );
    }
    let outside = outside.len();
    let first = all.first().map_or("none".into(), |p| {
        format!("{:.1} h ({:.2})", p.made_at_s / 3600.0, dw(p.made_at_bytes))
    });
    let at = all.iter().rev().find(|p| dw(p.made_at_bytes) <= AT_DW);
    let (at_cell, at_err) = at.map_or(("none yet".into(), "–".into()), |p| {
        (
            format!("{:.0} ± {:.1} %", p.iops, p.half_width_pct),
            format!("{:+.1} %", err(p.iops)),
        )
    });
    // From which drive writes on every prediction is within 10 % (the band).
    let in_band = all
        .iter()
        .rposition(|p| err(p.iops).abs() > BAND_PCT)
        .map_or(all.first(), |i| all.get(i + 1))
        .map_or("never".into(), |p| format!("{:.2}", dw(p.made_at_bytes)));
    let worst = all
        .iter()
        .filter(|p| dw(p.made_at_bytes) > AT_DW)
        .map(|p| err(p.iops).abs())
        .fold(None, |w: Option<f64>, e| Some(w.map_or(e, |w| w.max(e))));
    println!(
        "| {} | {} % | {} | {settled:.0} | {first} | {at_cell} | {at_err} | {in_band} | {} | {outside} of {} |",
        name.first().unwrap_or(&"?"),
        name.get(1).unwrap_or(&"?"),
        name.get(2).unwrap_or(&"?"),
        worst.map_or("–".into(), |w| format!("{w:.1} %")),
        all.len()
    );
    Ok(())
}
