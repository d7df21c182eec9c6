//! Where a lane is in the kernel's loops, so that diverged lanes of a warp rejoin as a
//! GPU's reconvergence points would make them.
//!
//! The emulator sees only the call sites of device operations, not the kernel's control
//! flow. It learns loops from what lanes do: a lane that parks at a site at or before the
//! site it just left has jumped back, so that site is the head of a loop, and the site it
//! came from is inside the loop (the furthest such site is the loop's known end). Each
//! lane keeps a small stack of the loops it is in, outermost first, with its iteration
//! count in each.
//!
//! Positions are ordered as structured code runs them: in the same loop, the earlier
//! iteration first (so the `if lane == leader { atomic }` of a loop body finishes before
//! the other lanes start the next iteration, and lanes in a data-dependent inner loop
//! finish it before the others start the next outer iteration); a lane in a loop nested
//! in another's body that it has not looped yet is behind; otherwise the earlier site
//! first.
//!
//! What it cannot see: where a loop *ends*. A lane that leaves a loop cannot be told from
//! one that went forward into a branch of the body until it is too late, so lanes that
//! leave a loop early run the code after it before the lanes still looping (a GPU would
//! hold them at the loop's exit). Results are the same; the counters show the code after
//! the loop issued in more than one instruction. Since Volta's independent thread
//! scheduling this is also what a GPU may do, and it keeps a lane spinning on a flag from
//! starving the lane of its warp that would set it.

use crate::site::{Site, site_order};
use rustc_hash::FxHashMap;
use std::cmp::Ordering;

/// Loops nested deeper than this are tracked as the innermost four.
const DEPTH: usize = 4;

/// A site's identity: its address. Sites are interned, one per `file:line:column` for
/// the process ([`crate::site::intern`]), however the compiler merged `Location` statics,
/// so the address names exactly one place in one file (two files' sites at the same line
/// and column are two keys) and the learned loops are the same on every platform. The
/// map is only looked up, never iterated, so addresses do not order anything.
fn key(s: Site) -> usize {
    s as *const crate::site::SiteInfo as usize
}

fn same(a: Site, b: Site) -> bool {
    std::ptr::eq(a, b) || site_order(a, b) == Ordering::Equal
}

/// The furthest site seen inside each loop, by head: learned over the whole launch.
#[derive(Default)]
pub(crate) struct LoopEnds(FxHashMap<usize, Site>);

impl LoopEnds {
    /// A lane jumped back from `from` to `head`.
    fn learn(&mut self, head: Site, from: Site) {
        let e = self.0.entry(key(head)).or_insert(from);
        if site_order(from, e) == Ordering::Greater {
            *e = from;
        }
    }

    pub(crate) fn end(&self, head: Site) -> Option<Site> {
        self.0.get(&key(head)).copied()
    }
}

/// The loops a lane is in, outermost first, with its iteration in each.
#[derive(Clone, Copy, Default)]
pub(crate) struct LoopStack {
    len: usize,
    heads: [Option<Site>; DEPTH],
    counts: [u32; DEPTH],
}

impl LoopStack {
    /// The same loops at the same iterations as `other` (loop heads compared as the
    /// interned sites they are): two lanes whose stacks are the same and which are parked
    /// at the same site are level, [`behind`] neither way.
    #[inline]
    pub(crate) fn same_as(&self, other: &LoopStack) -> bool {
        self.len == other.len
            && self.counts[..self.len] == other.counts[..other.len]
            && self.heads[..self.len]
                .iter()
                .zip(&other.heads[..other.len])
                .all(|(a, b)| match (a, b) {
                    (Some(a), Some(b)) => std::ptr::eq(*a, *b),
                    (None, None) => true,
                    _ => false,
                })
    }

    /// The innermost loop the lane is in, with its iteration of it (counted from 1).
    pub(crate) fn innermost(&self) -> Option<(Site, u32)> {
        self.top().map(|h| (h, self.counts[self.len - 1] + 1))
    }

    fn top(&self) -> Option<Site> {
        if self.len == 0 {
            None
        } else {
            self.heads[self.len - 1]
        }
    }

    fn frame(&self, i: usize) -> Option<(Site, u32)> {
        if i < self.len {
            self.heads[i].map(|h| (h, self.counts[i]))
        } else {
            None
        }
    }

    /// The lane moved from `prev` to `next`: a jump back is a loop iteration.
    pub(crate) fn moved(&mut self, prev: Site, next: Site, ends: &mut LoopEnds) {
        if !(std::ptr::eq(next, prev) || site_order(next, prev) != Ordering::Greater) {
            return;
        }
        ends.learn(next, prev);
        // Loops nested inside the one jumped to are left behind.
        while let Some(t) = self.top() {
            if site_order(t, next) == Ordering::Greater {
                self.len -= 1;
            } else {
                break;
            }
        }
        match self.top() {
            Some(t) if same(t, next) => self.counts[self.len - 1] += 1,
            _ => {
                if self.len == DEPTH {
                    self.heads.copy_within(1.., 0);
                    self.counts.copy_within(1.., 0);
                    self.len -= 1;
                }
                self.heads[self.len] = Some(next);
                self.counts[self.len] = 1;
                self.len += 1;
            }
        }
    }
}

/// Is `site` in the body of the loop at `head` (after it, up to its known end)?
fn inside(site: Site, head: Site, ends: &LoopEnds) -> bool {
    site_order(site, head) == Ordering::Greater
        && ends
            .end(head)
            .is_some_and(|end| site_order(site, end) != Ordering::Greater)
}

/// Which of two lanes of a warp is behind (and so executes first): `Less` when the lane
/// at `xs` with loops `x` goes before the lane at `ys` with loops `y`.
pub(crate) fn behind(
    x: &LoopStack,
    xs: Site,
    y: &LoopStack,
    ys: Site,
    ends: &LoopEnds,
) -> Ordering {
    let mut i = 0;
    loop {
        match (x.frame(i), y.frame(i)) {
            (Some((hx, cx)), Some((hy, cy))) => {
                if !same(hx, hy) {
                    // A loop inside the other's body: its lane has not looped the outer
                    // loop yet (iteration 0 of it), so it is behind. Otherwise they are
                    // sibling loops: the earlier one runs first.
                    if inside(hx, hy, ends) {
                        return Ordering::Less;
                    }
                    if inside(hy, hx, ends) {
                        return Ordering::Greater;
                    }
                    return site_order(hx, hy);
                }
                if cx != cy {
                    return cx.cmp(&cy);
                }
                i += 1;
            }
            // A lane in no (further) loop has not looped yet: it is behind.
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (None, None) => {
                return if std::ptr::eq(xs, ys) {
                    Ordering::Equal
                } else {
                    site_order(xs, ys)
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::intern;

    #[test]
    fn loops_of_two_files_at_the_same_place_are_two_loops() {
        // Same line, same column, file names of the same length: one key before.
        let (head_a, body_a) = (intern("src/a.rs", 10, 5), intern("src/a.rs", 12, 9));
        let head_b = intern("src/b.rs", 10, 5);
        let mut ends = LoopEnds::default();
        ends.learn(head_a, body_a);
        assert!(std::ptr::eq(ends.end(head_a).unwrap(), body_a));
        assert!(ends.end(head_b).is_none());
        // The same place interned again is the same loop.
        assert!(ends.end(intern("src/a.rs", 10, 5)).is_some());
    }
}
