//! The results the grading platforms read: Gradescope's autograder `results.json` and
//! PrairieLearn's external grader result. Both are JSON (serde escapes), from the report's
//! printable text ([`Report::printable`]).

use super::answer_notes;
use crate::report::{ExerciseReport, Report};
use serde_json::{Value, json};

/// An exercise's feedback: the reason, the details, the hint and the book section.
fn feedback(e: &ExerciseReport) -> String {
    let mut lines = vec![format!("{}: {}", e.status_label, e.outcome.reason)];
    lines.extend(e.outcome.details.iter().cloned());
    if let Some(h) = &e.hint {
        lines.push(format!("hint: {h}"));
    }
    lines.push(format!("read: {}", e.book));
    lines.join("\n")
}

/// The run as a whole: the total, where it ran, the inputs, what was ignored.
fn summary(report: &Report) -> String {
    let mut lines = vec![format!(
        "{} of {} exercises pass: {}/{} points (all or nothing per exercise; {} kernels on {}, \
         inputs drawn from {})",
        report.passed,
        report.exercises_graded,
        report.points.earned,
        report.points.possible,
        report.kernels,
        report.device_name,
        report.inputs
    )];
    lines.extend(answer_notes(report));
    lines.join("\n")
}

/// Gradescope's `results.json` (its autograder specification): the total `score`, an
/// `output` for the whole run, and one test per exercise with its `name`, `number`,
/// `score`, `max_score`, `status` and `output`, every part visible to the student.
pub fn gradescope(report: &Report) -> String {
    let report = report.clone().printable();
    let tests: Vec<Value> = report
        .exercises
        .iter()
        .map(|e| {
            json!({
                "name": format!("{} {}", e.id, e.title),
                "number": e.id,
                "score": e.points.earned,
                "max_score": e.points.possible,
                "status": if e.passed { "passed" } else { "failed" },
                "output": feedback(e),
                "output_format": "text",
                "visibility": "visible",
            })
        })
        .collect();
    let doc = json!({
        "score": report.points.earned,
        "output": summary(&report),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("invariant: JSON values serialize");
    s.push('\n');
    s
}

/// PrairieLearn's external grader result (`/grade/results/results.json`): `gradable`, the
/// `score` as a fraction in [0, 1], a `message`, the `output`, and one test per exercise
/// with its `points`, `max_points`, `message` (the reason) and `output` (the feedback).
pub fn prairielearn(report: &Report) -> String {
    let report = report.clone().printable();
    let possible = report.points.possible.max(1) as f64;
    let tests: Vec<Value> = report
        .exercises
        .iter()
        .map(|e| {
            json!({
                "name": format!("{} {}", e.id, e.title),
                "description": e.kernels.join(", "),
                "points": e.points.earned,
                "max_points": e.points.possible,
                "message": format!("{}: {}", e.status_label, e.outcome.reason),
                "output": feedback(e),
            })
        })
        .collect();
    let doc = json!({
        "gradable": true,
        "score": report.points.earned as f64 / possible,
        "message": format!("{}/{} points", report.points.earned, report.points.possible),
        "output": summary(&report),
        "tests": tests,
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("invariant: JSON values serialize");
    s.push('\n');
    s
}
