//! The gradebook: one CSV row per submission, for a spreadsheet or an LMS import.
//!
//! Columns: `name` (the row's unique name, its reports' folder under `submissions/`),
//! `folder` (the folder's own name, as it is), `kernels_at` (where `kernels/src` was found
//! when deeper in the folder), one column per exercise graded (its points earned), `total`,
//! `possible`, `ignored` (how many edits outside the answers were not built), `ignored_edits`
//! (them, `; `-separated) and `error` (why the submission could not be graded, if so).
//! Fields are quoted as RFC 4180 says, a field a spreadsheet would read as a formula (one
//! starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed with `'` (a
//! folder name or a file name is the student's text), and no field holds more than
//! [`CELL_LIMIT`] characters (a spreadsheet's cell holds 32 767): the whole text stays in
//! the submission's `grade.json`.

use crate::class::Graded;

/// The gradebook's own columns before the exercises' (see the module docs).
pub const LEADING: [&str; 3] = ["name", "folder", "kernels_at"];

/// The gradebook's own columns after the exercises'.
pub const TRAILING: [&str; 5] = ["total", "possible", "ignored", "ignored_edits", "error"];

/// The most characters of one gradebook field (a spreadsheet's cell holds 32 767).
pub const CELL_LIMIT: usize = 32_000;

/// One CSV field: quoted when it holds a comma, a quote or a line break; a formula
/// defused (a number is left as it is); cut at [`CELL_LIMIT`] characters, saying so.
pub fn field(text: &str) -> String {
    let text = gpu_host::printable(text);
    let text = match text.char_indices().nth(CELL_LIMIT) {
        Some((cut, _)) => format!(
            "{} … (cut: {} more characters; the whole text is in the submission's grade.json)",
            &text[..cut],
            text[cut..].chars().count()
        ),
        None => text,
    };
    // A number (a change of points, `-10`) is no formula; anything else starting so is.
    let number = text.parse::<f64>().is_ok_and(f64::is_finite);
    let text = if !number && text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
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
    let mut header: Vec<String> = LEADING.map(String::from).to_vec();
    header.extend(ids.iter().map(|id| field(id)));
    header.extend(TRAILING.map(String::from));
    let mut out = header.join(",");
    out.push('\n');
    for g in graded {
        let mut row = vec![
            field(&g.submission.name),
            field(&g.submission.folder),
            field(g.submission.found_at.as_deref().unwrap_or_default()),
        ];
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
        assert_eq!(field("-1"), "-1", "a number is no formula");
        assert_eq!(field("-1+cmd|' /C calc'!A0"), "'-1+cmd|' /C calc'!A0");
        assert_eq!(field("+inf"), "'+inf");
        assert_eq!(field("line\nbreak"), "\"line\nbreak\"");
        let long = field(&"x".repeat(100_000));
        assert!(long.chars().count() < 32_767, "{}", long.len());
        assert!(long.contains("68000 more characters"));
    }
}
