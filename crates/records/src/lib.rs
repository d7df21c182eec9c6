//! A chapter's exercises as data.
//!
//! Each chapter crate keeps its exercises in `exercises.toml` (title, functions, points,
//! hints, book section, as rustlings keeps its `info.toml`); its build script calls
//! [`generate`], which writes four Rust files into `OUT_DIR`:
//!
//! - `registry.rs`, included by the chapter's `lib.rs`: `EXERCISES` (one
//!   `course::Exercise` per record, its check the `checks::ex_<chapter>_<step>` that the
//!   chapter's `check_registry!` defines), `CHAPTER`, and the `harness` module whose
//!   `check_exercise(id)` a test calls;
//! - `checks.rs`, included by the chapter's `checks` module: the `check_registry!` that
//!   defines each `ex_<chapter>_<step>` from the record's `check` function;
//! - `exercise_tests.rs`, included by the chapter's `tests/exercises.rs`: one `#[test]`
//!   per exercise, named `ex_<chapter>_<step, two digits>_<topic>` (`ex_9_03_global_atomics`),
//!   each calling the `check(id)` defined beside the include;
//! - `kernel_table.rs`, included by the chapter's `kernels` module: the `Kernels` table of
//!   every kernel and host function the records name, and its `chapter::kernel_tables!`
//!   (what each name is, the reference source says: [`kernel_table_rs`]).
//!
//! `registry.rs` also holds `STEP_IDS` (the progression's steps, in order) and `LAUNCHES`
//! (the launches each record declares in `[[exercise.launch]]`, `chapter::declared`).
//!
//! `checks.rs` also holds, for each record that declares its check (`[[exercise.verify]]`,
//! `[[exercise.expect]]`) in place of naming a function, its
//! `chapter::declared::Check` and the function that runs it with the chapter's
//! `check_declared`; `DECLARED` lists them. And `FOLLOWS`: how each kernel's data must
//! flow (`[[exercise.follow]]`, in any record), which the chapter's checks follow with
//! `chapter::follow`.
//!
//! So adding an exercise is its record, its stub and solution and its book section; a
//! check or a progression step is code only when it takes a form the records cannot
//! declare. No list of tests, steps, kernels or registry entries is written by hand.

pub mod expr;
mod table;

pub use table::{Item, Source, kernel_table_rs, scan};

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
    /// The module of the `kernels` and `solutions` crates that holds the chapter's
    /// functions, when it is not the chapter's id (the toy chapter borrows `ch05`'s).
    #[serde(default)]
    pub kernels_module: Option<String>,
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
    /// The check, a function of the chapter's `checks` module (`threads::check_5_1`);
    /// none when the record declares its check (`verify` and `expect`).
    #[serde(default)]
    pub check: Option<String>,
    /// What the check verifies, in a sentence: the check function's documentation.
    pub checks: String,
    /// The functions the student writes (kernels, host functions, their device helpers).
    pub kernels: Vec<String>,
    /// Kernels or host functions the exercise runs that its stub already holds whole
    /// (a divergent kernel to compare with, say): in the kernel table, not the student's.
    #[serde(default)]
    pub given: Vec<String>,
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
    /// A declared check's launches (`chapter::declared::Check`): each runs on every input
    /// of the chapter and must give the reference's result.
    #[serde(default)]
    pub verify: Vec<VerifyRecord>,
    /// A declared check's counter expectations, tested on every launch of `verify`.
    #[serde(default)]
    pub expect: Vec<ExpectRecord>,
    /// How the data of each of its kernels must flow (`chapter::declared::Follow`):
    /// followed by the check, declared or a function, on every launch of that kernel.
    #[serde(default)]
    pub follow: Vec<FollowRecord>,
}

/// How one kernel's data must flow, from each load to its bin (`chapter::declared::Follow`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FollowRecord {
    /// The kernel, one of the exercise's `kernels` (or `given`).
    pub kernel: String,
    /// Who counts the elements it loads: `"thread"` or `"warp"` ([`UNITS`]).
    pub unit: String,
    /// Where the counting adds go: `"global"`, `"shared"` or `"registers"` ([`PLACES`]).
    pub into: String,
    /// Which loaded elements a block counts: `"all"` (the default) or `"slices"` ([`SCOPES`]).
    #[serde(default)]
    pub scope: Option<String>,
    /// Bytes of the vector loads every whole vector of the input is read with (0: any).
    #[serde(default)]
    pub vector_bytes: u32,
    /// Vector loads before counting in every round that has that many left (0: no rule).
    #[serde(default)]
    pub in_flight: u32,
    /// Each lane counts into words of one bank of its own, in every round.
    #[serde(default)]
    pub lane_banks: bool,
    /// For a reduction in shared memory, the tree its rounds must follow: `"any"` (the
    /// default), `"interleaved"`, `"strided_index"` or `"sequential"` ([`TREES`]).
    #[serde(default)]
    pub tree: Option<String>,
}

/// The units a follow record may name (`chapter::declared::Unit`).
pub const UNITS: [&str; 3] = ["thread", "warp", "block"];
/// The places a follow record may name (`chapter::declared::Place`).
pub const PLACES: [&str; 3] = ["global", "shared", "registers"];
/// The scopes a follow record may name (`chapter::declared::Scope`).
pub const SCOPES: [&str; 2] = ["all", "slices"];
/// The trees a follow record may name (`chapter::declared::Tree`).
pub const TREES: [&str; 4] = ["any", "interleaved", "strided_index", "sequential"];

/// A declared check's grid: a number of blocks, or `"one_per_thread"` with an optional
/// `+K` (K more blocks than elements need: threads with no element).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum GridRecord {
    /// So many blocks, whatever the input's length (the kernel must stride).
    Blocks(u32),
    /// `"one_per_thread"` or `"one_per_thread+K"`.
    Named(String),
}

impl GridRecord {
    /// The extra blocks of a `one_per_thread` grid, or the error for an unknown name.
    pub fn one_per_thread_extra(name: &str) -> Result<u32, String> {
        let rest = name.strip_prefix("one_per_thread").ok_or_else(|| {
            format!("grid `{name}` is not a number, `one_per_thread` or `one_per_thread+K`")
        })?;
        if rest.is_empty() {
            return Ok(0);
        }
        rest.strip_prefix('+')
            .and_then(|k| k.trim().parse::<u32>().ok())
            .ok_or_else(|| format!("grid `{name}`: after `one_per_thread` comes `+K` or nothing"))
    }
}

/// One launch of a declared check.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyRecord {
    /// The kernel, one of the exercise's `kernels`.
    pub kernel: String,
    /// Its grid.
    pub grid: GridRecord,
    /// Threads per block.
    pub block: u32,
    /// Bins of the histogram (the chapter's result size).
    pub bins: u32,
    /// Whether it gets dynamic shared memory for one `u32` per bin.
    #[serde(default)]
    pub shared_bins: bool,
}

/// One counter expectation of a declared check: `counter` compared with an expression
/// ([`expr::Expr`]) of the launch (`n`, `grid`, `block`, `bins`) and its counters.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectRecord {
    /// The counter, as the emulator's reports name it (`global_atomic_lanes`), or an
    /// expression of counters (`shared_load_requests + shared_store_requests`).
    pub counter: String,
    /// It must equal this.
    #[serde(default)]
    pub is: Option<String>,
    /// It must be at most this.
    #[serde(default)]
    pub at_most: Option<String>,
    /// It must be at least this.
    #[serde(default)]
    pub at_least: Option<String>,
    /// What it shows when it holds, for the pass message (`one global atomic per
    /// element`); none to leave it out.
    #[serde(default)]
    pub means: Option<String>,
    /// Why the exercise expects it: the wrong-technique message when it does not hold.
    pub why: String,
    /// The kind of wrong technique its failure is (an `on_failure` of the exercise with
    /// status `wrong_technique` gives its hint); none for the status as a whole.
    #[serde(default)]
    pub kind: Option<String>,
}

impl ExpectRecord {
    /// The relation's name (`is`, `at_most`, `at_least`) and its expression, or why the
    /// record does not name exactly one.
    pub fn relation(&self) -> Result<(&'static str, &str), String> {
        let given: Vec<(&'static str, &str)> = [
            ("is", &self.is),
            ("at_most", &self.at_most),
            ("at_least", &self.at_least),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| (k, v)))
        .collect();
        match given[..] {
            [one] => Ok(one),
            _ => Err(format!(
                "expectation on `{}` names {} of `is`, `at_most` and `at_least`; exactly one, please",
                self.counter,
                given.len()
            )),
        }
    }
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
    /// A narrower kind of that status (`warps_per_block`), when the check names one:
    /// the chapter's `failures` module then has a constant of that name, in capitals,
    /// for the check to fail with (`crate::failures::WARPS_PER_BLOCK`), or the kind is
    /// one of the course's own ([`COURSE_KINDS`]) or a declared expectation's.
    #[serde(default)]
    pub kind: Option<String>,
    /// The hint.
    pub hint: String,
}

/// The kinds of failure the course names itself (`course::hints::COURSE_KINDS`, from the
/// emulator's findings), with their status: a record may give an exercise its own hint
/// for one, and no constant is generated for them.
pub const COURSE_KINDS: [(&str, &str); 10] = [
    ("wrong_result", "uninitialised_shared"),
    ("wrong_result", "shuffle_inactive_lane"),
    ("livelock", "shared_spin"),
    ("out_of_bounds", "out_of_bounds_write"),
    ("timed_out", "endless_loop"),
    ("timed_out", "long_loop"),
    ("error", "build"),
    ("error", "does_not_compile"),
    ("error", "signature_changed"),
    ("error", "wall_clock"),
];

/// The statuses a failure hint may name (`course::Status` but `pass`), in JSON's words.
pub const FAILURE_STATUSES: [&str; 10] = [
    "wrong_result",
    "wrong_technique",
    "race",
    "barrier_error",
    "livelock",
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
        match (&e.check, e.verify.is_empty()) {
            (Some(check), true) => {
                let path_ok = check.split("::").all(|part| {
                    !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
                if !path_ok {
                    return Err(format!(
                        "exercise {}: check `{check}` is not a path in the checks module (`module::function`)",
                        e.id
                    ));
                }
                if !e.expect.is_empty() {
                    return Err(format!(
                        "exercise {}: `expect` belongs to a declared check (`verify`), not to `check`",
                        e.id
                    ));
                }
            }
            (None, false) => validate_declared(e)?,
            (Some(_), false) => {
                return Err(format!(
                    "exercise {}: a `check` function and a declared check (`verify`): one or the other",
                    e.id
                ));
            }
            (None, true) => {
                return Err(format!(
                    "exercise {}: no check: a `check` function or `[[exercise.verify]]` launches",
                    e.id
                ));
            }
        }
        for n in &e.needs {
            if !ids.contains(&n.as_str()) || *n == e.id {
                return Err(format!(
                    "exercise {} needs `{n}`, which is not another exercise of {}",
                    e.id, r.id
                ));
            }
        }
        if let Some(g) = e.given.iter().find(|g| e.kernels.contains(g)) {
            return Err(format!(
                "exercise {}: `{g}` is both one of its kernels and given",
                e.id
            ));
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
        for (k, f) in e.follow.iter().enumerate() {
            if !e.kernels.contains(&f.kernel) && !e.given.contains(&f.kernel) {
                return Err(format!(
                    "exercise {}: follows `{}`, which is not one of its kernels ({})",
                    e.id,
                    f.kernel,
                    e.kernels.join(", ")
                ));
            }
            if e.follow[..k].iter().any(|g| g.kernel == f.kernel) {
                return Err(format!(
                    "exercise {}: `{}` is followed twice",
                    e.id, f.kernel
                ));
            }
            let named = [
                ("unit", f.unit.as_str(), &UNITS[..]),
                ("into", f.into.as_str(), &PLACES[..]),
                ("scope", f.scope.as_deref().unwrap_or("all"), &SCOPES[..]),
                ("tree", f.tree.as_deref().unwrap_or("any"), &TREES[..]),
            ];
            for (key, value, names) in named {
                if !names.contains(&value) {
                    return Err(format!(
                        "exercise {}: follow `{}`: no {key} `{value}` (the names are {})",
                        e.id,
                        f.kernel,
                        names.join(", ")
                    ));
                }
            }
        }
        let mut seen = Vec::new();
        for h in &e.on_failure {
            if !FAILURE_STATUSES.contains(&h.status.as_str()) {
                return Err(format!(
                    "exercise {}: no failure `{}` (the failures are {})",
                    e.id,
                    h.status,
                    FAILURE_STATUSES.join(", ")
                ));
            }
            if let Some(k) = &h.kind {
                let word = !k.is_empty()
                    && k.starts_with(|c: char| c.is_ascii_lowercase())
                    && k.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                if !word {
                    return Err(format!(
                        "exercise {}: failure kind `{k}` is not a snake_case word",
                        e.id
                    ));
                }
                if let Some((status, _)) = COURSE_KINDS.iter().find(|(_, n)| n == k)
                    && *status != h.status
                {
                    return Err(format!(
                        "exercise {}: `{k}` is the course's kind of `{status}`, not of `{}`",
                        e.id, h.status
                    ));
                }
            }
            let key = (h.status.as_str(), h.kind.as_deref());
            if seen.contains(&key) {
                return Err(format!(
                    "exercise {}: two hints for the failure `{}{}`",
                    e.id,
                    h.status,
                    h.kind.as_deref().map_or(String::new(), |k| format!("/{k}"))
                ));
            }
            seen.push(key);
        }
        for x in &e.expect {
            if let Some(k) = &x.kind {
                let declared = e
                    .on_failure
                    .iter()
                    .any(|h| h.status == "wrong_technique" && h.kind.as_ref() == Some(k));
                if !declared {
                    return Err(format!(
                        "exercise {}: an expectation of kind `{k}` has no `on_failure` hint \
                         (status `wrong_technique`, kind `{k}`)",
                        e.id
                    ));
                }
            }
        }
    }
    let mut kinds: Vec<(&str, &str)> = Vec::new();
    for e in &r.exercise {
        for h in &e.on_failure {
            let Some(k) = &h.kind else { continue };
            if let Some((_, other)) = kinds.iter().find(|(n, s)| *n == k && *s != h.status) {
                return Err(format!(
                    "failure kind `{k}` is a `{other}` in one exercise and a `{}` in {}: a kind \
                     has one status in a chapter",
                    h.status, e.id
                ));
            }
            kinds.push((k, &h.status));
        }
    }
    Ok(r)
}

/// The chapter's failure kinds that its checks name in code: every kind of every
/// record's `on_failure` but the course's own and those that only a declared
/// expectation names, with its status, sorted and once each.
pub fn coded_kinds(r: &Records) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let by_expect: Vec<&String> = r
        .exercise
        .iter()
        .flat_map(|e| e.expect.iter().filter_map(|x| x.kind.as_ref()))
        .collect();
    for e in &r.exercise {
        for h in &e.on_failure {
            let Some(k) = &h.kind else { continue };
            if COURSE_KINDS.iter().any(|(_, n)| n == k) || by_expect.contains(&k) {
                continue;
            }
            out.push((k.clone(), h.status.clone()));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `course::Failure` of `status` and `kind`, as Rust.
fn failure_rs(status: &str, kind: Option<&str>) -> String {
    match kind {
        Some(k) => format!(
            "course::Failure::named(course::Status::{}, {})",
            variant(status),
            lit(k)
        ),
        None => format!(
            "course::Failure::status(course::Status::{})",
            variant(status)
        ),
    }
}

/// Checks a declared check's records: launches of the exercise's kernels with known
/// grids and nonzero sizes, expectations with one relation and expressions that parse.
fn validate_declared(e: &Record) -> Result<(), String> {
    for v in &e.verify {
        if !e.kernels.contains(&v.kernel) && !e.given.contains(&v.kernel) {
            return Err(format!(
                "exercise {}: verifies `{}`, which is not one of its kernels ({})",
                e.id,
                v.kernel,
                e.kernels.join(", ")
            ));
        }
        match &v.grid {
            GridRecord::Blocks(0) => {
                return Err(format!("exercise {}: a grid of 0 blocks", e.id));
            }
            GridRecord::Blocks(_) => {}
            GridRecord::Named(name) => {
                GridRecord::one_per_thread_extra(name)
                    .map_err(|m| format!("exercise {}: {m}", e.id))?;
            }
        }
        if v.block == 0 || v.bins == 0 {
            return Err(format!(
                "exercise {}: `{}` with {} threads per block and {} bins: both must be at least 1",
                e.id, v.kernel, v.block, v.bins
            ));
        }
    }
    for x in &e.expect {
        let (_, text) = x
            .relation()
            .map_err(|m| format!("exercise {}: {m}", e.id))?;
        for text in [text, &x.counter] {
            expr::Expr::parse(text).map_err(|m| format!("exercise {}: {m}", e.id))?;
        }
    }
    Ok(())
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

/// The chapter's registry as Rust (`registry.rs`, see the crate's docs). `kernels` names
/// the reference's kernels (not its host functions): an exercise launches kernels when
/// one of its functions (or those it is given) is one, or when it needs another exercise
/// (whose kernels it runs), and only then can its check meet a launch's failures.
pub fn registry_rs(r: &Records, kernels: &std::collections::BTreeSet<String>) -> String {
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
            .map(|h| {
                format!(
                    "({}, {})",
                    failure_rs(&h.status, h.kind.as_deref()),
                    lit(&h.hint)
                )
            })
            .collect();
        let launches = !e.needs.is_empty()
            || e.kernels
                .iter()
                .chain(&e.given)
                .any(|k| kernels.contains(k));
        let _ = writeln!(
            out,
            "    course::Exercise {{\n        id: {},\n        title: {},\n        kernels: {},\n        points: {},\n        hints: {},\n        hints_by_failure: &[{}],\n        launches: {launches},\n        needs: {},\n        book: {},\n        checks: {},\n        check: checks::ex_{},\n    }},",
            lit(&e.id),
            lit(&e.title),
            lits(&e.kernels),
            e.points,
            lits(&e.hints),
            failures.join(", "),
            lits(&e.needs),
            lit(&format!("{}/{}", r.id, e.book)),
            lit(&e.checks),
            e.id.replace('.', "_"),
        );
    }
    let _ = writeln!(out, "];\n");
    let _ = writeln!(
        out,
        "/// The kinds of failure chapter {number}'s checks name, from the `kind`s of its records'\n\
         /// `on_failure` hints: a check fails with one (`Outcome::failed(failures::X, ..)`), and\n\
         /// the hint of that kind answers it. A kind no check names is dead code (a warning).\n\
         #[allow(unused_imports)]\n\
         pub(crate) mod failures {{"
    );
    for (kind, status) in coded_kinds(r) {
        let _ = writeln!(
            out,
            "    /// `{kind}`, a kind of `{status}`.\n    pub(crate) const {}: course::Failure = {};",
            kind.to_ascii_uppercase(),
            failure_rs(&status, Some(&kind))
        );
    }
    let _ = writeln!(out, "}}\n");
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

/// A declared check as Rust: the `chapter::declared::Check` static of exercise `e` and
/// the check function that runs it with the chapter's `check_declared`.
fn declared_rs(e: &Record) -> String {
    let step = e.id.replace('.', "_");
    let launches: Vec<String> = e
        .verify
        .iter()
        .map(|v| {
            let blocks = match &v.grid {
                GridRecord::Blocks(b) => format!("chapter::declared::Blocks::Fixed({b})"),
                GridRecord::Named(name) => format!(
                    "chapter::declared::Blocks::OnePerThread {{ extra: {} }}",
                    GridRecord::one_per_thread_extra(name).unwrap_or(0)
                ),
            };
            format!(
                "chapter::declared::Verify {{ kernel: {}, blocks: {blocks}, block: {}, bins: {}, shared_bins: {} }}",
                lit(&v.kernel),
                v.block,
                v.bins,
                v.shared_bins
            )
        })
        .collect();
    let expect: Vec<String> = e
        .expect
        .iter()
        .map(|x| {
            let (relation, value) = x.relation().unwrap_or(("is", ""));
            format!(
                "chapter::declared::Expect {{ counter: {}, relation: chapter::declared::Relation::{}, value: {}, means: {}, why: {}, kind: {} }}",
                lit(&x.counter),
                variant(relation),
                lit(value),
                x.means.as_deref().map_or("None".to_string(), |m| format!("Some({})", lit(m))),
                lit(&x.why),
                x.kind.as_deref().map_or("None".to_string(), |k| format!("Some({})", lit(k)))
            )
        })
        .collect();
    format!(
        "/// Exercise {id}'s declared check (its record's `verify` and `expect`).\n\
         pub static DECLARED_{step}: chapter::declared::Check = chapter::declared::Check {{\n    \
         launches: &[{}],\n    expect: &[{}],\n}};\n\n\
         fn declared_{step}(ctx: &mut Ctx) -> Checked {{\n    check_declared(ctx, &DECLARED_{step})\n}}\n\n",
        launches.join(", "),
        expect.join(", "),
        id = e.id,
    )
}

/// The chapter's check registry as Rust (`checks.rs`, included by its checks module): a
/// `chapter::check_registry!` of every record's check, and each declared check's static
/// and function (which call the chapter's `check_declared`).
pub fn checks_rs(r: &Records) -> String {
    let mut out =
        String::from("// Generated from exercises.toml by chapter-records: edit that file.\n");
    for e in r.exercise.iter().filter(|e| e.check.is_none()) {
        out.push_str(&declared_rs(e));
    }
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
            e.check
                .clone()
                .unwrap_or_else(|| format!("declared_{}", e.id.replace('.', "_"))),
            lit(&format!("{}: {}", e.id, e.checks))
        );
    }
    out.push_str("}\n");
    let declared: Vec<String> = r
        .exercise
        .iter()
        .filter(|e| e.check.is_none())
        .map(|e| format!("({}, &DECLARED_{})", lit(&e.id), e.id.replace('.', "_")))
        .collect();
    let follows: Vec<String> = r
        .exercise
        .iter()
        .flat_map(|e| &e.follow)
        .map(|f| {
            format!(
                "    chapter::declared::Follow {{ kernel: {}, unit: chapter::declared::Unit::{}, into: \
                 chapter::declared::Place::{}, scope: chapter::declared::Scope::{}, vector_bytes: {}, \
                 in_flight: {}, lane_banks: {}, tree: chapter::declared::Tree::{} }},",
                lit(&f.kernel),
                variant(&f.unit),
                variant(&f.into),
                variant(f.scope.as_deref().unwrap_or("all")),
                f.vector_bytes,
                f.in_flight,
                f.lane_banks,
                variant(f.tree.as_deref().unwrap_or("any"))
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "\n/// How the data of each kernel the records name must flow (`[[exercise.follow]]`):\n\
         /// `chapter::follow` checks each launch of it against its declaration.\n\
         #[allow(dead_code)]\n\
         pub static FOLLOWS: [chapter::declared::Follow; {}] = [\n{}\n];",
        follows.len(),
        follows.join("\n")
    );
    let _ = writeln!(
        out,
        "\n/// Every declared check of the chapter, by exercise id (a test checks what they name).\n\
         #[allow(dead_code)]\n\
         pub static DECLARED: [(&str, &chapter::declared::Check); {}] = [{}];",
        declared.len(),
        declared.join(", ")
    );
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

/// What the chapter's self-test (`chapter::registry_tests!`, in a package of its own beside
/// the chapter) reads of the chapter's build: the generated exercise tests and the
/// reference source, as constants of the chapter crate (another package has neither its
/// `OUT_DIR` nor a fixed path to `solutions/`).
fn self_test_rs(solution: &Path) -> String {
    format!(
        "\n/// The generated `#[test]` list of `tests/exercises.rs` (the self-test checks that every\n\
         /// exercise has one).\n#[doc(hidden)]\npub const EXERCISE_TESTS: &str = \
         include_str!(concat!(env!(\"OUT_DIR\"), \"/exercise_tests.rs\"));\n\
         /// The chapter's reference source (`solutions/src/`), which the self-test compares the\n\
         /// hints with.\n#[doc(hidden)]\npub const REFERENCE_SOURCE: &str = include_str!({:?});\n",
        solution.display().to_string()
    )
}

/// For a chapter's build script: reads `exercises.toml` in the crate's folder
/// (`CARGO_MANIFEST_DIR`) and writes `registry.rs`, `checks.rs`, `exercise_tests.rs` and
/// `kernel_table.rs` (from the chapter's reference file, `solutions/src/<module>.rs`, found
/// in a folder above the crate) into `OUT_DIR`.
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
    let module = records.kernels_module.clone().unwrap_or(records.id.clone());
    let solution = Path::new(&dir)
        .ancestors()
        .map(|a| a.join("solutions").join("src").join(format!("{module}.rs")))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("no solutions/src/{module}.rs above {dir}: the chapter's reference kernels")
        });
    println!("cargo:rerun-if-changed={}", solution.display());
    let source = std::fs::read_to_string(&solution)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", solution.display()));
    let kernels: std::collections::BTreeSet<String> = scan(&source)
        .map(|s| {
            s.items
                .into_iter()
                .filter(|(_, item)| *item == Item::Kernel)
                .map(|(name, _)| name)
                .collect()
        })
        .unwrap_or_default();
    let mut registry = registry_rs(&records, &kernels);
    registry.push_str(&self_test_rs(&solution));
    write("registry.rs", registry);
    write("checks.rs", checks_rs(&records));
    write("exercise_tests.rs", tests_rs(&records));
    let table = kernel_table_rs(&records, &module, &source)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    write("kernel_table.rs", table);
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

    /// A named kind of failure: a constant for the checks (unless the course names it, or
    /// only a declared expectation does), one status per kind, one hint per failure.
    #[test]
    fn failure_kinds_become_constants_and_are_checked() {
        let with = |extra: &str| {
            GOOD.replacen(
                "[[exercise.launch]]",
                &format!("{extra}\n[[exercise.launch]]"),
                1,
            )
        };
        let kinds = with(
            "[[exercise.on_failure]]\nstatus = \"wrong_result\"\nkind = \"halo\"\nhint = \"The halo.\"\n\n\
             [[exercise.on_failure]]\nstatus = \"wrong_result\"\nkind = \"uninitialised_shared\"\nhint = \"Zero.\"\n",
        );
        let r = parse(&kinds).unwrap();
        let reg = registry_rs(&r, &Default::default());
        assert!(
            reg.contains("pub(crate) const HALO: course::Failure = course::Failure::named(course::Status::WrongResult, \"halo\");"),
            "{reg}"
        );
        assert!(
            !reg.contains("UNINITIALISED_SHARED"),
            "the course's own: {reg}"
        );
        assert!(reg.contains(
            "(course::Failure::named(course::Status::WrongResult, \"halo\"), \"The halo.\")"
        ));
        assert_eq!(
            coded_kinds(&r),
            [("halo".to_string(), "wrong_result".to_string())]
        );
        let twice = with(
            "[[exercise.on_failure]]\nstatus = \"race\"\nhint = \"A.\"\n\n[[exercise.on_failure]]\nstatus = \"race\"\nhint = \"B.\"\n",
        );
        assert!(parse(&twice).unwrap_err().contains("two hints"));
        let course_kind = with(
            "[[exercise.on_failure]]\nstatus = \"race\"\nkind = \"uninitialised_shared\"\nhint = \"A.\"\n",
        );
        assert!(
            parse(&course_kind)
                .unwrap_err()
                .contains("the course's kind")
        );
        let not_a_word = with(
            "[[exercise.on_failure]]\nstatus = \"race\"\nkind = \"Two Words\"\nhint = \"A.\"\n",
        );
        assert!(parse(&not_a_word).unwrap_err().contains("snake_case"));
    }

    #[test]
    fn a_chapter_becomes_its_registry_and_tests() {
        let r = parse(GOOD).unwrap();
        let reg = registry_rs(&r, &["conv_1d".to_string()].into_iter().collect());
        assert!(
            reg.contains("pub static EXERCISES: [course::Exercise; 2]"),
            "{reg}"
        );
        assert!(
            reg.contains("(course::Failure::status(course::Status::WrongTechnique), \"Tiles.\")"),
            "{reg}"
        );
        // 7.1 launches its kernel; 7.2 needs 7.1, whose kernels it runs.
        assert_eq!(reg.matches("launches: true,").count(), 2, "{reg}");
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

    /// 7.2 of [`GOOD`] with its check declared in place of its function: `verify`, then
    /// `expect` (each with `extra` lines added).
    fn declared(verify: &str, expect: &str) -> String {
        GOOD.replace("check = \"tiled::check_7_2\"\n", "")
            + &format!(
                "\n[[exercise.verify]]\nkernel = \"conv_tiled\"\ngrid = 3\nblock = 64\nbins = 16\n{verify}\n\
                 [[exercise.expect]]\ncounter = \"shared_load_requests\"\nwhy = \"tiles\"\n{expect}\n"
            )
    }

    #[test]
    fn a_declared_check_becomes_its_static_and_function() {
        let r = parse(&declared(
            "[[exercise.verify]]\nkernel = \"conv_tiled\"\ngrid = \"one_per_thread+2\"\nblock = 32\nbins = 8\nshared_bins = true",
            "at_least = \"n * 2 + grid\"\nmeans = \"tiled loads\"",
        ))
        .unwrap();
        let checks = checks_rs(&r);
        assert!(
            checks.contains("\"7.2\" ex_7_2 => declared_7_2:"),
            "{checks}"
        );
        assert!(
            checks.contains("pub static DECLARED_7_2: chapter::declared::Check"),
            "{checks}"
        );
        assert!(checks.contains("fn declared_7_2(ctx: &mut Ctx) -> Checked {\n    check_declared(ctx, &DECLARED_7_2)"), "{checks}");
        assert!(
            checks.contains("blocks: chapter::declared::Blocks::Fixed(3), block: 64, bins: 16"),
            "{checks}"
        );
        assert!(checks.contains("blocks: chapter::declared::Blocks::OnePerThread { extra: 2 }, block: 32, bins: 8, shared_bins: true"), "{checks}");
        assert!(checks.contains("relation: chapter::declared::Relation::AtLeast, value: \"n * 2 + grid\", means: Some(\"tiled loads\"), why: \"tiles\""), "{checks}");
        assert!(checks.contains("(\"7.2\", &DECLARED_7_2)"), "{checks}");
        assert!(
            checks.contains("pub static FOLLOWS: [chapter::declared::Follow; 0] = ["),
            "{checks}"
        );
        assert!(
            checks.contains("\"7.1\" ex_7_1 => basic::check_7_1:"),
            "{checks}"
        );
    }

    #[test]
    fn mistakes_in_a_declared_check_are_named() {
        let cases = [
            (declared("", "is = \"n\"\nat_most = \"n\""), "exactly one"),
            (declared("", ""), "names 0 of"),
            (declared("", "is = \"n +\""), "ends where"),
            (declared("", "is = \"n / 2\""), "expected `+`"),
            (
                declared("", "is = \"n\"").replace("grid = 3", "grid = \"per_block\""),
                "grid `per_block`",
            ),
            (
                declared("", "is = \"n\"").replace("grid = 3", "grid = \"one_per_thread+x\""),
                "`+K`",
            ),
            (
                declared("", "is = \"n\"").replace("grid = 3", "grid = 0"),
                "0 blocks",
            ),
            (
                declared("", "is = \"n\"").replace("block = 64", "block = 0"),
                "at least 1",
            ),
            (
                declared("", "is = \"n\"").replace(
                    "kernel = \"conv_tiled\"\ngrid",
                    "kernel = \"conv_1d\"\ngrid",
                ),
                "verifies `conv_1d`",
            ),
            (
                declared("", "is = \"n\"").replace(
                    "topic = \"tiled_2\"",
                    "topic = \"tiled_2\"\ncheck = \"a::b\"",
                ),
                "one or the other",
            ),
            (
                GOOD.replace("check = \"tiled::check_7_2\"\n", ""),
                "no check",
            ),
            (
                GOOD.replace(
                    "needs = [\"7.1\"]",
                    "needs = [\"7.1\"]\nfollow = \"thread\"",
                ),
                "follow",
            ),
            (
                GOOD.replace(
                    "needs = [\"7.1\"]",
                    "needs = [\"7.1\"]\nfollow = [{ kernel = \"conv_1d\", unit = \"thread\", into = \"shared\" }]",
                ),
                "follows `conv_1d`, which is not one of its kernels",
            ),
            (
                GOOD.replace(
                    "needs = [\"7.1\"]",
                    "needs = [\"7.1\"]\nfollow = [{ kernel = \"conv_tiled\", unit = \"grid\", into = \"shared\" }]",
                ),
                "no unit `grid`",
            ),
            (
                GOOD.replace(
                    "needs = [\"7.1\"]",
                    "needs = [\"7.1\"]\nfollow = [{ kernel = \"conv_tiled\", unit = \"block\", into = \"shared\", tree = \"binary\" }]",
                ),
                "no tree `binary`",
            ),
            (
                GOOD.replace(
                    "needs = [\"7.1\"]",
                    "needs = [\"7.1\"]\nfollow = [{ kernel = \"conv_tiled\", unit = \"warp\", into = \"local\" }]",
                ),
                "no into `local`",
            ),
            (
                GOOD.replace(
                    "needs = [\"7.1\"]",
                    "needs = [\"7.1\"]\nfollow = [{ kernel = \"conv_tiled\", unit = \"warp\", into = \"shared\", scope = \"rows\" }]",
                ),
                "no scope `rows`",
            ),
            (
                GOOD.replace(
                    "needs = [\"7.1\"]",
                    "needs = [\"7.1\"]\nfollow = [{ kernel = \"conv_tiled\", unit = \"warp\", into = \"shared\" }, { kernel = \"conv_tiled\", unit = \"thread\", into = \"global\" }]",
                ),
                "followed twice",
            ),
            (
                GOOD.replace(
                    "kernels = [\"conv_tiled\"]",
                    "kernels = [\"conv_tiled\"]\ngiven = [\"conv_tiled\"]",
                ),
                "both one of its kernels and given",
            ),
        ];
        for (text, said) in cases {
            let e = parse(&text).unwrap_err();
            assert!(e.contains(said), "{said}: {e}");
        }
    }

    #[test]
    fn a_follow_record_becomes_its_declaration_whatever_the_check() {
        let text = format!(
            "{GOOD}\n[[exercise.follow]]\nkernel = \"conv_tiled\"\nunit = \"warp\"\ninto = \"shared\"\n\
             scope = \"slices\"\nvector_bytes = 16\nin_flight = 4\nlane_banks = true\n"
        );
        let checks = checks_rs(&parse(&text).unwrap());
        assert!(
            checks.contains(
                "pub static FOLLOWS: [chapter::declared::Follow; 1] = [\n    chapter::declared::Follow { \
                 kernel: \"conv_tiled\", unit: chapter::declared::Unit::Warp, into: \
                 chapter::declared::Place::Shared, scope: chapter::declared::Scope::Slices, vector_bytes: 16, \
                 in_flight: 4, lane_banks: true, tree: chapter::declared::Tree::Any },\n];"
            ),
            "{checks}"
        );
    }

    #[test]
    fn filters_pad_the_step() {
        assert_eq!(test_filter("9.3"), "ex_9_03");
        assert_eq!(test_filter("9.17"), "ex_9_17");
        assert_eq!(variant("out_of_bounds"), "OutOfBounds");
    }
}
