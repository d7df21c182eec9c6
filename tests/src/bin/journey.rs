//! `cargo run -p course-tests --bin journey`: a student's journey through each chapter.
//!
//! The course is otherwise checked in two states, every stub and every solution; a
//! student lives in between. This solves a chapter's exercises one at a time (the
//! reference's regions copied into a scratch copy of the shipped stubs, built as the
//! student's `kernels` crate for the sandbox), in course order and then in a shuffled
//! order, and at every stage asks the three tools a student or an instructor uses:
//!
//! - `cargo test -p chNN` (with the scratch kernels): exactly the solved exercises' tests
//!   pass, the exit status says whether any failed, and each failure prints its own
//!   exercise and the hint that answers its failure;
//! - the grader (`grade --student`): the same exercises pass, with the same hints;
//! - the runner (`learn --once`): its list marks exactly those as done, and the exercise
//!   it opens on shows its verdict and hint.
//!
//! Last, a copy of the course, renamed, must be judged by its own kernels by all three
//! tools ([`course_tests::moved`]).
//!
//! Any disagreement stops the journey with the stage, the tool and what it said. The
//! scratch files live in `target/journey/` (the developer's `kernels/` and progress are
//! not touched).

use clap::{Parser, ValueEnum};
use course::{Chapter, Exercise, Status};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

/// A student's journey: solve each chapter's exercises one at a time and check, at every
/// stage, that `cargo test`, the grader and the runner agree on what passes and show each
/// failure's own hint.
#[derive(Debug, Parser)]
#[command(name = "journey", version, long_about = None)]
struct Cli {
    /// Only this chapter (ch05, ch09) [default: every chapter].
    #[arg(long, value_name = "ID")]
    chapter: Vec<String>,
    /// The order the exercises are solved in.
    #[arg(long, value_enum, default_value_t = Order::Both)]
    order: Order,
    /// The seed of the shuffled order.
    #[arg(long, default_value_t = 2009)]
    seed: u64,
    /// Only the last stage: a copied, renamed course judged by its own kernels.
    #[arg(long, conflicts_with = "chapter")]
    moved_only: bool,
    /// Only the PTX stage: copies of the course built with `--features cuda` (file times
    /// kept, with their target/ or the original's) embed their own kernels' PTX. Needs the
    /// pinned nightly; not part of the default journey.
    #[arg(long, conflicts_with_all = ["chapter", "moved_only"])]
    ptx_copies: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Order {
    /// The book's order.
    Course,
    /// A shuffled order (`--seed`).
    Shuffled,
    /// The book's order, then a shuffled one.
    Both,
}

/// The PTX stage ([`course_tests::moved_ptx`]), alone.
fn ptx_copies(root: &Path) -> ExitCode {
    let t = Instant::now();
    match course_tests::moved_ptx::check(root, &root.join("target").join("journey").join("ptx")) {
        Ok(()) => {
            println!(
                "== copies of a course built with --features cuda embed their own kernels' PTX \
                 ({:.0} s)",
                t.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("journey: the PTX of a copied course: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.ptx_copies {
        return ptx_copies(&course_tests::workspace_root());
    }
    match run(&cli) {
        Ok(stages) => {
            println!("journey: {stages} stages, every tool agreed");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("journey: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> Result<usize, String> {
    let root = course_tests::workspace_root();
    let scratch = root.join("target").join("journey");
    let chapters: Vec<&'static Chapter> = course_tests::chapters()
        .into_iter()
        .filter(|c| cli.chapter.is_empty() || cli.chapter.iter().any(|id| id == c.id))
        .collect();
    if chapters.is_empty() {
        return Err(format!("no chapter {:?}", cli.chapter));
    }
    // Build the tools once, so that the stages time only the checks.
    cargo(&root)
        .args(["build", "-q", "-p", "grade", "-p", "learn"])
        .args(chapters.iter().flat_map(|c| ["-p", c.id]))
        .arg("--tests")
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?
        .success()
        .then_some(())
        .ok_or("the tools do not build")?;
    let mut stages = 0;
    for chapter in chapters.into_iter().filter(|_| !cli.moved_only) {
        let ids: Vec<&str> = chapter.exercises.iter().map(|e| e.id).collect();
        let mut orders = Vec::new();
        if cli.order != Order::Shuffled {
            orders.push(("course order", ids.clone()));
        }
        if cli.order != Order::Course {
            orders.push(("shuffled order", shuffled(&ids, cli.seed)));
        }
        for (name, order) in orders {
            println!("== {} in {name}: {}", chapter.id, order.join(", "));
            for k in 0..=order.len() {
                let solved: BTreeSet<&str> = order[..k].iter().copied().collect();
                let t = Instant::now();
                stage(&root, &scratch, chapter, &solved)
                    .map_err(|e| format!("{}, {name}, solved {:?}: {e}", chapter.id, solved))?;
                println!(
                    "   stage {k:>2}: {} solved, the three tools agree ({:.0} s)",
                    solved.len(),
                    t.elapsed().as_secs_f64()
                );
                stages += 1;
            }
        }
    }
    if cli.chapter.is_empty() {
        // The last stage: the course copied and renamed judges its own kernels.
        let t = Instant::now();
        course_tests::moved::check(&root, &scratch.join("moved"))
            .map_err(|e| format!("a copied, renamed course: {e}"))?;
        println!(
            "== a copied, renamed course: cargo test, the runner and the grader judge the \
             copy's kernels ({:.0} s)",
            t.elapsed().as_secs_f64()
        );
        stages += 1;
    }
    Ok(stages)
}

/// A deterministic shuffle of `ids` (Fisher-Yates with the course's generator; the
/// journey only needs some other order).
fn shuffled<'a>(ids: &[&'a str], seed: u64) -> Vec<&'a str> {
    let mut v = ids.to_vec();
    let mut rng = course::Rng::new(seed);
    for i in (1..v.len()).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
    if v == ids {
        v.reverse();
    }
    v
}

fn cargo(root: &Path) -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(root)
        .env("CARGO_TERM_COLOR", "never")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null());
    c
}

fn read(p: &Path) -> Result<String, String> {
    std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
}

/// One stage: the scratch student has solved `solved` of `chapter` (and nothing else).
fn stage(
    root: &Path,
    scratch: &Path,
    chapter: &'static Chapter,
    solved: &BTreeSet<&str>,
) -> Result<(), String> {
    // The student's files: the shipped stubs, with the solved regions from the reference.
    let src = scratch.join("student").join("kernels").join("src");
    std::fs::create_dir_all(&src).map_err(|e| format!("cannot create {}: {e}", src.display()))?;
    for c in course_tests::chapters() {
        let mut text = read(
            &root
                .join(learn::cargo::PRISTINE_DIR)
                .join(format!("{}.rs", c.id)),
        )?;
        let reference = read(&root.join("solutions/src").join(format!("{}.rs", c.id)))?;
        if c.id == chapter.id {
            for id in solved {
                text = learn::regions::reset(&text, &reference, id)?.0;
            }
        }
        let file = src.join(format!("{}.rs", c.id));
        std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    std::fs::copy(root.join("kernels/src/lib.rs"), src.join("lib.rs"))
        .map_err(|e| format!("cannot copy kernels/src/lib.rs: {e}"))?;
    let module = gpu_host::lanes::build_student(&src, root)?;
    // What must pass: the solved exercises whose needed exercises are solved too (9.9
    // calls 9.5's functions); a solved one that needs an unsolved one fails saying so.
    let expect: BTreeSet<String> = chapter
        .exercises
        .iter()
        .filter(|e| solved.contains(e.id) && e.needs.iter().all(|d| solved.contains(d)))
        .map(|e| e.id.to_string())
        .collect();

    // 1. cargo test -p chNN, with the scratch kernels.
    let out = cargo(root)
        .args(["test", "-p", chapter.id, "--test", "exercises"])
        .env(gpu_host::lanes::module_env("kernels"), &module)
        .output()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let passed: BTreeSet<String> = chapter
        .exercises
        .iter()
        .filter(|e| {
            let name = course::test_filter(e.id);
            text.lines()
                .any(|l| l.starts_with(&format!("test {name}_")) && l.ends_with(" ... ok"))
        })
        .map(|e| e.id.to_string())
        .collect();
    agree("cargo test", &passed, &expect, &text)?;
    if out.status.success() != (expect.len() == chapter.exercises.len()) {
        return Err(format!(
            "cargo test exited with {} while {} of {} exercises are solved",
            out.status,
            expect.len(),
            chapter.exercises.len()
        ));
    }
    for e in chapter.exercises.iter().filter(|e| !expect.contains(e.id)) {
        let (status, message) = failure_in(&text, e)
            .ok_or_else(|| format!("cargo test printed no failure message for {}", e.id))?;
        let hint = hint_of(e, status, &message);
        if solved.contains(e.id) && !message.contains("needs ") {
            return Err(format!(
                "cargo test: {} is solved but fails without naming the exercise it needs:\n{message}",
                e.id
            ));
        }
        if !message.contains(&format!("  hint: {hint}")) {
            return Err(format!(
                "cargo test: the failure of {} does not show its hint `{hint}`:\n{message}",
                e.id
            ));
        }
    }

    // 2. The grader, on the scratch student.
    let out = cargo(root)
        .args(["run", "-q", "-p", "grade", "--", "--json", "--student"])
        .arg(scratch.join("student"))
        .output()
        .map_err(|e| format!("cannot run the grader: {e}"))?;
    let report: grade::Report = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "the grader's report is unreadable ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let mut graded = BTreeSet::new();
    for ex in &report.exercises {
        let Some(e) = chapter.exercise(&ex.id) else {
            continue;
        };
        if ex.passed {
            graded.insert(e.id.to_string());
            continue;
        }
        let hint = e.hint_for(&ex.outcome);
        if ex.hint.as_deref() != Some(hint.as_str()) {
            return Err(format!(
                "the grader shows {} with the hint {:?}, not `{hint}`",
                e.id, ex.hint
            ));
        }
    }
    let printed = String::from_utf8_lossy(&out.stdout);
    agree("the grader", &graded, &expect, &printed)?;

    // 3. The runner, once, on the first unsolved exercise (or the last one).
    let open = chapter
        .exercises
        .iter()
        .find(|e| !expect.contains(e.id))
        .or(chapter.exercises.last())
        .expect("invariant: a chapter has exercises");
    let progress = scratch.join("progress.json");
    let _ = std::fs::remove_file(&progress);
    let out = cargo(root)
        .args([
            "run",
            "-q",
            "-p",
            "learn",
            "--",
            "--once",
            "--exercise",
            open.id,
        ])
        .env(gpu_host::lanes::module_env("kernels"), &module)
        .env(learn::progress::PROGRESS_ENV, &progress)
        .output()
        .map_err(|e| format!("cannot run the runner: {e}"))?;
    let screen = String::from_utf8_lossy(&out.stdout);
    let done: BTreeSet<String> = chapter
        .exercises
        .iter()
        .filter(|e| {
            screen.lines().any(|l| {
                let mut words = l.trim_start_matches(['>', '*', ' ']).split_whitespace();
                words.next() == Some("done") && words.next() == Some(e.id)
            })
        })
        .map(|e| e.id.to_string())
        .collect();
    agree("learn --once", &done, &expect, &screen)?;
    if expect.contains(open.id) {
        if !screen.contains("status: PASS") {
            return Err(format!(
                "learn --once does not show {} passing:\n{screen}",
                open.id
            ));
        }
    } else {
        let hint = screen
            .lines()
            .find_map(|l| l.trim().strip_prefix("hint 1/"))
            .and_then(|l| l.split_once(": "))
            .map(|(_, h)| h.to_string())
            .ok_or_else(|| format!("learn --once shows no hint for {}:\n{screen}", open.id))?;
        let label = screen
            .lines()
            .find_map(|l| l.trim().strip_prefix("status: FAIL ("))
            .and_then(|l| l.split_once(')'))
            .map(|(label, _)| label.to_string())
            .ok_or_else(|| format!("learn --once shows no failure for {}:\n{screen}", open.id))?;
        let status =
            Status::from_label(&label).ok_or_else(|| format!("unknown status `{label}`"))?;
        let want = hint_of(open, status, &screen);
        if hint != want {
            return Err(format!(
                "learn --once shows {} with the hint `{hint}`, not `{want}`",
                open.id
            ));
        }
    }
    Ok(())
}

/// The hint a failure of `e` with `status` must show, `said` being what the tool printed
/// (its reason names the needed exercise whose stub stopped it, if one did).
fn hint_of(e: &Exercise, status: Status, said: &str) -> String {
    let reason = said
        .lines()
        .find(|l| l.contains("needs ") && l.contains(" first"))
        .unwrap_or(said);
    // The journey's failures are stubs and the exercises they stop: no named kind.
    e.hint_for(&course::Outcome::fail(status, reason))
}

/// Fails unless a tool's passing exercises are the solved ones.
fn agree(
    tool: &str,
    got: &BTreeSet<String>,
    expect: &BTreeSet<String>,
    said: &str,
) -> Result<(), String> {
    if got == expect {
        return Ok(());
    }
    Err(format!(
        "{tool} passes {got:?}, but the solved exercises are {expect:?}; it said:\n{said}"
    ))
}

/// The failure message `cargo test` printed for `e`: its status and text.
fn failure_in(text: &str, e: &Exercise) -> Option<(Status, String)> {
    let head = format!("exercise {} ({}): ", e.id, e.title);
    let start = text.find(&head)?;
    let rest = &text[start..];
    let end = rest.find("\n  read: ").map_or(rest.len(), |i| i + 1);
    let message = rest[..end].to_string();
    let label = rest[head.len()..].split(" - ").next()?;
    Some((Status::from_label(label)?, message))
}
