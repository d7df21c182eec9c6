//! The step rule: which lanes of a warp execute together, when barriers release, and
//! what counts as stuck.
//!
//! A warp's lanes are *ready* (parked at an operation), *collective* (waiting at a warp
//! collective for the lanes its mask names), at a *barrier*, or *exited*. Each round,
//! every warp of the block takes at most one step:
//!
//! 1. a complete collective executes. At a collective site (earliest first), the lanes
//!    are grouped by the mask they passed; a group is complete when every lane of its
//!    mask that exists (a block's last warp may be partial) has arrived. All complete
//!    groups of the site execute as one warp instruction, each lane seeing only the lanes
//!    of its own mask: two half-warps with their own masks share one shuffle;
//! 2. otherwise the ready lanes at the earliest position execute together, where a
//!    lane's position is (loop iteration, call site in source order), the iteration
//!    counting how often the lane jumped back to an earlier or equal site. Preferring the
//!    lanes that are behind makes branches rejoin (the `if lane == leader { atomic }` of a
//!    loop body finishes before the other lanes start the next iteration), and lets a
//!    lane that spins on a flag wait for the lane of its warp that will set it (as since
//!    Volta's independent thread scheduling: a spin lock inside one warp makes progress).
//!
//! The model does not know where a loop ends: lanes that leave a loop early run the code
//! after it ahead of the lanes still looping (which are "ahead" by iterations), instead
//! of waiting for them as a GPU's reconvergence point would. The results are the same;
//! the counters show extra divergent steps, and lanes of a warp collective after the loop
//! wait for each other anyway.
//!
//! Errors of collectives (synccheck): a lane whose mask leaves itself out; lanes of one
//! mask that passed different masks at the same site; a mask naming lanes that exited.
//!
//! When no warp can step, either every thread of the block waits at one barrier (it
//! releases), or the block is reported: a barrier reached by part of the block (the
//! others exited: strict, as synccheck treats `__syncthreads` in divergent code) or at
//! several sites; a collective that cannot complete (naming where the missing lanes
//! wait). Threads that keep stepping without progress are watched too: when for
//! [`Config::spin_steps`] steps nothing changed memory, released a barrier or ended a
//! thread, and every step repeated an earlier one exactly, the block is deadlocked (a
//! spin-wait on a flag that a later block, or a thread held at a barrier, would set).

use crate::check::{Findings, GlobalWrites, WordState};
use crate::config::Config;
use crate::counters::{Counters, LineCounters};
use crate::flow::{Collective, Flow, FlowEvent, FlowKind};
use crate::hardware as hw;
use crate::lane::{LaneCtx, Parked, Req, set_current, take_last_panic};
use crate::loops::CodeLoop;
use crate::memory::{GlobalMemory, SharedMemory};
use crate::meter::Work;
use crate::op::{Op, Space, wire};
use crate::reconverge::{LoopEnds, LoopStack, behind};
use crate::report::{LaunchError, LaunchReport, ThreadRef, WaitSite, ranges};
use crate::site::{Site, SiteTable, fmt_site, site_order};
use crate::spec::{KernelBody, LastSeen, LaunchSpec};
use crate::trace::{AccessKind, Trace, TraceBuffer};
use crate::wasm::{LaneFailure, WasmLane, WasmModule};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rustc_hash::{FxHashSet, FxHasher};
use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

type LaneResult = Result<(), LaneFailure>;

/// Lanes per warp, as an index bound.
const WARP: usize = hw::WARP_SIZE as usize;
// A warp's lanes are the bits of a `u32` mask (`WarpMasks`, the collectives' masks).
const _: () = assert!(hw::WARP_SIZE == u32::BITS);

/// Bytes of a parked sandboxed lane's native stack, below and above where it parked,
/// that [`Exec::resume`] prefetches before resuming the lane before it: the frames its
/// switch and its return into the WebAssembly interpreter touch first (measured: 2.3 KB
/// deep in all, of which these lines are the ones a resume reads).
const PREFETCH_BELOW: usize = 320;
/// See [`PREFETCH_BELOW`].
const PREFETCH_ABOVE: usize = 448;

/// Asks the CPU to bring the lines of a lane's stack around `sp`, and its context `ctx`,
/// into its cache.
///
/// A block of 256 sandboxed lanes keeps more state than a core's L2 holds, so each switch
/// into a lane would wait for its stack lines; fetched while the previous lane runs,
/// they are there when it switches (the `lane_ops` bench: about 7 % less time for the
/// sandboxed launch; none for native lanes, whose stacks stay cached, so it is skipped
/// for them).
#[inline]
fn prefetch_stack(sp: usize, ctx: *const LaneCtx) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY (all three): a prefetch is a hint; it never faults, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(ctx as *const i8) };
        let mut a = sp.saturating_sub(PREFETCH_BELOW) & !63;
        while a < sp + PREFETCH_ABOVE {
            unsafe { _mm_prefetch::<_MM_HINT_T0>(a as *const i8) };
            a += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (sp, ctx);
}

type Co = Coroutine<u128, Parked, LaneResult, DefaultStack>;

/// Where a lane is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Ready,
    Collective,
    Barrier,
    Exited,
}

/// The lanes of one warp by status, as bit masks (bit `l` = lane `l`), kept in step with
/// each lane's `status` so a step need not look at every lane.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WarpMasks {
    pub(crate) ready: u32,
    pub(crate) collective: u32,
    pub(crate) barrier: u32,
    pub(crate) exited: u32,
    /// Lanes that exist (a block's last warp may be partial).
    pub(crate) existing: u32,
}

impl WarpMasks {
    fn set(&mut self, lane: usize, status: Status) {
        let bit = 1u32 << (lane % WARP);
        self.ready &= !bit;
        self.collective &= !bit;
        self.barrier &= !bit;
        self.exited &= !bit;
        match status {
            Status::Ready => self.ready |= bit,
            Status::Collective => self.collective |= bit,
            Status::Barrier => self.barrier |= bit,
            Status::Exited => self.exited |= bit,
        }
    }
}

/// The set bits of a mask, lowest first, without allocating.
#[derive(Clone, Copy)]
pub(crate) struct Bits(pub(crate) u32);

impl Iterator for Bits {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(b as usize)
    }
}

pub(crate) struct Lane {
    co: Option<Co>,
    ctx: Box<LaneCtx>,
    /// A sandboxed lane's instance (its coroutine runs it through a pointer, so that the
    /// instance is dropped with the lane even when the coroutine is abandoned).
    wasm: Option<Box<WasmLane>>,
    pub(crate) status: Status,
    pub(crate) req: Option<Req>,
    /// Where the lane's stack was when it last parked, copied from its context when it
    /// parks (the context is in cache then; read here, the next resume's prefetch does
    /// not wait for it).
    sp: usize,
    loops: LoopStack,
    pub(crate) thread: ThreadRef,
}

impl Lane {
    #[inline]
    pub(crate) fn op(&self) -> Op {
        self.req.expect("invariant: a parked lane has a request").op
    }
    /// The operation, by reference (an `Op` is large; copying it whole is slow).
    #[inline]
    pub(crate) fn op_ref(&self) -> &Op {
        &self
            .req
            .as_ref()
            .expect("invariant: a parked lane has a request")
            .op
    }
    #[inline]
    pub(crate) fn site(&self) -> Site {
        self.req
            .expect("invariant: a parked lane has a request")
            .site
    }
}

/// One launch in progress: the memory, the current block, and what has been counted.
pub(crate) struct Exec<'m> {
    pub(crate) mem: &'m mut GlobalMemory,
    pub(crate) spec: LaunchSpec,
    pub(crate) config: Config,
    last_seen: Arc<LastSeen>,
    pub(crate) sites: SiteTable,
    pub(crate) per_site: Vec<Counters>,
    /// Per site, its shared atomics' extra passes both ways (see
    /// [`crate::exec::SharedAtomicPasses`]), folded into `per_site` by the report.
    shared_atomics: Vec<crate::exec::SharedAtomicPasses>,
    pub(crate) findings: Findings,
    pub(crate) global_writes: GlobalWrites,
    steps: u64,
    /// Set when a step changed memory, a barrier released or a lane exited: the block is
    /// not spinning. Cleared by the spin detector at each step.
    pub(crate) progress: bool,
    /// Steps of the current block since the last progress.
    quiet: u64,
    /// Consecutive steps that repeated one in `seen`.
    repeats: u64,
    /// Signatures of the steps since the last progress (bounded).
    seen: FxHashSet<u64>,
    stacks: Vec<DefaultStack>,
    pub(crate) lanes: Vec<Lane>,
    /// Per warp of the block: its lanes by status.
    pub(crate) warps: Vec<WarpMasks>,
    /// Counters of the step being executed (an index into `per_site`).
    pub(crate) cur: usize,
    pub(crate) shared: SharedMemory,
    pub(crate) shared_words: Vec<WordState>,
    /// Barrier interval, unique across the launch (a new block starts a new one).
    pub(crate) bar_epoch: u32,
    /// Per warp of the block: the `__syncwarp`s it has passed (modulo 256), which order
    /// its lanes' shared accesses for [`Config::lane_hazards`].
    pub(crate) warp_syncs: Vec<u8>,
    pub(crate) block_linear: u64,
    block_idx: [u32; 3],
    /// Loops learned from the lanes' jumps, for reconvergence (see `reconverge`).
    loop_ends: LoopEnds,
    /// The launch's trace, when [`Config::trace`] asks for one.
    trace: Option<Trace>,
    /// The launch's flow, when [`Config::record_flow`] asks for one.
    flow: Option<Flow>,
    /// The sandboxed module of the kernel, if it is one: lanes that end give their
    /// instances back to it.
    module: Option<Arc<WasmModule>>,
}

#[inline]
fn same_site(a: Site, b: Site) -> bool {
    std::ptr::eq(a, b) || site_order(a, b) == Ordering::Equal
}

/// The mask of the collective a lane waits at.
fn collective_mask(lane: &Lane) -> u32 {
    match *lane.op_ref() {
        Op::Warp(w) => w.mask().unwrap_or(0),
        _ => unreachable!("collective status is set for warp ops with a mask"),
    }
}

fn same_kind(a: &Op, b: &Op) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
        && match (a, b) {
            (Op::Load { space: x, .. }, Op::Load { space: y, .. })
            | (Op::Store { space: x, .. }, Op::Store { space: y, .. })
            | (Op::Atomic { space: x, .. }, Op::Atomic { space: y, .. }) => x == y,
            _ => true,
        }
}

impl<'m> Exec<'m> {
    pub(crate) fn new(
        mem: &'m mut GlobalMemory,
        spec: LaunchSpec,
        config: Config,
        last_seen: Arc<LastSeen>,
    ) -> Self {
        let shared = spec.shared_bytes as usize;
        let flow = config.record_flow.then(Flow::default);
        let trace = config.trace.as_ref().map(|_| Trace {
            grid: spec.grid,
            block: spec.block,
            ..Trace::default()
        });
        Exec {
            mem,
            spec,
            config,
            last_seen,
            sites: SiteTable::default(),
            per_site: Vec::new(),
            shared_atomics: Vec::new(),
            findings: Findings::default(),
            global_writes: GlobalWrites::default(),
            steps: 0,
            progress: false,
            quiet: 0,
            repeats: 0,
            seen: FxHashSet::default(),
            stacks: Vec::new(),
            lanes: Vec::new(),
            warps: Vec::new(),
            cur: 0,
            shared: SharedMemory::new(shared),
            shared_words: vec![WordState::default(); shared.div_ceil(4)],
            bar_epoch: 0,
            warp_syncs: Vec::new(),
            block_linear: 0,
            block_idx: [0; 3],
            loop_ends: LoopEnds::default(),
            trace,
            flow,
            module: None,
        }
    }

    /// Runs every block, then assembles the report.
    pub(crate) fn run(mut self, kernel: &KernelBody) -> Result<LaunchReport, LaunchError> {
        crate::lane::take_output();
        if let KernelBody::Wasm { module, .. } = kernel {
            self.module = Some(module.clone());
        }
        let result = self.run_blocks(kernel);
        // The trace is delivered whatever the outcome: a failing launch is the one a
        // student most wants to see.
        if let (Some(trace), Some(sink)) = (self.trace.take(), &self.config.trace) {
            sink.push(trace);
        }
        result?;
        Ok(self.report())
    }

    fn run_blocks(&mut self, kernel: &KernelBody) -> Result<(), LaunchError> {
        self.mem.reset_store_marks();
        let blocks = self.spec.blocks();
        match self.config.block_order_seed {
            Some(seed) if blocks <= 1 << 24 => {
                // Fisher-Yates with the course's generator (ChaCha8: the same order for
                // a seed on every platform and version).
                let mut order: Vec<u64> = (0..blocks).collect();
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                for i in (1..order.len()).rev() {
                    let j = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
                    order.swap(i, j);
                }
                for b in order {
                    self.run_block(b, kernel)?;
                }
            }
            _ => {
                for b in 0..blocks {
                    self.run_block(b, kernel)?;
                }
            }
        }
        Ok(())
    }

    fn report(mut self) -> LaunchReport {
        for (id, passes) in self.shared_atomics.iter().enumerate() {
            let (extra, ways) = passes.passes();
            let c = &mut self.per_site[id];
            c.shared_atomic_bank_conflicts += extra;
            c.shared_atomic_max_bank_ways = c.shared_atomic_max_bank_ways.max(ways);
        }
        let mut total = Counters::default();
        let mut lines: BTreeMap<(String, u32), Counters> = BTreeMap::new();
        for (id, c) in self.per_site.iter().enumerate() {
            total.add(c);
            let s = self.sites.site(id as u32);
            lines
                .entry((s.file().to_string(), s.line()))
                .or_default()
                .add(c);
        }
        LaunchReport {
            counters: total,
            lines: lines
                .into_iter()
                .map(|((file, line), counters)| LineCounters {
                    file,
                    line,
                    counters,
                })
                .collect(),
            findings: self.findings.into_vec(),
            blocks: self.spec.blocks(),
            threads: self.spec.blocks() * self.spec.threads_per_block(),
            output: crate::lane::take_output(),
            flow: self.flow.map(std::sync::Arc::new),
        }
    }

    /// Makes `site` the current step's site: its counters are `self.c()` until the next.
    pub(crate) fn enter(&mut self, site: Site) {
        let id = self.sites.id(site) as usize;
        if id >= self.per_site.len() {
            self.per_site.resize(self.sites.len(), Counters::default());
        }
        self.cur = id;
    }

    /// The shared-atomic passes of site `id` (an index into `per_site`).
    pub(crate) fn shared_atomic_passes(
        &mut self,
        id: usize,
    ) -> &mut crate::exec::SharedAtomicPasses {
        if id >= self.shared_atomics.len() {
            self.shared_atomics.resize(id + 1, Default::default());
        }
        &mut self.shared_atomics[id]
    }

    /// Counters of the current step's site.
    #[inline]
    pub(crate) fn c(&mut self) -> &mut Counters {
        &mut self.per_site[self.cur]
    }

    fn run_block(&mut self, b: u64, kernel: &KernelBody) -> Result<(), LaunchError> {
        let r = self.run_block_inner(b, kernel);
        // Lanes still suspended (after an error) are discarded without unwinding: kernels
        // hold only `Copy` handles, so there is nothing to drop.
        for lane in self.lanes.drain(..) {
            if let Some(mut co) = lane.co {
                // SAFETY: a suspended lane's stack holds no value that needs dropping to
                // keep the emulator sound; its memory is reused for the next lane.
                unsafe { co.force_reset() };
                self.stacks.push(co.into_stack());
            }
        }
        set_current(std::ptr::null());
        r
    }

    fn run_block_inner(&mut self, b: u64, kernel: &KernelBody) -> Result<(), LaunchError> {
        let [gx, gy, _] = self.spec.grid;
        let [bx, by, _] = self.spec.block;
        let (gx, gy) = (gx as u64, gy as u64);
        self.block_idx = [
            (b % gx) as u32,
            ((b / gx) % gy) as u32,
            (b / (gx * gy)) as u32,
        ];
        self.block_linear = b;
        self.bar_epoch += 1;
        self.progress = true;
        self.shared.reset();
        self.warp_syncs = vec![0; (self.spec.threads_per_block() as usize).div_ceil(WARP)];
        let n = self.spec.threads_per_block() as u32;
        for t in 0..n {
            let thread = [t % bx, (t / bx) % by, t / (bx * by)];
            let ctx = Box::new(LaneCtx {
                thread,
                block: self.block_idx,
                block_dim: self.spec.block,
                grid_dim: self.spec.grid,
                lane: t % hw::WARP_SIZE,
                dynamic_shared_bytes: self.spec.shared_bytes,
                yielder: Cell::new(std::ptr::null()),
                sp: Cell::new(0),
            });
            let stack = match self.stacks.pop() {
                Some(s) => s,
                None => DefaultStack::new(self.config.stack_bytes).map_err(|e| {
                    LaunchError::DeviceLost {
                        message: format!(
                            "could not allocate a {}-byte lane stack: {e}",
                            self.config.stack_bytes
                        ),
                    }
                })?,
            };
            let ctx_ptr: *const LaneCtx = &*ctx;
            let (co, wasm) = match kernel {
                KernelBody::Native(body) => {
                    let body = body.clone();
                    // SAFETY: `ctx` is boxed and lives in `self.lanes` until the coroutine
                    // is finished or reset; `body` is owned by the closure.
                    let co = unsafe {
                        Coroutine::with_stack_unchecked(stack, move |y, _first: u128| {
                            (*ctx_ptr).yielder.set(y as *const _);
                            match std::panic::catch_unwind(AssertUnwindSafe(|| body())) {
                                Ok(()) => Ok(()),
                                Err(_) => Err(match take_last_panic() {
                                    Some((message, site)) => LaneFailure::Panic(message, site),
                                    None => LaneFailure::Panic(
                                        "(panic message unavailable)".into(),
                                        String::new(),
                                    ),
                                }),
                            }
                        })
                    };
                    (co, None)
                }
                KernelBody::Wasm {
                    module,
                    kernel,
                    args,
                } => {
                    let mut wasm = module.lane(
                        &WasmModule::kernel_export(kernel),
                        args,
                        self.config.lane_limits,
                        self.config.meter.as_ref(),
                        self.spec.threads_per_block() as u32,
                    )?;
                    let lane_ptr: *mut WasmLane = &mut *wasm;
                    // SAFETY: `ctx` and the instance are boxed and live in `self.lanes`
                    // until the coroutine is finished or reset; the coroutine is the only
                    // user of the instance while it runs.
                    let co = unsafe {
                        Coroutine::with_stack_unchecked(stack, move |y, _first: u128| {
                            (*ctx_ptr).yielder.set(y as *const _);
                            (*lane_ptr).run()
                        })
                    };
                    (co, Some(wasm))
                }
            };
            let thread = ThreadRef {
                block: self.block_idx,
                thread,
            };
            self.lanes.push(Lane {
                co: Some(co),
                ctx,
                wasm,
                status: Status::Ready,
                req: None,
                sp: 0,
                loops: LoopStack::default(),
                thread,
            });
        }
        let warps = n.div_ceil(hw::WARP_SIZE) as usize;
        self.warps.clear();
        for w in 0..warps {
            let lanes = (n as usize - w * WARP).min(WARP);
            let existing = if lanes == WARP {
                u32::MAX
            } else {
                (1u32 << lanes) - 1
            };
            self.warps.push(WarpMasks {
                ready: existing,
                existing,
                ..WarpMasks::default()
            });
        }
        for li in 0..n as usize {
            self.resume(li, 0)?;
        }
        loop {
            let mut progressed = false;
            for w in 0..warps {
                if self.step_warp(w)? {
                    progressed = true;
                }
            }
            if !progressed {
                if self.warps.iter().all(|m| m.exited == m.existing) {
                    return Ok(());
                }
                self.resolve_stuck()?;
            }
        }
    }

    /// Resumes lane `li` with the result of its operation and records where it parks next.
    ///
    /// Always inlined, so that the loops that resume a step's lanes one after the other
    /// (`execute`, a barrier's release) switch into each lane straight from the loop: no
    /// frame of the scheduler is left and entered between two lanes. The CPU predicts a
    /// return from the addresses the last calls pushed; a lane resumes by returning
    /// through the frames it parked in (the interpreter's call of the device-call import),
    /// which the lane before it has just pushed when it parked at the same site. With a
    /// scheduler frame returned from and entered again between the two, every one of
    /// those returns was mispredicted (the `lane_ops` bench: the sandboxed launch about
    /// 5 % faster inlined, see `notes/sandbox-speed-2026-11-25.md`).
    #[inline(always)]
    fn resume(&mut self, li: usize, value: u128) -> Result<(), LaunchError> {
        let lane = &mut self.lanes[li];
        if let Some(req) = lane.req {
            self.last_seen.set(req.site, lane.thread);
        }
        set_current(&*lane.ctx);
        if self.module.is_some()
            && let Some(next) = self.lanes.get(li + 1)
            && next.sp != 0
        {
            prefetch_stack(next.sp, &*next.ctx);
        }
        let lane = &mut self.lanes[li];
        let co = lane
            .co
            .as_mut()
            .expect("invariant: a live lane has a coroutine");
        let r = co.resume(value);
        set_current(std::ptr::null());
        match r {
            CoroutineResult::Yield(Parked { site, words }) => {
                let Some(op) = wire::decode(&words) else {
                    return Err(self.invalid_call(li, site));
                };
                let req = Req { site, op };
                lane.sp = lane.ctx.sp.get();
                if let Some(prev) = lane.req {
                    lane.loops.moved(prev.site, req.site, &mut self.loop_ends);
                }
                lane.status = match req.op {
                    Op::Barrier => Status::Barrier,
                    Op::Warp(w) if w.mask().is_some() => Status::Collective,
                    _ => Status::Ready,
                };
                lane.req = Some(req);
                self.warps[li / WARP].set(li, lane.status);
                if let Op::Warp(w) = req.op
                    && let Some(mask) = w.mask()
                    && mask & (1 << (li % WARP)) == 0
                {
                    return Err(self.mask_without_self(li));
                }
                Ok(())
            }
            CoroutineResult::Return(result) => self.returned(li, result),
        }
    }

    /// The error of lane `li`, whose device call at `site` carried words no operation
    /// encodes to (only a hand-made module can send them).
    #[cold]
    #[inline(never)]
    pub(crate) fn invalid_call(&self, li: usize, site: Site) -> LaunchError {
        LaunchError::LaneTrap {
            thread: self.lanes[li].thread,
            what: "an invalid device call".into(),
            site: fmt_site(site),
        }
    }

    /// The error of lane `li`, which passed a collective a mask without itself.
    #[cold]
    #[inline(never)]
    fn mask_without_self(&self, li: usize) -> LaunchError {
        self.warp_error(
            li,
            format!(
                "lane {} called it with a mask that does not include itself",
                li % WARP
            ),
        )
    }

    /// Lane `li`'s kernel returned (`result`): the lane exits, its stack and instance go
    /// back for reuse, and a failure becomes the launch's error. Once per lane, out of
    /// [`Exec::resume`]'s inlined path.
    #[inline(never)]
    fn returned(&mut self, li: usize, result: LaneResult) -> Result<(), LaunchError> {
        self.progress = true;
        let lane = &mut self.lanes[li];
        lane.status = Status::Exited;
        self.warps[li / WARP].set(li, Status::Exited);
        let co = lane.co.take().expect("invariant: the lane was running");
        self.stacks.push(co.into_stack());
        let thread = lane.thread;
        match result {
            Ok(()) => {
                lane.req = None;
                if let (Some(w), Some(m)) = (lane.wasm.take(), &self.module) {
                    m.give_back(w);
                }
                Ok(())
            }
            Err(LaneFailure::Panic(message, site)) => Err(LaunchError::LanePanic {
                thread,
                message,
                site,
            }),
            Err(LaneFailure::Fuel(fuel, site)) => Err(LaunchError::FuelExhausted {
                thread,
                fuel,
                site,
                in_loop: self.loop_of(li),
                at: self.code_loop(li).map(Box::new),
            }),
            Err(LaneFailure::Budget(budget, site)) => Err(LaunchError::WorkBudgetExceeded {
                work: Work::Instructions,
                budget,
                thread: Some(thread),
                site,
                in_loop: self.loop_of(li),
                at: self.code_loop(li).map(Box::new),
            }),
            Err(LaneFailure::Trap(what, site)) => Err(LaunchError::LaneTrap { thread, what, site }),
        }
    }

    /// The loop of its code sandboxed lane `li` is in ([`crate::loops`]), if known.
    #[cold]
    fn code_loop(&self, li: usize) -> Option<crate::loops::CodeLoop> {
        self.lanes[li].wasm.as_ref()?.code_loop()
    }

    /// Where lane `li` is in the loops the emulator learned, if it has looped.
    #[cold]
    fn loop_of(&self, li: usize) -> Option<crate::report::LoopPlace> {
        let (head, iteration) = self.lanes[li].loops.innermost()?;
        let end = self.loop_ends.end(head).unwrap_or(head);
        Some(crate::report::LoopPlace {
            file: head.file().to_string(),
            first_line: head.line(),
            last_line: end.line().max(head.line()),
            iteration,
        })
    }

    /// Counts one warp step, lane `li`'s (the first of the step), against the step budget
    /// and the check's work budget; past either, the launch ends naming that lane.
    fn budget(&mut self, li: usize) -> Result<(), LaunchError> {
        if let Some(m) = &self.config.meter
            && !m.charge_step()
        {
            let budget = m.budget().warp_steps;
            return Err(LaunchError::WorkBudgetExceeded {
                work: Work::WarpSteps,
                budget,
                thread: Some(self.lanes[li].thread),
                site: self.lanes[li]
                    .req
                    .map(|r| fmt_site(r.site))
                    .unwrap_or_default(),
                in_loop: self.loop_of(li),
                at: self.code_loop(li).map(Box::new),
            });
        }
        self.steps += 1;
        if self.last_seen.stop_requested() {
            // The watchdog expired (`launch::launch`): the launching thread reports the
            // timeout; this error only ends the run so that the memory goes back.
            return Err(LaunchError::DeviceLost {
                message: "stopped by the watchdog".into(),
            });
        }
        if self.steps > self.config.step_budget {
            return Err(LaunchError::StepBudgetExceeded {
                budget: self.config.step_budget,
                waits: self.waits_of(|s| s != Status::Exited, false, true),
                block: self.block_idx,
            });
        }
        Ok(())
    }

    /// Takes one step of warp `w`, if any of its lanes can move.
    fn step_warp(&mut self, w: usize) -> Result<bool, LaunchError> {
        let lo = w * WARP;
        let WarpMasks {
            ready,
            collective: coll,
            exited,
            existing,
            ..
        } = self.warps[w];
        // 1. A complete collective. Collective sites in source order: the lanes at a site
        //    are grouped by the mask they passed; a group is complete when every existing
        //    lane of its mask is in it. The first site with complete groups executes them
        //    together, as one warp instruction (disjoint masks: two half-warps).
        let mut pending = coll;
        while pending != 0 {
            let mut f = lo + pending.trailing_zeros() as usize;
            for l in Bits(pending) {
                let li = lo + l;
                if site_order(self.lanes[li].site(), self.lanes[f].site()) == Ordering::Less {
                    f = li;
                }
            }
            let site = self.lanes[f].site();
            let mut at_site = 0u32;
            for l in Bits(pending) {
                if same_site(self.lanes[lo + l].site(), site) {
                    at_site |= 1 << l;
                }
            }
            pending &= !at_site;
            let mut run = 0u32;
            let mut rest = at_site;
            while rest != 0 {
                let g = lo + rest.trailing_zeros() as usize;
                let mask = collective_mask(&self.lanes[g]);
                let mut here = 0u32;
                for l in Bits(rest) {
                    if collective_mask(&self.lanes[lo + l]) == mask {
                        here |= 1 << l;
                    }
                }
                rest &= !here;
                let other = at_site & !here & mask;
                if other != 0 {
                    let o = lo + other.trailing_zeros() as usize;
                    return Err(self.warp_error(
                        g,
                        format!(
                            "{} passed mask {mask:#010x} but lane {} passed mask {:#010x}; \
                             every lane a mask names must pass the same mask",
                            lanes(here),
                            o - lo,
                            collective_mask(&self.lanes[o])
                        ),
                    ));
                }
                let required = mask & existing;
                if required & !here == 0 {
                    run |= here;
                    continue;
                }
                let gone = required & !here & exited;
                if gone != 0 {
                    return Err(self.warp_error(
                        g,
                        format!(
                            "the mask names {} of this warp, which exited and can never arrive",
                            lanes(gone)
                        ),
                    ));
                }
            }
            if run != 0 {
                let mut group = [0usize; WARP];
                let mut n = 0;
                for l in Bits(run) {
                    group[n] = lo + l;
                    n += 1;
                }
                self.execute(w, &group[..n], run)?;
                return Ok(true);
            }
        }
        // 2. The ready lanes that are furthest behind.
        if ready == 0 {
            return Ok(false);
        }
        let mut b = lo + ready.trailing_zeros() as usize;
        // The common case, a converged warp: every ready lane parked at the first one's
        // site with the same loop stack. They are level, and one step takes them all.
        let converged = {
            let (site, loops) = (self.lanes[b].site(), &self.lanes[b].loops);
            Bits(ready & (ready - 1)).all(|l| {
                let x = &self.lanes[lo + l];
                std::ptr::eq(x.site(), site) && x.loops.same_as(loops)
            })
        };
        if !converged {
            for l in Bits(ready & (ready - 1)) {
                let li = lo + l;
                let (x, y) = (&self.lanes[li], &self.lanes[b]);
                if behind(&x.loops, x.site(), &y.loops, y.site(), &self.loop_ends) == Ordering::Less
                {
                    b = li;
                }
            }
        }
        let (site, op, loops) = (
            self.lanes[b].site(),
            self.lanes[b].op(),
            self.lanes[b].loops,
        );
        let mut group = [0usize; WARP];
        let mut n = 0;
        let mut mask = 0u32;
        for l in Bits(ready) {
            let li = lo + l;
            let lane = &self.lanes[li];
            if same_site(lane.site(), site) && same_kind(&lane.op(), &op) {
                // One instruction, one position: lanes at the same site go on together.
                if !converged {
                    self.lanes[li].loops = loops;
                }
                group[n] = li;
                n += 1;
                mask |= 1 << l;
            }
        }
        self.execute(w, &group[..n], mask)?;
        Ok(true)
    }

    /// Executes one warp instruction for `group` (lanes of warp `w`, ascending).
    fn execute(&mut self, w: usize, group: &[usize], mask: u32) -> Result<(), LaunchError> {
        self.budget(group[0])?;
        let site = self.lanes[group[0]].site();
        let m = self.warps[w];
        let live = (m.existing & !m.exited).count_ones() as usize;
        self.enter(site);
        {
            let c = self.c();
            c.warp_instructions += 1;
            c.lane_ops += group.len() as u64;
            if group.len() != live {
                c.divergent_steps += 1;
            }
        }
        if self.trace.is_some() {
            self.record(w, group, site);
        }
        let results = self.exec_op(w, group, mask, site)?;
        if self.flow.is_some() {
            self.record_flow(group, &results, site);
        }
        self.watch_spin(group, &results, site)?;
        for (k, &li) in group.iter().enumerate() {
            self.resume(li, results[k])?;
        }
        Ok(())
    }

    /// Adds the executed step's loads, stores, atomics and collectives to the flow.
    #[cold]
    fn record_flow(&mut self, group: &[usize], results: &[u128], site: Site) {
        let block = self.block_linear;
        let line = site.line();
        let Some(flow) = &mut self.flow else { return };
        for (k, &li) in group.iter().enumerate() {
            let (kind, space, base, addr, size, value) = match *self.lanes[li].op_ref() {
                Op::Load {
                    space,
                    base,
                    index,
                    size,
                    ..
                } => (
                    FlowKind::Load,
                    space,
                    base,
                    base.wrapping_add(index.wrapping_mul(size as u64)),
                    size,
                    results[k] as u64,
                ),
                Op::Store {
                    space,
                    base,
                    index,
                    size,
                    value,
                    ..
                } => (
                    FlowKind::Store,
                    space,
                    base,
                    base.wrapping_add(index.wrapping_mul(size as u64)),
                    size,
                    value as u64,
                ),
                Op::Atomic {
                    space,
                    base,
                    index,
                    ty,
                    op,
                    value,
                    ..
                } => (
                    FlowKind::Atomic(op, ty),
                    space,
                    base,
                    base.wrapping_add(index.wrapping_mul(ty.size() as u64)),
                    ty.size(),
                    value,
                ),
                Op::Warp(ref w) => {
                    let (c, value) = Collective::of(w);
                    (FlowKind::Warp(c), Space::Shared, 0, 0, 0, value)
                }
                Op::Barrier => return,
            };
            flow.push(FlowEvent {
                block,
                thread: li as u32,
                kind,
                space,
                base,
                addr,
                size,
                value,
                line,
            });
        }
    }

    /// Adds the step about to execute to the trace (memory operations only).
    #[cold]
    fn record(&mut self, w: usize, group: &[usize], site: Site) {
        let (kind, buffer) = match *self.lanes[group[0]].op_ref() {
            Op::Load {
                space,
                base,
                len,
                size,
                ..
            } => (AccessKind::Load, (space, base, size, len)),
            Op::Store {
                space,
                base,
                len,
                size,
                ..
            } => (AccessKind::Store, (space, base, size, len)),
            Op::Atomic {
                space,
                base,
                len,
                ty,
                ..
            } => (AccessKind::Atomic, (space, base, ty.size(), len)),
            Op::Barrier | Op::Warp(_) => return,
        };
        let lanes = group
            .iter()
            .map(|&li| {
                let index = match *self.lanes[li].op_ref() {
                    Op::Load { index, .. } | Op::Store { index, .. } | Op::Atomic { index, .. } => {
                        index
                    }
                    Op::Barrier | Op::Warp(_) => 0,
                };
                ((li % WARP) as u8, index)
            })
            .collect();
        let (space, base, elem_bytes, len) = buffer;
        let (step, block, line) = (self.steps, self.block_linear, site.line());
        if let Some(t) = &mut self.trace {
            t.record(
                step,
                block,
                w as u32,
                kind,
                TraceBuffer {
                    space,
                    base,
                    elem_bytes,
                    len,
                },
                line,
                lanes,
            );
        }
    }

    /// The spin detector (see [`Config::spin_steps`]): called after each step, before its
    /// lanes move on.
    fn watch_spin(
        &mut self,
        group: &[usize],
        results: &[u128],
        site: Site,
    ) -> Result<(), LaunchError> {
        if std::mem::take(&mut self.progress) {
            self.quiet = 0;
            self.repeats = 0;
            self.seen.clear();
            return Ok(());
        }
        if self.config.spin_steps == 0 {
            return Ok(());
        }
        self.quiet += 1;
        // A short quiet stretch is common (a run of loads); start watching after it.
        if self.quiet < 64 {
            return Ok(());
        }
        let mut h = FxHasher::default();
        h.write_usize(site as *const _ as usize);
        for (k, &li) in group.iter().enumerate() {
            h.write_usize(li);
            self.lanes[li].op().hash(&mut h);
            h.write_u128(results[k]);
        }
        if self.seen.insert(h.finish()) {
            self.repeats = 0;
            if self.seen.len() > 4096 {
                self.seen.clear();
            }
            return Ok(());
        }
        self.repeats += 1;
        if self.repeats < self.config.spin_steps {
            return Ok(());
        }
        Err(LaunchError::Deadlock {
            block: self.block_idx,
            waits: self.waits_of(|_| true, true, true),
        })
    }

    fn warp_error(&self, li: usize, message: String) -> LaunchError {
        let l = &self.lanes[li];
        let Op::Warp(w) = l.op() else {
            unreachable!("only warp ops wait as collectives")
        };
        LaunchError::WarpDivergence {
            what: w.cuda_name().to_string(),
            site: fmt_site(l.site()),
            thread: l.thread,
            mask: w.mask().unwrap_or(0),
            message,
        }
    }

    /// Groups the lanes whose status passes `keep` by where they wait.
    fn waits(&self, keep: impl Fn(Status) -> bool) -> Vec<WaitSite> {
        self.waits_of(keep, false, false)
    }

    /// As [`Self::waits`]; with `spinning`, running lanes are described as spinning; with
    /// `loops`, each group names the loop of the code its lanes are in ([`crate::loops`]).
    fn waits_of(
        &self,
        keep: impl Fn(Status) -> bool,
        spinning: bool,
        loops: bool,
    ) -> Vec<WaitSite> {
        type Key = (u8, u32, u32, String, String, bool, Option<CodeLoop>);
        let mut groups: BTreeMap<Key, Vec<u32>> = BTreeMap::new();
        for (li, l) in self.lanes.iter().enumerate() {
            if !keep(l.status) {
                continue;
            }
            let key = match l.status {
                Status::Exited => (1, 0, 0, String::new(), "exited".to_string(), false, None),
                status => {
                    let s = l.site();
                    let spins = spinning && status == Status::Ready;
                    let what = l.op().describe();
                    let in_loop = if loops { self.code_loop(li) } else { None };
                    (0, s.line(), s.column(), fmt_site(s), what, spins, in_loop)
                }
            };
            groups.entry(key).or_default().push(li as u32);
        }
        groups
            .into_iter()
            .map(|((_, _, _, site, what, spinning, in_loop), ids)| WaitSite {
                what,
                site,
                threads: ranges(&ids),
                spinning,
                in_loop,
            })
            .collect()
    }

    /// No warp can step: release a barrier, or report why the block is stuck.
    fn resolve_stuck(&mut self) -> Result<(), LaunchError> {
        if let Some(li) = self
            .lanes
            .iter()
            .position(|l| l.status == Status::Collective)
        {
            let lo = li / WARP * WARP;
            let hi = (lo + WARP).min(self.lanes.len());
            let site = self.lanes[li].site();
            let Op::Warp(w) = self.lanes[li].op() else {
                unreachable!("collective status is set for warp ops")
            };
            let mask = w.mask().unwrap_or(0);
            let mut missing: BTreeMap<(u32, u32, String), Vec<u32>> = BTreeMap::new();
            for m in (lo..hi).filter(|&m| mask & (1 << (m - lo)) != 0) {
                let l = &self.lanes[m];
                if l.status == Status::Collective && same_site(l.site(), site) {
                    continue;
                }
                let key = match l.status {
                    Status::Exited => (u32::MAX, 0, "exited".to_string()),
                    _ => (
                        l.site().line(),
                        l.site().column(),
                        format!("in {} at {}", l.op().describe(), fmt_site(l.site())),
                    ),
                };
                missing.entry(key).or_default().push((m - lo) as u32);
            }
            let missing: Vec<String> = missing
                .into_iter()
                .map(|((_, _, at), ids)| {
                    let verb = match (at.as_str(), ids.len()) {
                        ("exited", _) => "",
                        (_, 1) => "waits ",
                        _ => "wait ",
                    };
                    let m = ids.iter().fold(0u32, |m, &l| m | 1 << l);
                    format!("{} {verb}{at}", lanes(m))
                })
                .collect();
            return Err(self.warp_error(
                li,
                format!(
                    "not every lane of the mask can reach it ({}); a warp collective must be reached by all the lanes its mask names",
                    missing.join("; ")
                ),
            ));
        }
        let waiting: Vec<usize> = (0..self.lanes.len())
            .filter(|&li| self.lanes[li].status == Status::Barrier)
            .collect();
        if waiting.is_empty() {
            return Err(LaunchError::Deadlock {
                block: self.block_idx,
                waits: self.waits(|s| s != Status::Exited),
            });
        }
        let site = self.lanes[waiting[0]].site();
        let one_site = waiting
            .iter()
            .all(|&li| same_site(self.lanes[li].site(), site));
        let all_here = waiting.len() == self.lanes.len();
        if !(one_site && all_here) {
            return Err(LaunchError::BarrierDivergence {
                block: self.block_idx,
                waits: self.waits(|_| true),
            });
        }
        self.budget(waiting[0])?;
        let warps = self.lanes.len().div_ceil(WARP) as u64;
        let n = self.lanes.len() as u64;
        self.enter(site);
        {
            let c = self.c();
            c.barriers += 1;
            c.warp_instructions += warps;
            c.lane_ops += n;
        }
        self.bar_epoch += 1;
        self.progress = true;
        for li in 0..self.lanes.len() {
            self.resume(li, 0)?;
        }
        Ok(())
    }
}

/// "lane 3" or "lanes 0-15, 20": the lanes of a mask, for messages.
pub(crate) fn lanes(mask: u32) -> String {
    let b = bits(mask);
    let word = if b.len() == 1 { "lane" } else { "lanes" };
    format!("{word} {}", ranges(&b))
}

/// The set bits of a mask, as lane numbers.
pub(crate) fn bits(mask: u32) -> Vec<u32> {
    Bits(mask).map(|b| b as u32).collect()
}
