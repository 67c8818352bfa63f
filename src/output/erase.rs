//! The terminal side of an erase: its notes on stderr as it starts, and a progress bar while it
//! runs (hidden when stderr is not a terminal).

use std::path::Path;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::console::visible;
use crate::observe::erase::{EraseObserver, Progress};
use crate::results::EraseRecord;

/// The notes on stderr as the erase starts, and a progress bar while it runs.
pub struct Terminal;

impl EraseObserver for Terminal {
    fn started(&mut self, _dir: &Path, record: &EraseRecord) {
        for n in &record.notes {
            crate::note!("ssdfade: {n}");
        }
    }

    fn progress(&mut self) -> Box<dyn Progress> {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] [{bar:30}] {percent}% {msg}",
            )
            .expect("progress template")
            .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(250));
        Box::new(bar)
    }
}

impl Progress for ProgressBar {
    fn set_length(&self, total: u64) {
        ProgressBar::set_length(self, total);
    }

    fn set_position(&self, done: u64) {
        ProgressBar::set_position(self, done);
    }

    fn set_message(&self, what: &str) {
        ProgressBar::set_message(self, visible(what).into_owned());
    }

    fn finish(&self) {
        self.finish_and_clear();
    }
}
