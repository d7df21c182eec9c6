//! What a check found.

use gpu_host::LaunchError;
use serde::{Deserialize, Serialize};

/// The longest reason or detail line an outcome keeps, in bytes. A panic message from the
/// sandbox is already cut at 4 KiB; a compiler's error line is as long as the code that
/// caused it, and every report format copies it.
const LINE_LIMIT: usize = 8192;

/// The most detail lines an outcome keeps (a build's errors, a multi-line message): the
/// first and the last half of them.
const DETAIL_LIMIT: usize = 100;

/// `line` cut at [`LINE_LIMIT`] bytes (on a character boundary), saying how much was cut.
fn clip(line: String) -> String {
    if line.len() <= LINE_LIMIT {
        return line;
    }
    let mut cut = LINE_LIMIT;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} … ({} more bytes)", &line[..cut], line.len() - cut)
}

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
    /// Threads spin forever: they keep repeating an operation (a load, a failed CAS)
    /// that sees no change, and nothing still running will make one (a retry loop that
    /// cannot succeed, a wait for a block that runs later). A livelock, not a barrier.
    Livelock,
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
    pub const ALL: [Status; 11] = [
        Status::Pass,
        Status::WrongResult,
        Status::WrongTechnique,
        Status::Race,
        Status::BarrierError,
        Status::Livelock,
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

    /// The status's key in every JSON report and in `exercises.toml` (`wrong_result`):
    /// its [`label`](Self::label) with underscores.
    pub fn key(self) -> String {
        self.label().replace(' ', "_")
    }

    /// A short label for tables and messages.
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::WrongResult => "wrong result",
            Status::WrongTechnique => "wrong technique",
            Status::Race => "race",
            Status::BarrierError => "barrier error",
            Status::Livelock => "livelock",
            Status::OutOfBounds => "out of bounds",
            Status::Panicked => "panicked",
            Status::TimedOut => "timed out",
            Status::NotImplemented => "not implemented",
            Status::Error => "error",
        }
    }
}

/// The outcome of a check: a status, a one-line reason and details.
///
/// The course's one result type, from the check to every report: the test harness's
/// failure message, the GPU check's child process (which writes it as JSON for its
/// parent), the grader's child process (one JSON line), the grader's report lines (which
/// carry it, flattened, beside the score) and, through that report, the runner. Its JSON
/// form is `{"status": "wrong_result", "reason": "...", "details": ["..."]}`: the status
/// key is serde's snake_case of the variant, the same key in every report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The exercise id (filled in by [`Exercise::run`](crate::Exercise::run)). Not part
    /// of the JSON form: every report that carries an outcome names its exercise itself.
    #[serde(skip)]
    pub exercise: &'static str,
    /// The verdict.
    pub status: Status,
    /// The first line of the reason: what went wrong, or what passed.
    pub reason: String,
    /// Further lines: expected vs got, the report, the seed to replay.
    pub details: Vec<String>,
    /// The kind of failure within the status, when the check names one
    /// ([`Failure::name`]: `warps_per_block`, `uninitialised_shared`): the hint a
    /// failure shows is chosen by it. Absent from the JSON when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// What the check's kernels and host functions printed (`gpu::println!`), each line
    /// labelled with its launch, block and thread (`simt::kernel_output`): for the
    /// student's eyes, never read by a check. Absent from the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kernel_output: Vec<String>,
}

/// A kind of failure: a [`Status`], narrowed by a name where one status covers failures
/// that call for different hints (5.4's wrong prediction of warps per block and its wrong
/// output are both wrong results). Hints are chosen by it
/// ([`Exercise::hints_for`](crate::Exercise::hints_for)); a chapter's records declare
/// the named kinds each exercise's check produces, and the chapter's checks name them
/// through constants generated from those records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Failure {
    /// The status the failure has.
    pub status: Status,
    /// The narrower kind, or `None` for the status as a whole.
    pub name: Option<&'static str>,
}

impl Failure {
    /// The status as a whole.
    pub const fn status(status: Status) -> Failure {
        Failure { status, name: None }
    }

    /// A named kind of `status`.
    pub const fn named(status: Status, name: &'static str) -> Failure {
        Failure {
            status,
            name: Some(name),
        }
    }

    /// `wrong_result/warps_per_block`, or the status's JSON key alone: how the course's
    /// listing of failures and hints names it.
    pub fn key(&self) -> String {
        let status = self.status.key();
        match self.name {
            Some(name) => format!("{status}/{name}"),
            None => status,
        }
    }
}

impl PartialOrd for Status {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Status {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (*self as u8).cmp(&(*other as u8))
    }
}

impl Outcome {
    /// A pass, with what was checked.
    pub fn pass(reason: impl Into<String>) -> Self {
        Outcome {
            exercise: "",
            status: Status::Pass,
            reason: reason.into(),
            details: Vec::new(),
            kind: None,
            kernel_output: Vec::new(),
        }
    }

    /// A failure of the given status.
    pub fn fail(status: Status, reason: impl Into<String>) -> Self {
        Outcome {
            exercise: "",
            status,
            reason: reason.into(),
            details: Vec::new(),
            kind: None,
            kernel_output: Vec::new(),
        }
    }

    /// A failure of kind `failure` (its status, and its name if it has one).
    pub fn failed(failure: Failure, reason: impl Into<String>) -> Self {
        Outcome::fail(failure.status, reason).of_kind(failure)
    }

    /// This outcome as a failure of kind `failure`: its status and name.
    pub fn of_kind(mut self, failure: Failure) -> Self {
        self.status = failure.status;
        self.kind = failure.name.map(str::to_string);
        self
    }

    /// The kind of failure this outcome is (its status, and its kind's name if it has
    /// one that `known` lists, as the exercise's records declare them).
    pub fn failure(&self, known: &[Failure]) -> Failure {
        let named = self.kind.as_deref().and_then(|k| {
            known
                .iter()
                .find(|f| f.status == self.status && f.name == Some(k))
        });
        named.copied().unwrap_or(Failure::status(self.status))
    }

    /// Adds a detail line.
    pub fn detail(mut self, line: impl Into<String>) -> Self {
        self.details.push(line.into());
        self
    }

    /// This outcome with a one-line reason: a reason of several lines keeps its first
    /// line, and the others (trimmed) go before the details. Every report shows the reason
    /// on one line (`9.4 (...): race - <reason>`), the details below it. Control
    /// characters in the reason and details (a kernel's panic message, a compiler's
    /// output) are escaped ([`gpu_host::printable`]): no report can rewrite a terminal's
    /// lines or hold invalid XML. And no line is longer than 8 KiB, nor are there more
    /// than 100 details (the first and last): a student's code decides how long its
    /// compiler errors and panic messages are.
    pub fn one_line_reason(mut self) -> Self {
        self.reason = gpu_host::printable(&self.reason.replace("\r\n", "\n"));
        for d in &mut self.details {
            *d = gpu_host::printable(d).replace('\n', " ");
        }
        if self.reason.contains('\n') {
            let text = std::mem::take(&mut self.reason);
            let mut lines = text.lines();
            self.reason = lines.next().unwrap_or_default().trim_end().to_string();
            // Each line keeps its indentation: rustc's carets line up under the code.
            let rest: Vec<String> = lines.map(|l| l.trim_end().to_string()).collect();
            self.details.splice(0..0, rest);
        }
        self.reason = clip(std::mem::take(&mut self.reason));
        if self.details.len() > DETAIL_LIMIT {
            // The first and the last lines: a message's end says where it was cut, and
            // the check's own lines (the input, how to replay it) come after it.
            let cut = self.details.len() - DETAIL_LIMIT;
            let head = DETAIL_LIMIT / 2;
            self.details
                .splice(head..head + cut, [format!("… {cut} more lines …")]);
        }
        for d in &mut self.details {
            *d = clip(std::mem::take(d));
        }
        for line in &mut self.kernel_output {
            *line = clip(gpu_host::printable(line).replace('\n', " "));
        }
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
            LaunchError::Deadlock { waits, .. } if waits.iter().any(|w| w.spinning) => {
                Status::Livelock
            }
            LaunchError::BarrierDivergence { .. }
            | LaunchError::WarpDivergence { .. }
            | LaunchError::Deadlock { .. } => Status::BarrierError,
            LaunchError::StepBudgetExceeded { .. }
            | LaunchError::FuelExhausted { .. }
            | LaunchError::WorkBudgetExceeded { .. } => Status::TimedOut,
            // A wall clock is the grading machine's, not a verdict on the kernel.
            LaunchError::TimedOut { .. } => return Outcome::machine_too_slow(&e.to_string()),
            _ => Status::Error,
        };
        let text = e.to_string();
        let mut lines = text.lines();
        let mut out = Outcome::fail(status, lines.next().unwrap_or_default());
        match e {
            LaunchError::Build { .. } => out = out.of_kind(crate::hints::BUILD),
            // memcheck's access is "__global__ read of size 4", "__shared__ write of size 4"
            // or "atomicAdd on __global__": a write or an atomic past the end is an index
            // past the output (its bins), not a read past the input.
            LaunchError::MemoryFault {
                kind: "out of bounds",
                access,
                index,
                len,
                ..
            } if !access.contains(" read ") && index >= len => {
                out = out.of_kind(crate::hints::OUT_OF_BOUNDS_WRITE)
            }
            LaunchError::FuelExhausted { at: Some(at), .. }
            | LaunchError::WorkBudgetExceeded { at: Some(at), .. }
                if !at.device_calls =>
            {
                out = out.of_kind(if at.endless() {
                    crate::hints::ENDLESS_LOOP
                } else {
                    crate::hints::LONG_LOOP
                })
            }
            LaunchError::Deadlock { waits, .. }
                if waits
                    .iter()
                    .any(|w| w.spinning && w.what.contains("__shared__")) =>
            {
                out = out.of_kind(crate::hints::SHARED_SPIN)
            }
            _ => {}
        }
        for l in lines {
            out.details.push(l.trim().to_string());
        }
        out
    }

    /// The outcome of a check stopped by a wall clock (a launch's watchdog, the exercise's
    /// time limit) before any counted limit fired: not graded, since how far a kernel gets
    /// in a given time depends on the machine and its load, and every way a kernel spends
    /// time has a count that fires first on any machine ([`crate::Limits`]). `what` says
    /// which clock; the exercise is to be graded again, on a machine less loaded.
    pub fn machine_too_slow(what: &str) -> Self {
        Outcome::fail(
            Status::Error,
            "not graded: the grading machine's wall clock stopped this check before any of its \
             counted limits did (the machine was too slow or too loaded): a fault of the grading \
             machine, not a verdict on the kernel; grade it again",
        )
        .of_kind(crate::hints::WALL_CLOCK)
        .detail(what.lines().next().unwrap_or_default().trim().to_string())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multi_line_reason_keeps_its_first_line_and_its_lines_their_indentation() {
        // rustc's carets line up under the code only while each line keeps its spaces.
        let out = Outcome::fail(Status::BarrierError, "synccheck: first\n    a\n b  \n  ^^^")
            .detail("input: x")
            .one_line_reason();
        assert_eq!(out.reason, "synccheck: first");
        assert_eq!(out.details, vec!["    a", " b", "  ^^^", "input: x"]);
        let single = Outcome::fail(Status::Race, "r").detail("d");
        assert_eq!(single.clone().one_line_reason(), single);
    }

    #[test]
    fn long_lines_and_many_details_are_cut_and_say_so() {
        // A 300 000-byte line of two-byte characters, and twice the details kept.
        let long = "é".repeat(150_000);
        let mut out = Outcome::fail(Status::Error, format!("error: {long}\nnext"));
        for i in 0..2 * DETAIL_LIMIT {
            out = out.detail(format!("line {i}"));
        }
        let out = out.one_line_reason();
        assert!(out.reason.len() <= LINE_LIMIT + 40, "{}", out.reason.len());
        assert!(out.reason.starts_with("error: éé"));
        assert!(out.reason.ends_with("more bytes)"), "the cut says so");
        // The first and the last details stay, the middle is one line that says so.
        assert_eq!(out.details.len(), DETAIL_LIMIT + 1);
        assert_eq!(out.details[0], "next");
        assert_eq!(
            out.details[DETAIL_LIMIT / 2],
            format!("… {} more lines …", DETAIL_LIMIT + 1)
        );
        assert_eq!(
            out.details[DETAIL_LIMIT],
            format!("line {}", 2 * DETAIL_LIMIT - 1)
        );
        // A short outcome is untouched.
        let short = Outcome::fail(Status::Race, "r").detail("d");
        assert_eq!(short.clone().one_line_reason(), short);
    }

    #[test]
    fn the_json_form_round_trips_with_one_key_per_status() {
        let mut keys = Vec::new();
        for status in Status::ALL {
            let out = Outcome::fail(status, "why").detail("a").detail("b");
            let json = serde_json::to_string(&out).unwrap();
            let back: Outcome = serde_json::from_str(&json).unwrap();
            assert_eq!(back, out, "{json}");
            let key = serde_json::to_value(status).unwrap();
            let key = key.as_str().unwrap().to_string();
            // The key is the label with underscores: one vocabulary, two spellings.
            assert_eq!(key.replace('_', " "), status.label());
            keys.push(key);
        }
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), Status::ALL.len());
        // The exercise is not part of the JSON form.
        let mut named = Outcome::pass("ok");
        named.exercise = "9.3";
        assert!(!serde_json::to_string(&named).unwrap().contains("9.3"));
        assert!(
            serde_json::from_str::<Outcome>(r#"{"status":"deadlock","reason":"","details":[]}"#)
                .is_err()
        );
    }
}
