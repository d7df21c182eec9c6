//! A private seed's inputs stay private: graded under an instructor's private seed, no
//! report of any format shows an input, a size, an expected answer or kernel output drawn
//! from it, so that a student who collects the reports of many gradings learns nothing of
//! the private cases (a table of them, harvested from 9.16's failure messages, had passed
//! under that seed). The same submission's public-seed feedback keeps all of it.

mod clones;

use clones::{exercise, root};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A 9.3 that misses the last element of its input (wrong under every seed) and prints the
/// length of each input it runs on.
const WRONG_PRINTING_9_3: &str = r#"    if thread::index_1d() == 0 {
        gpu::println!("PRINTED-LENGTH {}", data.len());
    }
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i + 1 < data.len() {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += stride;
    }"#;

/// The exercises graded: two that fail under a private seed, one that passes.
const IDS: [&str; 3] = ["9.3", "9.16", "9.4"];

/// Every format the grader writes for one submission.
const FORMATS: &str = "table,json,junit,markdown,gradescope,prairielearn";

/// The submission: a reference clone with the 9.3 above and the keyed 9.16, in folder `name` (one per
/// test: tests run at once).
fn submission(name: &str) -> PathBuf {
    clones::student_with(
        &format!("private-seed-{name}"),
        &[
            ("ch09.rs", "9.3", WRONG_PRINTING_9_3),
            ("ch09.rs", "9.16", clones::KEYED_9_16),
        ],
    )
}

/// Every format of the grade of `dir` (with `--seed seed`, or on the public seed), as
/// (file name, text), written with `--out` into a folder named `tag`.
fn graded(dir: &Path, seed: Option<&str>, tag: &str) -> Vec<(String, String)> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("private-seed-out-{tag}"));
    let _ = std::fs::remove_dir_all(&out);
    let out_arg = out.to_str().expect("UTF-8");
    let mut args = vec!["--format", FORMATS, "--out", out_arg];
    if let Some(seed) = seed {
        args.extend(["--seed", seed]);
    }
    clones::grade_raw(dir, &IDS, &args, &[]);
    files(&out)
}

/// The files of folder `dir` (and its folders), sorted, as (relative name, text).
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("the output folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path
                    .strip_prefix(dir)
                    .expect("inside")
                    .display()
                    .to_string();
                found.push((name, std::fs::read_to_string(&path).expect("text")));
            }
        }
    }
    found.sort();
    found
}

/// Every number written in `text` (each run of digits).
fn numbers(text: &str) -> BTreeSet<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty() && s.len() < 19)
        .map(|s| s.parse().expect("digits"))
        .collect()
}

/// The JSON report among `files`.
fn json(files: &[(String, String)]) -> serde_json::Value {
    let (_, text) = files
        .iter()
        .find(|(n, _)| n == "grade.json")
        .expect("grade.json");
    serde_json::from_str(text).expect("the JSON report")
}

#[test]
fn a_harvest_of_private_reports_learns_nothing_of_the_private_inputs() {
    let dir = submission("harvest");
    let seed_a = "instructor-secret-A";
    let seed_b = "another-secret-B-91";
    let a = graded(&dir, Some(seed_a), "a");
    let again = graded(&dir, Some(seed_a), "a-again");
    let b = graded(&dir, Some(seed_b), "b");
    let public = graded(&dir, None, "public");
    assert_eq!(a.len(), 6, "every format: {:?}", a.iter().map(|f| &f.0));

    // The verdicts: 9.3 fails everywhere, 9.16 only under a private seed, 9.4 passes.
    let report = json(&a);
    let status = |r: &serde_json::Value, id| exercise(r, id)["status"].clone();
    assert_eq!(status(&report, "9.3"), "wrong_result");
    assert_eq!(status(&report, "9.16"), "wrong_result");
    assert_eq!(status(&report, "9.4"), "pass");
    let open = json(&public);
    assert_eq!(status(&open, "9.3"), "wrong_result");
    assert_eq!(status(&open, "9.16"), "pass");

    // Graded again, and under another seed: the same bytes in every format.
    for ((name, x), ((_, y), (_, z))) in a.iter().zip(again.iter().zip(&b)) {
        assert_eq!(x, y, "{name} differs between two gradings under one seed");
        assert_eq!(x, z, "{name} differs between two private seeds");
    }

    // Nothing the private runs drew: no kernel output (the public report has it), no
    // number that the same submission's public reports do not hold too (a drawn size, a
    // drawn bin count, an expected count), and not the seed.
    assert!(
        json(&public).to_string().contains("PRINTED-LENGTH"),
        "the public feedback keeps what the kernel printed"
    );
    let public_numbers: BTreeSet<u64> = public.iter().flat_map(|(_, t)| numbers(t)).collect();
    for (name, text) in &a {
        assert!(!text.contains("PRINTED-LENGTH"), "kernel output in {name}");
        assert!(!text.contains(seed_a), "the seed in {name}");
        // PrairieLearn's score is a fraction of the points, which the verdicts decide.
        let text_but_score: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("\"score\":"))
            .collect();
        let strange: Vec<u64> = numbers(&text_but_score)
            .difference(&public_numbers)
            .copied()
            .collect();
        assert!(
            strange.is_empty(),
            "{name} holds numbers of no public report: {strange:?}\n{text}"
        );
    }
    for id in IDS {
        let e = exercise(&report, id);
        assert!(e.get("kernel_output").is_none(), "{e}");
        // The failure says what kind of case failed and the hint that answers it.
        if id != "9.4" {
            assert!(
                e["hint"].as_str().is_some_and(|h| !h.is_empty()),
                "the hint stays: {e}"
            );
            assert!(
                e["reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("failed") && r.contains("private seed")),
                "{e}"
            );
        } else {
            // What a pass means: the exercise's records say what its check verifies.
            let checks = chapters::all()
                .iter()
                .find_map(|c| c.exercise(id))
                .expect("9.4")
                .checks;
            assert!(!checks.is_empty());
            assert_eq!(e["reason"], grade::private::passed(checks), "{e}");
            assert_eq!(e["details"], serde_json::json!([]), "{e}");
        }
    }
}

#[test]
fn the_public_seed_s_feedback_keeps_its_inputs_and_kernel_output() {
    let dir = submission("public");
    let (report, _) = clones::grade(&dir, &IDS);
    let e = exercise(&report, "9.3");
    assert_eq!(e["status"], "wrong_result");
    let printed = e["kernel_output"].as_array().expect("kernel output");
    assert!(
        printed
            .iter()
            .any(|l| l.as_str().is_some_and(|l| l.contains("PRINTED-LENGTH "))),
        "{e}"
    );
    // The failure names its case: a detail with a number (a size, a bin, a count).
    let details = e["details"].as_array().expect("details");
    assert!(
        details.iter().any(|d| d
            .as_str()
            .is_some_and(|d| d.chars().any(|c| c.is_ascii_digit()))),
        "{e}"
    );
    assert!(
        report["inputs"]
            .as_str()
            .is_some_and(|i| i.contains("public")),
        "{report}"
    );
}

#[test]
fn a_private_failure_the_public_seed_shares_offers_the_public_case_to_replay() {
    let dir = submission("replay");
    let (public, _) = clones::grade(&dir, &IDS);
    let private = clones::grade_raw(&dir, &IDS, &["--json", "--seed", "replay-me"], &[]);
    let private: serde_json::Value = serde_json::from_str(&private).expect("JSON");
    // 9.3 fails the same way on the public seed: its case, marked as the public seed's,
    // with the command that replays it.
    let shared = exercise(&private, "9.3");
    let open = exercise(&public, "9.3");
    assert_eq!(shared["status"], open["status"]);
    assert_eq!(shared.get("kind"), open.get("kind"));
    let details: Vec<&str> = shared["details"]
        .as_array()
        .expect("details")
        .iter()
        .filter_map(|d| d.as_str())
        .collect();
    assert!(
        details[0].contains("public seed fails the same way")
            && details[0].contains("cargo test -p ch09 ex_9_03"),
        "{details:?}"
    );
    assert_eq!(
        details[1],
        format!(
            "public seed: {}",
            open["reason"].as_str().expect("a reason")
        )
    );
    let open_details: Vec<String> = open["details"]
        .as_array()
        .expect("details")
        .iter()
        .map(|d| format!("public seed: {}", d.as_str().expect("text")))
        .collect();
    assert_eq!(details[2..], open_details[..]);
    // 9.16 passes on the public seed: nothing to replay, and nothing of the private case.
    let alone = exercise(&private, "9.16");
    let text = alone["details"].to_string();
    assert!(text.contains("public seed passes"), "{alone}");
    assert!(!text.contains("public seed: "), "{alone}");
}

#[test]
fn a_class_graded_under_two_private_seeds_writes_the_same_reports() {
    let dir = submission("class");
    let run = |seed: &str, tag: &str| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("private-seed-class-{tag}"));
        let _ = std::fs::remove_dir_all(&out);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_grade"));
        cmd.env_remove("COURSE_SEED")
            .env_remove("COURSE_LANES_KERNELS")
            .env("COURSE_GRADE_SEED", seed)
            .arg("--root")
            .arg(root())
            .arg("--class")
            .arg(&dir)
            .args(["--format", FORMATS, "--out"])
            .arg(&out);
        for id in IDS {
            cmd.args(["--exercise", id]);
        }
        let done = cmd.output().expect("the grader runs");
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        // The summary holds the time the run took: the rest must not move.
        files(&out)
            .into_iter()
            .filter(|(n, _)| n != "summary.txt")
            .collect::<Vec<_>>()
    };
    let a = run("class-secret-one", "a");
    let b = run("class-secret-two-77", "b");
    assert!(
        a.len() >= 7,
        "{:?}",
        a.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert_eq!(a, b, "a class's reports differ between two private seeds");
    for (name, text) in &a {
        assert!(!text.contains("PRINTED-LENGTH"), "kernel output in {name}");
    }
}
