//! The grade report of the untouched stubs, locked with `insta`: what an instructor sees
//! for a clone where nothing is solved yet. The grader's own tests lock each format on
//! fixtures (`crates/grade/tests/`); this one locks the real course's report, so a change
//! to a stub, a hint, a title or the points shows up here as a snapshot diff.

use course::KernelSource;
use grade::render::{Format, render};
use grade::report::{Integrity, Report};
use grade::{Isolation, Limits, Selection};

#[test]
fn the_grade_report_of_the_untouched_stubs() {
    course_tests::use_pristine_stubs();
    let chapters = grade::chapters();
    let exercises = grade::grade(
        &chapters,
        &Selection::all(),
        KernelSource::Student,
        &Limits::CHECKS,
        &Isolation::InProcess,
        2,
    )
    .expect("in-process grading always runs");
    assert!(
        exercises.iter().all(|e| !e.passed && e.points.earned == 0),
        "an untouched stub earns nothing"
    );
    // The tamper check depends on the working tree (tests/tests/manifest.rs checks
    // it); the report shows a clean one.
    let integrity = Integrity {
        manifest: grade::manifest::MANIFEST_PATH.into(),
        files_listed: 1,
        ..Integrity::default()
    };
    let report = Report::new(
        KernelSource::Student,
        Limits::CHECKS,
        &chapters,
        exercises,
        Some(integrity),
    );
    assert_eq!(report.points.earned, 0);
    // Stub line numbers move with every edit of kernels/: the snapshots lock the rest.
    let stable = |f| grade::render::without_stub_lines(&render(&report, f));
    insta::assert_snapshot!("stubs_table", stable(Format::Table));
    insta::assert_snapshot!("stubs_json", stable(Format::Json));
}
