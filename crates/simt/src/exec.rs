//! Executing one warp instruction: memory effects, counters and checks of a step.

use crate::check::{Access, GlobalWrite};
use crate::hardware as hw;
use crate::memory::{read_le, write_le};
use crate::op::{AtomicOp, AtomicType, Op, ShuffleKind, Space, WarpOp};
use crate::report::{LaunchError, ThreadRef, ranges};
use crate::schedule::{Bits, Exec};
use crate::site::{Site, fmt_site};

/// Results of one step, by position in the group.
pub(crate) type Results = [u128; 32];

/// A list of at most `N` values on the stack: a step's addresses, sectors or words,
/// collected without allocating.
#[derive(Clone)]
struct Small<T, const N: usize> {
    len: usize,
    buf: [T; N],
}

impl<T: Copy + Default, const N: usize> Default for Small<T, N> {
    fn default() -> Self {
        Small {
            len: 0,
            buf: [T::default(); N],
        }
    }
}

impl<T, const N: usize> Small<T, N> {
    #[inline]
    fn push(&mut self, v: T) {
        self.buf[self.len] = v;
        self.len += 1;
    }
}

impl<T, const N: usize> std::ops::Deref for Small<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.buf[..self.len]
    }
}

impl<T, const N: usize> std::ops::DerefMut for Small<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.buf[..self.len]
    }
}

/// Number of distinct values in a small list (sorts it, unless it is in order already,
/// as the sectors of a coalesced access are: the common case skips the sort).
fn distinct(v: &mut [u64]) -> u64 {
    if !v.is_sorted() {
        v.sort_unstable();
    }
    let mut n = 0;
    for i in 0..v.len() {
        if i == 0 || v[i] != v[i - 1] {
            n += 1;
        }
    }
    n
}

/// Whether an atomic of `op` with operand `val` could not change memory whatever the
/// word held: an add or subtract of zero (`0`, or `+0.0`/`-0.0` for `f32`). Other ops are
/// judged by their result ([`apply`]'s new bits against the old).
fn zero_operand(ty: AtomicType, op: AtomicOp, val: u64) -> bool {
    matches!(op, AtomicOp::Add | AtomicOp::Sub)
        && match ty {
            AtomicType::U32 | AtomicType::I32 => val as u32 == 0,
            AtomicType::U64 => val == 0,
            AtomicType::F32 => val as u32 & 0x7fff_ffff == 0,
        }
}

/// Applies an atomic to `old`: the new bits and whether a CAS failed.
fn apply(ty: AtomicType, op: AtomicOp, old: u64, val: u64, cmp: u64) -> (u64, bool) {
    use AtomicOp::*;
    match ty {
        AtomicType::U32 => {
            let (a, v, c) = (old as u32, val as u32, cmp as u32);
            let r = match op {
                Add => a.wrapping_add(v),
                Sub => a.wrapping_sub(v),
                Min => a.min(v),
                Max => a.max(v),
                Exch => v,
                Cas => {
                    return if a == c {
                        (v as u64, false)
                    } else {
                        (a as u64, true)
                    };
                }
                And => a & v,
                Or => a | v,
                Xor => a ^ v,
                Inc => {
                    if a >= v {
                        0
                    } else {
                        a + 1
                    }
                }
                Dec => {
                    if a == 0 || a > v {
                        v
                    } else {
                        a - 1
                    }
                }
            };
            (r as u64, false)
        }
        AtomicType::I32 => {
            let (a, v, c) = (old as u32 as i32, val as u32 as i32, cmp as u32 as i32);
            let r = match op {
                Add => a.wrapping_add(v),
                Sub => a.wrapping_sub(v),
                Min => a.min(v),
                Max => a.max(v),
                Exch | Inc | Dec => v,
                Cas => {
                    return if a == c {
                        (v as u32 as u64, false)
                    } else {
                        (a as u32 as u64, true)
                    };
                }
                And => a & v,
                Or => a | v,
                Xor => a ^ v,
            };
            (r as u32 as u64, false)
        }
        AtomicType::U64 => {
            let r = match op {
                Add => old.wrapping_add(val),
                Sub => old.wrapping_sub(val),
                Min => old.min(val),
                Max => old.max(val),
                Exch | Inc | Dec => val,
                Cas => {
                    return if old == cmp {
                        (val, false)
                    } else {
                        (old, true)
                    };
                }
                And => old & val,
                Or => old | val,
                Xor => old ^ val,
            };
            (r, false)
        }
        AtomicType::F32 => {
            let a = f32::from_bits(old as u32);
            let v = f32::from_bits(val as u32);
            let r = match op {
                Add => a + v,
                Sub => a - v,
                Min => a.min(v),
                Max => a.max(v),
                Cas => {
                    return if old as u32 == cmp as u32 {
                        (val, false)
                    } else {
                        (old, true)
                    };
                }
                _ => v,
            };
            (r.to_bits() as u64, false)
        }
    }
}

impl Exec<'_> {
    #[inline]
    fn access(&self, li: usize, site: Site, atomic: bool) -> Access {
        Access {
            site,
            epoch: self.bar_epoch,
            t: li as u16,
            atomic,
            warp_syncs: self.warp_syncs.get(li / 32).copied().unwrap_or(0),
        }
    }

    /// The thread of linear index `t` in the block of linear index `block`.
    pub(crate) fn thread_ref(&self, block: u64, t: u16) -> ThreadRef {
        let [gx, gy, _] = self.spec.grid.map(|d| d as u64);
        let [bx, by, _] = self.spec.block;
        let t = t as u32;
        ThreadRef {
            block: [
                (block % gx) as u32,
                ((block / gx) % gy) as u32,
                (block / (gx * gy)) as u32,
            ],
            thread: [t % bx, (t / bx) % by, t / (bx * by)],
        }
    }

    /// Site and thread of a remembered access, for a report.
    fn who(&self, block: u64, a: &Access) -> (Site, ThreadRef) {
        (a.site, self.thread_ref(block, a.t))
    }

    #[cold]
    fn fault(
        &self,
        kind: &'static str,
        li: usize,
        site: Site,
        index: u64,
        len: u64,
        address: u64,
    ) -> LaunchError {
        LaunchError::MemoryFault {
            kind,
            access: self.lanes[li].op().describe(),
            thread: self.lanes[li].thread,
            site: fmt_site(site),
            index,
            len,
            address,
        }
    }

    /// Checks bounds and alignment; returns the global address or shared offset.
    #[inline]
    fn address(
        &self,
        li: usize,
        site: Site,
        (base, index, len, size): (u64, u64, u64, u64),
    ) -> Result<u64, LaunchError> {
        let addr = base.wrapping_add(index.wrapping_mul(size));
        if index >= len {
            return Err(self.fault("out of bounds", li, site, index, len, addr));
        }
        if addr % size != 0 {
            return Err(self.fault("misaligned", li, site, index, len, addr));
        }
        Ok(addr)
    }

    /// Checks that `off..off+size` lies in the block's shared memory.
    #[inline]
    fn shared_range(
        &self,
        li: usize,
        site: Site,
        (index, len): (u64, u64),
        off: u64,
        size: u64,
    ) -> Result<usize, LaunchError> {
        if off + size > self.shared.bytes.len() as u64 {
            return Err(self.fault("out of bounds", li, site, index, len, off));
        }
        Ok(off as usize)
    }

    /// A shared read of `size` bytes at `off` by lane `li`: initcheck.
    #[inline]
    fn check_initialized(&mut self, li: usize, site: Site, off: usize, size: usize) {
        if self.shared.written[off..off + size].contains(&false) {
            let t = self.lanes[li].thread;
            self.findings.uninitialized(site, t, off as u64);
        }
    }

    /// A shared access of lane `li` to the words of `off..off+size`: racecheck.
    #[inline]
    fn check_shared(&mut self, now: Access, off: u64, size: u64, write: bool) {
        for word in off / hw::BANK_WORD_BYTES..=(off + size - 1) / hw::BANK_WORD_BYTES {
            let state = &mut self.shared_words[word as usize];
            let lanes = self.config.lane_hazards;
            let hazard = if write {
                state.write(now, lanes)
            } else {
                state.read(now, lanes)
            };
            if let Some((kind, earlier)) = hazard {
                let b = self.block_linear;
                let (first, second) = (self.who(b, &earlier), self.who(b, &now));
                self.findings.shared_hazard(kind, first, second, word * 4);
            }
        }
    }

    /// Executes the operation the lanes of `group` are parked at.
    pub(crate) fn exec_op(
        &mut self,
        w: usize,
        group: &[usize],
        mask: u32,
        site: Site,
    ) -> Result<Results, LaunchError> {
        match *self.lanes[group[0]].op_ref() {
            // Constant memory is read-only: only hand-made words ask this (the device API
            // has no such call, and `wire::decode` refuses it).
            Op::Store {
                space: Space::Constant,
                ..
            }
            | Op::Atomic {
                space: Space::Constant,
                ..
            } => Err(self.invalid_call(group[0], site)),
            Op::Load { space, .. } => self.load(group, site, space),
            Op::Store { space, .. } => self.store(w, group, site, space),
            Op::Atomic { space, .. } => self.atomic(group, site, space),
            Op::Warp(_) => Ok(self.warp(w, group, mask, site)),
            Op::Barrier => unreachable!("barriers are released by the block, not stepped"),
        }
    }

    fn load(&mut self, group: &[usize], site: Site, space: Space) -> Result<Results, LaunchError> {
        let mut out = [0u128; 32];
        let mut sectors: Small<u64, 32> = Small::default();
        let mut words: Small<(u64, u64), 128> = Small::default();
        for (k, &li) in group.iter().enumerate() {
            let Op::Load {
                base,
                index,
                len,
                size,
                ..
            } = *self.lanes[li].op_ref()
            else {
                unreachable!("grouped by kind")
            };
            let size = size as u64;
            let addr = self.address(li, site, (base, index, len, size))?;
            match space {
                Space::Global => {
                    let Some((alloc, off)) = self.mem.locate(addr, size) else {
                        return Err(self.fault("out of bounds", li, site, index, len, addr));
                    };
                    out[k] = read_le(&alloc.bytes, off, size as usize);
                    if alloc.stored
                        && let Some(wr) = self.global_writes.get(addr)
                    {
                        let now = self.access(li, site, false);
                        if self.global_conflict(&wr, &now) {
                            let first = self.who(wr.block, &wr.access);
                            let second = self.who(self.block_linear, &now);
                            self.findings
                                .global_hazard("Read-after-Write", first, second, addr);
                        }
                    }
                    // Aligned accesses of at most 16 bytes never straddle a sector.
                    sectors.push(addr / hw::SECTOR_BYTES);
                }
                Space::Shared => {
                    let off = self.shared_range(li, site, (index, len), addr, size)?;
                    out[k] = read_le(&self.shared.bytes, off, size as usize);
                    self.check_initialized(li, site, off, size as usize);
                    let now = self.access(li, site, false);
                    self.check_shared(now, addr, size, false);
                    for word in addr / hw::BANK_WORD_BYTES..=(addr + size - 1) / hw::BANK_WORD_BYTES
                    {
                        words.push((phase(li, size), word));
                    }
                }
                Space::Constant => {
                    // Bytes the host never set read as zero: a module's constant memory
                    // starts zeroed on a GPU.
                    let off = addr.wrapping_sub(base);
                    out[k] = match self.mem.constant(base) {
                        Some(bytes)
                            if off
                                .checked_add(size)
                                .is_some_and(|end| end <= bytes.len() as u64) =>
                        {
                            read_le(bytes, off as usize, size as usize)
                        }
                        _ => 0,
                    };
                    // One pass per distinct address (`sectors` holds them here).
                    sectors.push(addr);
                }
            }
        }
        match space {
            Space::Global => {
                let n = distinct(&mut sectors);
                let c = self.c();
                c.global_load_requests += 1;
                c.global_load_sectors += n;
            }
            Space::Constant => {
                let n = distinct(&mut sectors);
                let c = self.c();
                c.constant_load_requests += 1;
                c.constant_serialized += n - 1;
                c.constant_max_addresses = c.constant_max_addresses.max(n);
            }
            Space::Shared => {
                let (conflicts, ways) = bank_conflicts(&mut words, false);
                let c = self.c();
                c.shared_load_requests += 1;
                c.bank_conflicts += conflicts;
                c.max_bank_ways = c.max_bank_ways.max(ways);
            }
        }
        Ok(out)
    }

    /// Do a remembered global store and a new access by another thread conflict?
    #[inline]
    fn global_conflict(&self, wr: &GlobalWrite, now: &Access) -> bool {
        wr.block != self.block_linear
            || (wr.access.warp() != now.warp() && wr.access.epoch == now.epoch)
    }

    fn store(
        &mut self,
        w: usize,
        group: &[usize],
        site: Site,
        space: Space,
    ) -> Result<Results, LaunchError> {
        let mut sectors: Small<u64, 32> = Small::default();
        let mut words: Small<(u64, u64), 128> = Small::default();
        let mut addrs: Small<(u64, usize, u128), 32> = Small::default();
        for &li in group {
            let Op::Store {
                base,
                index,
                len,
                size,
                value,
                ..
            } = *self.lanes[li].op_ref()
            else {
                unreachable!("grouped by kind")
            };
            let size = size as u64;
            let addr = self.address(li, site, (base, index, len, size))?;
            let now = self.access(li, site, false);
            match space {
                Space::Constant => unreachable!("exec_op refuses writes to constant memory"),
                Space::Global => {
                    let Some((alloc, off)) = self.mem.locate(addr, size) else {
                        return Err(self.fault("out of bounds", li, site, index, len, addr));
                    };
                    if read_le(&alloc.bytes, off, size as usize) != value {
                        write_le(&mut alloc.bytes, off, size as usize, value);
                        self.progress = true;
                    }
                    alloc.stored = true;
                    let block = self.block_linear;
                    let mine = GlobalWrite { block, access: now };
                    if let Some(wr) = self.global_writes.insert(addr, mine)
                        && self.global_conflict(&wr, &now)
                    {
                        let first = self.who(wr.block, &wr.access);
                        let second = self.who(block, &now);
                        self.findings
                            .global_hazard("Write-after-Write", first, second, addr);
                    }
                    sectors.push(addr / hw::SECTOR_BYTES);
                }
                Space::Shared => {
                    let off = self.shared_range(li, site, (index, len), addr, size)?;
                    if read_le(&self.shared.bytes, off, size as usize) != value {
                        write_le(&mut self.shared.bytes, off, size as usize, value);
                        self.progress = true;
                    }
                    self.shared.written[off..off + size as usize].fill(true);
                    self.check_shared(now, addr, size, true);
                    for word in addr / hw::BANK_WORD_BYTES..=(addr + size - 1) / hw::BANK_WORD_BYTES
                    {
                        words.push((phase(li, size), word));
                    }
                }
            }
            addrs.push((addr, li, value));
        }
        // Lanes that stored to one address in this step: the highest lane won. (Lanes
        // store in ascending order, so an address's lanes are already ascending.)
        addrs.sort_by_key(|a| a.0);
        let mut lost = 0;
        let mut i = 0;
        while i < addrs.len() {
            let mut j = i + 1;
            while j < addrs.len() && addrs[j].0 == addrs[i].0 {
                j += 1;
            }
            if j - i > 1 {
                lost += (j - i - 1) as u64;
                let run = &addrs[i..j];
                let block = self.lanes[run[0].1].thread.block;
                self.findings.conflicting_stores(
                    space.cuda_name(),
                    site,
                    || {
                        let lanes: Vec<u32> = run.iter().map(|r| (r.1 % 32) as u32).collect();
                        let mut values: Vec<u128> = run.iter().map(|r| r.2).collect();
                        values.dedup();
                        let vals = if values.len() == 1 {
                            format!("all stored {}", values[0])
                        } else {
                            let v: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                            format!("stored {}", v.join(", "))
                        };
                        format!(
                            "in block ({},{},{}) warp {w}, lanes {} {vals} to address {:#x} in one step; lane {} won",
                            block[0],
                            block[1],
                            block[2],
                            ranges(&lanes),
                            run[0].0,
                            lanes[lanes.len() - 1]
                        )
                    },
                    (j - i - 1) as u64,
                );
            }
            i = j;
        }
        let c = self.c();
        c.overwritten_stores += lost;
        match space {
            Space::Constant => unreachable!("exec_op refuses writes to constant memory"),
            Space::Global => {
                let n = distinct(&mut sectors);
                let c = self.c();
                c.global_store_requests += 1;
                c.global_store_sectors += n;
            }
            Space::Shared => {
                let (conflicts, ways) = bank_conflicts(&mut words, false);
                let c = self.c();
                c.shared_store_requests += 1;
                c.bank_conflicts += conflicts;
                c.max_bank_ways = c.max_bank_ways.max(ways);
            }
        }
        Ok([0; 32])
    }

    fn atomic(
        &mut self,
        group: &[usize],
        site: Site,
        space: Space,
    ) -> Result<Results, LaunchError> {
        let mut out = [0u128; 32];
        let mut addrs: Small<u64, 32> = Small::default();
        let mut words: Small<(u64, u64), 64> = Small::default();
        let mut cas_failures = 0;
        let mut cas_successes = 0;
        let mut noops = 0u64;
        for (k, &li) in group.iter().enumerate() {
            let Op::Atomic {
                base,
                index,
                len,
                ty,
                op: aop,
                value,
                compare,
                ..
            } = *self.lanes[li].op_ref()
            else {
                unreachable!("grouped by kind")
            };
            let size = ty.size() as u64;
            let addr = self.address(li, site, (base, index, len, size))?;
            let now = self.access(li, site, true);
            let (old, new, failed) = match space {
                Space::Constant => unreachable!("exec_op refuses writes to constant memory"),
                Space::Global => {
                    let Some((alloc, off)) = self.mem.locate(addr, size) else {
                        return Err(self.fault("out of bounds", li, site, index, len, addr));
                    };
                    let old = read_le(&alloc.bytes, off, size as usize) as u64;
                    let (new, failed) = apply(ty, aop, old, value, compare);
                    write_le(&mut alloc.bytes, off, size as usize, new as u128);
                    if alloc.stored
                        && let Some(wr) = self.global_writes.get(addr)
                        && self.global_conflict(&wr, &now)
                    {
                        let first = self.who(wr.block, &wr.access);
                        let second = self.who(self.block_linear, &now);
                        self.findings
                            .global_hazard("Write-after-Write", first, second, addr);
                    }
                    (old, new, failed)
                }
                Space::Shared => {
                    let off = self.shared_range(li, site, (index, len), addr, size)?;
                    self.check_initialized(li, site, off, size as usize);
                    let old = read_le(&self.shared.bytes, off, size as usize) as u64;
                    let (new, failed) = apply(ty, aop, old, value, compare);
                    write_le(&mut self.shared.bytes, off, size as usize, new as u128);
                    self.shared.written[off..off + size as usize].fill(true);
                    self.check_shared(now, addr, size, true);
                    (old, new, failed)
                }
            };
            if failed {
                cas_failures += 1;
            }
            // An `f32` add of a nonzero operand counts even when it rounds to no change (a
            // tiny weight on a large sum); anything else counts only if it changed the word.
            let noop = zero_operand(ty, aop, value)
                || (new == old
                    && !(ty == AtomicType::F32 && matches!(aop, AtomicOp::Add | AtomicOp::Sub)));
            if noop {
                noops += 1;
            } else if aop == AtomicOp::Cas {
                cas_successes += 1;
            }
            if new != old {
                self.progress = true;
            }
            out[k] = old as u128;
            addrs.push(addr);
            if space == Space::Shared {
                for word in addr / hw::BANK_WORD_BYTES..=(addr + size - 1) / hw::BANK_WORD_BYTES {
                    words.push((phase(li, size), word));
                }
            }
        }
        let lanes = addrs.len() as u64;
        // Sorted once: distinct addresses and the longest run of one address.
        addrs.sort_unstable();
        let (mut n, mut d, mut run) = (0, 0, 0);
        for i in 0..addrs.len() {
            if i > 0 && addrs[i] == addrs[i - 1] {
                run += 1;
            } else {
                n += 1;
                run = 1;
            }
            d = d.max(run);
        }
        let c = self.c();
        c.cas_failures += cas_failures;
        c.cas_successes += cas_successes;
        match space {
            Space::Constant => unreachable!("exec_op refuses writes to constant memory"),
            Space::Global => {
                c.global_atomic_requests += 1;
                c.global_atomic_lanes += lanes - noops;
                c.global_atomic_noop_lanes += noops;
                c.global_atomic_addresses += n;
                c.global_atomic_serialized += lanes - n;
                c.global_atomic_max_depth = c.global_atomic_max_depth.max(d);
            }
            Space::Shared => {
                // Both ways of serving equal addresses (see `SharedAtomicPasses`); which
                // one the site's instruction takes is known when the launch ends.
                let (ty, aop) = match *self.lanes[group[0]].op_ref() {
                    Op::Atomic { ty, op, .. } => (ty, op),
                    _ => unreachable!("grouped by kind"),
                };
                let popc = aop == AtomicOp::Add
                    && matches!(ty, AtomicType::U32 | AtomicType::I32)
                    && group
                        .iter()
                        .all(|&li| matches!(*self.lanes[li].op_ref(), Op::Atomic { value: 1, .. }));
                let cur = self.cur;
                if ty == AtomicType::F32 {
                    // A loop of loads and compare-and-swaps, each a warp instruction of
                    // its own, without bank conflicts of the atomic (`F32CasLoop`).
                    let lp = f32_cas_loop(&words);
                    self.shared_atomic_passes(cur).add((0, 1), (0, 1), false);
                    let c = self.c();
                    c.shared_atomic_requests += lp.rounds;
                    c.shared_load_requests += lp.rounds;
                    c.bank_conflicts += lp.load_conflicts;
                    c.max_bank_ways = c.max_bank_ways.max(lp.load_ways);
                    c.warp_instructions += 2 * lp.rounds - 1;
                    c.lane_ops += 2 * lp.lane_rounds - lanes;
                } else {
                    let combined = bank_conflicts(&mut words, false);
                    let per_lane = bank_conflicts(&mut words, true);
                    self.shared_atomic_passes(cur)
                        .add(combined, per_lane, !popc);
                    self.c().shared_atomic_requests += 1;
                }
                let c = self.c();
                c.shared_atomic_lanes += lanes - noops;
                c.shared_atomic_noop_lanes += noops;
                c.shared_atomic_addresses += n;
                c.shared_atomic_serialized += lanes - n;
                c.shared_atomic_max_depth = c.shared_atomic_max_depth.max(d);
            }
        }
        Ok(out)
    }

    fn warp(&mut self, w: usize, group: &[usize], mask: u32, site: Site) -> Results {
        let mut out = [0u128; 32];
        let lo = w * 32;
        let mut vals = [0u64; 32];
        let mut preds = 0u32;
        for &li in group {
            let lane = li - lo;
            if let Op::Warp(op) = *self.lanes[li].op_ref() {
                match op {
                    WarpOp::Ballot { pred, .. }
                    | WarpOp::All { pred, .. }
                    | WarpOp::Any { pred, .. } => preds |= (pred as u32) << lane,
                    WarpOp::MatchAny { value, .. } | WarpOp::Shuffle { value, .. } => {
                        vals[lane] = value
                    }
                    _ => {}
                }
            }
        }
        for (k, &li) in group.iter().enumerate() {
            let lane = (li - lo) as u32;
            let Op::Warp(op) = *self.lanes[li].op_ref() else {
                unreachable!("grouped by kind")
            };
            // The lanes this lane's collective covers: those of its mask in this step.
            let m = op.mask().unwrap_or(mask) & mask;
            out[k] = match op {
                WarpOp::ActiveMask => mask as u128,
                WarpOp::Ballot { .. } => (preds & m) as u128,
                WarpOp::All { .. } => (preds & m == m) as u128,
                WarpOp::Any { .. } => (preds & m != 0) as u128,
                WarpOp::MatchAny { value, .. } => Bits(m)
                    .filter(|&l| vals[l] == value)
                    .fold(0u32, |acc, l| acc | 1 << l)
                    as u128,
                WarpOp::Shuffle {
                    kind,
                    arg,
                    width,
                    value,
                    ..
                } => {
                    let width = if width.is_power_of_two() && width <= 32 {
                        width
                    } else {
                        32
                    };
                    let seg = lane & !(width - 1);
                    let src = match kind {
                        ShuffleKind::Idx => seg + (arg % width),
                        ShuffleKind::Up => {
                            if lane - seg >= arg {
                                lane - arg
                            } else {
                                lane
                            }
                        }
                        ShuffleKind::Down => {
                            if arg < width && (lane - seg) + arg < width {
                                lane + arg
                            } else {
                                lane
                            }
                        }
                        ShuffleKind::Xor => {
                            let s = lane ^ (arg & 31);
                            if s >= seg + width { lane } else { s }
                        }
                    };
                    if m & (1 << src) != 0 {
                        vals[src as usize] as u128
                    } else {
                        let t: ThreadRef = self.lanes[li].thread;
                        self.findings.shuffle_inactive(site, t, src);
                        value as u128
                    }
                }
                WarpOp::SyncWarp { .. } => 0,
            };
        }
        if let Some(Op::Warp(WarpOp::SyncWarp { .. })) =
            group.first().map(|&li| self.lanes[li].op_ref())
            && let Some(n) = self.warp_syncs.get_mut(w)
        {
            *n = n.wrapping_add(1);
        }
        self.c().warp_collectives += 1;
        out
    }
}

/// How one call site's shared atomics are served, both ways, until the launch ends and
/// says which applies. On sm_90 an integer `atomicAdd(&s[i], 1)` compiles to
/// `ATOMS.POPC.INC`, which combines the lanes of a warp on one address into one update;
/// any other integer shared atomic (`ATOMS.ADD` with a variable operand, min, max, ...)
/// serves each lane on an address in a pass of its own (the SASS of the reference kernels,
/// `notes/sass-h100-2026-11-23.md`; Nsight Compute's shared atomic bank conflicts for 9.7
/// on the H100, 20 642 on uniform bytes and 31 744 on zeros, are what this model gives).
/// The emulator sees values, not the compiled code, so it takes a site whose every
/// instruction added 1 to 32-bit integers as compiled to `POPC.INC`, and any other site as
/// not. `f32` atomics are a compare-and-swap loop with no bank conflicts of its own
/// ([`F32CasLoop`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SharedAtomicPasses {
    /// Extra passes and worst ways with equal addresses combined.
    combined: (u64, u64),
    /// Extra passes and worst ways with each lane of an address in a pass of its own.
    per_lane: (u64, u64),
    /// Did an instruction of the site do something other than add 1 to a 32-bit integer?
    not_popc: bool,
}

impl SharedAtomicPasses {
    fn add(&mut self, combined: (u64, u64), per_lane: (u64, u64), not_popc: bool) {
        self.combined.0 += combined.0;
        self.combined.1 = self.combined.1.max(combined.1);
        self.per_lane.0 += per_lane.0;
        self.per_lane.1 = self.per_lane.1.max(per_lane.1);
        self.not_popc |= not_popc;
    }

    /// The site's extra passes and worst ways, by the way its instruction serves equal
    /// addresses.
    pub(crate) fn passes(&self) -> (u64, u64) {
        if self.not_popc {
            self.per_lane
        } else {
            self.combined
        }
    }
}

/// What one warp's shared `f32` atomic add costs on sm_90, which has no such instruction:
/// `atomicAdd(&s[i], v)` compiles to a loop (`notes/sass-h100-2026-11-23.md`): `LDS` the
/// word, add, `ATOMS.CAST.SPIN` (store the sum if the word still holds what was loaded),
/// and around again for the lanes whose swap did not happen. Measured one warp at a time
/// on an H100 (`bench/atomics_probe.cu`, `notes/fidelity-h100-2026-11-24.md`):
/// in each round every bank takes the swap of its lowest waiting lane, so the rounds are
/// the most lanes any one bank has (32 for a warp on one word, and also for 32 words of
/// one bank), the `ATOMS.CAST.SPIN` itself has no bank conflicts, and each round's `LDS`
/// by the waiting lanes has the bank conflicts of a load. Other warps updating the same
/// words between a lane's load and its swap add rounds on a GPU (a timing the emulator
/// does not have): these are the rounds of the warp alone, a lower bound.
struct F32CasLoop {
    /// Rounds: `ATOMS.CAST.SPIN` and `LDS` warp instructions each.
    rounds: u64,
    /// Lanes taking part, summed over the rounds.
    lane_rounds: u64,
    /// Bank conflicts of the rounds' loads.
    load_conflicts: u64,
    /// The worst of those loads: 1 is conflict-free.
    load_ways: u64,
}

/// [`F32CasLoop`] of one instruction, from the `(phase, word)` of each lane in lane order
/// (4-byte words: one phase).
fn f32_cas_loop(words: &[(u64, u64)]) -> F32CasLoop {
    let mut lp = F32CasLoop {
        rounds: 0,
        lane_rounds: 0,
        load_conflicts: 0,
        load_ways: 1,
    };
    let mut left = words.len();
    let mut done = [false; 64];
    while left > 0 {
        lp.rounds += 1;
        lp.lane_rounds += left as u64;
        let mut load: Small<(u64, u64), 64> = Small::default();
        for (k, &w) in words.iter().enumerate() {
            if !done[k] {
                load.push(w);
            }
        }
        let (extra, ways) = bank_conflicts(&mut load, false);
        lp.load_conflicts += extra;
        lp.load_ways = lp.load_ways.max(ways);
        let mut served = 0u32;
        for (k, &(_, word)) in words.iter().enumerate() {
            let bank = 1u32 << (word % hw::SHARED_BANKS as u64);
            if !done[k] && served & bank == 0 {
                served |= bank;
                done[k] = true;
                left -= 1;
            }
        }
    }
    lp
}

/// The phase of a shared access: the hardware serves a warp's 4-byte accesses in one
/// pass, but 8-byte accesses by half-warps and 16-byte ones by quarter-warps (a pass moves
/// at most 128 bytes), so lanes of different phases never conflict.
fn phase(li: usize, size: u64) -> u64 {
    (li % hw::WARP_SIZE as usize) as u64 * size.max(4) / hw::SHARED_PASS_BYTES
}

/// Distinct words one bank may hold in [`bank_conflicts_one_phase`]'s table.
const WORDS_PER_BANK: usize = 4;

/// [`bank_conflicts`] without sorting, for the common request: one phase (4-byte
/// accesses) whose banks each see at most [`WORDS_PER_BANK`] distinct words. `None`
/// for any other request, which the sort then serves. The emulator runs this for every
/// shared access of every warp, so it is on the hot path of every shared-memory kernel.
fn bank_conflicts_one_phase(words: &[(u64, u64)], each_lane: bool) -> Option<(u64, u64)> {
    let phase = words.first()?.0;
    let mut per_bank = [0u8; hw::SHARED_BANKS as usize];
    let mut seen = [[0u64; WORDS_PER_BANK]; hw::SHARED_BANKS as usize];
    for &(p, w) in words {
        if p != phase {
            return None;
        }
        let b = (w % hw::SHARED_BANKS as u64) as usize;
        let n = per_bank[b] as usize;
        if !each_lane && seen[b][..n].contains(&w) {
            continue;
        }
        if !each_lane {
            *seen[b].get_mut(n)? = w;
        }
        per_bank[b] += 1;
    }
    let ways = per_bank.into_iter().max().unwrap_or(1).max(1) as u64;
    Some((ways - 1, ways))
}

/// Bank conflicts of one shared request over 32 banks of 4-byte words, from the
/// `(phase, word)` pairs its lanes touch: the extra passes (wavefronts) beyond one per
/// phase, and the worst conflict of a phase (the most one bank serves). Lanes on the same
/// word share it (a broadcast, or an atomic that combines them), unless `each_lane`: an
/// atomic that serves each lane on a word in a pass of its own (see `SharedAtomicPasses`).
fn bank_conflicts(words: &mut [(u64, u64)], each_lane: bool) -> (u64, u64) {
    bank_conflicts_one_phase(words, each_lane)
        .unwrap_or_else(|| bank_conflicts_sorted(words, each_lane))
}

/// [`bank_conflicts`] of any request: sorts the pairs, then counts each phase's banks.
fn bank_conflicts_sorted(words: &mut [(u64, u64)], each_lane: bool) -> (u64, u64) {
    words.sort_unstable();
    let (mut extra, mut worst) = (0, 1);
    let mut i = 0;
    while i < words.len() {
        let p = words[i].0;
        let mut per_bank = [0u64; hw::SHARED_BANKS as usize];
        let mut prev = None;
        while i < words.len() && words[i].0 == p {
            let w = words[i].1;
            if each_lane || prev != Some(w) {
                per_bank[(w % hw::SHARED_BANKS as u64) as usize] += 1;
                prev = Some(w);
            }
            i += 1;
        }
        let ways = per_bank.into_iter().max().unwrap_or(1).max(1);
        extra += ways - 1;
        worst = worst.max(ways);
    }
    (extra, worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table without a sort gives what the sort gives, on requests of every shape:
    /// random words over few and many banks, repeated words, and several phases.
    #[test]
    fn bank_conflicts_without_sorting_agree_with_the_sort() {
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut next = move || rng.next_u64();
        let mut fast = 0;
        for case in 0..20_000 {
            let lanes = 1 + (next() % 32) as usize;
            let spread = [1, 2, 8, 33, 64, 256, 4096][case % 7];
            let phases = if case % 5 == 0 { 1 + next() % 4 } else { 1 };
            let mut words: Vec<(u64, u64)> = (0..lanes)
                .map(|li| (li as u64 * phases / 32, next() % spread))
                .collect();
            for each_lane in [false, true] {
                let quick = bank_conflicts_one_phase(&words, each_lane);
                let sorted = bank_conflicts_sorted(&mut words.clone(), each_lane);
                if let Some(q) = quick {
                    fast += 1;
                    assert_eq!(q, sorted, "{words:?}, each lane: {each_lane}");
                }
                assert_eq!(bank_conflicts(&mut words, each_lane), sorted);
            }
        }
        assert!(fast > 20_000, "the fast path served only {fast} requests");
    }
}
