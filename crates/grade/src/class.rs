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

/// One row of a class: a folder (or file) found under a class folder, and the submission
/// in it if one was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// The row's name, under which its reports are filed (`OUT/submissions/<name>/`): the
    /// folder's name when that is a safe file name and no other row has it, else the safe
    /// name with a hash of the folder's path (the same for the same folder, whatever else
    /// the class holds).
    pub name: String,
    /// The folder's own name, as it is (relative to the class folder given).
    pub folder: String,
    /// The folder that holds `kernels/src` (the folder itself, or one found below it).
    pub path: PathBuf,
    /// Where `kernels/src` was found, relative to the folder, when not directly in it.
    pub found_at: Option<String>,
    /// Why the row cannot be graded (no `kernels/src`, several, not a folder), if so.
    pub problem: Option<String>,
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
        rest => rest.chars().take(100).collect(),
    }
}

/// How deep below a class's folder `kernels/src` is looked for (`alice/repo/kernels/src`
/// is one level deeper than `alice/kernels/src`).
pub const SEARCH_DEPTH: usize = 3;

/// Whether `p` holds `kernels/src` (through links too: a link is refused when graded).
fn is_submission(p: &Path) -> bool {
    p.join("kernels").join("src").is_dir()
}

/// The rows of `paths`: a path that holds `kernels/src` is one submission, named by its
/// folder; any other path is a class folder, and every entry directly under it (but hidden
/// ones and the output folder `skip`) is one row: a submission found in it or up to
/// [`SEARCH_DEPTH`] levels below, or the reason none could be taken. In path order, then
/// name order. `Err` only when a class folder cannot be read or holds nothing.
pub fn discover(paths: &[PathBuf], skip: Option<&Path>) -> Result<Vec<Submission>, String> {
    let skip = skip.and_then(|s| s.canonicalize().ok());
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    for path in paths {
        if is_submission(path) {
            let folder = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string());
            found.push((folder, path.clone()));
            continue;
        }
        let entries = std::fs::read_dir(path)
            .map_err(|e| format!("--class {}: cannot read it: {e}", path.display()))?;
        let mut here: Vec<(String, PathBuf)> = entries
            .filter_map(|e| e.ok())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .filter(|(name, p)| {
                !name.starts_with('.') && (skip.is_none() || p.canonicalize().ok() != skip)
            })
            .collect();
        if here.is_empty() {
            return Err(format!(
                "--class {}: nothing there (a folder of submissions, one folder each, or one \
                 submission holding kernels/src)",
                path.display()
            ));
        }
        here.sort();
        found.extend(here);
    }
    let rows: Vec<Submission> = found
        .into_iter()
        .map(|(folder, path)| locate(folder, path))
        .collect();
    Ok(name_rows(rows))
}

/// The row of entry `path` (named `folder`): where its `kernels/src` is, or why none.
fn locate(folder: String, path: PathBuf) -> Submission {
    let row = |path: PathBuf, found_at: Option<String>, problem: Option<String>| Submission {
        name: String::new(),
        folder: folder.clone(),
        path,
        found_at,
        problem,
    };
    let meta = std::fs::symlink_metadata(&path);
    if meta.as_ref().is_ok_and(|m| m.file_type().is_symlink()) || is_submission(&path) {
        // A linked entry is refused when graded (`own_folder`), with its reason.
        return row(path, None, None);
    }
    if !path.is_dir() {
        return row(
            path,
            None,
            Some(
                "not a folder: each submission is a folder holding kernels/src (an archive? \
                 unpack it into a folder of its own)"
                    .into(),
            ),
        );
    }
    let mut hits = Vec::new();
    let mut seen = Vec::new();
    search(&path, 1, &mut hits, &mut seen);
    match hits.as_slice() {
        [one] => {
            let at = one
                .strip_prefix(&path)
                .unwrap_or(one)
                .join("kernels/src")
                .to_string_lossy()
                .replace('\\', "/");
            row(one.clone(), Some(at), None)
        }
        [] => {
            seen.sort();
            seen.truncate(12);
            let holds = if seen.is_empty() {
                "it is empty".to_string()
            } else {
                format!("it holds {}", seen.join(", "))
            };
            row(
                path,
                None,
                Some(format!(
                    "no submission: no kernels/src in this folder or up to {SEARCH_DEPTH} levels \
                     below ({holds})"
                )),
            )
        }
        many => {
            let list: Vec<String> = many
                .iter()
                .map(|p| {
                    p.strip_prefix(&path)
                        .unwrap_or(p)
                        .join("kernels/src")
                        .to_string_lossy()
                        .replace('\\', "/")
                })
                .collect();
            row(
                path,
                None,
                Some(format!(
                    "{} folders hold kernels/src ({}): which one is the submission cannot be \
                     told; keep one",
                    many.len(),
                    list.join(", ")
                )),
            )
        }
    }
}

/// The folders below `dir` (down to [`SEARCH_DEPTH`]) that hold `kernels/src`, into `hits`;
/// what the first level holds (its entries' names, for a row's reason), into `seen`. Hidden
/// folders, build output (`target`) and links are not entered.
fn search(dir: &Path, depth: usize, hits: &mut Vec<PathBuf>, seen: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let p = e.path();
        if depth == 1 {
            seen.push(name.clone());
        }
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if !is_dir || name.starts_with('.') || name == "target" {
            continue;
        }
        if is_submission(&p) {
            hits.push(p);
        } else if depth < SEARCH_DEPTH {
            search(&p, depth + 1, hits, seen);
        }
    }
}

/// Gives every row its name ([`Submission::name`]): unique and deterministic.
fn name_rows(mut rows: Vec<Submission>) -> Vec<Submission> {
    let mut count: std::collections::BTreeMap<String, usize> = Default::default();
    for r in &rows {
        *count.entry(r.folder.clone()).or_default() += 1;
    }
    let mut names = BTreeSet::new();
    for r in &mut rows {
        let safe = safe_name(&r.folder);
        let mut name = if safe == r.folder && count[&r.folder] == 1 {
            safe.clone()
        } else {
            let key = r.path.display().to_string();
            format!("{safe}-{:08x}", course::draw::hash(key.as_bytes()) as u32)
        };
        let mut k = 2;
        while !names.insert(name.clone()) {
            name = format!("{safe}-{k}");
            k += 1;
        }
        r.name = name;
    }
    rows
}

/// The folder of `OUT` that holds one folder of reports per row: apart from the class's
/// own files (`gradebook.csv`, `summary.txt`, `changes.csv`), so that no submission's name
/// can collide with them.
pub const SUBMISSIONS: &str = "submissions";

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
    /// Grading on a GPU instead of the emulator alone, if so.
    pub gpu: Option<Gpu<'a>>,
}

/// How a class is graded on a GPU: one submission at a time (so that each one's kernel
/// times are its own), each exercise in a child process of its own on both judges
/// ([`crate::engine::grade_on`]), then its kernels timed ([`crate::gpu_times`]).
#[derive(Clone, Debug)]
pub struct Gpu<'a> {
    /// The GPU.
    pub target: crate::Target,
    /// The toolchain and reference to build each submission with
    /// ([`crate::gpu_build::prepare`]); `None` when the rows are folders that
    /// `--prepare-gpu` wrote ([`discover_prepared`]).
    pub build: Option<(&'a ptx_builder::Toolchain, &'a crate::gpu_build::Reference)>,
}

/// The rows of a class that `--prepare-gpu` wrote into each of `paths`: every folder
/// directly under it (or the path itself when it holds a prepared submission), named as
/// it was prepared.
pub fn discover_prepared(paths: &[PathBuf]) -> Result<Vec<Submission>, String> {
    let prepared = |p: &Path| {
        p.join(crate::gpu_build::files::KERNELS_PTX).is_file()
            || p.join(crate::gpu_build::files::ERROR).is_file()
    };
    let mut rows = Vec::new();
    for path in paths {
        let mut here: Vec<PathBuf> = if prepared(path) {
            vec![path.clone()]
        } else {
            std::fs::read_dir(path)
                .map_err(|e| format!("--class {}: cannot read it: {e}", path.display()))?
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.is_dir()
                        && !p
                            .file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                })
                .collect()
        };
        here.sort();
        for p in here {
            let folder = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            rows.push(Submission {
                name: safe_name(&folder),
                problem: (!prepared(&p)).then(|| {
                    "not a folder written by --prepare-gpu (no kernels.ptx, no error.txt)"
                        .to_string()
                }),
                folder,
                path: p,
                found_at: None,
            });
        }
    }
    if rows.is_empty() {
        return Err("--class --prepared: no prepared submission there".into());
    }
    Ok(rows)
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
        // On a GPU, one submission at a time: its checks and times have the GPU to themselves.
        let lanes = if o.gpu.is_some() { 1 } else { o.jobs };
        for _ in 0..lanes.clamp(1, submissions.len().max(1)) {
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
    if let Some(why) = &sub.problem {
        return (Err(why.clone()), t.elapsed());
    }
    let src = sub.path.join("kernels").join("src");
    if let Some(gpu) = &o.gpu {
        let prepared = match gpu.build {
            None => crate::gpu_build::Prepared::open(&sub.path),
            Some((tc, reference)) => own_folder(&sub.path)
                .and_then(|()| gpu_host::sources::own_folders(&src))
                .and_then(|()| {
                    let dir = crate::gpu_build::scratch_dir(&src, o.root);
                    crate::gpu_build::prepare(&src, o.root, tc, reference, &dir)
                }),
        };
        let build = t.elapsed();
        return (
            prepared.and_then(|p| check_gpu(sub, o, &gpu.target, &p)),
            build,
        );
    }
    if let Err(why) = own_folder(&sub.path).and_then(|()| gpu_host::sources::own_folders(&src)) {
        return (Err(why), t.elapsed());
    }
    let built = gpu_host::lanes::build_submission(&src, o.root);
    let build = t.elapsed();
    (
        built.and_then(|(module, outline)| check(sub, o, module, &outline)),
        build,
    )
}

/// A submission's folder is its own: a symbolic link in the class folder (to another
/// submission, to the course) is refused, as links inside a submission are.
fn own_folder(path: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(
            "this submission's folder is a symbolic link: each submission is graded from a folder \
             of its own (copy the files, not a link to them)"
                .to_string(),
        ),
        Ok(_) => Ok(()),
        Err(e) => Err(format!("cannot read this submission's folder: {e}")),
    }
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

/// The checks of a submission prepared for the GPU (`p`) on `target`, each exercise in a
/// child of its own on both judges, then its kernels timed.
fn check_gpu(
    sub: &Submission,
    o: &Options,
    target: &crate::Target,
    p: &crate::gpu_build::Prepared,
) -> Result<Report, String> {
    let env = p.env();
    let isolation = crate::engine::Isolation::Subprocess {
        exe: o.exe.to_path_buf(),
        env: env.clone(),
    };
    let mut exercises = crate::engine::grade_on(
        o.chapters,
        o.selection,
        KernelSource::Student,
        &o.limits,
        &isolation,
        o.jobs,
        target,
    )?;
    crate::gpu_times::attach(
        &mut exercises,
        o.exe,
        &env,
        o.chapters,
        o.selection,
        &o.limits,
    );
    let paths = crate::report::machine_paths(o.root, Some(&sub.path));
    Ok(
        Report::new(KernelSource::Student, o.limits, o.chapters, exercises, None)
            .on(target)
            .answers(&p.outline())
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
    let dir = o.out.join(SUBMISSIONS).join(&sub.name);
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
            format!("; {failed} could not be graded (see submissions/<name>/error.txt)")
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

    fn scratch(name: &str) -> PathBuf {
        let base = std::env::temp_dir().join(format!("grade-class-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        base
    }

    #[test]
    fn names_are_safe_unique_and_deterministic() {
        assert_eq!(safe_name("alice"), "alice");
        assert_eq!(safe_name("../../etc"), "_.._etc");
        assert_eq!(safe_name(".."), "submission");
        assert_eq!(safe_name("a b/ü"), "a_b__");
        let base = scratch("names");
        for who in ["x/bob", "y/bob", "y/carol", "y/j doe", "y/j_doe"] {
            std::fs::create_dir_all(base.join(who).join("kernels/src")).unwrap();
        }
        let found = discover(&[base.join("x"), base.join("y")], None).unwrap();
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), 5);
        assert_eq!(names.iter().collect::<BTreeSet<_>>().len(), 5, "{names:?}");
        // A folder whose name is already safe and unique keeps it; the others are named by
        // a hash of their own path, whatever else the class holds.
        assert_eq!((names[2], names[4]), ("carol", "j_doe"));
        assert!(
            names[0].starts_with("bob-") && names[3].starts_with("j_doe-"),
            "{names:?}"
        );
        let alone = discover(&[base.join("y")], None).unwrap();
        assert_eq!(alone[2].name, names[3], "the same name in another class");
        let folders: Vec<&str> = found.iter().map(|s| s.folder.as_str()).collect();
        assert_eq!(folders, ["bob", "bob", "carol", "j doe", "j_doe"]);
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn every_entry_is_a_row_nested_empty_or_foreign() {
        let base = scratch("rows");
        let class = base.join("class");
        std::fs::create_dir_all(class.join("alice/repo/kernels/src")).unwrap();
        std::fs::create_dir_all(class.join("bob/kernels/src")).unwrap();
        std::fs::create_dir_all(class.join("carol")).unwrap();
        std::fs::create_dir_all(class.join("dave/notes")).unwrap();
        std::fs::create_dir_all(class.join("erin/a/kernels/src")).unwrap();
        std::fs::create_dir_all(class.join("erin/b/kernels/src")).unwrap();
        std::fs::create_dir_all(class.join("gradebook.csv")).unwrap();
        std::fs::create_dir_all(class.join(".git")).unwrap();
        std::fs::write(class.join("frank.zip"), "PK").unwrap();
        let out = class.join("grades");
        std::fs::create_dir_all(&out).unwrap();
        let rows = discover(std::slice::from_ref(&class), Some(&out)).unwrap();
        let by = |f: &str| rows.iter().find(|r| r.folder == f).unwrap();
        let folders: Vec<&str> = rows.iter().map(|r| r.folder.as_str()).collect();
        assert_eq!(
            folders,
            [
                "alice",
                "bob",
                "carol",
                "dave",
                "erin",
                "frank.zip",
                "gradebook.csv"
            ]
        );
        assert_eq!(by("alice").found_at.as_deref(), Some("repo/kernels/src"));
        assert!(by("alice").path.ends_with("alice/repo") && by("alice").problem.is_none());
        assert!(by("bob").problem.is_none() && by("bob").found_at.is_none());
        assert!(
            by("carol")
                .problem
                .as_deref()
                .unwrap()
                .contains("it is empty")
        );
        assert!(
            by("dave")
                .problem
                .as_deref()
                .unwrap()
                .contains("it holds notes")
        );
        assert!(by("erin").problem.as_deref().unwrap().contains("2 folders"));
        assert!(
            by("frank.zip")
                .problem
                .as_deref()
                .unwrap()
                .contains("not a folder")
        );
        assert!(by("gradebook.csv").problem.is_some());
        assert!(discover(&[base.join("nothing")], None).is_err());
        let _ = std::fs::remove_dir_all(&base);
    }
}
