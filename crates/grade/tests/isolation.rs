//! One submission cannot change another's grade, and no verdict depends on the clock.
//!
//! - A class of a hostile submission (a `const` whose evaluation never ends), an honest one
//!   with one answer that does not compile and an honest one that compiles, at a lowered
//!   build budget: each honest submission's report is byte for byte the one it gets when
//!   graded alone, and the class's wall time is bounded by the hostile budget plus the
//!   honest ones' own time.
//! - A kernel that prints heavily and one that burns instructions between its device calls
//!   get the same verdict with and without two CPU-bound processes per core running
//!   beside the grader: counted limits fire first.
//!
//! Both take a minute or more: `.ci/run` runs them (`--include-ignored`).

mod clones;

use clones::{replace_region, root};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The exercises graded: the attacked ones and one of chapter 5.
const IDS: [&str; 3] = ["5.1", "9.3", "9.4"];

/// A fresh scratch folder of this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("grade-isolation-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A submission at `dir`: the reference files with the regions of `edits` replaced.
fn submission(dir: &Path, edits: &[(&str, &str)]) {
    let src = dir.join("kernels/src");
    std::fs::create_dir_all(&src).expect("a folder");
    // One module per chapter of the course's list.
    let ids: Vec<&str> = grade::chapters().iter().map(|c| c.id).collect();
    let mods: String = ids.iter().map(|id| format!("pub mod {id};\n")).collect();
    std::fs::write(
        src.join("lib.rs"),
        format!("//! A student's kernels.\n{mods}"),
    )
    .expect("written");
    for f in ids.iter().map(|id| format!("{id}.rs")) {
        let f = f.as_str();
        let mut text =
            std::fs::read_to_string(root().join("solutions/src").join(f)).expect("the reference");
        if f == "ch09.rs" {
            for (id, body) in edits {
                text = replace_region(&text, id, body);
            }
        }
        std::fs::write(src.join(f), text).expect("written");
    }
}

/// Grades the class folder `class` into `out` (JSON only) with the build budget
/// `budget_s`; how long it took.
fn grade_class(class: &Path, out: &Path, budget_s: u64) -> Duration {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_grade"));
    cmd.env_remove("COURSE_GRADE_SEED")
        .env_remove("COURSE_SEED")
        .env("COURSE_BUILD_LIMIT_S", budget_s.to_string())
        .arg("--class")
        .arg(class)
        .arg("--out")
        .arg(out)
        .args(["--format", "json", "--jobs", "2"]);
    for id in IDS {
        cmd.args(["--exercise", id]);
    }
    let t = Instant::now();
    let run = cmd.output().expect("the grader runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    t.elapsed()
}

fn report(out: &Path, name: &str) -> String {
    std::fs::read_to_string(out.join("submissions").join(name).join("grade.json"))
        .unwrap_or_else(|e| panic!("{name}'s report: {e}"))
}

/// A right 9.3 followed by a `const` whose evaluation never ends (rustc's own stop
/// turned off): only the build budget stops it.
const HOSTILE_9_3: &str = r#"
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += stride;
    }
    #[allow(long_running_const_eval)]
    const SPIN: u64 = { let mut i = 0u64; while i < u64::MAX { i += 1; } i };
    histo.atomic_add(0, (SPIN & 0) as u32);"#;

#[test]
#[ignore = "a minute and more: .ci/run runs it"]
fn a_hostile_build_costs_the_class_its_own_budget_once() {
    let dir = scratch("class");
    let budget = 30;
    let make = |class: &Path, who: &str| match who {
        "0-hostile" => submission(&class.join(who), &[("9.3", HOSTILE_9_3)]),
        "broken" => submission(
            &class.join(who),
            &[(
                "9.4",
                "    let x: u32 = \"not a number\";\n    let _ = (data, histo, num_bins, x);",
            )],
        ),
        _ => submission(&class.join(who), &[]),
    };
    // Warm the sandbox's shared build of the course's crates, so that what is compared is
    // each submission's own build.
    let warm = dir.join("warm");
    make(&warm, "honest");
    grade_class(&warm, &dir.join("warm-out"), 600);
    // Each honest submission alone, as a class of one.
    let mut alone = Vec::new();
    let mut own_time = Duration::ZERO;
    for who in ["broken", "honest"] {
        let class = dir.join(format!("alone-{who}"));
        make(&class, who);
        let out = dir.join(format!("alone-{who}-out"));
        own_time += grade_class(&class, &out, budget);
        alone.push((who, report(&out, who)));
    }
    // The three together, the hostile one first in the class's order: it takes the
    // shared build's lock while the honest ones wait for it.
    let class = dir.join("class");
    for who in ["0-hostile", "broken", "honest"] {
        make(&class, who);
    }
    let out = dir.join("class-out");
    let took = grade_class(&class, &out, budget);
    for (who, text) in &alone {
        assert_eq!(
            &report(&out, who),
            text,
            "{who}'s report in the class differs from the one it gets alone"
        );
    }
    let broken: serde_json::Value =
        serde_json::from_str(&alone[0].1).expect("the broken one's JSON");
    let graded: Vec<(&str, &str)> = broken["exercises"]
        .as_array()
        .expect("exercises")
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap_or_default(),
                e["status"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        graded,
        [("5.1", "pass"), ("9.3", "pass"), ("9.4", "error")],
        "the answer that does not compile costs its own exercise only: {broken}"
    );
    let hostile: serde_json::Value =
        serde_json::from_str(&report(&out, "0-hostile")).expect("the hostile one's JSON");
    assert_eq!(hostile["points"]["earned"], 0, "{hostile}");
    // The class took the hostile budget once, plus the honest submissions' own time (and
    // room for process starts on a loaded machine).
    let bound = Duration::from_secs(budget) + own_time * 2 + Duration::from_secs(30);
    assert!(
        took <= bound,
        "the class took {took:?}: more than its hostile budget ({budget} s) and the honest \
         submissions' own time ({own_time:?}) allow ({bound:?})"
    );
}

/// CPU-bound processes, killed when dropped.
struct Hogs(Vec<Child>);

impl Hogs {
    /// Two busy processes per core of this machine.
    fn start() -> Hogs {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Hogs(
            (0..2 * cores)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .stdout(Stdio::null())
                        .spawn()
                        .expect("a busy process")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A 9.4 that prints a 4 KiB line two thousand times per element, then counts it.
fn heavy_printer() -> String {
    let line = "x".repeat(4000);
    format!(
        r#"    let block = thread::block_idx_x();
    let private = block * num_bins;
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {{
        let b = byte_bin(data.load(i), num_bins);
        for _ in 0..2000u32 {{
            println!("{line}");
        }}
        histo.atomic_add(private + b, 1);
        i += stride;
    }}
    if block > 0 {{
        thread::sync_threads();
        let mut bin = thread::thread_idx_x();
        while bin < num_bins {{
            let count = histo.load(private + bin);
            if count > 0 {{
                histo.atomic_add(bin, count);
            }}
            bin += thread::block_dim_x();
        }}
    }}"#
    )
}

/// A 9.3 that spins in registers before each element's device calls.
const FUEL_BURNER: &str = r#"    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        let mut spin = 0u32;
        while spin < 100_000 + data.len() % 2 {
            spin = core::hint::black_box(spin + 1);
        }
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += stride;
    }"#;

/// Each exercise's status and reason in a `--student` report.
fn verdicts(dir: &Path) -> Vec<(String, String, String)> {
    let (report, _) = clones::grade(dir, &IDS);
    report["exercises"]
        .as_array()
        .expect("exercises")
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap_or_default().to_string(),
                e["status"].as_str().unwrap_or_default().to_string(),
                e["reason"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
#[ignore = "a minute under load: .ci/run runs it"]
fn counted_limits_give_the_verdict_on_a_loaded_machine() {
    let dir = scratch("clock");
    let printer = dir.join("printer");
    submission(&printer, &[("9.4", &heavy_printer())]);
    let burner = dir.join("burner");
    submission(&burner, &[("9.3", FUEL_BURNER)]);
    for (who, sub, id) in [("printer", &printer, "9.4"), ("burner", &burner, "9.3")] {
        let idle = verdicts(sub);
        let attacked = idle.iter().find(|v| v.0 == id).expect("graded");
        assert_eq!(
            attacked.1, "timed_out",
            "{who}: stopped by a count: {idle:?}"
        );
        assert!(
            attacked.2.contains("work budget") || attacked.2.contains("WebAssembly instructions"),
            "{who}: {idle:?}"
        );
        let hogs = Hogs::start();
        let loaded = verdicts(sub);
        drop(hogs);
        assert_eq!(
            loaded, idle,
            "{who}: the verdict changed with the machine's load"
        );
    }
}
