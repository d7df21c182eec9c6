//! Grading a class: every submission of a folder in one command.
//!
//! `grade --class DIR --out OUT` finds the submissions ([`discover`]: every folder holding
//! `kernels/src`), and grades each as `--student` does, from the pristine course: its
//! answers built for the sandbox (builds share the course's compiled dependencies, one at
//! a time, while other submissions' checks run), then its exercises one after another in
//! a child process ([`crate::batch`]: a child that crashes or hangs costs the exercise it
//! ran, and a new child runs the rest). `jobs` submissions are in flight at once. A
//! submission that does not build, loops or crashes a child costs its own row and nothing
//! else, and a submission that cannot be graded at all (no
//! `kernels/src`, an unwritable folder) is a row with its error.
//!
//! The run writes `OUT/gradebook.csv` ([`crate::gradebook`]), every requested format of each
//! submission into `OUT/<name>/`, and `OUT/summary.txt` (mean, median, a histogram of the
//! totals), and shows a progress line on the terminal.

use crate::engine::Selection;
use crate::render::{Format, render};
use crate::report::Report;
use course::{Chapter, KernelSource, Limits};
use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// One student's work: a folder holding `kernels/src`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// The name its reports are filed under: its folder's name, made safe for a file name
    /// and unique in the class.
    pub name: String,
    /// Its folder.
    pub path: PathBuf,
}

/// `name` made safe as a folder name: letters, digits, `.`, `-` and `_` kept, anything
/// else `_`, leading dots dropped (no hidden folder, never `.` or `..`); never empty.
pub fn safe_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match s.trim_start_matches('.') {
        "" => "submission".to_string(),
        rest => rest.to_string(),
    }
}

/// The submissions of `paths`: a path that holds `kernels/src` is one submission, named by
/// its folder; any other folder is a class, every folder directly under it that holds
/// `kernels/src` one submission. In path order, then name order; names made unique.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<Submission>, String> {
    let is_submission = |p: &Path| p.join("kernels").join("src").is_dir();
    let mut found = Vec::new();
    for path in paths {
        if is_submission(path) {
            found.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path)
            .map_err(|e| format!("--class {}: cannot read it: {e}", path.display()))?;
        let mut here: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_dir() && is_submission(p))
            .collect();
        if here.is_empty() {
            return Err(format!(
                "--class {}: no submission there (a folder holding kernels/src, or folders that \
                 do)",
                path.display()
            ));
        }
        here.sort();
        found.extend(here);
    }
    let mut names = BTreeSet::new();
    Ok(found
        .into_iter()
        .map(|path| {
            let base = safe_name(
                &path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            );
            let mut name = base.clone();
            let mut k = 2;
            while !names.insert(name.clone()) {
                name = format!("{base}-{k}");
                k += 1;
            }
            Submission { name, path }
        })
        .collect())
}

/// How a class is graded.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// The pristine course.
    pub root: &'a Path,
    /// The chapters graded.
    pub chapters: &'a [&'static Chapter],
    /// The exercises graded.
    pub selection: &'a Selection,
    /// The limits of every check.
    pub limits: Limits,
    /// The grader's binary, which the checks' child processes run.
    pub exe: &'a Path,
    /// Submissions in flight at once.
    pub jobs: usize,
    /// The formats written per submission.
    pub formats: &'a [Format],
    /// The output folder.
    pub out: &'a Path,
}

/// One submission's result: its report, or why it could not be graded, and how long it
/// took.
#[derive(Debug)]
pub struct Graded {
    /// The submission.
    pub submission: Submission,
    /// Its report, or the error that kept it from being graded.
    pub report: Result<Report, String>,
    /// Wall-clock time, build and checks.
    pub took: Duration,
    /// Of which the build of its answers (waiting for another submission's build
    /// included: builds share the course's compiled dependencies, one at a time).
    pub build: Duration,
}

/// Grades `submissions` (see the module docs), writing every submission's reports as it
/// finishes; returns the results in the submissions' order. `Err` only when the output
/// folder cannot be written.
pub fn grade(submissions: &[Submission], o: &Options) -> Result<Vec<Graded>, String> {
    std::fs::create_dir_all(o.out)
        .map_err(|e| format!("--out {}: cannot create it: {e}", o.out.display()))?;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Graded>>> =
        Mutex::new((0..submissions.len()).map(|_| None).collect());
    let progress = Progress::new(submissions.len());
    let write_error: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..o.jobs.clamp(1, submissions.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(sub) = submissions.get(i) else { break };
                    let t = Instant::now();
                    let (report, build) = grade_one(sub, o);
                    let took = t.elapsed();
                    if let Err(e) = write_reports(sub, &report, o) {
                        write_error
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .get_or_insert(e);
                    }
                    progress.done(&sub.name, took);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(Graded {
                        submission: sub.clone(),
                        report,
                        took,
                        build,
                    });
                }
            });
        }
    });
    progress.finish();
    if let Some(e) = write_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    Ok(results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect())
}

/// One submission, built and graded as `--student` grades it; and how long its build took.
fn grade_one(sub: &Submission, o: &Options) -> (Result<Report, String>, Duration) {
    let t = Instant::now();
    let src = sub.path.join("kernels").join("src");
    let built = gpu_host::lanes::build_submission(&src, o.root);
    let build = t.elapsed();
    (
        built.and_then(|(module, outline)| check(sub, o, module, &outline)),
        build,
    )
}

/// The checks of a submission whose answers were built into `module`.
fn check(
    sub: &Submission,
    o: &Options,
    module: PathBuf,
    outline: &gpu_host::lanes::Outline,
) -> Result<Report, String> {
    // One child for the submission's exercises (crate::batch): the same verdicts as a
    // child per exercise, without a process start and set-up per exercise.
    let env = vec![(
        gpu_host::lanes::module_env("kernels"),
        module.into_os_string(),
    )];
    let work = crate::engine::selected(o.chapters, o.selection);
    let outcomes = crate::batch::grade(o.exe, &env, &work, KernelSource::Student, &o.limits)?;
    let mut exercises = Vec::with_capacity(work.len());
    for (&(chapter, exercise), outcome) in work.iter().zip(outcomes) {
        // Under a private seed a failure is run once more on the public seed, whose case
        // the sealed report may show (crate::private).
        let public = if crate::private::active() && !outcome.passed() {
            Some(crate::engine::check_public(
                o.exe,
                &env,
                chapter,
                exercise,
                KernelSource::Student,
                &o.limits,
            )?)
        } else {
            None
        };
        exercises.push(crate::private::report(
            chapter,
            exercise,
            outcome,
            public.as_ref(),
        ));
    }
    let paths = crate::report::machine_paths(o.root, Some(&sub.path));
    Ok(
        Report::new(KernelSource::Student, o.limits, o.chapters, exercises, None)
            .answers(outline)
            .without_paths(&paths),
    )
}

/// Writes `report`'s formats into `OUT/<name>/` (or, when it could not be graded, the
/// error as `error.txt`).
fn write_reports(
    sub: &Submission,
    report: &Result<Report, String>,
    o: &Options,
) -> Result<(), String> {
    let dir = o.out.join(&sub.name);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    match report {
        Ok(r) => {
            for &f in o.formats {
                write(f.file_name(), &render(r, f))?;
            }
            Ok(())
        }
        Err(e) => write("error.txt", &format!("{}\n", gpu_host::printable(e))),
    }
}

/// The progress line: submissions done of all, time elapsed, the slowest so far. Redrawn
/// in place on a terminal, a line per submission otherwise (a CI log).
struct Progress {
    total: usize,
    start: Instant,
    state: Mutex<(usize, Option<(String, Duration)>)>,
    terminal: bool,
}

impl Progress {
    fn new(total: usize) -> Self {
        let terminal = std::io::stderr().is_terminal();
        Progress {
            total,
            start: Instant::now(),
            state: Mutex::new((0, None)),
            terminal,
        }
    }

    fn done(&self, name: &str, took: Duration) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.0 += 1;
        if state.1.as_ref().is_none_or(|(_, t)| took > *t) {
            state.1 = Some((name.to_string(), took));
        }
        let (slow_name, slow) = state.1.clone().unwrap_or_default();
        let line = format!(
            "grade: {} of {} graded, {} elapsed, slowest so far: {} ({:.1} s)",
            state.0,
            self.total,
            clock(self.start.elapsed()),
            gpu_host::printable(&slow_name),
            slow.as_secs_f64()
        );
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            write!(err, "\r\x1b[2K{line}")
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
    }

    fn finish(&self) {
        if self.terminal {
            let _ = writeln!(std::io::stderr());
        }
    }
}

/// `mm:ss`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}", s / 60, s % 60)
}

/// The class's summary: how many were graded, the mean and median total, and a histogram
/// of the totals in tenths of the points possible.
pub fn summary(graded: &[Graded], wall: Duration) -> String {
    let totals: Vec<(u32, u32)> = graded
        .iter()
        .filter_map(|g| g.report.as_ref().ok())
        .map(|r| (r.points.earned, r.points.possible))
        .collect();
    let failed = graded.len() - totals.len();
    let possible = totals.iter().map(|t| t.1).max().unwrap_or(0);
    let mut sorted: Vec<u32> = totals.iter().map(|t| t.0).collect();
    sorted.sort_unstable();
    let mean = if sorted.is_empty() {
        0.0
    } else {
        sorted.iter().map(|&t| t as f64).sum::<f64>() / sorted.len() as f64
    };
    let median = match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2] as f64,
        n => (sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0,
    };
    let builds: f64 = graded.iter().map(|g| g.build.as_secs_f64()).sum();
    let all: f64 = graded.iter().map(|g| g.took.as_secs_f64()).sum();
    let mut s = format!(
        "graded {} submission(s) in {} ({:.1} s each on average); of the submissions' own \
         time, {:.0} s in builds and {:.0} s in checks{}\n\
         points: mean {mean:.1}, median {median:.1} of {possible}\n",
        totals.len(),
        clock(wall),
        wall.as_secs_f64() / graded.len().max(1) as f64,
        builds,
        all - builds,
        if failed > 0 {
            format!("; {failed} could not be graded (see error.txt in their folders)")
        } else {
            String::new()
        }
    );
    if possible > 0 {
        let mut buckets = [0usize; 10];
        for &t in &sorted {
            buckets[((t as u64 * 10 / possible as u64) as usize).min(9)] += 1;
        }
        let widest = buckets.iter().copied().max().unwrap_or(1).max(1);
        for (i, &n) in buckets.iter().enumerate() {
            let lo = i as u32 * possible / 10;
            let hi = if i == 9 {
                possible
            } else {
                (i as u32 + 1) * possible / 10 - 1
            };
            let bar = "#".repeat((n * 40).div_ceil(widest));
            s.push_str(&format!("  {lo:>4} - {hi:>4}  {n:>4}  {bar}\n"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_and_unique() {
        assert_eq!(safe_name("alice"), "alice");
        assert_eq!(safe_name("../../etc"), "_.._etc");
        assert_eq!(safe_name(".."), "submission");
        assert_eq!(safe_name("a b/ü"), "a_b__");
        let base = std::env::temp_dir().join(format!("grade-class-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        for who in ["x/bob", "y/bob", "y/carol"] {
            std::fs::create_dir_all(base.join(who).join("kernels/src")).unwrap();
        }
        std::fs::create_dir_all(base.join("y/not-a-submission")).unwrap();
        let found = discover(&[base.join("x"), base.join("y")]).unwrap();
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["bob", "bob-2", "carol"]);
        assert!(discover(&[base.join("y/not-a-submission")]).is_err());
        let _ = std::fs::remove_dir_all(&base);
    }
}
