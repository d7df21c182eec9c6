//! `cargo run -p ch05 --release --features cuda -- bench`: the chapter's two GPU
//! measurements.
//!
//! - **5.5, blocks per SM.** 5.3's grid-stride `a[i] = b[i] * c[i]` on a large input,
//!   with the grid set to 1, 2, 4, 8 and 16 blocks per SM (`--blocks-per-sm`). With one
//!   block of 256 threads per SM, each SM has 8 warps to switch between while loads are
//!   in flight: too few to hide the latency of DRAM, and the kernel runs far below the
//!   memory's bandwidth. More resident blocks give the scheduler more warps to choose
//!   from, until the SM is full (or the memory system is). GB/s counts the 12 bytes each
//!   element moves (two loads, one store).
//! - **5.6, the four histogram kernels.** Each on the same input (uniform bytes, and all
//!   zeros, where every atomic hits one bin), in MB/s of input (10^6 bytes per second,
//!   the unit of the source text's 1025 MB/s and 6800 MB/s on a GTX 460), kernel 4 for
//!   several words per thread.
//!
//! Every result is checked against the CPU (the product, the histogram); a wrong one is
//! a row with `correct: false` and the command exits non-zero. Each time is the median
//! of event-timed launches after warm-ups; the histogram is zeroed before each launch,
//! outside the timed interval. The same code runs on the emulator (a tiny input, in the
//! unit tests), where the times say nothing about a GPU.

use crate::inputs;
use crate::kernels::REFERENCE;
use crate::launch::{one_per_thread, word_grid, word_grid_n};
use crate::reference;
use gpu_host::{Device, LaunchConfig};
use serde::Serialize;
use solutions::ch05::BINS;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Threads per block of every bench launch: a common choice, 8 warps.
pub const BLOCK: u32 = 256;

/// What to measure and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// Input size (each histogram's bytes; 5.5's arrays hold `size_bytes / 4` elements
    /// each), launches and seed.
    pub runs: chapter::timing::BenchRuns,
    /// Blocks per SM of the 5.5 sweep.
    pub blocks_per_sm: Vec<u32>,
    /// Words per thread of 5.6's kernel 4.
    pub words_per_thread: Vec<u32>,
    /// Where `bench.json` goes.
    pub out_dir: PathBuf,
    /// The command line, for the record.
    pub command: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runs: chapter::timing::BenchRuns::of(256 << 20),
            blocks_per_sm: vec![1, 2, 4, 8, 16],
            words_per_thread: vec![4, 16, 64],
            out_dir: PathBuf::from("ch05-bench"),
            command: String::new(),
        }
    }
}

/// One measured case.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// `"5.5"` or `"5.6"`.
    pub step: String,
    /// The kernel.
    pub kernel: String,
    /// The input: `"uniform"`, `"zeros"` or `"random u32"`.
    pub input: String,
    /// 5.5: blocks per SM of the grid.
    pub blocks_per_sm: Option<u32>,
    /// 5.6 kernel 4: words per thread.
    pub words_per_thread: Option<u32>,
    /// Blocks launched.
    pub grid: u32,
    /// The bytes the rate counts (12 per element for 5.5, the input's bytes for 5.6), the
    /// median time of one launch and GB/s.
    #[serde(flatten)]
    pub rate: chapter::timing::Rate,
    /// The rate in MB/s (10^6): the source text's unit.
    pub mbps: Option<f64>,
    /// Whether the result equals the CPU's.
    pub correct: bool,
    /// Why a case failed.
    pub note: Option<String>,
}

/// What the bench ran on and how.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Header {
    /// The device's name.
    pub gpu: String,
    /// Its SMs.
    pub sm_count: u32,
    /// The NVIDIA driver's version (`/proc/driver/nvidia/version`, else `nvidia-smi`), or
    /// `"unknown"`: the book prints it under every GPU figure.
    pub driver_version: String,
    /// The CUDA driver API version, or `"none (emulator)"`.
    pub cuda_version: String,
    /// When (UTC).
    pub date_utc: String,
    /// The command line.
    pub command: String,
    /// Bytes of each histogram input.
    pub input_bytes: u64,
    /// Warm-up and timed launches per case.
    pub warmup: u32,
    /// Timed launches per case.
    pub reps: u32,
    /// How times are taken.
    pub method: String,
}

/// The bench's result: what it ran on, and the rows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The device and options.
    pub header: Header,
    /// One row per case.
    pub rows: Vec<Row>,
}

/// The median of `times` ([`chapter::timing::median`]).
pub use chapter::timing::median;

impl Row {
    fn new(step: &str, kernel: &str, input: &str, grid: u32, bytes: u64) -> Row {
        Row {
            step: step.into(),
            kernel: kernel.into(),
            input: input.into(),
            blocks_per_sm: None,
            words_per_thread: None,
            grid,
            rate: chapter::timing::Rate::of(bytes),
            mbps: None,
            correct: false,
            note: None,
        }
    }

    /// The row with its times and the result's verdict.
    fn measured(
        mut self,
        times: Result<Vec<Duration>, String>,
        correct: Result<bool, String>,
    ) -> Row {
        match (times, correct) {
            (Ok(t), Ok(ok)) => {
                let ns = median(&t).as_nanos().max(1) as f64;
                self.rate.measured(ns / 1e6);
                self.mbps = self.rate.gbps.map(|g| g * 1e3);
                self.correct = ok;
                if !ok {
                    self.note = Some("the result differs from the CPU's".into());
                }
            }
            (Err(e), _) | (_, Err(e)) => self.note = Some(e),
        }
        self
    }
}

/// Runs both measurements on `dev` (the GPU, or the emulator with a tiny input).
pub fn run(
    dev: &mut Device,
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, String> {
    if opts.runs.size_bytes < 4 || opts.runs.size_bytes > u32::MAX as u64 {
        return Err(format!(
            "the input must be 4 bytes to 4 GiB, got {}",
            opts.runs.size_bytes
        ));
    }
    let err = |e: gpu_host::LaunchError| e.to_string();
    let mut rows = Vec::new();
    let sm = dev.props().sm_count;

    // 5.5: blocks per SM.
    let n = (opts.runs.size_bytes / 4) as usize;
    progress(&format!("5.5: {n} elements, {} SMs", sm));
    let b = inputs::values(n, 1 << 15, opts.runs.seed);
    let c = inputs::values(n, 1 << 15, opts.runs.seed + 1);
    let expected = reference::mul(&b, &c);
    let (db, dc) = (dev.upload(&b).map_err(err)?, dev.upload(&c).map_err(err)?);
    let da = dev.alloc::<u32>(n).map_err(err)?;
    for &per_sm in &opts.blocks_per_sm {
        let grid = (sm * per_sm).max(1);
        progress(&format!(
            "5.5: mul_grid_stride, {per_sm} blocks per SM ({grid} blocks)"
        ));
        let cfg = LaunchConfig::linear(grid, BLOCK);
        let times = dev
            .time_launches(
                &REFERENCE.mul_grid_stride,
                cfg,
                (da.slice(), db.slice(), dc.slice()),
                opts.runs.warmup,
                opts.runs.reps,
            )
            .map_err(err);
        let correct = dev.download(&da).map(|a| a == expected).map_err(err);
        let mut row = Row::new("5.5", "mul_grid_stride", "random u32", grid, 12 * n as u64);
        row.blocks_per_sm = Some(per_sm);
        rows.push(row.measured(times, correct));
    }
    for buf in [da, db, dc] {
        let _ = dev.free(buf);
    }

    // 5.6: the four histogram kernels.
    let size = opts.runs.size_bytes as usize;
    for (input, data) in [
        ("uniform", inputs::bytes(size, opts.runs.seed + 2)),
        ("zeros", vec![0u8; size]),
    ] {
        let expected = reference::histogram(&data);
        let d = dev.upload(&data).map_err(err)?;
        let h = dev.alloc::<u32>(BINS as usize).map_err(err)?;
        let args = (d.slice(), h.slice());
        let mut time = |dev: &mut Device, name: &str, cfg: LaunchConfig, per: Option<u32>| {
            progress(&format!("5.6: {name} on {input}"));
            let times = match per {
                None => {
                    let k = if name == "histo_byte" {
                        REFERENCE.histo_byte
                    } else if name == "histo_word" {
                        REFERENCE.histo_word
                    } else {
                        REFERENCE.histo_shared
                    };
                    dev.time_launches_zeroed(&k, cfg, args, &h, opts.runs.warmup, opts.runs.reps)
                }
                Some(p) => dev.time_launches_zeroed(
                    &REFERENCE.histo_shared_n,
                    cfg,
                    (d.slice(), h.slice(), p),
                    &h,
                    opts.runs.warmup,
                    opts.runs.reps,
                ),
            }
            .map_err(err);
            let correct = dev.download(&h).map(|got| got == expected).map_err(err);
            let mut row = Row::new("5.6", name, input, cfg.grid.x, size as u64);
            row.words_per_thread = per;
            row.measured(times, correct)
        };
        rows.push(time(
            dev,
            "histo_byte",
            LaunchConfig::linear(one_per_thread(size, BLOCK), BLOCK),
            None,
        ));
        rows.push(time(
            dev,
            "histo_word",
            LaunchConfig::linear(word_grid(size, BLOCK), BLOCK),
            None,
        ));
        rows.push(time(
            dev,
            "histo_shared",
            LaunchConfig::linear(word_grid(size, BLOCK), BLOCK),
            None,
        ));
        for &per in &opts.words_per_thread {
            let cfg = LaunchConfig::linear(word_grid_n(size, BLOCK, per.max(1)), BLOCK);
            rows.push(time(dev, "histo_shared_n", cfg, Some(per.max(1))));
        }
        let _ = dev.free(d);
        let _ = dev.free(h);
    }
    let p = dev.props();
    Ok(Report {
        header: Header {
            gpu: p.name.clone(),
            sm_count: p.sm_count,
            driver_version: if dev.is_emulator() {
                "none (emulator)".into()
            } else {
                chapter::provenance::nvidia_driver_version()
            },
            cuda_version: chapter::provenance::cuda_version(dev),
            date_utc: chapter::provenance::utc_now(),
            command: opts.command.clone(),
            input_bytes: opts.runs.size_bytes,
            warmup: opts.runs.warmup,
            reps: opts.runs.reps,
            method: "median of event-timed launches after warm-ups, each launch timed alone; \
                     histograms zeroed before every launch outside the events; uploads not \
                     timed. GB/s = 10^9 B/s, MB/s = 10^6 B/s."
                .into(),
        },
        rows,
    })
}

impl Report {
    /// Whether every case ran and was right.
    pub fn all_correct(&self) -> bool {
        self.rows.iter().all(|r| r.correct)
    }

    /// The rows as a table for the terminal.
    pub fn table(&self) -> String {
        let h = &self.header;
        let mut out = format!(
            "Chapter 5 bench on the {} ({} SMs, driver {}, CUDA {}), {}\n{:<5} {:<16} {:<10} {:>7} {:>5} {:>8} {:>10} {:>9} {:>11}  correct\n",
            h.gpu,
            h.sm_count,
            h.driver_version,
            h.cuda_version,
            h.date_utc,
            "step",
            "kernel",
            "input",
            "grid",
            "per",
            "MiB",
            "ms",
            "GB/s",
            "MB/s"
        );
        for r in &self.rows {
            let per = r
                .blocks_per_sm
                .or(r.words_per_thread)
                .map_or("-".into(), |v| v.to_string());
            let f = |v: Option<f64>, d: usize| v.map_or("-".into(), |v| format!("{v:.d$}"));
            out.push_str(&format!(
                "{:<5} {:<16} {:<10} {:>7} {:>5} {:>8} {:>10} {:>9} {:>11}  {}\n",
                r.step,
                r.kernel,
                r.input,
                r.grid,
                per,
                r.rate.bytes >> 20,
                f(r.rate.median_ms, 3),
                f(r.rate.gbps, 1),
                f(r.mbps, 0),
                if r.correct {
                    "yes".to_string()
                } else {
                    format!("NO: {}", r.note.clone().unwrap_or_default())
                }
            ));
        }
        out.push_str("per: blocks per SM (5.5) or words per thread (5.6 histo_shared_n)\n");
        out
    }

    /// Writes `bench.json` into `dir` and returns its path ([`bench::report::write_json`]).
    pub fn write(&self, dir: &Path) -> std::io::Result<PathBuf> {
        bench::report::write_json(dir, "bench.json", self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole bench on the emulator with a tiny input: every case runs and is right.
    #[test]
    fn the_bench_runs_on_the_emulator() {
        let opts = Options {
            runs: chapter::timing::BenchRuns {
                size_bytes: 4099,
                warmup: 0,
                reps: 1,
                ..Options::default().runs
            },
            blocks_per_sm: vec![1, 2],
            words_per_thread: vec![4],
            ..Options::default()
        };
        let mut dev = Device::emulator();
        let report = run(&mut dev, &opts, &mut |_| {}).expect("runs");
        assert_eq!(report.rows.len(), 2 + 2 * 4, "{}", report.table());
        assert!(report.all_correct(), "{}", report.table());
        assert!(report.table().contains("histo_shared_n"));
    }
}
