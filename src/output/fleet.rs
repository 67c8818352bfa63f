//! `fleet --csv`: one row per drive with its figures (and its slog verdict when a slog run), then per group its median, p10 and p90
//! rows, from [`crate::analysis::fleet::Fleet`], values rounded as the report rounds them
//! and written in the column's unit (µs for latencies, see [`Metric::csv`]); then a `host`
//! row per missing or failed host and an `incomplete` row per run not counted, each with the
//! report's sentence in `note`.

use crate::analysis::fleet::{Fleet, Metric};

/// The columns before the figures.
const HEAD: [&str; 6] = ["row", "model", "firmware", "serial", "host", "dir"];

/// The fleet as CSV text.
pub fn csv(fleet: &Fleet) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head: Vec<&str> = HEAD.to_vec();
    head.extend(Metric::ALL.iter().map(|m| m.key()));
    head.push("outlier_of");
    head.push("slog");
    head.push("note");
    w.write_record(&head)?;
    for g in &fleet.groups {
        for (i, d) in g.drives.iter().enumerate() {
            let mut row = vec![
                "drive".to_string(),
                g.model.clone(),
                g.firmware.clone(),
                d.serial.clone(),
                d.host.clone(),
                d.dir.display().to_string(),
            ];
            row.extend(
                Metric::ALL
                    .iter()
                    .map(|m| d.figures.get(m).map_or(String::new(), |v| m.csv(*v))),
            );
            let of: Vec<&str> = g
                .spreads
                .iter()
                .filter(|s| s.outliers.contains(&i))
                .map(|s| s.metric.key())
                .collect();
            row.push(of.join(";"));
            row.push(
                d.slog
                    .as_ref()
                    .map_or(String::new(), |o| o.rating.word().to_string()),
            );
            row.push(String::new());
            w.write_record(&row)?;
        }
        for (name, pick) in [
            (
                "median",
                (|s| s.median) as fn(&crate::analysis::fleet::Spread) -> f64,
            ),
            ("p10", |s| s.p10),
            ("p90", |s| s.p90),
        ] {
            let mut row = vec![name.to_string(), g.model.clone(), g.firmware.clone()];
            row.extend([String::new(), String::new(), String::new()]);
            row.extend(Metric::ALL.iter().map(|m| {
                g.spreads
                    .iter()
                    .find(|s| s.metric == *m)
                    .map_or(String::new(), |s| m.csv(pick(s)))
            }));
            row.extend([String::new(), String::new(), String::new()]);
            w.write_record(&row)?;
        }
    }
    let blank = Metric::ALL.len() + 2;
    for h in &fleet.hosts {
        if let Some(note) = &h.note {
            let mut row = vec!["host", "", "", "", h.host.as_str(), ""];
            row.extend(std::iter::repeat_n("", blank));
            row.push(note);
            w.write_record(&row)?;
        }
    }
    for i in &fleet.incomplete {
        let path = i.path.display().to_string();
        let mut row = vec!["incomplete", "", "", "", i.host.as_str(), path.as_str()];
        row.extend(std::iter::repeat_n("", blank));
        row.push(&i.why);
        w.write_record(&row)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}
