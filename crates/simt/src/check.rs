//! The sanitizer checks: racecheck on shared memory, the global-memory race extension,
//! initcheck, and the bookkeeping that reports each problem once.
//!
//! Hazards are tracked per 4-byte word of shared memory (per element address in global
//! memory) and only between threads of *different warps*: inside a warp, lockstep steps
//! order the accesses in this model (on a GPU since Volta they are not ordered either:
//! the book explains why `__syncwarp` exists). Two atomics never conflict; an atomic
//! and a plain access of another warp do.

use crate::report::{Finding, ThreadRef};
use crate::site::{Site, fmt_site};
use std::collections::HashMap;

/// One access, remembered for hazard detection.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    /// Warp number inside the block.
    pub(crate) warp: u32,
    /// Barrier interval of the block when it happened.
    pub(crate) epoch: u32,
    pub(crate) thread: ThreadRef,
    pub(crate) site: Site,
    pub(crate) atomic: bool,
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

fn live(a: &Option<Access>, epoch: u32) -> Option<Access> {
    a.filter(|a| a.epoch == epoch)
}

impl WordState {
    /// A plain read by `now`: reports Read-after-Write against another warp's write.
    pub(crate) fn read(&mut self, now: Access) -> Option<(&'static str, Access)> {
        let hazard = live(&self.write, now.epoch)
            .filter(|w| w.warp != now.warp)
            .map(|w| ("Read-after-Write", w));
        match live(&self.read, now.epoch) {
            None => self.read = Some(now),
            Some(r) if r.warp != now.warp && live(&self.read_other, now.epoch).is_none() => {
                self.read_other = Some(now)
            }
            _ => {}
        }
        hazard
    }

    /// A write (plain or atomic) by `now`: reports Write-after-Write and Write-after-Read
    /// against other warps' accesses of the same barrier interval.
    pub(crate) fn write(&mut self, now: Access) -> Option<(&'static str, Access)> {
        let mut hazard = None;
        if let Some(w) = live(&self.write, now.epoch)
            && w.warp != now.warp
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
                if r.warp != now.warp && !(r.atomic && now.atomic) {
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
    index: HashMap<(u8, usize, usize, u32, u32), usize>,
}

fn key_of(s: Site) -> (usize, u32) {
    (s.file().as_ptr() as usize ^ s.line() as usize, s.column())
}

impl Findings {
    fn bump(
        &mut self,
        key: (u8, usize, usize, u32, u32),
        make: impl FnOnce() -> Finding,
        add: impl FnOnce(&mut Finding),
    ) {
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
        first: Access,
        second: Access,
        offset: u64,
    ) {
        let (a, ac) = key_of(first.site);
        let (b, bc) = key_of(second.site);
        self.bump(
            (0, a, b, ac, bc ^ kind.len() as u32),
            || Finding::SharedHazard {
                kind,
                first: (fmt_site(first.site), first.thread),
                second: (fmt_site(second.site), second.thread),
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
        first: Access,
        second: Access,
        address: u64,
    ) {
        let (a, ac) = key_of(first.site);
        let (b, bc) = key_of(second.site);
        self.bump(
            (1, a, b, ac, bc ^ kind.len() as u32),
            || Finding::GlobalHazard {
                kind,
                first: (fmt_site(first.site), first.thread),
                second: (fmt_site(second.site), second.thread),
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
        let (a, ac) = key_of(site);
        self.bump(
            (2, a, space.len(), ac, 0),
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
        let (a, ac) = key_of(site);
        self.bump(
            (3, a, 0, ac, 0),
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
        let (a, ac) = key_of(site);
        self.bump(
            (4, a, 0, ac, 0),
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
