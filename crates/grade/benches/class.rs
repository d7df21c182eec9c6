//! `cargo bench -p grade --bench class [-- N [JOBS]]`: grades a generated class of N
//! submissions (100 by default) with `grade --class`, and prints the wall time, the
//! figure against the target (100 submissions in 3 minutes on a 2-core machine) and where
//! the time went (builds, checks).
//!
//! The class is the mix an instructor sees, in turn: the shipped stubs, the reference, a
//! student's own solution (9.3 written with the block arithmetic and `red_add`), half
//! solved (chapter 5 done), one whose answer to an exercise does not compile, one
//! whose kernel loops in registers, and one whose 9.9 was written for the stub of
//! 2026-11-26 (its signature changed since: the row must say so, not "could not run"). Each submission's code differs from every other's (a
//! statement of its own in one of its answers), so no two builds are alike: the
//! benchmark measures a build per submission, as a real class costs.

use course::regions::regions;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// 9.3 as a student writes it differently from the reference.
const OWN_9_3: &str = "    let n = data.len();
    let stride = thread::grid_dim_x() * thread::block_dim_x();
    let mut i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    while i < n {
        histo.red_add(byte_bin(data.load(i), histo.len()), 1);
        i += stride;
    }
";

/// `text` with the body of the `nth` region of exercise `id` replaced by `body`.
fn with_region(text: &str, id: &str, nth: usize, body: &str) -> String {
    let found = regions(text).expect("the course's files have well-formed regions");
    let r = found
        .iter()
        .filter(|r| r.id == id)
        .nth(nth)
        .expect("the region");
    format!("{}{body}{}", &text[..r.body.start], &text[r.body.end..])
}

/// `text` (chapter 9) with `consume_tiles` as a student wrote it for the 2026-11-26 stub
/// (`tests/data/`): its old signature and its answer.
fn old_signature(text: &str) -> String {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/consume_tiles_2026-11-26.rs");
    let old = std::fs::read_to_string(data).expect("the old answer");
    let function = &old[old.find("pub fn consume_tiles").expect("the function")..];
    let at = text.find("pub fn consume_tiles(").expect("consume_tiles");
    let len = text[at..].find("\n}\n").expect("its end") + 3;
    let mut out = text.to_string();
    out.replace_range(at..at + len, function);
    out
}

/// `text` with a statement of submission `k`'s own at the start of its `nth` region.
fn varied(text: &str, k: usize) -> String {
    let found = regions(text).expect("regions");
    let r = &found[k % found.len()];
    let body = format!("    let _variant = {k}u32;\n{}", &text[r.body.clone()]);
    format!("{}{body}{}", &text[..r.body.start], &text[r.body.end..])
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100);
    let jobs: Option<usize> = args.get(1).and_then(|a| a.parse().ok());
    let root = course_root::course_root().expect("the course");
    let read = |rel: &str| std::fs::read_to_string(root.join(rel)).expect("a course file");
    let (stub5, stub9) = (
        read("crates/learn/pristine/ch05.rs"),
        read("crates/learn/pristine/ch09.rs"),
    );
    let (ref5, ref9) = (read("solutions/src/ch05.rs"), read("solutions/src/ch09.rs"));
    let base = root.join("target").join("bench-class");
    let class = base.join("class");
    let _ = std::fs::remove_dir_all(&base);
    for k in 0..n {
        let (ch05, ch09) = match k % 7 {
            0 => (stub5.clone(), varied(&stub9, k)),
            1 => (ref5.clone(), varied(&ref9, k)),
            2 => (
                ref5.clone(),
                varied(&with_region(&ref9, "9.3", 0, OWN_9_3), k),
            ),
            3 => (varied(&ref5, k), stub9.clone()),
            4 => (
                ref5.clone(),
                varied(
                    &with_region(&ref9, "9.6", 0, "    let x: u32 = \"oops\";\n"),
                    k,
                ),
            ),
            5 => (ref5.clone(), varied(&old_signature(&ref9), k)),
            _ => (
                with_region(
                    &ref5,
                    "5.3",
                    0,
                    "    let mut i = 0u32;\n    while i < 2 { i = i * 1; }\n    let _ = (a, b, c, i);\n",
                ),
                varied(&ref9, k),
            ),
        };
        let src = class
            .join(format!("student-{k:03}"))
            .join("kernels")
            .join("src");
        std::fs::create_dir_all(&src).expect("a folder");
        std::fs::write(src.join("ch05.rs"), ch05).expect("written");
        std::fs::write(src.join("ch09.rs"), ch09).expect("written");
    }
    let out = base.join("out");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_grade"));
    cmd.arg("--class").arg(&class).arg("--out").arg(&out);
    cmd.args(["--format", "json,junit,markdown"]);
    if let Some(j) = jobs {
        cmd.args(["--jobs", &j.to_string()]);
    }
    eprintln!(
        "bench: grading a generated class of {n} in {}",
        class.display()
    );
    let t = Instant::now();
    let status = cmd.status().expect("the grader runs");
    let wall = t.elapsed().as_secs_f64();
    assert!(status.success(), "the class run failed");
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap_or_default();
    // The answers written for the old stub say their signature changed.
    for k in (5..n).step_by(7) {
        let report = out
            .join("submissions")
            .join(format!("student-{k:03}"))
            .join("grade.json");
        let text = std::fs::read_to_string(&report).expect("the report");
        assert!(
            text.contains("\"signature_changed\"") && !text.contains("could not run"),
            "student-{k:03}: the old 9.9 is not named as a changed signature"
        );
    }
    let per = wall / n as f64;
    let at_100 = per * 100.0;
    println!(
        "\nbench class: {n} submissions in {wall:.1} s ({per:.2} s each; 100 would take {at_100:.0} s, \
         target 180 s: {})",
        if at_100 <= 180.0 { "met" } else { "not met" }
    );
    println!("{summary}");
    keep(&base, &out);
}

/// Leaves the class and its reports for a look (they are under target/).
fn keep(base: &Path, out: &Path) {
    let book: PathBuf = out.join("gradebook.csv");
    println!(
        "the class: {}; its gradebook: {}",
        base.display(),
        book.display()
    );
}
