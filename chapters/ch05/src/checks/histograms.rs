//! 5.6: the chapter's four histogram kernels, each with the counters of its technique.

use super::{Checked, Ctx, counters};
use crate::inputs::{Case, bytes, random_len, skewed_bytes, sorted_runs};
use crate::launch::{self, Run, word_grid, word_grid_n};
use crate::reference::{self, Access};
use chapter::checking::exactly;
use chapter::follow::{Adds, Elements, Part};
use course::Outcome;
use gpu_host::{Counters, LaunchConfig};

/// Threads per block of the checks' launches (two of them also run with 96).
const BLOCK: u32 = 64;

/// The inputs: a length with a tail first (so that a wrong technique shows on real
/// work before the edge cases), then lengths around the word size, a hot bin, sorted runs, a random length.
fn cases(seed: u64) -> Vec<Case<u8>> {
    use course::draw::n;
    let random = random_len(20_000, seed);
    let (tail, hot, runs) = (n(1027), n(4096), n(5000));
    let run = course::draw::between(0x56, 40, 2, 100) as usize;
    vec![
        Case::new(format!("n = {tail} (a 3-byte tail)"), bytes(tail, seed + 1)),
        Case::new("n = 0", vec![]),
        Case::new("n = 1", bytes(1, seed)),
        Case::new("n = 3 (no whole word)", bytes(3, seed)),
        Case::new("n = 4", bytes(4, seed)),
        Case::new(
            format!("n = {hot}, 90% zeros (a hot bin)"),
            skewed_bytes(hot, 90, seed + 2),
        ),
        Case::new(
            format!("n = {runs}, sorted runs of {run}"),
            sorted_runs(runs, run),
        ),
        Case::new(
            format!("n = {random}, uniform random"),
            bytes(random, seed + 3),
        ),
    ]
}

/// Compares two counters, failing with `what` and the model's reason.
fn expect(
    ctx: &Ctx,
    case: &str,
    what: &str,
    got: u64,
    want: u64,
    why: &str,
) -> Result<(), Outcome> {
    if got == want {
        Ok(())
    } else {
        // `what` is plural ("load requests"): one is "1 load request".
        let got = course::words::count_of(got, what);
        Err(ctx.technique(case, format!("{got}, expected {want}: {why}")))
    }
}

/// The load requests a word kernel makes: the words' model plus the tail's one request.
fn word_loads(model: Access, n: usize) -> u64 {
    model.requests + reference::tail_requests(n)
}

/// The load sectors of a word kernel: the words' model plus the tail's one sector (at
/// most three bytes, 4-byte aligned: one sector).
fn word_sectors(model: Access, n: usize) -> u64 {
    model.sectors + reference::tail_requests(n)
}

/// The commits a block-privatized kernel must make on `data`: one global atomic per
/// distinct byte value each block counted. Which bytes a block counted comes from the
/// run's flow (the emulator records every global load of every block), so any way of
/// sharing the words among the blocks (the reference's chunk per block, or rounds a
/// grid apart) is judged by its own data; without a flow, the reference's partition.
fn block_commits(run: &Run, data: &[u8], per_thread: u32) -> u64 {
    let flow = run.report.emulator.as_ref().and_then(|r| r.flow.as_ref());
    let Some(flow) = flow.filter(|f| !f.truncated) else {
        return reference::shared_commits(data, run.grid, run.block, per_thread);
    };
    let mut seen: std::collections::BTreeMap<u64, [bool; 256]> = Default::default();
    for e in &flow.events {
        if e.kind != simt::flow::FlowKind::Load || e.space != simt::Space::Global {
            continue;
        }
        let bytes = e.value.to_le_bytes();
        let block = seen.entry(e.block).or_insert([false; 256]);
        for &b in &bytes[..(e.size as usize).min(8)] {
            block[b as usize] = true;
        }
    }
    seen.values()
        .map(|s| s.iter().filter(|&&x| x).count() as u64)
        .sum()
}

/// Follows the data of `run` (of `kernel` on `data`) against the kernel's declaration in
/// `exercises.toml` ([`chapter::follow`]): each byte counted by the thread that loaded
/// it, and the shared bins committed as counted.
fn follow(ctx: &Ctx, case: &str, kernel: &str, data: &[u8], run: &Run) -> Result<(), Outcome> {
    let Some(flow) = run.report.emulator.as_ref().and_then(|r| r.flow.as_ref()) else {
        return Ok(());
    };
    let Some(decl) = chapter::declared::follow_of(&super::FOLLOWS, kernel) else {
        return Err(Outcome::fail(
            course::Status::Error,
            format!("the check follows `{kernel}`, whose record declares no `[[exercise.follow]]`"),
        ));
    };
    let bin = |i: usize| Some(data[i] as u32);
    let e = Elements {
        parts: vec![Part {
            addr: run.input_addrs.first().copied().unwrap_or(u64::MAX),
            size: 1,
        }],
        n: data.len(),
        bin: &bin,
        adds: Adds::One,
        output: run.output_addr,
        noun: "byte",
        block_threads: run.block,
        slice_width: 0,
    };
    chapter::follow::follow(decl, flow, &e)
        .map(|_| ())
        .map_err(|why| ctx.technique(case, why))
}

/// Checks one run's counters against the technique of kernel `which` (1 to 4).
fn technique(
    ctx: &Ctx,
    case: &str,
    which: u32,
    data: &[u8],
    run: &Run,
    per_thread: u32,
) -> Result<(), Outcome> {
    let Some(c): Option<&Counters> = counters(run) else {
        return Ok(());
    };
    let n = data.len();
    let words = (n / 4) as u64;
    match which {
        1 => {
            let model = reference::one_per_thread(run.grid, run.block, n as u64, 1);
            expect(
                ctx,
                case,
                "global atomics",
                c.global_atomic_lanes,
                n as u64,
                "one per byte",
            )?;
            expect(
                ctx,
                case,
                "load requests",
                c.global_load_requests,
                model.requests,
                "one byte per thread, one load per warp",
            )?;
            expect(
                ctx,
                case,
                "load sectors",
                c.global_load_sectors,
                model.sectors,
                "a warp reads 32 consecutive bytes",
            )?;
        }
        2 => {
            let model = reference::one_per_thread(run.grid, run.block, words, 4);
            expect(
                ctx,
                case,
                "global atomics",
                c.global_atomic_lanes,
                n as u64,
                "four per word, one per tail byte",
            )?;
            expect(
                ctx,
                case,
                "load requests",
                c.global_load_requests,
                word_loads(model, n),
                "one 32-bit load per thread (data.cast::<u32>()), plus the tail's",
            )?;
            expect(
                ctx,
                case,
                "load sectors",
                c.global_load_sectors,
                word_sectors(model, n),
                "a warp reads 32 consecutive words",
            )?;
            expect(
                ctx,
                case,
                "shared atomics",
                c.shared_atomic_lanes,
                0,
                "kernel 2 counts in global memory",
            )?;
        }
        _ => {
            let model = reference::access(
                run.grid,
                run.block,
                per_thread,
                words,
                4,
                reference::shared_n_word(run.block, per_thread),
            );
            let commits = block_commits(run, data, per_thread);
            expect(
                ctx,
                case,
                "shared atomics",
                c.shared_atomic_lanes,
                n as u64,
                "every byte is counted in the block's shared bins",
            )?;
            expect(
                ctx,
                case,
                "global atomics (adds of zero included)",
                // Every lane that issued one: a commit of an empty bin changes nothing but
                // still costs an atomic, and committing only the nonzero bins is the rule.
                c.global_atomic_lanes + c.global_atomic_noop_lanes,
                commits,
                "one per nonzero shared bin and block (the commit)",
            )?;
            expect(
                ctx,
                case,
                "load requests",
                c.global_load_requests,
                word_loads(model, n),
                "one 32-bit load per word, a warp reading 32 consecutive words per round",
            )?;
            expect(
                ctx,
                case,
                "load sectors",
                c.global_load_sectors,
                word_sectors(model, n),
                "in each round a warp reads 32 consecutive words (word b * block * N + r * block + t)",
            )?;
            expect(
                ctx,
                case,
                "barriers",
                c.barriers,
                2 * run.grid as u64,
                "two per block: after the clear and before the commit",
            )
            .map_err(|o| o.of_kind(crate::failures::BARRIER_COUNT))?;
        }
    }
    Ok(())
}

/// 5.6: the four kernels on every input, right and with their technique's counters.
pub(super) fn check_5_6(ctx: &mut Ctx) -> Checked {
    // Each block's commits are judged by the bytes it loaded (`block_commits`).
    ctx.follow_data();
    let seed = ctx.seed;
    let k = ctx.k;
    let mut total = 0usize;
    for case in cases(seed) {
        let expected = reference::histogram(&case.data);
        let n = case.n();
        total += n;
        for block in [BLOCK, 96] {
            if block == 96 && n < 1000 {
                continue;
            }
            let runs: [(u32, &str, u32, LaunchConfig); 2] = [
                (
                    1,
                    "histo_byte",
                    1,
                    LaunchConfig::linear(launch::one_per_thread(n, block), block),
                ),
                (
                    2,
                    "histo_word",
                    1,
                    LaunchConfig::linear(word_grid(n, block), block),
                ),
            ];
            for (which, name, _, cfg) in runs {
                let kernel = if which == 1 {
                    &k.histo_byte
                } else {
                    &k.histo_word
                };
                let label = format!("{name}, {}, <<<{}, {block}>>>", case.name, cfg.grid.x);
                let run = launch::histo(ctx.dev, kernel, &case.data, cfg);
                let run = ctx.verify_output(
                    &label,
                    run,
                    "bin",
                    &expected,
                    "guard the index: threads past the last byte (or word) must not load",
                    exactly,
                )?;
                technique(ctx, &label, which, &case.data, &run, 1)?;
                follow(ctx, &label, name, &case.data, &run)?;
            }
            let cfg = LaunchConfig::linear(word_grid(n, block), block);
            let label = format!("histo_shared, {}, <<<{}, {block}>>>", case.name, cfg.grid.x);
            let run = launch::histo(ctx.dev, &k.histo_shared, &case.data, cfg);
            let run = ctx.verify_output(
                &label,
                run,
                "bin",
                &expected,
                "guard the word index",
                exactly,
            )?;
            technique(ctx, &label, 3, &case.data, &run, 1)?;
            follow(ctx, &label, "histo_shared", &case.data, &run)?;
            for per_thread in [1, 4, 7] {
                let cfg = LaunchConfig::linear(word_grid_n(n, block, per_thread), block);
                let label = format!(
                    "histo_shared_n, {}, N = {per_thread}, <<<{}, {block}>>>",
                    case.name, cfg.grid.x
                );
                let run = launch::histo_n(ctx.dev, &k.histo_shared_n, &case.data, per_thread, cfg);
                let run = ctx.verify_output(
                    &label,
                    run,
                    "bin",
                    &expected,
                    "guard the word index in every round",
                    exactly,
                )?;
                technique(ctx, &label, 4, &case.data, &run, per_thread)?;
                follow(ctx, &label, "histo_shared_n", &case.data, &run)?;
            }
        }
    }
    Ok(format!(
        "the four kernels count {total} bytes of eight inputs right (tails of 1 to 3 bytes, a hot \
         bin, sorted runs), with one global atomic per byte (1, 2), one load per word (2, 3, 4), \
         and shared bins committed once per block (3, 4), each byte counted by the thread that loaded it{}",
        ctx.technique_note()
    ))
}
