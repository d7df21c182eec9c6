//! Technique checks that follow the data: each counted byte must reach its bin through an
//! atomic issued by the thread (or, with warp aggregation, the warp) that loaded it, and
//! the bins a block commits must be the ones its atomics built.
//!
//! The counters say how many atomics a kernel issued, and dummy atomics can match any
//! number; the launch's flow (`simt::flow`, recorded when the check calls
//! `Ctx::follow_data`) says which thread loaded which input bytes and which atomics it
//! issued with which operand. A kernel that counts somewhere else (a `Vec` in one
//! thread, another thread's registers) and then stores or commits the result fails here
//! as the wrong technique, with a message that says which thread broke the chain.

use super::Ctx;
use crate::launch::Run;
use course::Outcome;
use simt::flow::{Flow, FlowKind};
use simt::{AtomicOp, AtomicType, Space};
use solutions::ch09::byte_bin;
use std::collections::{BTreeMap, BTreeSet};

/// Who must count the bytes it loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Each thread counts its own bytes (9.3, 9.5, 9.6, 9.7, 9.9).
    Thread,
    /// The warp counts its lanes' bytes together (9.8: one lane adds for its peers).
    Warp,
}

impl Unit {
    /// What a unit is called in a message.
    fn noun(self) -> &'static str {
        match self {
            Unit::Thread => "thread",
            Unit::Warp => "warp",
        }
    }
    /// The unit a thread (its linear index in the block) belongs to.
    fn key(self, thread: u32) -> u32 {
        match self {
            Unit::Thread => thread,
            Unit::Warp => thread / 32,
        }
    }
}

/// Where a kernel counts: how to read a counting atomic's bin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counts {
    /// With global atomics on the output, `histo[bin]` (9.3).
    Global,
    /// In a shared copy `bins[bin]`, committed to the output by global atomics (9.5 to
    /// 9.8).
    SharedBins,
    /// In shared counters of the kernel's own layout (9.9's column per lane): the bin of
    /// a counter is not its index, so only the totals are followed.
    SharedTotals,
}

/// `(block, unit)` -> bin -> count.
type PerUnit = BTreeMap<(u64, u32), BTreeMap<u32, u64>>;

/// Follows the flow of `run` (a byte histogram of `data` into `bins` bins, counted as
/// `counts` by `unit`s): `Ok` when every loaded byte was counted by its unit in its bin
/// and each block committed what it counted, else the first break in the chain, as a
/// wrong-technique failure on `case`. Nothing to follow on a GPU.
pub(crate) fn follow(
    ctx: &Ctx,
    case: &str,
    run: &Run<u32>,
    data: &[u8],
    bins: u32,
    unit: Unit,
    counts: Counts,
) -> Result<(), Outcome> {
    let Some(flow) = run.report.emulator.as_ref().and_then(|r| r.flow.as_ref()) else {
        return Ok(());
    };
    chain(flow, run, data, bins, unit, counts).map_err(|why| ctx.technique(case, why))
}

/// [`follow`] for a kernel privatized in a shared `bins[bin]` copy, each thread counting
/// its own bytes (9.5, 9.6).
pub(crate) fn privatized(
    ctx: &Ctx,
    case: &str,
    run: &Run<u32>,
    data: &[u8],
    bins: u32,
) -> Result<(), Outcome> {
    follow(ctx, case, run, data, bins, Unit::Thread, Counts::SharedBins)
}

/// Follows the flow of `run` (9.9's vector loads from its input) for memory-level
/// parallelism: every thread that loaded at least `depth` 16-byte vectors of the input
/// must at some point have had `depth` of them loaded before counting any (no atomic
/// between them), which is what keeps `depth` loads in flight per lane. Nothing to
/// follow on a GPU.
pub(crate) fn loads_in_flight(
    ctx: &Ctx,
    case: &str,
    run: &Run<u32>,
    data: &[u8],
    depth: u32,
) -> Result<(), Outcome> {
    let Some(flow) = run.report.emulator.as_ref().and_then(|r| r.flow.as_ref()) else {
        return Ok(());
    };
    let input = run.input_addrs.first().copied().unwrap_or(u64::MAX);
    let end = input.saturating_add(data.len() as u64);
    // Per (block, thread): vectors loaded, the current run of them, the longest run.
    let mut per: BTreeMap<(u64, u32), (u32, u32, u32)> = BTreeMap::new();
    for e in &flow.events {
        let (loads, run_now, longest) = per.entry((e.block, e.thread)).or_default();
        match e.kind {
            FlowKind::Load if e.size == 16 && e.addr >= input && e.addr < end => {
                *loads += 1;
                *run_now += 1;
                *longest = (*longest).max(*run_now);
            }
            FlowKind::Atomic(..) => *run_now = 0,
            FlowKind::Load => {}
        }
    }
    match per
        .iter()
        .find(|&(_, &(loads, _, longest))| loads >= depth && longest < depth)
    {
        None => Ok(()),
        Some((&(block, thread), &(loads, _, longest))) => Err(ctx.technique(
            case,
            format!(
                "thread {thread} of block {block} loaded {loads} 16-byte vectors but never more than \
                 {longest} before counting: load {depth} vectors, then count them, so that {depth} loads \
                 are in flight while the lane waits for the first"
            ),
        )),
    }
}

fn chain(
    flow: &Flow,
    run: &Run<u32>,
    data: &[u8],
    bins: u32,
    unit: Unit,
    counts: Counts,
) -> Result<(), String> {
    if flow.truncated {
        return Err(format!(
            "more than {} loads and atomics for {} input bytes: far more than counting them takes",
            simt::flow::MAX_FLOW_EVENTS,
            data.len()
        ));
    }
    let input = run.input_addrs.first().copied().unwrap_or(u64::MAX);
    let n = data.len() as u64;
    let bin_of = |e: u64| byte_bin(data[e as usize], bins);
    // Per unit: the input elements it loaded (each once), and what its atomics counted.
    let mut loaded: BTreeMap<(u64, u32), Vec<u64>> = BTreeMap::new();
    let mut counted: PerUnit = BTreeMap::new();
    // Per block: what its shared counters received, and what it committed.
    let mut built: BTreeMap<u64, BTreeMap<u32, u64>> = BTreeMap::new();
    let mut committed: BTreeMap<u64, BTreeMap<u32, u64>> = BTreeMap::new();
    // The key counts are kept under: the bin, or one key for all (totals only).
    let bin_key = |bin: u32| {
        if counts == Counts::SharedTotals {
            0
        } else {
            bin
        }
    };
    for e in &flow.events {
        let who = (e.block, unit.key(e.thread));
        match e.kind {
            FlowKind::Load => {
                let (lo, hi) = (e.addr, e.addr + e.size as u64);
                let elements = lo.max(input)..hi.min(input.saturating_add(n));
                if !elements.is_empty() {
                    loaded
                        .entry(who)
                        .or_default()
                        .extend(elements.map(|a| a - input));
                }
            }
            FlowKind::Atomic(
                AtomicOp::Add,
                AtomicType::U32 | AtomicType::I32 | AtomicType::U64,
            ) => {
                let index = (e.addr - e.base) / e.size as u64;
                let to_output = e.space == Space::Global && e.base == run.output_addr;
                match (counts, e.space) {
                    (Counts::Global, Space::Global) if to_output => {
                        *counted
                            .entry(who)
                            .or_default()
                            .entry(index as u32)
                            .or_default() += e.value;
                    }
                    (Counts::SharedBins | Counts::SharedTotals, Space::Shared) => {
                        let bin = bin_key(index as u32);
                        *counted.entry(who).or_default().entry(bin).or_default() += e.value;
                        *built.entry(e.block).or_default().entry(bin).or_default() += e.value;
                    }
                    (Counts::SharedBins | Counts::SharedTotals, Space::Global) if to_output => {
                        let bin = bin_key(index as u32);
                        *committed
                            .entry(e.block)
                            .or_default()
                            .entry(bin)
                            .or_default() += e.value;
                    }
                    _ => {}
                }
            }
            FlowKind::Atomic(..) => {}
        }
    }
    // Each unit counted exactly the bytes it loaded, bin by bin.
    let mut units: Vec<(u64, u32)> = loaded.keys().chain(counted.keys()).copied().collect();
    units.sort_unstable();
    units.dedup();
    for who in units {
        let mut expected: BTreeMap<u32, u64> = BTreeMap::new();
        if let Some(elements) = loaded.get_mut(&who) {
            elements.sort_unstable();
            elements.dedup();
            for &e in elements.iter() {
                *expected.entry(bin_key(bin_of(e))).or_default() += 1;
            }
        }
        let got = nonzero(counted.get(&who));
        if got != expected {
            let loaded_n: u64 = expected.values().sum();
            let counted_n: u64 = got.values().sum();
            let place = match counts {
                Counts::Global => "global atomics on the output",
                Counts::SharedBins | Counts::SharedTotals => "shared atomics",
            };
            let detail = if loaded_n == counted_n {
                let bin = expected
                    .iter()
                    .find(|(b, c)| got.get(b) != Some(c))
                    .or_else(|| got.iter().find(|(b, c)| expected.get(b) != Some(c)))
                    .map(|(b, _)| *b)
                    .unwrap_or_default();
                format!(
                    ", but not in the bins of those bytes (bin {bin}: {} loaded, {} counted)",
                    expected.get(&bin).copied().unwrap_or(0),
                    got.get(&bin).copied().unwrap_or(0)
                )
            } else {
                String::new()
            };
            let (noun, (block, key)) = (unit.noun(), who);
            return Err(format!(
                "{noun} {key} of block {block} loaded {loaded_n} input byte(s) and its {place} counted \
                 {counted_n}{detail}: each byte must reach its bin through an atomic_add issued by the \
                 {noun} that loaded it"
            ));
        }
    }
    // Each block committed what its shared counters received.
    if counts != Counts::Global {
        let blocks: BTreeSet<u64> = built.keys().chain(committed.keys()).copied().collect();
        for block in blocks {
            let (b, c) = (nonzero(built.get(&block)), nonzero(committed.get(&block)));
            if b != c {
                let (nb, nc): (u64, u64) = (b.values().sum(), c.values().sum());
                return Err(format!(
                    "block {block}'s shared atomics counted {nb} byte(s) and it committed {nc} to the output{}: \
                     the bins a block commits are the ones its shared atomics built",
                    if nb == nc { " in other bins" } else { "" }
                ));
            }
        }
    }
    Ok(())
}

/// The nonzero counts of `m` (none if absent): a bin an atomic added 0 to was not counted.
fn nonzero(m: Option<&BTreeMap<u32, u64>>) -> BTreeMap<u32, u64> {
    m.into_iter()
        .flatten()
        .filter(|(_, c)| **c > 0)
        .map(|(b, c)| (*b, *c))
        .collect()
}
