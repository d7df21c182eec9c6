//! The step rule: which lanes of a warp execute together, when barriers release, and
//! what counts as stuck.
//!
//! A warp's lanes are *ready* (parked at an operation), *collective* (waiting at a warp
//! collective for the lanes its mask names), at a *barrier*, or *exited*. Each round,
//! every warp of the block takes at most one step:
//!
//! 1. a collective whose mask's live lanes have all arrived at the same site executes;
//! 2. otherwise the ready lanes at the earliest position execute together, where a
//!    lane's position is (loop iteration, call site in source order), the iteration
//!    counting how often the lane jumped back to an earlier or equal site. Preferring the
//!    lanes that are behind makes branches rejoin (the `if lane == leader { atomic }` of a
//!    loop body finishes before the other lanes start the next iteration).
//!
//! When no warp can step, either every live thread waits at one barrier (it releases),
//! or the block is reported: a barrier reached by part of the block or at several sites
//! (synccheck), a collective that cannot complete, or a deadlock.

use crate::check::{Findings, GlobalWrite, WordState};
use crate::config::Config;
use crate::counters::{Counters, LineCounters};
use crate::lane::{LaneCtx, Req, set_current, take_last_panic};
use crate::launch::{KernelBody, LastSeen, LaunchSpec};
use crate::memory::{GlobalMemory, SharedMemory};
use crate::op::Op;
use crate::report::{LaunchError, LaunchReport, ThreadRef, WaitSite, ranges};
use crate::site::{Site, SiteTable, fmt_site, site_order};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

type LaneResult = Result<(), Option<(String, String)>>;
type Co = Coroutine<u128, Req, LaneResult, DefaultStack>;

/// Where a lane is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Ready,
    Collective,
    Barrier,
    Exited,
}

pub(crate) struct Lane {
    co: Option<Co>,
    ctx: Box<LaneCtx>,
    pub(crate) status: Status,
    pub(crate) req: Option<Req>,
    loop_epoch: u32,
    pub(crate) thread: ThreadRef,
}

impl Lane {
    pub(crate) fn op(&self) -> Op {
        self.req.expect("invariant: a parked lane has a request").op
    }
    fn site(&self) -> Site {
        self.req
            .expect("invariant: a parked lane has a request")
            .site
    }
}

/// One launch in progress: the memory, the current block, and what has been counted.
pub(crate) struct Exec<'m> {
    pub(crate) mem: &'m mut GlobalMemory,
    pub(crate) spec: LaunchSpec,
    config: Config,
    last_seen: Arc<LastSeen>,
    pub(crate) sites: SiteTable,
    pub(crate) per_site: Vec<Counters>,
    pub(crate) findings: Findings,
    pub(crate) global_writes: HashMap<u64, GlobalWrite>,
    steps: u64,
    stacks: Vec<DefaultStack>,
    pub(crate) lanes: Vec<Lane>,
    pub(crate) shared: SharedMemory,
    pub(crate) shared_words: Vec<WordState>,
    /// Barrier interval, unique across the launch (a new block starts a new one).
    pub(crate) bar_epoch: u32,
    pub(crate) block_linear: u64,
    block_idx: [u32; 3],
}

fn same_site(a: Site, b: Site) -> bool {
    site_order(a, b) == Ordering::Equal
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
        Exec {
            mem,
            spec,
            config,
            last_seen,
            sites: SiteTable::default(),
            per_site: Vec::new(),
            findings: Findings::default(),
            global_writes: HashMap::new(),
            steps: 0,
            stacks: Vec::new(),
            lanes: Vec::new(),
            shared: SharedMemory::new(shared),
            shared_words: vec![WordState::default(); shared.div_ceil(4)],
            bar_epoch: 0,
            block_linear: 0,
            block_idx: [0; 3],
        }
    }

    /// Runs every block, then assembles the report.
    pub(crate) fn run(mut self, kernel: &KernelBody) -> Result<LaunchReport, LaunchError> {
        self.mem.reset_store_marks();
        let blocks = self.spec.blocks();
        match self.config.block_order_seed {
            Some(seed) if blocks <= 1 << 24 => {
                let mut order: Vec<u64> = (0..blocks).collect();
                let mut s = seed ^ 0x9E37_79B9_7F4A_7C15;
                for i in (1..order.len()).rev() {
                    s = s
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let j = ((s >> 33) % (i as u64 + 1)) as usize;
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
        Ok(self.report())
    }

    fn report(self) -> LaunchReport {
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
        }
    }

    /// Counters of a site, allocated on first use.
    pub(crate) fn counters(&mut self, site: Site) -> &mut Counters {
        let id = self.sites.id(site) as usize;
        if id >= self.per_site.len() {
            self.per_site.resize(self.sites.len(), Counters::default());
        }
        &mut self.per_site[id]
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
        self.shared.reset();
        let n = self.spec.threads_per_block() as u32;
        for t in 0..n {
            let thread = [t % bx, (t / bx) % by, t / (bx * by)];
            let ctx = Box::new(LaneCtx {
                thread,
                block: self.block_idx,
                block_dim: self.spec.block,
                grid_dim: self.spec.grid,
                lane: t % 32,
                dynamic_shared_bytes: self.spec.shared_bytes,
                yielder: Cell::new(std::ptr::null()),
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
            let body = kernel.clone();
            // SAFETY: `ctx` is boxed and lives in `self.lanes` until the coroutine is
            // finished or reset; `body` is owned by the closure.
            let co = unsafe {
                Coroutine::with_stack_unchecked(stack, move |y, _first: u128| {
                    (*ctx_ptr).yielder.set(y as *const _);
                    match std::panic::catch_unwind(AssertUnwindSafe(|| body())) {
                        Ok(()) => Ok(()),
                        Err(_) => Err(take_last_panic()),
                    }
                })
            };
            let thread = ThreadRef {
                block: self.block_idx,
                thread,
            };
            self.lanes.push(Lane {
                co: Some(co),
                ctx,
                status: Status::Ready,
                req: None,
                loop_epoch: 0,
                thread,
            });
        }
        for li in 0..n as usize {
            self.resume(li, 0)?;
        }
        let warps = n.div_ceil(32) as usize;
        loop {
            let mut progressed = false;
            for w in 0..warps {
                if self.step_warp(w)? {
                    progressed = true;
                }
            }
            if !progressed {
                if self.lanes.iter().all(|l| l.status == Status::Exited) {
                    return Ok(());
                }
                self.resolve_stuck()?;
            }
        }
    }

    /// Resumes lane `li` with the result of its operation and records where it parks next.
    fn resume(&mut self, li: usize, value: u128) -> Result<(), LaunchError> {
        let lane = &mut self.lanes[li];
        if let Some(req) = lane.req {
            self.last_seen.set(req.site, lane.thread);
        }
        set_current(&*lane.ctx);
        let co = lane
            .co
            .as_mut()
            .expect("invariant: a live lane has a coroutine");
        let r = co.resume(value);
        set_current(std::ptr::null());
        match r {
            CoroutineResult::Yield(req) => {
                if let Some(prev) = lane.req
                    && site_order(req.site, prev.site) != Ordering::Greater
                {
                    lane.loop_epoch += 1;
                }
                lane.status = match req.op {
                    Op::Barrier => Status::Barrier,
                    Op::Warp(w) if w.mask().is_some() => Status::Collective,
                    _ => Status::Ready,
                };
                lane.req = Some(req);
                Ok(())
            }
            CoroutineResult::Return(result) => {
                lane.status = Status::Exited;
                let co = lane.co.take().expect("invariant: checked above");
                self.stacks.push(co.into_stack());
                match result {
                    Ok(()) => {
                        lane.req = None;
                        Ok(())
                    }
                    Err(info) => {
                        let (message, site) = info.unwrap_or_else(|| {
                            ("(panic message unavailable)".into(), String::new())
                        });
                        Err(LaunchError::LanePanic {
                            thread: lane.thread,
                            message,
                            site,
                        })
                    }
                }
            }
        }
    }

    fn budget(&mut self) -> Result<(), LaunchError> {
        self.steps += 1;
        if self.steps > self.config.step_budget {
            return Err(LaunchError::StepBudgetExceeded {
                budget: self.config.step_budget,
                waits: self.waits(|s| s != Status::Exited),
                block: self.block_idx,
            });
        }
        Ok(())
    }

    /// Takes one step of warp `w`, if any of its lanes can move.
    fn step_warp(&mut self, w: usize) -> Result<bool, LaunchError> {
        let lo = w * 32;
        let hi = (lo + 32).min(self.lanes.len());
        // 1. A complete collective.
        let mut exited = 0u32;
        let mut existing = 0u32;
        let mut first_coll: Option<usize> = None;
        for li in lo..hi {
            let bit = 1u32 << (li - lo);
            existing |= bit;
            match self.lanes[li].status {
                Status::Exited => exited |= bit,
                Status::Collective => {
                    if first_coll.is_none_or(|f| {
                        site_order(self.lanes[li].site(), self.lanes[f].site()) == Ordering::Less
                    }) {
                        first_coll = Some(li);
                    }
                }
                _ => {}
            }
        }
        if let Some(f) = first_coll {
            let site = self.lanes[f].site();
            let mut here = 0u32;
            let mut group = Vec::with_capacity(32);
            for li in lo..hi {
                if self.lanes[li].status == Status::Collective
                    && same_site(self.lanes[li].site(), site)
                {
                    here |= 1 << (li - lo);
                    group.push(li);
                }
            }
            let Op::Warp(wop) = self.lanes[f].op() else {
                unreachable!("collective status is set for warp ops")
            };
            let mask = wop.mask().unwrap_or(0);
            for &li in &group {
                if mask & (1 << (li - lo)) == 0 {
                    return Err(self.warp_error(
                        li,
                        format!(
                            "lane {} called it with a mask that does not include itself",
                            li - lo
                        ),
                    ));
                }
            }
            let required = mask & existing;
            if required & !here == 0 {
                self.execute(w, &group, here)?;
                return Ok(true);
            }
            let gone = required & !here & exited;
            if gone != 0 {
                return Err(self.warp_error(
                    f,
                    format!(
                        "the mask names lanes {} of this warp, which have exited and can never arrive",
                        ranges(&bits(gone))
                    ),
                ));
            }
        }
        // 2. The ready lanes that are furthest behind.
        let mut best: Option<usize> = None;
        for li in lo..hi {
            let l = &self.lanes[li];
            if l.status != Status::Ready {
                continue;
            }
            let better = match best {
                None => true,
                Some(b) => {
                    let bl = &self.lanes[b];
                    (l.loop_epoch, 0)
                        .cmp(&(bl.loop_epoch, 0))
                        .then_with(|| site_order(l.site(), bl.site()))
                        == Ordering::Less
                }
            };
            if better {
                best = Some(li);
            }
        }
        let Some(b) = best else { return Ok(false) };
        let (site, op) = (self.lanes[b].site(), self.lanes[b].op());
        let mut group = Vec::with_capacity(32);
        let mut mask = 0u32;
        for li in lo..hi {
            let l = &self.lanes[li];
            if l.status == Status::Ready && same_site(l.site(), site) && same_kind(&l.op(), &op) {
                group.push(li);
                mask |= 1 << (li - lo);
            }
        }
        self.execute(w, &group, mask)?;
        Ok(true)
    }

    /// Executes one warp instruction for `group` (lanes of warp `w`, ascending).
    fn execute(&mut self, w: usize, group: &[usize], mask: u32) -> Result<(), LaunchError> {
        self.budget()?;
        let site = self.lanes[group[0]].site();
        let live = (w * 32..(w * 32 + 32).min(self.lanes.len()))
            .filter(|&li| self.lanes[li].status != Status::Exited)
            .count();
        {
            let c = self.counters(site);
            c.warp_instructions += 1;
            c.lane_ops += group.len() as u64;
            if group.len() != live {
                c.divergent_steps += 1;
            }
        }
        let results = self.exec_op(w, group, mask, site)?;
        let epoch = group
            .iter()
            .map(|&li| self.lanes[li].loop_epoch)
            .max()
            .unwrap_or(0);
        for (k, &li) in group.iter().enumerate() {
            self.lanes[li].loop_epoch = epoch;
            self.resume(li, results[k])?;
        }
        Ok(())
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
        let mut groups: BTreeMap<(u8, u32, u32, String, String), Vec<u32>> = BTreeMap::new();
        for (li, l) in self.lanes.iter().enumerate() {
            if !keep(l.status) {
                continue;
            }
            let key = match l.status {
                Status::Exited => (1, 0, 0, String::new(), "exited".to_string()),
                _ => {
                    let s = l.site();
                    (0, s.line(), s.column(), fmt_site(s), l.op().describe())
                }
            };
            groups.entry(key).or_default().push(li as u32);
        }
        groups
            .into_iter()
            .map(|((_, _, _, site, what), ids)| WaitSite {
                what,
                site,
                threads: ranges(&ids),
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
            let lo = li / 32 * 32;
            let hi = (lo + 32).min(self.lanes.len());
            let site = self.lanes[li].site();
            let Op::Warp(w) = self.lanes[li].op() else {
                unreachable!("collective status is set for warp ops")
            };
            let mask = w.mask().unwrap_or(0);
            let missing: Vec<String> = (lo..hi)
                .filter(|&m| mask & (1 << (m - lo)) != 0)
                .filter(|&m| {
                    !(self.lanes[m].status == Status::Collective
                        && same_site(self.lanes[m].site(), site))
                })
                .map(|m| {
                    let l = &self.lanes[m];
                    let at = match l.status {
                        Status::Exited => "has exited".to_string(),
                        _ => format!("waits in {} at {}", l.op().describe(), fmt_site(l.site())),
                    };
                    format!("lane {} {at}", m - lo)
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
        self.budget()?;
        let warps = self.lanes.len().div_ceil(32) as u64;
        let n = self.lanes.len() as u64;
        {
            let c = self.counters(site);
            c.barriers += 1;
            c.warp_instructions += warps;
            c.lane_ops += n;
        }
        self.bar_epoch += 1;
        for li in 0..self.lanes.len() {
            self.resume(li, 0)?;
        }
        Ok(())
    }

    /// Linear block index and warp of lane `li`, for hazard records.
    pub(crate) fn warp_of(li: usize) -> u32 {
        (li / 32) as u32
    }
}

/// The set bits of a mask, as lane numbers.
pub(crate) fn bits(mask: u32) -> Vec<u32> {
    (0..32).filter(|b| mask & (1 << b) != 0).collect()
}
