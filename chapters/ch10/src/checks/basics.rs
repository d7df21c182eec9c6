//! Checks of 10.1 to 10.3: the sequential sums, the race, one global atomic per element.

use super::flow::{self, Values};
use super::{
    Checked, Ctx, counters, effective_global_atomics, require, shared_accesses, verify_sum,
    within_bound,
};
use crate::inputs;
use crate::launch::{self, Run, one_per_thread};
use crate::reference;
use course::{Outcome, Status, catch_host, compare};
use simt::Space;
use simt::flow::FlowKind;
use std::collections::BTreeMap;

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
    ctx.follow_data();
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
    if let Some(why) = stores_add_loaded(&run, n) {
        return Err(ctx.on(case)(Outcome::fail(Status::WrongResult, why)));
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

/// 10.2's data followed (on the emulator): every store of the sum is the sum as its thread
/// last saw it (its last load of `sum[0]`, or its own last store since) plus the elements
/// it loaded since its last store, and no thread leaves an element it loaded unstored.
/// The race may lose any store, but a store that does not add its elements to the sum it
/// read (the element alone, say) is wrong whatever the schedule. `None` when that holds
/// or nothing was followed (on a GPU).
fn stores_add_loaded(run: &Run<u32>, n: usize) -> Option<String> {
    let flow = run.report.emulator.as_ref()?.flow.as_ref()?;
    if flow.truncated {
        return Some("the kernel issued more memory operations than the check follows".into());
    }
    let input = run.input_addrs[0]..run.input_addrs[0] + 4 * n as u64;
    // Per thread: the sum as it last saw it, and the elements loaded since (their sum, count).
    let mut threads: BTreeMap<(u64, u32), (Option<u32>, u32, u32)> = BTreeMap::new();
    for e in flow.events.iter().filter(|e| e.space == Space::Global) {
        let t = threads.entry((e.block, e.thread)).or_default();
        let word = e.value as u32;
        match e.kind {
            FlowKind::Load if input.contains(&e.addr) => {
                t.1 = t.1.wrapping_add(word);
                t.2 += 1;
            }
            FlowKind::Load if e.addr == run.output_addr => t.0 = Some(word),
            FlowKind::Store if e.addr == run.output_addr => {
                let Some(seen) = t.0 else {
                    return Some(format!(
                        "thread {} of block {} stored {word} to the sum (line {}) without loading the sum first: \
                         10.2 stores the sum it loaded plus its element",
                        e.thread, e.block, e.line
                    ));
                };
                if seen.wrapping_add(t.1) != word {
                    return Some(format!(
                        "thread {} of block {} stored {word} to the sum (line {}), but it had loaded the sum {seen} \
                         and {} element(s) adding {}: 10.2 stores the sum it loaded plus its element",
                        e.thread, e.block, e.line, t.2, t.1
                    ));
                }
                *t = (Some(word), 0, 0);
            }
            _ => {}
        }
    }
    threads
        .iter()
        .find(|(_, t)| t.1 != 0)
        .map(|((block, thread), t)| {
            format!(
                "thread {thread} of block {block} loaded {} element(s) adding {} and never stored them into the \
                 sum: each thread adds its element to the sum it loaded and stores the result",
                t.2, t.1
            )
        })
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
