//! The report's four formats: a terminal table, JSON, JUnit XML and Markdown.
//!
//! Each is a pure function of the [`Report`], so the same report renders the same bytes
//! (the formats are locked with `insta` snapshots in `tests/`). None prints a time,
//! a duration or a path of the machine.

use crate::report::{ExerciseReport, Integrity, Report};
use course::Status;
use std::fmt::Write as _;

/// The output formats of `cargo run -p grade`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An aligned table for a terminal (the default).
    Table,
    /// The JSON report (`--json`), schema in the crate's README.
    Json,
    /// JUnit XML (`--junit`): one testcase per exercise, for CI systems.
    Junit,
    /// A Markdown comment for the student (`--markdown`).
    Markdown,
}

/// Renders `report` in `format`.
pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Table => table(report),
        Format::Json => json(report),
        Format::Junit => junit(report),
        Format::Markdown => markdown(report),
    }
}

/// "student kernels" or "reference kernels".
fn whose(report: &Report) -> String {
    format!("{} kernels", report.kernels)
}

/// "the SIMT emulator", or "the GPU NVIDIA H100 80GB HBM3 (driver: CUDA 12.8)".
fn where_run(report: &Report) -> String {
    match (&report.device_driver, report.on_gpu()) {
        (Some(driver), true) => format!("the GPU {} (driver: {driver})", report.device_name),
        _ => "the SIMT emulator".to_string(),
    }
}

/// "0/10".
fn points(e: &ExerciseReport) -> String {
    format!("{}/{}", e.points.earned, e.points.possible)
}

/// ", tampered: 2 files" or "".
fn tamper_note(report: &Report) -> String {
    match &report.integrity {
        Some(i) if !i.files.is_empty() => {
            let n = i.files.len();
            format!(" (tampered: {n} file{})", if n == 1 { "" } else { "s" })
        }
        Some(i) if i.error.is_some() => " (unverified: see integrity)".to_string(),
        _ => String::new(),
    }
}

/// The total line shared by the table and Markdown.
fn total_line(report: &Report) -> String {
    format!(
        "{}/{} points, {} of {} exercises passed{}",
        report.points.earned,
        report.points.possible,
        report.passed,
        report.exercises_graded,
        tamper_note(report)
    )
}

/// The terminal table: per chapter, one line per exercise (id, title, status, points,
/// the first line of the reason), then the total and the integrity verdict with every
/// file that differs.
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
                e.outcome.reason
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
    let _ = writeln!(s, "\ntotal: {}", total_line(report));
    match &report.integrity {
        None => {
            let _ = writeln!(s, "integrity: not checked");
        }
        Some(i) => {
            let _ = writeln!(s, "integrity: {}", i.summary());
            for f in &i.files {
                let _ = writeln!(s, "  {:10}  {}", f.change.label(), f.path);
            }
        }
    }
    s
}

fn width(report: &Report, f: impl Fn(&ExerciseReport) -> usize) -> usize {
    report.exercises.iter().map(f).max().unwrap_or(0)
}

/// The JSON report, pretty-printed, with a final newline. Schema: the crate's README.
pub fn json(report: &Report) -> String {
    let mut s =
        serde_json::to_string_pretty(report).expect("invariant: a report always serializes");
    s.push('\n');
    s
}

/// Escapes text for XML 1.0 attributes and content, dropping the control characters
/// XML 1.0 cannot hold.
fn xml(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&apos;"),
            '\n' => s.push_str("&#10;"),
            '\t' => s.push_str("&#9;"),
            c if (c as u32) < 0x20 => {}
            c => s.push(c),
        }
    }
    s
}

/// The body of a failing exercise: reason, details, hint, book section.
fn failure_body(e: &ExerciseReport) -> String {
    let mut lines = vec![e.outcome.reason.clone()];
    lines.extend(e.outcome.details.iter().cloned());
    if let Some(h) = &e.hint {
        lines.push(format!("hint: {h}"));
    }
    lines.push(format!("read: {}", e.book));
    lines.join("\n")
}

/// JUnit XML: a `<testsuite>` per chapter with a `<testcase>` per exercise (its name
/// carries the points), a `<failure>` (or `<error>` for status `error`, a problem of
/// grading) whose `message` is `status: reason`, whose `type` is the status key and
/// whose text is the whole report of the check with the hint and the book section,
/// and, when the tamper check ran, a testsuite `integrity` whose one testcase fails when
/// a course file differs from the manifest. No `time` attributes: the report is
/// deterministic.
pub fn junit(report: &Report) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let failures = |es: &[&ExerciseReport]| {
        es.iter()
            .filter(|e| !e.passed && e.status() != Status::Error)
            .count()
    };
    let errors = |es: &[&ExerciseReport]| es.iter().filter(|e| e.status() == Status::Error).count();
    let all: Vec<&ExerciseReport> = report.exercises.iter().collect();
    let tampered = usize::from(report.tampered);
    let integrity_tests = usize::from(report.integrity.is_some());
    let _ = writeln!(
        s,
        "<testsuites name=\"grade\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
        all.len() + integrity_tests,
        failures(&all) + tampered,
        errors(&all)
    );
    for ch in &report.chapters {
        let mine: Vec<&ExerciseReport> = report
            .exercises
            .iter()
            .filter(|e| e.chapter == ch.id)
            .collect();
        let _ = writeln!(
            s,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\">",
            xml(&ch.id),
            mine.len(),
            failures(&mine),
            errors(&mine)
        );
        let _ = writeln!(s, "    <properties>");
        let mut properties = vec![
            ("title", ch.title.to_string()),
            ("kernels", report.kernels.to_string()),
            ("device", report.device.to_string()),
            ("device_name", report.device_name.clone()),
        ];
        if let Some(driver) = &report.device_driver {
            properties.push(("device_driver", driver.clone()));
        }
        properties.extend([
            ("scoring", report.scoring.to_string()),
            ("points_earned", ch.points.earned.to_string()),
            ("points_possible", ch.points.possible.to_string()),
        ]);
        for (name, value) in properties {
            let _ = writeln!(
                s,
                "      <property name=\"{name}\" value=\"{}\"/>",
                xml(&value)
            );
        }
        let _ = writeln!(s, "    </properties>");
        for e in mine {
            let name = format!(
                "{} {} ({} point{})",
                e.id,
                e.title,
                e.points.possible,
                if e.points.possible == 1 { "" } else { "s" }
            );
            let open = format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml(&e.chapter),
                xml(&name)
            );
            if e.passed {
                let _ = writeln!(s, "{open}/>");
                continue;
            }
            let tag = if e.status() == Status::Error {
                "error"
            } else {
                "failure"
            };
            let _ = writeln!(s, "{open}>");
            let _ = writeln!(
                s,
                "      <{tag} type=\"{}\" message=\"{}\">{}</{tag}>",
                status_key(e.status()),
                xml(&junit_message(e)),
                xml_text(&failure_body(e))
            );
            let _ = writeln!(s, "    </testcase>");
        }
        let _ = writeln!(s, "  </testsuite>");
    }
    if let Some(i) = &report.integrity {
        let _ = writeln!(
            s,
            "  <testsuite name=\"integrity\" tests=\"1\" failures=\"{tampered}\" errors=\"0\" skipped=\"0\">"
        );
        let open = format!(
            "    <testcase classname=\"integrity\" name=\"{}\"",
            xml(&format!("course files match {}", i.manifest))
        );
        if i.tampered() {
            let _ = writeln!(s, "{open}>");
            let _ = writeln!(
                s,
                "      <failure type=\"tampered\" message=\"{}\">{}</failure>",
                xml(&i.summary()),
                xml_text(&integrity_body(i))
            );
            let _ = writeln!(s, "    </testcase>");
        } else {
            let _ = writeln!(s, "{open}/>");
        }
        let _ = writeln!(s, "  </testsuite>");
    }
    s.push_str("</testsuites>\n");
    s
}

/// The key of `status` in the JSON report, which JUnit's `type` attribute repeats: serde's
/// own spelling of [`Status`] (`wrong_result`), so the two reports cannot drift apart.
fn status_key(status: Status) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A failure's `message`: the status, then the reason (once, if the reason already
/// starts with the status, as "timed out: …" does).
fn junit_message(e: &ExerciseReport) -> String {
    if e.outcome.reason.starts_with(&e.status_label) {
        e.outcome.reason.clone()
    } else {
        format!("{}: {}", e.status_label, e.outcome.reason)
    }
}

/// Escapes element text: like [`xml`], but keeps line breaks as they are.
fn xml_text(text: &str) -> String {
    text.split('\n').map(xml).collect::<Vec<_>>().join("\n")
}

/// The list of files that differ, one per line.
fn integrity_body(i: &Integrity) -> String {
    let mut lines: Vec<String> = i
        .files
        .iter()
        .map(|f| format!("{}: {}", f.change.label(), f.path))
        .collect();
    if let Some(e) = &i.error {
        lines.push(e.clone());
    }
    lines.join("\n")
}

/// Escapes text for Markdown (GitHub-flavoured), in a table cell or a paragraph: outside
/// code spans, the characters that would turn `__shared__` bold or open a link or a tag
/// are escaped; inside them only `|`, which would end the table cell. Unbalanced
/// backticks are escaped too.
fn md_cell(text: &str) -> String {
    let balanced = text.matches('`').count().is_multiple_of(2);
    let mut s = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' if balanced => {
                in_code = !in_code;
                s.push(c);
            }
            '|' => s.push_str("\\|"),
            '\\' | '*' | '_' | '[' | ']' | '`' if !in_code => {
                s.push('\\');
                s.push(c);
            }
            '<' if !in_code => s.push_str("&lt;"),
            '>' if !in_code => s.push_str("&gt;"),
            c => s.push(c),
        }
    }
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
        "{} of {} exercises pass ({} on {}). Points are all or nothing per exercise.\n",
        report.passed,
        report.exercises_graded,
        whose(report),
        where_run(report)
    );
    if let Some(i) = &report.integrity
        && i.tampered()
    {
        let _ = writeln!(
            s,
            "> [!WARNING]\n> **Integrity: {}.** Only `kernels/` is yours to change; this grade needs a person to look at it.",
            md_cell(&i.summary())
        );
        for f in &i.files {
            let _ = writeln!(s, "> - {} `{}`", f.change.label(), f.path);
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
            md_cell(&e.title),
            e.status_label,
            points(e),
            md_cell(&e.outcome.reason)
        );
    }
    let failing: Vec<&ExerciseReport> = report.exercises.iter().filter(|e| !e.passed).collect();
    if !failing.is_empty() {
        let _ = writeln!(s, "\n### What to look at\n");
        for e in failing {
            let _ = writeln!(
                s,
                "<details>\n<summary><b>{} {}</b>: {}</summary>\n",
                e.id,
                md_cell(&e.title),
                e.status_label
            );
            let _ = writeln!(s, "~~~text");
            let _ = writeln!(s, "{}", e.outcome.reason);
            for d in &e.outcome.details {
                let _ = writeln!(s, "{d}");
            }
            let _ = writeln!(s, "~~~\n");
            if let Some(h) = &e.hint {
                let _ = writeln!(s, "**Hint:** {}\n", md_cell(h));
            }
            let _ = writeln!(
                s,
                "**Read:** `{}`, then run `cargo test -p {} {}`\n",
                e.book,
                e.chapter,
                course::test_filter(&e.id)
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
    fn xml_escapes_markup_quotes_and_control_characters() {
        assert_eq!(
            xml("a<b>&\"c'\n\u{1}d"),
            "a&lt;b&gt;&amp;&quot;c&apos;&#10;d"
        );
        assert_eq!(xml_text("a<\nb"), "a&lt;\nb");
    }

    #[test]
    fn markdown_cells_cannot_break_the_table() {
        assert_eq!(md_cell("a | b <c>"), "a \\| b &lt;c&gt;");
        assert_eq!(
            md_cell("__shared__ at `a_b|c` [x]*"),
            "\\_\\_shared\\_\\_ at `a_b\\|c` \\[x\\]\\*"
        );
        assert_eq!(md_cell("odd ` tick_"), "odd \\` tick\\_");
    }
}

/// `text` with the line and column of every `kernels/src/….rs:LINE:COL` location replaced
/// by `L:C` (and the line of a `….rs:LINE` location, as a host function's panic gives it,
/// by `L`).
///
/// For snapshot tests of reports on the untouched stubs: a stub's `todo!` message names
/// its source line, which moves whenever anything above it in the file changes; the
/// snapshot should lock the report's shape and wording, not the stubs' line numbers.
pub fn without_stub_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("kernels/src/") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let Some(rs) = from.find(".rs:") else {
            out.push_str(from);
            return out;
        };
        let path_len = rs + ".rs:".len();
        out.push_str(&from[..path_len]);
        let tail = &from[path_len..];
        let line = tail.bytes().take_while(u8::is_ascii_digit).count();
        let col = tail[line..]
            .strip_prefix(':')
            .map(|t| t.bytes().take_while(u8::is_ascii_digit).count())
            .unwrap_or(0);
        if line > 0 && col > 0 {
            out.push_str("L:C");
            rest = &tail[line + 1 + col..];
        } else if line > 0 {
            // A host function's panic names its line alone.
            out.push('L');
            rest = &tail[line..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod stub_line_tests {
    use super::without_stub_lines;

    #[test]
    fn stub_locations_lose_their_numbers_and_nothing_else() {
        assert_eq!(
            without_stub_lines("at kernels/src/ch09.rs:443:5: not yet, line 7:3"),
            "at kernels/src/ch09.rs:L:C: not yet, line 7:3"
        );
        assert_eq!(
            without_stub_lines("kernels/src/a.rs:1:2 and kernels/src/b.rs:30:40."),
            "kernels/src/a.rs:L:C and kernels/src/b.rs:L:C."
        );
        assert_eq!(
            without_stub_lines("kernels/src/x.rs: no line"),
            "kernels/src/x.rs: no line"
        );
        assert_eq!(
            without_stub_lines("num_bins (at kernels/src/ch09.rs:731)"),
            "num_bins (at kernels/src/ch09.rs:L)"
        );
        assert_eq!(without_stub_lines("kernels/src/lib"), "kernels/src/lib");
    }
}
