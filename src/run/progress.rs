//! The terminal progress bar of a long run (soak): elapsed, time left, the last interval's IOPS
//! and MB/s, and the bytes written so far.

use std::path::Path;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::RunObserver;
use crate::engine::RunEnd;
use crate::results::RunInfo;
use crate::stats::Sample;
use crate::units::{format_bytes, format_duration};

/// A [`RunObserver`] drawing an indicatif bar on stderr (hidden when stderr is no terminal).
#[derive(Default)]
pub struct ProgressBarObserver {
    bar: Option<ProgressBar>,
    planned: Option<f64>,
}

impl RunObserver for ProgressBarObserver {
    fn started(&mut self, _dir: &Path, info: &RunInfo) {
        self.planned = info.workload.duration.map(|d| d.as_secs_f64());
        let bar = ProgressBar::new(self.planned.map_or(100, |p| p.ceil() as u64));
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] [{bar:30}] {msg}")
                .expect("progress template")
                .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(250));
        self.bar = Some(bar);
    }

    fn sample(&mut self, sample: &Sample) {
        let Some(bar) = &self.bar else { return };
        let t_end_s = sample.t_end_s;
        bar.set_position(t_end_s as u64);
        let remaining = self
            .planned
            .map(|p| {
                format!(
                    " left {}",
                    format_duration(Duration::from_secs_f64((p - t_end_s).max(0.0)))
                )
            })
            .unwrap_or_default();
        bar.set_message(format!(
            "t {}{remaining}  {:.0} IOPS  {:.2} MB/s  written {}",
            format_duration(Duration::from_secs_f64(t_end_s)),
            sample.iops,
            sample.mb_per_s,
            format_bytes(sample.bytes_written_total)
        ));
    }

    fn finished(&mut self, _end: &RunEnd) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
