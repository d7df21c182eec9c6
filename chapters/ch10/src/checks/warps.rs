//! Checks of 10.8 and 10.9: shuffles in the warp, and the fastest reduction.

use super::flow::{self, Values};
use super::{
    Checked, Ctx, counters, effective_global_atomics, require, shared_accesses, verify_f32,
    verify_sum,
};
use crate::inputs;
use crate::launch;
use crate::reference;
use chapter::follow::Followed;
use course::Outcome;
use simt::flow::Collective;

/// Grid-stride launches: a grid far smaller than the inputs, two block sizes.
const GRIDS: [(u32, u32); 2] = [(2, 64), (3, 96)];

/// Warp collective instructions a warp's reduction takes: five shuffle rounds.
const SHUFFLES: u64 = 5;

pub(crate) fn check_10_8(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let k = ctx.k.sum_warp_shuffle;
    let mut launches = 0;
    for case in inputs::u32_cases(ctx.seed) {
        for (grid, block) in GRIDS {
            let label = format!("{}, <<<{grid}, {block}>>>", case.name);
            let run = launch::sum_u32(ctx.dev, &k, &case.data, grid, block);
            let run = verify_sum(ctx, &label, run, reference::sum_u32(&case.data))?;
            flow::follow(
                ctx,
                &label,
                "sum_warp_shuffle",
                &run,
                Values::U32(&case.data),
            )?;
            if let Some(c) = counters(&run) {
                let warps = (grid * block / 32) as u64;
                require(
                    ctx,
                    &label,
                    shared_accesses(c) == 0,
                    Some(crate::failures::SHARED_MEMORY),
                    || {
                        format!(
                            "{} shared-memory instructions: the warp's lanes add each other's sums through \
                             shuffles, in registers",
                            shared_accesses(c)
                        )
                    },
                )?;
                let atomics = effective_global_atomics(c);
                require(
                    ctx,
                    &label,
                    atomics <= warps,
                    Some(crate::failures::ATOMICS_PER_WARP),
                    || {
                        format!(
                            "{atomics} global atomics added something in {warps} warps: one lane adds its warp's \
                             sum, once"
                        )
                    },
                )?;
                // A warp with no element may skip its shuffles (a kernel that returns on an
                // empty input, or whose warps vote on having work): the least is counted
                // over the warps that loaded an element.
                let busy = warps_that_loaded(&run, case.n()).min(warps);
                require(
                    ctx,
                    &label,
                    (SHUFFLES * busy..=2 * SHUFFLES * warps).contains(&c.warp_collectives),
                    Some(crate::failures::SHUFFLES),
                    || {
                        format!(
                            "{} warp collectives in {warps} warps ({busy} of them with elements): a warp \
                             adds its 32 sums with {SHUFFLES} shuffles",
                            c.warp_collectives
                        )
                    },
                )?;
            }
            launches += 1;
        }
    }
    Ok(format!(
        "{launches} launches right, each thread's elements in its register, {SHUFFLES} shuffles and one \
         global atomic per warp{}",
        ctx.technique_note()
    ))
}

/// The warps of `run` that loaded an element of its `n`: from the flow where it was
/// recorded, else the warps a grid-stride loop gives an element (those whose first
/// thread's index is below `n`).
fn warps_that_loaded<T>(run: &launch::Run<T>, n: usize) -> u64 {
    let flow = run.report.emulator.as_ref().and_then(|r| r.flow.as_ref());
    let Some(flow) = flow.filter(|f| !f.truncated) else {
        return (n as u64).div_ceil(32);
    };
    let input = run.input_addrs[0]..run.input_addrs[0] + 4 * n as u64;
    flow.events
        .iter()
        .filter(|e| {
            e.kind == simt::flow::FlowKind::Load
                && e.space == simt::Space::Global
                && input.contains(&e.addr)
        })
        .map(|e| (e.block, e.thread / 32))
        .collect::<std::collections::BTreeSet<_>>()
        .len() as u64
}

/// The most warp load instructions 16-byte loads of `n` elements take in `warps` warps:
/// a warp's instruction reads 32 vectors (128 elements), and each warp may have one
/// partial instruction of vectors and one of the tail.
fn vector_load_requests(n: usize, warps: u64) -> u64 {
    (n as u64).div_ceil(128) + 2 * warps
}

/// Shuffles `followed` saw, of every kind (`down`, `xor`, `idx`, `up`).
fn shuffles(followed: &Followed) -> u64 {
    followed
        .collectives
        .iter()
        .filter(|(k, _)| matches!(k, Collective::Shuffle(_)))
        .map(|(_, n)| n)
        .sum()
}

/// 10.9's block sum (the student's `block_sum`) on a launch of `grid` blocks and `warps`
/// warps: each warp adds its 32 sums with shuffles, and shared memory carries only the
/// warps' sums: no shared atomic, at most one shared store and one shared load instruction
/// per warp (and one more per block). The flow follows each block's elements to its one
/// atomic whatever the path inside the block, so the path is checked here: the threads'
/// sums put into shared memory (or a shared word every thread adds to) and added there by
/// one thread are right, and are not the step's technique.
fn block_sum_counters(
    ctx: &Ctx,
    label: &str,
    c: &gpu_host::Counters,
    followed: &Followed,
    grid: u32,
    warps: u64,
) -> Result<(), Outcome> {
    let shared_atomics = c.shared_atomic_lanes + c.shared_atomic_noop_lanes;
    require(
        ctx,
        label,
        shared_atomics == 0,
        Some(crate::failures::BLOCK_SUM),
        || {
            format!(
                "{shared_atomics} shared-memory atomic lanes: the block adds its threads' sums with shuffles \
                 in each warp, then the warps' sums, not with atomics on shared words"
            )
        },
    )?;
    // One store and one load instruction per warp, and one more of each per block (a block
    // that also passes its total around through shared memory).
    let moved = c.shared_store_requests.max(c.shared_load_requests);
    require(
        ctx,
        label,
        moved <= warps + grid as u64,
        Some(crate::failures::BLOCK_SUM),
        || {
            format!(
                "{} shared-memory store and {} load instructions in {warps} warps: only the warps' sums go \
                 through shared memory (one store per warp, and warp 0 loads them), the threads' sums are \
                 added within each warp with shuffles",
                c.shared_store_requests, c.shared_load_requests
            )
        },
    )?;
    let seen = shuffles(followed);
    require(
        ctx,
        label,
        (SHUFFLES * warps..=2 * SHUFFLES * (warps + grid as u64)).contains(&seen),
        Some(crate::failures::BLOCK_SUM),
        || {
            format!(
                "{seen} shuffles in {warps} warps of {grid} blocks: each warp adds its 32 sums with \
                 {SHUFFLES} shuffles (and warp 0 the warps' sums with {SHUFFLES} more)"
            )
        },
    )
}

pub(crate) fn check_10_9(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let (ku, kf) = (ctx.k.sum_fastest_u32, ctx.k.sum_fastest_f32);
    let mut launches = 0;
    let technique = |ctx: &Ctx,
                     label: &str,
                     c: &gpu_host::Counters,
                     followed: &Followed,
                     n: usize,
                     grid: u32,
                     block: u32| {
        let warps = (grid * block / 32) as u64;
        let atomics = effective_global_atomics(c);
        require(
            ctx,
            label,
            atomics <= grid as u64,
            Some(crate::failures::ATOMICS_PER_BLOCK),
            || {
                format!(
                    "{atomics} global atomics added something in {grid} blocks: thread 0 adds its block's sum, \
                     once"
                )
            },
        )?;
        require(
            ctx,
            label,
            c.local_memory_sites == 0,
            Some(crate::failures::LOCAL_MEMORY),
            || {
                format!(
                    "{} places index an array at run time: on a GPU that array lives in local memory \
                     (off-chip), not in registers",
                    c.local_memory_sites
                )
            },
        )?;
        let limit = vector_load_requests(n, warps);
        require(
            ctx,
            label,
            c.global_load_requests <= limit,
            Some(crate::failures::NARROW_LOADS),
            || {
                format!(
                    "{} warp load instructions for {n} elements: 16-byte loads take at most {limit} (32 vectors \
                     of 4 elements an instruction)",
                    c.global_load_requests
                )
            },
        )?;
        block_sum_counters(ctx, label, c, followed, grid, warps)
    };
    for case in inputs::u32_cases(ctx.seed) {
        for (grid, block) in GRIDS {
            let label = format!("u32: {}, <<<{grid}, {block}>>>", case.name);
            let run = launch::sum_u32(ctx.dev, &ku, &case.data, grid, block);
            let run = verify_sum(ctx, &label, run, reference::sum_u32(&case.data))?;
            let followed = flow::follow(
                ctx,
                &label,
                "sum_fastest_u32",
                &run,
                Values::U32(&case.data),
            )?;
            if let Some(c) = counters(&run) {
                technique(ctx, &label, c, &followed, case.n(), grid, block)?;
            }
            launches += 1;
        }
    }
    let mut worst = 0.0f64;
    for case in inputs::f32_cases(ctx.seed) {
        for (grid, block) in GRIDS {
            let label = format!("f32: {}, <<<{grid}, {block}>>>", case.name);
            let (exact, mass) = reference::sum_f64(&case.data);
            let bound = reference::f32_bound(reference::fastest_depth(case.n(), grid, block), mass);
            let run = launch::sum_f32(ctx.dev, &kf, &case.data, grid, block);
            let run = verify_f32(ctx, &label, run, exact, bound)?;
            let followed = flow::follow(
                ctx,
                &label,
                "sum_fastest_f32",
                &run,
                Values::F32(&case.data),
            )?;
            if let Some(c) = counters(&run) {
                technique(ctx, &label, c, &followed, case.n(), grid, block)?;
            }
            if bound > 0.0 {
                let got = run.out.first().copied().unwrap_or(0.0) as f64;
                worst = worst.max((got - exact).abs() / bound);
            }
            launches += 1;
        }
    }
    Ok(format!(
        "{launches} launches right (f32 within the bound of the kernel's order, at most {:.0}% of it), \
         16-byte loads, one global atomic per block{}",
        worst * 100.0,
        ctx.technique_note()
    ))
}
