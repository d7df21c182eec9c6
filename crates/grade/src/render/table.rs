//! The terminal table.

use super::{answer_notes, points, total_line, where_run, whose};
use crate::report::{ExerciseReport, Report};
use gpu_host::printable;
use std::fmt::Write as _;

/// The terminal table: per chapter, one line per exercise (id, title, status, points,
/// the first line of the reason), then the total, the integrity verdict with every file
/// that differs, and the edits outside the answers that were ignored.
pub fn table(report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "grade: {} on {}; points are all or nothing per exercise",
        whose(report),
        where_run(report)
    );
    let w_id = width(report, |e| e.id.chars().count()).max("exercise".len());
    let w_title = width(report, |e| e.title.chars().count()).max("title".len());
    let w_status = width(report, |e| e.status_label.len()).max("status".len());
    let w_points = width(report, |e| points(e).len()).max("points".len());
    for ch in &report.chapters {
        let _ = writeln!(s, "\n{}  {}", ch.id, ch.title);
        let _ = writeln!(
            s,
            "  {:w_id$}  {:w_title$}  {:w_status$}  {:>w_points$}  reason",
            "exercise", "title", "status", "points"
        );
        for e in report.exercises.iter().filter(|e| e.chapter == ch.id) {
            let _ = writeln!(
                s,
                "  {:w_id$}  {:w_title$}  {:w_status$}  {:>w_points$}  {}",
                e.id,
                e.title,
                e.status_label,
                points(e),
                printable(&e.outcome.reason)
            );
        }
        let _ = writeln!(
            s,
            "  {:w_id$}  {:w_title$}  {:w_status$}  {:>w_points$}  {} of {} passed",
            "",
            "",
            "",
            format!("{}/{}", ch.points.earned, ch.points.possible),
            ch.passed,
            ch.exercises
        );
    }
    let timed = report.gpu_timed();
    if !timed.is_empty() {
        let _ = writeln!(
            s,
            "\nkernel times on the GPU (one launch each on the checks' largest input, the \
             reference's beside it in the same run):"
        );
        for e in timed {
            for t in &e.gpu_times {
                let _ = writeln!(s, "  {:w_id$}  {}", e.id, t.line());
            }
        }
    }
    let _ = writeln!(s, "\ntotal: {}", total_line(report));
    let _ = writeln!(s, "inputs: drawn from {}", report.inputs);
    match &report.integrity {
        None => {
            let _ = writeln!(s, "integrity: not checked");
        }
        Some(i) => {
            let _ = writeln!(s, "integrity: {}", printable(&i.summary()));
            for f in &i.files {
                let _ = writeln!(s, "  {:10}  {}", f.change.label(), printable(&f.path));
            }
        }
    }
    for line in answer_notes(report) {
        let _ = writeln!(s, "{}", printable(&line));
    }
    s
}

fn width(report: &Report, f: impl Fn(&ExerciseReport) -> usize) -> usize {
    report.exercises.iter().map(f).max().unwrap_or(0)
}
