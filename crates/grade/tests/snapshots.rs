//! The report's formats, locked: the table, JSON, JUnit and Markdown of the fixture
//! chapter (every status, a tampered clone). The real course's report of its untouched
//! stubs is locked by the course's own tests (`tests/tests/grade_report.rs`), on the
//! pristine stubs whatever `kernels/` holds.
//! A change of format shows here as a snapshot diff (`cargo insta review`); a change of
//! the JSON schema also bumps `grade::SCHEMA_VERSION`.

mod fixtures;

use grade::render::{Format, render};
use grade::report::{Change, FileChange, Integrity, Report};
use grade::{Isolation, Selection};

fn fixture_report() -> Report {
    let exercises = grade::grade(
        &[&fixtures::CHAPTER],
        &Selection::all(),
        fixtures::SOURCE,
        &fixtures::LIMITS,
        &Isolation::InProcess,
        2,
    )
    .expect("in-process grading always runs");
    // Never lock a wrong verdict: tests/outcomes.rs says why each must be what it is.
    let statuses: Vec<_> = exercises
        .iter()
        .map(|e| (e.id.as_str(), e.status()))
        .collect();
    let expected: Vec<_> = fixtures::EXPECTED
        .iter()
        .map(|(id, s, _)| (*id, *s))
        .collect();
    assert_eq!(statuses, expected);
    let integrity = Integrity {
        manifest: "crates/grade/manifest.txt".into(),
        files_listed: 120,
        files: vec![
            FileChange {
                path: "chapters/ch09/src/checks/basics.rs".into(),
                change: Change::Modified,
            },
            FileChange {
                path: "crates/simt/src/extra.rs".into(),
                change: Change::Unexpected,
            },
        ],
        error: None,
    };
    Report::new(
        fixtures::SOURCE,
        fixtures::LIMITS,
        &[&fixtures::CHAPTER],
        exercises,
        Some(integrity),
    )
}

#[test]
fn the_fixture_report_in_every_format() {
    let report = fixture_report();
    insta::assert_snapshot!("fixtures_table", render(&report, Format::Table));
    insta::assert_snapshot!("fixtures_json", render(&report, Format::Json));
    insta::assert_snapshot!("fixtures_junit", render(&report, Format::Junit));
    insta::assert_snapshot!("fixtures_markdown", render(&report, Format::Markdown));
}
