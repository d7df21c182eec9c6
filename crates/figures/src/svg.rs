//! A minimal SVG writer: a chart frame, log axes, bars, lines and text. Every number is
//! printed with a fixed precision, so that the same inputs give byte-identical files.

use std::fmt::Write;

/// Series colours (colour-blind safe, Okabe-Ito).
pub const COLOURS: [&str; 6] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
];

/// Escapes `s` for SVG text.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A number with one decimal, without a trailing `.0`.
pub fn num(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// An SVG document under construction.
pub struct Svg {
    /// The markup so far.
    pub body: String,
    /// Width, pixels.
    pub width: f64,
    /// Height, pixels.
    pub height: f64,
    /// The caption's font size, pixels (11 unless the figure is shown smaller than drawn).
    pub caption_size: f64,
}

impl Svg {
    /// A document of `width` x `height` with a white background and a `title`.
    pub fn new(width: f64, height: f64, title: &str) -> Self {
        Self::shown(width, height, title, width, 11.0)
    }

    /// A document drawn in a `width` x `height` box but `shown` pixels wide (its `width`
    /// attribute; the viewBox keeps the drawing's coordinates), so that it fits a phone's
    /// column whole; its caption is `caption_size` px in the drawing's coordinates.
    pub fn shown(width: f64, height: f64, title: &str, shown: f64, caption_size: f64) -> Self {
        let mut s = Self::bare(width, height, title, shown, caption_size);
        s.text(
            width / 2.0,
            24.0,
            title_size(width, title),
            "middle",
            title,
            "bold",
        );
        s
    }

    /// [`Svg::shown`] without the title drawn: a figure that lays its title out itself
    /// (in lines, on a phone's width) draws it.
    pub fn bare(width: f64, height: f64, title: &str, shown: f64, caption_size: f64) -> Self {
        let mut s = Svg {
            body: String::new(),
            width,
            height,
            caption_size,
        };
        let _ = write!(
            s.body,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{sw}\" height=\"{sh}\" viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, sans-serif\">\n<title>{t}</title>\n<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n",
            sw = num(shown),
            sh = num(height * shown / width),
            w = num(width),
            h = num(height),
            t = esc(title)
        );
        s
    }

    /// A text at (`x`, `y`), `anchor` start/middle/end, `weight` normal/bold.
    pub fn text(&mut self, x: f64, y: f64, size: f64, anchor: &str, t: &str, weight: &str) {
        let _ = writeln!(
            self.body,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{anchor}\" font-weight=\"{weight}\">{}</text>",
            num(x),
            num(y),
            num(size),
            esc(t)
        );
    }

    /// A text rotated by `deg` degrees about its anchor point.
    pub fn text_rotated(&mut self, x: f64, y: f64, size: f64, anchor: &str, deg: f64, t: &str) {
        let _ = writeln!(
            self.body,
            "<text x=\"{x}\" y=\"{y}\" font-size=\"{}\" text-anchor=\"{anchor}\" transform=\"rotate({} {x} {y})\">{}</text>",
            num(size),
            num(deg),
            esc(t),
            x = num(x),
            y = num(y),
        );
    }

    /// A line; `dash` is an SVG dash array or empty.
    // Two points, a stroke and a dash: grouping them would only hide the SVG attributes.
    #[allow(clippy::too_many_arguments)]
    pub fn line(
        &mut self,
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        stroke: &str,
        width: f64,
        dash: &str,
    ) {
        let dash = if dash.is_empty() {
            String::new()
        } else {
            format!(" stroke-dasharray=\"{dash}\"")
        };
        let _ = writeln!(
            self.body,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"{}\"{dash}/>",
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            num(width)
        );
    }

    /// A filled rectangle.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, opacity: f64) {
        let _ = writeln!(
            self.body,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" fill-opacity=\"{}\"/>",
            num(x),
            num(y),
            num(w.max(0.0)),
            num(h.max(0.0)),
            num(opacity)
        );
    }

    /// A polyline through `points`.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, width: f64) {
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{},{}", num(*x), num(*y)))
            .collect();
        let _ = writeln!(
            self.body,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{}\"/>",
            pts.join(" "),
            num(width)
        );
    }

    /// A small circle.
    pub fn dot(&mut self, x: f64, y: f64, r: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\"/>",
            num(x),
            num(y),
            num(r)
        );
    }

    /// A legend in one row starting at (`x`, `y`): a swatch and a label per entry. A
    /// colour `line:C|DASH` draws a line of colour `C` and dash array `DASH` instead.
    pub fn legend(&mut self, x: f64, y: f64, entries: &[(String, String)]) {
        let mut xx = x;
        for (colour, label) in entries {
            if let Some(dash) = colour.strip_prefix("line:") {
                let (c, d) = dash.split_once('|').unwrap_or((dash, ""));
                self.line(xx, y + 6.0, xx + 16.0, y + 6.0, c, 2.0, d);
            } else {
                self.rect(xx, y, 16.0, 12.0, colour, 1.0);
            }
            self.text(xx + 21.0, y + 10.5, 12.0, "start", label, "normal");
            xx += 21.0 + 6.6 * label.len() as f64 + 18.0;
        }
    }

    /// The caption at the bottom, wrapped at word boundaries to the figure's width
    /// (about 6 px per character at 11 px), last line 10 px above the bottom edge.
    pub fn caption(&mut self, t: &str) {
        let size = self.caption_size;
        let lines = caption_lines(self.width, t, size);
        let n = lines.len();
        let step = 14.0 * size / 11.0;
        for (i, l) in lines.iter().enumerate() {
            let y = self.height - 10.0 - step * (n - 1 - i) as f64;
            self.text(10.0, y, size, "start", l, "normal");
        }
    }

    /// The height the caption `t` takes at the bottom of a figure `width` wide: its
    /// lines, 14 px apart, and the margins around them; a figure adds it to its height
    /// so that nothing above runs into the caption.
    pub fn caption_height(width: f64, t: &str) -> f64 {
        Self::caption_height_at(width, t, 11.0)
    }

    /// [`Svg::caption_height`] for a caption of `size` px.
    pub fn caption_height_at(width: f64, t: &str, size: f64) -> f64 {
        caption_lines(width, t, size).len() as f64 * 14.0 * size / 11.0 + 14.0
    }

    /// The finished document.
    pub fn finish(mut self) -> String {
        self.body.push_str("</svg>\n");
        self.body
    }
}

/// Ems a character of bold DejaVu Sans, the sans-serif the figures are measured in, takes
/// on average in the figures' titles, with a margin: the title of the `u8` throughput
/// figure, 87 characters, measured 0.609 em per character in Chromium.
const TITLE_EM_PER_CHAR: f64 = 0.64;

/// The title's font size: 16 px, or less when that would not fit the figure's width with
/// 10 px on each side (a long GPU name makes a long title).
pub fn title_size(width: f64, title: &str) -> f64 {
    let chars = title.chars().count().max(1) as f64;
    let fits = (width - 20.0) / (chars * TITLE_EM_PER_CHAR);
    // Rounded down to a tenth, as the SVG prints it.
    (fits.min(16.0) * 10.0).floor() / 10.0
}

/// The caption `t` in lines that fit a figure `width` wide at `size` px (about 6 px per
/// character at 11 px), broken at spaces.
pub fn caption_lines(width: f64, t: &str, size: f64) -> Vec<String> {
    let max = ((width - 20.0) / (6.0 * size / 11.0)) as usize;
    let mut lines: Vec<String> = Vec::new();
    for word in t.split(' ') {
        match lines.last_mut() {
            Some(l) if l.len() + 1 + word.len() <= max => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A logarithmic axis from `lo` to `hi` (both > 0) mapped to pixels `p0` (at `lo`) to
/// `p1` (at `hi`).
#[derive(Clone, Copy, Debug)]
pub struct LogAxis {
    /// Lowest value.
    pub lo: f64,
    /// Highest value.
    pub hi: f64,
    /// Pixel of `lo`.
    pub p0: f64,
    /// Pixel of `hi`.
    pub p1: f64,
}

impl LogAxis {
    /// The pixel of `v` (clamped into the axis).
    pub fn at(&self, v: f64) -> f64 {
        let v = v.clamp(self.lo, self.hi);
        let t = (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln());
        self.p0 + t * (self.p1 - self.p0)
    }

    /// Decades `10^k` between `lo` and `hi`.
    pub fn decades(&self) -> Vec<f64> {
        let mut out = Vec::new();
        let mut d = 10f64.powf(self.lo.log10().ceil());
        while d <= self.hi * 1.000_001 {
            out.push(d);
            d *= 10.0;
        }
        out
    }

    /// The decade at or below `v`, and the one at or above `v`.
    pub fn decade_bounds(lo: f64, hi: f64) -> (f64, f64) {
        (
            10f64.powf(lo.max(1e-9).log10().floor()),
            10f64.powf(hi.max(1e-9).log10().ceil()),
        )
    }
}

/// A tick label: `1`, `10`, ..., `10k`, `1M`.
pub fn tick(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", num(v / 1e6))
    } else if v >= 1e3 {
        format!("{}k", num(v / 1e3))
    } else if v >= 1.0 {
        num(v)
    } else {
        format!("{v}")
    }
}

/// Draws a vertical log axis at `x` with decade grid lines across to `x_end` and the
/// axis `label`.
pub fn y_log_axis(s: &mut Svg, a: &LogAxis, ticks: &[f64], x: f64, x_end: f64, label: &str) {
    for &t in ticks {
        let y = a.at(t);
        s.line(x, y, x_end, y, "#dddddd", 1.0, "");
        s.line(x - 4.0, y, x, y, "#333333", 1.0, "");
        s.text(x - 6.0, y + 4.0, 11.0, "end", &tick(t), "normal");
    }
    s.line(x, a.p0, x, a.p1, "#333333", 1.0, "");
    s.line(x, a.p0, x_end, a.p0, "#333333", 1.0, "");
    let mid = (a.p0 + a.p1) / 2.0;
    s.text_rotated(x - 48.0, mid, 12.0, "middle", -90.0, label);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_title_shrinks_to_the_width_and_a_short_one_does_not() {
        let short = "Chapter 5: warps";
        assert_eq!(title_size(800.0, short), 16.0);
        let long = "Chapter 9 on the NVIDIA H100 80GB HBM3: throughput per step and input, u8 input, 256 bins";
        let size = title_size(800.0, long);
        assert!(size < 16.0, "{size}");
        // At the width bold DejaVu Sans measured in Chromium (0.609 em a character), it
        // fits with 10 px to spare on each side.
        let rendered = long.chars().count() as f64 * 0.609 * size;
        assert!(rendered <= 780.0, "{rendered}");
    }
}
