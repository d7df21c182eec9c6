//! The sanitizer checks: racecheck on shared memory, the global-memory race extension,
//! initcheck, and the bookkeeping that reports each problem once.
//!
//! Hazards are tracked per 4-byte word of shared memory (per element address in global
//! memory, one record per 4-byte word: see `GlobalWrites`) and only between threads of
//! *different warps* (or, in global memory, of different blocks): inside a warp, lockstep steps
//! order the accesses in this model (on a GPU since Volta they are not ordered either:
//! the book explains why `__syncwarp` exists). With [`Config::lane_hazards`] shared memory
//! is checked between the lanes of a warp too, where no `__syncwarp` of the warp stands
//! between them. Two atomics never conflict; an atomic and a plain access of another warp
//! do.
//!
//! [`Config::lane_hazards`]: crate::Config::lane_hazards
//!
//! In global memory (this project's extension), a plain load, store or atomic conflicts
//! with the last plain store to the same address when that store was made by another
//! block (blocks are unordered), or by another warp of the block since the last barrier.
//! Atomics are not remembered as stores: a plain read of a counter that other blocks
//! update atomically is not reported.

use crate::report::{Finding, ThreadRef};
use crate::site::{Site, fmt_site};
use rustc_hash::FxHashMap;

/// One access, remembered for hazard detection. Compact (16 bytes): the thread is its
/// linear index in the block, turned back into a `ThreadRef` only for a report.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    pub(crate) site: Site,
    /// Barrier interval of the block when it happened.
    pub(crate) epoch: u32,
    /// Linear thread index in the block (at most 1024).
    pub(crate) t: u16,
    pub(crate) atomic: bool,
    /// The `__syncwarp`s its warp had passed (modulo 256), to order two lanes of a warp.
    pub(crate) warp_syncs: u8,
}

// Compact: the `__syncwarp` count fits the padding.
const _: () = assert!(std::mem::size_of::<Access>() == 16);

impl Access {
    /// Warp number inside the block.
    #[inline]
    pub(crate) fn warp(&self) -> u16 {
        self.t / crate::hardware::WARP_SIZE as u16
    }

    /// Is `self` unordered with `now` (of the same barrier interval)? Another warp's
    /// access is; another lane's of the same warp only with `lanes`
    /// ([`Config::lane_hazards`](crate::Config::lane_hazards)) and no `__syncwarp` between.
    #[inline]
    fn unordered(&self, now: &Access, lanes: bool) -> bool {
        self.warp() != now.warp() || (lanes && self.t != now.t && self.warp_syncs == now.warp_syncs)
    }
}

/// Hazard state of one shared-memory word.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WordState {
    pub(crate) write: Option<Access>,
    pub(crate) read: Option<Access>,
    /// A reader from a different warp than `read`, if any.
    pub(crate) read_other: Option<Access>,
}

/// A plain global store, remembered for the global-race extension.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GlobalWrite {
    /// Linear block index.
    pub(crate) block: u64,
    pub(crate) access: Access,
}

/// The last plain store to each global address of a launch. Stored per 4-byte word in
/// pages of 1024 words, allocated when first written (a page table rather than a hash
/// map: a kernel that writes every element of its output stores once per element, and
/// this is its hot path). A slot remembers the exact address, so a store to one byte of
/// a word and a load of another byte are not taken for the same element; a later store
/// to the same word replaces the record.
#[derive(Default)]
pub(crate) struct GlobalWrites {
    index: FxHashMap<u64, usize>,
    pages: Vec<Box<[Slot; PAGE]>>,
    /// The page of the last lookup, `(page number, index in pages)`.
    last: Option<(u64, usize)>,
}

const PAGE: usize = 1024;

#[derive(Clone, Copy, Default)]
struct Slot {
    site: Option<Site>,
    /// Linear block index, truncated: blocks 2^32 apart are not told apart.
    block: u32,
    epoch: u32,
    t: u16,
    /// The address's offset in its word.
    lo: u8,
}

impl GlobalWrites {
    #[inline]
    fn page(&mut self, page: u64, create: bool) -> Option<usize> {
        if let Some((p, i)) = self.last
            && p == page
        {
            return Some(i);
        }
        let i = match self.index.get(&page) {
            Some(&i) => i,
            None if create => {
                self.pages.push(Box::new([Slot::default(); PAGE]));
                self.index.insert(page, self.pages.len() - 1);
                self.pages.len() - 1
            }
            None => return None,
        };
        self.last = Some((page, i));
        Some(i)
    }

    /// The last plain store to `addr`, if any.
    #[inline]
    pub(crate) fn get(&mut self, addr: u64) -> Option<GlobalWrite> {
        let word = addr / 4;
        let p = self.page(word / PAGE as u64, false)?;
        let slot = self.pages[p][(word % PAGE as u64) as usize];
        (slot.lo == (addr % 4) as u8)
            .then_some(slot.site)
            .flatten()
            .map(|site| GlobalWrite {
                block: slot.block as u64,
                access: Access {
                    site,
                    epoch: slot.epoch,
                    t: slot.t,
                    atomic: false,
                    warp_syncs: 0,
                },
            })
    }

    /// Records a plain store; returns the one it replaces at the same address.
    #[inline]
    pub(crate) fn insert(&mut self, addr: u64, w: GlobalWrite) -> Option<GlobalWrite> {
        let word = addr / 4;
        let p = self
            .page(word / PAGE as u64, true)
            .expect("invariant: created on demand");
        let slot = &mut self.pages[p][(word % PAGE as u64) as usize];
        let lo = (addr % 4) as u8;
        let old = slot.site.filter(|_| slot.lo == lo).map(|site| GlobalWrite {
            block: slot.block as u64,
            access: Access {
                site,
                epoch: slot.epoch,
                t: slot.t,
                atomic: false,
                warp_syncs: 0,
            },
        });
        *slot = Slot {
            site: Some(w.access.site),
            block: w.block as u32,
            epoch: w.access.epoch,
            t: w.access.t,
            lo,
        };
        old
    }
}

fn live(a: &Option<Access>, epoch: u32) -> Option<Access> {
    a.filter(|a| a.epoch == epoch)
}

impl WordState {
    /// A plain read by `now`: reports Read-after-Write against another warp's write (or,
    /// with `lanes`, another lane's).
    pub(crate) fn read(&mut self, now: Access, lanes: bool) -> Option<(&'static str, Access)> {
        let hazard = live(&self.write, now.epoch)
            .filter(|w| w.unordered(&now, lanes))
            .map(|w| ("Read-after-Write", w));
        match live(&self.read, now.epoch) {
            None => self.read = Some(now),
            Some(r) if r.unordered(&now, lanes) && live(&self.read_other, now.epoch).is_none() => {
                self.read_other = Some(now)
            }
            _ => {}
        }
        hazard
    }

    /// A write (plain or atomic) by `now`: reports Write-after-Write and Write-after-Read
    /// against other warps' accesses of the same barrier interval (or, with `lanes`, other
    /// lanes').
    pub(crate) fn write(&mut self, now: Access, lanes: bool) -> Option<(&'static str, Access)> {
        let mut hazard = None;
        if let Some(w) = live(&self.write, now.epoch)
            && w.unordered(&now, lanes)
            && !(w.atomic && now.atomic)
        {
            hazard = Some(("Write-after-Write", w));
        }
        if hazard.is_none() {
            for r in [
                live(&self.read, now.epoch),
                live(&self.read_other, now.epoch),
            ]
            .into_iter()
            .flatten()
            {
                if r.unordered(&now, lanes) && !(r.atomic && now.atomic) {
                    hazard = Some(("Write-after-Read", r));
                    break;
                }
            }
        }
        if !(now.atomic && live(&self.write, now.epoch).is_some_and(|w| !w.atomic)) {
            self.write = Some(now);
        }
        hazard
    }
}

/// Findings of a launch, each reported once with a count.
#[derive(Default)]
pub(crate) struct Findings {
    list: Vec<Finding>,
    index: FxHashMap<Key, usize>,
}

/// What makes two findings the same: their kind and the site(s) involved.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    kind: u8,
    detail: &'static str,
    first: SiteKey,
    second: SiteKey,
}

/// A site as a hash key, by value: one call site may have several `Location` statics
/// (one per codegen unit that inlined it).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct SiteKey(&'static str, u32, u32);

impl SiteKey {
    const NONE: SiteKey = SiteKey("", 0, 0);
    fn of(s: Site) -> Self {
        SiteKey(s.file(), s.line(), s.column())
    }
}

impl Findings {
    fn bump(&mut self, key: Key, make: impl FnOnce() -> Finding, add: impl FnOnce(&mut Finding)) {
        match self.index.get(&key) {
            Some(&i) => add(&mut self.list[i]),
            None => {
                self.index.insert(key, self.list.len());
                self.list.push(make());
            }
        }
    }

    pub(crate) fn shared_hazard(
        &mut self,
        kind: &'static str,
        first: (Site, ThreadRef),
        second: (Site, ThreadRef),
        offset: u64,
    ) {
        let key = Key {
            kind: 0,
            detail: kind,
            first: SiteKey::of(first.0),
            second: SiteKey::of(second.0),
        };
        self.bump(
            key,
            || Finding::SharedHazard {
                kind,
                first: (fmt_site(first.0), first.1),
                second: (fmt_site(second.0), second.1),
                offset,
                count: 1,
            },
            |f| {
                if let Finding::SharedHazard { count, .. } = f {
                    *count += 1
                }
            },
        );
    }

    pub(crate) fn global_hazard(
        &mut self,
        kind: &'static str,
        first: (Site, ThreadRef),
        second: (Site, ThreadRef),
        address: u64,
    ) {
        let key = Key {
            kind: 1,
            detail: kind,
            first: SiteKey::of(first.0),
            second: SiteKey::of(second.0),
        };
        self.bump(
            key,
            || Finding::GlobalHazard {
                kind,
                first: (fmt_site(first.0), first.1),
                second: (fmt_site(second.0), second.1),
                address,
                count: 1,
            },
            |f| {
                if let Finding::GlobalHazard { count, .. } = f {
                    *count += 1
                }
            },
        );
    }

    pub(crate) fn conflicting_stores(
        &mut self,
        space: &'static str,
        site: Site,
        example: impl FnOnce() -> String,
        lost: u64,
    ) {
        let key = Key {
            kind: 2,
            detail: space,
            first: SiteKey::of(site),
            second: SiteKey::NONE,
        };
        self.bump(
            key,
            || Finding::ConflictingStores {
                space,
                site: fmt_site(site),
                example: example(),
                steps: 1,
                lost,
            },
            |f| {
                if let Finding::ConflictingStores { steps, lost: l, .. } = f {
                    *steps += 1;
                    *l += lost;
                }
            },
        );
    }

    pub(crate) fn uninitialized(&mut self, site: Site, thread: ThreadRef, offset: u64) {
        let key = Key {
            kind: 3,
            detail: "",
            first: SiteKey::of(site),
            second: SiteKey::NONE,
        };
        self.bump(
            key,
            || Finding::UninitializedShared {
                site: fmt_site(site),
                thread,
                offset,
                count: 1,
            },
            |f| {
                if let Finding::UninitializedShared { count, .. } = f {
                    *count += 1
                }
            },
        );
    }

    pub(crate) fn shuffle_inactive(&mut self, site: Site, thread: ThreadRef, source_lane: u32) {
        let key = Key {
            kind: 4,
            detail: "",
            first: SiteKey::of(site),
            second: SiteKey::NONE,
        };
        self.bump(
            key,
            || Finding::ShuffleFromInactiveLane {
                site: fmt_site(site),
                thread,
                source_lane,
            },
            |_| {},
        );
    }

    pub(crate) fn into_vec(self) -> Vec<Finding> {
        self.list
    }
}
