//! The bench's results: one row per implementation, input and element type, a header
//! saying where and when they were measured, and the three ways they are written (a
//! table on stdout, CSV and JSON for the book's figures).

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One measured implementation on one input.
///
/// It reads back from the JSON too: the book's figures (`crates/figures`) read the bench's
/// files into these types, so a field renamed here fails their parse instead of reading
/// as zero.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// What ran: a kernel's name, `cub::DeviceHistogram::HistogramEven`,
    /// `torch.bincount`, a CPU loop, or a bandwidth reference.
    #[serde(rename = "impl")]
    pub implementation: String,
    /// The chapter's step of a kernel (`9.9`); `cpu`, `cub`, `torch` or `ref` otherwise.
    pub step: String,
    /// The input ([`Input::name`](crate::data::Input::name)); `-` for the references.
    pub input: String,
    /// `u8` or `u32`.
    pub dtype: String,
    /// Bins of the histogram (0 for the references).
    pub bins: u32,
    /// Input bytes, the median time and GB/s; no time when the result was wrong or the
    /// run failed (such a row is reported and excluded).
    #[serde(flatten)]
    pub rate: chapter::timing::Rate,
    /// The rate's GB/s as a percentage of the read bandwidth measured in the same run.
    #[serde(deserialize_with = "course::json::present")]
    pub pct_read_bw: Option<f64>,
    /// Whether every checked result equalled the CPU histogram.
    pub correct: bool,
    /// Timed runs behind the median.
    pub reps: u32,
    /// Why a row has no time, or how it was measured when that differs from the rest.
    #[serde(deserialize_with = "course::json::present")]
    pub note: Option<String>,
}

impl Row {
    /// A row with no measurement yet.
    pub fn new(
        implementation: &str,
        step: &str,
        input: &str,
        dtype: &str,
        bins: u32,
        bytes: u64,
    ) -> Row {
        Row {
            implementation: implementation.into(),
            step: step.into(),
            input: input.into(),
            dtype: dtype.into(),
            bins,
            rate: chapter::timing::Rate::of(bytes),
            pct_read_bw: None,
            correct: false,
            reps: 0,
            note: None,
        }
    }

    /// Records a right result measured at `median_ms` over `reps` runs.
    pub fn measured(mut self, median_ms: f64, reps: u32) -> Row {
        self.correct = true;
        self.rate.measured(median_ms);
        self.reps = reps;
        self
    }

    /// Records a failure or a wrong result: no time.
    pub fn failed(mut self, why: impl Into<String>) -> Row {
        self.correct = false;
        self.rate.clear();
        self.note = Some(why.into());
        self
    }

    /// Whether the row is one of the chapter's kernels (its step is the exercise's number,
    /// `9.9`), not a CPU loop, an external anchor (`cub`, `torch`) or a reference (`ref`).
    pub fn is_kernel(&self) -> bool {
        self.step.starts_with(|c: char| c.is_ascii_digit())
    }

    /// The row in a few words, for progress lines.
    pub fn summary(&self) -> String {
        match (self.rate.median_ms, self.rate.gbps) {
            (Some(ms), Some(g)) => format!("{ms:.3} ms, {g:.1} GB/s ({} runs)", self.reps),
            _ => self.note.clone().unwrap_or_else(|| "no result".into()),
        }
    }

    /// Adds a note (after any already there).
    pub fn noted(mut self, note: impl Into<String>) -> Row {
        let note = note.into();
        self.note = Some(match self.note.take() {
            Some(n) => format!("{n}; {note}"),
            None => note,
        });
        self
    }
}

/// Where, when and how the rows were measured.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Header {
    /// The GPU's name, as the driver reports it.
    pub gpu: String,
    /// Its streaming multiprocessors.
    pub sm_count: u32,
    /// Its compute capability, `9.0`.
    pub compute_capability: String,
    /// Its L2 cache, in bytes.
    pub l2_bytes: u64,
    /// The NVIDIA driver's version (`580.159.04`), from `/proc/driver/nvidia/version`
    /// or `nvidia-smi`.
    pub driver_version: String,
    /// The CUDA version the driver supports (`13.0`).
    pub cuda_version: String,
    /// When the run started, UTC, ISO 8601.
    pub date_utc: String,
    /// The host's CPU model.
    pub host_cpu: String,
    /// Hardware threads the CPU baselines used.
    pub host_threads: usize,
    /// The clock of one host core when the run started, GHz, from a chain of dependent
    /// one-cycle adds ([`crate::cpu::clock_ghz`]; x86-64 only): the CPU rows' cycles
    /// per byte, to compare them with published figures taken at other clocks.
    #[serde(default)]
    pub host_clock_ghz: Option<f64>,
    /// The course's commit (`COURSE_GIT_COMMIT`, else `git`), `unknown` when neither knows.
    pub git_commit: String,
    /// The command line.
    pub command: String,
    /// Bytes of every input (`u8` and `u32` alike).
    pub input_bytes: u64,
    /// Warm-up runs before the timed ones (at most).
    pub warmup: u32,
    /// Timed runs (at most; fewer when one run is slower than the budget allows).
    pub reps: u32,
    /// Time budget per measured case, in milliseconds.
    pub budget_ms: u64,
    /// The seed of the random inputs.
    pub seed: u64,
    /// Where the text input came from, its length and FNV-1a hash.
    pub text: String,
    /// The best read-only kernel's bandwidth, GB/s.
    #[serde(deserialize_with = "course::json::present")]
    pub read_kernel_gbps: Option<f64>,
    /// The launch that gave it.
    pub read_kernel_launch: String,
    /// The device-to-device copy, counting the bytes read and written, GB/s.
    #[serde(deserialize_with = "course::json::present")]
    pub copy_gbps: Option<f64>,
    /// What `pct_read_bw` divides by: the larger of the two above.
    #[serde(deserialize_with = "course::json::present")]
    pub read_bw_gbps: Option<f64>,
    /// How timing is done, and what is excluded from it.
    pub method: String,
    /// How the GPU was warmed before the first timed case, until its times settled.
    #[serde(default)]
    pub warm_up: String,
    /// The chapter's speed targets ([`Target`]), each with what this run
    /// reached: filled in by [`Report::set_targets`].
    pub targets: Vec<String>,
    /// Remarks: tools skipped and why, a lost device.
    pub notes: Vec<String>,
}

/// A speed target of a chapter: element type, input, the least percentage of the read
/// bandwidth the best kernel must reach, and the least factor over CUB (if any).
pub type Target = (&'static str, &'static str, f64, Option<f64>);

/// The whole result: header and rows.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    /// Where, when and how.
    pub header: Header,
    /// One per implementation, input and element type, in the order they ran.
    pub rows: Vec<Row>,
}

impl Report {
    /// Fills in every row's `pct_read_bw` from the header's reference bandwidth.
    pub fn set_percentages(&mut self) {
        let Some(reference) = self.header.read_bw_gbps.filter(|&r| r > 0.0) else {
            return;
        };
        for r in &mut self.rows {
            r.pct_read_bw = r.rate.gbps.map(|g| 100.0 * g / reference);
        }
    }

    /// Fills in [`Header::targets`]: for each of the chapter's `targets`, the fastest right
    /// reference kernel of the chapter on that input, its share of the read bandwidth and its
    /// factor over CUB, against the targets. Call after
    /// [`set_percentages`](Self::set_percentages).
    pub fn set_targets(&mut self, targets: &[Target]) {
        let mut lines = Vec::new();
        for &(dtype, input, pct, over_cub) in targets {
            let here = |r: &&Row| r.dtype == dtype && r.input == input && r.correct;
            let best = self
                .rows
                .iter()
                .filter(here)
                .filter(|r| r.is_kernel())
                // The course's targets are the reference kernels'; a student's rows
                // (`--kernels student`) are read beside them, not counted.
                .filter(|r| !r.implementation.ends_with(crate::YOURS))
                .filter_map(|r| r.rate.gbps.map(|g| (g, r)))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let Some((gbps, row)) = best else {
                lines.push(format!("{dtype} {input}: no kernel measured"));
                continue;
            };
            let mut line = format!(
                "{dtype} {input}: best kernel {} ({}) {gbps:.0} GB/s",
                row.implementation, row.step
            );
            match row.pct_read_bw {
                Some(p) => line.push_str(&format!(
                    " = {p:.1} % of the read bandwidth (target >= {pct:.0} %: {})",
                    if p >= pct { "met" } else { "NOT met" }
                )),
                None => line.push_str(" (no read bandwidth measured)"),
            }
            let cub = self
                .rows
                .iter()
                .filter(here)
                .find(|r| r.step == "cub")
                .and_then(|r| r.rate.gbps);
            match (cub, over_cub) {
                (Some(c), Some(t)) if c > 0.0 => line.push_str(&format!(
                    ", {:.2}x CUB (target >= {t:.1}x: {})",
                    gbps / c,
                    if gbps / c >= t { "met" } else { "NOT met" }
                )),
                (Some(c), None) if c > 0.0 => {
                    line.push_str(&format!(", {:.2}x CUB", gbps / c));
                }
                (None, Some(t)) => {
                    line.push_str(&format!(", CUB not measured (target >= {t:.1}x)"))
                }
                _ => {}
            }
            lines.push(line);
        }
        self.header.targets = lines;
    }

    /// Whether every implementation that ran gave the right bins (skipped ones aside).
    pub fn all_correct(&self) -> bool {
        self.rows.iter().all(|r| r.correct || is_skipped(r))
    }

    /// The rows as CSV: a header line, then one line per row.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "impl,step,input,dtype,bins,bytes,median_ms,gbps,pct_read_bw,correct,reps,note\n",
        );
        let num =
            |v: Option<f64>, digits: usize| v.map_or(String::new(), |x| format!("{x:.digits$}"));
        for r in &self.rows {
            let fields = [
                csv_field(&r.implementation),
                csv_field(&r.step),
                csv_field(&r.input),
                csv_field(&r.dtype),
                r.bins.to_string(),
                r.rate.bytes.to_string(),
                num(r.rate.median_ms, 6),
                num(r.rate.gbps, 3),
                num(r.pct_read_bw, 2),
                r.correct.to_string(),
                r.reps.to_string(),
                csv_field(r.note.as_deref().unwrap_or("")),
            ];
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }

    /// The header and rows as pretty JSON.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The rows as an aligned table, grouped by element type and input, with the header's
    /// essentials above and the notes below.
    pub fn table(&self) -> String {
        self.table_titled("Chapter 9 bench", "issues 4 and 40")
    }

    /// [`table`](Self::table) under another chapter's title (`Chapter 10 bench`), its
    /// targets said to come from `source` (`issue 48`).
    pub fn table_titled(&self, title: &str, source: &str) -> String {
        let h = &self.header;
        let mut out = String::new();
        let gbps = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.1}"));
        let _ = writeln!(
            out,
            "{title} on {} ({} SMs, CUDA {}, driver {}), {}, commit {}",
            h.gpu, h.sm_count, h.cuda_version, h.driver_version, h.date_utc, h.git_commit
        );
        let _ = writeln!(
            out,
            "inputs of {} bytes; median of up to {} event-timed launches after up to {} warm-ups, \
             about {} ms per case; read bandwidth {} GB/s (read kernel {} GB/s, copy {} GB/s read+write)",
            h.input_bytes,
            h.reps,
            h.warmup,
            h.budget_ms,
            gbps(h.read_bw_gbps),
            gbps(h.read_kernel_gbps),
            gbps(h.copy_gbps),
        );
        if !h.warm_up.is_empty() {
            let _ = writeln!(out, "{}", h.warm_up);
        }
        let head = [
            "dtype",
            "input",
            "step",
            "impl",
            "reps",
            "median ms",
            "GB/s",
            "% read",
            "correct",
        ];
        let mut cells: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
        for r in &self.rows {
            cells.push(vec![
                r.dtype.clone(),
                r.input.clone(),
                r.step.clone(),
                r.implementation.clone(),
                r.reps.to_string(),
                r.rate.median_ms.map_or("-".into(), |m| format!("{m:.3}")),
                gbps(r.rate.gbps),
                r.pct_read_bw.map_or("-".into(), |p| format!("{p:.1}")),
                if r.correct {
                    "yes".into()
                } else if is_skipped(r) {
                    "skipped".into()
                } else {
                    "NO".into()
                },
            ]);
        }
        let widths: Vec<usize> = (0..head.len())
            .map(|i| {
                cells
                    .iter()
                    .map(|c| c[i].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for (k, row) in cells.iter().enumerate() {
            if k > 1 && (row[0] != cells[k - 1][0] || row[1] != cells[k - 1][1]) {
                out.push('\n');
            }
            let line: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if i < 4 {
                        format!("{c:<w$}", w = widths[i])
                    } else {
                        format!("{c:>w$}", w = widths[i])
                    }
                })
                .collect();
            out.push_str(line.join("  ").trim_end());
            out.push('\n');
        }
        if !h.targets.is_empty() {
            let _ = writeln!(out, "targets ({source}):");
            for t in &h.targets {
                let _ = writeln!(out, "  {t}");
            }
        }
        let notes: Vec<String> = self
            .rows
            .iter()
            .filter_map(|r| {
                r.note.as_ref().map(|n| {
                    format!(
                        "  {} {} {} {}: {n}",
                        r.dtype, r.input, r.step, r.implementation
                    )
                })
            })
            .chain(h.notes.iter().map(|n| format!("  {n}")))
            .collect();
        if !notes.is_empty() {
            out.push_str("notes:\n");
            for n in notes {
                out.push_str(&n);
                out.push('\n');
            }
        }
        out
    }

    /// Writes `bench.csv` and `bench.json` into `dir` (created if missing); returns their
    /// paths.
    pub fn write(&self, dir: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
        std::fs::create_dir_all(dir)?;
        let csv = dir.join("bench.csv");
        let json = dir.join("bench.json");
        std::fs::write(&csv, self.csv())?;
        std::fs::write(&json, self.json() + "\n")?;
        Ok((csv, json))
    }
}

/// Writes `value` as pretty JSON (and a final newline) to `dir/file`, creating `dir`: every
/// chapter's results file. Returns its path.
pub fn write_json(dir: &Path, file: &str, value: &impl Serialize) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(file);
    let json = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    std::fs::write(&path, json + "\n")?;
    Ok(path)
}

/// A row that did not run (a tool not installed, a step filtered out), as opposed to one
/// that ran and failed.
fn is_skipped(r: &Row) -> bool {
    !r.correct && r.note.as_deref().is_some_and(|n| n.starts_with(SKIPPED))
}

/// How the note of a wrong result begins.
pub const WRONG: &str = "WRONG";
/// How the note of a row that did not run begins.
pub const SKIPPED: &str = "skipped";

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The time now and a Unix time, as UTC dates ([`chapter::provenance`]).
pub use chapter::provenance::{utc, utc_now as now_utc};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_795_000_000), "2026-11-18T11:06:40Z");
    }

    #[test]
    fn rows_become_csv_json_and_a_table() {
        let mut report = Report::default();
        report.header.read_bw_gbps = Some(2000.0);
        report.rows.push(
            Row::new("histo_fastest", "9.9", "uniform", "u8", 256, 1 << 30).measured(0.5, 20),
        );
        // A student's row, faster: read beside the targets, never counted in them.
        report.rows.push(
            Row::new(
                &format!("histo_fastest{}", crate::YOURS),
                "9.9",
                "uniform",
                "u8",
                256,
                1 << 30,
            )
            .measured(0.25, 20),
        );
        report.rows.push(
            Row::new("histo_atomic", "9.3", "uniform", "u8", 256, 1 << 30)
                .failed(format!("{WRONG}: bin 3 expected 7, got 6, \"x\"")),
        );
        report.rows.push(
            Row::new("torch.bincount", "torch", "uniform", "u8", 256, 1 << 30)
                .failed("skipped: no torch"),
        );
        report.rows.push(
            Row::new(
                "cub::DeviceHistogram::HistogramEven",
                "cub",
                "uniform",
                "u8",
                256,
                1 << 30,
            )
            .measured(1.0, 20),
        );
        report.set_percentages();
        report.set_targets(&[
            ("u8", "uniform", 95.0, Some(1.2)),
            ("u8", "one-value", 95.0, Some(1.0)),
        ]);
        assert!(
            report.header.targets[0].starts_with("u8 uniform: best kernel histo_fastest (9.9) 2147 GB/s = 107.4 % of the read bandwidth (target >= 95 %: met), 2.00x CUB (target >= 1.2x: met)"),
            "{:?}",
            report.header.targets
        );
        assert_eq!(report.header.targets[1], "u8 one-value: no kernel measured");
        report.rows.remove(1);
        report.rows.pop();
        let r = &report.rows[0];
        assert!((r.rate.gbps.unwrap() - 2147.483648).abs() < 1e-6);
        assert!((r.pct_read_bw.unwrap() - 107.374).abs() < 1e-3);
        assert!(!report.all_correct());
        let csv = report.csv();
        assert_eq!(csv.lines().count(), 4);
        assert!(csv.lines().nth(1).unwrap().starts_with(
            "histo_fastest,9.9,uniform,u8,256,1073741824,0.500000,2147.484,107.37,true,20,"
        ));
        assert!(
            csv.contains("\"WRONG: bin 3 expected 7, got 6, \"\"x\"\"\""),
            "{csv}"
        );
        let json: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
        assert_eq!(json["rows"][0]["impl"], "histo_fastest");
        assert_eq!(json["rows"][1]["median_ms"], serde_json::Value::Null);
        let table = report.table();
        assert!(
            table.contains("NO") && table.contains("skipped") && table.contains("yes"),
            "{table}"
        );
        report.rows.remove(1);
        assert!(report.all_correct());
    }
}
