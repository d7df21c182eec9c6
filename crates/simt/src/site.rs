//! Call sites: where in the kernel's source a lane parked.
//!
//! A site is interned once per distinct `file:line:column` and lives for the rest of the
//! process, so the scheduler compares and hashes sites as pointers. Native lanes (the
//! emulator's own tests) get theirs from `#[track_caller]`'s [`Location`]; sandboxed lanes
//! (WebAssembly, see [`crate::wasm`]) pass the file, line and column of their
//! `#[track_caller]` location with every device call, and the same interner turns them
//! into the same sites, so a kernel's counters per line do not depend on how it ran.

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::panic::Location;
use std::sync::{Mutex, OnceLock};

/// Where a device call is in the kernel's source: a file, a line and a column, as
/// compilers print them.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SiteInfo {
    file: &'static str,
    line: u32,
    column: u32,
}

impl SiteInfo {
    /// The source file, as rustc was given it (relative to the workspace).
    pub fn file(&self) -> &'static str {
        self.file
    }
    /// The line, from 1.
    pub fn line(&self) -> u32 {
        self.line
    }
    /// The column, from 1.
    pub fn column(&self) -> u32 {
        self.column
    }
}

/// A kernel call site.
pub(crate) type Site = &'static SiteInfo;

type Key = (String, u32, u32);

fn interner() -> &'static Mutex<FxHashMap<Key, Site>> {
    static SITES: OnceLock<Mutex<FxHashMap<Key, Site>>> = OnceLock::new();
    SITES.get_or_init(Default::default)
}

/// The one site of `file:line:column` (allocated on first use, then shared).
pub fn intern(file: &str, line: u32, column: u32) -> Site {
    let mut sites = interner().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&s) = sites.get(&(file.to_string(), line, column)) {
        return s;
    }
    let file: &'static str = Box::leak(file.to_string().into_boxed_str());
    let site: Site = Box::leak(Box::new(SiteInfo { file, line, column }));
    sites.insert((file.to_string(), line, column), site);
    site
}

thread_local! {
    /// Sites of native `Location`s already interned, by the `Location`'s address.
    static BY_LOCATION: RefCell<FxHashMap<usize, Site>> = RefCell::new(FxHashMap::default());
}

/// The site of a native `#[track_caller]` location.
#[inline]
pub(crate) fn of_location(loc: &'static Location<'static>) -> Site {
    let key = loc as *const _ as usize;
    BY_LOCATION.with(|m| {
        if let Some(&s) = m.borrow().get(&key) {
            return s;
        }
        let s = intern(loc.file(), loc.line(), loc.column());
        m.borrow_mut().insert(key, s);
        s
    })
}

/// Source order of two sites: line, then column, then file. Deterministic on every OS
/// (no pointer comparisons), and within one function it is the order of the code.
///
/// Sites are interned, so one pointer is one site: the same pointer is `Equal` without
/// comparing file names (the scheduler asks this of every lane at every step).
#[inline]
pub(crate) fn site_order(a: Site, b: Site) -> std::cmp::Ordering {
    if std::ptr::eq(a, b) {
        return std::cmp::Ordering::Equal;
    }
    (a.line(), a.column(), a.file()).cmp(&(b.line(), b.column(), b.file()))
}

/// Interns sites to small ids, for per-site counters.
#[derive(Default)]
pub(crate) struct SiteTable {
    by_ptr: FxHashMap<usize, u32>,
    sites: Vec<Site>,
}

impl SiteTable {
    /// The id of `site`, allocated on first use.
    pub(crate) fn id(&mut self, site: Site) -> u32 {
        let ptr = site as *const _ as usize;
        if let Some(&id) = self.by_ptr.get(&ptr) {
            return id;
        }
        let id = self.sites.len() as u32;
        self.sites.push(site);
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
