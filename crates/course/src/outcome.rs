//! What a check found.

use gpu_host::LaunchError;
use serde::{Deserialize, Serialize};

/// The verdict of a check, from best to worst kind of news. It reads back from its JSON
/// form too, so that a check run in a child process (a GPU check, isolated because a
/// kernel fault poisons the whole process) can report to its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every assertion held.
    Pass,
    /// The output (bins, values) is wrong.
    WrongResult,
    /// The output may be right, but the counters show a different technique than the
    /// exercise asks for (e.g. "privatized, yet 524288 global atomics").
    WrongTechnique,
    /// A data race was found (racecheck, or lost updates in global memory).
    Race,
    /// A barrier or warp collective was not reached by every thread it needs (synccheck).
    BarrierError,
    /// An access outside a buffer (memcheck).
    OutOfBounds,
    /// A lane panicked (other than `todo!`).
    Panicked,
    /// The launch ran past its step budget or wall-clock watchdog.
    TimedOut,
    /// The stub's `todo!()` is still there.
    NotImplemented,
    /// The check itself could not run (an invalid launch, a device error).
    Error,
}

impl Status {
    /// Every status, in the order of the declaration.
    pub const ALL: [Status; 10] = [
        Status::Pass,
        Status::WrongResult,
        Status::WrongTechnique,
        Status::Race,
        Status::BarrierError,
        Status::OutOfBounds,
        Status::Panicked,
        Status::TimedOut,
        Status::NotImplemented,
        Status::Error,
    ];

    /// The status whose [`label`](Self::label) is `label` (`"race"`): how a tool that
    /// reads another's printed report (the course's journey test) gets the status back.
    pub fn from_label(label: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.label() == label)
    }

    /// A short label for tables and messages.
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::WrongResult => "wrong result",
            Status::WrongTechnique => "wrong technique",
            Status::Race => "race",
            Status::BarrierError => "barrier error",
            Status::OutOfBounds => "out of bounds",
            Status::Panicked => "panicked",
            Status::TimedOut => "timed out",
            Status::NotImplemented => "not implemented",
            Status::Error => "error",
        }
    }
}

/// The outcome of a check: a status, a one-line reason and details.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The exercise id (filled in by [`Exercise::run`](crate::Exercise::run)).
    pub exercise: &'static str,
    /// The verdict.
    pub status: Status,
    /// The first line of the reason: what went wrong, or what passed.
    pub reason: String,
    /// Further lines: expected vs got, the report, the seed to replay.
    pub details: Vec<String>,
}

impl Outcome {
    /// A pass, with what was checked.
    pub fn pass(reason: impl Into<String>) -> Self {
        Outcome {
            exercise: "",
            status: Status::Pass,
            reason: reason.into(),
            details: Vec::new(),
        }
    }

    /// A failure of the given status.
    pub fn fail(status: Status, reason: impl Into<String>) -> Self {
        Outcome {
            exercise: "",
            status,
            reason: reason.into(),
            details: Vec::new(),
        }
    }

    /// Adds a detail line.
    pub fn detail(mut self, line: impl Into<String>) -> Self {
        self.details.push(line.into());
        self
    }

    /// Did the check pass?
    pub fn passed(&self) -> bool {
        self.status == Status::Pass
    }

    /// Classifies a launch error: a `todo!` is "not implemented", a memcheck fault "out
    /// of bounds", and so on. The error's text becomes the reason.
    pub fn from_launch_error(e: &LaunchError) -> Self {
        let status = match e {
            LaunchError::LanePanic { message, .. } if is_todo(message) => Status::NotImplemented,
            LaunchError::LanePanic { .. } | LaunchError::LaneTrap { .. } => Status::Panicked,
            LaunchError::MemoryFault { .. } => Status::OutOfBounds,
            LaunchError::BarrierDivergence { .. }
            | LaunchError::WarpDivergence { .. }
            | LaunchError::Deadlock { .. } => Status::BarrierError,
            LaunchError::StepBudgetExceeded { .. }
            | LaunchError::TimedOut { .. }
            | LaunchError::FuelExhausted { .. } => Status::TimedOut,
            _ => Status::Error,
        };
        let text = e.to_string();
        let mut lines = text.lines();
        let mut out = Outcome::fail(status, lines.next().unwrap_or_default());
        for l in lines {
            out.details.push(l.trim().to_string());
        }
        out
    }

    /// Classifies a panic of host code (a stub of a host function): `todo!` is "not
    /// implemented".
    pub fn from_host_panic(message: &str) -> Self {
        if is_todo(message) {
            Outcome::fail(Status::NotImplemented, message.to_string())
        } else {
            Outcome::fail(Status::Panicked, format!("panicked: {message}"))
        }
    }
}

/// Is this panic message a `todo!()`/`unimplemented!()`?
fn is_todo(message: &str) -> bool {
    message.starts_with("not yet implemented") || message.starts_with("not implemented")
}

impl From<LaunchError> for Outcome {
    fn from(e: LaunchError) -> Self {
        Outcome::from_launch_error(&e)
    }
}
