//! The charts' phone variants: the same bars laid out for a phone's 335-px column, drawn
//! at that width (text of 11 px and more), so that a whole chart shows at 390 px without
//! scrolling sideways. The book shows them below 700 px (`<picture>`, `NAME-phone.svg`).
//!
//! A desktop chart's groups stand side by side; here they are stacked: a group is a line
//! of label and one horizontal bar per series, on one log axis drawn above the groups.

use crate::Group;
use crate::svg::{COLOURS, LogAxis, Svg, caption_lines, tick};

/// The width of a phone's column in the book (390-px screen).
pub const WIDTH: f64 = 335.0;
/// The left and right margins.
const MARGIN: f64 = 10.0;
/// Pixels a character of 11-px DejaVu Sans takes on average (the desktop charts' measure).
const CHAR_11: f64 = 6.2;
/// Pixels a character of the bold title takes, 14 px at 0.64 em.
const CHAR_TITLE: f64 = 14.0 * 0.64;

/// `text` in lines of at most `max` characters, broken at spaces.
pub(crate) fn lines(text: &str, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match out.last_mut() {
            Some(l) if l.len() + 1 + word.len() <= max => {
                l.push(' ');
                l.push_str(word);
            }
            _ => out.push(word.to_string()),
        }
    }
    out
}

/// The title's lines on a phone's width (14-px bold).
pub(crate) fn title_lines(title: &str) -> Vec<String> {
    lines(title, ((WIDTH - 2.0 * MARGIN) / CHAR_TITLE) as usize)
}

/// Where the title of `n` lines ends: the first free y below it.
pub(crate) fn below_title(n: usize) -> f64 {
    22.0 + 18.0 * (n.max(1) - 1) as f64 + 10.0
}

/// Draws the title's lines, centred.
pub(crate) fn draw_title(s: &mut Svg, lines: &[String]) {
    for (i, l) in lines.iter().enumerate() {
        s.text(
            WIDTH / 2.0,
            22.0 + 18.0 * i as f64,
            14.0,
            "middle",
            l,
            "bold",
        );
    }
}

/// The stacked form of a grouped bar chart (arguments as [`crate::bar_chart`]'s): `axis`
/// is the value range of the log axis, shared with the desktop chart.
// The desktop chart's arguments, passed on: grouping them would hide which is which.
#[allow(clippy::too_many_arguments)]
pub(crate) fn bar_chart(
    title: &str,
    x_label: &str,
    series: &[&str],
    groups: &[Group],
    hline: Option<&(f64, String)>,
    caption: &str,
    zero_label: bool,
    axis: (f64, f64),
) -> String {
    let (left, right) = (MARGIN + 4.0, WIDTH - MARGIN - 4.0);
    let title_lines = title_lines(title);
    let mut legend: Vec<(String, String)> = series
        .iter()
        .enumerate()
        .map(|(i, l)| (COLOURS[i].to_string(), l.to_string()))
        .collect();
    if let Some((v, label)) = hline {
        legend.push(("line:#D55E00|6,4".into(), format!("{label}: {v:.0} GB/s")));
    }
    let label_max = ((WIDTH - 2.0 * MARGIN) / CHAR_11) as usize;
    let group_labels: Vec<Vec<String>> = groups
        .iter()
        .map(|g| {
            let full = if g.label.1.is_empty() {
                g.label.0.clone()
            } else {
                format!("{} {}", g.label.0, g.label.1)
            };
            lines(&full, label_max)
        })
        .collect();
    let (bar, gap) = (8.0, 2.0);
    // The layout, top to bottom: title, legend, axis label and ticks, groups, caption.
    let mut y = below_title(title_lines.len());
    let legend_top = y;
    y += 17.0 * legend.len() as f64 + 8.0;
    let axis_label_y = y + 10.0;
    let ticks_y = axis_label_y + 16.0;
    let plot_top = ticks_y + 6.0;
    let mut group_tops = Vec::new();
    let mut yy = plot_top + 4.0;
    for (gi, g) in groups.iter().enumerate() {
        if g.reference && (gi == 0 || !groups[gi - 1].reference) {
            yy += 18.0;
        }
        group_tops.push(yy);
        yy += 14.0 * group_labels[gi].len() as f64 + (bar + gap) * series.len() as f64 + 8.0;
    }
    let plot_bottom = yy;
    let height =
        plot_bottom + 10.0 + caption_lines(WIDTH, caption, 11.0).len() as f64 * 14.0 + 14.0;
    let mut s = Svg::bare(WIDTH, height, title, WIDTH, 11.0);
    for (i, l) in title_lines.iter().enumerate() {
        s.text(
            WIDTH / 2.0,
            22.0 + 18.0 * i as f64,
            14.0,
            "middle",
            l,
            "bold",
        );
    }
    for (i, (colour, label)) in legend.iter().enumerate() {
        let ly = legend_top + 17.0 * i as f64;
        if let Some(dash) = colour.strip_prefix("line:") {
            let (c, d) = dash.split_once('|').unwrap_or((dash, ""));
            s.line(MARGIN, ly + 6.0, MARGIN + 16.0, ly + 6.0, c, 2.0, d);
        } else {
            s.rect(MARGIN, ly, 16.0, 12.0, colour, 1.0);
        }
        s.text(MARGIN + 21.0, ly + 10.5, 12.0, "start", label, "normal");
    }
    let a = LogAxis {
        lo: axis.0,
        hi: axis.1,
        p0: left,
        p1: right,
    };
    s.text(MARGIN, axis_label_y, 12.0, "start", x_label, "normal");
    for d in a.decades() {
        let x = a.at(d);
        s.line(x, plot_top, x, plot_bottom, "#dddddd", 1.0, "");
        s.text(x, ticks_y, 11.0, "middle", &tick(d), "normal");
    }
    s.line(left, plot_top, left, plot_bottom, "#333333", 1.0, "");
    for (gi, g) in groups.iter().enumerate() {
        let top = group_tops[gi];
        if g.reference && (gi == 0 || !groups[gi - 1].reference) {
            s.line(
                MARGIN,
                top - 14.0,
                WIDTH - MARGIN,
                top - 14.0,
                "#666666",
                1.0,
                "2,3",
            );
            s.text(
                WIDTH - MARGIN,
                top - 4.0,
                11.0,
                "end",
                "references",
                "normal",
            );
        }
        for (li, l) in group_labels[gi].iter().enumerate() {
            let weight = if li == 0 { "bold" } else { "normal" };
            s.text(
                left + 2.0,
                top + 10.0 + 14.0 * li as f64,
                11.0,
                "start",
                l,
                weight,
            );
        }
        let bars_top = top + 14.0 * group_labels[gi].len() as f64;
        for (si, v) in g.values.iter().enumerate() {
            let by = bars_top + (bar + gap) * si as f64;
            match v {
                Some((val, correct)) if *val > 0.0 => {
                    let x = a.at(*val);
                    s.rect(
                        left,
                        by,
                        x - left,
                        bar,
                        COLOURS[si],
                        if *correct { 1.0 } else { 0.35 },
                    );
                    if !correct {
                        s.text(x + 3.0, by + bar, 11.0, "start", "wrong", "normal");
                    }
                }
                Some(_) if zero_label => {
                    s.text(left + 3.0, by + bar, 11.0, "start", "0", "normal");
                }
                _ => {}
            }
        }
    }
    if let Some((v, _)) = hline {
        let x = a.at(*v);
        s.line(x, plot_top, x, plot_bottom, "#D55E00", 2.0, "6,4");
    }
    s.caption(caption);
    s.finish()
}
