//! The scored report: one data model that every output format renders, and whose JSON
//! form (`--json`) is the grader's stable, versioned interface for CI.
//!
//! The JSON schema is documented field by field in the crate's `README.md` ("The JSON
//! report"); the fields here carry the same names. Changing a field's name, type or
//! meaning bumps [`SCHEMA_VERSION`]; adding a field does not.

use crate::engine::Target;
use course::Limits;
use course::{Chapter, Exercise, KernelSource, Outcome, Status};
pub use gpu_host::answers::Ignored;
use gpu_host::lanes::Outline;
use serde::{Deserialize, Serialize};

/// The version of the JSON report's schema (the `schema_version` field).
pub const SCHEMA_VERSION: u32 = 1;

/// Points earned out of points possible.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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

/// One exercise's line of the report: what its check found ([`Outcome`], the course's one
/// result type, flattened: `status`, `reason`, `details`) and its score.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExerciseReport {
    /// The chapter's id, e.g. `"ch09"`.
    pub chapter: String,
    /// The exercise's id, e.g. `"9.4"`.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The functions the student writes for it.
    pub kernels: Vec<String>,
    /// What the check found: the status key (serde's snake_case of [`Status`]:
    /// `wrong_result`), the first line of the reason, the rest of the check's report.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The status as the table prints it ([`Status::label`]).
    pub status_label: String,
    /// Did the check pass?
    pub passed: bool,
    /// All or nothing: `earned` is `possible` on a pass, else 0.
    pub points: Points,
    /// The hint that answers the failure (`null` on a pass).
    #[serde(deserialize_with = "course::json::present")]
    pub hint: Option<String>,
    /// The book section to read, relative to the workspace root.
    pub book: String,
    /// On a GPU, the exercise's kernels timed beside the reference's on the checks'
    /// largest input ([`crate::gpu_times`]); absent from the JSON when none were timed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_times: Vec<crate::gpu_times::KernelTime>,
}

impl ExerciseReport {
    /// The report line of `exercise` of `chapter`, scored from what its check found. Every
    /// outcome the grader reports passes here, whatever made it (the check, a child
    /// process, the GPU explained by the emulator, the grader's own time limit), so its
    /// reason is put on one line here ([`Outcome::one_line_reason`]).
    pub fn new(chapter: &'static Chapter, exercise: &'static Exercise, outcome: Outcome) -> Self {
        let mut outcome = outcome.one_line_reason();
        outcome.exercise = exercise.id;
        let passed = outcome.passed();
        let hint = (!passed).then(|| exercise.hint_for(&outcome));
        ExerciseReport {
            chapter: chapter.id.to_string(),
            id: exercise.id.to_string(),
            title: exercise.title.to_string(),
            kernels: exercise.kernels.iter().map(|k| k.to_string()).collect(),
            status_label: outcome.status.label().to_string(),
            outcome,
            passed,
            points: Points {
                earned: if passed { exercise.points } else { 0 },
                possible: exercise.points,
            },
            hint,
            book: format!("book/src/{}", exercise.book),
            gpu_times: Vec::new(),
        }
    }

    /// The verdict.
    pub fn status(&self) -> Status {
        self.outcome.status
    }
}

/// A chapter's line of the report: its points.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChapterReport {
    /// The chapter's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Exercises graded in this chapter.
    pub exercises: usize,
    /// Exercises passed.
    pub passed: usize,
    /// Its points.
    pub points: Points,
}

/// How a covered file differs from the manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileChange {
    /// Relative to the workspace root, `/`-separated.
    pub path: String,
    /// How it differs.
    pub change: Change,
}

/// The result of the tamper check: the course's files against the manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Integrity {
    /// The manifest compared with, as given (relative to the root when it is inside it).
    pub manifest: String,
    /// How many files the manifest lists.
    pub files_listed: usize,
    /// Every file that differs, sorted by path.
    pub files: Vec<FileChange>,
    /// Why the check could not be made (no manifest, an unreadable file), if so.
    #[serde(deserialize_with = "course::json::present")]
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

/// The whole report of a grading run. It reads back from its JSON form (the runner,
/// `learn`, reads the grader's `--json` report into it): a field renamed on one side is
/// an error on the other, not a silent zero.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// `"grade <version>"`.
    pub grader: String,
    /// Whose kernels were graded: `"student"` or `"reference"`.
    pub kernels: String,
    /// Where they ran: `"emulator"` or `"gpu"` (`--device`).
    pub device: String,
    /// The device's name: the emulator's, or the GPU's as its driver reports it (e.g.
    /// `"NVIDIA H100 80GB HBM3"`). Added in schema 1 without a bump.
    pub device_name: String,
    /// On a GPU, the CUDA version its driver supports (`"CUDA 12.8"`); `null` on the
    /// emulator. Added in schema 1 without a bump.
    #[serde(deserialize_with = "course::json::present")]
    pub device_driver: Option<String>,
    /// `"all_or_nothing"`: an exercise earns all its points when its check passes, none
    /// otherwise.
    pub scoring: String,
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
    #[serde(deserialize_with = "course::json::present")]
    pub integrity: Option<Integrity>,
    /// Where the checks' inputs came from: the course's public seed (what `cargo test`
    /// runs) or a private one, which is never printed ([`course::draw::inputs_text`]).
    /// Added in schema 1 without a bump.
    pub inputs: String,
    /// Edits of the student's files outside the answer regions: not built and not graded
    /// (only the answers count). Added in schema 1 without a bump.
    pub ignored: Vec<Ignored>,
    /// A note on the build of the student's answers (several builds; the build budget ran
    /// out), if any. Added in schema 1 without a bump.
    #[serde(deserialize_with = "course::json::present")]
    pub build_note: Option<String>,
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
                id: ch.id.to_string(),
                title: ch.title.to_string(),
                exercises: mine.len(),
                passed: mine.iter().filter(|e| e.passed).count(),
                points: p,
            });
        }
        Report {
            schema_version: SCHEMA_VERSION,
            grader: concat!("grade ", env!("CARGO_PKG_VERSION")).to_string(),
            kernels: source.name().to_string(),
            device: "emulator".to_string(),
            device_name: emulator_name(),
            device_driver: None,
            scoring: "all_or_nothing".to_string(),
            limits,
            points,
            passed: exercises.iter().filter(|e| e.passed).count(),
            exercises_graded: exercises.len(),
            tampered: integrity.as_ref().is_some_and(Integrity::tampered),
            integrity,
            inputs: course::draw::inputs_text().to_string(),
            ignored: Vec::new(),
            build_note: None,
            chapters: per_chapter,
            exercises,
        }
    }
}

impl Report {
    /// This report, recording that its checks ran on `target` (the default, from
    /// [`Report::new`], is the emulator).
    pub fn on(mut self, target: &Target) -> Self {
        self.device = target.key().to_string();
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

    /// This report, with what the build of the student's answers left out: the edits
    /// outside the regions and the build's note.
    pub fn answers(mut self, outline: &Outline) -> Self {
        self.ignored = outline.ignored.clone();
        self.build_note = outline.note.clone();
        self
    }

    /// This report with every path of `paths` (a folder of the machine, and the word that
    /// stands for it: the course's root as `.`, the home folder as `~`) replaced in every
    /// text it holds, longest first: no report holds a path of the grading machine.
    pub fn without_paths(mut self, paths: &[(std::path::PathBuf, &str)]) -> Self {
        let mut pairs: Vec<(String, &str)> = paths
            .iter()
            .flat_map(|(p, to)| {
                let canonical = p.canonicalize().unwrap_or_else(|_| p.clone());
                [p.display().to_string(), canonical.display().to_string()]
                    .into_iter()
                    .map(move |s| (s, *to))
            })
            .filter(|(s, _)| s.len() > 1)
            .collect();
        pairs.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        self.each_text(|t| {
            for (from, to) in &pairs {
                if t.contains(from.as_str()) {
                    *t = t.replace(from.as_str(), to);
                }
            }
        });
        self
    }

    /// This report with every character that does not show as itself escaped in every
    /// text a submission can reach ([`gpu_host::printable`]), as every format shows it.
    pub fn printable(mut self) -> Self {
        self.each_text(|t| {
            if t.chars().any(gpu_host::hidden) {
                *t = gpu_host::printable(t);
            }
        });
        self
    }

    /// Calls `fix` on every text of the report that a submission or the machine can reach:
    /// the outcomes, the ignored edits, the build note, the tamper check's findings.
    fn each_text(&mut self, mut fix: impl FnMut(&mut String)) {
        for e in &mut self.exercises {
            fix(&mut e.outcome.reason);
            e.outcome.details.iter_mut().for_each(&mut fix);
        }
        for i in &mut self.ignored {
            fix(&mut i.file);
            fix(&mut i.what);
        }
        if let Some(n) = &mut self.build_note {
            fix(n);
        }
        if let Some(i) = &mut self.integrity {
            fix(&mut i.manifest);
            i.files.iter_mut().for_each(|f| fix(&mut f.path));
            if let Some(e) = &mut i.error {
                fix(e);
            }
        }
    }

    /// Did the checks run on a GPU?
    pub fn on_gpu(&self) -> bool {
        self.device == "gpu"
    }

    /// The exercises with kernel times on the GPU, in report order: what the renderers'
    /// kernel-time sections list.
    pub fn gpu_timed(&self) -> Vec<&ExerciseReport> {
        self.exercises
            .iter()
            .filter(|e| !e.gpu_times.is_empty())
            .collect()
    }
}

/// The folders of the grading machine no report may show, with the word each is shown
/// as ([`Report::without_paths`]): the course's root (`.`), the submission's folder
/// (`<submission>`), the home folder (`~`) and the temporary folder (`<tmp>`).
pub fn machine_paths(
    root: &std::path::Path,
    submission: Option<&std::path::Path>,
) -> Vec<(std::path::PathBuf, &'static str)> {
    let mut paths = vec![(root.to_path_buf(), ".")];
    if let Some(s) = submission {
        paths.push((s.to_path_buf(), "<submission>"));
    }
    if let Some(home) = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")) {
        paths.push((std::path::PathBuf::from(home), "~"));
    }
    paths.push((std::env::temp_dir(), "<tmp>"));
    paths
}

/// The emulator's name, as its device properties give it.
fn emulator_name() -> String {
    gpu_host::DeviceProps::emulated_h100().name
}
