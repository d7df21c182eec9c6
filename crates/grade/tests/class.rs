//! Grading a class, end to end through the binary: `--class` over a folder of submissions
//! (the stubs, the reference, half-solved, one that does not compile, one that loops, one
//! whose name is a spreadsheet formula), the gradebook and every format per submission;
//! the platforms' scripts (Gradescope's `run_autograder`, PrairieLearn's `run.sh`) run
//! against fake roots; and the GitHub Classroom workflow: the committed file is the one
//! the registry makes, valid YAML, and its steps' commands answer as the report says.

mod clones;

use clones::{replace_region, root};
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

/// The chapter files of the reference with regions of `edits` replaced.
fn reference_with(edits: &[(&str, &str, &str)]) -> Vec<(&'static str, String)> {
    ["ch05.rs", "ch09.rs"]
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
    let stubs: Vec<(&str, String)> = ["ch05.rs", "ch09.rs", "lib.rs"]
        .into_iter()
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
        "name,5.1,5.2,9.3,9.4,total,possible,ignored,ignored_edits,error"
    );
    let row = |name: &str| {
        rows.iter()
            .find(|r| r.starts_with(&format!("{name},")))
            .unwrap_or_else(|| panic!("{name} in {book}"))
            .split(',')
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let possible = row("reference")[6].clone();
    assert_eq!(row("reference")[5], possible, "{book}");
    assert_eq!(row("stubs")[5], "0", "{book}");
    let half = row("half");
    assert!(
        half[1] != "0" && half[2] != "0" && half[3] == "0" && half[4] == "0",
        "{book}"
    );
    let broken = row("broken");
    assert!(
        broken[3] == "0" && broken[4] != "0",
        "one exercise that does not compile costs only itself: {book}"
    );
    let loops = row("loops");
    assert!(loops[1] == "0" && loops[2] != "0", "{book}");
    // The spreadsheet formula of a folder name is defused (and made a safe folder name).
    assert!(book.contains("\n_HYPERLINK_x_,"), "{book}");
    for name in ["stubs", "reference", "half", "broken", "loops"] {
        let folder = out.join(name);
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
        &std::fs::read_to_string(out.join("loops/grade.json")).expect("grade.json"),
    )
    .expect("JSON");
    assert_eq!(loops["exercises"][0]["status"], "timed_out", "{loops}");
}

/// The chapter files of the reference, loose (as a student uploads them).
fn loose(dir: &Path) {
    std::fs::create_dir_all(dir).expect("a folder");
    for f in ["ch05.rs", "ch09.rs"] {
        std::fs::copy(root().join("solutions/src").join(f), dir.join(f)).expect("copied");
    }
}

#[test]
fn gradescope_s_run_autograder_grades_a_fake_root() {
    let fake = scratch("gradescope");
    loose(&fake.join("submission"));
    let script = root().join("crates/grade/platforms/gradescope/run_autograder");
    let out = Command::new("bash")
        .arg(&script)
        .env("AUTOGRADER_ROOT", &fake)
        .env("AUTOGRADER_SOURCE", root())
        .env("GRADE", env!("CARGO_BIN_EXE_grade"))
        .env("COURSE_GRADE_SEED", "gradescope-secret-seed")
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(fake.join("results/results.json")).expect("results.json");
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
    let out = Command::new("bash")
        .arg(root().join("crates/grade/platforms/prairielearn/run.sh"))
        .env("GRADE_ROOT", &fake)
        .env("COURSE", root())
        .env("GRADE", env!("CARGO_BIN_EXE_grade"))
        .env_remove("COURSE_GRADE_SEED")
        .output()
        .expect("bash runs");
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
fn the_classroom_workflow_is_the_registry_s_and_its_commands_answer() {
    let made = Command::new(env!("CARGO_BIN_EXE_grade"))
        .arg("classroom")
        .output()
        .expect("the grader runs");
    let made = String::from_utf8(made.stdout).expect("UTF-8");
    let committed = std::fs::read_to_string(root().join(".github/workflows/classroom.yml"))
        .expect("the committed workflow");
    assert_eq!(
        committed, made,
        "run `cargo run -q -p grade -- classroom > .github/workflows/classroom.yml`"
    );
    let docs = yaml_rust2::YamlLoader::load_from_str(&committed).expect("valid YAML");
    let steps = docs[0]["jobs"]["grade"]["steps"].as_vec().expect("steps");
    let graders: Vec<&yaml_rust2::Yaml> = steps
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("classroom-resources/autograding-command-grader"))
        })
        .collect();
    let chapters = grade::chapters();
    let exercises: Vec<&course::Exercise> =
        chapters.iter().flat_map(|c| c.exercises.iter()).collect();
    assert_eq!(graders.len(), exercises.len());
    for (step, e) in graders.iter().zip(&exercises) {
        assert_eq!(
            step["with"]["max-score"].as_i64(),
            Some(e.points as i64),
            "{}",
            e.id
        );
    }
    // The commands, run as the workflow runs them, on a report of the reference (both
    // pass), the same with 5.1 failing, and the same marked tampered (none passes).
    let work = scratch("classroom");
    std::fs::create_dir_all(work.join("course/target/release")).expect("folders");
    std::fs::create_dir_all(work.join("graded")).expect("folders");
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_grade"),
        work.join("course/target/release/grade"),
    )
    .expect("a link");
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
        std::fs::write(work.join("graded/grade.json"), report.to_string()).expect("written");
        for (id, pass) in ["5.1", "9.1"].into_iter().zip(passes) {
            let step = graders
                .iter()
                .zip(&exercises)
                .find(|(_, e)| e.id == id)
                .map(|(s, _)| s)
                .expect("its step");
            let command = step["with"]["command"].as_str().expect("a command");
            let status = Command::new("sh")
                .args(["-c", command])
                .current_dir(&work)
                .status()
                .expect("sh runs");
            assert_eq!(status.success(), pass, "{what}: `{command}`");
        }
    }
}
