//! The progression: every step of the chapter run once, with what each kernel asks of
//! the hardware. `cargo run -p ch10` prints it.
//!
//! Unlike the checks, the progression runs each kernel once, on the size you choose
//! (`--n`, `--block`, `--grid`, `--coarsen`), and reports instead of judging: whether the
//! sum is right, and the emulator's counters (divergent steps, loads and sectors, bank
//! conflicts, global atomics, barriers, warp collectives), or on a GPU each launch's time
//! and GB/s of input read. A student kernel that is not implemented is a row that says
//! so, and the progression goes on.

use crate::kernels::Kernels;
use crate::launch::{self, Run, coarsened, one_per_thread};
use crate::reference;
use chapter::app::Steps;
use chapter::inputs::InputKind;
use course::Outcome;
use gpu_host::LaunchError;
use serde::Serialize;

/// Every step's id, in order: the registry's exercises (`exercises.toml`).
pub const STEPS: [&str; crate::STEP_IDS.len()] = crate::STEP_IDS;

/// What to run the progression on: the command's options. The defaults run in a few
/// seconds on the emulator.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct Params {
    /// Elements to sum.
    #[arg(long, value_name = "N", default_value_t = 1 << 14)]
    pub n: usize,
    /// Threads per block: a multiple of 32 up to 1024 (the shuffles need whole warps); the
    /// trees (10.4 to 10.7) need a power of two and are skipped, saying so, without one.
    #[arg(long, value_name = "T", default_value_t = 256)]
    pub block: u32,
    /// Blocks of the grid-stride kernels (10.3, 10.8, 10.9) [default: from the device].
    #[arg(long, value_name = "G")]
    pub grid: Option<u32>,
    /// Elements each thread of 10.7 adds in its register before the tree.
    #[arg(long, value_name = "C", default_value_t = 4)]
    pub coarsen: u32,
    /// Seed of the generated inputs.
    #[arg(long, value_name = "S", default_value_t = 10)]
    pub seed: u64,
    /// The inputs' values: uniform (random bytes as values, the default), zeros, skew:P (P%
    /// zeros) or text:PATH (a file's bytes, repeated to N, each byte a value). The sums do
    /// not depend on the values' order; what zeros change is which atomics add nothing.
    #[arg(long, value_name = "KIND", default_value = "uniform", value_parser = chapter::inputs::parse_input)]
    pub input: InputKind,
}

/// The `u32` input of `p`: its bytes ([`chapter::inputs::bytes`]) as values.
pub fn u32_input(p: &Params) -> Vec<u32> {
    chapter::inputs::bytes(&p.input, p.n, p.seed)
        .into_iter()
        .map(u32::from)
        .collect()
}

/// The `f32` input of `p`: its bytes as values centred on zero (`b - 127.5`), so that the
/// sum cancels as much as it adds.
pub fn f32_input(p: &Params) -> Vec<f32> {
    chapter::inputs::bytes(&p.input, p.n, p.seed)
        .into_iter()
        .map(|b| b as f32 - 127.5)
        .collect()
}

/// The options' defaults.
impl Default for Params {
    fn default() -> Self {
        chapter::app::defaults()
    }
}

/// Chapter 10's own columns of a row: the launch and the warp collectives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Extra {
    /// The launch as the table prints it, `<<<grid, block>>>` (`host` for 10.1).
    pub launch: String,
    /// Warp collective instructions (shuffles), on the emulator.
    pub collectives: Option<u64>,
}

impl chapter::table::Launched for Extra {
    fn launch(&self) -> &str {
        &self.launch
    }
}

/// One kernel of one step, run once.
pub type Row = chapter::row::Row<Extra>;

/// The columns of the table on a GPU.
pub const GPU_COLUMNS: &[&str] = &["step", "kernel", "launch", "status", "n", "ms", "GB/s"];

/// The columns of the table on the emulator (`--columns` names them).
pub const EMULATOR_COLUMNS: &[&str] = &[
    "step",
    "kernel",
    "launch",
    "status",
    "n",
    "warp.instr",
    "diverg",
    "ld.req",
    "ld.sect",
    "bank.cf",
    "g.atom",
    "barriers",
    "shfl",
];

/// How the table lays out a row.
pub const LAYOUT: chapter::table::Layout<Row> = chapter::table::Layout {
    emulator: EMULATOR_COLUMNS,
    gpu: GPU_COLUMNS,
    left: 4,
    lead: chapter::table::launch_lead,
    counters: |r| {
        let c = &r.counters;
        [
            c.warp_instructions,
            c.divergent_steps,
            c.global_load_requests,
            c.global_load_sectors,
            c.bank_conflicts,
            c.global_atomics,
            c.barriers,
            r.extra.collectives,
        ]
        .map(chapter::table::opt)
        .to_vec()
    },
    tail: |_| Vec::new(),
};

/// The row of one launch of `kernel` over `n` elements: its status (right, wrong, or
/// the launch's failure), its counters or GPU time.
fn row<T>(
    step: &'static str,
    kernel: &str,
    n: usize,
    run: Result<Run<T>, LaunchError>,
    right: impl FnOnce(&T) -> bool,
) -> Row {
    let collectives = run
        .as_ref()
        .ok()
        .and_then(|r| r.report.counters().map(|c| c.warp_collectives));
    let mut row = Row::new(
        step,
        kernel,
        "",
        n as u64,
        Extra {
            launch: String::new(),
            collectives,
        },
    )
    .launched(run, n as u64 * 4, |out| out.first().is_some_and(right));
    if row.block > 0 {
        row.extra.launch = format!("<<<{}, {}>>>", row.grid, row.block);
    }
    row
}

/// The steps whose tree halves the block: they take a power-of-two block only.
const TREES: [&str; 4] = ["10.4", "10.5", "10.6", "10.7"];

/// The row of a tree step the block does not fit: skipped, saying why.
fn skipped(step: &'static str, kernel: &str, n: usize, block: u32) -> Row {
    Row {
        note: Some(format!(
            "a tree halves its block: {block} threads is not a power of two (try --block {})",
            block.next_power_of_two().min(1024)
        )),
        ..Row::new(
            step,
            kernel,
            "skipped",
            n as u64,
            Extra {
                launch: String::new(),
                collectives: None,
            },
        )
    }
}

/// The grid of the grid-stride kernels: `--grid`, else a resident wave of the device
/// with no idle blocks.
fn stride_grid(s: &mut Steps<'_, Kernels, Params>) -> u32 {
    let p = s.params;
    p.grid.unwrap_or_else(|| {
        let props = s.dev.props();
        let resident = props.sm_count * props.blocks_per_sm(p.block);
        resident.min(coarsened(p.n, p.block, 4)).max(1)
    })
}

/// Runs the steps `s` asks for (all of [`STEPS`] when none), saying each before it
/// starts. The rows come in step order.
pub fn run(mut s: Steps<'_, Kernels, Params>) -> Vec<Row> {
    let (k, p) = (s.kernels, s.params);
    let data = u32_input(p);
    let total = reference::sum_u32(&data);
    let floats = f32_input(p);
    let (exact, mass) = reference::sum_f64(&floats);
    let exact_u32 = move |x: &u32| *x == total;
    let mut rows = Vec::new();
    let (n, block) = (p.n, p.block);
    let per_thread = one_per_thread(n, block);
    if s.wants("10.1") {
        s.say("step 10.1");
        let host = |name: &str, right: Result<bool, Outcome>| {
            let mut r = Row::new(
                "10.1",
                name,
                "",
                n as u64,
                Extra {
                    launch: "host".into(),
                    collectives: None,
                },
            );
            match right {
                Ok(ok) => {
                    r.correct = ok;
                    r.status = if ok { "correct" } else { "wrong" }.into();
                }
                Err(o) => {
                    r.status = o.status.label().to_string();
                    r.note = Some(o.reason);
                }
            }
            r
        };
        let u = course::catch_host(|| (k.sum_sequential_u32)(&data)).map(|x| x == total);
        rows.push(host("sum_sequential_u32", u));
        let bound = reference::f32_bound(reference::sequential_depth(n), mass);
        let f = course::catch_host(|| (k.sum_sequential_f32)(&floats))
            .map(|x| (x as f64 - exact).abs() <= bound);
        rows.push(host("sum_sequential_f32", f));
    }
    let launch_u32 =
        |s: &mut Steps<'_, Kernels, Params>, id: &'static str, name: &str, kernel, grid: u32| {
            if !s.wants(id) {
                return None;
            }
            s.say(&format!("step {id}"));
            if TREES.contains(&id) && !block.is_power_of_two() {
                return Some(skipped(id, name, n, block));
            }
            let run = launch::sum_u32(s.dev, kernel, &data, grid, block);
            Some(row(id, name, n, run, exact_u32))
        };
    rows.extend(launch_u32(
        &mut s,
        "10.2",
        "sum_naive",
        &k.sum_naive,
        per_thread,
    ));
    let grid = stride_grid(&mut s);
    rows.extend(launch_u32(
        &mut s,
        "10.3",
        "sum_atomic",
        &k.sum_atomic,
        grid,
    ));
    rows.extend(launch_u32(
        &mut s,
        "10.4",
        "sum_tree_interleaved",
        &k.sum_tree_interleaved,
        per_thread,
    ));
    rows.extend(launch_u32(
        &mut s,
        "10.5",
        "sum_tree_strided_index",
        &k.sum_tree_strided_index,
        per_thread,
    ));
    rows.extend(launch_u32(
        &mut s,
        "10.6",
        "sum_tree_sequential",
        &k.sum_tree_sequential,
        per_thread,
    ));
    if s.wants("10.7") {
        s.say("step 10.7");
        if block.is_power_of_two() {
            let run = launch::sum_coarsened(s.dev, &k.sum_coarsened, &data, block, p.coarsen);
            rows.push(row("10.7", "sum_coarsened", n, run, exact_u32));
        } else {
            rows.push(skipped("10.7", "sum_coarsened", n, block));
        }
    }
    rows.extend(launch_u32(
        &mut s,
        "10.8",
        "sum_warp_shuffle",
        &k.sum_warp_shuffle,
        grid,
    ));
    if s.wants("10.9") {
        s.say("step 10.9");
        let g = p.grid.map_or_else(
            || launch::fastest_grid(s.dev, &k.sum_fastest_u32, n, block),
            Ok,
        );
        let run = g.and_then(|g| launch::sum_u32(s.dev, &k.sum_fastest_u32, &data, g, block));
        rows.push(row("10.9", "sum_fastest_u32", n, run, exact_u32));
        let g = p.grid.map_or_else(
            || launch::fastest_grid(s.dev, &k.sum_fastest_f32, n, block),
            Ok,
        );
        let bound = |g: u32| reference::f32_bound(reference::fastest_depth(n, g, block), mass);
        let run = g.and_then(|g| launch::sum_f32(s.dev, &k.sum_fastest_f32, &floats, g, block));
        let within = run.as_ref().map_or(0.0, |r| bound(r.grid));
        rows.push(row("10.9", "sum_fastest_f32", n, run, |x| {
            (*x as f64 - exact).abs() <= within
        }));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_host::Device;

    /// Every step runs with the reference kernels and gets the sum right; the naive step is
    /// the race it is meant to be.
    #[test]
    fn every_step_is_right_with_the_reference_kernels() {
        let params = chapter::app::defaults_with::<Params>("--n 3001 --block 64 --grid 3");
        let mut dev = Device::emulator();
        let rows = run(Steps::all(&mut dev, &crate::kernels::REFERENCE, &params));
        let mut steps: Vec<&str> = rows.iter().map(|r| r.step).collect();
        steps.dedup();
        assert_eq!(steps, STEPS);
        for r in &rows {
            if r.step == "10.2" {
                assert_eq!(r.status, "race", "{r:?}");
            } else {
                assert!(
                    r.correct,
                    "{} {}: {} {:?}",
                    r.step, r.kernel, r.status, r.note
                );
            }
        }
    }

    /// A block of whole warps that is no power of two runs the other steps and skips the
    /// trees, saying why.
    #[test]
    fn a_block_that_is_no_power_of_two_skips_the_trees() {
        let params = chapter::app::defaults_with::<Params>("--n 1000 --block 96 --grid 2");
        let mut dev = Device::emulator();
        let rows = run(Steps::all(&mut dev, &crate::kernels::REFERENCE, &params));
        for r in &rows {
            if TREES.contains(&r.step) {
                assert_eq!(r.status, "skipped", "{r:?}");
                assert!(
                    r.note
                        .as_deref()
                        .is_some_and(|n| n.contains("power of two"))
                );
            } else if r.step != "10.2" {
                assert!(r.correct, "{} {}: {}", r.step, r.kernel, r.status);
            }
        }
    }
}
