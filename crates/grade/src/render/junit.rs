//! JUnit XML, valid XML 1.0 whatever the text a submission wrote.

use super::answer_notes;
use crate::report::{ExerciseReport, Integrity, Report};
use course::Status;
use gpu_host::printable;
use std::fmt::Write as _;

/// Escapes text for XML 1.0 attributes and content: every character XML 1.0 cannot hold,
/// and every one that does not show as itself, is written as its Rust escape
/// ([`printable`]), then markup and quotes as entities, and line breaks as `&#10;`.
pub(crate) fn xml(text: &str) -> String {
    let text = printable(text);
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
            c => s.push(c),
        }
    }
    s
}

/// Escapes element text: like [`xml`], but keeps line breaks (and each line's
/// indentation) as they are.
pub(crate) fn xml_text(text: &str) -> String {
    text.split('\n').map(xml).collect::<Vec<_>>().join("\n")
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
/// a course file differs from the manifest. The inputs and the edits outside the answers
/// are properties of every suite. No `time` attributes: the report is deterministic.
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
            ("inputs", report.inputs.clone()),
            ("points_earned", ch.points.earned.to_string()),
            ("points_possible", ch.points.possible.to_string()),
        ]);
        properties.extend(answer_notes(report).into_iter().map(|n| ("answers", n)));
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
pub(crate) fn status_key(status: Status) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A failure's `message`: the status, a colon, then the reason (the status once, if the
/// reason already starts with it and a colon, as "timed out: …" does; "racecheck: …" and
/// "livelock in block …" do not, and get theirs).
fn junit_message(e: &ExerciseReport) -> String {
    let labelled = e
        .outcome
        .reason
        .strip_prefix(&e.status_label)
        .is_some_and(|rest| rest.starts_with(':'));
    if labelled {
        e.outcome.reason.clone()
    } else {
        format!("{}: {}", e.status_label, e.outcome.reason)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_markup_quotes_and_every_character_xml_cannot_hold() {
        assert_eq!(
            xml("a<b>&\"c'\n\u{1}d"),
            "a&lt;b&gt;&amp;&quot;c&apos;&#10;\\u{1}d"
        );
        assert_eq!(xml_text("a<\n  b"), "a&lt;\n  b");
        assert_eq!(xml("\u{ffff}\u{fffe}\r"), "\\u{ffff}\\u{fffe}\\u{d}");
    }
}
