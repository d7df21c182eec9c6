//! The scored report: one data model that every output format renders, and whose JSON
//! form (`--json`) is the grader's stable, versioned interface for CI.
//!
//! The JSON schema is documented field by field in the crate's `README.md` ("The JSON
//! report"); the fields here carry the same names. Changing a field's name, type or
//! meaning bumps [`SCHEMA_VERSION`]; adding a field does not.

use crate::engine::Target;
use course::Limits;
use course::{Chapter, Exercise, KernelSource, Status};
use serde::Serialize;

/// The version of the JSON report's schema (the `schema_version` field).
pub const SCHEMA_VERSION: u32 = 1;

/// The stable key of a status in the JSON report and the JUnit `type` attribute:
/// `pass`, `wrong_result`, `wrong_technique`, `race`, `barrier_error`, `out_of_bounds`,
/// `panicked`, `timed_out`, `not_implemented`, `error`. (The table and Markdown use
/// [`Status::label`], which has spaces.)
pub fn status_key(status: Status) -> &'static str {
    match status {
        Status::Pass => "pass",
        Status::WrongResult => "wrong_result",
        Status::WrongTechnique => "wrong_technique",
        Status::Race => "race",
        Status::BarrierError => "barrier_error",
        Status::OutOfBounds => "out_of_bounds",
        Status::Panicked => "panicked",
        Status::TimedOut => "timed_out",
        Status::NotImplemented => "not_implemented",
        Status::Error => "error",
    }
}

/// Every status, in the order of [`Status`]'s declaration.
pub const ALL_STATUSES: [Status; 10] = Status::ALL;

/// The status whose [`status_key`] is `key`.
pub fn status_from_key(key: &str) -> Option<Status> {
    ALL_STATUSES.into_iter().find(|s| status_key(*s) == key)
}

/// Points earned out of points possible.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Points {
    /// Points earned.
    pub earned: u32,
    /// Points possible.
    pub possible: u32,
}

impl Points {
    /// Adds `other` to these points.
    fn add(&mut self, other: Points) {
        self.earned += other.earned;
        self.possible += other.possible;
    }
}

/// What the check of an exercise found: a status, a one-line reason, details.
///
/// The grader's own copy of [`course::Outcome`], which it can also read back from a
/// child process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The verdict.
    pub status: Status,
    /// What went wrong (or what passed), one line.
    pub reason: String,
    /// Further lines: expected vs got, the emulator's report, the input.
    pub details: Vec<String>,
}

impl Checked {
    /// A result of `status` with `reason` and no details.
    pub fn new(status: Status, reason: impl Into<String>) -> Self {
        Checked {
            status,
            reason: reason.into(),
            details: Vec::new(),
        }
    }

    /// The result of a check's outcome. A reason of several lines keeps its first line
    /// as the reason; the others go before the details.
    pub fn from_outcome(out: course::Outcome) -> Self {
        let mut lines = out.reason.lines();
        let reason = lines.next().unwrap_or_default().trim_end().to_string();
        let mut details: Vec<String> = lines.map(|l| l.trim().to_string()).collect();
        details.extend(out.details);
        Checked {
            status: out.status,
            reason,
            details,
        }
    }
}

/// One exercise's line of the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExerciseReport {
    /// The chapter's id, e.g. `"ch09"`.
    pub chapter: &'static str,
    /// The exercise's id, e.g. `"9.4"`.
    pub id: &'static str,
    /// Its title.
    pub title: &'static str,
    /// The functions the student writes for it.
    pub kernels: Vec<&'static str>,
    /// The status key ([`status_key`]).
    #[serde(serialize_with = "ser_status")]
    pub status: Status,
    /// The status as the table prints it ([`Status::label`]).
    pub status_label: &'static str,
    /// Did the check pass?
    pub passed: bool,
    /// All or nothing: `earned` is `possible` on a pass, else 0.
    pub points: Points,
    /// The first line of the reason.
    pub reason: String,
    /// The rest of the check's report.
    pub details: Vec<String>,
    /// The hint that answers the failure (`null` on a pass).
    pub hint: Option<String>,
    /// The book section to read, relative to the workspace root.
    pub book: String,
}

fn ser_status<S: serde::Serializer>(status: &Status, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(status_key(*status))
}

impl ExerciseReport {
    /// The report line of `exercise` of `chapter`, scored from what its check found.
    pub fn new(chapter: &'static Chapter, exercise: &'static Exercise, checked: Checked) -> Self {
        let passed = checked.status == Status::Pass;
        let hint = (!passed).then(|| exercise.hint_for(checked.status, &checked.reason));
        ExerciseReport {
            chapter: chapter.id,
            id: exercise.id,
            title: exercise.title,
            kernels: exercise.kernels.to_vec(),
            status: checked.status,
            status_label: checked.status.label(),
            passed,
            points: Points {
                earned: if passed { exercise.points } else { 0 },
                possible: exercise.points,
            },
            reason: checked.reason,
            details: checked.details,
            hint,
            book: format!("book/src/{}", exercise.book),
        }
    }
}

/// A chapter's line of the report: its points.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChapterReport {
    /// The chapter's id.
    pub id: &'static str,
    /// Its title.
    pub title: &'static str,
    /// Exercises graded in this chapter.
    pub exercises: usize,
    /// Exercises passed.
    pub passed: usize,
    /// Its points.
    pub points: Points,
}

/// How a covered file differs from the manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// The file's hash differs from the manifest's.
    Modified,
    /// The manifest lists the file; it is not there.
    Missing,
    /// The file is there, under a covered path; the manifest does not list it.
    Unexpected,
}

impl Change {
    /// A word for tables.
    pub fn label(self) -> &'static str {
        match self {
            Change::Modified => "modified",
            Change::Missing => "missing",
            Change::Unexpected => "unexpected",
        }
    }
}

/// One file that differs from the manifest.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct FileChange {
    /// Relative to the workspace root, `/`-separated.
    pub path: String,
    /// How it differs.
    pub change: Change,
}

/// The result of the tamper check: the course's files against the manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Integrity {
    /// The manifest compared with, as given (relative to the root when it is inside it).
    pub manifest: String,
    /// How many files the manifest lists.
    pub files_listed: usize,
    /// Every file that differs, sorted by path.
    pub files: Vec<FileChange>,
    /// Why the check could not be made (no manifest, an unreadable file), if so.
    pub error: Option<String>,
}

impl Integrity {
    /// Is anything off: a file that differs, or a check that could not be made? A grade
    /// that cannot be verified is reported like a tampered one, for a person to look at.
    pub fn tampered(&self) -> bool {
        !self.files.is_empty() || self.error.is_some()
    }

    /// A short verdict: `"ok"`, `"tampered: 2 files"` or `"unverified: …"`.
    pub fn summary(&self) -> String {
        if let Some(e) = &self.error {
            format!("unverified: {e}")
        } else if self.files.is_empty() {
            format!("ok ({} files match {})", self.files_listed, self.manifest)
        } else {
            let n = self.files.len();
            format!(
                "tampered: {n} file{} differ{} from {}",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" },
                self.manifest
            )
        }
    }
}

/// The whole report of a grading run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// `"grade <version>"`.
    pub grader: String,
    /// Whose kernels were graded: `"student"` or `"reference"`.
    pub kernels: &'static str,
    /// Where they ran: `"emulator"` or `"gpu"` (`--device`).
    pub device: &'static str,
    /// The device's name: the emulator's, or the GPU's as its driver reports it (e.g.
    /// `"NVIDIA H100 80GB HBM3"`). Added in schema 1 without a bump.
    pub device_name: String,
    /// On a GPU, the CUDA version its driver supports (`"CUDA 12.8"`); `null` on the
    /// emulator. Added in schema 1 without a bump.
    pub device_driver: Option<String>,
    /// `"all_or_nothing"`: an exercise earns all its points when its check passes, none
    /// otherwise.
    pub scoring: &'static str,
    /// The limits every exercise ran under.
    pub limits: Limits,
    /// The total.
    pub points: Points,
    /// Exercises passed.
    pub passed: usize,
    /// Exercises graded.
    pub exercises_graded: usize,
    /// Did the tamper check find anything (or fail to run)? `false` when it was not run.
    pub tampered: bool,
    /// The tamper check; `null` when it was not run (the library's callers, tests).
    pub integrity: Option<Integrity>,
    /// Points per chapter.
    pub chapters: Vec<ChapterReport>,
    /// One entry per exercise, in course order.
    pub exercises: Vec<ExerciseReport>,
}

impl Report {
    /// Sums up the exercises of `chapters` into a report.
    pub fn new(
        source: KernelSource,
        limits: Limits,
        chapters: &[&'static Chapter],
        exercises: Vec<ExerciseReport>,
        integrity: Option<Integrity>,
    ) -> Self {
        let mut points = Points::default();
        let mut per_chapter = Vec::new();
        for ch in chapters {
            let mine: Vec<&ExerciseReport> =
                exercises.iter().filter(|e| e.chapter == ch.id).collect();
            if mine.is_empty() {
                continue;
            }
            let mut p = Points::default();
            for e in &mine {
                p.add(e.points);
            }
            points.add(p);
            per_chapter.push(ChapterReport {
                id: ch.id,
                title: ch.title,
                exercises: mine.len(),
                passed: mine.iter().filter(|e| e.passed).count(),
                points: p,
            });
        }
        Report {
            schema_version: SCHEMA_VERSION,
            grader: concat!("grade ", env!("CARGO_PKG_VERSION")).to_string(),
            kernels: source.name(),
            device: "emulator",
            device_name: emulator_name(),
            device_driver: None,
            scoring: "all_or_nothing",
            limits,
            points,
            passed: exercises.iter().filter(|e| e.passed).count(),
            exercises_graded: exercises.len(),
            tampered: integrity.as_ref().is_some_and(Integrity::tampered),
            integrity,
            chapters: per_chapter,
            exercises,
        }
    }
}

impl Report {
    /// This report, recording that its checks ran on `target` (the default, from
    /// [`Report::new`], is the emulator).
    pub fn on(mut self, target: &Target) -> Self {
        self.device = target.key();
        match target {
            Target::Emulator => {
                self.device_name = emulator_name();
                self.device_driver = None;
            }
            Target::Gpu { name, driver } => {
                self.device_name = name.clone();
                self.device_driver = Some(driver.clone());
            }
        }
        self
    }

    /// Did the checks run on a GPU?
    pub fn on_gpu(&self) -> bool {
        self.device == "gpu"
    }
}

/// The emulator's name, as its device properties give it.
fn emulator_name() -> String {
    gpu_host::DeviceProps::emulated_h100().name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_keys_round_trip_and_are_distinct() {
        for s in ALL_STATUSES {
            assert_eq!(status_from_key(status_key(s)), Some(s));
            // The key is the label with underscores: one vocabulary, two spellings.
            assert_eq!(status_key(s).replace('_', " "), s.label());
        }
        assert_eq!(status_from_key("deadlock"), None);
    }

    #[test]
    fn a_multi_line_reason_keeps_its_first_line() {
        let out = course::Outcome::fail(Status::BarrierError, "synccheck: first\n    a\n b")
            .detail("input: x");
        let c = Checked::from_outcome(out);
        assert_eq!(c.reason, "synccheck: first");
        assert_eq!(c.details, vec!["a", "b", "input: x"]);
    }
}
