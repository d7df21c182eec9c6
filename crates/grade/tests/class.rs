//! Grading a class, end to end through the binary: `--class` over a folder of submissions
//! (the stubs, the reference, half-solved, one that does not compile, one that loops, one
//! whose name is a spreadsheet formula), the gradebook and every format per submission;
//! the platforms' scripts (Gradescope's `run_autograder`, PrairieLearn's `run.sh`) run
//! against fake roots, their fallbacks JSON for any text; a class folder as it arrives
//! (nested, empty, foreign, colliding names, a huge cell) and a regrade beside the old
//! gradebook; Classroom 50's autograder on a fake runner layout, by its result.json
//! contract; the feedback workflow (current, no secret); the instructor's final-grade
//! workflow (the grader's own commands, the seed in one step).

mod clones;

use clones::{Platform, replace_region, root, run_platform};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A scratch folder of this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("grade-class-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A submission in `class/name` whose chapter files are `files` (name, text).
fn submission(class: &Path, name: &str, files: &[(&str, String)]) {
    let src = class.join(name).join("kernels").join("src");
    std::fs::create_dir_all(&src).expect("a folder");
    for (f, text) in files {
        std::fs::write(src.join(f), text).expect("written");
    }
}

fn course_file(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).expect("a course file")
}

/// Every chapter's kernel file (`ch05.rs`, ...), from the course's one list.
fn chapter_files() -> Vec<&'static str> {
    grade::chapters()
        .into_iter()
        .map(|c| &*Box::leak(format!("{}.rs", c.id).into_boxed_str()))
        .collect()
}

/// The chapter files of the reference with regions of `edits` replaced.
fn reference_with(edits: &[(&str, &str, &str)]) -> Vec<(&'static str, String)> {
    chapter_files()
        .into_iter()
        .map(|f| {
            let mut text = course_file(&format!("solutions/src/{f}"));
            for (_, id, body) in edits.iter().filter(|(file, _, _)| *file == f) {
                text = replace_region(&text, id, body);
            }
            (f, text)
        })
        .collect()
}

#[test]
fn a_class_in_one_command() {
    let dir = scratch("run");
    let class = dir.join("class");
    let stubs: Vec<(&str, String)> = chapter_files()
        .into_iter()
        .chain(["lib.rs"])
        .map(|f| (f, course_file(&format!("crates/learn/pristine/{f}"))))
        .collect();
    submission(&class, "stubs", &stubs);
    submission(&class, "reference", &reference_with(&[]));
    // Half-solved: chapter 5 solved, chapter 9 the stubs.
    let half = vec![
        ("ch05.rs", course_file("solutions/src/ch05.rs")),
        ("ch09.rs", course_file("crates/learn/pristine/ch09.rs")),
    ];
    submission(&class, "half", &half);
    submission(
        &class,
        "broken",
        &reference_with(&[(
            "ch09.rs",
            "9.3",
            "    let x: u32 = \"no\";\n    let _ = (data, histo, x);",
        )]),
    );
    submission(
        &class,
        "loops",
        &reference_with(&[(
            "ch05.rs",
            "5.1",
            "    let mut i = 0u32;\n    while i < 10 { i = i * 1; }\n    let _ = (a, b, c, i);",
        )]),
    );
    submission(&class, "=HYPERLINK(x)", &reference_with(&[]));
    let out = dir.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_grade"))
        .args(["--class"])
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .args([
            "--format",
            "json,junit,markdown,gradescope,prairielearn",
            "--jobs",
            "2",
        ])
        .args([
            "--exercise",
            "5.1",
            "--exercise",
            "5.2",
            "--exercise",
            "9.3",
            "--exercise",
            "9.4",
        ])
        .env_remove("COURSE_GRADE_SEED")
        .output()
        .expect("the grader runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("6 of 6 graded") && stderr.contains("slowest so far"),
        "{stderr}"
    );
    assert!(
        stdout.contains("median") && stdout.contains("mean"),
        "{stdout}"
    );
    let book = std::fs::read_to_string(out.join("gradebook.csv")).expect("the gradebook");
    let rows: Vec<&str> = book.lines().collect();
    assert_eq!(
        rows[0],
        "name,folder,kernels_at,5.1,5.2,9.3,9.4,total,possible,ignored,ignored_edits,error"
    );
    let row = |name: &str| {
        rows.iter()
            .find(|r| r.starts_with(&format!("{name},")))
            .unwrap_or_else(|| panic!("{name} in {book}"))
            .split(',')
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let possible = row("reference")[8].clone();
    assert_eq!(row("reference")[7], possible, "{book}");
    assert_eq!(row("stubs")[7], "0", "{book}");
    let half = row("half");
    assert!(
        half[3] != "0" && half[4] != "0" && half[5] == "0" && half[6] == "0",
        "{book}"
    );
    let broken = row("broken");
    assert!(
        broken[5] == "0" && broken[6] != "0",
        "one exercise that does not compile costs only itself: {book}"
    );
    let loops = row("loops");
    assert!(loops[3] == "0" && loops[4] != "0", "{book}");
    // The spreadsheet formula of a folder name is defused (and made a safe folder name).
    assert!(book.contains("\n_HYPERLINK_x_-"), "{book}");
    assert!(
        book.contains(",'=HYPERLINK(x),"),
        "the folder's own name, defused: {book}"
    );
    for name in ["stubs", "reference", "half", "broken", "loops"] {
        let folder = out.join("submissions").join(name);
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(folder.join("grade.json")).expect("grade.json"),
        )
        .expect("JSON");
        assert_eq!(json["exercises"].as_array().map(Vec::len), Some(4));
        let junit = std::fs::read_to_string(folder.join("junit.xml")).expect("junit.xml");
        roxmltree::Document::parse(&junit).expect("XML");
        assert!(folder.join("feedback.md").is_file());
        let gs: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(folder.join("results.json")).expect("results.json"),
        )
        .expect("JSON");
        let tests = gs["tests"].as_array().expect("tests");
        assert_eq!(tests.len(), 4);
        let sum: f64 = tests
            .iter()
            .map(|t| t["score"].as_f64().unwrap_or(-1.0))
            .sum();
        assert_eq!(gs["score"].as_f64(), Some(sum));
        for t in tests {
            for key in ["name", "score", "max_score", "output", "visibility"] {
                assert!(!t[key].is_null(), "Gradescope's test field {key}: {t}");
            }
        }
        let pl: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(folder.join("prairielearn.json")).expect("prairielearn"),
        )
        .expect("JSON");
        let score = pl["score"].as_f64().expect("a score");
        assert!((0.0..=1.0).contains(&score));
        assert_eq!(pl["tests"].as_array().map(Vec::len), Some(4));
    }
    let loops: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("submissions/loops/grade.json")).expect("grade.json"),
    )
    .expect("JSON");
    assert_eq!(loops["exercises"][0]["status"], "timed_out", "{loops}");
}

/// Runs `grade --class CLASS --out OUT` on exercise 5.1 with `extra` arguments; its
/// standard output.
fn grade_class(class: &Path, out: &Path, extra: &[&str]) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_grade"))
        .arg("--class")
        .arg(class)
        .arg("--out")
        .arg(out)
        .args(["--format", "json", "--exercise", "5.1", "--jobs", "2"])
        .args(extra)
        .env_remove("COURSE_GRADE_SEED")
        .output()
        .expect("the grader runs");
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8_lossy(&run.stdout).into_owned()
}

#[test]
fn a_class_folder_as_it_arrives() {
    let dir = scratch("arrives");
    let class = dir.join("class");
    let reference = reference_with(&[]);
    // Nested one level deeper, as a clone inside a folder named after the student.
    submission(&class.join("alice"), "repo", &reference);
    submission(&class, "bob", &reference);
    std::fs::create_dir_all(class.join("carol")).expect("an empty folder");
    std::fs::create_dir_all(class.join("dave/notes")).expect("a foreign folder");
    // Names that once stopped the run or collided.
    submission(&class, "gradebook.csv", &reference);
    submission(&class, "summary.txt", &reference);
    submission(&class, "j doe", &reference);
    submission(&class, "j_doe", &reference);
    // 20 000 files of its own: each an edit outside the answers, listed as ignored.
    submission(&class, "many", &reference);
    let extra = class.join("many/kernels/src/extra");
    std::fs::create_dir_all(&extra).expect("a folder");
    for k in 0..20_000 {
        std::fs::write(extra.join(format!("f{k:05}.rs")), "").expect("written");
    }
    let out = dir.join("out");
    grade_class(&class, &out, &[]);
    let text = std::fs::read_to_string(out.join("gradebook.csv")).expect("the gradebook");
    let book = grade::regrade::parse_csv(&text);
    assert_eq!(&book[0][..4], ["name", "folder", "kernels_at", "5.1"]);
    let row = |folder: &str| -> Vec<String> {
        book.iter()
            .find(|r| r[1] == folder)
            .unwrap_or_else(|| panic!("a row for {folder}: {text}"))
            .clone()
    };
    // Every folder has exactly one row.
    assert_eq!(book.len() - 1, 9, "{text}");
    let alice = row("alice");
    assert_eq!(
        (alice[2].as_str(), alice[3].as_str()),
        ("repo/kernels/src", "10")
    );
    assert!(
        row("carol")[8].contains("it is empty"),
        "{:?}",
        row("carol")
    );
    assert!(
        row("dave")[8].contains("it holds notes"),
        "{:?}",
        row("dave")
    );
    for folder in [
        "bob",
        "gradebook.csv",
        "summary.txt",
        "j doe",
        "j_doe",
        "many",
    ] {
        assert_eq!(row(folder)[3], "10", "{folder}: {text}");
    }
    // Row names: unique, and a folder's own name where it is a safe one.
    let names: std::collections::BTreeSet<&str> = book[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names.len(), 9);
    assert_eq!(row("j_doe")[0], "j_doe");
    assert!(row("j doe")[0].starts_with("j_doe-"), "{:?}", row("j doe"));
    // The class's own files are apart from the submissions' folders.
    assert!(out.join("summary.txt").is_file());
    assert!(out.join("submissions/gradebook.csv/grade.json").is_file());
    // No cell over a spreadsheet's limit; the whole list stays in the JSON report.
    assert!(
        text.lines().all(|l| l.chars().count() < 32_767 * 2),
        "a huge line"
    );
    assert!(book.iter().flatten().all(|c| c.chars().count() <= 32_767));
    let many: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("submissions/many/grade.json")).expect("the JSON"),
    )
    .expect("JSON");
    assert!(many["ignored"].as_array().map_or(0, Vec::len) >= 20_000);
    // A regrade beside the old gradebook: carol has handed in since, bob broke 5.1.
    submission(&class, "carol", &reference);
    submission(
        &class,
        "bob",
        &reference_with(&[("ch05.rs", "5.1", "    let _ = (a, b, c);")]),
    );
    let old = dir.join("old-gradebook.csv");
    std::fs::copy(out.join("gradebook.csv"), &old).expect("kept");
    let said = grade_class(&class, &out, &["--previous", old.to_str().expect("a path")]);
    assert!(said.contains("2 row(s) changed (1 up, 1 down)"), "{said}");
    let changes = grade::regrade::parse_csv(
        &std::fs::read_to_string(out.join("changes.csv")).expect("changes.csv"),
    );
    let bob = changes.iter().find(|r| r[0] == "bob").expect("bob changed");
    assert_eq!((bob[4].as_str(), bob[5].as_str()), ("-10", "5.1: 10 -> 0"));
    assert_eq!(changes.len(), 3, "{changes:?}");
}

#[test]
fn the_platform_scripts_fallback_is_json_for_any_text() {
    // A grader that cannot run, and says so with a tab, an escape, quotes, backslashes and
    // paths of the machine.
    let dir = scratch("fallback");
    let fake_grade = dir.join("grade");
    std::fs::write(
        &fake_grade,
        "#!/bin/sh\nprintf 'grade: error: cannot read /home/someone/course/x:\\t\\033[31m \"q\" \\\\ \\n' >&2\nexit 1\n",
    )
    .expect("written");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake_grade, std::fs::Permissions::from_mode(0o755))
            .expect("executable");
    }
    let gs = dir.join("gradescope");
    loose(&gs.join("submission"));
    let (out, _) = run_platform(Platform::Gradescope, &gs, &fake_grade, None);
    assert!(out.status.success());
    let pl = dir.join("prairielearn");
    std::fs::create_dir_all(pl.join("student")).expect("a folder");
    let (out2, _) = run_platform(Platform::PrairieLearn, &pl, &fake_grade, None);
    assert!(out2.status.success());
    for file in [
        gs.join("results/results.json"),
        pl.join("results/results.json"),
    ] {
        let text = std::fs::read_to_string(&file).expect("results.json");
        let json: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {text}", file.display()));
        let all = json.to_string();
        assert!(all.contains("could not run"), "{all}");
        assert!(
            !all.contains("/home/someone") && !all.contains(&*dir.to_string_lossy()),
            "{all}"
        );
    }
}

/// The chapter files of the reference, loose (as a student uploads them): one per chapter
/// of the course's list.
fn loose(dir: &Path) {
    std::fs::create_dir_all(dir).expect("a folder");
    for f in chapter_files() {
        std::fs::copy(root().join("solutions/src").join(f), dir.join(f)).expect("copied");
    }
}

#[test]
fn gradescope_s_run_autograder_grades_a_fake_root() {
    let fake = scratch("gradescope");
    loose(&fake.join("submission"));
    let (out, text) = run_platform(
        Platform::Gradescope,
        &fake,
        Path::new(env!("CARGO_BIN_EXE_grade")),
        Some("gradescope-secret-seed"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !text.contains("gradescope-secret-seed"),
        "the seed is printed"
    );
    let results: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let tests = results["tests"].as_array().expect("tests");
    let possible: f64 = tests.iter().filter_map(|t| t["max_score"].as_f64()).sum();
    assert!(
        possible > 0.0 && results["score"].as_f64() == Some(possible),
        "{results}"
    );
    assert!(
        results["output"]
            .as_str()
            .unwrap_or_default()
            .contains("private seed")
    );
}

#[test]
fn prairielearn_s_run_sh_grades_a_fake_root() {
    let fake = scratch("prairielearn");
    let student = fake.join("student");
    std::fs::create_dir_all(&student).expect("a folder");
    std::fs::copy(
        root().join("crates/learn/pristine/ch09.rs"),
        student.join("ch09.rs"),
    )
    .expect("copied");
    let (out, _) = run_platform(
        Platform::PrairieLearn,
        &fake,
        Path::new(env!("CARGO_BIN_EXE_grade")),
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fake.join("results/results.json")).expect("results.json"),
    )
    .expect("JSON");
    assert_eq!(results["gradable"], true);
    assert_eq!(results["score"].as_f64(), Some(0.0), "the stubs score 0");
    let tests = results["tests"].as_array().expect("tests");
    assert!(tests.len() > 20 && tests.iter().all(|t| t["max_points"].as_u64() > Some(0)));
    let info: serde_json::Value = serde_json::from_str(&course_file(
        "crates/grade/platforms/prairielearn/info.json",
    ))
    .expect("info.json is JSON");
    assert_eq!(info["externalGradingOptions"]["enabled"], true);
}

#[test]
fn the_feedback_workflow_is_current_public_and_asks_the_report() {
    let made = Command::new(env!("CARGO_BIN_EXE_grade"))
        .arg("feedback-workflow")
        .output()
        .expect("the grader runs");
    let made = String::from_utf8(made.stdout).expect("UTF-8");
    let committed = std::fs::read_to_string(root().join(".github/workflows/feedback.yml"))
        .expect("the committed workflow");
    assert_eq!(
        committed, made,
        "run `cargo run -q -p grade -- feedback-workflow > .github/workflows/feedback.yml`"
    );
    let docs = yaml_rust2::YamlLoader::load_from_str(&committed).expect("valid YAML");
    let steps = docs[0]["jobs"]["feedback"]["steps"]
        .as_vec()
        .expect("steps");
    let runs: String = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(runs.contains("--student ../submission"), "{runs}");
    // Feedback on the public seed: a student can edit this file, so it holds no secret,
    // and it uses none of the retired GitHub Classroom's actions.
    for word in [
        "secrets.",
        "COURSE_GRADE_SEED",
        "--seed",
        "classroom-resources/",
    ] {
        assert!(
            !committed.contains(word),
            "the feedback workflow holds `{word}`"
        );
    }
    // `grade passed`, which any CI step may ask a report with, answers as the report says
    // (and no exercise passes in a report marked tampered).
    let work = scratch("passed");
    let chapters = grade::chapters();
    let graded = grade::grade(
        &chapters,
        &grade::Selection::only(["5.1", "9.1"]),
        course::KernelSource::Reference,
        &course::Limits::CHECKS,
        &grade::Isolation::InProcess,
        2,
    )
    .expect("graded");
    let report = grade::Report::new(
        course::KernelSource::Reference,
        course::Limits::CHECKS,
        &chapters,
        graded,
        None,
    );
    let json: serde_json::Value =
        serde_json::from_str(&grade::render::json(&report)).expect("JSON");
    let mut failing = json.clone();
    failing["exercises"][0]["passed"] = false.into();
    failing["exercises"][0]["status"] = "wrong_result".into();
    let mut tampered = json.clone();
    tampered["tampered"] = true.into();
    for (what, report, passes) in [
        ("reference", &json, [true, true]),
        ("5.1 failing", &failing, [false, true]),
        ("tampered", &tampered, [false, false]),
    ] {
        let file = work.join("grade.json");
        std::fs::write(&file, report.to_string()).expect("written");
        for (id, pass) in ["5.1", "9.1"].into_iter().zip(passes) {
            let status = Command::new(env!("CARGO_BIN_EXE_grade"))
                .arg("passed")
                .arg(&file)
                .arg(id)
                .status()
                .expect("the grader runs");
            assert_eq!(status.success(), pass, "{what}: {id}");
        }
    }
}

#[test]
fn classroom50_s_autograder_writes_result_json_by_its_contract() {
    let dir = scratch("classroom50");
    let bundle_out = dir.join("c50");
    let made = Command::new(env!("CARGO_BIN_EXE_grade"))
        .args([
            "classroom50",
            "--repository",
            "https://example.org/course.git",
        ])
        .args(["--ref", "0123abc", "--slug", "cuda-course", "--out"])
        .arg(&bundle_out)
        .output()
        .expect("the grader runs");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let bundle = bundle_out.join("autograders/cuda-course");
    let entry: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(bundle_out.join("assignment.json")).expect("assignment.json"),
    )
    .expect("JSON");
    assert_eq!(entry["slug"], "cuda-course");
    assert_eq!(entry["runtime"]["rust"], "stable");
    for key in ["name", "mode", "autograder"] {
        assert!(
            entry[key].is_string(),
            "the assignment's required {key}: {entry}"
        );
    }
    let pinned: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(bundle.join("course.json")).expect("course.json"),
    )
    .expect("JSON");
    assert_eq!(pinned["ref"], "0123abc");
    // The runner's layout: the submission checked out as the working directory, the bundle
    // in its own folder, Classroom 50's variables; the course and grader given directly
    // (no network in a test). A private seed in the environment must not be used.
    let workspace = dir.join("workspace");
    submission(
        &workspace,
        "",
        &reference_with(&[("ch05.rs", "5.1", "    let _ = (a, b, c);")]),
    );
    let runner_temp = dir.join("runner-temp");
    std::fs::create_dir_all(&runner_temp).expect("a folder");
    let run = |grade: &std::ffi::OsStr| {
        Command::new("python3")
            .arg(bundle.join("autograder.py"))
            .current_dir(&workspace)
            .env("RUNNER_TEMP", &runner_temp)
            .env("CLASSROOM50_BUNDLE_DIR", &bundle)
            .env("CLASSROOM", "gpu-2026")
            .env("ASSIGNMENT", "cuda-course")
            .env("ASSIGNMENT_TYPE", "individual")
            .env("OWNER", "alice")
            .env("SUBMISSION_TAG", "submit/2026-12-01T10-00-00Z-abc1234")
            .env("COMMIT_URL", "https://github.com/o/r/commit/abc1234")
            .env("RELEASE_URL", "https://github.com/o/r/releases/tag/x")
            .env("REVIEW_URL", "https://github.com/o/r/compare/a...b")
            .env("COURSE_GRADE_SEED", "a-secret-that-must-not-be-used")
            .env("COURSE50_COURSE_DIR", root())
            .env("COURSE50_GRADE", grade)
            .env("COURSE50_GRADE_ARGS", "--exercise 5.1 --exercise 9.1")
            .output()
            .expect("python3 runs")
    };
    let out = run(std::ffi::OsStr::new(env!("CARGO_BIN_EXE_grade")));
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(workspace.join("result.json")).expect("result.json");
    let r: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    // classroom50/result/v1: a closed object of these fields, each of its type.
    let keys: std::collections::BTreeSet<&str> = r
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    let required = [
        "schema",
        "classroom",
        "assignment",
        "assignment_type",
        "owner",
        "submission",
        "commit",
        "release",
        "review",
        "datetime",
        "score",
        "max-score",
        "tests",
    ];
    let allowed: std::collections::BTreeSet<&str> = required
        .iter()
        .copied()
        .chain(["graded_at", "submitted_by"])
        .collect();
    assert!(required.iter().all(|k| keys.contains(k)), "{keys:?}");
    assert!(
        keys.is_subset(&allowed),
        "fields the schema does not allow: {keys:?}"
    );
    assert_eq!(r["schema"], "classroom50/result/v1");
    assert!(
        r["submission"]
            .as_str()
            .is_some_and(|s| s.starts_with("submit/"))
    );
    let datetime = r["datetime"].as_str().expect("datetime");
    assert!(
        datetime.len() == 20 && datetime.ends_with('Z') && datetime.as_bytes()[10] == b'T',
        "{datetime}"
    );
    assert!(["individual", "group", "team"].contains(&r["assignment_type"].as_str().unwrap()));
    let tests = r["tests"].as_array().expect("tests");
    assert_eq!(tests.len(), 2);
    let mut sum = (0, 0);
    for t in tests {
        let name = t["test-name"].as_str().expect("test-name");
        assert!(!name.is_empty());
        let (s, m) = (
            t["score"].as_u64().unwrap(),
            t["max-score"].as_u64().unwrap(),
        );
        assert!(s <= m && t["passed"].is_boolean(), "{t}");
        sum = (sum.0 + s, sum.1 + m);
    }
    assert_eq!(
        (r["score"].as_u64(), r["max-score"].as_u64()),
        (Some(sum.0), Some(sum.1))
    );
    assert!(r["score"].as_u64() <= r["max-score"].as_u64());
    assert_eq!(tests[0]["passed"], false, "5.1 is wrong: {}", tests[0]);
    assert_eq!(tests[1]["passed"], true, "9.1 is right: {}", tests[1]);
    let body = std::fs::read_to_string(workspace.join("release-body.md")).expect("the body");
    assert!(body.starts_with(&format!("### classroom50 autograde: {}/{}", sum.0, sum.1)));
    assert!(body.contains("| 5.1 ") && body.contains("FAIL") && body.contains("PASS"));
    assert!(
        !text.contains("a-secret") && !body.contains("private seed"),
        "the seed was used"
    );
    // A grader that cannot run is an infrastructure error: a non-zero exit.
    let _ = std::fs::remove_file(workspace.join("result.json"));
    let failed = run(std::ffi::OsStr::new("/nonexistent/grade"));
    assert!(!failed.status.success());
    assert!(!workspace.join("result.json").exists());
}

#[test]
fn the_instructor_s_final_grade_workflow_runs_the_grader_s_own_commands() {
    let text = course_file("crates/grade/platforms/instructor/final-grade.yml");
    let docs = yaml_rust2::YamlLoader::load_from_str(&text).expect("valid YAML");
    let job = &docs[0]["jobs"]["grade"];
    let runs: Vec<&str> = job["steps"]
        .as_vec()
        .expect("steps")
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect();
    let all = runs.join("\n");
    // The private seed reaches the grading step only, from the instructor's secrets.
    let seeded: Vec<&yaml_rust2::Yaml> = job["steps"]
        .as_vec()
        .expect("steps")
        .iter()
        .filter(|s| !s["env"]["COURSE_GRADE_SEED"].is_badvalue())
        .collect();
    assert_eq!(seeded.len(), 1, "one step holds the seed");
    assert!(
        seeded[0]["run"]
            .as_str()
            .unwrap_or_default()
            .contains("--class class")
    );
    // Every option the workflow uses is the grader's.
    let help = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_grade"))
            .args(args)
            .output()
            .expect("the grader runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let collect = help(&["collect", "--help"]);
    for option in ["--roster", "--into", "--deadline"] {
        assert!(all.contains(option) && collect.contains(option), "{option}");
    }
    let main = help(&["--help"]);
    for option in ["--root", "--class", "--out", "--previous"] {
        assert!(all.contains(option) && main.contains(option), "{option}");
    }
}
