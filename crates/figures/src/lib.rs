//! # The book's figures
//!
//! `cargo run -p figures` writes the SVG figures of `book/src/figures/` from two sources:
//!
//! - the GPU bench's JSON (`notes/bench-*.json`, written by `cargo run -p ch09 --release
//!   --features cuda -- bench`): throughput per step and input against the measured read
//!   bandwidth, CUB, PyTorch and the best CPU implementation ([`gpu_figures`]);
//! - the emulator, through the `ch09` library ([`ch09::progression::run`]): atomics per
//!   step and the contention per bin of 9.3's global atomics ([`emulator_figures`]);
//! - the emulator's trace of one launch of 9.3 ([`trace_figure`]);
//! - the emulator's traces and counters of chapter 10's mechanisms, the reduction tree in
//!   its three orderings, the coarsened tree and `shfl.down` ([`reduction`]);
//! - the emulator, through the `ch05` library ([`ch05::progression::run`]): warp
//!   instructions and divergent steps of 5.4's branches, and requests and atomics of 5.6's
//!   four histogram kernels ([`ch05_figures`]).
//!
//! The SVG is written by hand ([`svg`]) with fixed number formatting: the same inputs
//! give byte-identical files, and the crate's test checks that the committed figures are
//! up to date.

#![deny(missing_docs)]

pub mod mechanisms;
pub mod phone;
pub mod reduction;
pub mod sizes;
pub mod svg;

use ch09::inputs::{self, InputKind};
use ch09::kernels::REFERENCE;
use ch09::progression::{self, Params, Row};
use gpu_host::Device;
use std::path::{Path, PathBuf};
use svg::{COLOURS, LogAxis, Svg, num, y_log_axis};

/// One generated figure: its file name under `book/src/figures/` and its SVG text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    /// File name, `ch09-throughput-u8.svg`.
    pub name: &'static str,
    /// The SVG document.
    pub svg: String,
    /// A chart's phone variant ([`phone`]), written beside it as `NAME-phone.svg`.
    pub phone: Option<String>,
}

impl Figure {
    /// The file name of the phone variant: `ch09-throughput-u8-phone.svg`.
    pub fn phone_name(&self) -> String {
        format!("{}-phone.svg", self.name.trim_end_matches(".svg"))
    }
}

/// The repository root, found at run time ([`course_root::course_root`]); the current
/// folder when no course is found (every file read from it is then missing, and says so).
pub fn repo_root() -> PathBuf {
    course_root::course_root().unwrap_or_else(|_| PathBuf::from("."))
}

/// The folder the figures are written to, relative to the repository root.
pub const FIGURES_DIR: &str = "book/src/figures";

/// The newest `bench-*.json` of `notes` (by name: the names carry the date).
pub fn newest_bench(notes: &Path) -> Option<PathBuf> {
    newest_named(notes, "bench-")
}

/// The newest `extensions-*.json` of `notes`: the extension sweep (`bench --extensions`),
/// whose `u32` rows at several bin counts make the strategy figure.
pub fn newest_extensions(notes: &Path) -> Option<PathBuf> {
    newest_named(notes, "extensions-")
}

/// The last, by name, of the `PREFIX*.json` files of `notes`.
pub(crate) fn newest_named(notes: &Path, prefix: &str) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(notes)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with(prefix) && name.ends_with(".json")
        })
        .collect();
    found.sort();
    found.pop()
}

/// One row of the bench (see `crates/bench/src/report.rs` for the schema).
#[derive(Clone, Debug, PartialEq)]
pub struct BenchRow {
    /// The implementation: a kernel name, `cub::...`, `torch.bincount`, `cpu ...`.
    pub implementation: String,
    /// `"9.3"`, ..., or `ref`, `cub`, `torch`, `cpu`.
    pub step: String,
    /// The input: `uniform`, `one-value`, `90pct-one-value`, `text`.
    pub input: String,
    /// `u8` or `u32`.
    pub dtype: String,
    /// Bins of the histogram.
    pub bins: u32,
    /// Input bytes per second, 10^9.
    pub gbps: f64,
    /// Whether the bins were right.
    pub correct: bool,
    /// Bytes of input.
    pub bytes: u64,
}

/// The bench's JSON: what the captions name, and the rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Bench {
    /// The GPU's name.
    pub gpu: String,
    /// The driver version.
    pub driver: String,
    /// The CUDA version.
    pub cuda: String,
    /// The date of the run, `YYYY-MM-DD`.
    pub date: String,
    /// The speed of the run's read kernel (16-byte loads, counting nothing), GB/s: the
    /// ceiling the figures draw.
    pub read_bw_gbps: f64,
    /// The host the CPU rows ran on, as the bench's header names it (model and hardware
    /// threads), so that a figure's "best CPU" says which CPU; empty when the header has
    /// none.
    pub host_cpu: String,
    /// The file the bench was read from (its name only, for the caption).
    pub source: String,
    /// The rows.
    pub rows: Vec<BenchRow>,
}

/// Whether `s` looks like a driver version (`580.159.04`).
fn is_version(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_digit()) && s.contains('.')
}

/// The driver of `gpu` as `notes/gpu-runs.md` records it: the first heading line that
/// names the GPU and `driver X`.
pub fn driver_from_notes(notes: &str, gpu: &str) -> Option<String> {
    notes
        .lines()
        .filter(|l| l.starts_with('#') && l.contains(gpu))
        .find_map(|l| {
            let after = l.split("driver ").nth(1)?;
            let v = after.split([',', ' ']).next()?.trim();
            is_version(v).then(|| v.to_string())
        })
}

/// Parses the bench JSON `text` into the bench's own report type
/// (`ch09::bench::report::Report`: a field missing or renamed is an error, not a zero).
/// The driver is `driver` when given, else the header's
/// `driver_version` when it is a version, else the one `gpu_runs` (the text of
/// `notes/gpu-runs.md`) records for the GPU.
pub fn parse_bench(
    text: &str,
    source: &str,
    driver: Option<&str>,
    gpu_runs: Option<&str>,
) -> Result<Bench, String> {
    let report: ch09::bench::report::Report =
        serde_json::from_str(text).map_err(|e| format!("{source}: {e}"))?;
    let h = report.header;
    let gpu = h.gpu;
    let header_driver = h.driver_version;
    let driver = match driver {
        Some(d) => d.to_string(),
        None if is_version(&header_driver) => header_driver,
        None => gpu_runs
            .and_then(|n| driver_from_notes(n, &gpu))
            .ok_or_else(|| {
                format!(
                    "{source}: the header's driver_version is {header_driver:?} and notes/gpu-runs.md does not name the driver of {gpu}: pass --driver"
                )
            })?,
    };
    // The read kernel's speed where the header has it: `read_bw_gbps` is the faster of it
    // and a copy, and the book holds the kernels against the read kernel.
    let read_bw_gbps = h.read_kernel_gbps.or(h.read_bw_gbps).ok_or_else(|| {
        format!("{source}: the header has no read bandwidth (read_kernel_gbps, read_bw_gbps)")
    })?;
    let rows = report
        .rows
        .into_iter()
        .map(|r| BenchRow {
            implementation: r.implementation,
            step: r.step,
            input: r.input,
            dtype: r.dtype,
            bins: r.bins,
            // A row without a time (a failed or wrong run) has no bar.
            gbps: r.rate.gbps.unwrap_or(0.0),
            correct: r.correct,
            bytes: r.rate.bytes,
        })
        .collect();
    Ok(Bench {
        gpu,
        driver,
        cuda: h.cuda_version,
        date: h.date_utc.chars().take(10).collect(),
        read_bw_gbps,
        host_cpu: match (h.host_cpu, h.host_threads) {
            (cpu, _) if cpu.is_empty() => String::new(),
            (cpu, 0) => cpu,
            (cpu, t) => format!("{cpu}, {t} threads"),
        },
        source: source.to_string(),
        rows,
    })
}

/// Reads the bench JSON at `path` (the driver as in [`parse_bench`], `gpu-runs.md` from
/// the same folder).
pub fn load_bench(path: &Path, driver: Option<&str>) -> Result<Bench, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let runs = path
        .parent()
        .and_then(|d| std::fs::read_to_string(d.join("gpu-runs.md")).ok());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut bench = parse_bench(&text, &format!("notes/{name}"), driver, runs.as_deref())?;
    if let Some(notes) = path.parent() {
        bench.host_cpu = named_by_model(&bench.host_cpu, notes);
    }
    Ok(bench)
}

/// `host_cpu` with the CPU's family and model added when the bench names it only by a
/// generic CPUID string (`Intel(R) Xeon(R) Processor`, as cloud hosts report): from the
/// `lscpu` output kept under `notes` whose model name is that string, with its file, when
/// every such file agrees; `host_cpu` unchanged otherwise.
pub fn named_by_model(host_cpu: &str, notes: &Path) -> String {
    let (name, rest) = host_cpu.split_once(", ").unwrap_or((host_cpu, ""));
    if name.is_empty() || name.contains("family") {
        return host_cpu.to_string();
    }
    let mut found: Vec<(String, String, PathBuf)> = Vec::new();
    let mut files = lscpu_files(notes);
    files.sort();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
                .map(|v| v.trim().to_string())
        };
        if field("Model name").as_deref() == Some(name)
            && let (Some(family), Some(model)) = (field("CPU family"), field("Model"))
        {
            found.push((family, model, file));
        }
    }
    let Some((family, model, file)) = found.first() else {
        return host_cpu.to_string();
    };
    if found.iter().any(|(f, m, _)| (f, m) != (family, model)) {
        return host_cpu.to_string();
    }
    let file = file
        .strip_prefix(notes)
        .map(|f| format!("notes/{}", f.display()))
        .unwrap_or_else(|_| file.display().to_string());
    let rest = if rest.is_empty() {
        String::new()
    } else {
        format!(", {rest}")
    };
    format!("{name}, family {family} model {model} (lscpu: {file}){rest}")
}

/// The files under `dir` (one level of folders deep) whose name holds `lscpu`.
fn lscpu_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Ok(inner) = std::fs::read_dir(&path) {
                out.extend(inner.flatten().map(|e| e.path()).filter(|p| is_lscpu(p)));
            }
        } else if is_lscpu(&path) {
            out.push(path);
        }
    }
    out
}

/// Whether `path` names an `lscpu` output.
fn is_lscpu(path: &Path) -> bool {
    path.is_file()
        && path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains("lscpu"))
}

/// The inputs of the bench, in the order the figures show them.
pub const INPUTS: [&str; 4] = ["uniform", "one-value", "90pct-one-value", "text"];

/// A group of bars: its label (two lines) and one value per series (`None`: no row).
struct Group {
    label: (String, String),
    values: Vec<Option<(f64, bool)>>,
    reference: bool,
}

/// The step's order: `9.10` after `9.9`.
fn step_key(step: &str) -> (u32, u32) {
    let mut it = step.split('.').map(|p| p.parse().unwrap_or(u32::MAX));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

/// The grid each step of the byte progression launches over `bytes` on an H100 (the
/// bench's own shapes, `ch09::bench::byte_steps`), as the figure's labels state it: the
/// steps do not all run on one grid, and a bar's height is read with its grid. 9.9 sizes
/// its grid from the driver's occupancy query, which the emulator cannot answer for
/// registers: its label says so instead of a number. Empty for `u32`.
fn byte_grids(dtype: &str, bytes: usize) -> Vec<(String, String)> {
    if dtype != "u8" || bytes == 0 {
        return Vec::new();
    }
    ch09::bench::byte_steps(&REFERENCE, &mut Device::emulator(), bytes)
        .into_iter()
        .map(|s| {
            let g = s.shape.grid;
            let grid = if s.kernel == "histo_fastest" {
                "one wave".to_string()
            } else if g >= 1 << 20 && g % (1 << 20) == 0 {
                format!("{} Mi blocks", g >> 20)
            } else if g >= 1 << 10 && g % (1 << 10) == 0 {
                format!("{} Ki blocks", g >> 10)
            } else {
                format!("{g} blocks")
            };
            (s.kernel.to_string(), grid)
        })
        .collect()
}

/// The bars of the throughput figure of `dtype`: every kernel of the bench in step order,
/// then CUB, PyTorch and the best CPU implementation.
fn throughput_groups(b: &Bench, dtype: &str) -> Vec<Group> {
    let rows: Vec<&BenchRow> = b.rows.iter().filter(|r| r.dtype == dtype).collect();
    let mut kernels: Vec<(&str, &str)> = Vec::new();
    for r in &rows {
        if r.step.starts_with("9.")
            && !kernels.contains(&(r.step.as_str(), r.implementation.as_str()))
        {
            kernels.push((&r.step, &r.implementation));
        }
    }
    kernels.sort_by_key(|(s, _)| step_key(s)); // stable: the bench's order within a step
    let value = |pred: &dyn Fn(&BenchRow) -> bool, input: &str| {
        rows.iter()
            .filter(|r| r.input == input && pred(r))
            .map(|r| (r.gbps, r.correct))
            .max_by(|a, b| a.0.total_cmp(&b.0))
    };
    let bytes = rows
        .iter()
        .find(|r| r.step.starts_with("9."))
        .map_or(0, |r| r.bytes) as usize;
    let grids = byte_grids(dtype, bytes);
    let mut groups: Vec<Group> = kernels
        .iter()
        .map(|(step, imp)| Group {
            label: (
                step.to_string(),
                match grids.iter().find(|(k, _)| k == imp) {
                    Some((_, g)) => format!("{} · {g}", imp.strip_prefix("histo_").unwrap_or(imp)),
                    None => imp.strip_prefix("histo_").unwrap_or(imp).to_string(),
                },
            ),
            values: INPUTS
                .iter()
                .map(|i| value(&|r| r.step == *step && r.implementation == *imp, i))
                .collect(),
            reference: false,
        })
        .collect();
    for (step, label) in [("cub", "CUB"), ("torch", "torch"), ("cpu", "best CPU")] {
        groups.push(Group {
            label: (label.to_string(), String::new()),
            values: INPUTS
                .iter()
                .map(|i| value(&|r| r.step == step, i))
                .collect(),
            reference: true,
        });
    }
    groups
}

/// The GPU caption: GPU, driver, CUDA, date and the file, and the CPU of the CPU rows
/// when the bench has any.
fn gpu_caption(b: &Bench) -> String {
    let cpu = if b.host_cpu.is_empty() || !b.rows.iter().any(|r| r.step == "cpu") {
        String::new()
    } else {
        format!("; CPU: {}", b.host_cpu)
    };
    format!(
        "{}, driver {}, CUDA {}, {} (bench: {}; GB/s = input bytes / median launch time{cpu})",
        b.gpu, b.driver, b.cuda, b.date, b.source
    )
}

/// How far a group label of `chars` characters at 11 px, rotated by -35 degrees about
/// its end, reaches left of and below its anchor (about 6.2 px per character).
fn rotated_extent(chars: f64) -> (f64, f64) {
    let len = chars * 6.2;
    let a = 35f64.to_radians();
    (len * a.cos(), len * a.sin() + 11.0 * a.cos())
}

/// A chart and its phone variant as one figure.
fn charted(name: &'static str, (svg, phone): (String, String)) -> Figure {
    Figure {
        name,
        svg,
        phone: Some(phone),
    }
}

/// A grouped bar chart on a log y axis. `series` are the legend labels of the bars of
/// each group; `hline` is a dashed horizontal line and its label. Returns the chart and
/// its phone variant ([`phone::bar_chart`]).
fn bar_chart(
    title: &str,
    y_label: &str,
    series: &[&str],
    groups: &[Group],
    hline: Option<(f64, String)>,
    caption: &str,
    zero_label: bool,
) -> (String, String) {
    // 800 wide: shown in the book's 750-px column, 11-px text stays above 10 px. The
    // margins make room for the rotated group labels (left of the first group, and below
    // the axis) and for the caption, so that no text runs into another (book/layout.py).
    let w = 800.0;
    let longest = groups
        .iter()
        .map(|g| g.label.1.chars().count())
        .max()
        .unwrap_or(0) as f64;
    let (run, drop) = rotated_extent(longest);
    let slot_guess = (w - 100.0) / groups.len().max(1) as f64;
    let left = (run - slot_guess / 2.0 + 12.0).max(80.0);
    let below = (28.0 + drop + 12.0).max(48.0);
    let (right, top, plot) = (w - 20.0, 66.0, 364.0);
    let bottom = top + plot;
    let h = bottom + below + Svg::caption_height(w, caption);
    let mut s = Svg::new(w, h, title);
    let vals = groups
        .iter()
        .flat_map(|g| g.values.iter().flatten().map(|v| v.0))
        .filter(|v| *v > 0.0);
    let (mut lo, mut hi) = (f64::INFINITY, 0f64);
    for v in vals.chain(hline.as_ref().map(|l| l.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        (lo, hi) = (1.0, 10.0);
    }
    let (lo, hi) = LogAxis::decade_bounds(
        lo.min(1.0).max(if zero_label { 1.0 } else { 1e-3 }),
        hi * 1.5,
    );
    let a = LogAxis {
        lo,
        hi,
        p0: bottom,
        p1: top,
    };
    y_log_axis(&mut s, &a, &a.decades(), left, right, y_label);
    let n = groups.len() as f64;
    let slot = (right - left) / n;
    let bar = (slot * 0.8) / series.len() as f64;
    for (gi, g) in groups.iter().enumerate() {
        let x0 = left + slot * gi as f64 + slot * 0.1;
        if g.reference && (gi == 0 || !groups[gi - 1].reference) {
            let xs = left + slot * gi as f64;
            s.line(xs, top, xs, bottom, "#666666", 1.0, "2,3");
            s.text(xs + 4.0, top + 12.0, 11.0, "start", "references", "normal");
        }
        for (si, v) in g.values.iter().enumerate() {
            let x = x0 + bar * si as f64;
            match v {
                Some((val, correct)) if *val > 0.0 => {
                    let y = a.at(*val);
                    s.rect(
                        x,
                        y,
                        bar - 1.0,
                        bottom - y,
                        COLOURS[si],
                        if *correct { 1.0 } else { 0.35 },
                    );
                    if !correct {
                        s.text(x + bar / 2.0, y - 3.0, 11.0, "middle", "wrong", "normal");
                    }
                }
                Some(_) if zero_label => {
                    s.text(x + bar / 2.0, bottom - 3.0, 11.0, "middle", "0", "normal");
                }
                _ => {}
            }
        }
        let cx = left + slot * (gi as f64 + 0.5);
        s.text(cx, bottom + 16.0, 12.0, "middle", &g.label.0, "bold");
        if !g.label.1.is_empty() {
            s.text_rotated(cx + 4.0, bottom + 28.0, 11.0, "end", -35.0, &g.label.1);
        }
    }
    let mut legend: Vec<(String, String)> = series
        .iter()
        .enumerate()
        .map(|(i, l)| (COLOURS[i].to_string(), l.to_string()))
        .collect();
    if let Some((v, label)) = &hline {
        let y = a.at(*v);
        s.line(left, y, right, y, "#D55E00", 2.0, "6,4");
        s.text(
            right - 4.0,
            y - 5.0,
            11.0,
            "end",
            &format!("{label}: {} GB/s", num(*v)),
            "normal",
        );
        legend.push(("line:#D55E00|6,4".into(), label.clone()));
    }
    s.legend(left, 38.0, &legend);
    s.caption(caption);
    let compact = phone::bar_chart(
        title,
        y_label,
        series,
        groups,
        hline.as_ref(),
        caption,
        zero_label,
        (lo, hi),
    );
    (s.finish(), compact)
}

/// The throughput figure of `dtype` (`u8`: steps 9.3 to 9.9; `u32`: 9.14).
fn throughput(b: &Bench, dtype: &str, name: &'static str) -> Figure {
    let groups = throughput_groups(b, dtype);
    let bins = if dtype == "u8" {
        "256 bins"
    } else {
        "4096 bins"
    };
    let title = format!(
        "Chapter 9 on the {}: throughput per step and input, {dtype} input, {bins}",
        b.gpu
    );
    charted(
        name,
        bar_chart(
            &title,
            "GB/s of input (log scale)",
            &INPUTS,
            &groups,
            Some((b.read_bw_gbps, "measured read bandwidth".to_string())),
            &if dtype == "u8" {
                format!(
                    "{}. Each label gives the kernel's grid, in blocks of 256 threads; one wave: as many 512-thread blocks as the GPU keeps resident",
                    gpu_caption(b)
                )
            } else {
                gpu_caption(b)
            },
            false,
        ),
    )
}

/// The GPU figures: `ch09-throughput-u8.svg` and `ch09-throughput-u32.svg`.
pub fn gpu_figures(b: &Bench) -> Vec<Figure> {
    vec![
        throughput(b, "u8", "ch09-throughput-u8.svg"),
        throughput(b, "u32", "ch09-throughput-u32.svg"),
    ]
}

/// The bin counts of the strategy figure (the extension sweep's `u32` sweep).
pub const STRATEGY_BINS: [u32; 6] = [8, 16, 64, 256, 1024, 4096];

/// `ch09-strategy-u32.svg`: 9.16's three strategies (registers, shared and global atomics)
/// on uniform `u32` values at each bin count of the extension sweep `ext`; no bar where
/// a strategy was not run (registers above 16 bins).
pub fn strategy_figure(ext: &Bench) -> Figure {
    let kernels = [
        ("9.10", "histo_registers"),
        ("9.14", "histo_u32_shared"),
        ("9.14", "histo_u32_global"),
    ];
    let groups: Vec<Group> = STRATEGY_BINS
        .iter()
        .map(|&bins| Group {
            label: (format!("{bins} bins"), String::new()),
            values: kernels
                .iter()
                .map(|(step, imp)| {
                    ext.rows
                        .iter()
                        .find(|r| {
                            r.dtype == "u32"
                                && r.input == "uniform"
                                && r.bins == bins
                                && r.step == *step
                                && r.implementation == *imp
                        })
                        .map(|r| (r.gbps, r.correct))
                })
                .collect(),
            reference: false,
        })
        .collect();
    let title = format!(
        "9.16 on the {}: registers, shared or global atomics, by bin count (u32, uniform)",
        ext.gpu
    );
    charted(
        "ch09-strategy-u32.svg",
        bar_chart(
            &title,
            "GB/s of input (log scale)",
            &["registers (9.10)", "shared (9.14)", "global (9.14)"],
            &groups,
            Some((ext.read_bw_gbps, "measured read bandwidth".to_string())),
            &gpu_caption(ext),
            false,
        ),
    )
}

/// The steps of the atomics figure: the byte histogram's progression.
pub const ATOMIC_STEPS: [&str; 7] = ["9.3", "9.4", "9.5", "9.6", "9.7", "9.8", "9.9"];

/// Runs `steps` of the progression with the reference kernels on the emulator.
fn emulate(p: &Params, steps: &[&str]) -> Vec<Row> {
    let mut dev = Device::emulator();
    progression::run(chapter::app::Steps::all(&mut dev, &REFERENCE, p).only(steps))
}

/// Global and shared atomics per step, at the progression's default input.
fn atomics_figure(p: &Params) -> Result<Figure, String> {
    let rows = emulate(p, &ATOMIC_STEPS);
    let mut groups = Vec::new();
    for r in &rows {
        let (g, s) = (r.counters.global_atomics, r.counters.shared_atomics);
        let (Some(g), Some(s)) = (g, s) else {
            return Err(format!(
                "step {} ({}) has no counters: {}",
                r.step, r.kernel, r.status
            ));
        };
        if !r.correct {
            return Err(format!("step {} ({}) is {}", r.step, r.kernel, r.status));
        }
        let kernel = r.kernel.strip_prefix("histo_").unwrap_or(&r.kernel);
        groups.push(Group {
            label: (
                r.step.to_string(),
                kernel.split(" (").next().unwrap_or(kernel).to_string(),
            ),
            values: vec![Some((g as f64, true)), Some((s as f64, true))],
            reference: false,
        });
    }
    let caption = format!(
        "SIMT emulator, n = {}, seed {}, {} bytes, {} bins, reference kernels at the CLI's default launches; lanes that performed an atomic (cargo run -p ch09 -- --kernels reference --json)",
        p.elements(),
        p.seed,
        p.input.describe(),
        p.bins
    );
    Ok(charted(
        "ch09-global-atomics.svg",
        bar_chart(
            "Chapter 9: atomics per step (emulator counters)",
            "atomic operations, lanes (log scale)",
            &["global atomics", "shared atomics"],
            &groups,
            None,
            &caption,
            true,
        ),
    ))
}

/// Contention per bin of one input: for every bin, the warp loads of 9.3 that touch it,
/// the elements it gets, and the most lanes of one warp load on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contention {
    /// Warp-wide atomic instructions that hit the bin (warp loads containing its value).
    pub hits: Vec<u64>,
    /// Elements of the bin (lanes that added to it).
    pub lanes: Vec<u64>,
    /// The most lanes of one warp's atomic on the bin.
    pub max: Vec<u64>,
}

/// Contention per bin of a byte histogram (256 bins) run by 9.3's grid-stride kernel:
/// with a block size and a grid that are multiples of 32 lanes, the lanes of one warp
/// load 32 consecutive, 32-aligned elements in each iteration, so the lanes of a warp's
/// `atomic_add` on one bin are the multiplicity of its byte in that 32-element chunk.
pub fn contention(data: &[u8]) -> Contention {
    let mut c = Contention {
        hits: vec![0; 256],
        lanes: vec![0; 256],
        max: vec![0; 256],
    };
    for chunk in data.chunks(32) {
        let mut m = [0u64; 256];
        for &b in chunk {
            m[b as usize] += 1;
        }
        for (bin, &k) in m.iter().enumerate() {
            if k > 0 {
                c.hits[bin] += 1;
                c.lanes[bin] += k;
                c.max[bin] = c.max[bin].max(k);
            }
        }
    }
    c
}

/// The longest queue of each warp-wide atomic of 9.3's grid-stride kernel on `data`: per
/// 32-element warp load, the most lanes on one bin (256 bins).
pub fn queues(data: &[u8]) -> Vec<u64> {
    data.chunks(32)
        .map(|chunk| {
            let mut m = [0u64; 256];
            for &b in chunk {
                m[b as usize] += 1;
            }
            m.iter().copied().max().unwrap_or(0)
        })
        .collect()
}

/// The contention figure: for uniform and skewed bytes, the share of 9.3's warp atomics
/// whose longest queue on one bin is 1, 2, ... 32 lanes, as bars on a linear scale, with
/// each input's median queue written above its bars, so that the message (skew turns
/// most atomics into queues of about 30) shows at a glance. The longest queue of each
/// input must be the emulator's `worst_serialization` of 9.3 on it.
fn contention_figure(p: &Params) -> Result<Figure, String> {
    let kinds = [InputKind::Uniform, InputKind::Skew(90)];
    let mut shares = Vec::new();
    let mut notes = Vec::new();
    for kind in &kinds {
        let q = Params {
            input: kind.clone(),
            ..p.clone()
        };
        let row = emulate(&q, &["9.3"])
            .into_iter()
            .next()
            .ok_or("no 9.3 row")?;
        if row.block % 32 != 0 || !row.correct {
            return Err(format!(
                "9.3 on {}: {} (block {})",
                kind.describe(),
                row.status,
                row.block
            ));
        }
        let data = inputs::bytes(kind, q.elements(), q.seed);
        let qs = queues(&data);
        let worst = qs.iter().copied().max().unwrap_or(0);
        let emulated = row.counters.worst_serialization.unwrap_or(0);
        if worst != emulated {
            return Err(format!(
                "contention on {}: the host count's worst is {worst} lanes, the emulator's worst_serialization is {emulated}",
                kind.describe()
            ));
        }
        let mut h = [0u64; 33];
        for &x in &qs {
            h[x as usize] += 1;
        }
        let total = qs.len().max(1) as f64;
        let mut sorted = qs.clone();
        sorted.sort_unstable();
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
        shares.push(
            h.iter()
                .map(|&c| 100.0 * c as f64 / total)
                .collect::<Vec<f64>>(),
        );
        notes.push((kind.describe(), median, worst));
    }
    let caption = format!(
        "SIMT emulator, n = {}, seed {}, 256 bins, reference 9.3 (a warp loads 32 consecutive bytes, then one warp-wide atomic_add): per warp atomic, the most lanes on one bin, counted on the host; the longest equals the emulator's worst_serialization (cargo run -p ch09 -- --step 9.3 --input KIND)",
        p.elements(),
        p.seed
    );
    let title = "9.3: how long is the queue at a warp atomic's busiest bin?";
    Ok(Figure {
        name: "ch09-contention.svg",
        svg: contention_svg(title, &caption, &notes, &shares, false),
        phone: Some(contention_svg(title, &caption, &notes, &shares, true)),
    })
}

/// The contention figure at 800 px, or on a phone's width ([`phone`]): the notes and the
/// axis label wrapped, the title in lines.
fn contention_svg(
    title: &str,
    caption: &str,
    notes: &[(String, u64, u64)],
    shares: &[Vec<f64>],
    compact: bool,
) -> String {
    let title_lines = phone::title_lines(title);
    let note_text = |name: &str, median: u64, worst: u64| {
        format!(
            "{name}: half the warp atomics queue {median} lane(s) or fewer; the longest queue {worst}"
        )
    };
    let axis_label = "lanes of one warp atomic on its busiest bin: the queue at one address";
    let (w, left, note_size) = if compact {
        (phone::WIDTH, 50.0, 12.0)
    } else {
        (800.0, 80.0, 14.0)
    };
    let right = w - 20.0;
    let note_lines: Vec<Vec<String>> = notes
        .iter()
        .map(|(name, median, worst)| {
            let text = note_text(name, *median, *worst);
            if compact {
                phone::lines(&text, ((w - 40.0) / 6.8) as usize)
            } else {
                vec![text]
            }
        })
        .collect();
    let axis_lines = if compact {
        phone::lines(axis_label, ((w - 20.0) / 6.8) as usize)
    } else {
        vec![axis_label.to_string()]
    };
    let notes_top = if compact {
        phone::below_title(title_lines.len()) + 12.0
    } else {
        52.0
    };
    let line_h = note_size + 4.0;
    let mut tops = Vec::new();
    let mut y = notes_top;
    for l in &note_lines {
        tops.push(y);
        y += line_h * l.len() as f64 + 8.0;
    }
    let top = if compact { y + 14.0 } else { 110.0 };
    let plot = if compact { 240.0 } else { 300.0 };
    let bottom = top + plot;
    let h = bottom + 54.0 + 16.0 * axis_lines.len() as f64 + Svg::caption_height(w, caption);
    let mut s = if compact {
        let mut s = Svg::bare(w, h, title, w, 11.0);
        phone::draw_title(&mut s, &title_lines);
        s
    } else {
        Svg::new(w, h, title)
    };
    let (note_x, swatch_x) = if compact {
        (30.0, 10.0)
    } else {
        (left + 22.0, left)
    };
    for (i, lines) in note_lines.iter().enumerate() {
        let colour = COLOURS[i];
        let y = tops[i];
        s.rect(swatch_x, y - 12.0, 14.0, 14.0, colour, 1.0);
        for (k, l) in lines.iter().enumerate() {
            s.text(
                note_x,
                y + line_h * k as f64,
                note_size,
                "start",
                l,
                if i == 1 { "bold" } else { "normal" },
            );
        }
    }
    let max = shares
        .iter()
        .flatten()
        .copied()
        .fold(0.0, f64::max)
        .max(1.0);
    let top_pct = ((max / 10.0).ceil() * 10.0).min(100.0);
    let y_at = |v: f64| bottom - plot * v / top_pct;
    for t in 0..=((top_pct / 10.0) as u32) {
        let v = t as f64 * 10.0;
        s.line(left, y_at(v), right, y_at(v), "#dddddd", 1.0, "");
        s.text(
            left - 6.0,
            y_at(v) + 4.0,
            11.0,
            "end",
            &format!("{v:.0} %"),
            "normal",
        );
    }
    s.text_rotated(
        if compact { 14.0 } else { 22.0 },
        (top + bottom) / 2.0,
        12.0,
        "middle",
        -90.0,
        "share of the warp atomics",
    );
    let slot = (right - left) / 32.0;
    for lanes in 1..=32usize {
        let x0 = left + slot * (lanes - 1) as f64;
        for (i, sh) in shares.iter().enumerate() {
            let v = sh[lanes];
            if v > 0.0 {
                let bw = slot * 0.4;
                s.rect(
                    x0 + slot * 0.1 + bw * i as f64,
                    y_at(v),
                    bw,
                    bottom - y_at(v),
                    COLOURS[i],
                    1.0,
                );
            }
        }
        if lanes == 1 || lanes % 4 == 0 {
            s.text(
                x0 + slot / 2.0,
                bottom + 16.0,
                11.0,
                "middle",
                &lanes.to_string(),
                "normal",
            );
        }
    }
    s.line(left, bottom, right, bottom, "#333333", 1.0, "");
    for (k, l) in axis_lines.iter().enumerate() {
        s.text(
            (left + right) / 2.0,
            bottom + 36.0 + 16.0 * k as f64,
            12.0,
            "middle",
            l,
            "normal",
        );
    }
    s.caption(caption);
    s.finish()
}

/// The emulator figures at `p` (the progression's defaults: [`Params::default`]):
/// `ch09-global-atomics.svg` and `ch09-contention.svg`.
pub fn emulator_figures(p: &Params) -> Result<Vec<Figure>, String> {
    Ok(vec![atomics_figure(p)?, contention_figure(p)?])
}

/// The trace of the reference 9.3 (global atomics) at the trace's default parameters:
/// the same picture as `cargo run -p ch09 -- --trace FILE.svg --kernels reference`
/// ([`ch09::trace`]), for the book's emulator chapter.
pub fn trace_figure() -> Result<Figure, String> {
    let drawn = ch09::trace::draw(
        course::KernelSource::Reference,
        ch09::trace::DEFAULT_STEP,
        &ch09::trace::trace_params(),
    )?;
    Ok(Figure {
        name: "ch09-trace-9.3.svg",
        svg: drawn.svg,
        phone: None,
    })
}

/// The chapter-5 rows of `steps` at `p`, every one of which must have counters and (but
/// 5.5's in-place sum, which is wrong by design) be right.
fn ch05_rows(
    p: &ch05::progression::Params,
    steps: &[&str],
) -> Result<Vec<ch05::progression::Row>, String> {
    let mut dev = Device::emulator();
    let run = chapter::app::Steps::all(&mut dev, &ch05::kernels::REFERENCE, p).only(steps);
    let rows = ch05::progression::run(run);
    for r in &rows {
        if r.counters.warp_instructions.is_none() || !r.correct {
            return Err(format!("step {} ({}) is {}", r.step, r.kernel, r.status));
        }
    }
    Ok(rows)
}

/// `ch05-divergence.svg`: warp instructions and divergent steps of 5.4's three branches
/// (and the block of 65 threads), with each kernel's SIMT efficiency in its label: the
/// uniform kernel issues a third fewer warp instructions, none of them divergent.
pub fn divergence_figure(p: &ch05::progression::Params) -> Result<Figure, String> {
    let rows = ch05_rows(p, &["5.4"])?;
    let groups: Vec<Group> = rows
        .iter()
        .map(|r| {
            let c = &r.counters;
            let name = r.kernel.strip_prefix("classify_").unwrap_or(&r.kernel);
            Group {
                label: (
                    name.to_string(),
                    format!(
                        "{} · {:.2} lanes",
                        r.extra.launch,
                        c.simt_efficiency.unwrap_or_default()
                    ),
                ),
                values: vec![
                    c.warp_instructions.map(|v| (v as f64, true)),
                    c.divergent_steps.map(|v| (v as f64, true)),
                ],
                reference: false,
            }
        })
        .collect();
    let caption = format!(
        "SIMT emulator, n = {}, seed {}, reference kernels of 5.4; the label gives the launch and the SIMT efficiency, active lanes per warp instruction (cargo run -p ch05 -- --step 5.4)",
        p.n, p.seed
    );
    Ok(charted(
        "ch05-divergence.svg",
        bar_chart(
            "Chapter 5.4: divergence (emulator counters)",
            "warp instructions (log scale)",
            &["warp instructions", "divergent steps"],
            &groups,
            None,
            &caption,
            true,
        ),
    ))
}

/// `ch05-histograms.svg`: load requests, global atomics and shared atomics of 5.6's four
/// histogram kernels on the same input.
pub fn histograms_figure(p: &ch05::progression::Params) -> Result<Figure, String> {
    let rows = ch05_rows(p, &["5.6"])?;
    let groups: Vec<Group> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let c = &r.counters;
            Group {
                label: (
                    format!("kernel {}", i + 1),
                    format!("{} {}", r.kernel, r.extra.launch),
                ),
                values: vec![
                    c.global_load_requests.map(|v| (v as f64, true)),
                    c.global_atomics.map(|v| (v as f64, true)),
                    c.shared_atomics.map(|v| (v as f64, true)),
                ],
                reference: false,
            }
        })
        .collect();
    let caption = format!(
        "SIMT emulator, n = {} uniform random bytes, seed {}, 256 bins, blocks of {}, reference kernels of 5.6; atomics counted per lane (cargo run -p ch05 -- --step 5.6)",
        p.n, p.seed, p.block
    );
    Ok(charted(
        "ch05-histograms.svg",
        bar_chart(
            "Chapter 5.6: four histogram kernels (emulator counters)",
            "count (log scale)",
            &["global load requests", "global atomics", "shared atomics"],
            &groups,
            None,
            &caption,
            true,
        ),
    ))
}

/// The trace of the reference 5.3 (the grid-stride loop) at the trace's default
/// parameters: the same picture as `cargo run -p ch05 -- --trace FILE.svg --kernels
/// reference` ([`ch05::trace`]), for the book's 5.3.
pub fn ch05_trace_figure() -> Result<Figure, String> {
    let drawn = ch05::trace::draw(
        course::KernelSource::Reference,
        ch05::trace::DEFAULT_STEP,
        &ch05::trace::trace_params(),
    )?;
    Ok(Figure {
        name: "ch05-trace-5.3.svg",
        svg: drawn.svg,
        phone: None,
    })
}

/// The chapter-5 figures at `p` (the progression's defaults: `Params::default()`):
/// `ch05-divergence.svg` and `ch05-histograms.svg`, and the trace of 5.3.
pub fn ch05_figures(p: &ch05::progression::Params) -> Result<Vec<Figure>, String> {
    Ok(vec![
        divergence_figure(p)?,
        histograms_figure(p)?,
        ch05_trace_figure()?,
    ])
}

/// Every figure: the GPU ones of `bench` (and the strategy figure of the extension sweep
/// `extensions`, and the size sweep's figure of `sizes`, when there are), then the emulator's at the default parameters
/// (chapter 9's, the trace of 9.3, then chapter 5's).
pub fn all_figures(
    bench: &Bench,
    extensions: Option<&Bench>,
    sizes: Option<&sizes::Sweeps>,
) -> Result<Vec<Figure>, String> {
    let mut out = gpu_figures(bench);
    out.extend(extensions.map(strategy_figure));
    if let Some(s) = sizes {
        out.push(sizes::sizes_figure(s)?);
    }
    out.extend(emulator_figures(&Params::default())?);
    out.push(trace_figure()?);
    out.extend(mechanisms::mechanism_figures()?);
    out.extend(reduction::reduction_figures()?);
    out.extend(ch05_figures(&ch05::progression::Params::default())?);
    Ok(out)
}
