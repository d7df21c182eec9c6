//! The real backend: cargo and the grader.
//!
//! A check after a save builds the student's `kernels` crate for the emulator's sandbox
//! (WebAssembly: only that crate is rebuilt, the grader is not relinked), then runs the
//! grader on one exercise, `grade --json --exercise <id>`. The grader runs the check in a
//! child process of its own with the course's limits (fuel, step budget, spin detector),
//! so a kernel that panics, deadlocks, loops or aborts costs a verdict, never the runner.
//! A compile error is shown as rustc renders it. The background scan at start is one
//! `grade --json` over every exercise.

use crate::app::{ExerciseInfo, Verdict};
use crate::progress::{self, Progress, STATE_DIR};
use crate::{Backend, regions};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The pristine stubs, relative to the workspace root: `<dir>/<chapter>.rs` and the
/// crate's `lib.rs` ([`gpu_host::answers::PRISTINE_DIR`]).
pub const PRISTINE_DIR: &str = gpu_host::answers::PRISTINE_DIR;

/// Writes the pristine stubs of every chapter as a student's `kernels/src` under `dest`
/// (`dest/kernels/src/<chapter>.rs` and a `lib.rs` that declares them), and returns that
/// folder, for `grade --student` or [`gpu_host::lanes::build_student`].
///
/// Why: the course's tests of untouched stubs must grade the stubs as shipped, not
/// whatever `kernels/src` holds in a course where some exercises are solved.
pub fn write_pristine_sources(root: &Path, dest: &Path) -> Result<PathBuf, String> {
    let src = dest.join("kernels").join("src");
    std::fs::create_dir_all(&src).map_err(|e| format!("cannot create {}: {e}", src.display()))?;
    let names = grade::chapters()
        .into_iter()
        .map(|c| format!("{}.rs", c.id))
        .chain(["lib.rs".to_string()]);
    for name in names {
        let stub = root.join(PRISTINE_DIR).join(&name);
        std::fs::copy(&stub, src.join(&name))
            .map_err(|e| format!("cannot copy {}: {e}", stub.display()))?;
    }
    Ok(src)
}

/// Checks, resets and traces through cargo, in the workspace at `root`.
pub struct CargoBackend {
    /// The workspace root.
    pub root: PathBuf,
    /// The cargo to run: `$CARGO` when run by cargo, else `cargo` from `PATH`.
    pub cargo: PathBuf,
    /// Print progress lines ("checking 9.3 ...") to standard output.
    pub chatty: bool,
}

impl CargoBackend {
    /// A backend for the workspace at `root`.
    pub fn new(root: PathBuf, chatty: bool) -> Self {
        let cargo = std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from);
        CargoBackend {
            root,
            cargo,
            chatty,
        }
    }

    fn cargo(&self) -> Command {
        let mut c = Command::new(&self.cargo);
        c.current_dir(&self.root)
            .env("CARGO_TERM_COLOR", "never")
            .env("CARGO_TERM_PROGRESS_WHEN", "never")
            .stdin(Stdio::null());
        c
    }

    /// Builds the grader; `Ok` is its binary, `Err` the verdict (compile errors).
    fn build_grader(&self) -> Result<PathBuf, Verdict> {
        let out = self
            .cargo()
            .args(["build", "-p", "grade", "--message-format=json"])
            .output()
            .map_err(|e| Verdict::Error {
                message: format!("cannot run {}: {e}", self.cargo.display()),
            })?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let mut errors = String::new();
        let mut exe = None;
        for line in stdout.lines() {
            let Ok(msg) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            match msg["reason"].as_str() {
                Some("compiler-message") if msg["message"]["level"] == "error" => {
                    errors.push_str(msg["message"]["rendered"].as_str().unwrap_or(""));
                }
                Some("compiler-artifact") if msg["target"]["name"] == "grade" => {
                    if let Some(p) = msg["executable"].as_str() {
                        exe = Some(PathBuf::from(p));
                    }
                }
                _ => {}
            }
        }
        match (out.status.success(), exe) {
            (true, Some(exe)) => Ok(exe),
            (true, None) => Err(Verdict::Error {
                message: "cargo built the grader but did not say where its binary is".into(),
            }),
            (false, _) if !errors.is_empty() => Err(Verdict::BuildFailed { errors }),
            (false, _) => Err(Verdict::BuildFailed {
                errors: String::from_utf8_lossy(&out.stderr).into_owned(),
            }),
        }
    }
}

/// The verdict of the grader's JSON report on one exercise, read into the grader's own
/// report type: a field the grader renamed is an error here, not a silent default.
pub fn verdict_from_report(json: &str) -> Verdict {
    let report: grade::Report = match serde_json::from_str(json) {
        Ok(r) => r,
        Err(e) => {
            return Verdict::Error {
                message: format!("the grader's report is unreadable: {e}"),
            };
        }
    };
    let Some(ex) = report.exercises.into_iter().next() else {
        return Verdict::Error {
            message: "the grader's report has no exercise".into(),
        };
    };
    if ex.passed {
        return Verdict::Pass {
            reason: ex.outcome.reason,
        };
    }
    Verdict::Fail {
        outcome: ex.outcome,
        hint: ex.hint,
    }
}

/// The backups of exercise `id` in `dir`, oldest first: `<dir>/<id>-1.rs`, `-2.rs`, ...
/// as long as they exist (a reset writes the next, an undo removes the newest).
fn backups(dir: &Path, id: &str) -> impl Iterator<Item = PathBuf> {
    (1..)
        .map(move |k| dir.join(format!("{id}-{k}.rs")))
        .take_while(|p| p.exists())
}

/// Where the next backup of `id` goes: the one after [`backups`]' newest.
fn backup_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}-{}.rs", backups(dir, id).count() + 1))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

impl Backend for CargoBackend {
    fn check(&mut self, ex: &ExerciseInfo) -> Verdict {
        let exe = match self.build_grader() {
            Ok(exe) => exe,
            Err(v) => return v,
        };
        // The student's crate is built for the emulator's sandbox (WebAssembly), not into
        // the grader: its compile errors are the student's, shown as such.
        if let Err(errors) = gpu_host::lanes::build("kernels", &self.root) {
            return Verdict::BuildFailed { errors };
        }
        let out = Command::new(&exe)
            .current_dir(&self.root)
            .arg("--json")
            .arg("--exercise")
            .arg(&ex.id)
            .arg("--root")
            .arg(&self.root)
            .args(["--jobs", "1"])
            .stdin(Stdio::null())
            .output();
        match out {
            Ok(o) if o.status.success() => verdict_from_report(&String::from_utf8_lossy(&o.stdout)),
            Ok(o) => Verdict::Error {
                message: String::from_utf8_lossy(&o.stderr).trim().to_string(),
            },
            Err(e) => Verdict::Error {
                message: format!("cannot run the grader {}: {e}", exe.display()),
            },
        }
    }

    fn reset(&mut self, ex: &ExerciseInfo) -> Result<String, String> {
        let file = self.root.join(ex.student_file());
        let pristine = self
            .root
            .join(PRISTINE_DIR)
            .join(format!("{}.rs", ex.chapter));
        let before = read(&file)?;
        let (text, _) = regions::reset(&before, &read(&pristine)?, &ex.id)?;
        let dir = self.root.join(STATE_DIR).join("backups");
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        // The whole file as it was: `u` puts its regions of this exercise back.
        let backup = backup_path(&dir, &ex.id);
        std::fs::write(&backup, &before)
            .map_err(|e| format!("cannot write {}: {e}", backup.display()))?;
        std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        let rel = backup.strip_prefix(&self.root).unwrap_or(&backup);
        Ok(format!(
            "reset {} in {} to its stub; your version is saved in {} (u undoes the reset)",
            ex.id,
            ex.student_file(),
            rel.display()
        ))
    }

    fn undo(&mut self, ex: &ExerciseInfo) -> Result<String, String> {
        let dir = self.root.join(STATE_DIR).join("backups");
        let Some(backup) = backups(&dir, &ex.id).last() else {
            return Err(format!("{} has no backup in {}", ex.id, dir.display()));
        };
        let file = self.root.join(ex.student_file());
        let (text, _) = regions::reset(&read(&file)?, &read(&backup)?, &ex.id)
            .map_err(|e| format!("{}: {e}", backup.display()))?;
        std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        std::fs::remove_file(&backup)
            .map_err(|e| format!("cannot remove {}: {e}", backup.display()))?;
        let rel = backup.strip_prefix(&self.root).unwrap_or(&backup);
        Ok(format!(
            "restored {} in {} from {}",
            ex.id,
            ex.student_file(),
            rel.display()
        ))
    }

    fn scan(&mut self, exercises: &[ExerciseInfo]) -> Result<Vec<(String, bool)>, String> {
        let describe = |v: Verdict| match v {
            Verdict::BuildFailed { .. } => "your kernels do not compile".to_string(),
            Verdict::Error { message } => message,
            _ => "the grader did not build".to_string(),
        };
        let exe = self.build_grader().map_err(describe)?;
        gpu_host::lanes::build("kernels", &self.root)
            .map_err(|_| "your kernels do not compile".to_string())?;
        let out = Command::new(&exe)
            .current_dir(&self.root)
            .args(["--json", "--jobs", "1", "--root"])
            .arg(&self.root)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run the grader {}: {e}", exe.display()))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        let report: grade::Report = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("the grader's report is unreadable: {e}"))?;
        let known: Vec<&str> = exercises.iter().map(|e| e.id.as_str()).collect();
        Ok(report
            .exercises
            .into_iter()
            .filter(|e| known.contains(&e.id.as_str()))
            .map(|e| (e.id, e.passed))
            .collect())
    }

    fn trace(&mut self, ex: &ExerciseInfo) -> Result<String, String> {
        let rel = format!("{STATE_DIR}/traces/{}.svg", ex.id);
        let dir = self.root.join(STATE_DIR).join("traces");
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let out = self
            .cargo()
            .args([
                "run",
                "-q",
                "-p",
                &ex.chapter,
                "--",
                "--trace",
                &rel,
                "--step",
                &ex.id,
            ])
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.cargo.display()))?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() {
            Ok(format!("{text}\nopen {rel} in a browser"))
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = err.lines().rev().take(20).collect();
            Err(tail.into_iter().rev().collect::<Vec<_>>().join("\n"))
        }
    }

    fn solution(&mut self, ex: &ExerciseInfo) -> Result<String, String> {
        let text = read(&self.root.join(ex.solution_file()))?;
        let bodies = regions::bodies(&text, &ex.id)?;
        let shown: Vec<&str> = bodies.iter().map(|b| b.trim_end()).collect();
        Ok(format!(
            "the reference solution of {} ({}, fn {}):\n{}\nwhy it works: book/src/{}",
            ex.id,
            ex.solution_file(),
            ex.kernels.join(", fn "),
            shown.join("\n    // ...\n"),
            ex.book
        ))
    }

    fn save(&mut self, progress: &Progress) -> Result<(), String> {
        progress.save(&progress::progress_path(&self.root))
    }

    fn busy(&mut self, what: &str) {
        if self.chatty {
            crate::term::print(&format!("{what}\n"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use course::{KernelSource, Limits, Outcome, Status};
    use grade::{ExerciseReport, Report};

    /// The grader's JSON report on one exercise of chapter 9 that found `outcome`.
    fn report(outcome: Outcome) -> String {
        let ch = grade::chapters()
            .iter()
            .copied()
            .find(|c| c.id == "ch09")
            .expect("chapter 9");
        let ex = ch.exercise("9.5").expect("9.5");
        let line = ExerciseReport::new(ch, ex, outcome);
        let r = Report::new(
            KernelSource::Student,
            Limits::CHECKS,
            &[ch],
            vec![line],
            None,
        );
        serde_json::to_string(&r).unwrap()
    }

    #[test]
    fn a_failure_reads_back_with_its_outcome_and_hint() {
        let found =
            Outcome::fail(Status::Race, "a data race on bins\n  at line 3").detail("seed 7");
        match verdict_from_report(&report(found)) {
            Verdict::Fail { outcome, hint } => {
                assert_eq!(outcome.status, Status::Race);
                assert_eq!(outcome.reason, "a data race on bins");
                // Each line of a reason keeps its indentation (a compiler's carets line up).
                assert_eq!(outcome.details, vec!["  at line 3", "seed 7"]);
                assert!(hint.is_some_and(|h| !h.is_empty()));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            verdict_from_report(&report(Outcome::pass("bins match"))),
            Verdict::Pass {
                reason: "bins match".into()
            }
        );
    }

    #[test]
    fn a_renamed_field_is_an_error_not_a_default() {
        let json = report(Outcome::pass("bins match")).replace("\"passed\"", "\"ok\"");
        match verdict_from_report(&json) {
            Verdict::Error { message } => assert!(message.contains("passed"), "{message}"),
            other => panic!("{other:?}"),
        }
    }
}
