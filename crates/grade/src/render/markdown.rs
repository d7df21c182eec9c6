//! The Markdown feedback comment, whose structure no text of a submission can change.
//!
//! Text a submission controls never stands in Markdown as it is: on one line (a table
//! cell, a list item) it is a code span whose backtick run is longer than any run inside it
//! (with `|`, which would end a table cell even inside a code span, written `¦`); on many
//! lines it is a fenced block whose fence is longer than any run of tildes inside it. So it
//! can neither end its block nor start an element (a heading, a link, an image, HTML, an
//! autolink or a mention: none is made inside code). Invisible characters were escaped
//! before ([`gpu_host::printable`]).

use super::{answer_notes, points, where_run, whose};
use crate::report::{ExerciseReport, Report};
use gpu_host::printable;
use std::fmt::Write as _;

/// The longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for x in text.chars() {
        run = if x == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// `text` (one line) as a code span that nothing in it can close: a backtick run longer
/// than any inside it, padded with a space on each side (which CommonMark strips), and
/// `|` written `¦` so that it cannot end a table cell.
pub(crate) fn code(text: &str) -> String {
    let text = printable(text).replace(['\n', '\r'], " ").replace('|', "¦");
    if text.trim().is_empty() {
        return "` `".to_string();
    }
    let ticks = "`".repeat(longest_run(&text, '`') + 1);
    format!("{ticks} {text} {ticks}")
}

/// `lines` as a fenced code block (`~~~text`) whose fence is longer than any run of
/// tildes or backticks in them, so that no line of theirs can close it.
pub(crate) fn fenced(lines: &[String]) -> String {
    let body: Vec<String> = lines.iter().map(|l| printable(l)).collect();
    let runs = body
        .iter()
        .map(|l| longest_run(l, '~').max(longest_run(l, '`')))
        .max()
        .unwrap_or(0);
    let fence = "~".repeat(runs.max(2) + 1);
    let mut s = format!("{fence}text\n");
    for l in &body {
        s.push_str(l);
        s.push('\n');
    }
    s.push_str(&fence);
    s.push('\n');
    s
}

/// A Markdown feedback comment for the student (a pull request comment, a GitHub
/// Classroom feedback PR): the score, a table of every exercise, then a collapsed
/// section per failing exercise with the whole report, the hint and the book section.
pub fn markdown(report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Grade: {} / {} points\n",
        report.points.earned, report.points.possible
    );
    let _ = writeln!(
        s,
        "{} of {} exercises pass ({} on {}, inputs drawn from {}). Points are all or nothing per exercise.\n",
        report.passed,
        report.exercises_graded,
        whose(report),
        where_run(report),
        report.inputs
    );
    if let Some(i) = &report.integrity
        && i.tampered()
    {
        let _ = writeln!(
            s,
            "> [!WARNING]\n> **Integrity:** {}. Only `kernels/` is yours to change; this grade needs a person to look at it.",
            code(&i.summary())
        );
        for f in &i.files {
            let _ = writeln!(s, "> - {} {}", f.change.label(), code(&f.path));
        }
        s.push('\n');
    }
    let notes = answer_notes(report);
    if !notes.is_empty() {
        let _ = writeln!(
            s,
            "Only the answers between `STUDENT-BEGIN` and `STUDENT-END` are built and graded:\n"
        );
        for n in &notes {
            let _ = writeln!(s, "- {}", code(n));
        }
        s.push('\n');
    }
    let _ = writeln!(s, "| | exercise | status | points | reason |");
    let _ = writeln!(s, "| --- | --- | --- | ---: | --- |");
    for e in &report.exercises {
        let _ = writeln!(
            s,
            "| {} | {} {} | {} | {} | {} |",
            if e.passed { "✅" } else { "❌" },
            e.id,
            e.title,
            e.status_label,
            points(e),
            code(&e.outcome.reason)
        );
    }
    let timed = report.gpu_timed();
    if !timed.is_empty() {
        let _ = writeln!(
            s,
            "\n### Kernel times on the GPU\n\nOne launch each on the checks' largest input, \
             the reference's beside it in the same run.\n"
        );
        let _ = writeln!(
            s,
            "| exercise | kernel | bytes | your ms | your GB/s | reference ms | reference GB/s | your time / reference's |"
        );
        let _ = writeln!(s, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        for e in timed {
            for t in &e.gpu_times {
                let opt = |v: Option<String>| v.unwrap_or_else(|| "–".into());
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {:.3} | {:.1} | {} | {} | {} |",
                    e.id,
                    code(&t.kernel),
                    t.bytes,
                    t.student_ns as f64 / 1e6,
                    t.student_gbps.0,
                    opt(t.reference_ns.map(|ns| format!("{:.3}", ns as f64 / 1e6))),
                    opt(t.reference_gbps.map(|g| format!("{:.1}", g.0))),
                    opt(t.ratio().map(|r| format!("{r:.2}x"))),
                );
            }
        }
    }
    let failing: Vec<&ExerciseReport> = report.exercises.iter().filter(|e| !e.passed).collect();
    if !failing.is_empty() {
        let _ = writeln!(s, "\n### What to look at\n");
        for e in failing {
            let _ = writeln!(
                s,
                "<details>\n<summary><b>{} {}</b>: {}</summary>\n",
                e.id, e.title, e.status_label
            );
            let mut lines = vec![e.outcome.reason.clone()];
            lines.extend(e.outcome.details.iter().cloned());
            let _ = writeln!(s, "{}", fenced(&lines));
            if let Some(h) = &e.hint {
                let _ = writeln!(s, "**Hint:** {h}\n");
            }
            let _ = writeln!(
                s,
                "**Read:** `{}`, then run `cargo test -p {} {}` (every function and macro a \
                 kernel may use: `{}`)\n",
                e.book,
                e.chapter,
                course::test_filter(&e.id),
                course::API_PAGE
            );
            let _ = writeln!(s, "</details>\n");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_and_fences_outlast_what_they_hold() {
        assert_eq!(code("a | b"), "` a ¦ b `");
        assert_eq!(code("x `` y"), "``` x `` y ```");
        assert_eq!(code(""), "` `");
        let f = fenced(&["~~~".into(), "  ^^^ here".into()]);
        assert!(f.starts_with("~~~~text\n~~~\n  ^^^ here\n~~~~\n"), "{f}");
    }
}
