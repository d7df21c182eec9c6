//! Checks of 9.1 to 9.4: the sequential loop, the race, global atomics, and
//! privatization in global memory.

use super::{Checked, Ctx, Verify, counters};
use crate::inputs::{self, Case, TEXT};
use crate::launch::{self, Shape, one_per_thread};
use crate::reference;
use course::{Outcome, Status, catch_host, compare};
use gpu_host::Device;
use solutions::ch09::{
    PMPP_SENTENCE, PREDICT_BLOCK, PREDICT_BYTE, PREDICT_GRID, PREDICT_N, byte_bin,
};

pub(crate) fn check_9_1(ctx: &mut Ctx) -> Checked {
    let mut cases = inputs::byte_cases(ctx.seed);
    let times = course::draw::between(0x91, 3, 2, 6) as usize;
    cases.push(Case::new(
        format!("every byte value {times} times"),
        (0..256 * times).map(|i| (i % 256) as u8).collect(),
    ));
    for case in &cases {
        let got =
            catch_host(|| (ctx.k.histogram_sequential)(&case.data)).map_err(ctx.on(&case.name))?;
        compare("bin", &reference::sequential(&case.data), &got).map_err(ctx.on(&case.name))?;
    }
    let paragraph = inputs::cycle(TEXT.as_bytes(), course::draw::n(TEXT.len()));
    let texts: [(&str, &[u8]); 4] = [
        ("PMPP's sentence", PMPP_SENTENCE.as_bytes()),
        ("an English paragraph", &paragraph),
        (
            "uppercase, digits, punctuation and non-ASCII bytes around \"xyz\"",
            b"ABC XYZ 0123 !? \xff\x80\x7f xyz `{",
        ),
        ("empty text", b""),
    ];
    // The host function's arguments: the book's 1 and 4, then two more (3 and 26 with the
    // public seed; drawn from 2 to 26 with a private one).
    let per_bin = [
        1,
        4,
        course::draw::between(0x9101, 3, 2, 26) as u32,
        course::draw::between(0x9102, 26, 2, 26) as u32,
    ];
    for (name, text) in texts {
        for letters_per_bin in per_bin {
            let case =
                format!("letter_histogram of {name} with {letters_per_bin} letter(s) per bin");
            let got = catch_host(|| (ctx.k.letter_histogram)(text, letters_per_bin))
                .map_err(ctx.on(&case))?;
            compare(
                "bin",
                &reference::letter_histogram(text, letters_per_bin),
                &got,
            )
            .map_err(|o| ctx.on(&case)(o.of_kind(crate::failures::LETTER_HISTOGRAM)))?;
        }
    }
    Ok(format!(
        "byte histograms of {} inputs and letter histograms of {} texts are right",
        cases.len(),
        texts.len()
    ))
}

pub(crate) fn check_9_2(ctx: &mut Ctx) -> Checked {
    let k = ctx.k.histo_naive;
    // Without collisions: right, and without atomics.
    let distinct = inputs::all_distinct(ctx.seed + 1);
    let one = course::draw::between(0x92, 200, 0, 255) as u8;
    let no_collisions = [
        Case::new("empty input (n = 0)", Vec::new()),
        Case::new(format!("one element (n = 1, byte {one})"), vec![one]),
        Case::new("the 256 byte values once each, 256 bins", distinct),
    ];
    for case in &no_collisions {
        let shape = Shape::new(one_per_thread(case.n(), 64), 64);
        let run = launch::bytes(ctx.dev, &k, &case.data, 256, shape);
        let run = ctx.verify_eq(&case.name, run, &reference::byte_histogram(&case.data, 256))?;
        if let Some(c) = counters(&run)
            && c.atomic_lanes() > 0
        {
            return Err(ctx.technique(
                &case.name,
                format!(
                    "{} atomic lanes: 9.2 is the kernel *without* atomics (a plain load, then a plain store), \
                     so that the race shows; atomics are 9.3",
                    c.atomic_lanes()
                ),
            ));
        }
    }
    // With collisions: updates are lost, never invented, and the emulator reports the race.
    let n = course::draw::n(2000);
    let bins = 8;
    let case =
        format!("uniform random bytes, n = {n}, {bins} bins (every bin shared by many threads)");
    let data = inputs::uniform(n, ctx.seed);
    let expected = reference::byte_histogram(&data, bins);
    let shape = Shape::new(one_per_thread(n, 64), 64);
    let run = launch::bytes(ctx.dev, &k, &data, bins, shape)
        .map_err(|e| ctx.on(&case)(Outcome::from_launch_error(&e)))?;
    for (b, (&e, &g)) in expected.iter().zip(&run.out).enumerate() {
        if g > e || (e > 0 && g == 0) {
            return Err(ctx.on(&case)(Outcome::fail(
                Status::WrongResult,
                format!(
                    "bin {b}: expected between 1 and {e} (a lost update lowers a count, it never raises it, \
                     and some update of each bin lands), got {g}"
                ),
            )));
        }
    }
    let lost = expected.iter().sum::<u32>() - run.out.iter().sum::<u32>();
    // The emulator's lockstep schedule loses updates every time; a GPU's timing may
    // (rarely) not, so only the emulator can call a lossless run the wrong technique.
    if lost == 0 && ctx.dev.is_emulator() {
        return Err(ctx.technique(
            &case,
            "no update was lost although many threads shared each bin: 9.2 asks for the racy \
             `histo.store(bin, histo.load(bin) + 1)`, so that you can see the race; the fix is 9.3",
        ));
    }
    let mut race_note = String::new();
    if ctx.dev.is_emulator() {
        let Some(race) = run.report.findings().iter().find(|f| f.is_race()) else {
            return Err(ctx.technique(
                &case,
                format!("{lost} updates were lost but the emulator reported no race"),
            ));
        };
        race_note = format!("; the emulator reported: {race}");
    }
    // The prediction, compared with what the emulator records for the book's kernel.
    let predicted = catch_host(ctx.k.predict_naive_count)?;
    let measured = measure_prediction()?;
    if predicted != measured {
        return Err(Outcome::failed(
            crate::failures::PREDICTION,
            format!("predict_naive_count() returned {predicted}, which is not what the emulator records for that launch"),
        )
        .detail("trace it: in each block, which warps load the bin before any of them stores, and what do they store?")
        .detail(format!(
            "the launch: histo_naive<<<{PREDICT_GRID}, {PREDICT_BLOCK}>>> over {PREDICT_N} bytes equal to {PREDICT_BYTE} with 256 bins"
        )));
    }
    if !ctx.dev.is_emulator() {
        race_note =
            " (the race report and the technique are not checked: they need the emulator)".into();
    }
    Ok(format!(
        "right without collisions; on {n} colliding elements {lost} updates were lost{race_note}; \
         the prediction ({predicted}) matches the emulator"
    ))
}

/// Runs the reference naive kernel on the prediction's launch, on an emulator (the
/// question is about the emulator's schedule, whatever device the check runs on).
fn measure_prediction() -> Result<u32, Outcome> {
    let mut emu = Device::emulator();
    let data = vec![PREDICT_BYTE; PREDICT_N as usize];
    let k = crate::kernels::REFERENCE.histo_naive;
    let run = launch::bytes(
        &mut emu,
        &k,
        &data,
        256,
        Shape::new(PREDICT_GRID, PREDICT_BLOCK),
    )
    .map_err(|e| {
        Outcome::fail(
            Status::Error,
            format!("the reference launch of the prediction failed: {e}"),
        )
    })?;
    Ok(run.out[byte_bin(PREDICT_BYTE, 256) as usize])
}

pub(crate) fn check_9_4(ctx: &mut Ctx) -> Checked {
    let k = ctx.k.histo_private_global;
    // First every case's bins and private copies, then the counters: a kernel that skips
    // the copies is told so before anything else.
    let mut technique = Vec::new();
    let mut launches = 0;
    for case in inputs::byte_cases(ctx.seed) {
        for (grid, block, bins) in [(3u32, 64u32, 256u32), (4, 96, 16), (1, 64, 256)] {
            let name = format!("{}, {bins} bins, <<<{grid}, {block}>>>", case.name);
            let run = launch::bytes_with(
                ctx.dev,
                &k,
                &case.data,
                grid * bins,
                bins,
                Shape::new(grid, block),
            );
            let on = ctx.on(&name);
            let run = run.map_err(|e| on(Outcome::from_launch_error(&e)))?;
            if let Some(out) = course::findings_outcome(run.report.findings()) {
                return Err(on(out));
            }
            let b = bins as usize;
            // The private copies first: when every block's copy is right and copy 0 is
            // not, what is wrong is the commit (a block that adds its copy before its
            // threads are done, or adds a bin twice), not the counting.
            let copies = reference::block_histograms(&case.data, bins, grid, block);
            let wrong_copy = copies
                .iter()
                .enumerate()
                .skip(1)
                .find(|(blk, copy)| &run.out[blk * b..(blk + 1) * b] != copy.as_slice());
            let result = compare(
                "bin",
                &reference::byte_histogram(&case.data, bins),
                &run.out[..b],
            );
            if let Err(o) = result {
                let o = o.detail("the result is block 0's copy: histo[0 .. num_bins]");
                let o = if wrong_copy.is_none() && grid > 1 {
                    o.detail(format!(
                        "every other block's private copy is right: what went wrong is their \
                         commit to copy 0 (blocks 1 to {})",
                        grid - 1
                    ))
                    .of_kind(crate::failures::COMMIT)
                } else {
                    o
                };
                return Err(on(o));
            }
            if let Some((blk, copy)) = wrong_copy {
                let got = &run.out[blk * b..(blk + 1) * b];
                let total: u32 = got.iter().sum();
                return Err(ctx
                    .technique(
                        &name,
                        format!(
                            "block {blk}'s private copy (histo[{} ..]) holds {total} counts, not the {} elements block \
                             {blk} visits in the grid-stride loop: each block counts into its own copy \
                             (block_idx * num_bins + bin), and leaves it there after committing",
                            blk * b,
                            copy.iter().sum::<u32>()
                        ),
                    )
                    .of_kind(crate::failures::PRIVATE_COPY));
            }
            launches += 1;
            if let Some(c) = counters(&run) {
                technique.push((name, *c, case.n() as u64, grid, bins));
            }
        }
    }
    for (name, c, n, grid, bins) in &technique {
        let most = n + (*grid as u64 - 1) * *bins as u64;
        if c.global_atomic_lanes < *n || c.global_atomic_lanes > most {
            return Err(ctx.technique(
                name,
                format!(
                    "{} global atomic lanes: expected one per element ({n}) plus at most one per bin of each \
                     committing block (up to {most} in all)",
                    c.global_atomic_lanes
                ),
            ));
        }
        if c.barriers < *grid as u64 - 1 {
            return Err(ctx
                .technique(
                    name,
                    format!(
                        "{} barrier(s) for {grid} blocks: a block's copy is complete only when all its threads are \
                     done, so each committing block waits at sync_threads() first",
                        c.barriers
                    ),
                )
                .of_kind(crate::failures::COMMIT_BARRIER));
        }
    }
    Ok(format!(
        "{launches} launches right, private copies per block committed to copy 0{}",
        ctx.technique_note()
    ))
}
