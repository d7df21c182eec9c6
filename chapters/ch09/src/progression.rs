//! The progression: every step of the chapter run on one input, with what each step
//! asks of the memory system. `cargo run -p ch09` prints it; the snapshot tests lock it.
//!
//! Unlike the checks, the progression runs each kernel once, on the input you choose
//! (`--input`, `--n`, `--bins`, ...), and reports instead of judging: whether the bins
//! are right, and the emulator's counters. A student kernel that is not implemented is a
//! row that says so, and the progression goes on.

use crate::checks::{strategy_fits, strategy_kernel, table_strategy};
use crate::inputs::{self, InputKind};
use crate::kernels::{ByteKernel, Kernels, Strategy, U32Kernel};
use crate::launch::{self, Run, Shape, coarsened, device_grid, one_per_thread};
use crate::reference;
use chapter::app::Steps;
use chapter::declared::{Grid, Launch};
use chapter::row::Counters;
use course::{Outcome, Rng, catch_host};
use gpu_host::{Device, LaunchError};
use serde::Serialize;
use solutions::ch09::{FASTEST_SHARED_BYTES, FastestPolicy, REGISTER_BINS, STATIC_BINS};

/// A step of the progression that is code: the exercise it belongs to, the bytes of input
/// per element it reads, and what it runs. The other steps are data: the launches their
/// records declare in `exercises.toml` (`[[exercise.launch]]`, [`chapter::declared`]),
/// which [`Runner::declared`] runs. A new exercise whose kernels launch in a common form
/// needs no line here.
struct StepRecord {
    /// The exercise's id (`"9.4"`), as the registry, the CLI's `--step` and the book say.
    id: &'static str,
    /// Bytes of input per element: bytes (1), `u32` values (4), pixels (3), a byte and its
    /// `f32` weight (5), a pair of bytes (2).
    element_bytes: u64,
    /// Runs the step, pushing its rows.
    run: fn(&mut Runner<'_>),
}

/// The steps that are code, in the order of the registry.
const CODED: [StepRecord; 11] = [
    StepRecord {
        id: "9.1",
        element_bytes: 1,
        run: step_9_1,
    },
    StepRecord {
        id: "9.4",
        element_bytes: 1,
        run: step_9_4,
    },
    StepRecord {
        id: "9.5",
        element_bytes: 1,
        run: step_9_5,
    },
    StepRecord {
        id: "9.6",
        element_bytes: 1,
        run: step_9_6,
    },
    StepRecord {
        id: "9.9",
        element_bytes: 1,
        run: step_9_9,
    },
    StepRecord {
        id: "9.10",
        element_bytes: 4,
        run: step_9_10,
    },
    StepRecord {
        id: "9.11",
        element_bytes: 3,
        run: step_9_11,
    },
    StepRecord {
        id: "9.12",
        element_bytes: 5,
        run: |r| r.weighted(),
    },
    StepRecord {
        id: "9.13",
        element_bytes: 2,
        run: step_9_13,
    },
    StepRecord {
        id: "9.16",
        element_bytes: 4,
        run: |r| r.strategies(),
    },
    StepRecord {
        id: "9.17",
        element_bytes: 4,
        run: step_9_17,
    },
];

/// Every step's id, in order: the registry's exercises (`exercises.toml`).
pub const STEPS: [&str; crate::STEP_IDS.len()] = crate::STEP_IDS;

/// What to run the progression on: the command's options. The defaults run in a few
/// seconds on the emulator.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct Params {
    /// Elements to count [default: 262144 on the emulator, 67108864 on a GPU, or a text
    /// file's length].
    #[arg(long, value_name = "N")]
    pub n: Option<usize>,
    /// Bins of the histogram (per channel for 9.11, both axes together for 9.13).
    #[arg(long, value_name = "B", default_value_t = 256)]
    pub bins: u32,
    /// Threads per block: a multiple of 32, at most 1024.
    #[arg(long, value_name = "T", default_value_t = 256)]
    pub block: u32,
    /// Blocks of the grid-stride kernels [default: from the device: its SMs times the
    /// blocks one SM holds, but no more than N / (T * C)].
    #[arg(long, value_name = "G")]
    pub grid: Option<u32>,
    /// Elements per thread the grids are sized for (9.6's coarsening factor).
    #[arg(long, value_name = "C", default_value_t = 8)]
    pub coarsen: u32,
    /// The input: uniform, zeros, skew:P (P% zeros, the rest uniform) or text:PATH (a
    /// file's bytes, repeated to N).
    #[arg(long, value_name = "KIND", default_value = "uniform", value_parser = chapter::inputs::parse_input)]
    pub input: InputKind,
    /// Seed of the generated input.
    #[arg(long, value_name = "S", default_value_t = 9)]
    pub seed: u64,
}

/// The default number of elements: 256 Ki, a few seconds for the whole progression.
pub const DEFAULT_N: usize = 1 << 18;

/// The options' defaults.
impl Default for Params {
    fn default() -> Self {
        chapter::app::defaults()
    }
}

impl Params {
    /// The number of elements this run uses.
    pub fn elements(&self) -> usize {
        match (&self.n, &self.input) {
            (Some(n), _) => *n,
            (None, InputKind::Text(t)) => t.len(),
            (None, _) => DEFAULT_N,
        }
    }
}

/// Chapter 9's own column of a row ([`chapter::row::Row`]'s `extra`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bins {
    /// Bins of the histogram (per channel for 9.11, both axes together for 9.13).
    pub bins: u32,
}

/// One kernel (or host function) of one step, run once.
pub type Row = chapter::row::Row<Bins>;

/// A GPU launch's time and the bytes it moved ([`chapter::timing::GpuTime`]).
pub use chapter::timing::GpuTime;

/// Runs the steps `s` asks for (all of [`STEPS`] when none), saying each before it
/// starts. The rows come in step order.
pub fn run(mut s: Steps<'_, Kernels, Params>) -> Vec<Row> {
    let (k, p) = (s.kernels, s.params);
    let n = p.elements();
    let bytes = inputs::bytes(&p.input, n, p.seed);
    let mut rows = Vec::new();
    for (i, &step) in STEPS.iter().enumerate() {
        if !s.wants(step) {
            continue;
        }
        s.say(&format!(
            "[{}/{}] step {step} (n = {n})",
            i + 1,
            STEPS.len()
        ));
        let coded = CODED.iter().find(|c| c.id == step);
        let mut r = Runner {
            dev: &mut *s.dev,
            k,
            p,
            n,
            bytes: &bytes,
            step,
            elem_bytes: coded.map_or(1, |c| c.element_bytes),
            rows: &mut rows,
        };
        match (
            coded,
            chapter::declared::launches_of(&crate::LAUNCHES, step),
        ) {
            (Some(c), _) => (c.run)(&mut r),
            (None, Some(launches)) => r.declared(launches),
            (None, None) => r.skip(
                "-",
                p.bins,
                format!(
                    "step {step} has neither code in the progression nor launches in its record"
                ),
            ),
        }
    }
    rows
}

/// The state of one step.
struct Runner<'a> {
    dev: &'a mut Device,
    k: &'a Kernels,
    p: &'a Params,
    n: usize,
    bytes: &'a [u8],
    step: &'static str,
    /// Bytes of input per element of this step ([`StepRecord::element_bytes`]).
    elem_bytes: u64,
    rows: &'a mut Vec<Row>,
}

impl Runner<'_> {
    /// The grid of the grid-stride kernels: `--grid`, or sized from the device for
    /// `coarsen` elements per thread.
    fn grid(&self, n: usize) -> u32 {
        self.p
            .grid
            .unwrap_or_else(|| device_grid(self.dev.props(), n, self.p.block, self.p.coarsen))
    }

    fn push(
        &mut self,
        kernel: &str,
        n: usize,
        bins: u32,
        shape: Shape,
        r: Result<Run<u32>, LaunchError>,
        expected: &[u32],
    ) {
        let row = match r {
            Ok(run) => {
                let correct =
                    run.out.len() >= expected.len() && run.out[..expected.len()] == *expected;
                let lost = expected
                    .iter()
                    .map(|&x| x as u64)
                    .sum::<u64>()
                    .saturating_sub(
                        run.out[..expected.len().min(run.out.len())]
                            .iter()
                            .map(|&x| x as u64)
                            .sum(),
                    );
                completed(
                    self.step,
                    kernel,
                    (n, n as u64 * self.elem_bytes),
                    bins,
                    shape,
                    &run.report,
                    correct,
                    Some(lost),
                )
            }
            Err(e) => failed(self.step, kernel, n, bins, shape, &e),
        };
        self.rows.push(row);
    }

    fn skip(&mut self, kernel: &str, bins: u32, why: String) {
        self.rows.push(Row {
            note: Some(why),
            ..Row::new(self.step, kernel, "skipped", self.n as u64, Bins { bins })
        });
    }

    /// Adds `note` to the last row.
    fn note(&mut self, note: String) {
        if let Some(row) = self.rows.last_mut() {
            row.note = Some(match row.note.take() {
                Some(n) => format!("{note}; {n}"),
                None => note,
            });
        }
    }

    /// Runs the launches a step's record declares ([`chapter::declared`]): each kernel on
    /// the progression's input as its signature takes it (a byte kernel on the bytes, a
    /// `u32` kernel on values below the bin count), on its grid, with dynamic shared memory
    /// for the bins when asked (skipped, saying why, when they do not fit).
    fn declared(&mut self, launches: &[Launch]) {
        let (n, bins, block) = (self.n, self.p.bins, self.p.block);
        // Each input and its reference histogram, made once for the step's launches (9.14
        // runs two kernels on the same values).
        let mut byte_expected: Option<Vec<u32>> = None;
        let mut values: Option<(Vec<u32>, Vec<u32>)> = None;
        for l in launches {
            let grid = match l.grid {
                Grid::Stride => self.grid(n),
                Grid::OnePerThread => one_per_thread(n, block),
            };
            let mut shape = Shape::new(grid, block);
            if l.shared_bins {
                let limit = self.dev.props().shared_bytes_per_block;
                if !strategy_fits(Strategy::Shared, bins, limit) {
                    let why = format!(
                        "the bins do not fit in {} KiB of shared memory",
                        limit / 1024
                    );
                    self.skip(l.kernel, bins, why);
                    continue;
                }
                shape = shape.with_bins(bins);
            }
            let kernel = self.k.named(l.kernel);
            if let Some(k) = kernel.and_then(|k| k.downcast_ref::<ByteKernel>()) {
                self.elem_bytes = 1;
                let bytes = self.bytes;
                let expected =
                    byte_expected.get_or_insert_with(|| reference::byte_histogram(bytes, bins));
                let r = launch::bytes(self.dev, k, bytes, bins, shape);
                self.push(l.kernel, n, bins, shape, r, expected);
            } else if let Some(k) = kernel.and_then(|k| k.downcast_ref::<U32Kernel>()) {
                self.elem_bytes = 4;
                let p = self.p;
                let (values, expected) = values.get_or_insert_with(|| {
                    let v = inputs::values(&p.input, n, bins, p.seed);
                    let h = reference::value_histogram(&v, bins);
                    (v, h)
                });
                let r = launch::values(self.dev, k, values, bins, shape);
                self.push(l.kernel, n, bins, shape, r, expected);
            } else {
                let why = "a declared launch runs a byte or u32 kernel `(data, histo)`; this \
                           one needs its step as code"
                    .to_string();
                self.skip(l.kernel, bins, why);
            }
        }
    }

    fn weighted(&mut self) {
        let (n, bins) = (self.n, self.p.bins);
        let mut rng = Rng::new(self.p.seed ^ 0x12);
        let weights: Vec<f32> = (0..n).map(|_| (rng.below(17) as f32 - 8.0) / 4.0).collect();
        let expected: Vec<f32> = reference::weighted_histogram(self.bytes, &weights, bins)
            .into_iter()
            .map(|x| x as f32)
            .collect();
        let shape = Shape::new(self.grid(n), self.p.block).with_bins(bins);
        let row = match launch::weighted(
            self.dev,
            &self.k.histo_weighted,
            self.bytes,
            &weights,
            bins,
            shape,
        ) {
            Ok(run) => {
                let correct = run.out == expected;
                completed(
                    "9.12",
                    "histo_weighted",
                    (n, n as u64 * self.elem_bytes),
                    bins,
                    shape,
                    &run.report,
                    correct,
                    None,
                )
            }
            Err(e) => failed("9.12", "histo_weighted", n, bins, shape, &e),
        };
        self.rows.push(row);
        self.note("weights in quarters from -2 to 2".into());
    }

    fn strategies(&mut self) {
        let (n, bins) = (self.n, self.p.bins);
        let chosen = catch_host(|| (self.k.choose_strategy)(bins)).map(Strategy::from);
        let table = table_strategy(bins);
        let row = match &chosen {
            Ok(c) => {
                let correct = *c == table;
                let mut row = host_row(
                    "9.16",
                    "choose_strategy (host)",
                    n,
                    bins,
                    if correct { "correct" } else { "wrong" },
                    correct,
                );
                row.note = Some(format!(
                    "chose {} (the H100's table: {})",
                    c.name(),
                    table.name()
                ));
                row
            }
            Err(o) => host_failed("9.16", "choose_strategy (host)", n, bins, o),
        };
        self.rows.push(row);
        let values = inputs::values(&self.p.input, n, bins, self.p.seed);
        let expected = reference::value_histogram(&values, bins);
        let shared_limit = self.dev.props().shared_bytes_per_block;
        for s in Strategy::ALL {
            let name = format!("{} ({})", strategy_kernel(self.k, s).name, s.name());
            if !strategy_fits(s, bins, shared_limit) {
                self.skip(&name, bins, format!("{} cannot hold {bins} bins", s.name()));
                continue;
            }
            let shape = Shape::new(self.grid(n), self.p.block)
                .with_bins(if s == Strategy::Shared { bins } else { 0 });
            let r = launch::values(self.dev, &strategy_kernel(self.k, s), &values, bins, shape);
            self.push(&name, n, bins, shape, r, &expected);
            if matches!(&chosen, Ok(c) if *c == s) {
                self.note("chosen by choose_strategy".into());
            }
        }
    }
}

/// The row of a launch that completed.
#[allow(clippy::too_many_arguments)]
fn completed(
    step: &'static str,
    kernel: &str,
    (n, bytes): (usize, u64),
    bins: u32,
    shape: Shape,
    report: &gpu_host::LaunchReport,
    correct: bool,
    lost: Option<u64>,
) -> Row {
    let race = report.findings().iter().find(|f| f.is_race());
    let status = match (correct, race) {
        (_, Some(_)) => "race",
        (true, None) => "correct",
        (false, None) => "wrong",
    };
    Row {
        correct,
        grid: shape.grid,
        block: shape.block,
        counters: Counters {
            lost_updates: lost,
            ..Counters::from(report.counters())
        },
        note: race.map(|f| first_line(&f.to_string())),
        gpu: report.gpu_time.map(|t| GpuTime {
            ns: t.as_nanos() as u64,
            bytes,
        }),
        ncu: chapter::row::ncu_counters(report.counters()),
        ..Row::new(step, kernel, status, n as u64, Bins { bins })
    }
}

/// The row of a launch that failed: a `todo!` is "not implemented".
fn failed(
    step: &'static str,
    kernel: &str,
    n: usize,
    bins: u32,
    shape: Shape,
    e: &LaunchError,
) -> Row {
    let out = Outcome::from_launch_error(e);
    Row {
        grid: shape.grid,
        block: shape.block,
        note: Some(first_line(&out.reason)),
        ..Row::new(step, kernel, out.status.label(), n as u64, Bins { bins })
    }
}

fn host_row(
    step: &'static str,
    kernel: &str,
    n: usize,
    bins: u32,
    status: &str,
    correct: bool,
) -> Row {
    Row {
        correct,
        ..Row::new(step, kernel, status, n as u64, Bins { bins })
    }
}

fn host_failed(step: &'static str, kernel: &str, n: usize, bins: u32, o: &Outcome) -> Row {
    Row {
        note: Some(first_line(&o.reason)),
        ..host_row(step, kernel, n, bins, o.status.label(), false)
    }
}

/// The first line of a message, whole: the table's notes wrap it ([`chapter::table`]).
fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// The columns of the table on a GPU (`--columns` names them).
pub const GPU_COLUMNS: &[&str] = &[
    "step", "kernel", "status", "n", "bins", "grid", "block", "ms", "GB/s", "lost",
];

/// The columns of the table on the emulator (`--columns` names them).
pub const EMULATOR_COLUMNS: &[&str] = &[
    "step",
    "kernel",
    "status",
    "n",
    "bins",
    "grid",
    "block",
    "g.atomics",
    "s.atomics",
    "worst.ser",
    "g.sectors",
    "bank.conf",
    "at.conf",
    "diverg",
    "warp.instr",
    "lost",
];

/// A launch's size cell: `-` for host code, which launched nothing.
fn launched(v: u32) -> String {
    if v == 0 { "-".into() } else { v.to_string() }
}

/// How the table lays out a row ([`chapter::table::progression`]).
pub const LAYOUT: chapter::table::Layout<Row> = chapter::table::Layout {
    emulator: EMULATOR_COLUMNS,
    gpu: GPU_COLUMNS,
    left: 3,
    lead: |r| {
        let sizes = [r.n.to_string(), r.extra.bins.to_string()];
        let launch = [launched(r.grid), launched(r.block)];
        let names = [r.step.to_string(), r.kernel.clone(), r.status.clone()];
        names.into_iter().chain(sizes).chain(launch).collect()
    },
    counters: |r| {
        let c = &r.counters;
        [
            c.global_atomics,
            c.shared_atomics,
            c.worst_serialization,
            c.global_load_sectors,
            c.bank_conflicts,
            c.atomic_bank_conflicts,
            c.divergent_steps,
            c.warp_instructions,
        ]
        .map(chapter::table::opt)
        .to_vec()
    },
    tail: |r| vec![chapter::table::opt(r.counters.lost_updates)],
};

/// [`table`] with only the columns named in `keep` (all when it is empty), as `--columns`
/// asks.
pub fn table_columns(rows: &[Row], notes: bool, keep: &[String]) -> String {
    chapter::table::progression(&LAYOUT, rows, notes, keep)
}

/// The rows as a table, one line per row: the counters the chapter is about (on the
/// emulator), or each launch's time and GB/s (on a GPU, where there are no counters);
/// with `notes`, followed by each row's note (errors, races, the strategy chosen).
///
/// Every column; [`table_columns`] keeps some.
pub fn table(rows: &[Row], notes: bool) -> String {
    table_columns(rows, notes, &[])
}

/// Step 9.1 of [`CODED`].
fn step_9_1(runner: &mut Runner<'_>) {
    let n = runner.n;
    let data = runner.bytes;
    let k = runner.k;
    let row = match catch_host(|| (k.histogram_sequential)(data)) {
        Ok(h) => {
            let correct = h == reference::sequential(data);
            host_row(
                "9.1",
                "histogram_sequential (host)",
                n,
                256,
                if correct { "correct" } else { "wrong" },
                correct,
            )
        }
        Err(o) => host_failed("9.1", "histogram_sequential (host)", n, 256, &o),
    };
    runner.rows.push(row);
}

/// Step 9.4 of [`CODED`].
fn step_9_4(runner: &mut Runner<'_>) {
    let (n, bins, block) = (runner.n, runner.p.bins, runner.p.block);
    let data = runner.bytes;
    let expected = reference::byte_histogram(data, bins);
    let k = runner.k;
    let shape = Shape::new(runner.grid(n), block);
    let r = launch::bytes_with(
        runner.dev,
        &k.histo_private_global,
        data,
        shape.grid * bins,
        bins,
        shape,
    );
    runner.push("histo_private_global", n, bins, shape, r, &expected);
}

/// Step 9.5 of [`CODED`].
fn step_9_5(runner: &mut Runner<'_>) {
    let (n, bins, block) = (runner.n, runner.p.bins, runner.p.block);
    let data = runner.bytes;
    let expected = reference::byte_histogram(data, bins);
    let k = runner.k;
    let shape = Shape::new(one_per_thread(n, block), block);
    if bins <= STATIC_BINS {
        let r = launch::bytes(runner.dev, &k.histo_private_shared, data, bins, shape);
        runner.push("histo_private_shared", n, bins, shape, r, &expected);
    } else {
        runner.skip(
            "histo_private_shared",
            bins,
            format!("its static array holds {STATIC_BINS} bins"),
        );
    }
    let shape = shape.with_bins(bins);
    let r = launch::bytes(runner.dev, &k.histo_private_dynamic, data, bins, shape);
    runner.push("histo_private_dynamic", n, bins, shape, r, &expected);
}

/// Step 9.6 of [`CODED`].
fn step_9_6(runner: &mut Runner<'_>) {
    let (n, bins, block) = (runner.n, runner.p.bins, runner.p.block);
    let data = runner.bytes;
    let expected = reference::byte_histogram(data, bins);
    let k = runner.k;
    // The grid follows the coarsening factor; with --grid, the factor follows
    // the grid (the contiguous partition must cover the input).
    let (grid, c) = match runner.p.grid {
        None => (coarsened(n, block, runner.p.coarsen), runner.p.coarsen),
        Some(g) => (g, (n.div_ceil(g as usize * block as usize)).max(1) as u32),
    };
    let shape = Shape::new(grid, block).with_bins(bins);
    let r = launch::bytes_with(runner.dev, &k.histo_coarse_contiguous, data, bins, c, shape);
    runner.push(
        &format!("histo_coarse_contiguous (C = {c})"),
        n,
        bins,
        shape,
        r,
        &expected,
    );
    let r = launch::bytes(runner.dev, &k.histo_coarse_interleaved, data, bins, shape);
    runner.push("histo_coarse_interleaved", n, bins, shape, r, &expected);
}

/// Step 9.9 of [`CODED`].
fn step_9_9(runner: &mut Runner<'_>) {
    let (n, bins, block) = (runner.n, runner.p.bins, runner.p.block);
    let data = runner.bytes;
    let expected = reference::byte_histogram(data, bins);
    let k = runner.k;
    let optin = runner.dev.props().shared_bytes_per_block_optin;
    if FASTEST_SHARED_BYTES > optin {
        runner.skip(
            "histo_fastest",
            bins,
            format!(
                "its {} copies of the byte values' counters need {FASTEST_SHARED_BYTES} bytes of \
                 shared memory; a block may have {optin}",
                FastestPolicy::LANE_COPIES,
            ),
        );
        return;
    }
    let shape = launch::fastest_shape(runner.dev, &k.histo_fastest, n, block);
    let shape = shape.map(|s| Shape {
        grid: runner.p.grid.unwrap_or(s.grid),
        ..s
    });
    match shape {
        Ok(shape) => {
            let r = launch::bytes(runner.dev, &k.histo_fastest, data, bins, shape);
            runner.push("histo_fastest", n, bins, shape, r, &expected);
        }
        Err(e) => {
            let shape = Shape::new(1, block).with_bins(bins);
            runner.push("histo_fastest", n, bins, shape, Err(e), &expected);
        }
    }
}

/// Step 9.10 of [`CODED`].
fn step_9_10(runner: &mut Runner<'_>) {
    let (n, bins, block) = (runner.n, runner.p.bins, runner.p.block);
    let k = runner.k;
    let b = bins.min(REGISTER_BINS);
    let values = inputs::values(&runner.p.input, n, b, runner.p.seed);
    let shape = Shape::new(runner.grid(n), block);
    let r = launch::values(runner.dev, &k.histo_registers, &values, b, shape);
    runner.push(
        "histo_registers",
        n,
        b,
        shape,
        r,
        &reference::value_histogram(&values, b),
    );
    if b < bins {
        runner.note(format!("{REGISTER_BINS} bins at most (asked for {bins})"));
    }
}

/// Step 9.11 of [`CODED`].
fn step_9_11(runner: &mut Runner<'_>) {
    let (n, bins, block) = (runner.n, runner.p.bins, runner.p.block);
    let k = runner.k;
    let pixels = inputs::bytes(&runner.p.input, 3 * n, runner.p.seed);
    let shape = Shape::new(runner.grid(n), block).with_bins(3 * bins);
    let r = launch::bytes(runner.dev, &k.histo_rgb, &pixels, 3 * bins, shape);
    runner.push(
        "histo_rgb",
        n,
        3 * bins,
        shape,
        r,
        &reference::rgb_histogram(&pixels, bins),
    );
}

/// Step 9.13 of [`CODED`].
fn step_9_13(runner: &mut Runner<'_>) {
    let (n, bins, block) = (runner.n, runner.p.bins, runner.p.block);
    let data = runner.bytes;
    let k = runner.k;
    let bins_x = ((bins as f64).sqrt().floor() as u32).max(1);
    let bins_y = (bins / bins_x).max(1);
    let mut rng = Rng::new(runner.p.seed ^ 0x13);
    let y: Vec<u8> = data
        .iter()
        .map(|&x| x.wrapping_add(rng.below(16) as u8))
        .collect();
    let shape = Shape::new(runner.grid(n), block).with_bins(bins_x * bins_y);
    let r = launch::joint(runner.dev, &k.histo_joint, data, &y, bins_x, bins_y, shape);
    runner.push(
        "histo_joint",
        n,
        bins_x * bins_y,
        shape,
        r,
        &reference::joint_histogram(data, &y, bins_x, bins_y),
    );
    runner.note(format!("{bins_x} x {bins_y} bins, y = x + noise"));
}

/// Step 9.17 of [`CODED`]: the global kernel of 9.14 against the sliced one, whose
/// slices are as wide as the block's default shared memory allows; the grid is rounded up
/// to a multiple of the slices, so every block counts.
fn step_9_17(runner: &mut Runner<'_>) {
    let (n, bins, block) = (runner.n, runner.p.bins, runner.p.block);
    let k = runner.k;
    let values = inputs::values(&runner.p.input, n, bins, runner.p.seed);
    let expected = reference::value_histogram(&values, bins);
    let grid = runner.grid(n);
    let r = launch::values(
        runner.dev,
        &k.histo_u32_global,
        &values,
        bins,
        Shape::new(grid, block),
    );
    runner.push(
        "histo_u32_global",
        n,
        bins,
        Shape::new(grid, block),
        r,
        &expected,
    );
    let shape = Shape::sliced(
        grid,
        block,
        bins,
        runner.dev.props().shared_bytes_per_block / 4,
    );
    let width = shape.shared_bytes / 4;
    let slices = bins.div_ceil(width);
    let r = launch::values(runner.dev, &k.histo_u32_sliced, &values, bins, shape);
    runner.push("histo_u32_sliced", n, bins, shape, r, &expected);
    runner.note(format!("{slices} slice(s) of {width} bins"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every step is either code or data, never both and never neither: an exercise
    /// added to `exercises.toml` without launches or code would be a row that says so,
    /// and one with both would run its code and ignore its record.
    #[test]
    fn every_step_is_code_or_declared_launches() {
        for step in STEPS {
            let coded = CODED.iter().any(|c| c.id == step);
            let declared = chapter::declared::launches_of(&crate::LAUNCHES, step).is_some();
            assert!(
                coded != declared,
                "step {step}: coded {coded}, declared {declared}"
            );
        }
        for c in &CODED {
            assert!(
                STEPS.contains(&c.id),
                "coded step {} is not an exercise",
                c.id
            );
        }
    }

    /// Every declared launch names a kernel of the table with a signature the declared
    /// runner knows: a record naming another kernel would skip its row at run time.
    #[test]
    fn declared_launches_name_byte_or_u32_kernels() {
        let k = crate::kernels::kernels(course::KernelSource::Reference);
        for (step, launches) in &crate::LAUNCHES {
            for l in *launches {
                let kernel = k.named(l.kernel);
                assert!(kernel.is_some(), "{step}: no kernel `{}`", l.kernel);
                let known = kernel.is_some_and(|k| {
                    k.downcast_ref::<ByteKernel>().is_some()
                        || k.downcast_ref::<U32Kernel>().is_some()
                });
                assert!(
                    known,
                    "{step}: `{}` is neither a byte nor a u32 kernel",
                    l.kernel
                );
            }
        }
        assert!(k.named("not_a_kernel").is_none());
    }

    /// A declared launch of a kernel whose signature the runner does not know is a row
    /// that says so (the weighted kernel takes weights), not a panic; one whose bins do
    /// not fit shared memory is skipped, saying why.
    #[test]
    fn a_declared_launch_it_cannot_run_is_a_row_that_says_why() {
        let mut dev = Device::emulator();
        let k = crate::kernels::kernels(course::KernelSource::Reference);
        let p = Params {
            n: Some(1000),
            bins: 20_000,
            ..Params::default()
        };
        let bytes = inputs::bytes(&p.input, 1000, p.seed);
        let mut rows = Vec::new();
        let mut r = Runner {
            dev: &mut dev,
            k,
            p: &p,
            n: 1000,
            bytes: &bytes,
            step: "9.12",
            elem_bytes: 1,
            rows: &mut rows,
        };
        r.declared(&[
            Launch {
                kernel: "histo_weighted",
                grid: Grid::Stride,
                shared_bins: false,
            },
            Launch {
                kernel: "histo_aggregate",
                grid: Grid::Stride,
                shared_bins: true,
            },
            Launch {
                kernel: "histo_atomic",
                grid: Grid::OnePerThread,
                shared_bins: false,
            },
        ]);
        let said: Vec<(&str, &str, Option<&str>)> = rows
            .iter()
            .map(|r| (r.kernel.as_str(), r.status.as_str(), r.note.as_deref()))
            .collect();
        assert_eq!(said[0].1, "skipped");
        assert!(
            said[0]
                .2
                .is_some_and(|n| n.contains("needs its step as code")),
            "{said:?}"
        );
        assert_eq!(said[1].1, "skipped");
        assert!(
            said[1]
                .2
                .is_some_and(|n| n.contains("do not fit in 48 KiB")),
            "{said:?}"
        );
        assert_eq!(
            (said[2].0, said[2].1),
            ("histo_atomic", "correct"),
            "{said:?}"
        );
        assert_eq!(rows[2].grid, one_per_thread(1000, p.block));
    }
}
