//! A chapter's exercises as data.
//!
//! Each chapter crate keeps its exercises in `exercises.toml` (title, functions, points,
//! hints, book section, as rustlings keeps its `info.toml`); its build script calls
//! [`generate`], which writes three Rust files into `OUT_DIR`:
//!
//! - `registry.rs`, included by the chapter's `lib.rs`: `EXERCISES` (one
//!   `course::Exercise` per record, its check the `checks::ex_<chapter>_<step>` that the
//!   chapter's `check_registry!` defines), `CHAPTER`, and the `harness` module whose
//!   `check_exercise(id)` a test calls;
//! - `checks.rs`, included by the chapter's `checks` module: the `check_registry!` that
//!   defines each `ex_<chapter>_<step>` from the record's `check` function;
//! - `exercise_tests.rs`, included by the chapter's `tests/exercises.rs`: one `#[test]`
//!   per exercise, named `ex_<chapter>_<step, two digits>_<topic>` (`ex_9_03_global_atomics`),
//!   each calling the `check(id)` defined beside the include.
//!
//! `registry.rs` also holds `STEP_IDS` (the progression's steps, in order) and `LAUNCHES`
//! (the launches each record declares in `[[exercise.launch]]`, `chapter::declared`).
//!
//! So adding an exercise is its record, its stub and solution, its check and its book
//! section (and its progression step as code only when its launches take a form the
//! records cannot declare); no list of tests, steps or registry entries is written by
//! hand.

use serde::Deserialize;
use std::fmt::Write as _;
use std::path::Path;

/// A chapter's `exercises.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Records {
    /// The chapter's id and crate name, `"ch09"`.
    pub id: String,
    /// The chapter's title.
    pub title: String,
    /// The seed of a check's random inputs when `COURSE_SEED` is not set.
    pub check_seed: u64,
    /// The exercises, in the order the book teaches them.
    pub exercise: Vec<Record>,
}

/// One exercise's record: what `course::Exercise` holds, but its check, which follows
/// from its id.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The section id, `"9.4"`.
    pub id: String,
    /// The last part of the test's name (`global_atomics` in `ex_9_03_global_atomics`).
    pub topic: String,
    /// Short title.
    pub title: String,
    /// The check, a function of the chapter's `checks` module (`threads::check_5_1`).
    pub check: String,
    /// What the check verifies, in a sentence: the check function's documentation.
    pub checks: String,
    /// The functions (kernels or host functions) the student writes.
    pub kernels: Vec<String>,
    /// Points for the grader.
    pub points: u32,
    /// The exercises whose functions this one's reference calls.
    #[serde(default)]
    pub needs: Vec<String>,
    /// The book section, relative to the chapter's folder of `book/src`.
    pub book: String,
    /// Hints for any failure, gentlest first.
    pub hints: Vec<String>,
    /// Hints that answer one kind of failure, shown first when a check fails that way.
    #[serde(default)]
    pub on_failure: Vec<FailureHint>,
    /// What the progression runs for this exercise, when its launches take a common form
    /// (`chapter::declared`); none when the chapter's progression has code for the step.
    #[serde(default)]
    pub launch: Vec<LaunchRecord>,
}

/// One launch of an exercise's progression step (`chapter::declared::Launch`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchRecord {
    /// The kernel, one of the exercise's `kernels`.
    pub kernel: String,
    /// Its grid: `"stride"` or `"one_per_thread"` (`chapter::declared::Grid`).
    pub grid: String,
    /// Whether it gets dynamic shared memory for one `u32` per bin.
    #[serde(default)]
    pub shared_bins: bool,
}

/// The grids a launch record may name (`chapter::declared::Grid::NAMES`).
pub const GRIDS: [&str; 2] = ["stride", "one_per_thread"];

/// A hint for one kind of failure.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureHint {
    /// The failure, as `course::Status` writes itself in JSON (`"wrong_technique"`).
    pub status: String,
    /// The hint.
    pub hint: String,
}

/// The statuses a failure hint may name (`course::Status` but `pass`), in JSON's words.
pub const FAILURE_STATUSES: [&str; 9] = [
    "wrong_result",
    "wrong_technique",
    "race",
    "barrier_error",
    "out_of_bounds",
    "panicked",
    "timed_out",
    "not_implemented",
    "error",
];

/// Reads and checks `text` (an `exercises.toml`): unique ids of the form `<chapter>.<step>`
/// (the chapter's number from its id), known statuses, needs that name earlier-listed or
/// later exercises of the chapter, a topic usable in a test's name.
pub fn parse(text: &str) -> Result<Records, String> {
    let r: Records = toml::from_str(text).map_err(|e| e.to_string())?;
    let number =
        r.id.strip_prefix("ch")
            .and_then(|n| n.parse::<u32>().ok())
            .ok_or_else(|| format!("chapter id `{}` is not ch<number>", r.id))?;
    let ids: Vec<&str> = r.exercise.iter().map(|e| e.id.as_str()).collect();
    for (i, e) in r.exercise.iter().enumerate() {
        let step =
            e.id.strip_prefix(&format!("{number}."))
                .and_then(|s| s.parse::<u32>().ok());
        if step.is_none() {
            return Err(format!("exercise `{}` is not {number}.<step>", e.id));
        }
        if ids[..i].contains(&e.id.as_str()) {
            return Err(format!("exercise `{}` is listed twice", e.id));
        }
        if e.topic.is_empty()
            || !e
                .topic
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit())
        {
            return Err(format!(
                "exercise {}: topic `{}` must be lowercase letters, digits and `_` (a test's name)",
                e.id, e.topic
            ));
        }
        let path_ok = e.check.split("::").all(|part| {
            !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if !path_ok {
            return Err(format!(
                "exercise {}: check `{}` is not a path in the checks module (`module::function`)",
                e.id, e.check
            ));
        }
        for n in &e.needs {
            if !ids.contains(&n.as_str()) || *n == e.id {
                return Err(format!(
                    "exercise {} needs `{n}`, which is not another exercise of {}",
                    e.id, r.id
                ));
            }
        }
        for l in &e.launch {
            if !e.kernels.contains(&l.kernel) {
                return Err(format!(
                    "exercise {}: launches `{}`, which is not one of its kernels ({})",
                    e.id,
                    l.kernel,
                    e.kernels.join(", ")
                ));
            }
            if !GRIDS.contains(&l.grid.as_str()) {
                return Err(format!(
                    "exercise {}: no grid `{}` (the grids are {})",
                    e.id,
                    l.grid,
                    GRIDS.join(", ")
                ));
            }
        }
        for h in &e.on_failure {
            if !FAILURE_STATUSES.contains(&h.status.as_str()) {
                return Err(format!(
                    "exercise {}: no failure `{}` (the failures are {})",
                    e.id,
                    h.status,
                    FAILURE_STATUSES.join(", ")
                ));
            }
        }
    }
    Ok(r)
}

/// `s` as a Rust string literal.
fn lit(s: &str) -> String {
    format!("{s:?}")
}

/// `items` as a Rust slice of string literals.
fn lits(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| lit(s)).collect();
    format!("&[{}]", inner.join(", "))
}

/// `snake_case` as `CamelCase`: a status's variant.
fn variant(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The `cargo test` filter of exercise `id`, as `course::test_filter` makes it:
/// `"9.3"` gives `ex_9_03`.
fn test_filter(id: &str) -> String {
    let (chapter, step) = id.split_once('.').unwrap_or((id, "0"));
    let step: u32 = step.parse().unwrap_or(0);
    format!("ex_{chapter}_{step:02}")
}

/// The chapter's registry as Rust (`registry.rs`, see the crate's docs).
pub fn registry_rs(r: &Records) -> String {
    let mut out = String::new();
    let number = r.id.trim_start_matches("ch").trim_start_matches('0');
    let _ = writeln!(
        out,
        "// Generated from exercises.toml by chapter-records: edit that file.\n"
    );
    let _ = writeln!(
        out,
        "/// The exercises of chapter {number}, in the order the book teaches them (`exercises.toml`)."
    );
    let _ = writeln!(
        out,
        "pub static EXERCISES: [course::Exercise; {}] = [",
        r.exercise.len()
    );
    for e in &r.exercise {
        let failures: Vec<String> = e
            .on_failure
            .iter()
            .map(|h| format!("(course::Status::{}, {})", variant(&h.status), lit(&h.hint)))
            .collect();
        let _ = writeln!(
            out,
            "    course::Exercise {{\n        id: {},\n        title: {},\n        kernels: {},\n        points: {},\n        hints: {},\n        hints_by_failure: &[{}],\n        needs: {},\n        book: {},\n        check: checks::ex_{},\n    }},",
            lit(&e.id),
            lit(&e.title),
            lits(&e.kernels),
            e.points,
            lits(&e.hints),
            failures.join(", "),
            lits(&e.needs),
            lit(&format!("{}/{}", r.id, e.book)),
            e.id.replace('.', "_"),
        );
    }
    let _ = writeln!(out, "];\n");
    let _ = writeln!(
        out,
        "/// The ids of chapter {number}'s exercises, in order: the progression's steps.\n\
         pub const STEP_IDS: [&str; {}] = [{}];\n",
        r.exercise.len(),
        r.exercise
            .iter()
            .map(|e| lit(&e.id))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let declared: Vec<String> = r
        .exercise
        .iter()
        .filter(|e| !e.launch.is_empty())
        .map(|e| {
            let launches: Vec<String> = e
                .launch
                .iter()
                .map(|l| {
                    format!(
                        "chapter::declared::Launch {{ kernel: {}, grid: chapter::declared::Grid::{}, shared_bins: {} }}",
                        lit(&l.kernel),
                        variant(&l.grid),
                        l.shared_bins
                    )
                })
                .collect();
            format!("    ({}, &[{}]),", lit(&e.id), launches.join(", "))
        })
        .collect();
    let _ = writeln!(
        out,
        "/// The progression's launches that chapter {number}'s records declare (`[[exercise.launch]]`):\n\
         /// its steps of a common form, which need no progression code (`chapter::declared`).\n\
         pub static LAUNCHES: [(&str, &[chapter::declared::Launch]); {}] = [\n{}\n];\n",
        declared.len(),
        declared.join("\n")
    );
    let _ = writeln!(
        out,
        "/// Chapter {number}, for the course's tests, the grader and the progression.\n\
         pub static CHAPTER: course::Chapter = course::Chapter {{\n    id: {},\n    title: {},\n    exercises: &EXERCISES,\n}};\n",
        lit(&r.id),
        lit(&r.title)
    );
    let _ = writeln!(
        out,
        "/// Running an exercise's check from a `#[test]` (see [`harness::check_exercise`]).\n\
         pub mod harness {{\n    pub use chapter::harness::*;\n\n    \
         /// For a `#[test]`: [`chapter::harness::check_exercise`] on this chapter.\n    \
         pub fn check_exercise(id: &str) {{\n        chapter::harness::check_exercise(&crate::CHAPTER, id);\n    }}\n}}"
    );
    out
}

/// The chapter's check registry as Rust (`checks.rs`, included by its checks module): a
/// `chapter::check_registry!` of every record's check.
pub fn checks_rs(r: &Records) -> String {
    let mut out =
        String::from("// Generated from exercises.toml by chapter-records: edit that file.\n");
    let _ = writeln!(
        out,
        "chapter::check_registry! {{\n    chapter {}, seed {};",
        lit(&r.id),
        r.check_seed
    );
    for e in &r.exercise {
        let _ = writeln!(
            out,
            "    {} ex_{} => {}: {};",
            lit(&e.id),
            e.id.replace('.', "_"),
            e.check,
            lit(&format!("{}: {}", e.id, e.checks))
        );
    }
    out.push_str("}\n");
    out
}

/// The chapter's tests as Rust (`exercise_tests.rs`, see the crate's docs).
pub fn tests_rs(r: &Records) -> String {
    let mut out =
        String::from("// Generated from exercises.toml by chapter-records: edit that file.\n");
    for e in &r.exercise {
        let _ = writeln!(
            out,
            "\n/// Exercise {}: {}.\n#[test]\nfn {}_{}() {{\n    check({});\n}}",
            e.id,
            e.title,
            test_filter(&e.id),
            e.topic,
            lit(&e.id)
        );
    }
    out
}

/// For a chapter's build script: reads `exercises.toml` in the crate's folder
/// (`CARGO_MANIFEST_DIR`) and writes `registry.rs`, `checks.rs` and `exercise_tests.rs`
/// into `OUT_DIR`.
/// A malformed file stops the build with its error.
pub fn generate() {
    let dir =
        std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR: run from a build script");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR: run from a build script");
    let path = Path::new(&dir).join("exercises.toml");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let records = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let write = |name: &str, text: String| {
        let p = Path::new(&out).join(name);
        std::fs::write(&p, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", p.display()));
    };
    write("registry.rs", registry_rs(&records));
    write("checks.rs", checks_rs(&records));
    write("exercise_tests.rs", tests_rs(&records));
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
id = "ch07"
title = "Convolution"
check_seed = 2007

[[exercise]]
id = "7.1"
topic = "basic"
title = "a 1-D convolution"
check = "basic::check_7_1"
checks = "right on every length."
kernels = ["conv_1d"]
points = 10
book = "01-basic.md"
hints = ["Which inputs does output i read?", "`\"quoted\"` and a \\ backslash"]

[[exercise.on_failure]]
status = "wrong_technique"
hint = "Tiles."

[[exercise.launch]]
kernel = "conv_1d"
grid = "one_per_thread"

[[exercise]]
id = "7.2"
topic = "tiled_2"
title = "tiled"
check = "tiled::check_7_2"
checks = "tiles."
kernels = ["conv_tiled"]
points = 15
needs = ["7.1"]
book = "02-tiled.md"
hints = []
"#;

    #[test]
    fn a_chapter_becomes_its_registry_and_tests() {
        let r = parse(GOOD).unwrap();
        let reg = registry_rs(&r);
        assert!(
            reg.contains("pub static EXERCISES: [course::Exercise; 2]"),
            "{reg}"
        );
        assert!(
            reg.contains("(course::Status::WrongTechnique, \"Tiles.\")"),
            "{reg}"
        );
        assert!(reg.contains("check: checks::ex_7_2,"), "{reg}");
        assert!(reg.contains("book: \"ch07/02-tiled.md\""), "{reg}");
        assert!(
            reg.contains(r#""`\"quoted\"` and a \\ backslash""#),
            "{reg}"
        );
        let checks = checks_rs(&r);
        assert!(checks.contains("chapter \"ch07\", seed 2007;"), "{checks}");
        assert!(
            checks.contains("\"7.2\" ex_7_2 => tiled::check_7_2: \"7.2: tiles.\";"),
            "{checks}"
        );
        let tests = tests_rs(&r);
        assert!(
            tests.contains("fn ex_7_01_basic() {\n    check(\"7.1\");"),
            "{tests}"
        );
        assert!(tests.contains("fn ex_7_02_tiled_2()"), "{tests}");
        assert!(
            reg.contains("pub const STEP_IDS: [&str; 2] = [\"7.1\", \"7.2\"];"),
            "{reg}"
        );
        // 7.1 declares its launch; 7.2, whose step is code, is not in the table.
        assert!(
            reg.contains(
                "pub static LAUNCHES: [(&str, &[chapter::declared::Launch]); 1] = [\n    (\"7.1\", \
                 &[chapter::declared::Launch { kernel: \"conv_1d\", grid: \
                 chapter::declared::Grid::OnePerThread, shared_bins: false }]),\n];"
            ),
            "{reg}"
        );
    }

    #[test]
    fn mistakes_in_the_file_are_named() {
        let cases = [
            (GOOD.replace("\"7.2\"", "\"8.2\""), "is not 7.<step>"),
            (GOOD.replace("\"7.2\"", "\"7.1\""), "listed twice"),
            (
                GOOD.replace("\"wrong_technique\"", "\"slow\""),
                "no failure `slow`",
            ),
            (
                GOOD.replace("needs = [\"7.1\"]", "needs = [\"7.9\"]"),
                "needs `7.9`",
            ),
            (GOOD.replace("\"tiled_2\"", "\"Tiled\""), "topic `Tiled`"),
            (
                GOOD.replace("points = 15", "points = 15\npionts = 3"),
                "pionts",
            ),
            (
                GOOD.replace("id = \"ch07\"", "id = \"seven\""),
                "not ch<number>",
            ),
            (
                GOOD.replace("kernel = \"conv_1d\"", "kernel = \"conv_tiled\""),
                "launches `conv_tiled`, which is not one of its kernels",
            ),
            (
                GOOD.replace("grid = \"one_per_thread\"", "grid = \"per_block\""),
                "no grid `per_block`",
            ),
            (
                GOOD.replace(
                    "grid = \"one_per_thread\"",
                    "grid = \"stride\"\nshared = true",
                ),
                "shared",
            ),
        ];
        for (text, said) in cases {
            let e = parse(&text).unwrap_err();
            assert!(e.contains(said), "{said}: {e}");
        }
    }

    #[test]
    fn filters_pad_the_step() {
        assert_eq!(test_filter("9.3"), "ex_9_03");
        assert_eq!(test_filter("9.17"), "ex_9_17");
        assert_eq!(variant("out_of_bounds"), "OutOfBounds");
    }
}
