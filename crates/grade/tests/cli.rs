//! The command line, end to end through the real binary: exit codes, formats, output
//! files, determinism, child-process isolation and the manifest workflow on a scratch
//! copy of a workspace.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The pristine stubs built as the student's `kernels` module, once per test binary: the
/// tests of untouched stubs grade the stubs as shipped, whatever `kernels/src` holds (a
/// course with some exercises solved must pass them too).
fn pristine_module() -> &'static Path {
    static MODULE: OnceLock<PathBuf> = OnceLock::new();
    MODULE.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let dest = root
            .join("target")
            .join("grade-tests")
            .join("pristine-stubs");
        let src = learn::cargo::write_pristine_sources(&root, &dest).expect("the pristine stubs");
        gpu_host::lanes::build_student(&src, &root).expect("the pristine stubs build")
    })
}

fn grade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grade"))
        .args(args)
        .env_remove("COURSE_SEED")
        .env(gpu_host::lanes::module_env("kernels"), pristine_module())
        .output()
        .expect("the grade binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(out)).expect("the JSON report parses")
}

/// A fresh scratch folder for `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("grade-cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
    std::fs::write(path, text).expect("written");
}

#[test]
fn stubs_score_zero_with_exit_code_zero_in_child_processes() {
    let out = grade(&["--json", "--exercise", "9.1", "--exercise", "9.3"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["kernels"], "student");
    assert_eq!(report["points"]["earned"], 0);
    let exercises = report["exercises"].as_array().expect("an array");
    assert_eq!(exercises.len(), 2);
    for e in exercises {
        assert_eq!(e["status"], "not_implemented", "{e}");
        assert!(e["hint"].is_string());
    }
}

#[test]
fn the_reference_scores_full_points_and_the_report_is_deterministic() {
    let first = grade(&["--kernels", "reference", "--junit"]);
    assert_eq!(first.status.code(), Some(0));
    let xml = stdout(&first);
    assert!(xml.contains("<testsuite name=\"ch09\""), "{xml}");
    assert!(!xml.contains("<failure type=\"wrong"), "{xml}");
    let report = json(&grade(&["--kernels", "reference", "--json"]));
    assert_eq!(report["points"]["earned"], report["points"]["possible"]);
    assert_eq!(report["passed"], report["exercises_graded"]);
    let again = grade(&["--kernels", "reference", "--junit"]);
    assert_eq!(
        xml,
        stdout(&again),
        "same clone, same report, byte for byte"
    );
}

#[test]
fn the_report_goes_to_a_file_and_errors_are_one_line() {
    let dir = scratch("output");
    let file = dir.join("report.md");
    let out = grade(&[
        "--markdown",
        "--exercise",
        "9.16",
        "--output",
        file.to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "the report went to the file");
    let md = std::fs::read_to_string(&file).expect("the report file");
    assert!(md.starts_with("## Grade: 0 / 10 points"), "{md}");

    let bad = grade(&["--exercise", "9.99"]);
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("grade: error: no exercise 9.99"), "{err}");

    let unwritable = grade(&[
        "--exercise",
        "9.1",
        "--output",
        "/nonexistent/dir/report.txt",
    ]);
    assert_eq!(unwritable.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unwritable.stderr).starts_with("grade: error: cannot write"));
}

#[test]
fn help_names_every_format() {
    let out = grade(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for flag in [
        "--json",
        "--junit",
        "--markdown",
        "--output",
        "--kernels",
        "manifest",
    ] {
        assert!(help.contains(flag), "--help does not mention {flag}");
    }
    assert!(
        !help.contains("__exercise"),
        "the child command stays hidden"
    );
}

#[test]
fn the_manifest_workflow_on_a_scratch_workspace() {
    let root = scratch("manifest");
    write(&root, "Cargo.toml", "[workspace]\n");
    write(&root, "crates/grade/src/main.rs", "fn main() {}\n");
    write(&root, "chapters/ch09/src/lib.rs", "// checks\n");
    write(&root, "solutions/src/ch09.rs", "// answers\n");
    write(&root, "kernels/src/ch09.rs", "// the student's\n");
    write(&root, "crates/simt/target/debug/junk", "build output\n");
    let root_arg = root.to_str().expect("a UTF-8 path");

    let out = grade(&["manifest", "--root", root_arg]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest =
        std::fs::read_to_string(root.join("crates/grade/manifest.txt")).expect("written");
    let listed: Vec<&str> = manifest
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_once("  ").expect("hash  path").1)
        .collect();
    assert_eq!(
        listed,
        [
            "Cargo.toml",
            "chapters/ch09/src/lib.rs",
            "crates/grade/src/main.rs",
            "solutions/src/ch09.rs"
        ]
    );

    let clean = json(&grade(&[
        "--json",
        "--exercise",
        "9.16",
        "--root",
        root_arg,
    ]));
    assert_eq!(clean["tampered"], false, "{}", clean["integrity"]);

    // The student's files are theirs; everything else is checked.
    write(&root, "kernels/src/ch09.rs", "// solved\n");
    write(
        &root,
        "chapters/ch09/src/lib.rs",
        "// checks that always pass\n",
    );
    write(&root, "crates/simt/src/extra.rs", "// new\n");
    std::fs::remove_file(root.join("solutions/src/ch09.rs")).expect("removed");
    let out = grade(&["--exercise", "9.16", "--root", root_arg]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "tampering is reported, not an error"
    );
    let table = stdout(&out);
    assert!(table.contains("(tampered: 3 files)"), "{table}");
    assert!(
        table.contains("modified    chapters/ch09/src/lib.rs"),
        "{table}"
    );
    assert!(
        table.contains("missing     solutions/src/ch09.rs"),
        "{table}"
    );
    assert!(
        table.contains("unexpected  crates/simt/src/extra.rs"),
        "{table}"
    );
    let integrity = &table[table.find("integrity:").expect("an integrity line")..];
    assert!(!integrity.contains("kernels/"), "{integrity}");

    // A manifest kept outside the clone.
    let outside = scratch("manifest-outside").join("trusted.txt");
    std::fs::copy(root.join("crates/grade/manifest.txt"), &outside).expect("copied");
    std::fs::remove_file(root.join("crates/grade/manifest.txt")).expect("removed");
    let report = json(&grade(&[
        "--json",
        "--exercise",
        "9.16",
        "--root",
        root_arg,
        "--manifest",
        outside.to_str().expect("a UTF-8 path"),
    ]));
    assert_eq!(
        report["integrity"]["files"].as_array().map(Vec::len),
        Some(3)
    );
    let missing = json(&grade(&[
        "--json",
        "--exercise",
        "9.16",
        "--root",
        root_arg,
    ]));
    assert_eq!(missing["tampered"], true, "no manifest: unverified");
    assert!(
        missing["integrity"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("cannot read the manifest")),
        "{}",
        missing["integrity"]
    );
}

/// The tests below need a machine without a usable GPU (CI, this course's build machine);
/// on one with a GPU they say so and pass.
fn has_gpu() -> bool {
    if chapter::device::gpu_count() > 0 {
        eprintln!("note: this machine has a CUDA device: the no-GPU tests are skipped");
        return true;
    }
    false
}

#[test]
fn device_gpu_without_a_gpu_is_a_one_line_error() {
    if has_gpu() {
        return;
    }
    let out = grade(&["--device", "gpu", "--exercise", "9.1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no report: {}", stdout(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("grade: error: --device gpu: "), "{err}");
    // Without the feature the error says how to build; with it, that there is no GPU.
    if !chapter::device::has_cuda() {
        assert!(err.contains("--features cuda"), "{err}");
    }
}

#[test]
fn device_auto_without_a_gpu_falls_back_to_the_emulator_with_a_note() {
    if has_gpu() {
        return;
    }
    let out = grade(&["--device", "auto", "--json", "--exercise", "9.1"]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("grade: note: --device auto: grading on the emulator"),
        "{err}"
    );
    let report = json(&out);
    assert_eq!(report["device"], "emulator");
    assert!(
        report["device_name"]
            .as_str()
            .is_some_and(|n| n.contains("emulator"))
    );
    assert_eq!(report["device_driver"], serde_json::Value::Null);
    assert_eq!(report["exercises"][0]["status"], "not_implemented");
    // The default is the emulator, silently.
    let out = grade(&["--json", "--exercise", "9.1"]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json(&out)["device"], "emulator");
}

#[test]
fn a_folder_that_is_no_course_says_where_it_looked() {
    // Named explicitly: the one line says that folder is not a course.
    let outside = scratch("no-course");
    let out = Command::new(env!("CARGO_BIN_EXE_grade"))
        .current_dir(&outside)
        .env(course_root::ROOT_ENV, &outside)
        .output()
        .expect("the grader runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.starts_with("grade: error: ")
            && said.contains("is not a course")
            && said.contains(&outside.display().to_string()),
        "{said}"
    );
    // Searched for, from a folder outside any course: every place looked at is named.
    let elsewhere = std::env::temp_dir();
    let why = course_root::find(None, &[("the current folder", elsewhere.clone())])
        .expect_err("no course at or above the temporary folder");
    assert!(why.contains(&elsewhere.display().to_string()), "{why}");
}

/// Grading a student or a class on a GPU is refused, before anything is built, with what
/// is missing and how to get it: a grader built without the `cuda` feature, then a GPU.
#[test]
fn a_student_or_a_class_on_the_gpu_is_refused_with_what_is_missing() {
    if has_gpu() {
        return;
    }
    let student = scratch("gpu-student");
    write(&student, "kernels/src/lib.rs", "");
    for mode in ["--student", "--class"] {
        let out = Command::new(env!("CARGO_BIN_EXE_grade"))
            .args(["--device", "gpu", mode])
            .arg(&student)
            .output()
            .expect("the grader runs");
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert_eq!(said.lines().count(), 1, "{said}");
        assert!(said.starts_with("grade: error: --device gpu: "), "{said}");
        if chapter::device::has_cuda() {
            assert!(
                said.contains("no CUDA") || said.contains("driver"),
                "{said}"
            );
        } else {
            assert!(
                said.contains("`cargo build --release -p grade --features cuda`"),
                "{said}"
            );
        }
    }
}

/// Without the pinned nightly, preparing a submission for a GPU says which toolchain is
/// missing and the command that installs it; `--prepared` asks for the GPU it is for.
#[test]
fn without_the_nightly_the_gpu_build_names_the_toolchain_and_its_install() {
    let student = scratch("gpu-no-nightly");
    write(&student, "kernels/src/lib.rs", "");
    let out = Command::new(env!("CARGO_BIN_EXE_grade"))
        .args(["--student"])
        .arg(&student)
        .arg("--prepare-gpu")
        .arg(student.join("prepared"))
        .env(ptx_builder::TOOLCHAIN_ENV, "nightly-1999-01-01")
        .output()
        .expect("the grader runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains(grade::gpu_build::NEEDS_NIGHTLY), "{said}");
    assert!(
        said.contains(&ptx_builder::install_command("nightly-1999-01-01"))
            || said.contains("rustup not found"),
        "{said}"
    );
    assert!(!student.join("prepared").exists(), "nothing was built");
    let out = Command::new(env!("CARGO_BIN_EXE_grade"))
        .args(["--prepared", "--student"])
        .arg(&student)
        .output()
        .expect("the grader runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("add --device gpu"), "{said}");
}
