//! Building a kernel crate for the sandbox: cargo for `wasm32-unknown-unknown`, in an
//! environment the course defines, and the student's answers built one broken exercise at a
//! time under one budget.
//!
//! **The environment.** The build sees none of the machine's environment but an allow-list
//! ([`ALLOWED_ENV`]: where the toolchain and cargo's home are, and the temporary folder);
//! every path of the machine is remapped out of what the compiler writes (`--remap-path-prefix`
//! for the course's root and the toolchain), and `env!`/`option_env!` are
//! refused in the answers ([`crate::sources`]). So a kernel behaves, and a report reads, the
//! same on the grading machine as on the student's laptop.
//!
//! **One budget.** A Rust crate compiles whole or not at all, so an answer that does not
//! compile is put back to the course's stub and the crate built again, its exercise
//! reported as not compiling and every other exercise graded on the student's code
//! ([`build_answers`]). Each compile error names a line; everything outside the regions is
//! the course's (which builds on its own), so the error belongs to the region that holds
//! the line, else the nearest region above it ([`Answers::culprit`]). Every build of one
//! submission draws on one wall-clock budget ([`crate::lanes::build_limit`]): a submission
//! that fails in pass after pass costs at most that, and says when it ran out.

use crate::answers::{self, Answers, Ignored};
use crate::bounded::{self, Bounded};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The environment variables a build of a kernel crate sees, when the machine has them:
/// where cargo, rustup and the toolchain live, and the temporary folder (Windows needs its
/// system folders). Nothing else of the machine reaches the compiler.
pub const ALLOWED_ENV: [&str; 13] = [
    "PATH",
    "HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "TMPDIR",
    "TMP",
    "TEMP",
    "SYSTEMROOT",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "PATHEXT",
];

/// What a build of a student's answers left out: the exercises whose answer was put back
/// to the stub (and why), the edits outside the regions, and a note on the build itself.
/// Written beside the module it describes, for every process that loads the module.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outline {
    /// Exercises whose answer was not built, by id: why (the first line), then details
    /// (the compiler's errors at the student's lines).
    pub broken: BTreeMap<String, Vec<String>>,
    /// Edits of the student's files outside the answer regions: not built.
    pub ignored: Vec<Ignored>,
    /// How many builds it took, when more than one, and whether the budget ran out.
    pub note: Option<String>,
}

/// How the reason of an answer that does not compile starts (the tools tell this kind of
/// failure by it: the student's own compile error, "fix the errors below").
pub const DOES_NOT_COMPILE: &str = "does not compile, so it was built as the course's stub";

/// How the reason of an answer written for an earlier version of its exercise's stub
/// starts: the function it sits in has another signature now.
pub const SIGNATURE_CHANGED: &str = "this exercise's signature changed";

/// One cargo build's result.
#[derive(Debug)]
pub enum Attempt {
    /// The module's bytes.
    Built(Vec<u8>),
    /// The compiler's messages.
    Failed(String),
    /// Stopped at its time limit.
    Stopped,
}

/// The student's answers in `src` (their `kernels/src`) built for the sandbox as the
/// course at `root` does, in the scratch workspace `ws` (see the module docs): the module,
/// or why none could be built, and what was left out.
pub fn build_answers(src: &Path, root: &Path, ws: &Path) -> (Result<Vec<u8>, String>, Outline) {
    let pristine = root.join(answers::PRISTINE_DIR);
    let crate_name = crate::lanes::student_crate(src);
    if let Err(why) = scratch_workspace(root, ws, &crate_name) {
        return (Err(why), Outline::default());
    }
    let target = root.join("target").join("lanes");
    let flags = remap_flags(root);
    // The budget is charged with this submission's own work only: writing its files and
    // its cargo run, never the wait for the shared target folder's lock (another
    // submission's build, however long, costs this one nothing).
    rounds_timed(
        &mut |put_back| answers::splice(src, &pristine, put_back),
        &mut |answers, limit| {
            // The sources written, built and the module read under one hold of the lock:
            // another process building the same answers' workspace (the runner beside a
            // `cargo test`) cannot write between them.
            let lock = lock_target(&target)?;
            let t = Instant::now();
            answers::write(answers, &ws.join("kernels").join("src"))?;
            let written = t.elapsed();
            let built = build_locked(
                ws,
                &crate_name,
                &target,
                limit.saturating_sub(written),
                &flags,
            );
            drop(lock);
            let (attempt, ran) = built?;
            Ok((attempt, written + ran))
        },
        crate::lanes::build_limit(),
    )
}

/// The rounds of [`build_answers`]: `splice` gives the answers with some exercises put
/// back, `build` builds them within a time limit (returning how long it took is its own
/// business: the budget is measured here). Generic so that a test can drive it.
pub fn rounds(
    mut splice: impl FnMut(&BTreeSet<String>) -> Result<Answers, String>,
    mut build: impl FnMut(&Answers, Duration) -> Result<Attempt, String>,
    budget: Duration,
) -> (Result<Vec<u8>, String>, Outline) {
    rounds_timed(
        &mut splice,
        &mut |a, limit| {
            let t = Instant::now();
            build(a, limit).map(|r| (r, t.elapsed()))
        },
        budget,
    )
}

/// A build of some answers within a time limit: what it gave and how long it took.
pub type TimedBuild<'a> = dyn FnMut(&Answers, Duration) -> Result<(Attempt, Duration), String> + 'a;

/// [`rounds`], with `build` saying how long each build took.
pub fn rounds_timed(
    splice: &mut dyn FnMut(&BTreeSet<String>) -> Result<Answers, String>,
    build: &mut TimedBuild,
    budget: Duration,
) -> (Result<Vec<u8>, String>, Outline) {
    let mut outline = Outline::default();
    let mut put_back = BTreeSet::new();
    let mut left = budget;
    let mut builds = 0;
    let ran_out = |builds: usize| {
        format!(
            "the build budget of this submission ({} s for all its builds, {} sets it) ran out \
             after {builds} build(s): the code left does not compile in time",
            budget.as_secs(),
            crate::lanes::BUILD_LIMIT_ENV
        )
    };
    let module = loop {
        let answers = match splice(&put_back) {
            Ok(a) => a,
            Err(why) => break Err(why),
        };
        outline.ignored = answers.ignored.clone();
        for (id, why) in &answers.refused {
            outline
                .broken
                .entry(id.clone())
                .or_insert_with(|| why.clone());
        }
        if left.is_zero() {
            outline.note = Some(ran_out(builds));
            break Err(ran_out(builds));
        }
        let (attempt, took) = match build(&answers, left) {
            Ok(r) => r,
            Err(why) => break Err(why),
        };
        builds += 1;
        left = left.saturating_sub(took);
        match attempt {
            Attempt::Built(bytes) => break Ok(bytes),
            Attempt::Stopped => {
                outline.note = Some(ran_out(builds));
                break Err(ran_out(builds));
            }
            Attempt::Failed(why) => {
                let blamed = blame(&why, &answers);
                let fresh: Vec<&String> =
                    blamed.keys().filter(|id| !put_back.contains(*id)).collect();
                if blamed.is_empty() || fresh.is_empty() {
                    // Nothing names a line of an answer (rustc crashed or reached its memory
                    // limit, the linker failed): the answer it comes from is found by putting
                    // answers back, half of those left at a time.
                    let mut trial = |set: &BTreeSet<String>| -> Result<bool, String> {
                        let answers = splice(set)?;
                        if left.is_zero() {
                            return Err(ran_out(builds));
                        }
                        let (attempt, took) = build(&answers, left)?;
                        builds += 1;
                        left = left.saturating_sub(took);
                        Ok(match attempt {
                            Attempt::Built(_) => false,
                            Attempt::Stopped => return Err(ran_out(builds)),
                            Attempt::Failed(why) => {
                                let blamed = blame(&why, &answers);
                                blamed.is_empty() || blamed.keys().all(|id| set.contains(id))
                            }
                        })
                    };
                    match culprit(&answers, &put_back, &mut trial) {
                        Ok(Some(id)) => {
                            let first = why.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                            outline.broken.entry(id.clone()).or_insert(vec![format!(
                                "{DOES_NOT_COMPILE} (the other exercises were built without it): \
                                 the compiler stopped on it without naming a line (it crashed, or \
                                 reached its memory limit): {first}"
                            )]);
                            put_back.insert(id);
                            continue;
                        }
                        Ok(None) => {}
                        Err(why) => {
                            if why.contains("ran out after") {
                                outline.note = Some(why.clone());
                            }
                            break Err(why);
                        }
                    }
                    break Err(format!(
                        "your kernels do not compile for the emulator:\n{why}"
                    ));
                }
                for (id, errors) in blamed {
                    put_back.insert(id.clone());
                    let first = errors.first().map(String::as_str).unwrap_or("error");
                    let mut lines = vec![match answers.signatures.get(&id) {
                        Some((ours, yours)) => format!(
                            "{SIGNATURE_CHANGED}: it is now `{ours}`, your answer sits in \
                             `{yours}` (written for an earlier version of the stub), so it does \
                             not compile ({first}) and was built as the course's stub"
                        ),
                        None => format!(
                            "{DOES_NOT_COMPILE} (the other exercises were built without it): \
                             {first}"
                        ),
                    }];
                    lines.extend(errors.into_iter().skip(1));
                    outline.broken.entry(id).or_insert(lines);
                }
            }
        }
    };
    if builds > 1 && outline.note.is_none() {
        outline.note = Some(format!(
            "built {builds} times: the answers that do not compile were put back one pass at a time"
        ));
    }
    (module, outline)
}

/// The exercise whose answer makes a build fail without naming a line, among those of
/// `answers` not in `put_back`: `trial(set)` builds with `set` put back and says whether
/// it still fails so. `None` when putting all of them back does not help (the failure is
/// not an answer's). Halves the candidates at each build: a few builds for a whole course.
fn culprit(
    answers: &Answers,
    put_back: &BTreeSet<String>,
    trial: &mut dyn FnMut(&BTreeSet<String>) -> Result<bool, String>,
) -> Result<Option<String>, String> {
    let mut candidates: Vec<String> = Vec::new();
    for p in &answers.placed {
        if !put_back.contains(&p.id) && !candidates.contains(&p.id) {
            candidates.push(p.id.clone());
        }
    }
    let with = |n: usize| -> BTreeSet<String> {
        put_back
            .iter()
            .cloned()
            .chain(candidates[..n].iter().cloned())
            .collect()
    };
    if candidates.is_empty() || trial(&with(candidates.len()))? {
        return Ok(None);
    }
    // Putting back the first `lo` still fails; the first `hi` does not.
    let (mut lo, mut hi) = (0, candidates.len());
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if trial(&with(mid))? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(candidates[hi - 1].clone()))
}

/// The errors of a failed build (`why`, the compiler's messages) by the exercise they
/// belong to ([`Answers::culprit`]), at the student's lines. Empty when an error has no
/// place in the answers' files (then nothing can be put back).
fn blame(why: &str, answers: &Answers) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<(Vec<String>, Option<String>)> = None;
    let mut unplaced = false;
    let mut flush = |c: Option<(Vec<String>, Option<String>)>, out: &mut BTreeMap<_, Vec<_>>| {
        if let Some((text, id)) = c {
            match id {
                Some(id) => out.entry(id).or_default().extend(text),
                None => unplaced = true,
            }
        }
    };
    for line in why.lines() {
        let t = line.trim_end();
        let starts = t.starts_with("error");
        if starts || t.starts_with("warning") {
            flush(current.take(), &mut out);
            let summary =
                t.starts_with("error: could not compile") || t.starts_with("error: aborting");
            if starts && !summary {
                current = Some((vec![t.to_string()], None));
            }
            continue;
        }
        let Some((text, id)) = current.as_mut() else {
            continue;
        };
        let mut shown = t.to_string();
        if let Some((file, line_no, rest)) = location(t) {
            if id.is_none() {
                *id = answers.culprit(&file, line_no).map(str::to_string);
            }
            if let Some(student) = answers.student_line(&file, line_no) {
                let prefix = &t[..t.find("kernels/src/").unwrap_or(0)];
                shown = format!("{prefix}kernels/src/{file}:{student}{rest}");
            }
        }
        if !t.trim().is_empty() {
            text.push(shown);
        }
    }
    flush(current.take(), &mut out);
    if unplaced { BTreeMap::new() } else { out }
}

/// The most spaces before a location line's arrow: rustc indents it by the width of its
/// line numbers (six digits: a million lines). A message's own lines are indented by its
/// header (`error: `, seven characters), so a `compile_error!` text that holds `-->` and a
/// place cannot pass for the place of its error (and blame another answer).
const LOCATION_INDENT: usize = 6;

/// The file (relative to `kernels/src`), line and the rest (`:col`) of a compiler's
/// location line (`  --> kernels/src/ch09.rs:718:56`, or `:::` for another file's span).
fn location(line: &str) -> Option<(String, usize, String)> {
    let arrow = line.trim_start_matches(' ');
    let indent = line.len() - arrow.len();
    if indent > LOCATION_INDENT || !(arrow.starts_with("--> ") || arrow.starts_with("::: ")) {
        return None;
    }
    let at = line.find("kernels/src/")?;
    let rest = &line[at + "kernels/src/".len()..];
    let (file, after) = rest.split_once(".rs:")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    let n = digits.parse().ok()?;
    Some((format!("{file}.rs"), n, after[digits.len()..].to_string()))
}

/// Writes the scratch workspace at `ws` that builds the course's `kernels` crate from
/// `ws/kernels/src` under the name `crate_name`, with the course's `gpu` crate (the
/// sandbox's build and the grader's PTX build of a submission).
pub fn scratch_workspace(root: &Path, ws: &Path, crate_name: &str) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot prepare {}: {e}", ws.display());
    let krate = ws.join("kernels");
    std::fs::create_dir_all(krate.join("src")).map_err(io)?;
    write_if_changed(
        &krate.join("Cargo.toml"),
        &format!(
            "[package]\nname = {crate_name:?}\nedition.workspace = true\nversion.workspace = true\n\
             publish = false\n\n[lib]\npath = \"src/lib.rs\"\n\n[dependencies]\n\
             gpu.workspace = true\n"
        ),
    )
    .map_err(io)?;
    let lock = std::fs::read(root.join("Cargo.lock")).unwrap_or_default();
    if std::fs::read(ws.join("Cargo.lock")).ok() != Some(lock.clone()) {
        std::fs::write(ws.join("Cargo.lock"), lock).map_err(io)?;
    }
    let course = std::fs::read_to_string(root.join("Cargo.toml")).map_err(io)?;
    let package = course
        .split("[workspace.package]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .ok_or("the course's Cargo.toml has no [workspace.package]")?;
    let gpu = root.join("crates").join("gpu");
    write_if_changed(
        &ws.join("Cargo.toml"),
        &format!(
            "# Written by the course: the student's answers in the course's kernels crate.\n\
             [workspace]\nresolver = \"3\"\nmembers = [\"kernels\"]\n\n\
             [workspace.package]{package}\n\
             [workspace.dependencies]\ngpu = {{ path = {:?} }}\n",
            gpu.display().to_string()
        ),
    )
    .map_err(io)
}

fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    std::fs::write(path, text)
}

/// The `--remap-path-prefix` flags of a build for the sandbox (as
/// `CARGO_ENCODED_RUSTFLAGS`): the toolchain and the course's root are written as `<rust>`
/// and relative paths in whatever the compiler writes (messages, panic locations), so no
/// report holds a path of the machine (the crates built for the sandbox are the course's
/// and the standard library: none comes from cargo's registry under the home folder).
/// Later flags win.
pub fn remap_flags(root: &Path) -> String {
    let mut flags = Vec::new();
    let mut remap = |from: &Path, to: &str| {
        let from = from.display().to_string();
        if !from.is_empty() {
            flags.push(format!("--remap-path-prefix={from}={to}"));
        }
    };
    if let Some(sysroot) = sysroot() {
        remap(&sysroot, "<rust>");
    }
    remap(root, ".");
    flags.join("\u{1f}")
}

/// The toolchain's folder (`rustc --print sysroot`), once per process.
fn sysroot() -> Option<PathBuf> {
    static SYSROOT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    SYSROOT
        .get_or_init(|| {
            let out = Command::new("rustc")
                .args(["--print", "sysroot"])
                .output()
                .ok()?;
            let s = String::from_utf8(out.stdout).ok()?;
            out.status.success().then(|| PathBuf::from(s.trim()))
        })
        .clone()
}

/// A `cargo` command with none of this process's environment but [`ALLOWED_ENV`].
fn clean_cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.env_clear();
    for name in ALLOWED_ENV {
        if let Some(v) = std::env::var_os(name) {
            cmd.env(name, v);
        }
    }
    cmd.env("CARGO_TERM_COLOR", "never");
    cmd
}

/// `cargo rustc` of crate `name` of the workspace at `ws` for `wasm32-unknown-unknown`,
/// as a cdylib with the lane's stack, into `target_dir`, stopped after `limit`.
///
/// Every build into `target_dir` writes the same output file when the crate names are
/// the same, so a lock file held from the build to the read keeps concurrent builds (a
/// grader's students, parallel tests) from reading each other's module.
pub fn cargo_build(
    ws: &Path,
    name: &str,
    target_dir: &Path,
    limit: Duration,
    flags: &str,
) -> Result<Attempt, String> {
    cargo_build_timed(ws, name, target_dir, limit, flags).map(|(attempt, _)| attempt)
}

/// [`cargo_build`], and how long the build itself ran: from the moment it held the
/// target folder's lock, so that a wait behind another build is not counted (the time a
/// submission's budget is charged with).
pub fn cargo_build_timed(
    ws: &Path,
    name: &str,
    target_dir: &Path,
    limit: Duration,
    flags: &str,
) -> Result<(Attempt, Duration), String> {
    let lock = lock_target(target_dir)?;
    let built = build_locked(ws, name, target_dir, limit, flags);
    drop(lock);
    built
}

/// Takes the lock of the sandbox's target folder `target_dir` (waiting for any other
/// build into it, of this process or another), held until the file is dropped: what a
/// build writes, builds and reads under it is its own, whoever builds beside it (the
/// runner's rebuild and a `cargo test` started together give the verdict each would
/// give alone).
pub fn lock_target(target_dir: &Path) -> Result<std::fs::File, String> {
    std::fs::create_dir_all(target_dir)
        .map_err(|e| format!("cannot create {}: {e}", target_dir.display()))?;
    let lock_path = target_dir.join(".course-build.lock");
    let lock = std::fs::File::create(&lock_path)
        .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    Ok(lock)
}

/// [`cargo_build_timed`] with the target folder's lock already held ([`lock_target`]).
fn build_locked(
    ws: &Path,
    name: &str,
    target_dir: &Path,
    limit: Duration,
    flags: &str,
) -> Result<(Attempt, Duration), String> {
    let started = Instant::now();
    let run = |limit: Duration| {
        let mut cmd = clean_cargo();
        cmd.current_dir(ws)
            .args(["rustc", "--quiet", "--color", "never", "-p", name])
            .args([
                "--profile",
                crate::lanes::PROFILE,
                "--target",
                "wasm32-unknown-unknown",
            ]);
        for setting in crate::lanes::PROFILE_SETTINGS {
            cmd.arg("--config")
                .arg(format!("profile.{}.{setting}", crate::lanes::PROFILE));
        }
        cmd.arg("--target-dir")
            .arg(target_dir)
            .args(["--crate-type", "cdylib", "--"])
            .arg(format!(
                "-Clink-arg=-zstack-size={}",
                crate::lanes::LANE_STACK_BYTES
            ))
            // Where the statics start: a pooled lane gets them back as they were.
            .arg("-Clink-arg=--export=__global_base")
            .env("CARGO_ENCODED_RUSTFLAGS", flags);
        bounded::run(cmd, limit, crate::lanes::build_memory())
            .map_err(|e| format!("could not run cargo to build `{name}` for the sandbox: {e}"))
    };
    let mut out = match run(limit)? {
        Bounded::Done(out) => out,
        Bounded::Stopped => return Ok((Attempt::Stopped, started.elapsed())),
    };
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() && missing_target(&stderr) {
        let added = Command::new("rustup")
            .args(["target", "add", "wasm32-unknown-unknown"])
            .output();
        match added {
            Ok(a) if a.status.success() => {
                out = match run(limit.saturating_sub(started.elapsed()))? {
                    Bounded::Done(out) => out,
                    Bounded::Stopped => return Ok((Attempt::Stopped, started.elapsed())),
                }
            }
            _ => {
                return Err(
                    "the emulator runs kernels as WebAssembly, and the wasm32 target is missing: \
                     run `rustup target add wasm32-unknown-unknown`"
                        .into(),
                );
            }
        }
    }
    if !out.status.success() {
        return Ok((
            Attempt::Failed(String::from_utf8_lossy(&out.stderr).trim_end().to_string()),
            started.elapsed(),
        ));
    }
    let path = target_dir
        .join("wasm32-unknown-unknown")
        .join(crate::lanes::PROFILE)
        .join(format!("{}.wasm", name.replace('-', "_")));
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "cargo built `{name}` but {} cannot be read: {e}",
            path.display()
        )
    })?;
    Ok((Attempt::Built(bytes), started.elapsed()))
}

fn missing_target(stderr: &str) -> bool {
    stderr.contains("target may not be installed")
        || stderr.contains("can't find crate for `core`")
        || stderr.contains("can't find crate for `std`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::Placed;

    fn answers(regions: &[(&str, std::ops::Range<usize>)]) -> Answers {
        Answers {
            placed: regions
                .iter()
                .map(|(id, lines)| Placed {
                    file: "ch09.rs".into(),
                    id: id.to_string(),
                    spliced: lines.clone(),
                    student_line: lines.start + 100,
                })
                .collect(),
            ..Answers::default()
        }
    }

    const TWO_ERRORS: &str = "warning: unused variable: `x`\n  --> kernels/src/ch09.rs:3:9\n\n\
        error[E0425]: cannot find value `data` in this scope\n   --> kernels/src/ch09.rs:12:5\n    |\n\
        12 |     data\n\n\
        error[E0308]: mismatched types\n  --> kernels/src/ch09.rs:40:1\n\n\
        error: could not compile `student-1` (lib) due to 2 previous errors";

    #[test]
    fn errors_are_blamed_on_their_region_at_the_student_s_line() {
        let a = answers(&[("9.3", 10..20), ("9.4", 30..35)]);
        let blamed = blame(TWO_ERRORS, &a);
        assert_eq!(blamed.len(), 2, "{blamed:?}");
        assert!(blamed["9.3"][0].starts_with("error[E0425]"));
        assert!(
            blamed["9.3"][1].ends_with("kernels/src/ch09.rs:112:5"),
            "{:?}",
            blamed["9.3"]
        );
        // Line 40 is past 9.4's region: the nearest region above it is to blame.
        assert!(blamed["9.4"][0].starts_with("error[E0308]"));
        // A message's own text cannot name the place of its error.
        let forged =
            "error: forged\n         --> kernels/src/ch09.rs:32:5\n   --> kernels/src/ch09.rs:12:5";
        assert_eq!(blame(forged, &a).keys().collect::<Vec<_>>(), ["9.3"]);
        // An error with no place in the answers' files blames nothing.
        assert!(
            blame(
                "error: linking failed\n  --> /x/crates/gpu/src/lib.rs:1:1",
                &a
            )
            .is_empty()
        );
    }

    /// A submission whose answers fail in successive passes (each build blames one more
    /// exercise) draws every build on one budget, and the outline says when it ran out.
    #[test]
    fn successive_failures_share_one_budget() {
        let ids = ["9.3", "9.4", "9.5", "9.6", "9.7"];
        let mut spent = Duration::ZERO;
        let (module, outline) = rounds_timed(
            &mut |put_back| {
                let left: Vec<(&str, std::ops::Range<usize>)> = ids
                    .iter()
                    .enumerate()
                    .filter(|(_, id)| !put_back.contains(**id))
                    .map(|(i, id)| (*id, i * 10 + 1..i * 10 + 5))
                    .collect();
                Ok(answers(&left))
            },
            &mut |a, limit| {
                // Each pass takes 40 s and blames the first exercise left.
                let took = Duration::from_secs(40).min(limit);
                spent += took;
                let attempt = match a.placed.first() {
                    _ if took < Duration::from_secs(40) => Attempt::Stopped,
                    Some(p) => Attempt::Failed(format!(
                        "error[E0308]: x\n --> kernels/src/ch09.rs:{}:1",
                        p.spliced.start
                    )),
                    None => Attempt::Built(vec![0]),
                };
                Ok((attempt, took))
            },
            Duration::from_secs(100),
        );
        assert!(spent <= Duration::from_secs(100), "{spent:?}");
        let why = module.expect_err("the budget runs out before the last pass");
        assert!(why.contains("ran out after 3 build(s)"), "{why}");
        assert_eq!(outline.note.as_deref(), Some(why.as_str()));
        assert_eq!(outline.broken.len(), 2, "{:?}", outline.broken);
    }

    /// A build that fails without naming a line (rustc out of memory on one answer) costs
    /// only that answer, found by halves in a few builds.
    #[test]
    fn a_failure_that_names_no_line_is_traced_to_its_answer() {
        let ids: Vec<String> = (1..=16).map(|i| format!("9.{i}")).collect();
        let mut builds = 0;
        let (module, outline) = rounds(
            |put_back| {
                let left: Vec<(&str, std::ops::Range<usize>)> = ids
                    .iter()
                    .enumerate()
                    .filter(|(_, id)| !put_back.contains(*id))
                    .map(|(i, id)| (id.as_str(), i * 10 + 1..i * 10 + 5))
                    .collect();
                Ok(answers(&left))
            },
            |a, _| {
                builds += 1;
                Ok(if a.placed.iter().any(|p| p.id == "9.11") {
                    Attempt::Failed("memory allocation of 167772160 bytes failed\n".into())
                } else {
                    Attempt::Built(vec![0])
                })
            },
            Duration::from_secs(100),
        );
        assert_eq!(module, Ok(vec![0]));
        assert_eq!(outline.broken.keys().collect::<Vec<_>>(), ["9.11"]);
        assert!(
            outline.broken["9.11"][0].contains("without naming a line"),
            "{:?}",
            outline.broken
        );
        assert!(builds <= 8, "{builds} builds");
        // Where putting every answer back fails the same way, the failure is not an answer's.
        let (module, _) = rounds(
            |_| Ok(answers(&[("9.3", 1..5)])),
            |_, _| Ok(Attempt::Failed("error: linking failed\n".into())),
            Duration::from_secs(10),
        );
        assert!(
            module
                .unwrap_err()
                .starts_with("your kernels do not compile")
        );
    }

    #[test]
    fn a_pass_that_blames_nothing_new_fails_the_whole_crate() {
        let (module, outline) = rounds(
            |_| Ok(answers(&[("9.3", 1..5)])),
            |_, _| {
                Ok(Attempt::Failed(
                    "error: x\n --> kernels/src/ch09.rs:2:1".into(),
                ))
            },
            Duration::from_secs(10),
        );
        assert!(
            module
                .unwrap_err()
                .starts_with("your kernels do not compile")
        );
        assert!(outline.broken.contains_key("9.3"));
    }

    #[test]
    fn the_remap_flags_hide_the_root() {
        let flags = remap_flags(Path::new("/some/course"));
        assert!(
            flags.ends_with("--remap-path-prefix=/some/course=."),
            "{flags}"
        );
    }
}
