//! Checks of the extensions 9.10 to 9.16.

use super::flow::{self, Input};
use super::{Checked, Ctx, Verify, counters};
use crate::inputs::{self, Case, InputKind};
use crate::kernels::{REFERENCE, Strategy, U32Kernel};
use crate::launch::{self, Shape, coarsened, one_per_thread};
use crate::reference;
use course::{Outcome, Rng, Status, catch_host};
use gpu_host::{Counters, Device};
use solutions::ch09::{REGISTER_BINS, SHARED_BINS};

/// `u32` inputs for `bins` bins: empty, one value, values past the last bin (skipped),
/// all zeros, all the last bin, sorted, and uniform over a range a little wider than the
/// bins.
pub(super) fn value_cases(seed: u64, bins: u32) -> Vec<Case<u32>> {
    use course::draw::n;
    let mut rng = Rng::new(seed);
    let wide = bins + bins / 8 + 3;
    let (sorted_n, random, zeros, last, none) = (n(1500), n(4099), n(777), n(500), n(100));
    let many = n(20_011);
    let one = course::draw::between(0x1001 + bins as u64, 0, 0, bins as u64 - 1) as u32;
    let mut sorted: Vec<u32> = (0..sorted_n)
        .map(|_| rng.below(bins as u64) as u32)
        .collect();
    sorted.sort_unstable();
    vec![
        Case::new("empty input (n = 0)", Vec::new()),
        Case::new(format!("one value (n = 1, value {one})"), vec![one]),
        Case::new(
            format!("uniform random values below {wide} (some past the last bin), n = {random}"),
            {
                let mut r = Rng::new(seed + 100);
                (0..random).map(|_| r.below(wide as u64) as u32).collect()
            },
        ),
        Case::new(format!("all zeros, n = {zeros}"), vec![0; zeros]),
        Case::new(
            format!("all {}, the last bin, n = {last}", bins - 1),
            vec![bins - 1; last],
        ),
        Case::new(
            format!("values that are no bin (u32::MAX and the bin count), n = {none}"),
            (0..none)
                .map(|i| if i % 2 == 0 { u32::MAX } else { bins })
                .collect(),
        ),
        Case::new(format!("sorted values, n = {sorted_n}"), sorted),
        // Dozens of values per thread on the checks' small grids: a kernel whose
        // collectives grow with its input (values moved to another lane to be counted,
        // however tightly packed) exceeds any per-warp bound a reduction keeps.
        Case::new(
            format!("uniform random values below {bins}, n = {many} (many per thread)"),
            {
                let mut r = Rng::new(seed + 200);
                (0..many).map(|_| r.below(bins as u64) as u32).collect()
            },
        ),
    ]
}

/// Counts the elements that are bins.
fn in_range(data: &[u32], bins: u32) -> u64 {
    data.iter().filter(|&&v| v < bins).count() as u64
}

/// Shared privatization's counters: `shared` shared atomic lanes, at most one global
/// atomic per bin and block.
fn privatized(
    ctx: &Ctx,
    name: &str,
    c: &Counters,
    shared: u64,
    grid: u32,
    bins: u32,
) -> Result<(), Outcome> {
    let most = grid as u64 * bins as u64;
    if c.global_atomic_lanes > most || c.shared_atomic_lanes != shared {
        return Err(ctx.technique(
            name,
            format!(
                "{} shared and {} global atomic lanes: a privatized kernel issues one shared atomic per counted \
                 element ({shared}) and at most one global atomic per bin and block ({most})",
                c.shared_atomic_lanes, c.global_atomic_lanes
            ),
        ));
    }
    Ok(())
}

/// RGB pixels: interleaved bytes, with `extra` trailing bytes of a partial pixel.
fn pixels(kind: &InputKind, n: usize, extra: usize, seed: u64) -> Vec<u8> {
    inputs::bytes(kind, 3 * n + extra, seed)
}

pub(crate) fn check_9_11(ctx: &mut Ctx) -> Checked {
    use course::draw::n;
    ctx.follow_data();
    let s = ctx.seed;
    let (random, black, skewed, text) = (n(333), n(500), n(1000), n(700));
    let pixel: Vec<u8> = [10, 200, 255]
        .iter()
        .enumerate()
        .map(|(i, &c)| course::draw::between(0x1110 + i as u64, c, 0, 255) as u8)
        .collect();
    let cases = [
        Case::new("no pixels", Vec::new()),
        Case::new(
            format!("one pixel ({}, {}, {})", pixel[0], pixel[1], pixel[2]),
            pixel.clone(),
        ),
        Case::new(
            format!("{random} uniform random pixels and a partial pixel of 2 bytes"),
            pixels(&InputKind::Uniform, random, 2, s),
        ),
        Case::new(format!("{black} black pixels"), vec![0; 3 * black]),
        Case::new(
            format!("{skewed} pixels, 80% black"),
            pixels(&InputKind::Skew(80), skewed, 0, s + 1),
        ),
        Case::new(
            format!("{text} pixels of English text bytes"),
            inputs::cycle(inputs::TEXT.as_bytes(), 3 * text),
        ),
    ];
    let k = ctx.k.histo_rgb;
    let mut launches = 0;
    for case in &cases {
        for bins in [256u32, 16] {
            let n = case.n() / 3;
            let grid = coarsened(n, 64, 4);
            let shape = Shape::new(grid, 64).with_bins(3 * bins);
            let name = format!("{}, {bins} bins per channel, <<<{grid}, 64>>>", case.name);
            let run = launch::bytes(ctx.dev, &k, &case.data, 3 * bins, shape);
            let run = ctx.verify_eq(&name, run, &reference::rgb_histogram(&case.data, bins))?;
            launches += 1;
            if let Some(c) = counters(&run) {
                privatized(ctx, &name, c, 3 * n as u64, grid, 3 * bins)?;
            }
            flow::follow(
                ctx,
                &name,
                "histo_rgb",
                &run,
                Input::Pixels(&case.data, bins),
            )?;
        }
    }
    Ok(format!(
        "{launches} launches right, three privatized channels, each byte counted by the thread that loaded it{}",
        ctx.technique_note()
    ))
}

pub(crate) fn check_9_12(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let k = ctx.k.histo_weighted;
    let mut launches = 0;
    for (c, case) in inputs::byte_cases(ctx.seed).into_iter().enumerate() {
        let mut rng = Rng::new(ctx.seed + 50 + c as u64);
        // Quarters from -2 to 2: every partial sum is exact in f32, in any order.
        let quarters: Vec<f32> = (0..case.n())
            .map(|_| (rng.below(17) as f32 - 8.0) / 4.0)
            .collect();
        let random: Vec<f32> = (0..case.n())
            .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
            .collect();
        for (weights, exact) in [(quarters, true), (random, false)] {
            for bins in [256u32, 8] {
                let grid = coarsened(case.n(), 64, 4);
                let shape = Shape::new(grid, 64).with_bins(bins);
                let what = if exact {
                    "weights in quarters from -2 to 2 (exact sums)"
                } else {
                    "random weights in [0, 1)"
                };
                let name = format!("{}, {what}, {bins} bins", case.name);
                let expected64 = reference::weighted_histogram(&case.data, &weights, bins);
                let expected: Vec<f32> = expected64.iter().map(|&x| x as f32).collect();
                let mut mass = vec![0f64; bins as usize];
                for (&b, &w) in case.data.iter().zip(&weights) {
                    mass[solutions::ch09::byte_bin(b, bins) as usize] += w.abs() as f64;
                }
                let run = launch::weighted(ctx.dev, &k, &case.data, &weights, bins, shape);
                let tolerance = |i: usize| if exact { 0.0 } else { 1e-4 * mass[i] + 1e-6 };
                let run = ctx.verify(&name, run, &expected, |i, e, g| {
                    ((*e as f64) - (*g as f64)).abs() <= tolerance(i)
                })?;
                launches += 1;
                if let Some(c) = counters(&run) {
                    // An add of a zero weight changes nothing and is not counted: one shared
                    // atomic per element of nonzero weight.
                    let weighted = weights.iter().filter(|&&w| w != 0.0).count() as u64;
                    privatized(ctx, &name, c, weighted, grid, bins)?;
                }
                flow::follow(
                    ctx,
                    &name,
                    "histo_weighted",
                    &run,
                    Input::Weighted(&case.data, &weights, bins),
                )?;
            }
        }
    }
    Ok(format!(
        "{launches} launches right, privatized f32 bins, each weight added as loaded by the thread that loaded it{}",
        ctx.technique_note()
    ))
}

pub(crate) fn check_9_13(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let k = ctx.k.histo_joint;
    let mut launches = 0;
    for (c, case) in inputs::byte_cases(ctx.seed).into_iter().enumerate() {
        let mut rng = Rng::new(ctx.seed + 70 + c as u64);
        // y follows x with a little noise: a correlated pair, most mass near the diagonal.
        let y: Vec<u8> = case
            .data
            .iter()
            .map(|&x| x.wrapping_add(rng.below(16) as u8))
            .collect();
        for (bins_x, bins_y) in [(16u32, 16u32), (8, 4), (1, 1), (256, 2)] {
            let bins = bins_x * bins_y;
            let grid = coarsened(case.n(), 64, 4);
            let shape = Shape::new(grid, 64).with_bins(bins);
            let name = format!("x = {}, y = x + noise, {bins_x} x {bins_y} bins", case.name);
            let run = launch::joint(ctx.dev, &k, &case.data, &y, bins_x, bins_y, shape);
            let run = ctx.verify_eq(
                &name,
                run,
                &reference::joint_histogram(&case.data, &y, bins_x, bins_y),
            )?;
            launches += 1;
            if let Some(c) = counters(&run) {
                privatized(ctx, &name, c, case.n() as u64, grid, bins)?;
            }
            flow::follow(
                ctx,
                &name,
                "histo_joint",
                &run,
                Input::Pairs(&case.data, &y, bins_x, bins_y),
            )?;
        }
    }
    Ok(format!(
        "{launches} launches right, privatized 2-D bins, each pair counted by the thread that loaded it{}",
        ctx.technique_note()
    ))
}

/// The launches of the 9.14 question: `(n, bins, block)`, the blog's case first.
pub const PRIVATIZATION_QUESTION: [(u32, u32, u32); 5] = [
    (16_384, 4096, 1024),
    (1000, 64, 256),
    (5000, 300, 128),
    (100, 7, 32),
    (0, 16, 64),
];

pub(crate) fn check_9_14(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let mut launches = 0;
    for bins in [1u32, 100, 1024, 4096] {
        for case in value_cases(ctx.seed, bins) {
            let expected = reference::value_histogram(&case.data, bins);
            let counted = in_range(&case.data, bins);
            let name = format!("histo_u32_global, {}, {bins} bins, <<<3, 64>>>", case.name);
            let run = launch::values(
                ctx.dev,
                &ctx.k.histo_u32_global,
                &case.data,
                bins,
                Shape::new(3, 64),
            );
            let run = ctx.verify_eq(&name, run, &expected)?;
            if let Some(c) = counters(&run)
                && (c.global_atomic_lanes != counted || c.shared_atomic_lanes != 0)
            {
                return Err(ctx
                    .technique(
                        &name,
                        format!(
                            "{} global and {} shared atomic lanes: the global kernel issues one global atomic per value \
                         that is a bin ({counted}) and nothing else",
                            c.global_atomic_lanes, c.shared_atomic_lanes
                        ),
                    )
                    .of_kind(crate::failures::GLOBAL_KERNEL));
            }
            flow::follow(
                ctx,
                &name,
                "histo_u32_global",
                &run,
                Input::Values(&case.data, bins),
            )?;
            let shape = Shape::new(3, 64).with_bins(bins);
            let name = format!(
                "histo_u32_shared, {}, {bins} bins, <<<3, 64, {} bytes>>>",
                case.name, shape.shared_bytes
            );
            let run = launch::values(ctx.dev, &ctx.k.histo_u32_shared, &case.data, bins, shape);
            let run = ctx.verify_eq(&name, run, &expected)?;
            if let Some(c) = counters(&run) {
                privatized(ctx, &name, c, counted, 3, bins)?;
            }
            flow::follow(
                ctx,
                &name,
                "histo_u32_shared",
                &run,
                Input::Values(&case.data, bins),
            )?;
            launches += 2;
        }
    }
    // The question, against the emulator's count on the worst-case input.
    let mut blog = String::new();
    // With a private seed, launches drawn besides the published ones (a table of the
    // published answers fails): n up to 20 000, 1 to 4096 bins, blocks of whole warps.
    let drawn = course::draw::extra(0x914, 9, 0, u32::MAX as u64);
    let drawn = drawn.chunks(3).map(|c| {
        (
            (c[0] % 20_001) as u32,
            1 + (c[1] % 4096) as u32,
            32 * (1 + (c[2] % 32) as u32),
        )
    });
    for (n, bins, block) in PRIVATIZATION_QUESTION.into_iter().chain(drawn) {
        let answer = catch_host(|| (ctx.k.privatized_worst_global_atomics)(n, bins, block))?;
        let measured = measure_privatized(n, bins, block)?;
        if answer != measured.global_atomic_lanes as u32 {
            return Err(Outcome::failed(
                crate::failures::QUESTION,
                format!(
                    "privatized_worst_global_atomics({n}, {bins}, {block}) returned {answer}, which is not what the \
                     emulator counts for histo_u32_shared<<<ceil(n / block), block>>> on the worst-case input \
                     (value i % bins for element i)"
                ),
            )
            .detail("a block commits one atomic per nonzero bin: how many of its bins can its elements make nonzero?"));
        }
        if blog.is_empty() {
            let shared = measured.shared_store_requests + measured.shared_load_requests;
            blog = format!(
                "for {n} elements, {bins} bins and {block}-thread blocks the privatized kernel issues up to {answer} \
                 global atomics (the global kernel: {n}) plus {shared} shared-memory warp accesses to zero and commit"
            );
        }
    }
    Ok(format!(
        "{launches} launches right; {blog}{}",
        ctx.technique_note()
    ))
}

/// The reference privatized kernel's counters on the worst case of the 9.14 question.
fn measure_privatized(n: u32, bins: u32, block: u32) -> Result<Counters, Outcome> {
    let mut emu = Device::emulator();
    let data: Vec<u32> = (0..n).map(|i| i % bins).collect();
    let shape = Shape::new(one_per_thread(n as usize, block), block).with_bins(bins);
    let run =
        launch::values(&mut emu, &REFERENCE.histo_u32_shared, &data, bins, shape).map_err(|e| {
            Outcome::fail(
                Status::Error,
                format!("the reference launch of the 9.14 question failed: {e}"),
            )
        })?;
    run.report
        .counters()
        .copied()
        .ok_or_else(|| Outcome::fail(Status::Error, "the emulator returned no counters"))
}

/// The contention of the 9.15 prediction: lanes of one warp on one counter.
pub const CAS_LANES: [u32; 5] = [1, 2, 3, 17, 32];

pub(crate) fn check_9_15(ctx: &mut Ctx) -> Checked {
    let k = ctx.k.histo_cas;
    let mut launches = 0;
    let mut contended = None;
    for case in inputs::byte_cases(ctx.seed) {
        for (grid, block, bins) in [(3u32, 64u32, 256u32), (2, 96, 8)] {
            let name = format!("{}, {bins} bins, <<<{grid}, {block}>>>", case.name);
            let run = launch::bytes(ctx.dev, &k, &case.data, bins, Shape::new(grid, block));
            let run = ctx.verify_eq(&name, run, &reference::byte_histogram(&case.data, bins))?;
            launches += 1;
            let Some(c) = counters(&run) else { continue };
            let n = case.n() as u64;
            // Failed and same-value CAS attempts change nothing and are counted apart: the
            // elements must be exactly the successful swaps, and no other atomic may count.
            if c.cas_successes == 0 && c.cas_failures == 0 && n > 0 {
                return Err(ctx
                    .technique(
                        &name,
                        "no atomic_cas swapped and no CAS attempt failed: build the add from atomic_cas in a retry \
                         loop (atomic_add itself never fails)",
                    )
                    .of_kind(crate::failures::NO_CAS_RETRY));
            }
            if c.cas_successes != n {
                return Err(ctx.technique(
                    &name,
                    format!(
                        "{} successful atomic_cas swaps for {n} elements: each element must be added by exactly one \
                         atomic_cas that succeeds (retry with the value a failed one returned until it does)",
                        c.cas_successes
                    ),
                ));
            }
            if c.atomic_lanes() != c.cas_successes {
                return Err(ctx.technique(
                    &name,
                    format!(
                        "{} atomics other than a successful atomic_cas changed memory: the counter may be changed \
                         only by atomic_cas",
                        c.atomic_lanes() - c.cas_successes
                    ),
                ));
            }
            if case.name.starts_with("all zeros") && bins == 256 {
                if c.cas_failures == 0 {
                    return Err(ctx
                        .technique(
                            &name,
                            "no CAS attempt failed although every thread adds to the same bin: build the add from \
                         atomic_cas in a retry loop (atomic_add itself never fails)",
                        )
                        .of_kind(crate::failures::NO_CAS_RETRY));
                }
                contended = Some((n, c.cas_failures));
            }
        }
    }
    let drawn = course::draw::extra(0x915, 3, 1, 32)
        .into_iter()
        .map(|l| l as u32);
    for lanes in CAS_LANES.into_iter().chain(drawn) {
        let predicted = catch_host(|| (ctx.k.predict_cas_failures)(lanes))?;
        let measured = measure_cas(lanes)?;
        if predicted != measured {
            return Err(Outcome::failed(
                crate::failures::PREDICTION,
                format!(
                    "predict_cas_failures({lanes}) returned {predicted}, which is not what the emulator counts for \
                     histo_cas<<<1, {lanes}>>> over {lanes} zero bytes"
                ),
            )
            .detail("in each round of CAS, how many of the waiting lanes succeed, and how many retry?"));
        }
    }
    let contended = contended
        .map(|(n, f)| format!("; {f} failed CAS attempts for {n} increments of one bin"))
        .unwrap_or_default();
    Ok(format!(
        "{launches} launches right, each element added by one successful atomic_cas and no other atomic \
         changing memory{contended}; predictions match the emulator{}",
        ctx.technique_note()
    ))
}

/// The reference CAS kernel's failed attempts with `lanes` lanes on one counter.
fn measure_cas(lanes: u32) -> Result<u32, Outcome> {
    let mut emu = Device::emulator();
    let data = vec![0u8; lanes as usize];
    let run = launch::bytes(
        &mut emu,
        &REFERENCE.histo_cas,
        &data,
        256,
        Shape::new(1, lanes),
    )
    .map_err(|e| {
        Outcome::fail(
            Status::Error,
            format!("the reference launch of the 9.15 question failed: {e}"),
        )
    })?;
    Ok(run.report.counters().map_or(0, |c| c.cas_failures as u32))
}

/// The H100's table (the extension sweep, `notes/extensions-h100-2026-11-22.json`): shared
/// memory was the fastest at every bin count measured, 8 to 4096, registers at none; beyond,
/// shared memory as long as a private copy fits the block's default 48 KiB, global atomics
/// above.
pub fn table_strategy(bins: u32) -> Strategy {
    if bins <= SHARED_BINS {
        Strategy::Shared
    } else {
        Strategy::Global
    }
}

/// The kernel of `strategy` for `u32` input, from `k`.
pub fn strategy_kernel(k: &crate::kernels::Kernels, strategy: Strategy) -> U32Kernel {
    match strategy {
        Strategy::Registers => k.histo_registers,
        Strategy::Shared => k.histo_u32_shared,
        Strategy::Global => k.histo_u32_global,
    }
}

/// Whether `strategy` can count `bins` bins at all: 16 registers, 48 KiB of shared memory.
pub fn strategy_fits(strategy: Strategy, bins: u32, shared_bytes_per_block: u32) -> bool {
    match strategy {
        Strategy::Registers => bins <= REGISTER_BINS,
        Strategy::Shared => bins as u64 * 4 <= shared_bytes_per_block as u64,
        Strategy::Global => true,
    }
}

/// The bin counts 9.16's choice is checked at: the sweep's, PMPP's old thresholds (where a
/// student who learnt the old rule goes wrong) and both sides of what fits.
pub const STRATEGY_BINS: [u32; 13] = [
    1, 2, 8, 15, 16, 17, 255, 1024, 1025, 4096, 12_288, 12_289, 100_000,
];

pub(crate) fn check_9_16(ctx: &mut Ctx) -> Checked {
    // With a private seed, bin counts drawn over the whole range besides the published ones:
    // a table of the published answers fails.
    let drawn = course::draw::extra(0x916, 12, 1, 200_000)
        .into_iter()
        .map(|b| b as u32);
    for bins in STRATEGY_BINS.into_iter().chain(drawn) {
        let chosen = Strategy::from(catch_host(|| (ctx.k.choose_strategy)(bins))?);
        let table = table_strategy(bins);
        if chosen != table {
            return Err(Outcome::failed(
                crate::failures::CHOICE,
                format!("choose_strategy({bins}) chose {}, the H100's measurements say {}", chosen.name(), table.name()),
            )
            .detail(format!("the H100 measured shared memory fastest at every bin count from 8 to 4096 (registers at none); beyond, a private copy fits the block's 48 KiB up to {SHARED_BINS} bins, and global atomics are left above")));
        }
    }
    let mut measured = Vec::new();
    let shared_limit = ctx.dev.props().shared_bytes_per_block;
    for bins in [8u32, 256, 4096] {
        let n = course::draw::n(8192);
        let data = inputs::values(&InputKind::Uniform, n, bins, ctx.seed + bins as u64);
        let expected = reference::value_histogram(&data, bins);
        let mut parts = Vec::new();
        for strategy in Strategy::ALL
            .into_iter()
            .filter(|&s| strategy_fits(s, bins, shared_limit))
        {
            let shape = Shape::new(4, 128).with_bins(if strategy == Strategy::Shared {
                bins
            } else {
                0
            });
            let name = format!(
                "{} strategy, uniform values, n = {n}, {bins} bins",
                strategy.name()
            );
            // The reference's kernels: 9.16 grades the choice, 9.10 and 9.14 the kernels.
            let run = launch::values(
                ctx.dev,
                &strategy_kernel(&REFERENCE, strategy),
                &data,
                bins,
                shape,
            );
            let run = ctx.verify_eq(&name, run, &expected)?;
            if let Some(c) = counters(&run) {
                let chosen = if strategy == table_strategy(bins) {
                    " (chosen)"
                } else {
                    ""
                };
                parts.push(format!(
                    "{}{chosen} {} global + {} shared atomics, worst serialization {}",
                    strategy.name(),
                    c.global_atomic_lanes,
                    c.shared_atomic_lanes,
                    c.global_atomic_max_depth.max(c.shared_atomic_max_depth)
                ));
            }
        }
        // Separators between the parts only: no "; " after the last.
        if !parts.is_empty() {
            measured.push(format!("{bins} bins: {}", parts.join("; ")));
        }
    }
    let mut out = format!(
        "choices follow the table at {} bin counts",
        STRATEGY_BINS.len()
    );
    if ctx.dev.is_emulator() && !measured.is_empty() {
        out.push_str(&format!(
            "; the reference kernels of each strategy, measured: {}",
            measured.join("; ")
        ));
    }
    Ok(out)
}

/// The launches of the 9.17 check: `(bins, slice width in words, grid, block)`. One
/// slice (9.14's case), whole chunks, an idle block past the last chunk, fewer blocks
/// than slices (a block counts several slices in turn), a last slice narrower than the
/// others, and 16 384 bins in slices of 4096.
pub const SLICED_LAUNCHES: [(u32, u32, u32, u32); 7] = [
    (100, 100, 3, 64),
    (1000, 256, 8, 64),
    (1000, 256, 9, 64),
    (1000, 256, 3, 64),
    (1000, 300, 1, 32),
    (5000, 1024, 10, 96),
    (16_384, 4096, 8, 128),
];

pub(crate) fn check_9_17(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let mut launches = 0;
    for (bins, width, grid, block) in SLICED_LAUNCHES {
        let slices = bins.div_ceil(width);
        // With fewer blocks than slices each block reads all of the input once per slice
        // it counts: one chunk. Otherwise `grid / slices` chunks, each committed once per
        // slice.
        let chunks = (grid / slices).max(1) as u64;
        for case in value_cases(ctx.seed, bins) {
            let expected = reference::value_histogram(&case.data, bins);
            let counted = in_range(&case.data, bins);
            let shape = Shape::new(grid, block).with_bins(width);
            let name = format!(
                "histo_u32_sliced, {}, {bins} bins in {slices} slices of {width}, <<<{grid}, {block}, {} bytes>>>",
                case.name, shape.shared_bytes
            );
            let run = launch::values(ctx.dev, &ctx.k.histo_u32_sliced, &case.data, bins, shape);
            let run = ctx.verify_eq(&name, run, &expected)?;
            if let Some(c) = counters(&run) {
                let most = chunks * bins as u64;
                if c.shared_atomic_lanes != counted || c.global_atomic_lanes > most {
                    return Err(ctx.technique(
                        &name,
                        format!(
                            "{} shared and {} global atomic lanes: each value that is a bin is counted once, by a \
                             shared atomic of the block whose slice holds it ({counted}), and a block commits at \
                             most one global atomic per bin of its slice ({most} for {chunks} chunk(s) of \
                             {bins} bins)",
                            c.shared_atomic_lanes, c.global_atomic_lanes
                        ),
                    ));
                }
            }
            flow::follow(
                ctx,
                &name,
                "histo_u32_sliced",
                &run,
                Input::Values(&case.data, bins),
            )?;
            launches += 1;
        }
    }
    Ok(format!(
        "{launches} launches right, one shared atomic per counted value, each by the thread that loaded it, for \
         the slice its block commits{}",
        ctx.technique_note()
    ))
}
