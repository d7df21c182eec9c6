//! Call sites: where in the kernel's source a lane parked.

use crate::hash::FxHashMap;
use std::panic::Location;

/// A kernel call site, as `#[track_caller]` gives it.
pub(crate) type Site = &'static Location<'static>;

/// Source order of two sites: line, then column, then file. Deterministic on every OS
/// (no pointer comparisons), and within one function it is the order of the code.
pub(crate) fn site_order(a: Site, b: Site) -> std::cmp::Ordering {
    (a.line(), a.column(), a.file()).cmp(&(b.line(), b.column(), b.file()))
}

/// Interns sites to small ids, for per-site counters. Looked up by the `Location`'s
/// address first (one static per call site, usually), then by value, so that two statics
/// of one site (from two codegen units) share an id.
#[derive(Default)]
pub(crate) struct SiteTable {
    by_ptr: FxHashMap<usize, u32>,
    by_value: FxHashMap<(&'static str, u32, u32), u32>,
    sites: Vec<Site>,
}

impl SiteTable {
    /// The id of `site`, allocated on first use.
    pub(crate) fn id(&mut self, site: Site) -> u32 {
        let ptr = site as *const _ as usize;
        if let Some(&id) = self.by_ptr.get(&ptr) {
            return id;
        }
        let next = self.sites.len() as u32;
        let id = *self
            .by_value
            .entry((site.file(), site.line(), site.column()))
            .or_insert(next);
        if id == next {
            self.sites.push(site);
        }
        self.by_ptr.insert(ptr, id);
        id
    }

    /// The site of an id.
    pub(crate) fn site(&self, id: u32) -> Site {
        self.sites[id as usize]
    }

    /// How many sites are known.
    pub(crate) fn len(&self) -> usize {
        self.sites.len()
    }
}

/// `file:line:column`, the way compilers print a location.
pub(crate) fn fmt_site(site: Site) -> String {
    format!("{}:{}:{}", site.file(), site.line(), site.column())
}
