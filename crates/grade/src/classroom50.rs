//! Classroom 50 (CS50's open-source successor of the retired GitHub Classroom): what an
//! instructor puts in their `classroom50` repository for this course (`grade classroom50`).
//!
//! Classroom 50 grades in the student's repository with a per-assignment `autograder.py`
//! (`CLASSROOM/autograders/<slug>/`, bundled with its sibling files) that must write
//! `result.json` (schema `classroom50/result/v1`: one test per exercise, its points) and
//! may write `release-body.md`; the assignment's entry in `CLASSROOM/assignments.json`
//! names its runtime (`{"rust": "stable"}`). Our `autograder.py`
//! (`platforms/classroom50/autograder.py`) clones the course at a pinned commit, builds the
//! grader and grades the submission's answers with `--student`, on the public seed: a
//! workflow in a student's repository is the student's to edit, so the private seed stays
//! on the instructor's side ([`crate::collect`]).

use course::Chapter;
use std::path::{Path, PathBuf};

/// The autograder Classroom 50 runs, as shipped (see the module docs).
pub const AUTOGRADER_PY: &str = include_str!("../platforms/classroom50/autograder.py");

/// What `grade classroom50` needs to know.
#[derive(Clone, Debug)]
pub struct Assignment {
    /// The assignment's slug in Classroom 50 (`^[a-z0-9][a-z0-9-]{1,38}$`).
    pub slug: String,
    /// Where the course can be cloned from (a URL git can fetch).
    pub repository: String,
    /// The commit (or tag) of the course to grade with: pinned, so that a later change of
    /// the course does not change a grade.
    pub reference: String,
}

/// Whether `slug` is a Classroom 50 assignment slug.
pub fn valid_slug(slug: &str) -> bool {
    let b = slug.as_bytes();
    (2..=39).contains(&b.len())
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
}

/// The assignment's entry for `CLASSROOM/assignments.json` (`classroom50/assignments/v1`):
/// individual, graded on every push by its own `autograder.py`, with stable Rust.
pub fn assignment_entry(a: &Assignment, chapters: &[&'static Chapter]) -> serde_json::Value {
    let points: u32 = chapters
        .iter()
        .flat_map(|c| c.exercises.iter())
        .map(|e| e.points)
        .sum();
    let titles: Vec<String> = chapters
        .iter()
        .map(|c| format!("{} ({})", c.title, c.id))
        .collect();
    serde_json::json!({
        "slug": a.slug,
        "name": "CUDA in Rust: the course's exercises",
        "description": format!(
            "{}; {points} points, all or nothing per exercise. Feedback on the course's public \
             inputs; the final grade is computed by the instructor.",
            titles.join(", ")
        ),
        "mode": "individual",
        "autograder": "default",
        "runtime": { "rust": "stable" },
        "submission_mode": "every-push",
    })
}

/// Writes the instructor's files into `out`: `autograders/<slug>/autograder.py` and
/// `course.json` (the pinned course) beside it, and `assignment.json` (the entry to add to
/// `CLASSROOM/assignments.json`). Returns the files written.
pub fn write(
    a: &Assignment,
    chapters: &[&'static Chapter],
    out: &Path,
) -> Result<Vec<PathBuf>, String> {
    if !valid_slug(&a.slug) {
        return Err(format!(
            "--slug {}: a Classroom 50 slug is 2 to 39 lowercase letters, digits and '-', \
             starting with a letter or digit",
            a.slug
        ));
    }
    let bundle = out.join("autograders").join(&a.slug);
    std::fs::create_dir_all(&bundle)
        .map_err(|e| format!("cannot create {}: {e}", bundle.display()))?;
    let course = serde_json::json!({ "repository": a.repository, "ref": a.reference });
    let files = [
        (bundle.join("autograder.py"), AUTOGRADER_PY.to_string()),
        (
            bundle.join("course.json"),
            format!(
                "{}\n",
                serde_json::to_string_pretty(&course).unwrap_or_default()
            ),
        ),
        (
            out.join("assignment.json"),
            format!(
                "{}\n",
                serde_json::to_string_pretty(&assignment_entry(a, chapters)).unwrap_or_default()
            ),
        ),
    ];
    for (path, text) in &files {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(files.into_iter().map(|(p, _)| p).collect())
}

#[cfg(test)]
mod tests {
    use super::valid_slug;

    #[test]
    fn slugs_are_classroom50_s() {
        for ok in ["cuda-course", "ch09", "a1"] {
            assert!(valid_slug(ok), "{ok}");
        }
        for bad in ["", "a", "Cuda", "-x", "a_b", &"x".repeat(40)] {
            assert!(!valid_slug(bad), "{bad}");
        }
    }
}
