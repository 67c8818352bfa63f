//! SNIA's Host Idle Recovery chart (HIR): "IOPS vs Time — All Wait States", one point per
//! round, coloured by the wait state it followed, time in minutes.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::panel::{Line, Panel};
use super::style;
use super::Chart;

/// One HIR round: when it ended, its IOPS, and the wait state it belongs to (e.g. "5 s wait").
#[derive(Clone, Debug, PartialEq)]
pub struct HirPoint {
    pub t_s: f64,
    pub iops: f64,
    pub wait_state: String,
}

/// Everything the HIR chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HirChart {
    pub title: String,
    pub subtitle: String,
    pub points: Vec<HirPoint>,
}

impl Chart for HirChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let end = self.points.last().map_or(1.0, |p| p.t_s / 60.0);
        let mut panel = Panel::new("Time (min)", "IOPS", 0.0..end);
        // One series per wait state, in the order they first appear.
        let mut states: Vec<&str> = Vec::new();
        for p in &self.points {
            if !states.contains(&p.wait_state.as_str()) {
                states.push(&p.wait_state);
            }
        }
        for (i, state) in states.iter().enumerate() {
            panel.lines.push(Line {
                label: Some((*state).to_string()),
                points: self
                    .points
                    .iter()
                    .filter(|p| p.wait_state == *state)
                    .map(|p| (p.t_s / 60.0, p.iops))
                    .collect(),
                color: style::palette(i),
                width: 0,
                dots: true,
            });
        }
        panel.draw(&body)
    }
}
