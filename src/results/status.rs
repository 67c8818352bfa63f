//! How a record stands: the `status` of run.json, experiment.json (and each of its phases),
//! group.json and the `outcome` of erase.json, written as the lowercase words older versions
//! wrote (`running`, `completed`…), and the one mapping from how a run ended to a status.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::record::{liveness, Liveness, ProcessStamp};
use crate::drive::RunEnd;

/// Where a run, phase, erase, experiment or group stands.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A phase not started yet.
    #[default]
    Pending,
    /// Going on, or its process died before it could say otherwise (see [`Status::shown`]).
    Running,
    Completed,
    /// Ctrl-C or SIGTERM: the results so far are kept and it can be resumed.
    Interrupted,
    Failed,
}

impl Status {
    /// The word written on disk.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Running => "running",
            Status::Completed => "completed",
            Status::Interrupted => "interrupted",
            Status::Failed => "failed",
        }
    }

    /// The status of a run (or phase, erase, member) that ended so: the one place a
    /// [`RunEnd`] becomes a status.
    pub fn of_end(end: &RunEnd) -> Status {
        match end {
            RunEnd::Completed => Status::Completed,
            RunEnd::Interrupted => Status::Interrupted,
            RunEnd::Failed(_) => Status::Failed,
        }
    }

    /// Several that ran together: failed when any failed, else interrupted when any was,
    /// else completed.
    pub fn of_group(statuses: impl IntoIterator<Item = Status>) -> Status {
        let statuses: Vec<Status> = statuses.into_iter().collect();
        if statuses.contains(&Status::Failed) {
            Status::Failed
        } else if statuses.contains(&Status::Interrupted) {
            Status::Interrupted
        } else {
            Status::Completed
        }
    }

    /// The status as a reader should show it, with why when it is judged: a record still
    /// `running` whose process is gone is `crashed`; one written on another host is
    /// `running?`.
    pub fn shown(self, process: Option<&ProcessStamp>) -> (String, Option<String>) {
        if self != Status::Running {
            return (self.as_str().into(), None);
        }
        match liveness(process) {
            Liveness::Running => (self.as_str().into(), None),
            Liveness::Crashed(why) => ("crashed".into(), Some(why)),
            Liveness::Unknown(why) => ("running?".into(), Some(why)),
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_written_as_the_lowercase_words_older_versions_wrote() {
        for (status, word) in [
            (Status::Pending, "pending"),
            (Status::Running, "running"),
            (Status::Completed, "completed"),
            (Status::Interrupted, "interrupted"),
            (Status::Failed, "failed"),
        ] {
            assert_eq!(serde_json::to_value(status).unwrap(), word);
            assert_eq!(
                serde_json::from_value::<Status>(word.into()).unwrap(),
                status
            );
            assert_eq!(status.to_string(), word);
        }
    }

    #[test]
    fn a_group_is_failed_over_interrupted_over_completed() {
        use Status::*;
        assert_eq!(Status::of_group([Completed, Interrupted, Failed]), Failed);
        assert_eq!(Status::of_group([Interrupted, Completed]), Interrupted);
        assert_eq!(Status::of_group([Completed, Completed]), Completed);
        assert_eq!(Status::of_group([]), Completed);
    }

    #[test]
    fn each_way_a_run_ends_has_its_status() {
        assert_eq!(Status::of_end(&RunEnd::Completed), Status::Completed);
        assert_eq!(Status::of_end(&RunEnd::Interrupted), Status::Interrupted);
        assert_eq!(
            Status::of_end(&RunEnd::Failed("eio".into())),
            Status::Failed
        );
    }
}
