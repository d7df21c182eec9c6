//! The committed manifest of the grader's tamper check is current: every course file
//! (everything but the student's `kernels/`) hashes as `crates/grade/manifest.txt`
//! says. A change to the course without a regenerated manifest would make the grader
//! report every student as tampered with, so CI fails here first.

use grade::manifest::{MANIFEST_PATH, Manifest};
use grade::report::FileChange;

#[test]
fn the_committed_manifest_is_current() {
    let root = course_tests::workspace_root();
    let path = root.join(MANIFEST_PATH);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("{MANIFEST_PATH} cannot be read ({e}): run `cargo run -p grade -- manifest`")
    });
    let committed = Manifest::parse(&text)
        .unwrap_or_else(|e| panic!("{MANIFEST_PATH}: {e}: run `cargo run -p grade -- manifest`"));
    let actual = Manifest::scan(&root).expect("the course's files can be read");
    let changes: Vec<String> = committed
        .compare(&actual)
        .iter()
        .map(|FileChange { path, change }| format!("  {:10}  {path}", change.label()))
        .collect();
    assert!(
        changes.is_empty(),
        "{MANIFEST_PATH} is out of date: run `cargo run -p grade -- manifest` and commit it.\n\
         Files that differ from it:\n{}",
        changes.join("\n")
    );
    assert_eq!(
        text,
        actual.render(),
        "{MANIFEST_PATH} lists the right hashes but is not in the generated form: \
         run `cargo run -p grade -- manifest`"
    );
}

#[test]
fn the_manifest_leaves_the_students_files_out_and_covers_the_checks() {
    let actual = Manifest::scan(&course_tests::workspace_root()).expect("readable");
    assert!(
        actual.files.keys().all(|p| !p.starts_with("kernels/")),
        "kernels/ is the student's: the manifest must not cover it"
    );
    let mut must: Vec<String> = [
        "Cargo.toml",
        "Cargo.lock",
        "crates/grade/src/main.rs",
        "crates/simt/src/lib.rs",
        "tests/tests/manifest.rs",
    ]
    .map(String::from)
    .to_vec();
    for ch in course_tests::chapters() {
        let id = ch.id;
        must.push(format!("chapters/{id}/src/lib.rs"));
        must.push(format!("chapters/{id}/exercises.toml"));
        must.push(format!("solutions/src/{id}.rs"));
    }
    for must in must {
        assert!(
            actual.files.contains_key(&must),
            "the manifest must cover {must}"
        );
    }
}
