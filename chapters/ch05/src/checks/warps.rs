//! 5.4 and 5.5: warps and divergence, and the order of blocks.

use super::{Checked, Ctx, counters};
use crate::inputs::{random_len, values};
use crate::kernels::{MapKernel, OutKernel};
use crate::launch::{self, Run, one_per_thread};
use crate::reference;
use chapter::checking::exactly;
use course::{Outcome, Status, catch_host};
use gpu_host::{Device, LaunchConfig, LaunchError};

/// Values of the 5.4 and 5.5 inputs stay below this (no wrapping in the sums).
const VALUE_LIMIT: u32 = 1 << 20;

/// 5.4: the prediction of warps per block (checked against the emulator's count of load
/// instructions for blocks of several sizes), then `classify_uniform`: right, and on
/// whole warps no divergent step and 32 active lanes per instruction.
pub(super) fn check_5_4(ctx: &mut Ctx) -> Checked {
    let predict = ctx.k.warps_per_block;
    let drawn = course::draw::extra(0x54, 6, 1, 1024)
        .into_iter()
        .map(|t| t as u32);
    for threads in [1u32, 31, 32, 33, 64, 65, 96, 100, 1024]
        .into_iter()
        .chain(drawn)
    {
        let got = catch_host(|| predict(threads))?;
        // The emulator's answer: the given divergent kernel's one load per warp.
        let data = values(threads as usize, VALUE_LIMIT, threads as u64);
        let case = format!("classify_divergent, n = {threads}, <<<1, {threads}>>>");
        let run = launch::map(
            ctx.dev,
            &ctx.k.classify_divergent,
            &data,
            LaunchConfig::linear(1, threads),
        );
        let run = ctx.launched(&case, run, "")?;
        let expected = match counters(&run) {
            Some(c) => c.global_load_requests as u32,
            None => threads.div_ceil(32),
        };
        if got != expected {
            return Err(Outcome::failed(
                crate::failures::WARPS_PER_BLOCK,
                format!(
                    "warps_per_block({threads}) = {got}, but the emulator issued the load of a \
                     block of {threads} threads as {expected} warp instructions, one per warp"
                ),
            ));
        }
    }
    let seed = ctx.seed;
    let random = random_len(3000, seed);
    let k = ctx.k.classify_uniform;
    let mut report = String::new();
    for (n, block, whole) in [
        // Whole warps and whole blocks: a multiple of the block.
        ((course::draw::n(4096) / 128).max(1) * 128, 128, true),
        (640, 64, true),
        (course::draw::n(1000), 64, false),
        (65, 64, false),
        (1, 128, false),
        (random, 128, false),
    ] {
        let grid = one_per_thread(n, block);
        let case = format!("classify_uniform, n = {n}, <<<{grid}, {block}>>>");
        let data = values(n, VALUE_LIMIT, seed + n as u64);
        let run = launch::map(ctx.dev, &k, &data, LaunchConfig::linear(grid, block));
        let run = ctx.verify_output(
            &case,
            run,
            "out",
            &reference::classify(&data),
            "the last pair of warps has lanes past the end: guard the element index",
            exactly,
        )?;
        let Some(c) = counters(&run) else { continue };
        if !whole {
            continue;
        }
        if c.divergent_steps != 0 {
            return Err(ctx
                .technique(
                    &case,
                    format!(
                        "{} divergent steps: the lanes of a warp still take different sides of a \
                     branch (SIMT efficiency {:.1} of 32 lanes)",
                        c.divergent_steps,
                        c.simt_efficiency()
                    ),
                )
                .detail("branch on something all 32 lanes of a warp share: the warp index, t / 32")
                .of_kind(crate::failures::DIVERGENT));
        }
        if c.lane_ops != 32 * c.warp_instructions {
            return Err(ctx
                .technique(
                    &case,
                    format!(
                        "SIMT efficiency {:.2}: {} lanes over {} warp instructions, where every \
                     instruction of a warp-uniform kernel on whole warps has all 32 lanes",
                        c.simt_efficiency(),
                        c.lane_ops,
                        c.warp_instructions
                    ),
                )
                .of_kind(crate::failures::IDLE_LANES));
        }
        if report.is_empty() {
            let div = launch::map(
                ctx.dev,
                &ctx.k.classify_divergent,
                &data,
                LaunchConfig::linear(grid, block),
            )
            .ok()
            .and_then(|r| r.report.counters().copied());
            if let Some(d) = div {
                report = format!(
                    " (classify_divergent on the same input: {} divergent steps, SIMT efficiency {:.1})",
                    d.divergent_steps,
                    d.simt_efficiency()
                );
            }
        }
    }
    Ok(format!(
        "warps_per_block matches the emulator for blocks of 1 to 1024 threads; classify_uniform \
         is right on n = 1, 65, 1000 and {random}, and on whole warps has no divergent step and \
         32 lanes per instruction{report}{}",
        ctx.technique_note()
    ))
}

/// Seeds of the block orders 5.5 runs each launch in (`None` is index order).
pub const BLOCK_ORDER_SEEDS: [Option<u64>; 4] = [None, Some(1), Some(2), Some(0x5eed)];

/// Runs `launch` once per order of [`BLOCK_ORDER_SEEDS`] on the emulator and returns the
/// runs; on a GPU, once. The first launch error ends it.
fn in_orders(
    ctx: &mut Ctx,
    launch: &dyn Fn(&mut Device) -> Result<Run, LaunchError>,
) -> Result<Vec<(Option<u64>, Run)>, LaunchError> {
    let orders: &[Option<u64>] = if ctx.dev.is_emulator() {
        &BLOCK_ORDER_SEEDS
    } else {
        &[None]
    };
    let mut runs = Vec::new();
    for &seed in orders {
        let run = ctx.with_block_order(seed, |c| launch(c.dev))?;
        runs.push((seed, run));
    }
    Ok(runs)
}

/// The name of a block order, for messages.
fn order_name(seed: Option<u64>) -> String {
    match seed {
        None => "blocks in index order".into(),
        Some(s) => format!("blocks shuffled with seed {s}"),
    }
}

/// Whether `kernel` (in place) or `map` (out of place) gives different outputs when the
/// same launch runs its blocks in the orders of [`BLOCK_ORDER_SEEDS`] on the emulator:
/// `Some((order a, order b, first element that differs))`. The progression's and the
/// book's demonstration of why 5.5's in-place sum is wrong.
pub fn order_dependence(
    dev: &mut Device,
    kernel: Result<&OutKernel, &MapKernel>,
    data: &[u32],
    cfg: LaunchConfig,
) -> Result<Option<(String, String, usize)>, LaunchError> {
    let mut outs: Vec<(Option<u64>, Vec<u32>)> = Vec::new();
    for seed in BLOCK_ORDER_SEEDS {
        let before = dev
            .emulator_config_mut()
            .map(|c| std::mem::replace(&mut c.block_order_seed, seed));
        let run = match kernel {
            Ok(k) => launch::in_place(dev, k, data, cfg),
            Err(k) => launch::map(dev, k, data, cfg),
        };
        if let (Some(b), Some(c)) = (before, dev.emulator_config_mut()) {
            c.block_order_seed = b;
        }
        outs.push((seed, run?.out));
    }
    let (s0, first) = &outs[0];
    Ok(outs[1..].iter().find_map(|(s, o)| {
        let i = (0..o.len()).find(|&i| o[i] != first[i])?;
        Some((order_name(*s0), order_name(*s), i))
    }))
}

/// 5.5: `smooth` gives the reference's output in every block order.
pub(super) fn check_5_5(ctx: &mut Ctx) -> Checked {
    let seed = ctx.seed;
    let random = random_len(3000, seed);
    let k = ctx.k.smooth;
    for (n, block) in [
        (course::draw::n(1000), 64),
        (1, 64),
        (2, 32),
        (64, 32),
        (random, 128),
    ] {
        let grid = one_per_thread(n, block);
        let case = format!("smooth, n = {n}, <<<{grid}, {block}>>>");
        let data = values(n, VALUE_LIMIT, seed + n as u64);
        let expected = reference::smooth(&data);
        let cfg = LaunchConfig::linear(grid, block);
        let runs = in_orders(ctx, &|dev| launch::map(dev, &k, &data, cfg));
        let runs = match runs {
            Ok(r) => r,
            Err(e) => {
                return Err(ctx.launch_error(
                    &case,
                    &e,
                    "guard the ends: i > 0 for the left neighbour, i + 1 < n for the right",
                ));
            }
        };
        let (s0, first) = &runs[0];
        for (s, run) in &runs[1..] {
            if let Some(i) = (0..first.out.len()).find(|&i| first.out[i] != run.out[i]) {
                return Err(ctx.on(&case)(Outcome::fail(
                    Status::Race,
                    format!(
                        "the output depends on the order of the blocks: element {i} is {} with {} \
                         and {} with {}",
                        first.out[i],
                        order_name(*s0),
                        run.out[i],
                        order_name(*s)
                    ),
                ))
                .detail("a block reads what another block writes; blocks run in no fixed order: read only src, write only dst"));
            }
        }
        for (s, run) in runs {
            let run = ctx.launched(&case, Ok(run), "")?;
            course::compare("dst[]", &expected, &run.out)
                .map_err(|o| ctx.on(&format!("{case}, {}", order_name(s)))(o))?;
        }
    }
    let orders = if ctx.dev.is_emulator() {
        format!("in {} block orders", BLOCK_ORDER_SEEDS.len())
    } else {
        "(one block order: the GPU's own)".to_string()
    };
    Ok(format!(
        "smooth gives the same right output {orders} on n = 1, 2, 64, 1000 and {random}"
    ))
}
