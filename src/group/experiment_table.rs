//! The table printed at the end of a group experiment: one row per target, side by side. For
//! vertex2 the four states' IOPS with the fade and the recovery (both against fresh); for the
//! other experiments how far each got, its steady state and its last phase's IOPS. Every
//! figure is read from the member's experiment.json (the figures the summary `experiment`
//! prints).

use super::experiment::{status, GroupExperiment};
use super::table::render;
use crate::analysis::vertex2::Vertex2Figures;
use crate::analysis::ExperimentStates;
use crate::experiment::ExperimentRecord;
use crate::results::Status;
use crate::units::format_duration;

/// The table for the group's experiment (`vertex2`, `wsat`, `hir`, …).
pub fn table(group: &GroupExperiment) -> String {
    let vertex2 = group
        .members
        .iter()
        .filter_map(|m| m.result.as_ref().ok())
        .all(|o| o.record.name.has_states());
    if vertex2 {
        vertex2_table(group)
    } else {
        steady_table(group)
    }
}

fn figure(value: Option<f64>, format: impl Fn(f64) -> String) -> String {
    value.map_or("-".into(), format)
}

fn vertex2_table(group: &GroupExperiment) -> String {
    let mut rows = vec![[
        "Target", "Status", "In-svc", "Fresh", "Faded", "Recov.", "Fade", "Recovery",
    ]
    .map(String::from)];
    for m in &group.members {
        let mut row: [String; 8] = std::array::from_fn(|_| "-".to_string());
        row[0] = m.target.clone();
        row[1] = status(m).to_string();
        if let Ok(o) = &m.result {
            if let Ok(mut exp) = crate::results::load_experiment(&o.dir) {
                exp.record = o.record.clone();
                let v = Vertex2Figures::of(&exp, &ExperimentStates::of(&exp));
                for (i, (_, key)) in crate::analysis::vertex2::STATES.iter().enumerate() {
                    row[2 + i] = figure(
                        v.states.get(*key).map(|s| s.iops),
                        crate::units::format_count,
                    );
                }
                row[6] = figure(v.fade_pct, |x| format!("{x:.0} %"));
                row[7] = figure(v.recovery_pct, |x| format!("{x:.0} %"));
            }
        }
        rows.push(row);
    }
    let mut out =
        String::from("  IOPS of each state; fade = faded / fresh, recovery = recovered / fresh\n");
    out.push_str(&render(&rows, 2));
    out
}

/// The first steady state a phase reached: when (seconds into that phase) and its IOPS.
fn steady_of(record: &ExperimentRecord) -> Option<(f64, Option<f64>)> {
    record.phases.iter().find_map(|p| {
        let s = p.headline.as_ref()?.steady_state.as_ref()?;
        s.reached.then_some((s.at_s?, s.iops))
    })
}

fn steady_table(group: &GroupExperiment) -> String {
    let mut rows = vec![[
        "Target",
        "Status",
        "Phases",
        "Steady at",
        "Steady IOPS",
        "Last IOPS",
    ]
    .map(String::from)];
    for m in &group.members {
        let mut row: [String; 6] = std::array::from_fn(|_| "-".to_string());
        row[0] = m.target.clone();
        row[1] = status(m).to_string();
        if let Ok(o) = &m.result {
            let r = &o.record;
            let done = r
                .phases
                .iter()
                .filter(|p| p.status == Status::Completed)
                .count();
            row[2] = format!("{done}/{}", r.phases.len());
            match steady_of(r) {
                Some((at, iops)) => {
                    row[3] = format_duration(std::time::Duration::from_secs_f64(at));
                    row[4] = iops.map_or("-".into(), crate::units::format_count);
                }
                None => row[3] = "not reached".into(),
            }
            row[5] = r
                .phases
                .iter()
                .rev()
                .filter(|p| p.status == Status::Completed)
                .find_map(|p| p.headline.as_ref()?.iops)
                .map_or("-".into(), |x| format!("{x:.0}"));
        }
        rows.push(row);
    }
    render(&rows, 2)
}
