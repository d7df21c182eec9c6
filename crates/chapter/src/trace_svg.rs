//! The pictures of a launch's trace ([`simt::trace::Trace`]): the access pattern of each
//! buffer (x = warp step, y = element, colour = warp) and a heatmap of atomic contention
//! (x = warp step with atomics, y = bin, colour = lanes on that bin in that step).
//!
//! The SVG is deterministic (no time, fixed number formatting) and bounded in size: big
//! launches are downsampled into at most [`MAX_COLUMNS`] × [`MAX_ROWS`] cells per panel.
//! It lives here, with the course, not in the emulator: the emulator records what ran,
//! the course decides how to show it.

use simt::trace::{AccessKind, Trace, TraceStep};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Most columns (warp steps, or buckets of them) a panel of [`render_svg`] draws.
pub const MAX_COLUMNS: u64 = 160;

/// Most rows (elements or bins, or buckets of them) a panel of [`render_svg`] draws.
pub const MAX_ROWS: u64 = 64;

/// Most buffers [`render_svg`] draws a panel for (in order of first use).
pub const MAX_PANELS: usize = 4;

/// One colour per warp of a 32-warp window: warp `w` of the grid is drawn in
/// `WARP_COLOURS[w % 32]`. The first eight are the Okabe-Ito palette (readable with
/// colour blindness: the two warps of a small block and their neighbours); the rest
/// continue around the hue circle at two lightnesses, so that no two warps of a
/// 1024-thread block share a colour.
pub const WARP_COLOURS: [&str; 32] = [
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000",
    "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666",
    "#8dd3c7", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5", "#bc80bd",
    "#084594", "#8c2d04", "#00441b", "#49006a", "#7f0000", "#003c30", "#543005", "#252525",
];

/// The heatmap's colours: lanes on one bin in one step, 1, 2-3, 4-7, 8-15, 16-31, 32+.
const HEAT: [(u64, &str); 6] = [
    (1, "#fee5d9"),
    (2, "#fcbba1"),
    (4, "#fc9272"),
    (8, "#fb6a4a"),
    (16, "#de2d26"),
    (32, "#a50f15"),
];

fn heat_colour(lanes: u64) -> &'static str {
    HEAT.iter()
        .rev()
        .find(|(min, _)| lanes >= *min)
        .map_or(HEAT[0].1, |(_, c)| c)
}

/// Maps `0..n` onto at most `max` buckets: `(buckets, items per bucket)`.
fn buckets(n: u64, max: u64) -> (u64, u64) {
    let n = n.max(1);
    let per = n.div_ceil(max);
    (n.div_ceil(per), per)
}

const LEFT: f64 = 70.0;
const PLOT_W: f64 = 640.0;
const PLOT_H: f64 = 160.0;
const PANEL_GAP: f64 = 60.0;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// One panel: a frame, a title, axis labels and the cells `(col, row) -> colour`.
#[allow(clippy::too_many_arguments)]
fn panel(
    out: &mut String,
    top: f64,
    title: &str,
    x_label: &str,
    y_label: &str,
    (x_first, x_last, y_last): (u64, u64, u64),
    cols: u64,
    rows: u64,
    cells: &BTreeMap<(u64, u64), &str>,
    marks: &BTreeSet<(u64, u64)>,
    past_end: &BTreeSet<(u64, u64)>,
) {
    let cw = PLOT_W / cols as f64;
    let rh = PLOT_H / rows as f64;
    // The title above the frame, wrapped to its width (about 7.5 px a character at 13 px
    // bold), its last line just above the frame.
    let lines = wrap_words(title, (PLOT_W / 7.5) as usize);
    for (k, line) in lines.iter().enumerate() {
        let _ = writeln!(
            out,
            r#"<text x="{LEFT:.1}" y="{:.1}" font-size="13" font-weight="bold">{}</text>"#,
            top - 8.0 - 15.0 * (lines.len() - 1 - k) as f64,
            escape(line)
        );
    }
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT:.1}" y="{top:.1}" width="{PLOT_W:.1}" height="{PLOT_H:.1}" fill="#f7f7f7" stroke="#999999"/>"##
    );
    for (&(c, r), colour) in cells {
        let _ = writeln!(
            out,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"/>"#,
            LEFT + c as f64 * cw,
            top + r as f64 * rh,
            cw,
            rh
        );
    }
    // Marked cells (lost updates): a red frame around the cell, at least 4 px wide.
    for &(c, r) in marks {
        let (w, h) = (cw.max(4.0), rh.max(4.0));
        let _ = writeln!(
            out,
            r##"<rect x="{:.1}" y="{:.1}" width="{w:.1}" height="{h:.1}" fill="none" stroke="#d7191c" stroke-width="1.5"/>"##,
            LEFT + c as f64 * cw + (cw - w) / 2.0,
            top + r as f64 * rh + (rh - h) / 2.0,
        );
    }
    // Accesses past the end of the buffer (the row below its last element): a dashed
    // black frame.
    for &(c, r) in past_end {
        let (w, h) = (cw.max(4.0), rh.max(4.0));
        let _ = writeln!(
            out,
            r##"<rect x="{:.1}" y="{:.1}" width="{w:.1}" height="{h:.1}" fill="none" stroke="#000000" stroke-width="1.5" stroke-dasharray="2,1"/>"##,
            LEFT + c as f64 * cw + (cw - w) / 2.0,
            top + r as f64 * rh + (rh - h) / 2.0,
        );
    }
    let bottom = top + PLOT_H;
    // The axes' ends: first and last step, element 0 (top) and the last element.
    let _ = writeln!(
        out,
        r#"<text x="{LEFT:.1}" y="{:.1}" font-size="10">{x_first}</text>"#,
        bottom + 12.0
    );
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" font-size="10" text-anchor="end">{x_last}</text>"#,
        LEFT + PLOT_W,
        bottom + 12.0
    );
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" font-size="10" text-anchor="end">0</text>"#,
        LEFT - 3.0,
        top + 9.0
    );
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" font-size="10" text-anchor="end">{y_last}</text>"#,
        LEFT - 3.0,
        bottom
    );
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="middle">{}</text>"#,
        LEFT + PLOT_W / 2.0,
        bottom + 14.0,
        escape(x_label)
    );
    // The axis label, turned, left of the widest tick label ("1048575" is 7 digits of
    // 0.64 em at 10 px), with a gap for the turned text's descent.
    let ticks = y_last.to_string().chars().count().max(1) as f64 * 6.4;
    let label_x = (LEFT - 3.0 - ticks - 6.0).clamp(12.0, LEFT - 30.0);
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="middle" transform="rotate(-90 {:.1} {:.1})">{}</text>"#,
        label_x,
        top + PLOT_H / 2.0,
        label_x,
        top + PLOT_H / 2.0,
        escape(y_label)
    );
}

/// Draws `trace` as one SVG document titled `title`: per buffer (at most
/// [`MAX_PANELS`]), the access pattern; then, per buffer that saw atomics, the heatmap
/// of atomic contention. Deterministic: the same trace gives the same bytes.
pub fn render_svg(trace: &Trace, title: &str) -> String {
    let wpb = trace.warps_per_block();
    let first = trace.steps.first().map_or(0, |s| s.step);
    let last = trace.steps.last().map_or(0, |s| s.step);
    let (cols, per_col) = buckets(last - first + 1, MAX_COLUMNS);
    let shown: Vec<usize> = (0..trace.buffers.len().min(MAX_PANELS)).collect();
    let atomic_buffers: Vec<usize> = shown
        .iter()
        .copied()
        .filter(|&b| {
            trace
                .steps
                .iter()
                .any(|s| s.buffer as usize == b && s.kind == AccessKind::Atomic)
        })
        .collect();
    let panels = shown.len() + atomic_buffers.len();
    let width = LEFT + PLOT_W + 30.0;
    let extra_title =
        18.0 * (wrap_words(title, ((width - LEFT - 10.0) / 8.5) as usize).len() as f64 - 1.0);
    let height = 70.0 + extra_title + panels as f64 * (PLOT_H + PANEL_GAP) + 40.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, sans-serif">"#
    );
    let _ = writeln!(
        out,
        r#"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="white"/>"#
    );
    // The title, wrapped to the drawing's width (about 8.5 px a character at 15 px bold).
    let title_lines = wrap_words(title, ((width - LEFT - 10.0) / 8.5) as usize);
    for (k, line) in title_lines.iter().enumerate() {
        let _ = writeln!(
            out,
            r#"<text x="{LEFT:.1}" y="{:.1}" font-size="15" font-weight="bold">{}</text>"#,
            22.0 + 18.0 * k as f64,
            escape(line)
        );
    }
    let title_bottom = 22.0 + 18.0 * (title_lines.len() as f64 - 1.0);
    let [gx, gy, gz] = trace.grid;
    let [bx, by, bz] = trace.block;
    // The x axis counts every warp step of the launch (those that touched no memory too):
    // say how many of the steps in its range touched memory, the cells drawn.
    let mut sub = format!(
        "grid ({gx},{gy},{gz}), block ({bx},{by},{bz}): warp steps {first} to {last} of the launch, \
         {} of them touched memory (drawn)",
        trace.steps.len()
    );
    if trace.dropped_steps > 0 {
        let _ = write!(sub, " (+{} not recorded)", trace.dropped_steps);
    }
    let _ = writeln!(
        out,
        r#"<text x="{LEFT:.1}" y="{:.1}" font-size="11">{}</text>"#,
        title_bottom + 18.0,
        escape(&sub)
    );
    let mut legend = String::from("colour = warp of the grid, 0 to 31, repeating: ");
    for (i, c) in WARP_COLOURS.iter().enumerate() {
        let _ = write!(legend, r#"<tspan fill="{c}">&#9632;</tspan>"#);
        if i % 8 == 7 && i < 31 {
            legend.push(' ');
        }
    }
    let _ = writeln!(
        out,
        r#"<text x="{LEFT:.1}" y="{:.1}" font-size="11">{legend}</text>"#,
        title_bottom + 34.0
    );
    let mut top = title_bottom + 70.0;
    for &b in &shown {
        let buf = trace.buffers[b];
        let (rows, per_row) = buckets(buf.len, MAX_ROWS);
        // An access at an index at or past the buffer's length (memcheck's fault, traced
        // before it stopped the launch) is drawn in a row of its own below the last
        // element, framed: never folded into the last element's row.
        let past: Vec<u64> = trace
            .steps
            .iter()
            .filter(|s| s.buffer as usize == b)
            .flat_map(|s| s.lanes.iter().map(|&(_, i)| i))
            .filter(|&i| i >= buf.len)
            .collect();
        let row_of = |index: u64| {
            if index >= buf.len {
                rows
            } else {
                (index / per_row).min(rows - 1)
            }
        };
        let mut past_cells: BTreeSet<(u64, u64)> = BTreeSet::new();
        let mut cells: BTreeMap<(u64, u64), &str> = BTreeMap::new();
        let mut kinds: Vec<AccessKind> = Vec::new();
        // Stores of one step by several lanes to one element: all but one are lost.
        let mut lost_cells: BTreeSet<(u64, u64)> = BTreeSet::new();
        let mut lost = 0u64;
        for s in trace.steps.iter().filter(|s| s.buffer as usize == b) {
            if !kinds.contains(&s.kind) {
                kinds.push(s.kind);
            }
            let col = (s.step - first) / per_col;
            let warp = s.block * wpb + s.warp as u64;
            let colour = WARP_COLOURS[(warp % 32) as usize];
            for &(_, index) in &s.lanes {
                // The first access to a cell keeps it: earlier warps stay visible.
                cells.entry((col, row_of(index))).or_insert(colour);
                if index >= buf.len {
                    past_cells.insert((col, rows));
                }
            }
            if s.kind == AccessKind::Store {
                let mut per_index: BTreeMap<u64, u64> = BTreeMap::new();
                for &(_, index) in &s.lanes {
                    *per_index.entry(index).or_default() += 1;
                }
                for (index, n) in per_index.into_iter().filter(|&(_, n)| n > 1) {
                    lost += n - 1;
                    lost_cells.insert((col, row_of(index)));
                }
            }
        }
        kinds.sort();
        let kinds: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        let mut title = format!("access pattern: {} ({})", buf.label(), kinds.join(", "));
        if lost > 0 {
            let _ = write!(
                title,
                "; red frames: {lost} updates lost (lanes of one warp storing to one bin in one step)"
            );
        }
        if let Some(&lowest) = past.iter().min() {
            let n = past.len();
            let _ = write!(
                title,
                "; dashed frames, in the row below the last element: {n} {} past the end (index {lowest}{}, the buffer has {} elements)",
                if n == 1 { "access" } else { "accesses" },
                if past.iter().any(|&i| i != lowest) {
                    " and above"
                } else {
                    ""
                },
                buf.len
            );
        }
        let x = format!("warp step of the launch{}", per_label(per_col, "steps"));
        // A buffer that lanes update together (atomics, or stores of several lanes to one
        // element) is a histogram: its rows are bins.
        let noun = if atomic_buffers.contains(&b) || lost > 0 {
            "bin"
        } else {
            "element"
        };
        let y = format!("{noun}{}", per_label(per_row, &format!("{noun}s")));
        let ends = (first, last, buf.len.saturating_sub(1));
        panel(
            &mut out,
            top,
            &title,
            &x,
            &y,
            ends,
            cols,
            rows + u64::from(!past.is_empty()),
            &cells,
            &lost_cells,
            &past_cells,
        );
        top += PLOT_H + PANEL_GAP;
    }
    for &b in &atomic_buffers {
        let buf = trace.buffers[b];
        let steps: Vec<&TraceStep> = trace
            .steps
            .iter()
            .filter(|s| s.buffer as usize == b && s.kind == AccessKind::Atomic)
            .collect();
        let (acols, per_acol) = buckets(steps.len() as u64, MAX_COLUMNS);
        let (rows, per_row) = buckets(buf.len, MAX_ROWS);
        // Per cell: the most lanes that hit one bin of the cell in one step.
        let mut most: BTreeMap<(u64, u64), u64> = BTreeMap::new();
        let mut worst = 0;
        for (i, s) in steps.iter().enumerate() {
            let mut per_bin: BTreeMap<u64, u64> = BTreeMap::new();
            for &(_, index) in &s.lanes {
                *per_bin.entry(index).or_default() += 1;
            }
            for (bin, n) in per_bin {
                worst = worst.max(n);
                let cell = most
                    .entry((i as u64 / per_acol, (bin / per_row).min(rows - 1)))
                    .or_default();
                *cell = (*cell).max(n);
            }
        }
        let cells: BTreeMap<(u64, u64), &str> =
            most.into_iter().map(|(k, n)| (k, heat_colour(n))).collect();
        let title = format!(
            "atomic contention: {} (most lanes on one bin in one step: {worst})",
            buf.label()
        );
        let x = format!(
            "warp step with atomics on it{}",
            per_label(per_acol, "steps")
        );
        let y = format!("bin{}", per_label(per_row, "bins"));
        let ends = (1, steps.len() as u64, buf.len.saturating_sub(1));
        panel(
            &mut out,
            top,
            &title,
            &x,
            &y,
            ends,
            acols,
            rows,
            &cells,
            &BTreeSet::new(),
            &BTreeSet::new(),
        );
        top += PLOT_H + PANEL_GAP;
    }
    if !atomic_buffers.is_empty() {
        let mut x = LEFT;
        let y = top - PANEL_GAP + 34.0;
        let _ = writeln!(
            out,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="11">lanes on one bin in one step:</text>"#
        );
        x += 170.0;
        for (i, (min, c)) in HEAT.iter().enumerate() {
            let label = match HEAT.get(i + 1) {
                Some((next, _)) if next - 1 == *min => format!("{min}"),
                Some((next, _)) => format!("{min}-{}", next - 1),
                None => format!("{min}+"),
            };
            let _ = writeln!(
                out,
                r##"<rect x="{x:.1}" y="{:.1}" width="12" height="12" fill="{c}" stroke="#999999"/><text x="{:.1}" y="{y:.1}" font-size="11">{label}</text>"##,
                y - 10.0,
                x + 15.0
            );
            x += 60.0;
        }
    }
    if trace.buffers.len() > MAX_PANELS {
        let _ = writeln!(
            out,
            r#"<text x="{LEFT:.1}" y="{:.1}" font-size="11">{} more buffers not drawn</text>"#,
            height - 8.0,
            trace.buffers.len() - MAX_PANELS
        );
    }
    out.push_str("</svg>\n");
    out
}

/// `text` in lines of at most `width` characters, broken at spaces (a longer word stays
/// whole on its own line).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// Several drawings ([`render_svg`]'s documents) side by side in one SVG document, left
/// to right, top-aligned: how a picture contrasts two kernels of one step.
pub fn side_by_side(parts: &[String]) -> String {
    let size = |svg: &str, attr: &str| -> f64 {
        let key = format!("{attr}=\"");
        svg.find(&key)
            .and_then(|i| svg[i + key.len()..].split('"').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0)
    };
    let width: f64 = parts.iter().map(|p| size(p, "width")).sum();
    let height = parts.iter().map(|p| size(p, "height")).fold(0.0, f64::max);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"DejaVu Sans, sans-serif\">\n<rect x=\"0\" y=\"0\" width=\"{width:.0}\" height=\"{height:.0}\" fill=\"white\"/>\n"
    );
    let mut x = 0.0;
    for p in parts {
        out.push_str(&p.replacen("<svg ", &format!("<svg x=\"{x:.0}\" y=\"0\" "), 1));
        x += size(p, "width");
    }
    out.push_str("</svg>\n");
    out
}

/// `" (1 column = 4 steps)"` when cells are buckets, else nothing.
fn per_label(per: u64, what: &str) -> String {
    if per > 1 {
        format!(" (1 cell = {per} {what})")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simt::Space;
    use simt::trace::TraceBuffer;

    /// An empty trace of a launch of one warp.
    fn one_warp() -> Trace {
        Trace {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            ..Trace::default()
        }
    }

    fn buf(len: u64) -> TraceBuffer {
        TraceBuffer {
            space: Space::Global,
            base: 256,
            elem_bytes: 4,
            len,
        }
    }

    #[test]
    fn big_traces_are_downsampled() {
        let mut t = one_warp();
        for i in 0..1000u64 {
            let lanes = (0..32).map(|l| (l as u8, (i * 32 + l) % 100_000)).collect();
            t.record(i + 1, 0, 0, AccessKind::Atomic, buf(100_000), 7, lanes);
        }
        let svg = render_svg(&t, "big");
        let cells = svg.matches("<rect").count() as u64;
        assert!(cells <= 2 * MAX_COLUMNS * MAX_ROWS + 20, "{cells} rects");
        assert!(svg.contains("1 cell = 7 steps"), "{svg}");
        assert_eq!(svg, render_svg(&t, "big"), "deterministic");
    }

    /// The subtitle counts what the x axis counts: 9.8's picture once said "152 warp
    /// steps" on an axis running to 232 (the axis counts every warp step of the launch,
    /// the subtitle only those that touched memory).
    #[test]
    fn the_subtitle_says_what_the_axis_counts() {
        let mut t = one_warp();
        for step in [3u64, 100, 232] {
            t.record(step, 0, 0, AccessKind::Load, buf(64), 7, vec![(0, 1)]);
        }
        let svg = render_svg(&t, "t");
        assert!(
            svg.contains("warp steps 3 to 232 of the launch, 3 of them touched memory"),
            "{svg}"
        );
        assert!(
            svg.contains(">232<"),
            "the axis ends at the last step: {svg}"
        );
        assert!(svg.contains("warp step of the launch"), "{svg}");
    }

    #[test]
    fn thirty_two_warps_have_thirty_two_colours() {
        let distinct: BTreeSet<&str> = WARP_COLOURS.iter().copied().collect();
        assert_eq!(distinct.len(), 32);
    }

    #[test]
    fn long_titles_wrap_inside_the_drawing() {
        let t = one_warp();
        let title = "9.6 histo_coarse_contiguous (C = 4) (reference kernels): 2048 elements, 32 bins: correct, and more words";
        let svg = render_svg(&t, title);
        let width = LEFT + PLOT_W + 30.0;
        let max_chars = ((width - LEFT - 10.0) / 8.5) as usize;
        let lines: Vec<&str> = svg
            .lines()
            .filter(|l| l.contains(r#"font-size="15""#))
            .collect();
        assert!(lines.len() >= 2, "{svg}");
        for l in &lines {
            let text = l
                .split('>')
                .nth(1)
                .unwrap_or("")
                .split('<')
                .next()
                .unwrap_or("");
            assert!(text.chars().count() <= max_chars, "{text}");
        }
    }

    #[test]
    fn lost_updates_are_framed_and_their_buffer_counts_bins() {
        let mut t = one_warp();
        // Lanes 0-3 store to bin 5 in one step: three updates lost.
        t.record(
            1,
            0,
            0,
            AccessKind::Store,
            buf(8),
            7,
            (0..4).map(|l| (l, 5)).collect(),
        );
        t.record(
            2,
            0,
            0,
            AccessKind::Store,
            buf(8),
            7,
            (0..4).map(|l| (l, l as u64)).collect(),
        );
        let svg = render_svg(&t, "lost");
        assert!(svg.contains("3 updates lost"), "{svg}");
        assert_eq!(svg.matches(r##"stroke="#d7191c""##).count(), 1, "{svg}");
        assert!(svg.contains(">bin</text>"), "{svg}");
        // Stores that never collide are elements, with no frame.
        let mut u = one_warp();
        u.record(
            1,
            0,
            0,
            AccessKind::Store,
            buf(8),
            7,
            (0..4).map(|l| (l, l as u64)).collect(),
        );
        let svg = render_svg(&u, "fine");
        assert!(
            !svg.contains("lost") && svg.contains(">element</text>"),
            "{svg}"
        );
    }

    /// An access past the end (5.1's unguarded threads) is drawn in a row of its own
    /// below the buffer, framed, and the title counts it; it once fell into the last
    /// element's row, unmarked.
    #[test]
    fn accesses_past_the_end_are_drawn_and_marked() {
        let mut t = one_warp();
        // Lanes 0-7 of 8 elements, then lanes 8-11 at indices 8 to 11: past the end.
        t.record(
            1,
            0,
            0,
            AccessKind::Load,
            buf(8),
            7,
            (0..12).map(|l| (l, l as u64)).collect(),
        );
        let svg = render_svg(&t, "oob");
        assert!(
            svg.contains("4 accesses past the end (index 8 and above, the buffer has 8 elements)"),
            "{svg}"
        );
        assert_eq!(svg.matches(r#"stroke-dasharray="2,1""#).count(), 1, "{svg}");
        // Nine rows: eight elements and the row past the end.
        let rh = PLOT_H / 9.0;
        assert!(svg.contains(&format!(r#"height="{rh:.1}""#)), "{svg}");
        // Within bounds: no frame, no row of its own.
        let mut u = one_warp();
        u.record(
            1,
            0,
            0,
            AccessKind::Load,
            buf(8),
            7,
            (0..8).map(|l| (l, l as u64)).collect(),
        );
        let svg = render_svg(&u, "fine");
        assert!(
            !svg.contains("past the end") && !svg.contains("dasharray"),
            "{svg}"
        );
    }

    #[test]
    fn side_by_side_puts_drawings_left_to_right() {
        let t = one_warp();
        let one = render_svg(&t, "a");
        let both = side_by_side(&[one.clone(), render_svg(&t, "b")]);
        let width = LEFT + PLOT_W + 30.0;
        assert!(
            both.starts_with(&format!(
                r#"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}""#,
                2.0 * width
            )),
            "{both}"
        );
        assert!(
            both.contains(&format!(r#"<svg x="{width:.0}" y="0" "#)),
            "{both}"
        );
        assert_eq!(both.matches("</svg>").count(), 3);
    }

    #[test]
    fn heat_levels() {
        assert_eq!(heat_colour(1), HEAT[0].1);
        assert_eq!(heat_colour(3), HEAT[1].1);
        assert_eq!(heat_colour(32), HEAT[5].1);
        assert_eq!(buckets(0, 10), (1, 1));
        assert_eq!(buckets(25, 10), (9, 3));
    }
}
