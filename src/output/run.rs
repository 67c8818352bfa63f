//! The terminal progress bar of a run: elapsed time, how far the stop rule is (time, bytes, or
//! whichever is nearer when both are set) with the time left, the last interval's IOPS and MB/s
//! and the bytes written. It fits the terminal's width, dropping the least useful fields first,
//! and is hidden when stderr is not a terminal.

use std::path::Path;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::console::visible;
use crate::drive::RunEnd;
use crate::observe::run::RunObserver;
use crate::results::RunInfo;
use crate::stats::Sample;
use crate::units::format_bytes;

/// A [`RunObserver`] drawing an indicatif bar on stderr.
#[derive(Default)]
pub struct ProgressBarObserver {
    bar: Option<ProgressBar>,
    duration_s: Option<f64>,
    bytes: Option<u64>,
    /// The latest steady-state prediction, as a field of the bar.
    predicted: Option<String>,
    /// One line among several (a group of targets), led by `label`.
    group: Option<(MultiProgress, String)>,
}

impl ProgressBarObserver {
    /// A bar that is one line of `multi`, led by `label` (the target).
    pub fn line_of(multi: &MultiProgress, label: &str) -> Self {
        ProgressBarObserver {
            group: Some((multi.clone(), label.to_string())),
            ..Default::default()
        }
    }

    fn message_width(&self) -> usize {
        let label = self
            .group
            .as_ref()
            .map_or(0, |(_, l)| l.chars().count() + 1);
        message_width().saturating_sub(label)
    }
}

/// Steps of the bar's position (per mille of the stop rule).
const STEPS: u64 = 1000;

impl RunObserver for ProgressBarObserver {
    fn started(&mut self, _dir: &Path, info: &RunInfo) {
        self.duration_s = info.workload.duration.map(|d| d.as_secs_f64());
        self.bytes = info.workload.bytes;
        let (bar, template) = match &self.group {
            Some((multi, label)) => {
                let bar = multi.add(ProgressBar::new(STEPS));
                bar.set_prefix(visible(label).into_owned());
                (bar, "{prefix} [{elapsed_precise}] {wide_bar} {msg}")
            }
            None => (
                ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::stderr()),
                "[{elapsed_precise}] {wide_bar} {msg}",
            ),
        };
        bar.set_style(
            ProgressStyle::with_template(template)
                .expect("progress template")
                .progress_chars("=> "),
        );
        bar.set_message(fit(&["starting".into()], self.message_width()));
        bar.enable_steady_tick(Duration::from_millis(250));
        self.bar = Some(bar);
    }

    fn sample(&mut self, sample: &Sample) {
        let Some(bar) = &self.bar else { return };
        let t = sample.t_end_s;
        let written = sample.bytes_written_total;
        // How far each stop rule is, as a fraction; the nearer one drives the bar.
        let by_time = self.duration_s.map(|d| (t / d).min(1.0));
        let by_bytes = self.bytes.map(|b| (written as f64 / b as f64).min(1.0));
        let done = by_time.into_iter().chain(by_bytes).fold(0.0, f64::max);
        bar.set_position((done * STEPS as f64) as u64);
        let left_s = if done > 0.0 {
            t * (1.0 - done) / done
        } else {
            0.0
        };
        let stop_field = match (by_time, by_bytes) {
            (_, Some(b)) if Some(b) >= by_time => format!(
                "{}/{} {} left",
                format_bytes(written),
                format_bytes(self.bytes.unwrap_or(0)),
                short(left_s)
            ),
            _ => format!("{} left", short(left_s)),
        };
        // In order of importance: the rightmost fields go first on a narrow terminal.
        let fields = [
            stop_field,
            format!("{} IOPS", crate::units::format_count(sample.iops)),
            self.predicted.clone().unwrap_or_default(),
            format!("{:.1} MB/s", sample.mb_per_s),
            format!("t {}", short(t)),
            format!("{} written", crate::units::format_gb(written)),
        ];
        bar.set_message(fit(&fields, self.message_width()));
    }

    fn predicted(&mut self, p: &crate::results::Prediction) {
        self.predicted = Some(format!(
            "{} ~{:.0} ({:.0}–{:.0})",
            p.basis.label(),
            p.iops,
            p.low,
            p.high
        ));
    }

    fn finished(&mut self, end: &RunEnd) {
        if let Some(bar) = self.bar.take() {
            match (&self.group, end) {
                // The other lines go on: this one stays, saying how it ended.
                (Some(_), RunEnd::Failed(why)) => {
                    bar.abandon_with_message(visible(&format!("failed: {why}")).into_owned())
                }
                (Some(_), RunEnd::Interrupted) => bar.abandon_with_message("interrupted"),
                (Some(_), RunEnd::Completed) => bar.finish_with_message("completed"),
                (None, _) => bar.finish_and_clear(),
            }
        }
    }
}

/// Columns left for the message beside `[hh:mm:ss]` and a bar of at least 10.
fn message_width() -> usize {
    let columns = console::Term::stderr()
        .size_checked()
        .map(|(_, w)| w as usize)
        .unwrap_or(80);
    columns.saturating_sub(11 + 10 + 2)
}

/// The leading fields that fit in `width` columns, joined by two spaces.
fn fit(fields: &[String], width: usize) -> String {
    let mut out = String::new();
    for field in fields {
        let extra = if out.is_empty() { 0 } else { 2 } + field.chars().count();
        if out.chars().count() + extra > width {
            break;
        }
        if !out.is_empty() {
            out.push_str("  ");
        }
        out.push_str(field);
    }
    out
}

/// A duration without fractions: `7h59m`, `12m05s`, `9s`.
fn short(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_dropped_from_the_right_to_fit() {
        let fields = [
            "4300 IOPS".to_string(),
            "7h59m left".into(),
            "17.6 MB/s".into(),
        ];
        assert_eq!(fit(&fields, 80), "4300 IOPS  7h59m left  17.6 MB/s");
        assert_eq!(fit(&fields, 25), "4300 IOPS  7h59m left");
        assert_eq!(fit(&fields, 5), "");
    }

    #[test]
    fn short_durations_read_as_people_write_them() {
        assert_eq!(short(28_740.0), "7h59m");
        assert_eq!(short(725.0), "12m05s");
        assert_eq!(short(9.4), "9s");
    }
}
