//! The progression: every step of the chapter run once, with what each kernel asks of
//! the hardware. `cargo run -p ch05` prints it; the snapshot tests lock it; the book
//! quotes it.
//!
//! Unlike the checks, the progression runs each kernel once, on the size you choose
//! (`--n`, `--block`, `--grid`, ...), and reports instead of judging: whether the output
//! is right, and the emulator's counters (warp instructions, SIMT efficiency, divergent
//! steps, global requests and sectors, atomics, barriers). A student kernel that is not
//! implemented is a row that says so, and the progression goes on.

use crate::checks::order_dependence;
use crate::inputs;
use crate::kernels::Kernels;
use crate::launch::{self, Run, one_per_thread, word_grid, word_grid_n};
use crate::reference;
use chapter::app::Steps;
use chapter::inputs::InputKind;
use gpu_host::{Device, LaunchConfig, LaunchError};
use serde::Serialize;
use solutions::ch05::{SPMD_N, stride_grid};

/// One step of the progression: the exercise it belongs to and what it runs. Every step of
/// chapter 5 is code (its kernels' launches each take a form of their own, unlike chapter
/// 9's declared launches, `chapter::declared`); the order is the registry's.
struct StepRecord {
    /// The exercise's id (`"5.3"`), as the registry, the CLI's `--step` and the book say.
    id: &'static str,
    /// Runs the step, pushing its rows.
    run: fn(Ctx<'_>),
}

/// The steps' code, by exercise id.
const PROGRESSION: [StepRecord; 6] = [
    StepRecord {
        id: "5.1",
        run: step_5_1,
    },
    StepRecord {
        id: "5.2",
        run: step_5_2,
    },
    StepRecord {
        id: "5.3",
        run: step_5_3,
    },
    StepRecord {
        id: "5.4",
        run: step_5_4,
    },
    StepRecord {
        id: "5.5",
        run: step_5_5,
    },
    StepRecord {
        id: "5.6",
        run: step_5_6,
    },
];

/// Every step's id, in order: the registry's exercises (`exercises.toml`).
pub const STEPS: [&str; crate::STEP_IDS.len()] = crate::STEP_IDS;

/// What the steps share: the device, the kernels, the parameters, and the inputs of the
/// element-wise steps (made once per run); a step pushes its rows into `rows`.
struct Ctx<'a> {
    dev: &'a mut Device,
    k: &'a Kernels,
    p: &'a Params,
    n: usize,
    block: u32,
    b: &'a [u32],
    c: &'a [u32],
    mul_expected: &'a [u32],
    linear: LaunchConfig,
    step: &'static str,
    rows: &'a mut Vec<Row>,
}

/// What to run the progression on: the command's options. The defaults run in a few
/// seconds on the emulator.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct Params {
    /// Elements of the 1-D kernels (bytes for the histograms).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_N)]
    pub n: usize,
    /// Threads per block of the 1-D kernels: 1 to 1024 (5.4's uniform kernel wants a
    /// multiple of 64).
    #[arg(long, value_name = "T", default_value_t = 256)]
    pub block: u32,
    /// Blocks of 5.3's grid-stride kernel [default: stride_grid of the device's SMs].
    #[arg(long, value_name = "G")]
    pub grid: Option<u32>,
    /// Words per thread of 5.6's fourth kernel.
    #[arg(long, value_name = "W", default_value_t = 8)]
    pub words_per_thread: u32,
    /// Seed of the generated inputs.
    #[arg(long, value_name = "S", default_value_t = 9)]
    pub seed: u64,
    /// The inputs' values: uniform (random, the default), zeros, skew:P (P% zeros) or
    /// text:PATH (a file's bytes, repeated to N; each byte a value of the 1-D kernels).
    /// 5.6's histograms are the ones it changes most: zeros put every atomic on one
    /// counter.
    #[arg(long, value_name = "KIND", default_value = "uniform", value_parser = chapter::inputs::parse_input)]
    pub input: InputKind,
}

/// The default number of elements: 64 Ki, a few seconds for the whole progression.
pub const DEFAULT_N: usize = 1 << 16;

/// The options' defaults.
impl Default for Params {
    fn default() -> Self {
        chapter::app::defaults()
    }
}

/// Chapter 5's own column of a row ([`chapter::row::Row`]'s `extra`): the launch,
/// `<<<grid, block>>>`, with every dimension for 2-D and 3-D launches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Launch {
    /// The launch as the table prints it.
    pub launch: String,
}

impl chapter::table::Launched for Launch {
    fn launch(&self) -> &str {
        &self.launch
    }
}

/// One kernel of one step, run once (elements are bytes for 5.6, threads' elements for
/// 5.2).
pub type Row = chapter::row::Row<Launch>;

/// A GPU launch's time and the bytes it moved ([`chapter::timing::GpuTime`]).
pub use chapter::timing::GpuTime;

/// The launch as the table prints it.
fn describe(cfg: &LaunchConfig) -> String {
    let d = |v: gpu_host::Dim3| {
        if v.y == 1 && v.z == 1 {
            v.x.to_string()
        } else if v.z == 1 {
            format!("({}, {})", v.x, v.y)
        } else {
            format!("({}, {}, {})", v.x, v.y, v.z)
        }
    };
    format!("<<<{}, {}>>>", d(cfg.grid), d(cfg.block))
}

/// What a step's launch gave, turned into a row.
struct Rowed<'a> {
    step: &'static str,
    kernel: &'a str,
    cfg: LaunchConfig,
    n: usize,
    bytes: u64,
}

impl Rowed<'_> {
    /// The row of `run` against `expected`.
    fn row(self, run: Result<Run, LaunchError>, expected: &[u32]) -> Row {
        let launch = Launch {
            launch: describe(&self.cfg),
        };
        Row {
            grid: self.cfg.blocks() as u32,
            block: self.cfg.threads_per_block() as u32,
            ..Row::new(self.step, self.kernel, "", self.n as u64, launch)
        }
        .launched(run, self.bytes, |out| out == expected)
    }
}

/// Runs the steps `s` asks for (all of [`STEPS`] when none), saying each before it
/// starts. The rows come in step order.
pub fn run(mut s: Steps<'_, Kernels, Params>) -> Vec<Row> {
    let (k, p) = (s.kernels, s.params);
    let mut rows = Vec::new();
    let n = p.n;
    let block = p.block.max(1);
    let b = inputs::of_kind(&p.input, n, 1 << 15, p.seed);
    let c = inputs::of_kind(&p.input, n, 1 << 15, p.seed + 1);
    let mul_expected = reference::mul(&b, &c);
    let linear = LaunchConfig::linear(one_per_thread(n, block), block);
    for &step in &STEPS {
        if !s.wants(step) {
            continue;
        }
        let Some(record) = PROGRESSION.iter().find(|r| r.id == step) else {
            // `every_step_has_its_code` keeps this from happening.
            continue;
        };
        s.say(&format!("step {step}"));
        (record.run)(Ctx {
            dev: &mut *s.dev,
            k,
            p,
            n,
            block,
            b: &b,
            c: &c,
            mul_expected: &mul_expected,
            linear,
            step,
            rows: &mut rows,
        });
    }
    rows
}

/// Step 5.1 of [`PROGRESSION`].
fn step_5_1(
    Ctx {
        dev,
        k,
        n,
        b,
        c,
        mul_expected,
        linear,
        step,
        rows,
        ..
    }: Ctx<'_>,
) {
    // One block of 128 threads, as the source text launches it, on the first
    // 128 elements: with `--n` below 128 the unguarded kernel runs past the
    // end of the arrays, which memcheck reports (the tail of 5.1).
    let small = (SPMD_N as usize).min(n);
    let cfg = LaunchConfig::linear(1, SPMD_N);
    let r = Rowed {
        step,
        kernel: "mul_one_block",
        cfg,
        n: small,
        bytes: 12 * small as u64,
    };
    let run = launch::mul(dev, &k.mul_one_block, &b[..small], &c[..small], cfg);
    rows.push(r.row(run, &mul_expected[..small]));
    let r = Rowed {
        step,
        kernel: "mul_blocks",
        cfg: linear,
        n,
        bytes: 12 * n as u64,
    };
    rows.push(r.row(launch::mul(dev, &k.mul_blocks, b, c, linear), mul_expected));
}

/// Step 5.2 of [`PROGRESSION`].
fn step_5_2(
    Ctx {
        dev, k, step, rows, ..
    }: Ctx<'_>,
) {
    let (g2, b2) = ((4, 2), (32, 8));
    let cfg = LaunchConfig::dims((g2.0, g2.1, 1), (b2.0, b2.1, 1));
    let expected = reference::coords_2d(g2, b2);
    let r = Rowed {
        step,
        kernel: "write_coords_2d",
        cfg,
        n: expected.len(),
        bytes: 4 * expected.len() as u64,
    };
    rows.push(r.row(launch::coords(dev, &k.write_coords_2d, cfg), &expected));
    let (g3, b3) = ((2, 2, 2), (32, 4, 2));
    let cfg = LaunchConfig::dims(g3, b3);
    let expected = reference::coords_3d(g3, b3);
    let r = Rowed {
        step,
        kernel: "write_coords_3d",
        cfg,
        n: expected.len(),
        bytes: 4 * expected.len() as u64,
    };
    rows.push(r.row(launch::coords(dev, &k.write_coords_3d, cfg), &expected));
}

/// Step 5.3 of [`PROGRESSION`].
fn step_5_3(
    Ctx {
        dev,
        k,
        p,
        n,
        block,
        b,
        c,
        mul_expected,
        step,
        rows,
        ..
    }: Ctx<'_>,
) {
    let grid = p
        .grid
        .unwrap_or_else(|| stride_grid(dev.props().sm_count, n as u32, block));
    let cfg = LaunchConfig::linear(grid, block);
    let r = Rowed {
        step,
        kernel: "mul_grid_stride",
        cfg,
        n,
        bytes: 12 * n as u64,
    };
    rows.push(r.row(
        launch::mul(dev, &k.mul_grid_stride, b, c, cfg),
        mul_expected,
    ));
}

/// Step 5.4 of [`PROGRESSION`].
fn step_5_4(
    Ctx {
        dev,
        k,
        p,
        n,
        linear,
        step,
        rows,
        ..
    }: Ctx<'_>,
) {
    let data = inputs::of_kind(&p.input, n, 1 << 20, p.seed + 2);
    let expected = reference::classify(&data);
    for (name, kernel, exp) in [
        ("classify_divergent", &k.classify_divergent, &expected),
        (
            "classify_half_warp",
            &k.classify_half_warp,
            &reference::classify_half_warp(&data),
        ),
        ("classify_uniform", &k.classify_uniform, &expected),
    ] {
        let r = Rowed {
            step,
            kernel: name,
            cfg: linear,
            n,
            bytes: 8 * n as u64,
        };
        rows.push(r.row(launch::map(dev, kernel, &data, linear), exp));
    }
    // One block of 65 threads: a third warp with one lane.
    let small = &data[..65.min(n)];
    let cfg = LaunchConfig::linear(1, 65);
    let r = Rowed {
        step,
        kernel: "classify_divergent",
        cfg,
        n: small.len(),
        bytes: 8 * small.len() as u64,
    };
    rows.push(r.row(
        launch::map(dev, &k.classify_divergent, small, cfg),
        &reference::classify(small),
    ));
}

/// Step 5.5 of [`PROGRESSION`].
fn step_5_5(
    Ctx {
        dev,
        k,
        p,
        n,
        linear,
        step,
        rows,
        ..
    }: Ctx<'_>,
) {
    let data = inputs::of_kind(&p.input, n, 1 << 20, p.seed + 3);
    let expected = reference::smooth(&data);
    let r = Rowed {
        step,
        kernel: "smooth_in_place",
        cfg: linear,
        n,
        bytes: 8 * n as u64,
    };
    let mut row = r.row(
        launch::in_place(dev, &k.smooth_in_place, &data, linear),
        &expected,
    );
    order_note(dev, &mut row, Ok(&k.smooth_in_place), &data, linear);
    rows.push(row);
    let r = Rowed {
        step,
        kernel: "smooth",
        cfg: linear,
        n,
        bytes: 8 * n as u64,
    };
    let mut row = r.row(launch::map(dev, &k.smooth, &data, linear), &expected);
    order_note(dev, &mut row, Err(&k.smooth), &data, linear);
    rows.push(row);
}

/// Step 5.6 of [`PROGRESSION`].
fn step_5_6(
    Ctx {
        dev,
        k,
        p,
        n,
        block,
        linear,
        step,
        rows,
        ..
    }: Ctx<'_>,
) {
    let data = chapter::inputs::bytes(&p.input, n, p.seed + 4);
    let expected = reference::histogram(&data);
    let nb = n as u64;
    let cfg = linear;
    let r = Rowed {
        step,
        kernel: "histo_byte",
        cfg,
        n,
        bytes: nb,
    };
    rows.push(r.row(launch::histo(dev, &k.histo_byte, &data, cfg), &expected));
    let cfg = LaunchConfig::linear(word_grid(n, block), block);
    let r = Rowed {
        step,
        kernel: "histo_word",
        cfg,
        n,
        bytes: nb,
    };
    rows.push(r.row(launch::histo(dev, &k.histo_word, &data, cfg), &expected));
    let r = Rowed {
        step,
        kernel: "histo_shared",
        cfg,
        n,
        bytes: nb,
    };
    rows.push(r.row(launch::histo(dev, &k.histo_shared, &data, cfg), &expected));
    let per = p.words_per_thread.max(1);
    let cfg = LaunchConfig::linear(word_grid_n(n, block, per), block);
    let name = format!("histo_shared_n (N = {per})");
    let r = Rowed {
        step,
        kernel: &name,
        cfg,
        n,
        bytes: nb,
    };
    rows.push(r.row(
        launch::histo_n(dev, &k.histo_shared_n, &data, per, cfg),
        &expected,
    ));
}

/// On the emulator, a right row whose output changes with the order of the blocks
/// becomes `"order-dependent"`, with the orders that disagree in its note.
fn order_note(
    dev: &mut Device,
    row: &mut Row,
    kernel: Result<&crate::kernels::OutKernel, &crate::kernels::MapKernel>,
    data: &[u32],
    cfg: LaunchConfig,
) {
    if !dev.is_emulator() || row.status == "not implemented" {
        return;
    }
    if let Ok(Some((a, b, i))) = order_dependence(dev, kernel, data, cfg) {
        row.status = "order-dependent".into();
        row.correct = false;
        row.note = Some(format!("element {i} differs between {a} and {b}"));
    }
}

/// The columns of the table on a GPU (`--columns` names them).
pub const GPU_COLUMNS: &[&str] = &["step", "kernel", "launch", "status", "n", "ms", "GB/s"];

/// The columns of the table on the emulator (`--columns` names them).
pub const EMULATOR_COLUMNS: &[&str] = &[
    "step",
    "kernel",
    "launch",
    "status",
    "n",
    "warp.instr",
    "simt.eff",
    "diverg",
    "ld.req",
    "ld.sect",
    "st.req",
    "st.sect",
    "g.atomics",
    "s.atomics",
    "barriers",
];

/// How the table lays out a row ([`chapter::table::progression`]).
pub const LAYOUT: chapter::table::Layout<Row> = chapter::table::Layout {
    emulator: EMULATOR_COLUMNS,
    gpu: GPU_COLUMNS,
    left: 4,
    lead: chapter::table::launch_lead,
    counters: |r| {
        let c = &r.counters;
        let simt = c.simt_efficiency.map_or("-".into(), |e| format!("{e:.2}"));
        let mut cells = vec![chapter::table::opt(c.warp_instructions), simt];
        cells.extend(
            [
                c.divergent_steps,
                c.global_load_requests,
                c.global_load_sectors,
                c.global_store_requests,
                c.global_store_sectors,
                c.global_atomics,
                c.shared_atomics,
                c.barriers,
            ]
            .map(chapter::table::opt),
        );
        cells
    },
    tail: |_| Vec::new(),
};

/// [`table`] with only the columns named in `keep` (all when it is empty), as `--columns`
/// asks.
pub fn table_columns(rows: &[Row], notes: bool, keep: &[String]) -> String {
    chapter::table::progression(&LAYOUT, rows, notes, keep)
}

/// The rows as a table, one line per row: the counters the chapter is about (on the
/// emulator), or each launch's time and GB/s (on a GPU, where there are no counters);
/// with `notes`, followed by each row's note.
///
/// Every column; [`table_columns`] keeps some.
pub fn table(rows: &[Row], notes: bool) -> String {
    table_columns(rows, notes, &[])
}

#[cfg(test)]
mod step_tests {
    use super::*;

    /// Every exercise of the registry has its step's code here, and every step here is an
    /// exercise: a step added to one and not the other fails here, not in a student's run.
    #[test]
    fn every_step_has_its_code() {
        for step in STEPS {
            assert!(
                PROGRESSION.iter().any(|r| r.id == step),
                "step {step} has no code in PROGRESSION"
            );
        }
        for r in &PROGRESSION {
            assert!(STEPS.contains(&r.id), "{} is not an exercise", r.id);
        }
    }
}
