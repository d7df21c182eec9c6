//! A submission is graded from its own files: a symbolic link on the way to its answers
//! (`kernels`, `kernels/src`, a chapter file, the submission's folder in a class) is
//! refused, whether it names the course's solutions, the root of the machine or a
//! classmate's work, relative or absolute; with `--student`, in `--class` and through the
//! platforms' scripts. The refusal costs the linked submission alone.
#![cfg(unix)]

mod clones;

use clones::{Platform, exercise, grade_raw, root, run_platform};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

/// This test binary's grader.
fn grader() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_grade"))
}

/// The exercises these tests grade: one of each chapter.
const IDS: [&str; 2] = ["5.1", "9.3"];

/// A fresh scratch folder of this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("grade-links-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// An honest submission in `dir`: the reference files, copied.
fn honest(dir: &Path) {
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
        std::fs::copy(root().join("solutions/src").join(f), src.join(f)).expect("copied");
    }
}

/// The link forms of a class folder `class` holding the honest `bob`: each a submission
/// whose answers would be someone else's through a link.
fn linked_submissions(class: &Path) -> Vec<(&'static str, PathBuf)> {
    let solutions = root().join("solutions").canonicalize().expect("the course");
    let bob = class.join("bob").canonicalize().expect("bob");
    let mut made = Vec::new();
    let mut make = |name: &'static str, build: &dyn Fn(&Path)| {
        let dir = class.join(name);
        std::fs::create_dir_all(&dir).expect("a folder");
        build(&dir);
        made.push((name, dir));
    };
    // `kernels` is the course's solutions crate (absolute).
    make("to-the-course", &|d| {
        symlink(&solutions, d.join("kernels")).expect("a link")
    });
    // `kernels/src` is the machine's root.
    make("to-the-root", &|d| {
        std::fs::create_dir_all(d.join("kernels")).expect("a folder");
        symlink("/", d.join("kernels/src")).expect("a link");
    });
    // `kernels/src` is a classmate's, relative.
    make("to-bob-relative", &|d| {
        std::fs::create_dir_all(d.join("kernels")).expect("a folder");
        symlink("../../bob/kernels/src", d.join("kernels/src")).expect("a link");
    });
    // `kernels` is a classmate's, absolute.
    make("to-bob-absolute", &|d| {
        symlink(bob.join("kernels"), d.join("kernels")).expect("a link")
    });
    // One file is a classmate's, the rest are real files of the submission's own.
    make("file-to-bob", &|d| {
        honest(d);
        let f = d.join("kernels/src/ch09.rs");
        std::fs::remove_file(&f).expect("removed");
        symlink("../../../bob/kernels/src/ch09.rs", &f).expect("a link");
    });
    made
}

/// Every graded exercise of `report` earned nothing, and its reason names the link.
fn refused(report: &serde_json::Value, who: &str) {
    assert_eq!(report["points"]["earned"], 0, "{who}: {report}");
    for id in IDS {
        let e = exercise(report, id);
        assert_eq!(e["passed"], false, "{who}: {e}");
        let why = format!("{} {}", e["reason"], e["details"]);
        assert!(
            why.contains("symbolic link"),
            "{who}: the reason names the link: {e}"
        );
    }
}

#[test]
fn a_linked_submission_is_refused_alone_and_in_a_class() {
    let dir = scratch("class");
    let class = dir.join("class");
    honest(&class.join("bob"));
    let linked = linked_submissions(&class);
    // Alone: each is graded 0 with the link named.
    for (name, path) in &linked {
        let stdout = grade_raw(path, &IDS, &["--json"], &[]);
        let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
        refused(&report, name);
    }
    // The classmate, alone, passes.
    let bob: serde_json::Value =
        serde_json::from_str(&grade_raw(&class.join("bob"), &IDS, &["--json"], &[])).expect("JSON");
    assert_eq!(bob["passed"], IDS.len(), "{bob}");
    // In a class, with the class folder's own entry a link to bob too: every linked row
    // earns nothing and says why, bob's row is the one bob gets alone.
    symlink(class.join("bob"), class.join("entry-to-bob")).expect("a link");
    let out = dir.join("grades");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_grade"));
    cmd.env_remove("COURSE_GRADE_SEED")
        .env_remove("COURSE_SEED")
        .arg("--class")
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .args(["--format", "json"]);
    for id in IDS {
        cmd.args(["--exercise", id]);
    }
    let run = cmd.output().expect("the grader runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let book = std::fs::read_to_string(out.join("gradebook.csv")).expect("a gradebook");
    let row = |name: &str| -> String {
        book.lines()
            .find(|l| l.starts_with(&format!("{name},")))
            .unwrap_or_else(|| panic!("a row for {name}:\n{book}"))
            .to_string()
    };
    let in_class: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("submissions/bob/grade.json")).expect("bob's report"),
    )
    .expect("JSON");
    assert_eq!(
        in_class["points"], bob["points"],
        "bob's grade in the class"
    );
    for (name, _) in &linked {
        let line = row(name);
        match std::fs::read_to_string(out.join("submissions").join(name).join("grade.json")) {
            Ok(text) => refused(&serde_json::from_str(&text).expect("JSON"), name),
            Err(_) => assert!(line.contains("symbolic link"), "{name}: {line}"),
        }
    }
    assert!(
        row("entry-to-bob").contains("symbolic link"),
        "{}",
        row("entry-to-bob")
    );
}

#[test]
fn the_platform_scripts_refuse_a_linked_submission() {
    let dir = scratch("platforms");
    let bob = dir.join("bob");
    honest(&bob);
    // Gradescope: the submission is a clone whose kernels/src is a classmate's.
    let fake = dir.join("gradescope");
    std::fs::create_dir_all(fake.join("submission/kernels")).expect("a folder");
    symlink(bob.join("kernels/src"), fake.join("submission/kernels/src")).expect("a link");
    let (out, text) = run_platform(Platform::Gradescope, &fake, grader(), None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(results["score"].as_f64(), Some(0.0), "{results}");
    assert!(text.contains("symbolic link"), "{text}");
    // PrairieLearn: the uploaded chapter file is a link to a classmate's.
    let fake = dir.join("prairielearn");
    std::fs::create_dir_all(fake.join("student")).expect("a folder");
    symlink(
        bob.join("kernels/src/ch09.rs"),
        fake.join("student/ch09.rs"),
    )
    .expect("a link");
    let (out, text) = run_platform(Platform::PrairieLearn, &fake, grader(), None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(results["score"].as_f64(), Some(0.0), "{results}");
    assert!(text.contains("symbolic link"), "{text}");
}
