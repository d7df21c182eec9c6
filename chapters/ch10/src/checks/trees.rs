//! Checks of 10.4 to 10.7: the trees in shared memory and coarsening.
//!
//! The three trees do the same additions; the counters tell them apart. A tree whose busy
//! threads are the first ones (10.5, 10.6) diverges only in the rounds where fewer than
//! 32 threads work: at most [`QUIET_DIVERGENCE`] divergent warp steps per block. The
//! interleaved tree (10.4) diverges in every warp of every round: more than that. The
//! strided index (10.5) reads words `2 * stride` apart (bank conflicts); sequential
//! addressing (10.6, 10.7) none.

use super::flow::{self, Values};
use super::{Checked, Ctx, counters, effective_global_atomics, require, verify_sum};
use crate::inputs;
use crate::kernels::SumKernel;
use crate::launch::{self, Run, one_per_thread};
use crate::reference;
use course::Outcome;

/// The block sizes every tree runs with: two warps, and eight.
const BLOCKS: [u32; 2] = [64, 256];

/// The most divergent warp steps a block of a tree with its busy threads first may take:
/// the five rounds with fewer than 32 busy threads, a few instructions each (two loads and
/// a store, and room for a student's own), and the commit by one thread.
pub const QUIET_DIVERGENCE: u64 = 5 * 4 + 4;

/// Which tree a check runs, and what its counters must show.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tree {
    Interleaved,
    StridedIndex,
    Sequential,
}

/// Runs `kernel` (a tree of `tree`'s kind) on every input and block size: the sum, the
/// data followed, then the counters.
fn check_tree(ctx: &mut Ctx, name: &str, k: SumKernel, tree: Tree) -> Checked {
    ctx.follow_data();
    // A round that reads a neighbour's word must wait for it, inside a warp too.
    ctx.order_lanes();
    let mut launches = 0;
    let (mut diverg, mut conflicts, mut blocks) = (0u64, 0u64, 0u64);
    let mut later: Option<Outcome> = None;
    for case in inputs::u32_cases(ctx.seed) {
        for block in BLOCKS {
            let grid = one_per_thread(case.n(), block);
            let label = format!("{}, <<<{grid}, {block}>>>", case.name);
            let run = launch::sum_u32(ctx.dev, &k, &case.data, grid, block);
            let run = verify_sum(ctx, &label, run, reference::sum_u32(&case.data))?;
            flow::follow(ctx, &label, name, &run, Values::U32(&case.data))?;
            // The counters' verdict waits until every launch's data has been followed: where
            // the data went says more than how many steps diverged.
            if let Err(o) = counted(ctx, &label, &run, tree) {
                later.get_or_insert(o);
            }
            if let Some(c) = counters(&run) {
                diverg += c.divergent_steps;
                conflicts += c.bank_conflicts;
                blocks += grid as u64;
            }
            launches += 1;
        }
    }
    if let Some(o) = later {
        return Err(o);
    }
    let seen = if blocks > 0 {
        format!(
            ", {:.1} divergent steps and {:.1} bank conflicts per block",
            diverg as f64 / blocks as f64,
            conflicts as f64 / blocks as f64
        )
    } else {
        String::new()
    };
    Ok(format!(
        "{launches} launches right, each element stored by its thread and added in the step's tree, one \
         global atomic per block{seen}{}",
        ctx.technique_note()
    ))
}

/// The counters `tree` must show on `run` (nothing on a GPU).
fn counted(ctx: &Ctx, label: &str, run: &Run<u32>, tree: Tree) -> Result<(), Outcome> {
    one_atomic_per_block(ctx, label, run)?;
    let grid = run.grid;
    if let Some(c) = counters(run) {
        let quiet = QUIET_DIVERGENCE * grid as u64;
        match tree {
            Tree::Interleaved => require(ctx, label, c.divergent_steps > quiet, None, || {
                format!(
                    "{} divergent warp steps in {grid} blocks, no more than a tree whose busy threads \
                                 are the first ones takes (at most {QUIET_DIVERGENCE} a block): 10.4's busy threads \
                                 are those with t % (2 * stride) == 0, spread over every warp",
                    c.divergent_steps
                )
            })?,
            Tree::StridedIndex | Tree::Sequential => require(
                ctx,
                label,
                c.divergent_steps <= quiet,
                Some(crate::failures::DIVERGENCE),
                || {
                    format!(
                        "{} divergent warp steps in {grid} blocks: a tree whose busy threads are the first \
                                 ones diverges only once fewer than 32 threads work (at most {QUIET_DIVERGENCE} \
                                 steps a block)",
                        c.divergent_steps
                    )
                },
            )?,
        }
        if tree == Tree::Sequential {
            require(
                ctx,
                label,
                c.bank_conflicts == 0,
                Some(crate::failures::BANK_CONFLICTS),
                || {
                    format!(
                        "{} shared-memory bank conflicts: with sequential addressing the 32 lanes of a warp \
                                 read 32 consecutive words",
                        c.bank_conflicts
                    )
                },
            )?;
        }
    }
    Ok(())
}

/// At most one global atomic that adds something per block.
fn one_atomic_per_block(ctx: &Ctx, label: &str, run: &Run<u32>) -> Result<(), Outcome> {
    let Some(c) = counters(run) else {
        return Ok(());
    };
    let atomics = effective_global_atomics(c);
    require(
        ctx,
        label,
        atomics <= run.grid as u64,
        Some(crate::failures::ATOMICS_PER_BLOCK),
        || {
            format!(
                "{atomics} global atomics added something in {} blocks: after the tree, one thread of each block \
                 adds the block's sum, once",
                run.grid
            )
        },
    )
}

pub(crate) fn check_10_4(ctx: &mut Ctx) -> Checked {
    let k = ctx.k.sum_tree_interleaved;
    check_tree(ctx, "sum_tree_interleaved", k, Tree::Interleaved)
}

pub(crate) fn check_10_5(ctx: &mut Ctx) -> Checked {
    let k = ctx.k.sum_tree_strided_index;
    check_tree(ctx, "sum_tree_strided_index", k, Tree::StridedIndex)
}

pub(crate) fn check_10_6(ctx: &mut Ctx) -> Checked {
    let k = ctx.k.sum_tree_sequential;
    check_tree(ctx, "sum_tree_sequential", k, Tree::Sequential)
}

/// 10.7's launches: two coarsening factors, a block of two warps.
const COARSEN: [(u32, u32); 2] = [(64, 2), (64, 4)];

pub(crate) fn check_10_7(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    ctx.order_lanes();
    let k = ctx.k.sum_coarsened;
    let mut launches = 0;
    let mut later: Option<Outcome> = None;
    for case in inputs::u32_cases(ctx.seed) {
        for (block, coarsen) in COARSEN {
            let grid = launch::coarsened(case.n(), block, coarsen);
            let label = format!("{}, <<<{grid}, {block}>>>, coarsen {coarsen}", case.name);
            let run = launch::sum_coarsened(ctx.dev, &k, &case.data, block, coarsen);
            let run = verify_sum(ctx, &label, run, reference::sum_u32(&case.data))?;
            flow::follow(ctx, &label, "sum_coarsened", &run, Values::U32(&case.data))?;
            if let Err(o) = coarsened_counters(ctx, &label, &run, coarsen) {
                later.get_or_insert(o);
            }
            launches += 1;
        }
    }
    if let Some(o) = later {
        return Err(o);
    }
    Ok(format!(
        "{launches} launches right on coarsened grids, each thread's run added in its register, coalesced \
         loads, one global atomic per block{}",
        ctx.technique_note()
    ))
}

/// Are the loads of a 10.7 launch with runs of `coarsen` coalesced? 4 sectors (128 bytes)
/// per warp load, and one more span of 4 for each step of the run: the warp that
/// straddles the end of the input has lanes that skip a step's load, and when the run is
/// walked from its last element those lanes reach the next step's load while the others
/// are still at this one; the emulator (which knows no loop's end, `simt::schedule`)
/// issues the two steps' loads as one request of two spans.
pub fn coarsened_loads_coalesced(c: &gpu_host::Counters, coarsen: u32) -> bool {
    c.global_load_sectors <= 4 * c.global_load_requests + 4 * coarsen as u64
}

/// 10.7's counters on `run` (a launch with runs of `coarsen`): one atomic per block,
/// coalesced loads ([`coarsened_loads_coalesced`]), 10.6's tree. Coalesced means both few
/// sectors per warp load and at most one warp load per element of a warp's runs: a load
/// split over several instructions (each lane at a call site of its own) touches few
/// sectors each, whatever the addresses.
fn coarsened_counters(ctx: &Ctx, label: &str, run: &Run<u32>, coarsen: u32) -> Result<(), Outcome> {
    one_atomic_per_block(ctx, label, run)?;
    let label = label.to_string();
    if let Some(c) = counters(run) {
        let warps = (run.grid as u64) * (run.block as u64).div_ceil(32);
        let most = warps * coarsen as u64;
        require(
            ctx,
            &label,
            c.global_load_requests <= most,
            Some(crate::failures::UNCOALESCED),
            || {
                format!(
                    "{} warp load instructions in {warps} warps coarsened {coarsen} times: the 32 lanes of a \
                     warp load each element of their runs together, in one instruction ({most} in all)",
                    c.global_load_requests
                )
            },
        )?;
        require(
            ctx,
            &label,
            coarsened_loads_coalesced(c, coarsen),
            Some(crate::failures::UNCOALESCED),
            || {
                format!(
                    "{} sectors for {} warp loads: 32 lanes reading 32 neighbouring words touch at most \
                             4 sectors (128 bytes)",
                    c.global_load_sectors, c.global_load_requests
                )
            },
        )?;
        require(
            ctx,
            &label,
            c.bank_conflicts == 0,
            Some(crate::failures::TREE_SHAPE),
            || {
                format!(
                    "{} shared-memory bank conflicts: after the run in registers comes 10.6's tree, \
                             whose lanes read consecutive words",
                    c.bank_conflicts
                )
            },
        )?;
    }
    Ok(())
}
