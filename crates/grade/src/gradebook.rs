//! The gradebook: one CSV row per submission, for a spreadsheet or an LMS import.
//!
//! Columns: `name`, one column per exercise graded (its points earned), `total`,
//! `possible`, `ignored` (how many edits outside the answers were not built), `ignored_edits`
//! (them, `; `-separated) and `error` (why the submission could not be graded, if so).
//! Fields are quoted as RFC 4180 says, and a field a spreadsheet would read as a formula
//! (one starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed with `'`:
//! a folder name or a file name is the student's text.

use crate::class::Graded;

/// One CSV field: quoted when it holds a comma, a quote or a line break; a formula
/// defused.
pub fn field(text: &str) -> String {
    let text = gpu_host::printable(text);
    let text = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// The gradebook of `graded`, with a column per exercise of `ids` (in that order).
pub fn csv(graded: &[Graded], ids: &[&str]) -> String {
    let mut header = vec!["name".to_string()];
    header.extend(ids.iter().map(|id| field(id)));
    header.extend(["total", "possible", "ignored", "ignored_edits", "error"].map(String::from));
    let mut out = header.join(",");
    out.push('\n');
    for g in graded {
        let mut row = vec![field(&g.submission.name)];
        match &g.report {
            Ok(r) => {
                for id in ids {
                    let earned = r.exercises.iter().find(|e| e.id == *id);
                    row.push(
                        earned
                            .map(|e| e.points.earned.to_string())
                            .unwrap_or_default(),
                    );
                }
                let edits: Vec<String> = r.ignored.iter().map(|i| i.describe()).collect();
                row.extend([
                    r.points.earned.to_string(),
                    r.points.possible.to_string(),
                    r.ignored.len().to_string(),
                    field(&edits.join("; ")),
                    String::new(),
                ]);
            }
            Err(e) => {
                row.extend(ids.iter().map(|_| String::new()));
                row.extend([
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    field(e),
                ]);
            }
        }
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn fields_are_quoted_and_formulas_defused() {
        assert_eq!(field("alice"), "alice");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(field("-1"), "'-1");
        assert_eq!(field("line\nbreak"), "\"line\nbreak\"");
    }
}
