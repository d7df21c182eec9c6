//! A student's sources built for the sandbox, one broken exercise at a time.
//!
//! A Rust crate compiles whole or not at all: one exercise left half-written would make
//! every exercise of the student's crate fail to build, and score nothing. So when the
//! build fails and every error lies inside student regions (`// STUDENT-BEGIN <id>` to
//! `// STUDENT-END`, [`course::regions`]), those regions are put back as the course ships
//! them (the stubs of `crates/learn/pristine/`), in a copy of the sources, and the copy is
//! built again: the exercises whose regions were put back are reported as not compiling,
//! with the compiler's errors, and every other exercise is graded on the student's own
//! code. An error outside the regions (or in a file the course does not ship) cannot be
//! put back, and fails the whole crate as before.
//!
//! The same holds for a construct the sandbox refuses (`unsafe`, `include_str!`, ...,
//! [`gpu_host::sources`]) inside a region: the exercise that holds it is refused, the
//! others are graded.

use course::regions::{Region, regions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Builds with the regions put back, at most this many times (a region put back can let
/// the compiler reach errors it did not report before, in later passes).
const ROUNDS: usize = 4;

/// Exercises whose code did not build, by id: the compiler's errors in their regions.
pub type Broken = BTreeMap<String, Vec<String>>;

/// Builds the student's sources `src` (their `kernels/src`) for the sandbox as the
/// course at `root` does ([`gpu_host::lanes::build_student`]), putting back the regions
/// that do not compile (see the module docs), and makes the result the module every
/// check loads ([`gpu_host::lanes::use_built`]). Returns the exercises put back.
pub fn build(src: &Path, root: &Path) -> Result<Broken, String> {
    let mut broken = Broken::new();
    let mut current = src.to_path_buf();
    let mut first_failure = None;
    for round in 0..ROUNDS {
        let why = match gpu_host::lanes::build_student(&current, root) {
            Ok(module) => {
                gpu_host::lanes::use_built(root, Ok(module))?;
                return Ok(broken);
            }
            Err(why) => why,
        };
        let put = put_back(&why, &current, root, src, round)?;
        first_failure.get_or_insert(why);
        let Some(put) = put else { break };
        for (id, errors) in put.errors {
            broken.entry(id).or_default().extend(errors);
        }
        current = put.sources;
    }
    // Not every error could be put back: the whole crate fails, with its own first errors.
    let why = first_failure.unwrap_or_default();
    gpu_host::lanes::use_built(root, Err(why))?;
    Ok(Broken::new())
}

/// [`build`] for the course's own `kernels` crate at `root` (grading a clone in place):
/// the crate is built as it is (the runner has just built it: an incremental no-op), its
/// module written once for every check to load; only if it does not build are its
/// sources built one broken exercise at a time. Where the environment already names the
/// module to load (`COURSE_LANES_KERNELS`, or a folder of prebuilt modules:
/// [`gpu_host::lanes::PREBUILT_ENV`]), nothing is built and that module is graded.
pub fn build_in_place(root: &Path) -> Result<Broken, String> {
    if std::env::var_os(gpu_host::lanes::module_env("kernels")).is_some()
        || std::env::var_os(gpu_host::lanes::PREBUILT_ENV).is_some()
    {
        return Ok(Broken::new());
    }
    match gpu_host::lanes::build("kernels", root) {
        Ok(bytes) => {
            let dir = root.join("target").join("lanes");
            let file = dir.join("kernels-graded.wasm");
            // Written aside and renamed: a grader running beside this one reads a whole file.
            let part = dir.join(format!("kernels-graded.{}.part", std::process::id()));
            std::fs::write(&part, bytes)
                .and_then(|()| std::fs::rename(&part, &file))
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            gpu_host::lanes::use_built(root, Ok(file))?;
            Ok(Broken::new())
        }
        Err(_) => build(&root.join("kernels").join("src"), root),
    }
}

/// Most lines of compiler errors an exercise that does not compile reports.
const ERROR_LINES: usize = 40;

/// Replaces the report of each exercise of `broken` with its build failure: status
/// `error`, the first error as the reason, the compiler's lines as details.
pub fn report_broken(
    exercises: &mut [crate::report::ExerciseReport],
    chapters: &[&'static course::Chapter],
    broken: &Broken,
) {
    for report in exercises.iter_mut() {
        let Some(errors) = broken.get(&report.id) else {
            continue;
        };
        let Some((chapter, exercise)) = chapters
            .iter()
            .flat_map(|c| c.exercises.iter().map(move |e| (*c, e)))
            .find(|(c, e)| c.id == report.chapter && e.id == report.id)
        else {
            continue;
        };
        let first = errors.first().map(String::as_str).unwrap_or("error");
        let mut out = course::Outcome::fail(
            course::Status::Error,
            format!(
                "does not compile, so it was graded as not started (the other exercises were \
                 built without it): {first}"
            ),
        );
        for line in errors.iter().skip(1).take(ERROR_LINES) {
            out = out.detail(line.clone());
        }
        *report = crate::report::ExerciseReport::new(chapter, exercise, out);
    }
}

/// Where the course keeps its exercise files as shipped, relative to its root.
pub const PRISTINE: &str = "crates/learn/pristine";

/// The sources with some regions put back.
struct PutBack {
    /// A folder holding them.
    sources: PathBuf,
    /// The errors of each region put back, by exercise id.
    errors: BTreeMap<String, Vec<String>>,
}

/// Puts back the regions of `src` that `why` (a failed build's message) has errors in,
/// in a copy under `root/target/lanes/put-back/` (one per student, `original`, and round);
/// `None` when some error is not inside a region of a file the course ships.
fn put_back(
    why: &str,
    src: &Path,
    root: &Path,
    original: &Path,
    round: usize,
) -> Result<Option<PutBack>, String> {
    let pristine = root.join(PRISTINE);
    let diagnostics = errors(why, src);
    if diagnostics.is_empty() {
        return Ok(None);
    }
    // file -> (its text, its regions, the indices of the regions to put back)
    let mut files: BTreeMap<PathBuf, (String, Vec<Region>, Vec<usize>)> = BTreeMap::new();
    let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in diagnostics {
        let Some((rel, line)) = d.at else {
            return Ok(None);
        };
        if !pristine.join(&rel).is_file() {
            return Ok(None);
        }
        if !files.contains_key(&rel) {
            let text = std::fs::read_to_string(src.join(&rel))
                .map_err(|e| format!("cannot read {}: {e}", src.join(&rel).display()))?;
            let Ok(found) = regions(&text) else {
                return Ok(None);
            };
            files.insert(rel.clone(), (text, found, Vec::new()));
        }
        let (text, found, chosen) = files.get_mut(&rel).expect("inserted above");
        let Some(i) = found.iter().position(|r| {
            let last = r.line + text[r.begin.start..r.end].lines().count() - 1;
            r.line < line && line < last
        }) else {
            return Ok(None);
        };
        if !chosen.contains(&i) {
            chosen.push(i);
        }
        errors
            .entry(found[i].id.clone())
            .or_default()
            .extend(d.text);
    }
    let key = gpu_host::lanes::path_key(original);
    let out = root
        .join("target")
        .join("lanes")
        .join("put-back")
        .join(format!("{key}-{round}"));
    gpu_host::lanes::copy_sources(src, &out)?;
    for (rel, (text, found, chosen)) in &files {
        let shipped = std::fs::read_to_string(pristine.join(rel))
            .map_err(|e| format!("cannot read {}: {e}", pristine.join(rel).display()))?;
        let Ok(shipped_regions) = regions(&shipped) else {
            return Ok(None);
        };
        let mut patched = text.clone();
        // From the last region to the first, so that earlier offsets stay right.
        let mut chosen = chosen.clone();
        chosen.sort_unstable_by(|a, b| b.cmp(a));
        for i in chosen {
            let r = &found[i];
            // The same region of the shipped file: the same id, the same occurrence.
            let nth = found[..i].iter().filter(|x| x.id == r.id).count();
            let Some(s) = shipped_regions.iter().filter(|x| x.id == r.id).nth(nth) else {
                return Ok(None);
            };
            patched.replace_range(r.body.clone(), &shipped[s.body.clone()]);
        }
        std::fs::write(out.join(rel), patched)
            .map_err(|e| format!("cannot write {}: {e}", out.join(rel).display()))?;
    }
    Ok(Some(PutBack {
        sources: out,
        errors,
    }))
}

/// One error of a failed build: its text, and where it is (a file relative to the
/// sources, and a line), if it says.
#[derive(Debug, PartialEq, Eq)]
struct Diagnostic {
    text: Vec<String>,
    at: Option<(PathBuf, usize)>,
}

/// The errors of `why` (the message of a failed build of the sources at `src`): rustc's
/// (`error[E…]: …` then `--> kernels/src/ch09.rs:718:56`) and the sandbox's refusals
/// (`<src>/ch09.rs:12: not allowed in a kernel crate: …`). The closing summaries
/// (`error: could not compile …`, `error: aborting …`) are not errors of their own.
fn errors(why: &str, src: &Path) -> Vec<Diagnostic> {
    let src_text = src.display().to_string();
    let locate = |token: &str| -> Option<(PathBuf, usize)> {
        let (path, rest) = token.split_once(".rs:")?;
        let line: usize = rest.split(':').next()?.parse().ok()?;
        let path = format!("{path}.rs");
        let rel = path
            .strip_prefix("kernels/src/")
            .or_else(|| path.strip_prefix(&src_text)?.strip_prefix('/'))?;
        Some((PathBuf::from(rel), line))
    };
    let mut out: Vec<Diagnostic> = Vec::new();
    let mut open = false;
    for line in why.lines() {
        let t = line.trim();
        if t.contains(": not allowed in a kernel crate: ") {
            let at = t.split(": not allowed").next().and_then(locate);
            out.push(Diagnostic {
                text: vec![t.to_string()],
                at,
            });
            open = false;
        } else if t.starts_with("error") {
            open = !(t.starts_with("error: could not compile") || t.starts_with("error: aborting"));
            if open {
                out.push(Diagnostic {
                    text: vec![t.to_string()],
                    at: None,
                });
            }
        } else if t.starts_with("warning") {
            open = false;
        } else if open && let Some(d) = out.last_mut() {
            if d.at.is_none()
                && let Some(loc) = t.strip_prefix("--> ")
            {
                d.at = locate(loc);
            }
            if !t.is_empty() {
                d.text.push(t.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Diagnostic, errors};
    use std::path::{Path, PathBuf};

    #[test]
    fn errors_are_read_with_their_place_and_warnings_and_summaries_are_not() {
        let why = "`student-1` does not compile for the emulator:\n\
            warning: unused variable: `x`\n  --> kernels/src/ch09.rs:3:9\n   |\n\n\
            error[E0425]: cannot find value `data` in this scope\n   --> kernels/src/ch09.rs:718:56\n    |\n\
            718 |     let s = data;\n\n\
            error: could not compile `student-1` (lib) due to 1 previous error";
        let found = errors(why, Path::new("/s/kernels/src"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].at, Some((PathBuf::from("ch09.rs"), 718)));
        assert!(found[0].text[0].starts_with("error[E0425]"));
        let refused = "/s/kernels/src/ch05.rs:12: not allowed in a kernel crate: `unsafe` code";
        assert_eq!(
            errors(refused, Path::new("/s/kernels/src")),
            vec![Diagnostic {
                text: vec![refused.to_string()],
                at: Some((PathBuf::from("ch05.rs"), 12)),
            }]
        );
        let elsewhere =
            "error: linking failed\nerror[E0080]: x\n --> /course/crates/gpu/src/lib.rs:3:1";
        assert!(
            errors(elsewhere, Path::new("/s"))
                .iter()
                .all(|d| d.at.is_none())
        );
    }
}
