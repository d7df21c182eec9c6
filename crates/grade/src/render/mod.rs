//! The report's formats: a terminal table, JSON, JUnit XML and Markdown.
//!
//! Each is a pure function of the [`Report`], so the same report renders the same bytes
//! (the formats are locked with `insta` snapshots in `tests/`). None prints a time,
//! a duration or a path of the machine.
//!
//! Every byte of every format is the grader's: text a submission controls (a panic
//! message, a compiler error, a file name) is confined to its field. Characters that do
//! not show as themselves are escaped alike in every format (`gpu_host::printable`), and
//! each format escapes for itself: XML entities in JUnit, code spans and fences longer
//! than any run of backticks or tildes in the text in Markdown.

mod junit;
mod markdown;
mod platforms;
mod table;

use crate::report::{ExerciseReport, Report};
pub use junit::junit;
pub use markdown::markdown;
pub use platforms::{gradescope, prairielearn};
pub use table::table;

/// The output formats of `cargo run -p grade`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    /// An aligned table for a terminal (the default).
    Table,
    /// The JSON report (`--json`), schema in the crate's README.
    Json,
    /// JUnit XML (`--junit`): one testcase per exercise, for CI systems.
    Junit,
    /// A Markdown comment for the student (`--markdown`).
    Markdown,
    /// Gradescope's autograder `results.json`.
    Gradescope,
    /// PrairieLearn's external grader `results.json`.
    Prairielearn,
}

impl Format {
    /// Every format, in the order `--format` lists them.
    pub const ALL: [Format; 6] = [
        Format::Table,
        Format::Json,
        Format::Junit,
        Format::Markdown,
        Format::Gradescope,
        Format::Prairielearn,
    ];

    /// The format's name on the command line (`--format json,junit`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Junit => "junit",
            Format::Markdown => "markdown",
            Format::Gradescope => "gradescope",
            Format::Prairielearn => "prairielearn",
        }
    }

    /// The file a run with `--out DIR` writes this format to, in a submission's folder.
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Table => "grade.txt",
            Format::Json => "grade.json",
            Format::Junit => "junit.xml",
            Format::Markdown => "feedback.md",
            Format::Gradescope => "results.json",
            Format::Prairielearn => "prairielearn.json",
        }
    }

    /// The format named `name`.
    pub fn parse(name: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == name.trim())
            .ok_or_else(|| {
                let known: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                format!("no format `{}` (known: {})", name.trim(), known.join(", "))
            })
    }
}

/// Renders `report` in `format`.
pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Table => table(report),
        Format::Json => json(report),
        Format::Junit => junit(report),
        Format::Markdown => markdown(report),
        Format::Gradescope => gradescope(report),
        Format::Prairielearn => prairielearn(report),
    }
}

/// What the student changed outside the answers (not built), and how the answers were
/// built, one line each, for every format.
fn answer_notes(report: &Report) -> Vec<String> {
    let mut lines: Vec<String> = report
        .ignored
        .iter()
        .map(|i| format!("ignored (not built, does not count): {}", i.describe()))
        .collect();
    if let Some(note) = &report.build_note {
        lines.push(format!("build: {note}"));
    }
    lines
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

/// The JSON report, pretty-printed, with a final newline. Schema: the crate's README.
pub fn json(report: &Report) -> String {
    let report = report.clone().printable();
    let mut s =
        serde_json::to_string_pretty(&report).expect("invariant: a report always serializes");
    s.push('\n');
    s
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
