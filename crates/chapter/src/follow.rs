//! The data followed: one function ([`follow`]) checks any launch's flow
//! (`simt::flow`) against the way its exercise's record says the data must go
//! ([`Follow`]).
//!
//! Counters say how many atomics a kernel issued, and dummy work can match any number: a
//! kernel whose thread 0 counts its block's elements in a `Vec` while the other threads
//! issue `atomic_add(0, 0)` shows the counters of shared privatization. What it cannot
//! fake is where the data goes. From the flow (which thread loaded which bytes, every
//! atomic with its operand, every read and store of shared memory) this module follows
//! each element of the input:
//!
//! 1. **counted by whoever loaded it**: each unit (a thread, or with [`Unit::Warp`] its
//!    warp) must add, over its counting atomics, exactly what the elements it loaded
//!    contribute, bin by bin: 1 each for a count (a run of equal bins may be added at
//!    once), the element's own weight for a weighted histogram (one `f32` add each);
//! 2. **committed as counted** ([`Place::Shared`]): a shared counter's bin is the output
//!    bin its commit adds it to, whatever the layout (a copy of the bins, a column per
//!    lane or per byte value, a slice); each commit must add exactly what the shared
//!    counters its thread (or, through a shuffle reduction, its warp) read since its last
//!    commit hold, and a thread that stores into a counter the sum of those it read moves
//!    their counts there (a reduction in shared memory);
//! 3. **each thread its own share**: no thread of a block loads far more elements than
//!    its block's threads do on average, so that one thread counting for its block, or
//!    lane 0 for its warp, fails even when it counts in its own registers; and in
//!    registers ([`Place::Registers`]) only counts cross lanes, after the counting;
//! 4. **in every round** (9.9): every whole vector of the input read by one vector load,
//!    that many vector loads in flight before counting in every round that has them, and
//!    each lane counting in one bank of its own.
//!
//! A reduction (chapter 10: [`Adds::Values`], [`Adds::FloatValues`]) is followed the same
//! way, each element's value in place of a count: with [`Place::Global`] each element is
//! added by an atomic of its own value; in shared memory a thread stores the sum of the
//! elements it loaded at its own word, every later store is a move of the words it read
//! (its own last store included) into one, checked round by round against the step's
//! [`Tree`], and the commit adds what the words it read hold; in registers each unit
//! ([`Unit::Block`] for one atomic per block) commits the sum of what it loaded. `u32`
//! sums compare modulo 2^32, `f32` sums within their rounding.
//!
//! What it cannot see: arithmetic in registers. A count is followed from the atomics and
//! memory operations around it, so a kernel that moves elements between lanes after all
//! its loads (through shuffles) and counts them elsewhere in registers is not told apart
//! from a reduction of counts; the counters and the share rule bound what it can gain.
//!
//! A break of the chain is the wrong technique, said with the thread (or warp) that broke
//! it; the summary of a flow that holds ([`Followed`]) says what was measured.

use crate::declared::{Follow, Place, Scope, Tree, Unit};
use simt::flow::{Collective, Flow, FlowEvent, FlowKind};
use simt::{AtomicOp, AtomicType, Space};
use std::collections::{BTreeMap, BTreeSet};

/// One input buffer of a launch: element `i` of the input is bytes `i * size ..
/// (i + 1) * size` of each part (a pair has two parts: `x[i]` and `y[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// The buffer's device address.
    pub addr: u64,
    /// Bytes per element.
    pub size: u32,
}

/// What one element adds to its bin.
#[derive(Clone, Copy, Debug)]
pub enum Adds<'a> {
    /// 1: a count, added by integer atomics (a run of equal bins may be added at once).
    One,
    /// Its weight, `weights[i]`, added by one `f32` atomic of exactly that value.
    Weights(&'a [f32]),
    /// Its value, `values[i]` (a reduction, chapter 10: every element's bin is the one
    /// output word), summed with wrapping: [`Place::Global`] adds each by an atomic of
    /// exactly that value; through shared memory ([`Place::Shared`]) a thread stores the
    /// sum of the elements it loaded and the block's tree moves sums from word to word;
    /// in registers each unit's commits add, in all, what it loaded.
    Values(&'a [u32]),
    /// The same for `f32` values, sums compared within their rounding.
    FloatValues(&'a [f32]),
}

impl Adds<'_> {
    /// Are the adds `f32` bits?
    fn float(self) -> bool {
        matches!(self, Adds::Weights(_) | Adds::FloatValues(_))
    }

    /// Is this a reduction (values summed into one word) rather than a histogram?
    fn sums(self) -> bool {
        matches!(self, Adds::Values(_) | Adds::FloatValues(_))
    }

    /// What element `i` adds: 1, or its weight's or value's bits.
    fn of(self, i: usize) -> u64 {
        match self {
            Adds::One => 1,
            Adds::Weights(w) | Adds::FloatValues(w) => w[i].to_bits() as u64,
            Adds::Values(v) => v[i] as u64,
        }
    }
}

/// A launch's input, as [`follow`] reads it: its elements, their bins and what each adds.
pub struct Elements<'a> {
    /// The input buffers each element is read from.
    pub parts: Vec<Part>,
    /// Elements.
    pub n: usize,
    /// Element `i`'s bin in the output, `None` for an element no bin counts (a value past
    /// the last bin, the bytes of a partial pixel).
    pub bin: &'a dyn Fn(usize) -> Option<u32>,
    /// What an element adds.
    pub adds: Adds<'a>,
    /// The output's device address: atomics there are the counts or the commits.
    pub output: u64,
    /// What an element is called in messages (`byte`, `value`, `pair`).
    pub noun: &'static str,
    /// Threads per block of the launch.
    pub block_threads: u32,
    /// With [`Scope::Slices`]: bins per slice (the block's shared counters).
    pub slice_width: u32,
}

/// What a flow that holds showed, for a pass message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Followed {
    /// Elements counted by the unit that loaded them.
    pub elements: u64,
    /// Commits of shared counters followed to the output.
    pub commits: u64,
    /// Rounds (9.9) that had [`Follow::in_flight`] vectors or more left, each of which
    /// loaded that many before counting.
    pub full_rounds: u64,
    /// The last rounds of threads with fewer left.
    pub short_rounds: u64,
    /// Vector loads of whole vectors.
    pub vector_loads: u64,
    /// Counting atomics each in its lane's own bank.
    pub banked_atomics: u64,
    /// Warp collective instructions, by kind (one per warp instruction that lane 0 of
    /// its warp took part in).
    pub collectives: BTreeMap<Collective, u64>,
}

impl Followed {
    /// Collectives of `kind` the launch issued.
    pub fn collective(&self, kind: Collective) -> u64 {
        self.collectives.get(&kind).copied().unwrap_or(0)
    }

    /// Adds `other`'s figures into these (a check's launches summed).
    pub fn add(&mut self, other: &Followed) {
        self.elements += other.elements;
        self.commits += other.commits;
        self.full_rounds += other.full_rounds;
        self.short_rounds += other.short_rounds;
        self.vector_loads += other.vector_loads;
        self.banked_atomics += other.banked_atomics;
        for (k, v) in &other.collectives {
            *self.collectives.entry(*k).or_default() += v;
        }
    }
}

/// A thread: its block and its linear index in the block.
type Thread = (u64, u32);
/// A unit: its block and its index (a thread's or a warp's) in the block.
type UnitKey = (u64, u32);

/// A shared counter's pending adds: who added how much (an integer, or an `f32`'s bits).
type Adds32 = Vec<(UnitKey, u64)>;

/// The slack of a thread's share: a thread may load up to twice its block's average and
/// one 16-byte vector of bytes more (a vector and a tail byte, a pixel's three bytes, the
/// last elements of a partition that does not divide evenly), far less than the 32 times
/// its share a lane loads when it counts for its warp.
const SHARE_SLACK: u64 = 16;

/// Follows `flow` (of a launch of `decl.kernel` on the input `e`) against `decl`: the
/// summary when every element went where the declaration says, else why not (the
/// wrong-technique reason, naming the thread or warp that broke the chain).
pub fn follow(decl: &Follow, flow: &Flow, e: &Elements) -> Result<Followed, String> {
    if e.parts.is_empty() {
        return Err("the check follows a launch with no input buffer".into());
    }
    if flow.truncated {
        return Err(format!(
            "more than {} loads, stores, atomics and collectives for {} input {}s: far more than \
             counting them takes",
            simt::flow::MAX_FLOW_EVENTS,
            e.n,
            e.noun
        ));
    }
    let float = e.adds.float();
    let sums = e.adds.sums();
    let unit_of = |block: u64, thread: u32| -> UnitKey {
        match decl.unit {
            Unit::Thread => (block, thread),
            Unit::Warp => (block, thread / 32),
            Unit::Block => (block, 0),
        }
    };
    let counting = |op: AtomicOp, ty: AtomicType| {
        op == AtomicOp::Add
            && match ty {
                AtomicType::F32 => float,
                AtomicType::U32 | AtomicType::I32 | AtomicType::U64 => !float,
            }
    };
    // Part k of element i: the threads that loaded it.
    let mut loaded: Vec<Vec<Vec<Thread>>> = vec![vec![Vec::new(); e.n]; e.parts.len()];
    // The blocks' shared counters: what each word holds, who read what.
    let mut shared = SharedCounters {
        float,
        sums,
        ..SharedCounters::default()
    };
    // Adds to `f32` counters whose sum came to zero and so needed no commit: no bin.
    let mut cancelled: BTreeMap<UnitKey, Vec<u64>> = BTreeMap::new();
    // What each unit's adds reached, by output bin.
    let mut reached: BTreeMap<UnitKey, Vec<(u32, u64)>> = BTreeMap::new();
    let mut committed: BTreeMap<u64, BTreeSet<u32>> = BTreeMap::new();
    let mut broken: Option<String> = None;
    let mut out = Followed::default();
    for ev in &flow.events {
        match (ev.kind, ev.space) {
            (FlowKind::Load, Space::Global) => {
                let fresh = mark_loaded(&mut loaded, e, ev);
                if sums && decl.into == Place::Shared {
                    let unit = unit_of(ev.block, ev.thread);
                    let mine = shared.pending.entry((ev.block, ev.thread)).or_default();
                    mine.extend(fresh.into_iter().map(|i| (unit, e.adds.of(i))));
                }
            }
            (FlowKind::Load, Space::Shared) if decl.into == Place::Shared => shared.read(ev),
            (FlowKind::Store, Space::Shared) if decl.into == Place::Shared => {
                for (unit, v) in shared.store(ev, &mut broken) {
                    cancelled.entry(unit).or_default().push(v);
                }
            }
            (FlowKind::Atomic(op, ty), Space::Shared)
                if decl.into == Place::Shared && counting(op, ty) && !is_zero(ev.value, float) =>
            {
                shared
                    .words
                    .entry((ev.block, ev.addr / 4))
                    .or_default()
                    .push((unit_of(ev.block, ev.thread), ev.value));
            }
            (FlowKind::Atomic(op, ty), Space::Global)
                if ev.base == e.output && counting(op, ty) =>
            {
                if is_zero(ev.value, float) || ev.size == 0 {
                    continue;
                }
                let bin = ((ev.addr - ev.base) / ev.size as u64) as u32;
                committed.entry(ev.block).or_default().insert(bin);
                match decl.into {
                    Place::Global | Place::Registers => reached
                        .entry(unit_of(ev.block, ev.thread))
                        .or_default()
                        .push((bin, ev.value)),
                    Place::Shared => {
                        out.commits += 1;
                        if let Err(why) = shared.commit(ev, bin, &mut reached)
                            && broken.is_none()
                        {
                            broken = Some(why);
                        }
                    }
                }
            }
            (FlowKind::Warp(c), _) if ev.thread % 32 == 0 => {
                *out.collectives.entry(c).or_default() += 1;
            }
            _ => {}
        }
    }
    // `f32` counters never committed because their adds cancelled out.
    for (_, adds) in std::mem::take(&mut shared.words) {
        if float && sums_to_zero(&adds) {
            for (unit, v) in adds {
                cancelled.entry(unit).or_default().push(v);
            }
        }
    }
    // Which elements each thread loaded whole (every part).
    let mut per_thread: BTreeMap<Thread, u64> = BTreeMap::new();
    let mut expected: BTreeMap<UnitKey, BTreeSet<usize>> = BTreeMap::new();
    for i in 0..e.n {
        let mut who: Vec<Thread> = loaded[0][i].clone();
        who.sort_unstable();
        who.dedup();
        for part in &loaded[1..] {
            who.retain(|t| part[i].contains(t));
        }
        for &(block, thread) in &who {
            *per_thread.entry((block, thread)).or_default() += 1;
            expected
                .entry(unit_of(block, thread))
                .or_default()
                .insert(i);
        }
    }
    // 1. Each unit counted exactly what it loaded (of its block's slices).
    let in_scope = |block: u64, bin: u32| match decl.scope {
        Scope::All => true,
        Scope::Slices => committed.get(&block).is_some_and(|bins| {
            let width = e.slice_width.max(1);
            bins.iter().any(|b| b / width == bin / width)
        }),
    };
    let units: BTreeSet<UnitKey> = expected.keys().chain(reached.keys()).copied().collect();
    for u in units {
        let mut want: Vec<(u32, u64)> = Vec::new();
        let mut loaded_n = 0u64;
        for &i in expected.get(&u).into_iter().flatten() {
            let Some(bin) = (e.bin)(i) else { continue };
            if !in_scope(u.0, bin) {
                continue;
            }
            loaded_n += 1;
            let add = e.adds.of(i);
            if !is_zero(add, float) {
                want.push((bin, add));
            }
        }
        let got = reached.get(&u).cloned().unwrap_or_default();
        let no_bin = cancelled.get(&u).map_or(&[][..], Vec::as_slice);
        let why = if sums {
            sum_mismatch(decl, e, u, loaded_n, &want, &got, float)
        } else {
            mismatch(decl, e, u, loaded_n, want, got, no_bin, float)
        };
        if let Some(why) = why {
            return Err(why);
        }
        out.elements += loaded_n;
    }
    // 2. Every commit added what the counters it read held.
    if let Some(why) = broken {
        return Err(why);
    }
    // A reduction's tree, round by round.
    if sums && decl.into == Place::Shared && decl.tree != Tree::Any {
        tree_rounds(decl.tree, &shared.moves, &shared.placed)?;
        tree_root(decl.tree, &shared.commits)?;
    }
    // 3. Each thread its own share of its block's elements.
    share(e, &per_thread)?;
    // In registers, only counts cross lanes, once the counting is done.
    if decl.into == Place::Registers {
        counts_cross_lanes_last(flow, e)?;
    }
    // 4. 9.9's rounds.
    if decl.vector_bytes > 0 || decl.in_flight > 0 || decl.lane_banks {
        rounds(decl, flow, e, &mut out)?;
    }
    Ok(out)
}

/// Is an add of `value` no add at all (0, or an `f32` zero of either sign)?
fn is_zero(value: u64, float: bool) -> bool {
    if float {
        value as u32 & 0x7fff_ffff == 0
    } else {
        value == 0
    }
}

/// The 4-byte words of shared memory an access covers.
fn words_of(ev: &FlowEvent) -> std::ops::RangeInclusive<u64> {
    ev.addr / 4..=(ev.addr + (ev.size.max(1) as u64) - 1) / 4
}

/// Marks the elements whose bytes the global load `ev` read as loaded by its thread;
/// returns the elements of the first part that this load read for the first time.
fn mark_loaded(loaded: &mut [Vec<Vec<Thread>>], e: &Elements, ev: &FlowEvent) -> Vec<usize> {
    let mut fresh = Vec::new();
    let (lo, hi) = (ev.addr, ev.addr + ev.size as u64);
    for (k, p) in e.parts.iter().enumerate() {
        let size = p.size.max(1) as u64;
        let end = p.addr.saturating_add(e.n as u64 * size);
        if hi <= p.addr || lo >= end {
            continue;
        }
        let first = (lo.max(p.addr) - p.addr) / size;
        let last = (hi.min(end) - 1 - p.addr) / size;
        for i in first..=last {
            let who = &mut loaded[k][i as usize];
            if !who.contains(&(ev.block, ev.thread)) {
                who.push((ev.block, ev.thread));
                if k == 0 {
                    fresh.push(i as usize);
                }
            }
        }
    }
    fresh
}

/// Do `f32` adds cancel out (a counter that ends at zero needs no commit)?
fn sums_to_zero(adds: &Adds32) -> bool {
    let (sum, mass) = adds.iter().fold((0f64, 0f64), |(s, m), &(_, v)| {
        let x = value(v, true);
        (s + x, m + x.abs())
    });
    sum.abs() <= 1e-4 * mass + 1e-6
}

/// An add's value as `f64`.
fn value(v: u64, float: bool) -> f64 {
    if float {
        f32::from_bits(v as u32) as f64
    } else {
        v as f64
    }
}

/// Does `c` equal `held`, the total of adds of absolute sum `mass` (an `f32` sum within its
/// rounding)?
fn same(c: f64, held: f64, mass: f64, float: bool) -> bool {
    if float {
        (c - held).abs() <= 1e-4 * mass + 1e-6
    } else {
        c == held
    }
}

/// The blocks' shared counters as the follower sees them: what each word holds (the adds
/// of the units that counted into it, or that a thread moved into it), how often each was
/// stored to, and the words each thread read since it last committed or stored what it
/// read. Counts flow through shared memory two ways: a commit (a global atomic adding to
/// the output what the thread, or its warp, read) and a move (a thread storing into a
/// word the sum of what it read: a reduction in shared memory).
#[derive(Default)]
struct SharedCounters {
    float: bool,
    /// A reduction ([`Adds::Values`], [`Adds::FloatValues`]): elements enter shared
    /// memory by a store of their sum, `u32` sums wrap, and a store is a move of the
    /// words the thread read (its own last store included, which it still holds).
    sums: bool,
    /// Per thread, the elements it loaded and has not yet stored (a reduction).
    pending: BTreeMap<Thread, Adds32>,
    /// A reduction's moves: a thread storing the sum of words it read into a word.
    moves: Vec<Move>,
    /// A reduction's placements: a thread storing the sum of its loaded elements.
    placed: Vec<Move>,
    words: BTreeMap<(u64, u64), Adds32>,
    epochs: BTreeMap<(u64, u64), u32>,
    /// Per thread, the words it read, in order, with the stores to each before the read.
    reads: BTreeMap<Thread, Vec<(u64, u32)>>,
    /// A reduction's commits by one thread: the words it read and added (in `sources`).
    commits: Vec<Move>,
}

/// A store of a reduction in shared memory: who stored the sum of what into which word.
#[derive(Clone, Debug)]
struct Move {
    block: u64,
    thread: u32,
    target: u64,
    /// The words whose sums it added (none for a placement of loaded elements).
    sources: Vec<u64>,
    line: u32,
}

impl SharedCounters {
    /// Does `c` equal `held` (adds of absolute sum `mass`)? Within rounding for `f32`,
    /// modulo 2^32 for a reduction's `u32` sums, exactly otherwise.
    fn same(&self, c: f64, held: f64, mass: f64) -> bool {
        if self.sums && !self.float {
            c as u64 as u32 == held as u64 as u32
        } else {
            same(c, held, mass, self.float)
        }
    }

    /// A reduction's store `ev`: the sum of the thread's pending elements and of the first
    /// words of its fresh reads (as many as match) moves into the stored word. `None`
    /// when no such sum is the stored value.
    fn store_sum(&mut self, ev: &FlowEvent, broken: &mut Option<String>) -> Option<Adds32> {
        let thread = (ev.block, ev.thread);
        if ev.size != 4 {
            return None;
        }
        let c = value(ev.value, self.float);
        let pending = self.pending.get(&thread).cloned().unwrap_or_default();
        let (p_sum, p_mass) = pending.iter().fold((0.0, 0.0), |(t, m), &(_, v)| {
            let x = value(v, self.float);
            (t + x, m + x.abs())
        });
        let ws = self.fresh(thread);
        let k = (0..=ws.len()).rev().find(|&k| {
            let (held, mass) = self.held(ev.block, &ws[..k]);
            (k > 0 || !pending.is_empty()) && self.same(c, held + p_sum, mass + p_mass)
        })?;
        let target = ev.addr / 4;
        // The words that held something: a word read back after its sum moved on is none.
        let sources: Vec<u64> = ws[..k]
            .iter()
            .filter(|w| self.words.contains_key(&(ev.block, **w)))
            .copied()
            .collect();
        let mut adds = self.take(ev.block, &ws[..k]);
        adds.extend(self.pending.remove(&thread).unwrap_or_default());
        let mut cancelled = Vec::new();
        self.overwrite(ev, target, broken, &mut cancelled);
        self.words.insert((ev.block, target), adds);
        let m = Move {
            block: ev.block,
            thread: ev.thread,
            target,
            sources,
            line: ev.line,
        };
        if !m.sources.is_empty() {
            self.moves.push(m);
        } else {
            self.placed.push(m);
        }
        // The thread still holds what it stored: its next move may add to it.
        let at = self.epochs.get(&(ev.block, target)).copied().unwrap_or(0);
        self.reads.insert(thread, vec![(target, at)]);
        Some(cancelled)
    }

    /// A shared load: its words join its thread's reads (a read of zero carries nothing).
    fn read(&mut self, ev: &FlowEvent) {
        if ev.size <= 8 && is_zero(ev.value, self.float && ev.size == 4) {
            return;
        }
        let mine = self.reads.entry((ev.block, ev.thread)).or_default();
        for w in words_of(ev) {
            if !mine.iter().any(|&(x, _)| x == w) {
                let at = self.epochs.get(&(ev.block, w)).copied().unwrap_or(0);
                mine.push((w, at));
            }
        }
    }

    /// The words `thread` read that still hold what it read, in the order it read them.
    fn fresh(&self, thread: Thread) -> Vec<u64> {
        self.reads
            .get(&thread)
            .into_iter()
            .flatten()
            .filter(|(w, at)| self.epochs.get(&(thread.0, *w)).copied().unwrap_or(0) == *at)
            .map(|&(w, _)| w)
            .collect()
    }

    /// The total and the absolute sum of the adds of words `ws` of `block`.
    fn held(&self, block: u64, ws: &[u64]) -> (f64, f64) {
        ws.iter()
            .filter_map(|w| self.words.get(&(block, *w)))
            .flatten()
            .fold((0.0, 0.0), |(t, m), &(_, v)| {
                let x = value(v, self.float);
                (t + x, m + x.abs())
            })
    }

    /// The words of `thread`'s fresh reads whose adds total `c`: all of them, or the first
    /// ones (a reduction may read a word past its last and weigh it by zero).
    fn matching(&self, thread: Thread, c: f64) -> Option<Vec<u64>> {
        let ws = self.fresh(thread);
        (0..=ws.len()).rev().find_map(|k| {
            let (held, mass) = self.held(thread.0, &ws[..k]);
            (k > 0 && self.same(c, held, mass)).then(|| ws[..k].to_vec())
        })
    }

    /// Takes the adds of words `ws` of `block` out of them.
    fn take(&mut self, block: u64, ws: &[u64]) -> Adds32 {
        ws.iter()
            .flat_map(|w| self.words.remove(&(block, *w)).unwrap_or_default())
            .collect()
    }

    /// A shared store: a move when it stores the sum of what its thread read (the read
    /// words' adds now lie in the stored word), else the word's adds are gone: `f32` adds
    /// that cancelled out are returned (they needed no commit), any other is a break of
    /// the chain, said in `broken`.
    fn store(&mut self, ev: &FlowEvent, broken: &mut Option<String>) -> Adds32 {
        if self.sums
            && !is_zero(ev.value, self.float)
            && let Some(cancelled) = self.store_sum(ev, broken)
        {
            return cancelled;
        }
        let thread = (ev.block, ev.thread);
        let target = ev.addr / 4;
        let moved = (!self.sums && ev.size == 4 && !is_zero(ev.value, self.float))
            .then(|| self.matching(thread, value(ev.value, self.float)))
            .flatten();
        let mut cancelled = Vec::new();
        if let Some(ws) = moved {
            let adds = self.take(ev.block, &ws);
            self.reads.remove(&thread);
            self.overwrite(ev, target, broken, &mut cancelled);
            self.words.insert((ev.block, target), adds);
            return cancelled;
        }
        for w in words_of(ev) {
            self.overwrite(ev, w, broken, &mut cancelled);
        }
        cancelled
    }

    /// Word `w` of `ev`'s block is stored to: what it held is gone.
    fn overwrite(
        &mut self,
        ev: &FlowEvent,
        w: u64,
        broken: &mut Option<String>,
        cancelled: &mut Adds32,
    ) {
        *self.epochs.entry((ev.block, w)).or_default() += 1;
        let Some(adds) = self.words.remove(&(ev.block, w)) else {
            return;
        };
        if self.float && sums_to_zero(&adds) {
            cancelled.extend(adds);
        } else if broken.is_none() {
            *broken = Some(format!(
                "thread {} of block {} stored over a shared counter (word {w}) that holds what {} \
                 element(s) added, before any commit took it (line {}): a block commits exactly what \
                 its shared atomics counted",
                ev.thread,
                ev.block,
                adds.len(),
                ev.line
            ));
        }
    }

    /// Follows the commit `ev` (a global atomic adding to output bin `bin`) back to the
    /// shared counters its thread read, or its warp's lanes read (a reduction): their adds
    /// reach `bin`. `Err` when neither holds what the commit adds.
    fn commit(
        &mut self,
        ev: &FlowEvent,
        bin: u32,
        reached: &mut BTreeMap<UnitKey, Vec<(u32, u64)>>,
    ) -> Result<(), String> {
        let c = value(ev.value, self.float);
        let thread = (ev.block, ev.thread);
        let taken = match self.matching(thread, c) {
            Some(ws) => {
                self.reads.remove(&thread);
                if self.sums {
                    self.commits.push(Move {
                        block: ev.block,
                        thread: ev.thread,
                        target: 0,
                        sources: ws.clone(),
                        line: ev.line,
                    });
                }
                Some(ws)
            }
            None => {
                // A reduction: the warp's lanes read the counters, one lane commits the sum.
                let warp = ev.thread / 32;
                let lanes: Vec<Thread> = self
                    .reads
                    .range((ev.block, warp * 32)..(ev.block, warp * 32 + 32))
                    .map(|(t, _)| *t)
                    .collect();
                let mut all: Vec<u64> = Vec::new();
                for t in &lanes {
                    for w in self.fresh(*t) {
                        if !all.contains(&w) {
                            all.push(w);
                        }
                    }
                }
                let (held, mass) = self.held(ev.block, &all);
                if !all.is_empty() && self.same(c, held, mass) {
                    for t in &lanes {
                        self.reads.remove(t);
                    }
                    Some(all)
                } else {
                    None
                }
            }
        };
        let Some(taken) = taken else {
            let (held, _) = self.held(ev.block, &self.fresh(thread));
            self.reads.remove(&thread);
            let shown = |v: f64| {
                if self.float {
                    format!("{v}")
                } else {
                    format!("{}", v as u64)
                }
            };
            return Err(format!(
                "thread {} of block {} added {} to bin {bin} of the output (line {}), but the shared counters \
                 it read since its last commit hold {}: a block commits exactly what its shared atomics \
                 counted, read back from its shared counters",
                ev.thread,
                ev.block,
                shown(c),
                ev.line,
                shown(held)
            ));
        };
        for (unit, v) in self.take(ev.block, &taken) {
            reached.entry(unit).or_default().push((bin, v));
        }
        Ok(())
    }
}

/// Why unit `u`'s adds (`got`) are not what the elements it loaded contribute (`want`),
/// if they are not.
#[allow(clippy::too_many_arguments)]
fn mismatch(
    decl: &Follow,
    e: &Elements,
    u: UnitKey,
    loaded_n: u64,
    want: Vec<(u32, u64)>,
    got: Vec<(u32, u64)>,
    no_bin: &[u64],
    float: bool,
) -> Option<String> {
    let noun = decl.unit.noun();
    let (block, key) = u;
    let place = match decl.into {
        Place::Global => "global atomics on the output",
        Place::Shared => "shared atomics",
        Place::Registers => "commits to the output",
    };
    let of_slices = if decl.scope == Scope::Slices {
        " of its block's slices"
    } else {
        ""
    };
    let elem = e.noun;
    if float {
        let norm = |mut v: Vec<(u32, u64)>| {
            v.retain(|&(_, x)| !is_zero(x, true));
            v.sort_unstable();
            v
        };
        let (want, got) = (norm(want), norm(got));
        let got_n = got.len() + no_bin.len();
        // Each add of a weight to its bin matches the element it came from; what went into
        // counters that cancelled out reached no bin: it matches any element of its weight.
        let mut rest = want;
        let mut extra = Vec::new();
        for g in &got {
            match rest.iter().position(|x| x == g) {
                Some(k) => {
                    rest.remove(k);
                }
                None => extra.push(*g),
            }
        }
        for w in no_bin {
            if let Some(k) = rest.iter().position(|&(_, x)| x == *w) {
                rest.remove(k);
            }
        }
        if rest.is_empty() && extra.is_empty() {
            return None;
        }
        let want = rest;
        let detail = match (want.first(), extra.first()) {
            (Some(&(bin, w)), _) => format!(
                " (none of them added the weight {} of {} of bin {bin})",
                f32::from_bits(w as u32),
                course::words::with_article(elem)
            ),
            (None, Some(&(bin, w))) => format!(
                " (one added {} to bin {bin}, the weight of no {elem} it loaded there)",
                f32::from_bits(w as u32)
            ),
            (None, None) => String::new(),
        };
        return Some(format!(
            "{noun} {key} of block {block} loaded {loaded_n} {elem}(s) with their weights{of_slices} and its \
             {place} added {got_n} weight(s){detail}: each {elem}'s weight must reach its bin through an \
             atomic_add issued by the {noun} that loaded it, with the loaded weight as its operand"
        ));
    }
    let sum = |v: &[(u32, u64)]| {
        let mut m: BTreeMap<u32, u64> = BTreeMap::new();
        for &(b, x) in v {
            *m.entry(b).or_default() = m.get(&b).copied().unwrap_or(0).wrapping_add(x);
        }
        m.retain(|_, x| *x != 0);
        m
    };
    let (want, got) = (sum(&want), sum(&got));
    if want == got {
        return None;
    }
    let (nw, ng): (u64, u64) = (want.values().sum(), got.values().sum());
    let detail = if nw == ng {
        let bin = want
            .iter()
            .find(|(b, c)| got.get(b) != Some(c))
            .or_else(|| got.iter().find(|(b, c)| want.get(b) != Some(c)))
            .map(|(b, _)| *b)
            .unwrap_or_default();
        format!(
            ", but not in the bins of those {elem}s (bin {bin}: {} loaded, {} counted)",
            want.get(&bin).copied().unwrap_or(0),
            got.get(&bin).copied().unwrap_or(0)
        )
    } else {
        String::new()
    };
    let rule = match decl.into {
        Place::Registers => format!(
            "each {elem} must reach its bin through the {noun} that loaded it: its threads count their own \
             {elem}s in registers, and the {noun}'s commits (an atomic_add issued by the {noun} that loaded \
             it) add exactly those counts"
        ),
        _ => format!(
            "each {elem} must reach its bin through an atomic_add issued by the {noun} that loaded it"
        ),
    };
    Some(format!(
        "{noun} {key} of block {block} loaded {nw} input {elem}(s){of_slices} and its {place} counted \
         {ng}{detail}: {rule}"
    ))
}

/// The words of a message that says a reduction's stores broke the step's tree: a chapter
/// names that failure's kind by them.
pub const TREE_BROKEN: &str = "does not follow the step's tree";

/// A reduction's unit `u`: do its adds (`got`) sum what the elements it loaded hold
/// (`want`)? With [`Place::Global`], each element by an atomic of its own value.
fn sum_mismatch(
    decl: &Follow,
    e: &Elements,
    u: UnitKey,
    loaded_n: u64,
    want: &[(u32, u64)],
    got: &[(u32, u64)],
    float: bool,
) -> Option<String> {
    let noun = decl.unit.noun();
    let (block, key) = u;
    let elem = e.noun;
    let shown = |v: f64| {
        if float {
            format!("{v}")
        } else {
            format!("{}", v as u64 as u32)
        }
    };
    if decl.into == Place::Global {
        let mut rest: Vec<u64> = want.iter().map(|&(_, v)| v).collect();
        let mut extra = Vec::new();
        for &(_, g) in got {
            match rest.iter().position(|&x| x == g) {
                Some(k) => {
                    rest.remove(k);
                }
                None => extra.push(g),
            }
        }
        if rest.is_empty() && extra.is_empty() {
            return None;
        }
        let detail = match (rest.first(), extra.first()) {
            (_, Some(&x)) => format!(
                "one atomic added {}, the value of no {elem} it loaded",
                shown(value(x, float))
            ),
            (Some(&x), None) => format!(
                "no atomic of it added the {elem} {} it loaded",
                shown(value(x, float))
            ),
            (None, None) => String::new(),
        };
        return Some(format!(
            "{noun} {key} of block {block} loaded {loaded_n} {elem}(s) and issued {} nonzero global atomic(s): \
             {detail}; each {elem} must reach the sum through an atomic_add of its own, issued by the \
             {noun} that loaded it, with the {elem} as loaded",
            got.len()
        ));
    }
    let total = |v: &[(u32, u64)]| {
        v.iter().fold((0f64, 0f64, 0u32), |(t, m, w), &(_, x)| {
            let f = value(x, float);
            (t + f, m + f.abs(), w.wrapping_add(x as u32))
        })
    };
    let (w_sum, w_mass, w_wrap) = total(want);
    let (g_sum, _, g_wrap) = total(got);
    let holds = if float {
        same(g_sum, w_sum, w_mass, true)
    } else {
        w_wrap == g_wrap
    };
    if holds {
        return None;
    }
    let (w, g) = if float {
        (shown(w_sum), shown(g_sum))
    } else {
        (w_wrap.to_string(), g_wrap.to_string())
    };
    let place = match decl.into {
        Place::Shared => "the sums its block's tree committed for it",
        _ => "its commits to the output",
    };
    Some(format!(
        "{noun} {key} of block {block} loaded {loaded_n} {elem}(s) whose sum is {w}, and {place} added {g}: \
         each {elem} must reach the sum exactly once, through the {noun} that loaded it"
    ))
}

/// A reduction's rounds in shared memory against `tree`: each thread stores the sum of
/// its elements at its own word (counted from the block's lowest stored word), and each
/// move of round `stride` is the tree's (thread `t` adding word `target + stride` into
/// `target = tree.target(t, stride)`).
fn tree_rounds(tree: Tree, moves: &[Move], placed: &[Move]) -> Result<(), String> {
    let mut base: BTreeMap<u64, u64> = BTreeMap::new();
    for m in moves.iter().chain(placed) {
        let b = base.entry(m.block).or_insert(m.target);
        *b = (*b).min(m.target);
    }
    for p in placed {
        let at = p.target - base[&p.block];
        if at != p.thread as u64 {
            return Err(format!(
                "thread {} of block {} stored the sum of its elements at word {at} of the block's array (line {}), \
                 not at its own index {}: the reduction {TREE_BROKEN} ({})",
                p.thread,
                p.block,
                p.line,
                p.thread,
                tree.rule()
            ));
        }
    }
    for m in moves {
        let b = base[&m.block];
        let target = m.target - b;
        let others: Vec<u64> = m
            .sources
            .iter()
            .filter(|&&w| w != m.target)
            .map(|&w| w.wrapping_sub(b))
            .collect();
        let stride = match others[..] {
            [o] if o > target => Some(o - target),
            _ => None,
        };
        // A move of the target alone (its partner held 0, which a read does not carry).
        if others.is_empty() && m.sources == [m.target] {
            continue;
        }
        let fits = stride.is_some_and(|s| {
            s.is_power_of_two() && tree.target(m.thread as u64, s) == Some(target)
        });
        if !fits {
            let read: Vec<String> = m
                .sources
                .iter()
                .map(|w| w.wrapping_sub(b).to_string())
                .collect();
            return Err(format!(
                "thread {} of block {} stored into word {target} the sum of words {} (line {}): \
                 the reduction {TREE_BROKEN} ({})",
                m.thread,
                m.block,
                read.join(" and "),
                m.line,
                tree.rule()
            ));
        }
    }
    Ok(())
}

/// The words a thread's commit of a step's tree may read and add: the root, or the two of
/// the last round (a commit that does the last round itself).
const ROOT_WORDS: usize = 2;

/// A reduction's commits after `tree`: a thread that commits alone adds the tree's root
/// (at most [`ROOT_WORDS`] words), not the block's words one after another (no tree at
/// all, which the rounds, having no moves to check, would let pass).
fn tree_root(tree: Tree, commits: &[Move]) -> Result<(), String> {
    match commits.iter().find(|c| c.sources.len() > ROOT_WORDS) {
        Some(c) => Err(format!(
            "thread {} of block {} added {} words of the block's array in its commit (line {}), where a tree \
             leaves the block's sum in one word: the reduction {TREE_BROKEN} ({})",
            c.thread,
            c.block,
            c.sources.len(),
            c.line,
            tree.rule()
        )),
        None => Ok(()),
    }
}

/// No thread loads far more than its block's threads do on average ([`SHARE_SLACK`]).
fn share(e: &Elements, per_thread: &BTreeMap<Thread, u64>) -> Result<(), String> {
    let mut per_block: BTreeMap<u64, u64> = BTreeMap::new();
    for (&(block, _), &n) in per_thread {
        *per_block.entry(block).or_default() += n;
    }
    let threads = e.block_threads.max(1) as u64;
    for (&(block, thread), &n) in per_thread {
        let all = per_block[&block];
        let mean = all.div_ceil(threads);
        if n > 2 * mean + SHARE_SLACK {
            return Err(format!(
                "thread {thread} of block {block} loaded {n} input {}s, while the {threads} threads of its block \
                 loaded {all} in all (about {mean} each): each thread counts its own share of the input, not its \
                 block's or its warp's",
                e.noun
            ));
        }
    }
    Ok(())
}

/// With [`Place::Registers`], a thread counts its own elements in its registers and only
/// its counts cross lanes, in its warp's reduction after the counting: no thread may
/// shuffle a value to other lanes before it has loaded all of its elements (lane 0
/// gathering its warp's values through shuffles and counting them alone fails here).
fn counts_cross_lanes_last(flow: &Flow, e: &Elements) -> Result<(), String> {
    let in_input = |ev: &FlowEvent| {
        e.parts.iter().any(|p| {
            ev.addr >= p.addr && ev.addr < p.addr.saturating_add(e.n as u64 * p.size as u64)
        })
    };
    // Per thread: its first shuffle, and its last load of the input.
    // The first thread, in block and thread order, that loaded after it shuffled.
    let mut first_shuffle: BTreeMap<Thread, &FlowEvent> = BTreeMap::new();
    let mut offenders: BTreeMap<Thread, (&FlowEvent, &FlowEvent)> = BTreeMap::new();
    for ev in &flow.events {
        let t = (ev.block, ev.thread);
        match (ev.kind, ev.space) {
            (FlowKind::Warp(Collective::Shuffle(_)), _) => {
                first_shuffle.entry(t).or_insert(ev);
            }
            (FlowKind::Load, Space::Global) if in_input(ev) => {
                if let Some(&sh) = first_shuffle.get(&t) {
                    offenders.entry(t).or_insert((sh, ev));
                }
            }
            _ => {}
        }
    }
    match offenders.into_values().next() {
        None => Ok(()),
        Some((sh, load)) => Err(format!(
            "thread {} of block {} passed a value to other lanes (the {} at line {}) before it had loaded \
             all of its {}s (it loads again at line {}): each thread counts its own {}s in its registers, and \
             only its counts cross lanes, in its warp's reduction once the counting is done",
            sh.thread,
            sh.block,
            match sh.kind {
                FlowKind::Warp(c) => c.cuda_name(),
                _ => "shuffle",
            },
            sh.line,
            e.noun,
            load.line,
            e.noun
        )),
    }
}

/// 9.9's rounds: each thread's loads of the input and counting atomics in order, checked
/// against [`Follow::vector_bytes`], [`Follow::in_flight`] and [`Follow::lane_banks`].
fn rounds(decl: &Follow, flow: &Flow, e: &Elements, out: &mut Followed) -> Result<(), String> {
    let Some(input) = e.parts.first() else {
        return Ok(());
    };
    let bytes = e.n as u64 * input.size as u64;
    let end = input.addr + bytes;
    let vector = decl.vector_bytes as u64;
    let whole = bytes.checked_div(vector).unwrap_or(0) * vector;
    // Per thread: its vector loads and counts in order (true: a load).
    let mut steps: BTreeMap<Thread, Vec<(bool, &FlowEvent)>> = BTreeMap::new();
    for ev in &flow.events {
        match (ev.kind, ev.space) {
            (FlowKind::Load, Space::Global) if ev.addr >= input.addr && ev.addr < end => {
                let at = ev.addr - input.addr;
                if vector > 0 && at + ev.size as u64 <= whole {
                    if ev.size as u64 != vector {
                        return Err(format!(
                            "thread {} of block {} read input bytes {at} to {} with {} load (line {}): every \
                             whole {vector}-byte vector of the input is read with one {vector}-byte load, in every \
                             round; only the {} bytes past the last whole vector are read one at a time",
                            ev.thread,
                            ev.block,
                            at + ev.size as u64 - 1,
                            course::words::with_article(&format!("{}-byte", ev.size)),
                            ev.line,
                            bytes - whole
                        ));
                    }
                    out.vector_loads += 1;
                    steps
                        .entry((ev.block, ev.thread))
                        .or_default()
                        .push((true, ev));
                }
            }
            (FlowKind::Atomic(AtomicOp::Add, _), Space::Shared) => {
                steps
                    .entry((ev.block, ev.thread))
                    .or_default()
                    .push((false, ev));
            }
            _ => {}
        }
    }
    // Lane columns: each lane's bank, and which lane of each warp holds each bank.
    let mut bank_of: BTreeMap<Thread, u64> = BTreeMap::new();
    let mut owner: BTreeMap<(u64, u32, u64), u32> = BTreeMap::new();
    for (&(block, thread), seq) in &steps {
        let vectors = seq.iter().filter(|(load, _)| *load).count() as u64;
        let (mut done, mut burst, mut round) = (0u64, 0u64, 1u64);
        let close = |burst: u64, done: u64, round: u64, out: &mut Followed| -> Result<(), String> {
            if burst == 0 || decl.in_flight == 0 {
                return Ok(());
            }
            let depth = decl.in_flight as u64;
            let left = vectors - done;
            if left >= depth && burst < depth {
                return Err(format!(
                    "thread {thread} of block {block} loaded {vectors} {vector}-byte vectors, but in its round \
                     {round} only {burst} before counting, with {left} still to load: in every round with \
                     {depth} or more vectors left, load {depth} before counting any (so that {depth} loads are \
                     in flight while the lane waits for the first)"
                ));
            }
            if left >= depth {
                out.full_rounds += 1;
            } else {
                out.short_rounds += 1;
            }
            Ok(())
        };
        for &(load, ev) in seq {
            if load {
                burst += 1;
                continue;
            }
            if burst > 0 {
                close(burst, done, round, out)?;
                done += burst;
                burst = 0;
                round += 1;
            }
            if decl.lane_banks {
                let bank = (ev.addr / 4) % 32;
                let mine = *bank_of.entry((block, thread)).or_insert(bank);
                if bank != mine {
                    return Err(format!(
                        "thread {thread} of block {block} (lane {}) counted into bank {mine}, then into bank {bank} \
                         (shared word {}, line {}, round {round}): in every round each lane counts into its own \
                         column of counters, all in one bank, so that no shared atomic instruction has a bank \
                         conflict whatever the bytes",
                        thread % 32,
                        ev.addr / 4,
                        ev.line
                    ));
                }
                let other = *owner.entry((block, thread / 32, bank)).or_insert(thread);
                if other != thread {
                    return Err(format!(
                        "threads {other} and {thread} of block {block}, lanes of one warp, both count into bank \
                         {bank} (line {}): each lane counts into a column of its own bank, so that the 32 \
                         lanes of a shared atomic instruction never share a bank",
                        ev.line
                    ));
                }
                out.banked_atomics += 1;
            }
        }
        close(burst, done, round, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const INPUT: u64 = 0x1000_0000;
    const OUTPUT: u64 = 0x2000_0000;

    fn ev(
        block: u64,
        thread: u32,
        kind: FlowKind,
        space: Space,
        addr: u64,
        size: u8,
        value: u64,
    ) -> FlowEvent {
        let base = match (space, addr >= OUTPUT) {
            (Space::Global, true) => OUTPUT,
            (Space::Global, false) => INPUT,
            _ => 0,
        };
        FlowEvent {
            block,
            thread,
            kind,
            space,
            base,
            addr,
            size,
            value,
            line: 7,
        }
    }
    fn load(t: u32, i: u64) -> FlowEvent {
        ev(0, t, FlowKind::Load, Space::Global, INPUT + i, 1, 0)
    }
    const ADD: FlowKind = FlowKind::Atomic(AtomicOp::Add, AtomicType::U32);
    fn shared_add(t: u32, word: u64, v: u64) -> FlowEvent {
        ev(0, t, ADD, Space::Shared, 4 * word, 4, v)
    }
    /// A read of a counter that holds something (a read of 0 carries nothing).
    fn shared_read(t: u32, word: u64) -> FlowEvent {
        ev(0, t, FlowKind::Load, Space::Shared, 4 * word, 4, 1)
    }
    fn commit(t: u32, bin: u64, v: u64) -> FlowEvent {
        ev(0, t, ADD, Space::Global, OUTPUT + 4 * bin, 4, v)
    }
    fn decl(unit: Unit, into: Place) -> Follow {
        Follow {
            kernel: "k",
            unit,
            into,
            scope: Scope::All,
            vector_bytes: 0,
            in_flight: 0,
            lane_banks: false,
            tree: crate::declared::Tree::Any,
        }
    }
    fn run(d: &Follow, data: &[u8], events: Vec<FlowEvent>) -> Result<Followed, String> {
        run_in(d, data, events, 64)
    }
    fn run_in(
        d: &Follow,
        data: &[u8],
        events: Vec<FlowEvent>,
        block_threads: u32,
    ) -> Result<Followed, String> {
        let bin = |i: usize| Some(data[i] as u32);
        let e = Elements {
            parts: vec![Part {
                addr: INPUT,
                size: 1,
            }],
            n: data.len(),
            bin: &bin,
            adds: Adds::One,
            output: OUTPUT,
            noun: "byte",
            block_threads,
            slice_width: 0,
        };
        follow(
            d,
            &Flow {
                events,
                truncated: false,
            },
            &e,
        )
    }

    #[test]
    fn counts_committed_through_any_layout_of_shared_counters_hold() {
        // Two threads, bytes 3 and 5; counters at word 2 * bin + lane (a column per lane),
        // committed by thread 0 reading both of a bin's words.
        let data = [3u8, 5];
        let events = vec![
            load(0, 0),
            load(1, 1),
            shared_add(0, 6, 1),
            shared_add(1, 11, 1),
            shared_read(0, 6),
            shared_read(0, 7),
            commit(0, 3, 1),
            shared_read(0, 10),
            shared_read(0, 11),
            commit(0, 5, 1),
        ];
        let d = decl(Unit::Thread, Place::Shared);
        let f = run(&d, &data, events).expect("holds");
        assert_eq!((f.elements, f.commits), (2, 2));
    }

    #[test]
    fn a_count_that_reaches_another_bin_or_another_thread_breaks_the_chain() {
        let data = [3u8, 5];
        // Thread 1 counts thread 0's byte and its own; thread 0 counts nothing.
        let events = vec![
            load(0, 0),
            load(1, 1),
            shared_add(1, 3, 1),
            shared_add(1, 5, 1),
            shared_read(0, 3),
            commit(0, 3, 1),
            shared_read(0, 5),
            commit(0, 5, 1),
        ];
        let why = run(&decl(Unit::Thread, Place::Shared), &data, events).unwrap_err();
        assert!(
            why.starts_with("thread 0 of block 0 loaded 1 input byte(s)"),
            "{why}"
        );
        assert!(why.contains("issued by the thread that loaded it"), "{why}");
        // With the warp as the unit (warp aggregation), the same adds hold.
        let events = vec![
            load(0, 0),
            load(1, 1),
            shared_add(1, 3, 1),
            shared_add(1, 5, 1),
            shared_read(0, 3),
            commit(0, 3, 1),
            shared_read(0, 5),
            commit(0, 5, 1),
        ];
        assert!(run(&decl(Unit::Warp, Place::Shared), &data, events).is_ok());
    }

    #[test]
    fn a_reduction_in_shared_memory_moves_the_counts_and_a_zero_weighed_read_is_left() {
        // Counters of byte values 3 and 4 (words 3 and 4); thread 0 moves the sum of words
        // 3 and 4 into word 3 (bin 0 holds values 3 and 4), then commits word 3 after reading
        // word 9 too (a read past its bin's last value, weighed by zero).
        // Thread 3's byte (value 9, bin 1) is committed by thread 3 from word 9.
        let bin = |i: usize| Some((i == 3) as u32);
        let e = Elements {
            parts: vec![Part {
                addr: INPUT,
                size: 1,
            }],
            n: 4,
            bin: &bin,
            adds: Adds::One,
            output: OUTPUT,
            noun: "byte",
            block_threads: 64,
            slice_width: 0,
        };
        let events = vec![
            load(0, 0),
            load(1, 1),
            load(2, 2),
            load(3, 3),
            shared_add(0, 3, 1),
            shared_add(1, 4, 1),
            shared_add(2, 4, 1),
            shared_add(3, 9, 1),
            shared_read(0, 3),
            shared_read(0, 4),
            ev(0, 0, FlowKind::Store, Space::Shared, 12, 4, 3),
            shared_read(1, 3),
            shared_read(1, 9),
            commit(1, 0, 3),
            shared_read(3, 9),
            commit(3, 1, 1),
        ];
        let d = decl(Unit::Thread, Place::Shared);
        let flow = Flow {
            events,
            truncated: false,
        };
        assert!(follow(&d, &flow, &e).is_ok(), "{:?}", follow(&d, &flow, &e));
    }

    #[test]
    fn a_commit_of_what_no_counter_held_breaks_the_chain() {
        let data = [3u8];
        let events = vec![
            load(0, 0),
            shared_add(0, 3, 1),
            shared_read(0, 3),
            commit(0, 3, 1),
            commit(0, 3, 1),
        ];
        let why = run(&decl(Unit::Thread, Place::Shared), &data, events).unwrap_err();
        assert!(why.contains("hold 0"), "{why}");
    }

    #[test]
    fn a_warp_reduction_of_the_counters_commits_them() {
        // Lanes 0 and 1 read one word each; lane 0 commits the sum.
        let data = [3u8, 3];
        let events = vec![
            load(0, 0),
            load(1, 1),
            shared_add(0, 0, 1),
            shared_add(1, 1, 1),
            shared_read(0, 0),
            shared_read(1, 1),
            commit(0, 3, 2),
        ];
        assert!(run(&decl(Unit::Thread, Place::Shared), &data, events).is_ok());
    }

    #[test]
    fn weights_that_cancel_need_no_commit_and_a_stale_read_commits_nothing() {
        // Thread 0 adds 0.5 (bin 3) and thread 1 adds -0.5 (bin 3) to word 3: the sum is 0,
        // no commit; thread 0 adds 1.5 (bin 4) to word 4 and commits it.
        let weights = [0.5f32, -0.5, 1.5];
        let data = [3u8, 3, 4];
        let f32_add = FlowKind::Atomic(AtomicOp::Add, AtomicType::F32);
        let wload = |t: u32, i: u64| {
            ev(
                0,
                t,
                FlowKind::Load,
                Space::Global,
                INPUT + 64 + 4 * i,
                4,
                0,
            )
        };
        let add =
            |t: u32, w: u64, x: f32| ev(0, t, f32_add, Space::Shared, 4 * w, 4, x.to_bits() as u64);
        let events = vec![
            load(0, 0),
            wload(0, 0),
            load(1, 1),
            wload(1, 1),
            load(0, 2),
            wload(0, 2),
            add(0, 3, 0.5),
            add(1, 3, -0.5),
            add(0, 4, 1.5),
            ev(0, 0, FlowKind::Load, Space::Shared, 12, 4, 0),
            ev(
                0,
                0,
                FlowKind::Load,
                Space::Shared,
                16,
                4,
                1.5f32.to_bits() as u64,
            ),
            ev(
                0,
                0,
                f32_add,
                Space::Global,
                OUTPUT + 16,
                4,
                1.5f32.to_bits() as u64,
            ),
        ];
        let bin = |i: usize| Some(data[i] as u32);
        let e = Elements {
            parts: vec![
                Part {
                    addr: INPUT,
                    size: 1,
                },
                Part {
                    addr: INPUT + 64,
                    size: 4,
                },
            ],
            n: 3,
            bin: &bin,
            adds: Adds::Weights(&weights),
            output: OUTPUT,
            noun: "byte",
            block_threads: 64,
            slice_width: 0,
        };
        let d = decl(Unit::Thread, Place::Shared);
        let flow = |events| Flow {
            events,
            truncated: false,
        };
        assert!(follow(&d, &flow(events.clone()), &e).is_ok());
        // A weight added as another value breaks the chain.
        let mut wrong = events.clone();
        wrong[8] = add(0, 4, 1.25);
        wrong[10] = ev(
            0,
            0,
            FlowKind::Load,
            Space::Shared,
            16,
            4,
            1.25f32.to_bits() as u64,
        );
        wrong[11] = ev(
            0,
            0,
            f32_add,
            Space::Global,
            OUTPUT + 16,
            4,
            1.25f32.to_bits() as u64,
        );
        let why = follow(&d, &flow(wrong), &e).unwrap_err();
        assert!(
            why.contains("with the loaded weight as its operand"),
            "{why}"
        );
        // A counter read, then stored over and counted again: the old read commits
        // nothing, so the count that came after it reaches no bin.
        let data = [3u8, 3];
        let events = vec![
            load(0, 0),
            load(1, 1),
            shared_add(1, 3, 1),
            shared_read(0, 3),
            ev(0, 1, FlowKind::Store, Space::Shared, 12, 4, 0),
            shared_add(0, 3, 1),
            commit(0, 3, 1),
        ];
        let why = run(&decl(Unit::Thread, Place::Shared), &data, events).unwrap_err();
        assert!(
            why.starts_with(
                "thread 0 of block 0 loaded 1 input byte(s) and its shared atomics counted 0"
            ),
            "{why}"
        );
    }

    /// A reduction's input: `values`, 4-byte words at `INPUT`, summed into output word 0.
    fn sum_of<'a>(values: &'a [u32], bin: &'a dyn Fn(usize) -> Option<u32>) -> Elements<'a> {
        Elements {
            parts: vec![Part {
                addr: INPUT,
                size: 4,
            }],
            n: values.len(),
            bin,
            adds: Adds::Values(values),
            output: OUTPUT,
            noun: "element",
            block_threads: 4,
            slice_width: 0,
        }
    }
    fn word_load(t: u32, i: u64, v: u64) -> FlowEvent {
        ev(0, t, FlowKind::Load, Space::Global, INPUT + 4 * i, 4, v)
    }
    fn shared_load(t: u32, word: u64, v: u64) -> FlowEvent {
        ev(0, t, FlowKind::Load, Space::Shared, 4 * word, 4, v)
    }
    fn shared_store(t: u32, word: u64, v: u64) -> FlowEvent {
        ev(0, t, FlowKind::Store, Space::Shared, 4 * word, 4, v)
    }

    #[test]
    fn a_tree_in_shared_memory_is_followed_round_by_round() {
        // Four threads, elements 3, 5, 7, 11: each stores its own at word t; round 2:
        // threads 0 and 1 add words 2 and 3 into 0 and 1; round 1: thread 0 adds word 1
        // into 0 and commits 26.
        let values = [3u32, 5, 7, 11];
        let bin = |_: usize| Some(0);
        let e = sum_of(&values, &bin);
        let mut events: Vec<FlowEvent> = (0..4u32)
            .map(|t| word_load(t, t as u64, values[t as usize] as u64))
            .collect();
        for t in 0..4u32 {
            events.push(shared_store(t, t as u64, values[t as usize] as u64));
        }
        events.extend([
            shared_load(0, 0, 3),
            shared_load(0, 2, 7),
            shared_store(0, 0, 10),
            shared_load(1, 1, 5),
            shared_load(1, 3, 11),
            shared_store(1, 1, 16),
            shared_load(0, 1, 16),
            shared_store(0, 0, 26),
            shared_load(0, 0, 26),
            commit(0, 0, 26),
        ]);
        let flow = Flow {
            events,
            truncated: false,
        };
        let tree = |tree| Follow {
            tree,
            ..decl(Unit::Thread, Place::Shared)
        };
        let f = follow(&tree(Tree::Sequential), &flow, &e).expect("the sequential tree");
        assert_eq!((f.elements, f.commits), (4, 1));
        let why = follow(&tree(Tree::Interleaved), &flow, &e).unwrap_err();
        assert!(why.contains(TREE_BROKEN), "{why}");
        assert!(
            why.starts_with("thread 1 of block 0 stored into word 1 the sum of words 1 and 3"),
            "{why}"
        );
        // A commit of one element short: thread 0 adds 19 (words 0 and 3 lost track).
        let mut short = flow.events.clone();
        let last = short.len() - 1;
        short[last] = commit(0, 0, 19);
        let short = Flow {
            events: short,
            truncated: false,
        };
        assert!(follow(&tree(Tree::Sequential), &short, &e).is_err());
    }

    #[test]
    fn a_commit_adds_the_trees_root_not_the_blocks_words() {
        // Four threads store their elements; no round; thread 0 reads the four words and
        // commits their sum: every element reaches the sum, but through no tree.
        let values = [3u32, 5, 7, 11];
        let bin = |_: usize| Some(0);
        let e = sum_of(&values, &bin);
        let mut events: Vec<FlowEvent> = (0..4u32)
            .map(|t| word_load(t, t as u64, values[t as usize] as u64))
            .collect();
        for t in 0..4u32 {
            events.push(shared_store(t, t as u64, values[t as usize] as u64));
        }
        for w in 0..4u32 {
            events.push(shared_load(0, w as u64, values[w as usize] as u64));
        }
        events.push(commit(0, 0, 26));
        let serial = Flow {
            events: events.clone(),
            truncated: false,
        };
        let tree = Follow {
            tree: Tree::Sequential,
            ..decl(Unit::Thread, Place::Shared)
        };
        let why = follow(&tree, &serial, &e).unwrap_err();
        assert!(why.contains(TREE_BROKEN), "{why}");
        assert!(why.contains("added 4 words"), "{why}");
        // Any tree (a histogram's commits) may add what it likes.
        let any = Follow {
            tree: Tree::Any,
            ..tree
        };
        assert!(follow(&any, &serial, &e).is_ok());
        // One round (words 2 and 3 into 0 and 1), then a commit doing the last round
        // itself: words 0 and 1, the root's two halves.
        let mut last_in_commit: Vec<FlowEvent> = events[..8].to_vec();
        last_in_commit.extend([
            shared_load(0, 0, 3),
            shared_load(0, 2, 7),
            shared_store(0, 0, 10),
            shared_load(1, 1, 5),
            shared_load(1, 3, 11),
            shared_store(1, 1, 16),
            shared_load(0, 0, 10),
            shared_load(0, 1, 16),
            commit(0, 0, 26),
        ]);
        let last_in_commit = Flow {
            events: last_in_commit,
            truncated: false,
        };
        assert!(follow(&tree, &last_in_commit, &e).is_ok());
    }

    #[test]
    fn a_reduction_s_atomics_add_each_element_or_its_unit_s_sum() {
        let values = [3u32, 5];
        let bin = |_: usize| Some(0);
        let e = sum_of(&values, &bin);
        let flow = |events| Flow {
            events,
            truncated: false,
        };
        // One thread loads both and adds them in one atomic: not an atomic per element.
        let events = vec![word_load(0, 0, 3), word_load(0, 1, 5), commit(0, 0, 8)];
        let why = follow(
            &decl(Unit::Thread, Place::Global),
            &flow(events.clone()),
            &e,
        )
        .unwrap_err();
        assert!(why.contains("the value of no element it loaded"), "{why}");
        // With an atomic of each, and one of 0 (no add at all), it holds.
        let each = vec![
            word_load(0, 0, 3),
            word_load(0, 1, 5),
            commit(0, 0, 3),
            commit(0, 0, 0),
            commit(0, 0, 5),
        ];
        assert!(follow(&decl(Unit::Thread, Place::Global), &flow(each), &e).is_ok());
        // As a block's registers, the one atomic of the sum holds; a sum that wrapped
        // holds modulo 2^32; one that lost an element does not.
        assert!(follow(&decl(Unit::Block, Place::Registers), &flow(events), &e).is_ok());
        let big = [u32::MAX, 2];
        let e = sum_of(&big, &bin);
        let events = vec![
            word_load(0, 0, u32::MAX as u64),
            word_load(1, 1, 2),
            commit(0, 0, 1),
        ];
        assert!(follow(&decl(Unit::Block, Place::Registers), &flow(events), &e).is_ok());
        let events = vec![
            word_load(0, 0, u32::MAX as u64),
            word_load(1, 1, 2),
            commit(0, 0, 2),
        ];
        let why = follow(&decl(Unit::Block, Place::Registers), &flow(events), &e).unwrap_err();
        assert!(why.contains("whose sum is 1"), "{why}");
    }

    #[test]
    fn one_thread_loading_its_block_s_share_is_named() {
        let data = vec![1u8; 200];
        let mut events: Vec<FlowEvent> = (0..200).map(|i| load(0, i)).collect();
        events.push(commit(0, 1, 200));
        let why = run(&decl(Unit::Warp, Place::Registers), &data, events).unwrap_err();
        assert!(
            why.starts_with("thread 0 of block 0 loaded 200 input bytes"),
            "{why}"
        );
        assert!(why.contains("its own share"), "{why}");
        // Spread over a warp's lanes, the warp's commit holds; spread over two warps, the
        // second warp's bytes are not what the first commits.
        let mut events: Vec<FlowEvent> = (0..200).map(|i| load(i as u32 % 64, i)).collect();
        events.push(commit(0, 1, 200));
        let why = run(&decl(Unit::Warp, Place::Registers), &data, events).unwrap_err();
        assert!(why.starts_with("warp 0 of block 0 loaded 104"), "{why}");
        let mut events: Vec<FlowEvent> = (0..200).map(|i| load(i as u32 % 32, i)).collect();
        events.push(commit(0, 1, 200));
        assert!(run(&decl(Unit::Warp, Place::Registers), &data, events).is_ok());
    }

    #[test]
    fn rounds_need_their_loads_in_flight_until_fewer_are_left() {
        let vec_load =
            |t: u32, v: u64| ev(0, t, FlowKind::Load, Space::Global, INPUT + 16 * v, 16, 0);
        let data = vec![0u8; 16 * 10];
        let d = Follow {
            vector_bytes: 16,
            in_flight: 4,
            lane_banks: true,
            ..decl(Unit::Thread, Place::Shared)
        };
        let counts =
            |n: usize| -> Vec<FlowEvent> { (0..n).map(|_| shared_add(0, 0, 16)).collect() };
        // 4, 4, then the last 2 one at a time: holds.
        let mut events = Vec::new();
        for r in 0..2 {
            for v in 0..4 {
                events.push(vec_load(0, 4 * r + v));
            }
            events.extend(counts(4));
        }
        for v in 8..10 {
            events.push(vec_load(0, v));
            events.extend(counts(1));
        }
        events.push(shared_read(0, 0));
        events.push(commit(0, 0, 160));
        let f = run_in(&d, &data, events, 1).expect("holds");
        assert_eq!((f.full_rounds, f.short_rounds, f.vector_loads), (2, 2, 10));
        // 4 once, then one at a time with six left: the second round is named.
        let mut events = Vec::new();
        for v in 0..4 {
            events.push(vec_load(0, v));
        }
        events.extend(counts(4));
        for v in 4..10 {
            events.push(vec_load(0, v));
            events.extend(counts(1));
        }
        events.push(shared_read(0, 0));
        events.push(commit(0, 0, 160));
        let why = run_in(&d, &data, events, 1).unwrap_err();
        assert!(
            why.contains("in its round 2 only 1 before counting, with 6 still"),
            "{why}"
        );
    }
}
