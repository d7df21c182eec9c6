//! Executing one warp instruction: memory effects, counters and checks of a step.

use crate::check::{Access, GlobalWrite};
use crate::memory::{read_le, write_le};
use crate::op::{AtomicOp, AtomicType, Op, ShuffleKind, Space, WarpOp};
use crate::report::{LaunchError, ThreadRef, ranges};
use crate::schedule::{Exec, bits};
use crate::site::{Site, fmt_site};

/// Results of one step, by position in the group.
pub(crate) type Results = [u128; 32];

/// Number of distinct values in a small list (sorts it).
fn distinct(v: &mut [u64]) -> u64 {
    v.sort_unstable();
    let mut n = 0;
    for i in 0..v.len() {
        if i == 0 || v[i] != v[i - 1] {
            n += 1;
        }
    }
    n
}

/// Most repeats of one value in a small list (sorts it).
fn depth(v: &mut [u64]) -> u64 {
    v.sort_unstable();
    let (mut best, mut run) = (0, 0);
    for i in 0..v.len() {
        run = if i > 0 && v[i] == v[i - 1] {
            run + 1
        } else {
            1
        };
        best = best.max(run);
    }
    best
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
    fn access(&self, li: usize, site: Site, atomic: bool) -> Access {
        Access {
            warp: Self::warp_of(li),
            epoch: self.bar_epoch,
            thread: self.lanes[li].thread,
            site,
            atomic,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn fault(
        &self,
        kind: &'static str,
        op: &Op,
        li: usize,
        site: Site,
        index: u64,
        len: u64,
        address: u64,
    ) -> LaunchError {
        LaunchError::MemoryFault {
            kind,
            access: op.describe(),
            thread: self.lanes[li].thread,
            site: fmt_site(site),
            index,
            len,
            address,
        }
    }

    /// Checks bounds and alignment; returns the global address or shared offset.
    #[allow(clippy::too_many_arguments)]
    fn address(
        &self,
        op: &Op,
        li: usize,
        site: Site,
        base: u64,
        index: u64,
        len: u64,
        size: u64,
    ) -> Result<u64, LaunchError> {
        let addr = base.wrapping_add(index.wrapping_mul(size));
        if index >= len {
            return Err(self.fault("out of bounds", op, li, site, index, len, addr));
        }
        if addr % size != 0 {
            return Err(self.fault("misaligned", op, li, site, index, len, addr));
        }
        Ok(addr)
    }

    /// Checks that `off..off+size` lies in the block's shared memory.
    fn shared_range(
        &self,
        op: &Op,
        li: usize,
        site: Site,
        index: u64,
        len: u64,
        off: u64,
        size: u64,
    ) -> Result<usize, LaunchError> {
        if off + size > self.shared.bytes.len() as u64 {
            return Err(self.fault("out of bounds", op, li, site, index, len, off));
        }
        Ok(off as usize)
    }

    /// Executes the operation the lanes of `group` are parked at.
    pub(crate) fn exec_op(
        &mut self,
        w: usize,
        group: &[usize],
        mask: u32,
        site: Site,
    ) -> Result<Results, LaunchError> {
        let first = self.lanes[group[0]].op();
        match first {
            Op::Load { space, .. } => self.load(group, site, space),
            Op::Store { space, .. } => self.store(w, group, site, space),
            Op::Atomic { space, .. } => self.atomic(group, site, space),
            Op::Warp(_) => Ok(self.warp(w, group, mask, site)),
            Op::Barrier => unreachable!("barriers are released by the block, not stepped"),
        }
    }

    fn load(&mut self, group: &[usize], site: Site, space: Space) -> Result<Results, LaunchError> {
        let mut out = [0u128; 32];
        let mut sectors: Vec<u64> = Vec::with_capacity(64);
        let mut words: Vec<u64> = Vec::with_capacity(64);
        for (k, &li) in group.iter().enumerate() {
            let op = self.lanes[li].op();
            let Op::Load {
                base,
                index,
                len,
                size,
                ..
            } = op
            else {
                unreachable!("grouped by kind")
            };
            let size = size as u64;
            let addr = self.address(&op, li, site, base, index, len, size)?;
            match space {
                Space::Global => {
                    let Some((alloc, off)) = self.mem.locate(addr, size) else {
                        return Err(self.fault("out of bounds", &op, li, site, index, len, addr));
                    };
                    out[k] = read_le(&alloc.bytes, off, size as usize);
                    let stored = alloc.stored;
                    if stored && let Some(wr) = self.global_writes.get(&addr).copied() {
                        let now = self.access(li, site, false);
                        if self.global_conflict(&wr, &now) {
                            self.findings
                                .global_hazard("Read-after-Write", wr.access, now, addr);
                        }
                    }
                    for s in addr / 32..=(addr + size - 1) / 32 {
                        sectors.push(s);
                    }
                }
                Space::Shared => {
                    let off = self.shared_range(&op, li, site, index, len, addr, size)?;
                    out[k] = read_le(&self.shared.bytes, off, size as usize);
                    if self.shared.written[off..off + size as usize]
                        .iter()
                        .any(|w| !w)
                    {
                        let t = self.lanes[li].thread;
                        self.findings.uninitialized(site, t, addr);
                    }
                    let now = self.access(li, site, false);
                    for word in addr / 4..=(addr + size - 1) / 4 {
                        if let Some((kind, earlier)) = self.shared_words[word as usize].read(now) {
                            self.findings.shared_hazard(kind, earlier, now, word * 4);
                        }
                        words.push(word);
                    }
                }
            }
        }
        match space {
            Space::Global => {
                let n = distinct(&mut sectors);
                let c = self.counters(site);
                c.global_load_requests += 1;
                c.global_load_sectors += n;
            }
            Space::Shared => {
                let ways = bank_ways(&mut words);
                let c = self.counters(site);
                c.shared_load_requests += 1;
                c.bank_conflicts += ways - 1;
                c.max_bank_ways = c.max_bank_ways.max(ways);
            }
        }
        Ok(out)
    }

    /// Do a remembered global store and a new access by another thread conflict?
    fn global_conflict(&self, wr: &GlobalWrite, now: &Access) -> bool {
        wr.block != self.block_linear
            || (wr.access.warp != now.warp && wr.access.epoch == now.epoch)
    }

    fn store(
        &mut self,
        w: usize,
        group: &[usize],
        site: Site,
        space: Space,
    ) -> Result<Results, LaunchError> {
        let mut sectors: Vec<u64> = Vec::with_capacity(64);
        let mut words: Vec<u64> = Vec::with_capacity(64);
        let mut addrs: Vec<(u64, usize, u128)> = Vec::with_capacity(32);
        for &li in group {
            let op = self.lanes[li].op();
            let Op::Store {
                base,
                index,
                len,
                size,
                value,
                ..
            } = op
            else {
                unreachable!("grouped by kind")
            };
            let size = size as u64;
            let addr = self.address(&op, li, site, base, index, len, size)?;
            let now = self.access(li, site, false);
            match space {
                Space::Global => {
                    let Some((alloc, off)) = self.mem.locate(addr, size) else {
                        return Err(self.fault("out of bounds", &op, li, site, index, len, addr));
                    };
                    write_le(&mut alloc.bytes, off, size as usize, value);
                    alloc.stored = true;
                    if let Some(wr) = self.global_writes.get(&addr).copied()
                        && self.global_conflict(&wr, &now)
                        && !(wr.block == self.block_linear
                            && wr.access.warp == now.warp
                            && wr.access.epoch == now.epoch)
                    {
                        self.findings
                            .global_hazard("Write-after-Write", wr.access, now, addr);
                    }
                    self.global_writes.insert(
                        addr,
                        GlobalWrite {
                            block: self.block_linear,
                            access: now,
                        },
                    );
                    for s in addr / 32..=(addr + size - 1) / 32 {
                        sectors.push(s);
                    }
                }
                Space::Shared => {
                    let off = self.shared_range(&op, li, site, index, len, addr, size)?;
                    write_le(&mut self.shared.bytes, off, size as usize, value);
                    self.shared.written[off..off + size as usize].fill(true);
                    for word in addr / 4..=(addr + size - 1) / 4 {
                        if let Some((kind, earlier)) = self.shared_words[word as usize].write(now) {
                            self.findings.shared_hazard(kind, earlier, now, word * 4);
                        }
                        words.push(word);
                    }
                }
            }
            addrs.push((addr, li, value));
        }
        // Lanes that stored to one address in this step: the highest lane won.
        addrs.sort_by_key(|a| (a.0, a.1));
        let mut lost = 0;
        let mut i = 0;
        while i < addrs.len() {
            let mut j = i + 1;
            while j < addrs.len() && addrs[j].0 == addrs[i].0 {
                j += 1;
            }
            if j - i > 1 {
                lost += (j - i - 1) as u64;
                let run = addrs[i..j].to_vec();
                let block = self.lanes[run[0].1].thread.block;
                let space_name = space.cuda_name();
                self.findings.conflicting_stores(
                    space_name,
                    site,
                    || {
                        let lanes: Vec<u32> = run.iter().map(|r| (r.1 % 32) as u32).collect();
                        let mut values: Vec<u128> = run.iter().map(|r| r.2).collect();
                        values.dedup();
                        let vals = if values.len() == 1 {
                            format!("all stored {}", values[0])
                        } else {
                            format!("stored {}", values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
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
        let c = self.counters(site);
        c.overwritten_stores += lost;
        match space {
            Space::Global => {
                let n = distinct(&mut sectors);
                let c = self.counters(site);
                c.global_store_requests += 1;
                c.global_store_sectors += n;
            }
            Space::Shared => {
                let ways = bank_ways(&mut words);
                let c = self.counters(site);
                c.shared_store_requests += 1;
                c.bank_conflicts += ways - 1;
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
        let mut addrs: Vec<u64> = Vec::with_capacity(32);
        let mut cas_failures = 0;
        for (k, &li) in group.iter().enumerate() {
            let op = self.lanes[li].op();
            let Op::Atomic {
                base,
                index,
                len,
                ty,
                op: aop,
                value,
                compare,
                ..
            } = op
            else {
                unreachable!("grouped by kind")
            };
            let size = ty.size() as u64;
            let addr = self.address(&op, li, site, base, index, len, size)?;
            let now = self.access(li, site, true);
            let (old, failed) = match space {
                Space::Global => {
                    let Some((alloc, off)) = self.mem.locate(addr, size) else {
                        return Err(self.fault("out of bounds", &op, li, site, index, len, addr));
                    };
                    let old = read_le(&alloc.bytes, off, size as usize) as u64;
                    let (new, failed) = apply(ty, aop, old, value, compare);
                    write_le(&mut alloc.bytes, off, size as usize, new as u128);
                    if alloc.stored
                        && let Some(wr) = self.global_writes.get(&addr).copied()
                        && self.global_conflict(&wr, &now)
                    {
                        self.findings
                            .global_hazard("Write-after-Write", wr.access, now, addr);
                    }
                    (old, failed)
                }
                Space::Shared => {
                    let off = self.shared_range(&op, li, site, index, len, addr, size)?;
                    if self.shared.written[off..off + size as usize]
                        .iter()
                        .any(|w| !w)
                    {
                        let t = self.lanes[li].thread;
                        self.findings.uninitialized(site, t, addr);
                    }
                    let old = read_le(&self.shared.bytes, off, size as usize) as u64;
                    let (new, failed) = apply(ty, aop, old, value, compare);
                    write_le(&mut self.shared.bytes, off, size as usize, new as u128);
                    self.shared.written[off..off + size as usize].fill(true);
                    for word in addr / 4..=(addr + size - 1) / 4 {
                        if let Some((kind, earlier)) = self.shared_words[word as usize].write(now) {
                            self.findings.shared_hazard(kind, earlier, now, word * 4);
                        }
                    }
                    (old, failed)
                }
            };
            if failed {
                cas_failures += 1;
            }
            out[k] = old as u128;
            addrs.push(addr);
        }
        let lanes = addrs.len() as u64;
        let d = depth(&mut addrs.clone());
        let n = distinct(&mut addrs);
        let c = self.counters(site);
        c.cas_failures += cas_failures;
        match space {
            Space::Global => {
                c.global_atomic_requests += 1;
                c.global_atomic_lanes += lanes;
                c.global_atomic_addresses += n;
                c.global_atomic_serialized += lanes - n;
                c.global_atomic_max_depth = c.global_atomic_max_depth.max(d);
            }
            Space::Shared => {
                c.shared_atomic_requests += 1;
                c.shared_atomic_lanes += lanes;
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
            if let Op::Warp(op) = self.lanes[li].op() {
                match op {
                    WarpOp::Ballot { pred, .. }
                    | WarpOp::All { pred, .. }
                    | WarpOp::Any { pred, .. } => {
                        if pred {
                            preds |= 1 << lane
                        }
                    }
                    WarpOp::MatchAny { value, .. } | WarpOp::Shuffle { value, .. } => {
                        vals[lane] = value
                    }
                    _ => {}
                }
            }
        }
        for (k, &li) in group.iter().enumerate() {
            let lane = (li - lo) as u32;
            let Op::Warp(op) = self.lanes[li].op() else {
                unreachable!("grouped by kind")
            };
            out[k] = match op {
                WarpOp::ActiveMask => mask as u128,
                WarpOp::Ballot { .. } => preds as u128,
                WarpOp::All { .. } => (preds == mask) as u128,
                WarpOp::Any { .. } => (preds != 0) as u128,
                WarpOp::MatchAny { value, .. } => bits(mask)
                    .into_iter()
                    .filter(|&l| vals[l as usize] == value)
                    .fold(0u32, |m, l| m | 1 << l)
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
                            if (lane - seg) + arg < width {
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
                    if mask & (1 << src) != 0 {
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
        self.counters(site).warp_collectives += 1;
        out
    }
}

/// The worst bank conflict of one shared request over 32 banks of 4-byte words: the most
/// distinct words one bank serves. Lanes on the same word share it (broadcast).
fn bank_ways(words: &mut Vec<u64>) -> u64 {
    words.sort_unstable();
    words.dedup();
    let mut per_bank = [0u64; 32];
    for w in words.iter() {
        per_bank[(w % 32) as usize] += 1;
    }
    per_bank.into_iter().max().unwrap_or(0).max(1)
}
