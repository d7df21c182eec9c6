//! The progression's text table: columns padded to their widest cell, and the notes
//! under it.
//!
//! Both chapters print their progression this way (`cargo run -p ch05`, `-p ch09`), and
//! the snapshot tests and the book quote the result, so the layout lives in one place:
//! a chapter chooses its columns and cells, this module lines them up.

use crate::row::Row;
use crate::timing::GpuTime;

/// A counter's cell: its value, or `-` where there is none (on a GPU, or for host code),
/// so that a missing counter is not mistaken for a zero.
pub fn opt(v: Option<u64>) -> String {
    v.map_or("-".to_string(), |v| v.to_string())
}

/// A GPU row's `ms` and `GB/s` cells (`-` for a row that did not run on the GPU): the
/// columns that replace the counters on a GPU, in both chapters' tables.
pub fn gpu_cells(gpu: Option<GpuTime>) -> [String; 2] {
    [
        gpu.map_or("-".into(), |g| format!("{:.3}", g.ms())),
        gpu.map_or("-".into(), |g| format!("{:.1}", g.gbps())),
    ]
}

/// `cells` (the head first, then one line a row) as lines of columns two spaces apart,
/// each column as wide as its widest cell: the first `left` columns (names, statuses)
/// left-aligned, the rest (numbers) right-aligned so that their digits line up. Trailing
/// spaces are trimmed, so that the text snapshots do not depend on them.
pub fn render(cells: &[Vec<String>], left: usize) -> String {
    let columns = cells.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            cells
                .iter()
                .map(|row| row[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in cells {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                if i < left {
                    format!("{cell:<w$}", w = widths[i])
                } else {
                    format!("{cell:>w$}", w = widths[i])
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// Keeps the columns of `cells` whose head is in `keep`, in the table's own order (every
/// column when `keep` is empty), and says how many of the first `left` (left-aligned)
/// columns remain: what `--columns` does, so that a quoted run shows the counters its
/// section discusses and fits a page.
pub fn keep_columns(
    cells: Vec<Vec<String>>,
    left: usize,
    keep: &[String],
) -> (Vec<Vec<String>>, usize) {
    if keep.is_empty() || cells.is_empty() {
        return (cells, left);
    }
    let kept: Vec<usize> = cells[0]
        .iter()
        .enumerate()
        .filter(|(_, head)| keep.iter().any(|k| k == *head))
        .map(|(i, _)| i)
        .collect();
    let left = kept.iter().filter(|&&i| i < left).count();
    let cells = cells
        .into_iter()
        .map(|row| kept.iter().map(|&i| row[i].clone()).collect())
        .collect();
    (cells, left)
}

/// Checks the names of `--columns` against the heads a chapter's table can have (on the
/// emulator and on a GPU): the error names the unknown one and lists the others.
pub fn check_columns(keep: &[String], heads: &[&[&str]]) -> Result<(), String> {
    for k in keep {
        if !heads.iter().any(|h| h.contains(&k.as_str())) {
            let mut known: Vec<&str> = Vec::new();
            for &head in heads.iter().flat_map(|h| h.iter()) {
                if !known.contains(&head) {
                    known.push(head);
                }
            }
            return Err(format!(
                "--columns: no column `{k}`; the table has {}",
                known.join(", ")
            ));
        }
    }
    Ok(())
}

/// The notes of `rows` (errors, races, why a step was skipped), one indented line each
/// after a `notes:` line; empty when no row has one. They come after the table because
/// they are too long for a column.
pub fn notes<E>(rows: &[Row<E>]) -> String {
    let mut out = String::new();
    for r in rows {
        if let Some(n) = &r.note {
            if out.is_empty() {
                out.push_str("notes:\n");
            }
            out.push_str(&wrap(
                &format!("  {} {}: {n}", r.step, r.kernel),
                NOTE_WIDTH,
            ));
        }
    }
    out
}

/// The width notes and headers wrap at, whole words: an 80-column terminal, and the book's
/// column, which quotes these runs (book/layout.py checks that they fit).
pub const NOTE_WIDTH: usize = 80;

/// Every line of `text` wrapped at `width` columns ([`NOTE_WIDTH`] for a table's header),
/// continuation lines indented; no trailing newline.
pub fn wrap_lines(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(&wrap(line, width));
    }
    out.truncate(out.trim_end_matches('\n').len());
    out
}

/// `line` wrapped at word boundaries to `width` columns, continuation lines indented
/// under the note's text; each line ends with a newline. A word longer than the width
/// (a path) stays whole on a line of its own rather than being cut.
fn wrap(line: &str, width: usize) -> String {
    let body = line.trim_start();
    let lead = &line[..line.len() - body.len()];
    let indent = format!("{lead}    ");
    let mut out = String::new();
    let mut current = lead.to_string();
    let mut empty = true;
    for word in body.split_whitespace() {
        if !empty && current.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&current);
            out.push('\n');
            current = indent.clone();
            empty = true;
        }
        if !empty {
            current.push(' ');
        }
        current.push_str(word);
        empty = false;
    }
    out.push_str(&current);
    out.push('\n');
    out
}

/// How a chapter lays out its progression's table: the heads on the emulator and on a
/// GPU, how many of the first columns are names (left-aligned), and a row's cells.
pub struct Layout<R> {
    /// The heads on the emulator (counters).
    pub emulator: &'static [&'static str],
    /// The heads on a GPU (each launch's `ms` and `GB/s` in place of the counters).
    pub gpu: &'static [&'static str],
    /// How many of the first columns are names: left-aligned.
    pub left: usize,
    /// A row's cells before its measures: step, kernel, status, sizes.
    pub lead: fn(&R) -> Vec<String>,
    /// A row's counters, on the emulator.
    pub counters: fn(&R) -> Vec<String>,
    /// A row's cells after its measures, on either device (chapter 9's lost updates).
    pub tail: fn(&R) -> Vec<String>,
}

/// A row's extra columns that name its launch as the table prints it
/// (`<<<grid, block>>>`), for [`launch_lead`].
pub trait Launched {
    /// The launch, as the table prints it.
    fn launch(&self) -> &str;
}

/// The lead cells of a chapter whose rows name their launch in their extra columns: step,
/// kernel, launch, status and n (chapters 5 and 10 lay their tables out this way).
pub fn launch_lead<E: Launched>(r: &Row<E>) -> Vec<String> {
    vec![
        r.step.to_string(),
        r.kernel.clone(),
        r.extra.launch().to_string(),
        r.status.clone(),
        r.n.to_string(),
    ]
}

impl<R> Layout<R> {
    /// Both devices' heads: what `--columns` may name.
    pub fn heads(&self) -> [&'static [&'static str]; 2] {
        [self.emulator, self.gpu]
    }
}

/// A chapter's progression as a table laid out by `layout`, one line per row: the
/// counters (on the emulator) or each launch's time and GB/s (on a GPU, where there are
/// none), only the columns `keep` names (all when empty), then, with `notes`, each row's
/// note.
pub fn progression<E>(
    layout: &Layout<Row<E>>,
    rows: &[Row<E>],
    notes: bool,
    keep: &[String],
) -> String {
    let on_gpu = rows.iter().any(|r| r.gpu.is_some());
    let head = if on_gpu { layout.gpu } else { layout.emulator };
    let mut cells: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        let mut line = (layout.lead)(r);
        if on_gpu {
            line.extend(gpu_cells(r.gpu));
        } else {
            line.extend((layout.counters)(r));
        }
        line.extend((layout.tail)(r));
        cells.push(line);
    }
    let (cells, left) = keep_columns(cells, layout.left, keep);
    let mut out = render(&cells, left);
    if notes {
        out.push_str(&self::notes(rows));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_wrap_at_words_and_keep_every_word() {
        let long = format!(
            "  9.2 histo_naive: {}",
            "conflict at solutions/src/ch09.rs:137:15: lanes 2, 4 stored ".repeat(4)
        );
        let wrapped = wrap(&long, NOTE_WIDTH);
        assert!(wrapped.lines().count() > 1, "{wrapped}");
        assert!(
            wrapped.lines().all(|l| l.chars().count() <= NOTE_WIDTH),
            "{wrapped}"
        );
        let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(words(&wrapped), words(&long), "nothing cut");
        assert!(
            wrapped.starts_with("  9.2 "),
            "the note's indent stays: {wrapped}"
        );
    }

    #[test]
    fn columns_line_up_and_lines_are_trimmed() {
        let cells = vec![
            vec!["step".to_string(), "n".to_string(), "note".to_string()],
            vec!["5.1".to_string(), "1024".to_string(), String::new()],
        ];
        assert_eq!(render(&cells, 1), "step     n  note\n5.1   1024\n");
        assert_eq!(opt(None), "-");
        assert_eq!(opt(Some(3)), "3");
    }

    #[test]
    fn columns_are_kept_by_head_in_the_tables_order() {
        let row = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cells = vec![
            row(&["step", "kernel", "n", "at.conf"]),
            row(&["9.7", "histo_aggregate", "262144", "20642"]),
        ];
        let keep = row(&["at.conf", "step"]);
        let (kept, left) = keep_columns(cells.clone(), 2, &keep);
        assert_eq!(
            kept,
            vec![row(&["step", "at.conf"]), row(&["9.7", "20642"])]
        );
        assert_eq!(left, 1, "one of the two left-aligned columns is kept");
        assert_eq!(keep_columns(cells.clone(), 2, &[]), (cells, 2));
        let heads: &[&[&str]] = &[&["step", "n"], &["step", "ms"]];
        assert!(check_columns(&row(&["step", "ms"]), heads).is_ok());
        let e = check_columns(&row(&["steps"]), heads).unwrap_err();
        assert!(e.contains("`steps`") && e.contains("step, n, ms"), "{e}");
    }
}
