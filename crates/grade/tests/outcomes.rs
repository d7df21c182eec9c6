//! The grader on its fixtures: every outcome a kernel can have gets its status, its
//! reason and its points (all or nothing), and one bad exercise never costs another.

mod fixtures;

use course::Status;
use grade::report::Report;
use grade::{Isolation, Selection};

#[test]
fn every_outcome_gets_its_status_reason_and_points() {
    let results = grade::grade(
        &[&fixtures::CHAPTER],
        &Selection::all(),
        fixtures::SOURCE,
        &fixtures::LIMITS,
        &Isolation::InProcess,
        2,
    )
    .expect("in-process grading always runs");
    assert_eq!(results.len(), fixtures::EXPECTED.len());
    for (r, (id, status, says)) in results.iter().zip(fixtures::EXPECTED) {
        assert_eq!(r.id, id, "the report keeps the registry's order");
        assert_eq!(
            r.status(),
            status,
            "{id}: {} - {}\n{}",
            r.status_label,
            r.outcome.reason,
            r.outcome.details.join("\n")
        );
        assert!(
            r.outcome.reason.contains(says),
            "{id}: `{}` does not say `{says}`",
            r.outcome.reason
        );
        assert!(
            !r.outcome.reason.contains('\n'),
            "{id}: the reason is one line"
        );
        let exercise = fixtures::CHAPTER.exercise(id).expect("a fixture");
        assert_eq!(r.points.possible, exercise.points, "{id}");
        let earned = if status == Status::Pass {
            exercise.points
        } else {
            0
        };
        assert_eq!(r.points.earned, earned, "{id}: all or nothing");
        assert_eq!(r.passed, status == Status::Pass);
        assert_eq!(
            r.hint.is_some(),
            status != Status::Pass,
            "{id}: hints on failures only"
        );
    }
    let report = Report::new(
        fixtures::SOURCE,
        fixtures::LIMITS,
        &[&fixtures::CHAPTER],
        results,
        None,
    );
    assert_eq!(report.points.earned, 7);
    assert_eq!(report.points.possible, (1..=14).sum::<u32>() + 6);
    assert_eq!((report.passed, report.exercises_graded), (1, 14));
}

#[test]
fn a_selection_grades_only_its_exercises() {
    let results = grade::grade(
        &[&fixtures::CHAPTER],
        &Selection::only(["fx.11", "fx.1"]),
        fixtures::SOURCE,
        &fixtures::LIMITS,
        &Isolation::InProcess,
        1,
    )
    .expect("in-process grading always runs");
    let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["fx.1", "fx.11"], "course order, not the selection's");
    assert_eq!(
        Selection::only(["fx.1", "9.99"]).unknown(&[&fixtures::CHAPTER]),
        ["9.99"]
    );
}
