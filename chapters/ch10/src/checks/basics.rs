//! Checks of 10.1 to 10.3: the sequential sums, the race, one global atomic per element.

use super::flow::{self, Values};
use super::{
    Checked, Ctx, counters, effective_global_atomics, require, shared_accesses, verify_sum,
    within_bound,
};
use crate::inputs;
use crate::launch::{self, one_per_thread};
use crate::reference;
use course::{Outcome, Status, catch_host, compare};

pub(crate) fn check_10_1(ctx: &mut Ctx) -> Checked {
    let cases = inputs::u32_cases(ctx.seed);
    for case in &cases {
        let got =
            catch_host(|| (ctx.k.sum_sequential_u32)(&case.data)).map_err(ctx.on(&case.name))?;
        compare("sum", &[reference::sum_u32(&case.data)], &[got]).map_err(ctx.on(&case.name))?;
    }
    let floats = inputs::f32_cases(ctx.seed);
    let mut widest = 0.0f64;
    for case in &floats {
        let got =
            catch_host(|| (ctx.k.sum_sequential_f32)(&case.data)).map_err(ctx.on(&case.name))?;
        let (exact, mass) = reference::sum_f64(&case.data);
        let bound = reference::f32_bound(reference::sequential_depth(case.n()), mass);
        within_bound(ctx, &case.name, got as f64, exact, bound)?;
        if bound > 0.0 {
            widest = widest.max((got as f64 - exact).abs() / bound);
        }
    }
    Ok(format!(
        "u32 sums of {} inputs right (wrapping); f32 sums of {} inputs within the bound of the \
         sequential order (at most {:.0}% of it)",
        cases.len(),
        floats.len(),
        widest * 100.0
    ))
}

pub(crate) fn check_10_2(ctx: &mut Ctx) -> Checked {
    let k = ctx.k.sum_naive;
    // Without collisions: right, and without atomics.
    let one = course::draw::between(0x1002, 42, 1, 1000) as u32;
    let alone: [(&str, Vec<u32>); 2] = [
        ("empty input (n = 0)", Vec::new()),
        ("one element (n = 1)", vec![one]),
    ];
    for (name, data) in &alone {
        let run = launch::sum_u32(ctx.dev, &k, data, one_per_thread(data.len(), 64), 64);
        let run = verify_sum(ctx, name, run, reference::sum_u32(data))?;
        if let Some(c) = counters(&run)
            && c.atomic_lanes() > 0
        {
            return Err(ctx.technique(
                name,
                format!(
                    "{} atomic lanes: 10.2 is the kernel *without* atomics (a plain load, then a plain \
                     store), so that the race shows; atomics are 10.3",
                    c.atomic_lanes()
                ),
            ));
        }
    }
    // With collisions: updates are lost, never invented, and the emulator reports the race.
    let n = course::draw::n(300);
    let case = "random elements from 1 to 1000, one thread each (every thread adds to the one sum)";
    let data = inputs::uniform(n, 1000, ctx.seed + 10);
    let total = reference::sum_u32(&data);
    let run = launch::sum_u32(ctx.dev, &k, &data, one_per_thread(n, 64), 64)
        .map_err(|e| ctx.on(case)(Outcome::from_launch_error(&e)))?;
    let got = run.out.first().copied().unwrap_or(0);
    if got == 0 || got > total {
        return Err(ctx.on(case)(Outcome::fail(
            Status::WrongResult,
            format!(
                "the sum is {got}: expected between 1 and {total} (a lost update leaves elements out, it never \
                 adds one twice, and some update lands)"
            ),
        )));
    }
    let lost = total - got;
    // The emulator's lockstep schedule loses updates every time; a GPU's timing may
    // (rarely) not, so only the emulator can call a lossless run the wrong technique.
    if lost == 0 && ctx.dev.is_emulator() {
        return Err(ctx.technique(
            case,
            "no update was lost although every thread added to the one sum: 10.2 asks for the racy \
             `sum.store(0, sum.load(0) + x)`, so that you can see the race; the fix is 10.3",
        ));
    }
    let mut race_note = String::new();
    if ctx.dev.is_emulator() {
        let Some(race) = run.report.findings().iter().find(|f| f.is_race()) else {
            return Err(ctx.technique(
                case,
                format!("{lost} of the sum was lost but the emulator reported no race"),
            ));
        };
        race_note = format!("; the emulator reported: {race}");
    } else {
        race_note.push_str(" (the race report is not checked: it needs the emulator)");
    }
    Ok(format!(
        "right without collisions; with every thread on one word the sum came to {got} of {total}{race_note}"
    ))
}

/// 10.3's grids: a grid far smaller than the input (the loop must stride), another, and
/// one with more threads than elements.
fn grids_10_3(n: usize) -> [(u32, u32); 3] {
    [(3, 64), (5, 96), (one_per_thread(n, 64) + 2, 64)]
}

pub(crate) fn check_10_3(ctx: &mut Ctx) -> Checked {
    ctx.follow_data();
    let k = ctx.k.sum_atomic;
    let mut launches = 0;
    for case in inputs::u32_cases(ctx.seed) {
        for (grid, block) in grids_10_3(case.n()) {
            let name = format!("{}, <<<{grid}, {block}>>>", case.name);
            let run = launch::sum_u32(ctx.dev, &k, &case.data, grid, block);
            let run = verify_sum(ctx, &name, run, reference::sum_u32(&case.data))?;
            flow::follow(ctx, &name, "sum_atomic", &run, Values::U32(&case.data))?;
            if let Some(c) = counters(&run) {
                let nonzero = case.data.iter().filter(|&&x| x != 0).count() as u64;
                let atomics = effective_global_atomics(c);
                require(
                    ctx,
                    &name,
                    atomics == nonzero,
                    Some(crate::failures::ATOMICS_PER_ELEMENT),
                    || {
                        format!(
                            "{atomics} global atomics added something for {nonzero} nonzero elements: 10.3 adds \
                             each element with exactly one global atomic_add"
                        )
                    },
                )?;
                require(
                    ctx,
                    &name,
                    shared_accesses(c) == 0,
                    Some(crate::failures::SHARED_MEMORY),
                    || {
                        format!(
                            "{} shared-memory instructions: 10.3 adds straight into the sum with global atomics",
                            shared_accesses(c)
                        )
                    },
                )?;
            }
            launches += 1;
        }
    }
    Ok(format!(
        "{launches} launches right, one global atomic per element, each by the thread that loaded it{}",
        ctx.technique_note()
    ))
}
