//! `ch09-sizes.svg`: the size sweep (`ch09 bench --sizes`), how long the best kernel and
//! CUB take against the read kernel of the same run, from 1 MiB to 4095 MiB, for bytes
//! (9.9) and `u32` values into 4096 bins (`u32_vectors`).

use crate::Figure;
use crate::svg::{COLOURS, LogAxis, Svg, num, y_log_axis};
use ch09::bench::report::Row;
use ch09::bench::sizes::SizeSweep;
use std::path::{Path, PathBuf};

/// The two sweeps of one GPU session, parsed: the newest `sizes-u8-*.json` and
/// `sizes-u32-*.json` under `notes/` ([`load_sizes`]).
#[derive(Clone, Debug)]
pub struct Sweeps {
    /// The bytes' sweep (9.9).
    pub u8: SizeSweep,
    /// The `u32` sweep (9.14's kernels).
    pub u32: SizeSweep,
    /// The files' names, for the caption.
    pub sources: [String; 2],
}

/// The newest `sizes-u8-*.json` and `sizes-u32-*.json` of `notes` or of a folder in it
/// (a GPU session's folder, `notes/fastest-limit-2026-11-26/`), parsed: of each kind the
/// sweep whose first run is the latest by its header's date; `None` when either kind is
/// missing. By date, not by name: a session's folder carries the date, its files may not.
/// The book's pages (book/gen/gen.py, `newest_sweep`) pick the same files.
pub fn load_sizes(notes: &Path) -> Option<Result<Sweeps, String>> {
    let u8 = newest_sweep(notes, "sizes-u8-")?;
    let u32 = newest_sweep(notes, "sizes-u32-")?;
    Some((|| {
        let (u8_path, u8) = u8?;
        let (u32_path, u32) = u32?;
        let name = |p: &Path| {
            let rel = p.strip_prefix(notes).unwrap_or(p);
            format!("notes/{}", rel.to_string_lossy())
        };
        Ok(Sweeps {
            u8,
            u32,
            sources: [name(&u8_path), name(&u32_path)],
        })
    })())
}

/// Of the `PREFIX*.json` files of `notes` and of its folders (one level down), the sweep
/// whose first run's header has the latest `date_utc` (the path breaks a tie), parsed;
/// `None` when there is none, an error when one does not parse.
fn newest_sweep(notes: &Path, prefix: &str) -> Option<Result<(PathBuf, SizeSweep), String>> {
    let named = |p: &Path| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        name.starts_with(prefix) && name.ends_with(".json")
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(notes).ok()?.filter_map(|e| e.ok()) {
        let path = entry.path();
        if path.is_dir() {
            if let Ok(inner) = std::fs::read_dir(&path) {
                found.extend(
                    inner
                        .filter_map(|e| e.ok())
                        .map(|e| e.path())
                        .filter(|p| named(p)),
                );
            }
        } else if named(&path) {
            found.push(path);
        }
    }
    if found.is_empty() {
        return None;
    }
    let mut parsed = Vec::new();
    for p in found {
        let text = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            Err(e) => return Some(Err(format!("cannot read {}: {e}", p.display()))),
        };
        let sweep: SizeSweep = match serde_json::from_str(&text) {
            Ok(s) => s,
            Err(e) => return Some(Err(format!("{}: {e}", p.display()))),
        };
        let date = sweep
            .runs
            .first()
            .map(|r| r.report.header.date_utc.clone())
            .unwrap_or_default();
        parsed.push((date, p, sweep));
    }
    parsed.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    parsed.pop().map(|(_, p, s)| Ok((p, s)))
}

/// Per size of a sweep: (MiB, best GPU step over the read kernel, CUB over the read
/// kernel), uniform input, correct rows only.
pub fn ratios(sweep: &SizeSweep) -> Result<Vec<(f64, f64, f64)>, String> {
    if sweep.runs.is_empty() {
        return Err("a sizes.json without runs".into());
    }
    let mut out = Vec::new();
    for run in &sweep.runs {
        let mib = run.bytes as f64 / (1u64 << 20) as f64;
        let rows: Vec<&Row> = run
            .report
            .rows
            .iter()
            .filter(|r| r.input == "uniform" && r.correct)
            .collect();
        let fastest = |pick: &dyn Fn(&Row) -> bool| {
            rows.iter()
                .filter(|r| pick(r))
                .filter_map(|r| r.rate.median_ms)
                .min_by(f64::total_cmp)
                .ok_or_else(|| format!("no row for it at {mib} MiB"))
        };
        let read = fastest(&|r| r.implementation.starts_with("read_bandwidth"))?;
        let best = fastest(&|r| r.step.starts_with("9."))?;
        let cub = fastest(&|r| r.step == "cub")?;
        out.push((mib, best / read, cub / read));
    }
    Ok(out)
}

/// The figure: four lines over the sizes (log scale both ways).
pub fn sizes_figure(s: &Sweeps) -> Result<Figure, String> {
    let (u8, u32) = (ratios(&s.u8)?, ratios(&s.u32)?);
    let h = &s.u8.runs[0].report.header;
    let title = format!(
        "Chapter 9 on the {}: time against the read kernel, by input size",
        h.gpu
    );
    let caption = format!(
        "{}, driver {}, CUDA {}, {} ({}, {}; uniform input; each point: a kernel's median launch time over the read kernel's in the same run)",
        h.gpu,
        h.driver_version,
        h.cuda_version,
        h.date_utc.chars().take(10).collect::<String>(),
        s.sources[0],
        s.sources[1]
    );
    Ok(Figure {
        name: "ch09-sizes.svg",
        svg: draw(&title, &caption, &u8, &u32, false),
        phone: Some(draw(&title, &caption, &u8, &u32, true)),
    })
}

/// The figure at 800 px, or on a phone's width ([`crate::phone`]): a wrapped title, one
/// legend entry a line, short size labels.
fn draw(
    title: &str,
    caption: &str,
    u8: &[(f64, f64, f64)],
    u32: &[(f64, f64, f64)],
    phone: bool,
) -> String {
    let title_lines = crate::phone::title_lines(title);
    let (w, left, head) = if phone {
        (
            crate::phone::WIDTH,
            62.0,
            crate::phone::below_title(title_lines.len()) + 17.0 * 4.0 + 10.0,
        )
    } else {
        (800.0, 80.0, 84.0)
    };
    let (right, top, plot) = (w - 30.0, head, if phone { 260.0 } else { 330.0 });
    let bottom = top + plot;
    let h = bottom + 50.0 + Svg::caption_height(w, caption);
    let mut svg = if phone {
        let mut s = Svg::bare(w, h, title, w, 11.0);
        crate::phone::draw_title(&mut s, &title_lines);
        s
    } else {
        Svg::new(w, h, title)
    };
    let a = LogAxis {
        lo: 0.8,
        hi: 12.0,
        p0: bottom,
        p1: top,
    };
    y_log_axis(
        &mut svg,
        &a,
        &[1.0, 2.0, 4.0, 10.0],
        left,
        right,
        "time / read kernel's (log scale)",
    );
    let (lo, hi) = (0.0f64, 12.0f64); // log2 of 1 MiB and 4096 MiB
    let x_at = |mib: f64| left + (right - left) * (mib.log2() - lo) / (hi - lo);
    for &(mib, _, _) in u8 {
        let x = x_at(mib);
        svg.line(x, bottom, x, bottom + 4.0, "#333333", 1.0, "");
        let (gib, unit) = if phone { ("G", "M") } else { (" GiB", " MiB") };
        let label = if mib >= 1024.0 && mib % 1024.0 == 0.0 {
            format!("{}{gib}", num(mib / 1024.0))
        } else {
            format!("{}{unit}", num(mib))
        };
        svg.text(x, bottom + 17.0, 11.0, "middle", &label, "normal");
    }
    svg.text(
        (left + right) / 2.0,
        bottom + 36.0,
        12.0,
        "middle",
        "input size (log scale)",
        "normal",
    );
    let series = [
        ("9.9 histo_fastest, u8", u8, 0usize, false),
        ("u32_vectors, u32 into 4096 bins", u32, 1, false),
        ("CUB, u8", u8, 2, true),
        ("CUB, u32", u32, 3, true),
    ];
    let mut legend = Vec::new();
    for (label, points, colour, cub) in series {
        let c = COLOURS[colour];
        let pts: Vec<(f64, f64)> = points
            .iter()
            .map(|&(mib, best, cub_r)| (x_at(mib), a.at(if cub { cub_r } else { best })))
            .collect();
        svg.polyline(&pts, c, 2.0);
        for &(x, y) in &pts {
            svg.dot(x, y, 3.0, c);
        }
        legend.push((c.to_string(), label.to_string()));
    }
    if phone {
        let y0 = crate::phone::below_title(title_lines.len());
        for (i, entry) in legend.iter().enumerate() {
            svg.legend(10.0, y0 + 17.0 * i as f64, std::slice::from_ref(entry));
        }
    } else {
        svg.legend(left, 38.0, &legend[..2]);
        svg.legend(left, 58.0, &legend[2..]);
    }
    svg.caption(caption);
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    use ch09::bench::report::Report;
    use ch09::bench::sizes::SizeRun;

    fn run(bytes: u64, rows: &[(&str, &str, f64, bool)]) -> SizeRun {
        let rows = rows
            .iter()
            .map(|&(imp, step, ms, correct)| {
                let row = Row::new(imp, step, "uniform", "u8", 256, bytes);
                if correct {
                    row.measured(ms, 5)
                } else {
                    row.failed("wrong bins")
                }
            })
            .collect();
        SizeRun {
            bytes,
            report: Report {
                rows,
                ..Report::default()
            },
        }
    }

    #[test]
    fn ratios_take_the_fastest_correct_rows_of_each_kind() {
        let sweep = SizeSweep {
            runs: vec![
                run(
                    1 << 20,
                    &[
                        ("read_bandwidth (16-byte loads)", "ref", 0.005, true),
                        ("histo_fastest", "9.9", 0.010, true),
                        ("broken", "9.9", 0.001, false),
                        ("cub::DeviceHistogram::HistogramEven", "cub", 0.020, true),
                    ],
                ),
                run(
                    4 << 20,
                    &[
                        ("read_bandwidth (16-byte loads)", "ref", 0.010, true),
                        ("u32_vectors", "9.14", 0.015, true),
                        ("histo_u32_shared", "9.14", 0.030, true),
                        ("cub::DeviceHistogram::HistogramEven", "cub", 0.040, true),
                    ],
                ),
            ],
        };
        assert_eq!(
            ratios(&sweep).unwrap(),
            vec![(1.0, 2.0, 4.0), (4.0, 1.5, 4.0)]
        );
        let no_cub = SizeSweep {
            runs: vec![run(
                1 << 20,
                &[
                    ("read_bandwidth (16-byte loads)", "ref", 0.005, true),
                    ("histo_fastest", "9.9", 0.010, true),
                ],
            )],
        };
        assert!(ratios(&no_cub).is_err());
        assert!(ratios(&SizeSweep::default()).is_err());
    }
}
