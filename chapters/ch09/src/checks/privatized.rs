//! Checks of 9.5 to 9.9: shared-memory privatization, coarsening, aggregation, warp
//! aggregation, and the fastest kernel.

use super::flow::{self, Input};
use super::{Checked, Ctx, Verify, counters};
use crate::inputs::{self, Case};
use crate::launch::{self, Run, Shape, coarsened, one_per_thread};
use crate::reference;
use chapter::follow::Followed;
use course::Outcome;
use gpu_host::Counters;
use solutions::ch09::FastestPolicy;

/// The counters every privatized kernel must show: exactly `shared` shared atomic lanes
/// (one per element, unless aggregated), and at most one global atomic per bin and block.
fn privatized(
    ctx: &Ctx,
    name: &str,
    c: &Counters,
    shared: u64,
    grid: u32,
    bins: u32,
) -> Result<(), Outcome> {
    let most = grid as u64 * bins as u64;
    if c.global_atomic_lanes > most {
        return Err(ctx.technique(
            name,
            format!(
                "privatized, yet {} global atomic lanes: {grid} block(s) x {bins} bins allow at most {most} \
                 (one commit per nonzero bin and block); count into the block's shared copy",
                c.global_atomic_lanes
            ),
        ));
    }
    if c.shared_atomic_lanes != shared {
        return Err(ctx.technique(
            name,
            format!("{} shared atomic lanes, expected {shared}: one shared atomic_add per counted element", c.shared_atomic_lanes),
        ));
    }
    Ok(())
}

pub(crate) fn check_9_5(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let mut launches = 0;
    let cases = inputs::byte_cases(ctx.seed);
    for case in &cases {
        for (block, bins) in [(64, 256), (96, 7)] {
            let shape = Shape::new(one_per_thread(case.n(), block), block);
            let name = format!(
                "histo_private_shared, {}, {bins} bins, <<<{}, {block}>>>",
                case.name, shape.grid
            );
            let run = launch::bytes(
                ctx.dev,
                &ctx.k.histo_private_shared,
                &case.data,
                bins,
                shape,
            );
            let run = ctx.verify_eq(&name, run, &reference::byte_histogram(&case.data, bins))?;
            if let Some(c) = counters(&run) {
                privatized(ctx, &name, c, case.n() as u64, shape.grid, bins)?;
            }
            flow::follow(
                ctx,
                &name,
                "histo_private_shared",
                &run,
                Input::Bytes(&case.data, bins),
            )?;
            launches += 1;
        }
    }
    for (i, case) in cases.iter().enumerate() {
        let mut all_bins = vec![256, 1, 1000];
        if i == 0 {
            all_bins.push(3000);
        }
        for bins in all_bins {
            let shape = Shape::new(one_per_thread(case.n(), 64), 64).with_bins(bins);
            let name = format!(
                "histo_private_dynamic, {}, {bins} bins, <<<{}, 64, {} bytes>>>",
                case.name, shape.grid, shape.shared_bytes
            );
            let run = launch::bytes(
                ctx.dev,
                &ctx.k.histo_private_dynamic,
                &case.data,
                bins,
                shape,
            );
            let run = ctx.verify_eq(&name, run, &reference::byte_histogram(&case.data, bins))?;
            if let Some(c) = counters(&run) {
                privatized(ctx, &name, c, case.n() as u64, shape.grid, bins)?;
            }
            flow::follow(
                ctx,
                &name,
                "histo_private_dynamic",
                &run,
                Input::Bytes(&case.data, bins),
            )?;
            launches += 1;
        }
    }
    Ok(format!(
        "{launches} launches right; one shared atomic per element, at most one global atomic per bin and block{}",
        ctx.technique_note()
    ))
}

pub(crate) fn check_9_6(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let mut launches = 0;
    let block = 64;
    let (mut contiguous_ratio, mut interleaved_ratio) = (0.0, 0.0);
    for case in inputs::byte_cases(ctx.seed) {
        for (coarsen, bins) in [(8u32, 256u32), (3, 16)] {
            let n = case.n();
            let grid = coarsened(n, block, coarsen);
            let shape = Shape::new(grid, block).with_bins(bins);
            let expected = reference::byte_histogram(&case.data, bins);
            let cut = format!(
                "coarsening factor {coarsen}: the grid has {grid} block(s) of {block} threads for {n} elements, \
                 so each thread must count up to {coarsen} of them"
            );
            // Contiguous.
            let name = format!(
                "histo_coarse_contiguous, {}, {bins} bins, coarsen {coarsen}",
                case.name
            );
            let run = launch::bytes_with(
                ctx.dev,
                &ctx.k.histo_coarse_contiguous,
                &case.data,
                bins,
                coarsen,
                shape,
            );
            let run = ctx
                .verify_eq(&name, run, &expected)
                .map_err(|o| o.detail(cut.clone()))?;
            flow::follow(
                ctx,
                &name,
                "histo_coarse_contiguous",
                &run,
                Input::Bytes(&case.data, bins),
            )?;
            if let Some(c) = counters(&run) {
                privatized(ctx, &name, c, n as u64, grid, bins)?;
                let (requests, sectors) =
                    reference::contiguous_sectors(n as u64, grid, block, coarsen as u64);
                loads(
                    ctx,
                    &name,
                    c,
                    requests,
                    sectors,
                    "thread t reads t*C, t*C + 1, ..., one per round",
                )?;
                if requests > 0 {
                    contiguous_ratio = sectors as f64 / requests as f64;
                }
            }
            // Interleaved.
            let name = format!(
                "histo_coarse_interleaved, {}, {bins} bins, coarsen {coarsen}",
                case.name
            );
            let run = launch::bytes(
                ctx.dev,
                &ctx.k.histo_coarse_interleaved,
                &case.data,
                bins,
                shape,
            );
            let run = ctx
                .verify_eq(&name, run, &expected)
                .map_err(|o| o.detail(cut.clone()))?;
            flow::follow(
                ctx,
                &name,
                "histo_coarse_interleaved",
                &run,
                Input::Bytes(&case.data, bins),
            )?;
            if let Some(c) = counters(&run) {
                privatized(ctx, &name, c, n as u64, grid, bins)?;
                let (requests, sectors) = reference::interleaved_sectors(n as u64, grid, block);
                loads(
                    ctx,
                    &name,
                    c,
                    requests,
                    sectors,
                    "thread t reads t, t + T, t + 2T, ... (T threads in the grid)",
                )?;
                if requests > 0 {
                    interleaved_ratio = sectors as f64 / requests as f64;
                }
            }
            launches += 2;
        }
    }
    if !ctx.dev.is_emulator() {
        return Ok(format!(
            "{launches} launches right on coarsened grids{}",
            ctx.technique_note()
        ));
    }
    Ok(format!(
        "{launches} launches right on coarsened grids; sectors per warp load: contiguous {contiguous_ratio:.1}, \
         interleaved {interleaved_ratio:.1}"
    ))
}

/// The global loads of a partition must be exactly the model's.
fn loads(
    ctx: &Ctx,
    name: &str,
    c: &Counters,
    requests: u64,
    sectors: u64,
    partition: &str,
) -> Result<(), Outcome> {
    if (c.global_load_requests, c.global_load_sectors) != (requests, sectors) {
        return Err(ctx
            .technique(
                name,
                format!(
                    "{} warp loads touching {} sectors, expected {requests} touching {sectors}: the partition is \
                 {partition}, one load per element",
                    c.global_load_requests, c.global_load_sectors
                ),
            )
            .of_kind(crate::failures::PARTITION));
    }
    Ok(())
}

/// Runs the grid-stride byte kernel `label` on every case, coarsened by `coarsen`, with
/// `bins` bins, follows its data and calls `technique` on each run; returns the launches
/// and what following the data showed.
fn grid_stride_runs(
    ctx: &mut Ctx,
    k: &crate::kernels::ByteKernel,
    label: &str,
    cases: &[Case<u8>],
    shapes: &[(u32, u32, u32)],
    mut technique: impl FnMut(&Ctx, &str, &Case<u8>, &Run<u32>, u32, u32) -> Result<(), Outcome>,
) -> Result<(usize, Followed), Outcome> {
    let mut followed = Followed::default();
    let mut launches = 0;
    for case in cases {
        for &(block, coarsen, bins) in shapes {
            let grid = coarsened(case.n(), block, coarsen);
            let shape = Shape::new(grid, block).with_bins(bins);
            let name = format!("{label}, {}, {bins} bins, <<<{grid}, {block}>>>", case.name);
            let run = launch::bytes(ctx.dev, k, &case.data, bins, shape);
            let run = ctx.verify_eq(&name, run, &reference::byte_histogram(&case.data, bins))?;
            followed.add(&flow::follow(
                ctx,
                &name,
                label,
                &run,
                Input::Bytes(&case.data, bins),
            )?);
            technique(ctx, &name, case, &run, grid, bins)?;
            launches += 1;
        }
    }
    Ok((launches, followed))
}

pub(crate) fn check_9_7(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let mut cases = inputs::byte_cases(ctx.seed);
    let zeros = course::draw::n(4096);
    cases.push(Case::new(format!("all zeros, n = {zeros}"), vec![0; zeros]));
    let (mut atomics, mut elements) = (0, 0);
    let k = ctx.k.histo_aggregate;
    let (launches, _) = grid_stride_runs(
        ctx,
        &k,
        "histo_aggregate",
        &cases,
        &[(64, 8, 256), (96, 4, 8)],
        |ctx, name, case, run, grid, bins| {
            let Some(c) = counters(run) else {
                return Ok(());
            };
            let runs = reference::grid_stride_runs(&case.data, bins, grid, run.block);
            if c.shared_atomic_lanes != runs {
                let why = if c.shared_atomic_lanes == case.n() as u64 && runs < case.n() as u64 {
                    "one per element: nothing was aggregated"
                } else {
                    "each thread must flush once per run of equal bins it meets in its grid-stride loop, and once at the end"
                };
                return Err(ctx
                    .technique(
                        name,
                        format!(
                            "{} shared atomic lanes, expected {runs} (the runs of equal bins): {why}",
                            c.shared_atomic_lanes
                        ),
                    )
                    .of_kind(crate::failures::RUNS));
            }
            privatized(ctx, name, c, runs, grid, bins)?;
            atomics += runs;
            elements += case.n() as u64;
            Ok(())
        },
    )?;
    if !ctx.dev.is_emulator() {
        return Ok(format!("{launches} launches right{}", ctx.technique_note()));
    }
    Ok(format!(
        "{launches} launches right; {atomics} shared atomics for {elements} elements, one per run"
    ))
}

pub(crate) fn check_9_8(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let cases = inputs::byte_cases(ctx.seed);
    let (mut atomics, mut elements) = (0, 0);
    let k = ctx.k.histo_warp_aggregate;
    let (launches, followed) = grid_stride_runs(
        ctx,
        &k,
        "histo_warp_aggregate",
        &cases,
        &[(64, 4, 256), (96, 2, 16)],
        |ctx, name, case, run, grid, bins| {
            let Some(c) = counters(run) else {
                return Ok(());
            };
            let distinct = reference::warp_distinct_bins(&case.data, bins, grid, run.block);
            if c.shared_atomic_lanes != distinct {
                return Err(ctx.technique(
                name,
                format!(
                    "{} shared atomic lanes, expected {distinct}: one per distinct bin in each warp instruction of the \
                     grid-stride loop (the lowest lane of each warp_match_any group adds for its peers)",
                    c.shared_atomic_lanes
                ),
            ).of_kind(crate::failures::DISTINCT_BINS));
            }
            if c.shared_atomic_max_depth > 1 {
                return Err(ctx.technique(
                name,
                format!(
                    "{} lanes of one atomic instruction hit the same bin: after warp aggregation each bin has one leader",
                    c.shared_atomic_max_depth
                ),
            ).of_kind(crate::failures::ONE_LEADER));
            }
            privatized(ctx, name, c, distinct, grid, bins)?;
            atomics += distinct;
            elements += case.n() as u64;
            Ok(())
        },
    )?;
    if !ctx.dev.is_emulator() {
        return Ok(format!("{launches} launches right{}", ctx.technique_note()));
    }
    Ok(format!(
        "{launches} launches right; {atomics} shared atomics for {elements} elements, one per distinct bin per warp step; {}",
        peers_found(&followed)
    ))
}

/// How 9.8's kernel found each lane's peers, from the collectives its warps issued:
/// `warp_match_any`, or other collectives (ballots, shuffles), which the check accepts as
/// warp aggregation (the atomics are what it checks) and names.
fn peers_found(f: &Followed) -> String {
    use simt::flow::Collective;
    let matches = f.collective(Collective::MatchAny);
    if matches > 0 {
        return format!("peers found with warp_match_any ({matches} warp instructions)");
    }
    let ballots = f.collective(Collective::Ballot);
    let shuffles: u64 = f
        .collectives
        .iter()
        .filter(|(c, _)| matches!(c, Collective::Shuffle(_)))
        .map(|(_, n)| n)
        .sum();
    format!(
        "peers found without warp_match_any, by {ballots} ballots and {shuffles} shuffles (warp aggregation all \
         the same: accepted; the book's 9.8 says what each costs)"
    )
}

pub(crate) fn check_9_9(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let mut cases = inputs::byte_cases(ctx.seed);
    // Around one 16-byte vector (15, 16, 17), then sizes a grid of vectors does not divide.
    for n in [15, 16, 17, course::draw::n(4099)] {
        cases.push(Case::new(
            format!("uniform random bytes, n = {n}"),
            inputs::uniform(n, ctx.seed + n as u64),
        ));
    }
    let big = course::draw::n(32_768) + 13;
    let big_case = Case::new(
        format!("uniform random bytes, n = {big}"),
        inputs::uniform(big, ctx.seed + 7),
    );
    cases.push(big_case.clone());
    let zeros = course::draw::n(32_768);
    cases.push(Case::new(
        format!("all zeros, n = {zeros}"),
        vec![0u8; zeros],
    ));
    let k = ctx.k.histo_fastest;
    let block = FastestPolicy::BLOCK_THREADS;
    let mut launches = 0;
    let mut conflict_free_requests = 0;
    let mut followed = Followed::default();
    for case in &cases {
        for bins in [256u32, 7] {
            let n = case.n();
            let policy = match launch::fastest_shape(ctx.dev, &k, n, block) {
                Ok(shape) => shape,
                Err(e) => {
                    let name = format!("{}, {bins} bins, the occupancy query", case.name);
                    return Err(ctx.on(&name)(Outcome::from_launch_error(&e)));
                }
            };
            // The policy's grid gives a short input a block per SM, so each thread may load
            // a vector or two; a grid where every thread has four is launched too, so that
            // the four loads in flight are seen (any grid must be right).
            let four_each = Shape {
                grid: n.div_ceil(block as usize * 64).max(1) as u32,
                ..policy
            };
            // And blocks of 64 threads with 16 vectors each: four rounds of four loads in
            // flight per thread, each of which is checked.
            let rounds = Shape {
                grid: n.div_ceil(64 * 16 * 16).max(1) as u32,
                block: 64,
                ..policy
            };
            let mut shapes = vec![policy];
            if four_each.grid < policy.grid {
                shapes.push(four_each);
            }
            shapes.push(rounds);
            for shape in shapes {
                let (grid, block) = (shape.grid, shape.block);
                let name = format!(
                    "{}, {bins} bins, <<<{grid}, {block}, {} bytes>>>",
                    case.name, shape.shared_bytes
                );
                let run = launch::bytes(ctx.dev, &k, &case.data, bins, shape);
                let run =
                    ctx.verify_eq(&name, run, &reference::byte_histogram(&case.data, bins))?;
                launches += 1;
                // The counters first (their figures say what is missing), then the data,
                // followed in every round of each thread's loop.
                if let Some(c) = counters(&run) {
                    fastest_counters(ctx, &name, c, n, grid, block, bins)?;
                    if case.name == big_case.name && shape == policy {
                        conflict_free_requests += c.shared_atomic_requests;
                    }
                }
                followed.add(
                    &flow::follow(
                        ctx,
                        &name,
                        "histo_fastest",
                        &run,
                        Input::Bytes(&case.data, bins),
                    )
                    .map_err(|o| {
                        // The rounds' rule: its own kind, answered by its own hint.
                        if o.reason.contains("in flight") {
                            o.of_kind(crate::failures::LOADS_IN_FLIGHT)
                        } else {
                            o
                        }
                    })?,
                );
            }
        }
    }
    if !ctx.dev.is_emulator() {
        return Ok(format!("{launches} launches right{}", ctx.technique_note()));
    }
    Ok(format!(
        "{launches} launches right, privatized; in every round of every thread's loop: each of {} whole vectors \
         read by one 16-byte load, four loads in flight in each of the {} rounds with four vectors or more left \
         (and {} rounds with fewer, at the end of a thread's share), and each of {} shared atomics in its lane's \
         own bank; {} shared atomic instructions on {big} uniform bytes without a bank conflict",
        followed.vector_loads,
        followed.full_rounds,
        followed.short_rounds,
        followed.banked_atomics,
        conflict_free_requests
    ))
}

/// 9.9's counters on a launch of `grid` blocks of `block` threads over `n` bytes and `bins`
/// bins: privatized, 16-byte loads, shared atomics without bank conflicts.
fn fastest_counters(
    ctx: &Ctx,
    name: &str,
    c: &Counters,
    n: usize,
    grid: u32,
    block: u32,
    bins: u32,
) -> Result<(), Outcome> {
    let most_global = grid as u64 * bins as u64;
    if c.global_atomic_lanes > most_global || c.shared_atomic_lanes > n as u64 {
        return Err(ctx.technique(
            name,
            format!(
                "{} global and {} shared atomic lanes: privatized in shared memory, the kernel issues at most \
                 one shared atomic per element and {most_global} global ones ({grid} blocks x {bins} bins)",
                c.global_atomic_lanes, c.shared_atomic_lanes
            ),
        ));
    }
    // 16-byte loads: a warp instruction reads 32 vectors; each warp may have a
    // partial instruction per loop (four loads in flight, then one at a time),
    // and the tail's few bytes take one or two more.
    let warps = grid as u64 * block.div_ceil(32) as u64;
    let most_loads = (n as u64 / 16).div_ceil(32) + 5 * warps + 2;
    if c.global_load_requests > most_loads {
        return Err(ctx.technique(
            name,
            format!(
                "{} warp load instructions for {n} bytes: with 16-byte loads (U32x4, a warp reads 512 bytes \
                 per instruction) there are at most {most_loads}",
                c.global_load_requests
            ),
        )
        .of_kind(crate::failures::NARROW_LOADS));
    }
    if c.shared_atomic_bank_conflicts > 0 {
        return Err(ctx.technique(
            name,
            format!(
                "{} extra passes of the shared atomics for bank conflicts (up to {}-way): with one counter \
                 per bin, the 32 lanes' bins fall in random banks; a column of counters per lane index \
                 for each byte value (`lane_counter`: `byte * 32 + lane`) puts every lane's counters in \
                 a bank of its own",
                c.shared_atomic_bank_conflicts, c.shared_atomic_max_bank_ways
            ),
        )
        .of_kind(crate::failures::BANK_CONFLICTS));
    }
    Ok(())
}
