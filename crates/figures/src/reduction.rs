//! Pictures of chapter 10's mechanisms (the parallel reduction), drawn from the emulator's
//! trace and counters of small kernels run here: the tree in shared memory in its three
//! orderings (which threads add at each step, which warps split, how many passes the
//! banks take), the coarsened tree against the plain one, and `shfl.down` across a warp.
//!
//! The kernels are this module's own, the three orderings written as PMPP's chapter 10
//! writes them, one element per thread and one block, so that a figure shows one
//! mechanism on an input small enough to follow. Each figure is checked against its run:
//! the divergent steps and bank conflicts read from the trace must be the launch's
//! counters, the sums must be the input's, and the shuffle's values must be what
//! `shfl.down` defines. Drawn 420 px wide and shown 335 px wide, as the chapter 9
//! mechanism figures ([`crate::mechanisms`]).

use crate::Figure;
use crate::svg::{Svg, num};
use gpu::prelude::*;
use gpu_host::{Config, Device, LaunchConfig};
use simt::Counters;
use simt::op::Space;
use simt::trace::{AccessKind, Trace, TraceSink, TraceStep};
use std::collections::BTreeMap;

/// The figures' width as drawn.
const W: f64 = 420.0;
/// The figures' width as shown: a phone's column.
const SHOWN: f64 = 335.0;
/// The smallest text, 10 px as shown.
const SMALL: f64 = 12.6;
/// Threads of the tree figures' one block: four warps, seven steps of the tree.
pub const TREE_BLOCK: u32 = 128;
/// Elements each thread adds in registers before the tree, in the coarsened kernel.
pub const COARSEN: u32 = 4;
/// Colour of a thread that adds at a step.
const ACTIVE: &str = "#0072b2";
/// Colour of a thread that waits.
const IDLE: &str = "#dddddd";
/// Colour of the frame around a warp whose lanes split.
const SPLIT: &str = "#d55e00";

// ANCHOR: tree_interleaved
/// 10.4's ordering: at stride `s`, thread `t` adds `s[t + s]` into `s[t]` when
/// `t` is a multiple of `2 s`. The adding threads are spread over every warp.
// `t % (2 * stride) == 0` is PMPP's test, which the exercise is named after.
#[allow(clippy::manual_is_multiple_of)]
#[kernel]
pub fn tree_interleaved(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let s = shared_array![u32; TREE_BLOCK as usize];
    let t = thread::thread_idx_x();
    s.store(t, data.load(thread::index_1d()));
    thread::sync_threads();
    let mut stride = 1;
    while stride < thread::block_dim_x() {
        if t % (2 * stride) == 0 {
            s.store(t, s.load(t) + s.load(t + stride));
        }
        thread::sync_threads();
        stride *= 2;
    }
    if t == 0 {
        sum.atomic_add(0, s.load(0));
    }
}
// ANCHOR_END: tree_interleaved

// ANCHOR: tree_strided_index
/// 10.5's ordering: thread `t` works on `index = 2 s t`, so the adding threads
/// are the first ones, packed into few warps; their words are `2 s` apart.
#[kernel]
pub fn tree_strided_index(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let s = shared_array![u32; TREE_BLOCK as usize];
    let t = thread::thread_idx_x();
    s.store(t, data.load(thread::index_1d()));
    thread::sync_threads();
    let mut stride = 1;
    while stride < thread::block_dim_x() {
        let index = 2 * stride * t;
        if index < thread::block_dim_x() {
            s.store(index, s.load(index) + s.load(index + stride));
        }
        thread::sync_threads();
        stride *= 2;
    }
    if t == 0 {
        sum.atomic_add(0, s.load(0));
    }
}
// ANCHOR_END: tree_strided_index

// ANCHOR: tree_halving
/// 10.6's ordering: the stride halves from half the block, and thread `t < s`
/// adds `s[t + s]` into `s[t]`: the first threads add, on consecutive words.
#[kernel]
pub fn tree_halving(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let s = shared_array![u32; TREE_BLOCK as usize];
    let t = thread::thread_idx_x();
    s.store(t, data.load(thread::index_1d()));
    thread::sync_threads();
    let mut stride = thread::block_dim_x() / 2;
    while stride > 0 {
        if t < stride {
            s.store(t, s.load(t) + s.load(t + stride));
        }
        thread::sync_threads();
        stride /= 2;
    }
    if t == 0 {
        sum.atomic_add(0, s.load(0));
    }
}
// ANCHOR_END: tree_halving

// ANCHOR: tree_coarsened
/// 10.7's idea: each thread first adds [`COARSEN`] elements, a block apart, in a
/// register, then the block runs 10.6's tree once over its sums.
#[kernel]
pub fn tree_coarsened(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let s = shared_array![u32; TREE_BLOCK as usize];
    let t = thread::thread_idx_x();
    let base = thread::block_idx_x() * thread::block_dim_x() * COARSEN;
    let mut mine = 0;
    for k in 0..COARSEN {
        let i = base + k * thread::block_dim_x() + t;
        if i < data.len() {
            mine += data.load(i);
        }
    }
    s.store(t, mine);
    thread::sync_threads();
    let mut stride = thread::block_dim_x() / 2;
    while stride > 0 {
        if t < stride {
            s.store(t, s.load(t) + s.load(t + stride));
        }
        thread::sync_threads();
        stride /= 2;
    }
    if t == 0 {
        sum.atomic_add(0, s.load(0));
    }
}
// ANCHOR_END: tree_coarsened

// ANCHOR: shuffle_steps
/// One warp's `shfl.down` tree: lane `l` starts with `l + 1` and, at offsets 16,
/// 8, 4, 2 and 1, adds the value of lane `l + offset`. `out` gets every lane's
/// value after each step (32 per step, the start first), for the figure.
#[kernel]
pub fn shuffle_steps(out: GlobalSlice<u32>) {
    let lane = warp::lane_id();
    let mut v = lane + 1;
    out.store(lane, v);
    let mut offset = 16;
    let mut step = 1;
    while offset > 0 {
        v += warp::warp_shuffle_down(warp::FULL_MASK, v, offset, 32);
        out.store(step * 32 + lane, v);
        offset /= 2;
        step += 1;
    }
}
// ANCHOR_END: shuffle_steps

// ANCHOR: sum_racy
/// 10.2's mistake, for the book's prediction: every thread adds its element to
/// `sum[0]` with a plain load and store, one element per thread.
#[kernel]
pub fn sum_racy(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < data.len() {
        let x = data.load(i);
        sum.store(0, sum.load(0) + x);
    }
}
// ANCHOR_END: sum_racy

// ANCHOR: sum_atomic
/// 10.3's kernel, for the book's prediction: one global atomic per element.
#[kernel]
pub fn sum_atomic(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < data.len() {
        sum.atomic_add(0, data.load(i));
    }
}
// ANCHOR_END: sum_atomic

/// What a probe launch gave: the sum, the counters and how many findings (races) the
/// emulator reported.
#[derive(Clone, Debug)]
pub struct Probe {
    /// `sum[0]` after the launch.
    pub sum: u32,
    /// The launch's counters.
    pub counters: Counters,
    /// The emulator's findings (a race is one).
    pub findings: usize,
    /// The first finding, as the emulator words it.
    pub first_finding: Option<String>,
}

/// Runs `kernel` (one of [`sum_racy()`], [`sum_atomic()`]) on `n` ones as
/// `<<<ceil(n / block), block>>>` on the emulator: the numbers 10.2's and 10.3's pages
/// ask the reader to predict.
pub fn probe(
    kernel: &gpu_host::Kernel<(GlobalSlice<u32>, GlobalSlice<u32>)>,
    n: u32,
    block: u32,
) -> Result<Probe, String> {
    let mut dev = Device::emulator_with(Config::default());
    let data = dev
        .upload(&vec![1u32; n as usize])
        .map_err(|e| e.to_string())?;
    let sum = dev.alloc::<u32>(1).map_err(|e| e.to_string())?;
    let r = dev
        .launch(
            kernel,
            LaunchConfig::linear(n.div_ceil(block), block),
            (data.slice(), sum.slice()),
        )
        .map_err(|e| e.to_string())?;
    Ok(Probe {
        sum: dev.download(&sum).map_err(|e| e.to_string())?[0],
        counters: *r.counters().ok_or("the emulator gave no counters")?,
        findings: r.findings().len(),
        first_finding: r.findings().first().map(|f| f.to_string()),
    })
}

/// The input of the tree figures: element `i` is `i % 7 + 1`, a sum anyone can check.
fn tree_input(n: u32) -> Vec<u32> {
    (0..n).map(|i| i % 7 + 1).collect()
}

/// What one traced launch of a reduction gave: its counters, its trace and its sum.
struct Run {
    counters: Counters,
    report: simt::LaunchReport,
    trace: Trace,
    sum: u32,
}

/// Runs `kernel` on `n` elements as `<<<grid, TREE_BLOCK>>>` on a traced emulator.
fn run_tree(
    kernel: &gpu_host::Kernel<(GlobalSlice<u32>, GlobalSlice<u32>)>,
    n: u32,
    grid: u32,
) -> Result<Run, String> {
    let sink = TraceSink::new();
    let mut dev = Device::emulator_with(Config {
        trace: Some(sink.clone()),
        ..Config::default()
    });
    let data = dev.upload(&tree_input(n)).map_err(|e| e.to_string())?;
    let sum = dev.alloc::<u32>(1).map_err(|e| e.to_string())?;
    let r = dev
        .launch(
            kernel,
            LaunchConfig::linear(grid, TREE_BLOCK),
            (data.slice(), sum.slice()),
        )
        .map_err(|e| e.to_string())?;
    let report = r.emulator.clone().ok_or("the emulator gave no report")?;
    let counters = report.counters;
    let got = dev.download(&sum).map_err(|e| e.to_string())?[0];
    let want: u32 = tree_input(n).iter().sum();
    if got != want {
        return Err(format!("the tree summed to {got}, the input to {want}"));
    }
    let trace = sink.take().pop().ok_or("the launch left no trace")?;
    if trace.dropped_steps > 0 {
        return Err("the trace is incomplete".into());
    }
    Ok(Run {
        counters,
        report,
        trace,
        sum: got,
    })
}

/// The passes one shared-memory step takes: the most distinct words in one bank.
fn passes(st: &TraceStep) -> u64 {
    let mut words: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(_, w) in &st.lanes {
        let v = words.entry(w % 32).or_default();
        if !v.contains(&w) {
            v.push(w);
        }
    }
    words.values().map(|v| v.len() as u64).max().unwrap_or(0)
}

/// The shared buffer of `t` (the tree's array).
fn shared(t: &Trace) -> Result<u32, String> {
    t.buffers
        .iter()
        .position(|b| b.space == Space::Shared)
        .map(|i| i as u32)
        .ok_or_else(|| "the trace has no shared buffer".to_string())
}

/// Bank conflicts and the tree's divergent steps read from the trace, checked against
/// the launch's counters: the extra passes of every shared load and store must be the
/// launch's `bank_conflicts`, and the steps of the tree's add line run by fewer than 32
/// lanes (every warp of these launches is whole, so those are split warps) must be that
/// line's `divergent_steps`. (Thread 0's final load and atomic run alone but are not
/// divergent: the other lanes of its warp have exited, and exited lanes are not live.)
/// Returns the launch's divergent steps and bank conflicts.
fn check_counters(run: &Run, what: &str) -> Result<(u64, u64), String> {
    let sh = shared(&run.trace)?;
    let conflicts: u64 = run
        .trace
        .steps
        .iter()
        .filter(|s| s.buffer == sh && s.kind != AccessKind::Atomic)
        .map(|s| passes(s).saturating_sub(1))
        .sum();
    // The add's line: the line of most shared loads.
    let mut loads: BTreeMap<u32, usize> = BTreeMap::new();
    for st in run
        .trace
        .steps
        .iter()
        .filter(|s| s.buffer == sh && s.kind == AccessKind::Load)
    {
        *loads.entry(st.line).or_default() += 1;
    }
    let line = loads
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(l, _)| *l)
        .ok_or("the trace has no shared load")?;
    let traced = run
        .trace
        .steps
        .iter()
        .filter(|s| s.line == line && s.lanes.len() < 32)
        .count() as u64;
    let counted = run
        .report
        .line("reduction.rs", line)
        .map(|c| c.divergent_steps)
        .ok_or(format!("{what}: no counters for line {line}"))?;
    let c = &run.counters;
    if conflicts != c.bank_conflicts || traced != counted {
        return Err(format!(
            "{what}: the trace shows {conflicts} bank conflicts and {traced} divergent steps \
             of the add, the counters {} and {counted}",
            c.bank_conflicts
        ));
    }
    Ok((c.divergent_steps, conflicts))
}

/// One step of the tree in block 0: its stride, the threads that added, the warps that
/// split, and the worst passes of its shared loads and stores.
struct TreeStep {
    stride: u64,
    active: Vec<bool>,
    split: Vec<bool>,
    ways: u64,
    /// Warp 0's first load of the round (`s[a]`), when warp 0 added in it.
    warp0_load: Option<TraceStep>,
}

/// The tree's steps, read from the trace: a warp's two loads of the add (`s[a]`, then
/// `s[a + stride]`) give the stride as the difference of their words; the store follows.
fn tree_steps(run: &Run) -> Result<Vec<TreeStep>, String> {
    let t = &run.trace;
    let sh = shared(t)?;
    let block = TREE_BLOCK as usize;
    let warps = block / 32;
    let mut by_stride: BTreeMap<u64, TreeStep> = BTreeMap::new();
    // Per warp, its shared steps in order; the first store is the block's staging of the
    // input, then the tree's (load, load, store) triples, then thread 0's final load.
    for w in 0..warps as u32 {
        let mine: Vec<&TraceStep> = t
            .steps
            .iter()
            .filter(|s| s.block == 0 && s.warp == w && s.buffer == sh)
            .collect();
        let mut k = 1; // past the staging store
        while k + 2 < mine.len() || (k + 2 == mine.len() && mine[k + 1].kind == AccessKind::Store) {
            let (a, b, st) = (mine[k], mine[k + 1], mine[k + 2]);
            if a.kind != AccessKind::Load
                || b.kind != AccessKind::Load
                || st.kind != AccessKind::Store
            {
                break;
            }
            let stride = b.lanes[0].1 - a.lanes[0].1;
            let e = by_stride.entry(stride).or_insert_with(|| TreeStep {
                stride,
                active: vec![false; block],
                split: vec![false; warps],
                ways: 1,
                warp0_load: None,
            });
            if w == 0 {
                e.warp0_load = Some(a.clone());
            }
            for &(lane, _) in &a.lanes {
                e.active[w as usize * 32 + lane as usize] = true;
            }
            e.split[w as usize] = a.lanes.len() < 32;
            e.ways = e.ways.max(passes(a)).max(passes(b)).max(passes(st));
            k += 3;
        }
    }
    let steps: Vec<TreeStep> = by_stride.into_values().collect();
    if steps.len() != TREE_BLOCK.trailing_zeros() as usize {
        return Err(format!(
            "the trace shows {} tree steps, not log2({TREE_BLOCK})",
            steps.len()
        ));
    }
    Ok(steps)
}

/// Warp 0's load `st` in the round of stride `stride`, as the 32 banks: a column per bank,
/// a square per distinct word the bank serves, stacked one pass above the other.
fn bank_panel(s: &mut Svg, top: f64, (stride, st): &(u64, TraceStep)) {
    let lanes = st.lanes.len();
    s.text(
        10.0,
        top,
        SMALL,
        "start",
        &format!("banks of warp 0's first load at stride {stride} ({lanes} lanes):"),
        "bold",
    );
    let mut words: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(_, w) in &st.lanes {
        let v = words.entry(w % 32).or_default();
        if !v.contains(&w) {
            v.push(w);
        }
    }
    let n = passes(st).max(1) as f64;
    let (left, cell, grid_top) = (48.0, 11.0, top + 10.0);
    for b in 0..32u64 {
        let x = left + cell * b as f64;
        s.rect(x, grid_top, cell - 1.0, 10.0 * n + 4.0, "#eeeeee", 1.0);
        for k in 0..words.get(&b).map_or(0, Vec::len) {
            s.rect(
                x + 1.0,
                grid_top + 2.0 + 10.0 * k as f64,
                cell - 3.0,
                8.0,
                ACTIVE,
                1.0,
            );
        }
    }
    s.text(10.0, grid_top + 10.0, SMALL, "start", "pass", "normal");
    let below = grid_top + 10.0 * n + 20.0;
    for b in [0u64, 8, 16, 24, 31] {
        let x = left + cell * b as f64 + cell / 2.0;
        s.text(x, below, SMALL, "middle", &b.to_string(), "normal");
    }
    s.text(10.0, below, SMALL, "start", "bank", "normal");
}

/// One of the three tree figures: `name`, the kernel, the step it illustrates, its title,
/// and the lines that say what to look at.
fn tree_figure(
    name: &'static str,
    kernel: &gpu_host::Kernel<(GlobalSlice<u32>, GlobalSlice<u32>)>,
    kernel_name: &str,
    title: &str,
    lines: &[&str],
    halving: bool,
) -> Result<Figure, String> {
    let run = run_tree(kernel, TREE_BLOCK, 1)?;
    let (divergent, conflicts) = check_counters(&run, kernel_name)?;
    let mut steps = tree_steps(&run)?;
    if halving {
        steps.reverse();
    }
    let caption = format!(
        "SIMT emulator trace and counters of {kernel_name} (crates/figures/src/reduction.rs), \
         one block of {TREE_BLOCK} threads on {TREE_BLOCK} values (sum {}); a row is one step \
         of the tree, a cell one thread, framed: a warp whose lanes split; ways: the most \
         distinct words one bank served in one of the step's shared accesses",
        run.sum
    );
    let top = 50.0 + 18.0 * lines.len() as f64 + 14.0;
    let row_h = 20.0;
    let grid_top = top + 22.0;
    let grid_bottom = grid_top + row_h * steps.len() as f64;
    // The round whose banks the figure draws: warp 0's first load in the round with the
    // most passes, and among those the one with the most lanes.
    let shown = steps
        .iter()
        .filter_map(|st| st.warp0_load.as_ref().map(|l| (st.stride, l)))
        .max_by_key(|(stride, l)| (passes(l), l.lanes.len(), *stride))
        .map(|(stride, l)| (stride, l.clone()))
        .ok_or("warp 0 added in no round")?;
    let panel = 40.0 + 10.0 * passes(&shown.1) as f64 + 24.0;
    let height = grid_bottom + 74.0 + panel + Svg::caption_height_at(W, &caption, SMALL) + 6.0;
    let mut s = Svg::shown(W, height, title, SHOWN, SMALL);
    for (i, l) in lines.iter().enumerate() {
        s.text(
            10.0,
            50.0 + 18.0 * i as f64,
            SMALL + 1.0,
            "start",
            l,
            "normal",
        );
    }
    let (left, cell, gap) = (56.0, 2.0, 6.0);
    let warp_w = 32.0 * cell;
    let x_of = |t: usize| left + (t / 32) as f64 * (warp_w + gap) + cell * (t % 32) as f64;
    s.text(10.0, top + 12.0, SMALL, "start", "stride", "bold");
    for w in 0..(TREE_BLOCK / 32) as usize {
        s.text(
            x_of(w * 32) + warp_w / 2.0,
            top + 12.0,
            SMALL,
            "middle",
            &format!("warp {w}"),
            "bold",
        );
    }
    let (split_x, ways_x) = (356.0, 398.0);
    s.text(split_x, top + 12.0, SMALL, "middle", "split", "bold");
    s.text(ways_x, top + 12.0, SMALL, "middle", "ways", "bold");
    for (r, st) in steps.iter().enumerate() {
        let y = grid_top + row_h * r as f64;
        s.text(
            10.0,
            y + 14.0,
            SMALL,
            "start",
            &st.stride.to_string(),
            "normal",
        );
        for (t, &on) in st.active.iter().enumerate() {
            let colour = if on { ACTIVE } else { IDLE };
            s.rect(x_of(t), y + 3.0, cell - 0.3, row_h - 6.0, colour, 1.0);
        }
        for (w, &split) in st.split.iter().enumerate() {
            if split {
                s.body.push_str(&format!(
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{SPLIT}\" stroke-width=\"2\"/>\n",
                    num(x_of(w * 32) - 1.5),
                    num(y + 1.5),
                    num(warp_w + 2.7),
                    num(row_h - 3.0)
                ));
            }
        }
        let n_split = st.split.iter().filter(|&&x| x).count();
        s.text(
            split_x,
            y + 14.0,
            SMALL,
            "middle",
            &n_split.to_string(),
            "normal",
        );
        s.text(
            ways_x,
            y + 14.0,
            SMALL,
            "middle",
            &st.ways.to_string(),
            "normal",
        );
    }
    s.rect(10.0, grid_bottom + 10.0, 14.0, 12.0, ACTIVE, 1.0);
    s.text(30.0, grid_bottom + 20.0, SMALL, "start", "adds", "normal");
    s.rect(80.0, grid_bottom + 10.0, 14.0, 12.0, IDLE, 1.0);
    s.text(100.0, grid_bottom + 20.0, SMALL, "start", "waits", "normal");
    s.body.push_str(&format!(
        "<rect x=\"160\" y=\"{}\" width=\"14\" height=\"12\" fill=\"none\" stroke=\"{SPLIT}\" stroke-width=\"2\"/>\n",
        num(grid_bottom + 10.0)
    ));
    s.text(
        180.0,
        grid_bottom + 20.0,
        SMALL,
        "start",
        "a warp split in two",
        "normal",
    );
    s.text(
        10.0,
        grid_bottom + 46.0,
        SMALL,
        "start",
        &format!("counters: divergent steps {divergent}, bank conflicts {conflicts}"),
        "bold",
    );
    bank_panel(&mut s, grid_bottom + 74.0, &shown);
    s.caption(&caption);
    Ok(Figure {
        name,
        svg: s.finish(),
        phone: None,
    })
}

/// `ch10-tree-10.4.svg`: [`tree_interleaved()`], a split warp in every round.
pub fn tree_interleaved_figure() -> Result<Figure, String> {
    tree_figure(
        "ch10-tree-10.4.svg",
        &tree_interleaved::KERNEL,
        "tree_interleaved",
        "10.4: t % (2 stride) == 0",
        &[
            "The threads that add are spread over every",
            "warp: each warp runs the add with a few lanes.",
        ],
        false,
    )
}

/// `ch10-tree-10.5.svg`: [`tree_strided_index()`], the adding threads packed, their words
/// `2 stride` apart.
pub fn tree_strided_figure() -> Result<Figure, String> {
    tree_figure(
        "ch10-tree-10.5.svg",
        &tree_strided_index::KERNEL,
        "tree_strided_index",
        "10.5: index = 2 stride t",
        &[
            "The first threads add, so whole warps rest;",
            "but thread t reads words 2 stride t apart.",
        ],
        false,
    )
}

/// `ch10-tree-10.6.svg`: [`tree_halving()`], the adding threads packed on consecutive words.
pub fn tree_halving_figure() -> Result<Figure, String> {
    tree_figure(
        "ch10-tree-10.6.svg",
        &tree_halving::KERNEL,
        "tree_halving",
        "10.6: t < stride, stride halving",
        &[
            "The first threads add, on consecutive words:",
            "whole warps rest, and no bank serves twice.",
        ],
        true,
    )
}

/// `ch10-coarsened-10.7.svg`: the same 512 values reduced by [`tree_halving()`] in four
/// blocks and by [`tree_coarsened()`] in one block of threads that each add [`COARSEN`]
/// values first; the two runs' counters side by side.
pub fn coarsened_figure() -> Result<Figure, String> {
    let n = TREE_BLOCK * COARSEN;
    let plain = run_tree(&tree_halving::KERNEL, n, COARSEN)?;
    let coarse = run_tree(&tree_coarsened::KERNEL, n, 1)?;
    check_counters(&plain, "tree_halving")?;
    check_counters(&coarse, "tree_coarsened")?;
    // Which thread of which block loaded each element, from the traces' global loads.
    let loaders = |run: &Run| -> Result<Vec<(u64, u64)>, String> {
        let data = run
            .trace
            .buffers
            .iter()
            .position(|b| b.space == Space::Global && b.len == n as u64)
            .ok_or("no input buffer in the trace")? as u32;
        let mut who = vec![None; n as usize];
        for st in run.trace.steps.iter().filter(|s| s.buffer == data) {
            for &(lane, e) in &st.lanes {
                who[e as usize] = Some((st.block, st.warp as u64 * 32 + lane as u64));
            }
        }
        who.into_iter()
            .enumerate()
            .map(|(e, w)| w.ok_or(format!("no thread loaded element {e}")))
            .collect()
    };
    let (lp, lc) = (loaders(&plain)?, loaders(&coarse)?);
    // The picture's point: four blocks each load a row of 128; one block loads all four
    // rows, thread t the elements t, t + 128, t + 256, t + 384.
    for (e, (&(bp, tp), &(bc, tc))) in lp.iter().zip(&lc).enumerate() {
        let (row, col) = (e as u64 / TREE_BLOCK as u64, e as u64 % TREE_BLOCK as u64);
        if (bp, tp) != (row, col) || (bc, tc) != (0, col) {
            return Err(format!(
                "element {e}: loaded by block {bp} thread {tp} (10.6), block {bc} thread {tc} (10.7)"
            ));
        }
    }
    let caption = format!(
        "SIMT emulator traces and counters of tree_halving in {COARSEN} blocks of {TREE_BLOCK} \
         threads and tree_coarsened in 1 block of {TREE_BLOCK} threads, coarsening {COARSEN}, \
         on the same {n} values (crates/figures/src/reduction.rs); a cell is an element, its \
         colour the block that loaded it; barriers: released, once per block"
    );
    let (left, cell) = (62.0, 2.5);
    let block_colours = ["#0072b2", "#e69f00", "#009e73", "#cc79a7"];
    let top_a = 112.0;
    let top_b = top_a + 30.0 + 4.0 * 16.0 + 20.0;
    let table_top = top_b + 30.0 + 4.0 * 16.0 + 40.0;
    // Each row: a label and the two runs' values.
    let both = |f: fn(&Run) -> u64| (f(&plain), f(&coarse));
    let rows = [
        ("blocks (trees)", both(|r| r.trace.grid[0] as u64)),
        ("barriers", both(|r| r.counters.barriers)),
        (
            "shared loads + stores",
            both(|r| r.counters.shared_load_requests + r.counters.shared_store_requests),
        ),
        ("global atomics", both(|r| r.counters.global_atomic_lanes)),
        ("warp instructions", both(|r| r.counters.warp_instructions)),
    ];
    let height =
        table_top + 20.0 * rows.len() as f64 + 16.0 + Svg::caption_height_at(W, &caption, SMALL);
    let mut s = Svg::shown(W, height, "10.7: coarsening the tree", SHOWN, SMALL);
    for (i, l) in [
        "The same 512 values: four blocks each run a",
        "tree, or one block adds four values a thread",
        "in a register, then runs one tree.",
    ]
    .iter()
    .enumerate()
    {
        s.text(
            10.0,
            50.0 + 18.0 * i as f64,
            SMALL + 1.0,
            "start",
            l,
            "normal",
        );
    }
    s.text(
        10.0,
        top_a,
        SMALL + 1.0,
        "start",
        "10.6: four blocks of 128 threads",
        "bold",
    );
    for (e, &(b, _)) in lp.iter().enumerate() {
        let (row, col) = (e / TREE_BLOCK as usize, e % TREE_BLOCK as usize);
        let y = top_a + 12.0 + 16.0 * row as f64;
        s.rect(
            left + cell * col as f64,
            y,
            cell - 0.4,
            12.0,
            block_colours[b as usize % 4],
            1.0,
        );
    }
    for row in 0..COARSEN as usize {
        let y = top_a + 22.0 + 16.0 * row as f64;
        s.text(10.0, y, SMALL, "start", &format!("block {row}"), "normal");
    }
    s.text(
        10.0,
        top_b,
        SMALL + 1.0,
        "start",
        "10.7: one block, coarsening 4",
        "bold",
    );
    for (e, &(b, _)) in lc.iter().enumerate() {
        let (row, col) = (e / TREE_BLOCK as usize, e % TREE_BLOCK as usize);
        let y = top_b + 12.0 + 16.0 * row as f64;
        s.rect(
            left + cell * col as f64,
            y,
            cell - 0.4,
            12.0,
            block_colours[b as usize % 4],
            1.0,
        );
    }
    for row in 0..COARSEN as usize {
        let y = top_b + 22.0 + 16.0 * row as f64;
        s.text(
            10.0,
            y,
            SMALL,
            "start",
            &format!("load {}", row + 1),
            "normal",
        );
    }
    s.text(
        10.0,
        top_b + 12.0 + 16.0 * COARSEN as f64 + 16.0,
        SMALL,
        "start",
        "thread t: t, t + 128, t + 256, t + 384",
        "normal",
    );
    s.text(300.0, table_top, SMALL, "middle", "10.6", "bold");
    s.text(380.0, table_top, SMALL, "middle", "10.7", "bold");
    for (i, (label, (a, b))) in rows.iter().enumerate() {
        let y = table_top + 20.0 * (i + 1) as f64;
        s.text(10.0, y, SMALL, "start", label, "normal");
        s.text(300.0, y, SMALL, "middle", &a.to_string(), "normal");
        s.text(380.0, y, SMALL, "middle", &b.to_string(), "normal");
    }
    s.caption(&caption);
    Ok(Figure {
        name: "ch10-coarsened-10.7.svg",
        svg: s.finish(),
        phone: None,
    })
}

/// `ch10-shuffle-10.8.svg`: one warp of [`shuffle_steps()`]: every lane's value after each
/// `shfl.down` step, and, for the lanes whose values reach lane 0, the lane each one read.
/// The values must be `shfl.down`'s definition (lane `l` reads lane `l + offset`, or its
/// own value when that is past lane 31) and lane 0 must end with 1 + 2 + ... + 32.
pub fn shuffle_figure() -> Result<Figure, String> {
    let mut dev = Device::emulator_with(Config::default());
    let out = dev.alloc::<u32>(32 * 6).map_err(|e| e.to_string())?;
    let r = dev
        .launch(
            &shuffle_steps::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(),),
        )
        .map_err(|e| e.to_string())?;
    let c = *r.counters().ok_or("the emulator gave no counters")?;
    let v = dev.download(&out).map_err(|e| e.to_string())?;
    let offsets = [16usize, 8, 4, 2, 1];
    let mut want: Vec<u32> = (1..=32).collect();
    for (k, &o) in offsets.iter().enumerate() {
        want = (0..32)
            .map(|l| want[l] + if l + o < 32 { want[l + o] } else { want[l] })
            .collect();
        if v[(k + 1) * 32..(k + 2) * 32] != want[..] {
            return Err(format!(
                "shfl.down at offset {o}: the emulator gave {:?}, the definition {want:?}",
                &v[(k + 1) * 32..(k + 2) * 32]
            ));
        }
    }
    let total = v[5 * 32];
    if total != (1..=32).sum::<u32>() || c.warp_collectives != offsets.len() as u64 {
        return Err(format!(
            "the shuffle tree gave lane 0 {total} with {} warp collectives",
            c.warp_collectives
        ));
    }
    let caption = format!(
        "SIMT emulator run of shuffle_steps (crates/figures/src/reduction.rs), one warp, lane l \
         starting with l + 1; each column is every lane's value after one warp_shuffle_down; \
         blue: the lanes whose value reaches lane 0; the run counted {} warp collectives",
        c.warp_collectives
    );
    let (row_h, top) = (15.0, 118.0);
    let cx = |k: usize| 64.0 + 67.0 * k as f64;
    let half = 17.0;
    let bottom = top + row_h * 32.0;
    let height = bottom + 40.0 + Svg::caption_height_at(W, &caption, SMALL);
    let mut s = Svg::shown(W, height, "10.8: shfl.down across a warp", SHOWN, SMALL);
    for (i, l) in [
        "At each step lane l adds the value of lane",
        "l + offset; lanes past 31 read their own value.",
    ]
    .iter()
    .enumerate()
    {
        s.text(
            10.0,
            50.0 + 18.0 * i as f64,
            SMALL + 1.0,
            "start",
            l,
            "normal",
        );
    }
    s.text(cx(3), 92.0, SMALL, "middle", "after offset", "bold");
    s.text(22.0, 108.0, SMALL, "middle", "lane", "bold");
    s.text(cx(0), 108.0, SMALL, "middle", "start", "bold");
    for (k, o) in offsets.iter().enumerate() {
        s.text(cx(k + 1), 108.0, SMALL, "middle", &o.to_string(), "bold");
    }
    // Lanes that matter after step k: those below the next offset (all 32 at the start).
    let useful = |k: usize, l: usize| if k == 0 { true } else { l < offsets[k - 1] };
    for l in 0..32usize {
        let y = top + row_h * l as f64;
        s.text(22.0, y + 11.5, SMALL, "middle", &l.to_string(), "normal");
        for k in 0..6usize {
            let colour = if useful(k, l) { "#56b4e9" } else { "#eeeeee" };
            s.rect(cx(k) - half, y + 1.0, 2.0 * half, row_h - 2.0, colour, 0.7);
            s.text(
                cx(k),
                y + 11.5,
                SMALL,
                "middle",
                &v[k * 32 + l].to_string(),
                "normal",
            );
        }
    }
    for (k, &o) in offsets.iter().enumerate() {
        for l in 0..o {
            let y_from = top + row_h * (l + o) as f64 + row_h / 2.0;
            let y_to = top + row_h * l as f64 + row_h / 2.0;
            s.line(
                cx(k) + half,
                y_from,
                cx(k + 1) - half,
                y_to,
                "#0072b2",
                1.0,
                "",
            );
        }
    }
    s.text(
        10.0,
        bottom + 22.0,
        SMALL,
        "start",
        &format!("lane 0: {total} = 1 + 2 + ... + 32, in 5 steps"),
        "bold",
    );
    s.caption(&caption);
    Ok(Figure {
        name: "ch10-shuffle-10.8.svg",
        svg: s.finish(),
        phone: None,
    })
}

/// Chapter 10's five mechanism figures.
pub fn reduction_figures() -> Result<Vec<Figure>, String> {
    Ok(vec![
        tree_interleaved_figure()?,
        tree_strided_figure()?,
        tree_halving_figure()?,
        coarsened_figure()?,
        shuffle_figure()?,
    ])
}
