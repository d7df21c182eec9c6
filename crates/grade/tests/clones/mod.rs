//! A student's clone for the grader's integration tests: the reference chapters with some
//! regions replaced, graded with `grade --student DIR` from this (pristine) course.
//!
//! Shared by `attacks.rs` (kernels that try to forge a grade) and `own_solutions.rs`
//! (right kernels written differently from the reference, and classic mistakes). Each test
//! binary uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The course's workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A student's clone in folder `name` holding the reference of every chapter of the
/// course's list (a `lib.rs` of its
/// own: the reference crate's has more modules), with each `(file, id, body)` of `edits`
/// applied in order: the body of the first region `id` of `file` (or of the function `id`
/// names) replaced by `body`.
pub fn student_with(name: &str, edits: &[(&str, &str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let src = dir.join("kernels").join("src");
    std::fs::create_dir_all(&src).expect("a scratch folder");
    let ids: Vec<&str> = grade::chapters().into_iter().map(|c| c.id).collect();
    let mods: String = ids.iter().map(|id| format!("pub mod {id};\n")).collect();
    std::fs::write(
        src.join("lib.rs"),
        format!("//! A student's kernels.\n{mods}"),
    )
    .expect("written");
    for id in ids {
        let f = format!("{id}.rs");
        let mut text = std::fs::read_to_string(root().join("solutions/src").join(&f))
            .expect("the reference files");
        for (_, id, body) in edits.iter().filter(|(file, _, _)| *file == f) {
            text = replace_region(&text, id, body);
        }
        std::fs::write(src.join(&f), text).expect("written");
    }
    dir
}

/// The file of exercise `id`'s chapter: `ch09.rs` for `9.4`, `ch10.rs` for `10.2`.
pub fn chapter_file(id: &str) -> &'static str {
    let number: u32 = id
        .split('.')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("an exercise id");
    Box::leak(format!("ch{number:02}.rs").into_boxed_str())
}

/// `text` with the body of its first region `id` replaced by `body`; `id` may also name
/// a function (`mul_blocks`, `fn predict_naive_count`, generic `warp_sum`): the first region
/// in its body.
pub fn replace_region(text: &str, id: &str, body: &str) -> String {
    let dotted = id.contains('.') && id.chars().all(|c| c.is_ascii_digit() || c == '.');
    let from = if dotted {
        0
    } else {
        let name = id.trim_start_matches("fn ");
        // A generic function's name is followed by its parameters' `<`.
        text.find(&format!("fn {name}("))
            .or_else(|| text.find(&format!("fn {name}<")))
            .unwrap_or_else(|| panic!("no function {name}"))
    };
    let begin = "// STUDENT-BEGIN ";
    let start = if dotted {
        text.find(&format!("{begin}{id}\n"))
            .expect("the region exists")
    } else {
        from + text[from..].find(begin).expect("a region in the function")
    };
    let start = start + text[start..].find('\n').expect("a marker line") + 1;
    let end = start
        + text[start..]
            .find("// STUDENT-END")
            .expect("the region ends");
    // Keep the indentation of the END marker's line.
    let indent_at = text[..end].rfind('\n').map_or(end, |i| i + 1);
    format!("{}{body}\n{}", &text[..start], &text[indent_at..])
}

/// Grades exercises `ids` of the clone at `dir`; the JSON report and the raw stdout.
pub fn grade(dir: &Path, ids: &[&str]) -> (serde_json::Value, String) {
    grade_with(dir, ids, &[])
}

/// [`grade`] with environment variables `env` set for the grader.
pub fn grade_with(dir: &Path, ids: &[&str], env: &[(&str, &str)]) -> (serde_json::Value, String) {
    let stdout = grade_raw(dir, ids, &["--json"], env);
    let report = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("the report is the grader's own JSON ({e}):\n{stdout}");
    });
    (report, stdout)
}

/// The grader's standard output for the clone at `dir`, exercises `ids`, with the extra
/// arguments `args` (a format, a seed) and environment variables `env`; the grader must
/// exit with 0.
pub fn grade_raw(dir: &Path, ids: &[&str], args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_grade"));
    cmd.env_remove("COURSE_SEED")
        .env_remove("COURSE_LANES_KERNELS")
        .env_remove("COURSE_GRADE_SEED")
        .envs(env.iter().copied());
    cmd.arg("--student").arg(dir).args(args);
    for id in ids {
        cmd.args(["--exercise", id]);
    }
    let out = cmd.output().expect("the grade binary runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "grading must run whatever the kernels do: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Exercise `id` of `report`.
pub fn exercise<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["exercises"]
        .as_array()
        .expect("exercises")
        .iter()
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("exercise {id} in {report}"))
}

/// A platform's grading script of this course (`crates/grade/platforms/`).
#[derive(Clone, Copy, Debug)]
pub enum Platform {
    /// Gradescope's `run_autograder`: the fake root holds `submission/`, writes `results/`.
    Gradescope,
    /// PrairieLearn's `run.sh`: the fake root holds `student/`, writes `results/`.
    PrairieLearn,
}

/// Runs `platform`'s script against the fake root `fake`, with the grader binary `grade`
/// and the private seed `seed` (none: the variable removed); its output, and the
/// `results/results.json` it wrote, read back as text.
pub fn run_platform(
    platform: Platform,
    fake: &Path,
    grade: &Path,
    seed: Option<&str>,
) -> (std::process::Output, String) {
    let (script, root_var, course_var) = match platform {
        Platform::Gradescope => (
            "gradescope/run_autograder",
            "AUTOGRADER_ROOT",
            "AUTOGRADER_SOURCE",
        ),
        Platform::PrairieLearn => ("prairielearn/run.sh", "GRADE_ROOT", "COURSE"),
    };
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("crates/grade/platforms").join(script))
        .env(root_var, fake)
        .env(course_var, root())
        .env("GRADE", grade)
        .env_remove("COURSE_GRADE_SEED");
    if let Some(s) = seed {
        cmd.env("COURSE_GRADE_SEED", s);
    }
    let out = cmd.output().expect("bash runs");
    let results = std::fs::read_to_string(fake.join("results/results.json")).unwrap_or_default();
    (out, results)
}

/// A 9.16 answered from a table of the bin counts the public seed checks: right there,
/// wrong on the bin counts a private seed draws (the attacks' and the private seed's tests).
pub const KEYED_9_16: &str = r#"    match num_bins {
        1 | 2 | 8 | 15 | 16 | 17 | 255 | 1024 | 1025 | 4096 | 12_288 => Strategy::Shared,
        12_289 | 100_000 => Strategy::Global,
        _ => Strategy::Registers,
    }"#;
