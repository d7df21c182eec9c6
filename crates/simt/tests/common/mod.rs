//! Helpers shared by the emulator's integration tests: finding kernel source lines by a
//! marker comment (so assertions survive edits), and launching with a tight config.
#![allow(dead_code)]

use gpu_host::{Config, Device, LaunchReport};
use std::time::Duration;

/// A test file's own source, to find the lines its kernels run on.
pub struct Src {
    /// `file!()` of the test file, as the compiler names it in sites.
    pub file: &'static str,
    /// `include_str!` of the same file.
    pub text: &'static str,
}

/// `Src` of the calling test file: `src!("barriers.rs")`.
#[macro_export]
macro_rules! src {
    ($name:literal) => {
        common::Src {
            file: file!(),
            text: include_str!($name),
        }
    };
}

impl Src {
    /// The 1-based line that ends with the comment `// @marker` (exactly one must).
    pub fn line(&self, marker: &str) -> u32 {
        let tag = format!("// @{marker}");
        let hits: Vec<usize> = self
            .text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_end().ends_with(&tag))
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(hits.len(), 1, "marker {tag} must be on exactly one line");
        hits[0] as u32
    }

    /// The site `file:line:column` of the call of `callee` (`"store"`, `"sync_threads"`,
    /// ...) on the line marked `marker`: the column is where the callee's name starts
    /// for a method call, where the path starts for a function call, as `#[track_caller]`
    /// reports them.
    pub fn site(&self, marker: &str, call: &str) -> String {
        let line = self.line(marker);
        let text = self
            .text
            .lines()
            .nth(line as usize - 1)
            .expect("line exists");
        let col = text
            .find(call)
            .unwrap_or_else(|| panic!("`{call}` not on line {line}: {text}"));
        format!("{}:{line}:{}", self.file, col + 1)
    }
}

/// An emulator that runs launches on the calling thread (no watchdog thread), with a
/// small step budget, so a test of a broken kernel ends quickly.
pub fn device() -> Device {
    Device::emulator_with(Config {
        watchdog: None,
        step_budget: 2_000_000,
        ..Config::default()
    })
}

/// As [`device`], with a watchdog of `secs` seconds.
pub fn device_with_watchdog(secs: u64) -> Device {
    Device::emulator_with(Config {
        watchdog: Some(Duration::from_secs(secs)),
        step_budget: 2_000_000,
        ..Config::default()
    })
}

/// The emulator's report of a launch.
pub fn emu(r: &LaunchReport) -> &simt::LaunchReport {
    r.emulator
        .as_ref()
        .expect("an emulated launch has a report")
}

/// A privatized histogram of 8 bins, small enough to follow by hand: each thread counts
/// its element in a shared bin, then threads 0..8 commit one global atomic per bin and
/// block (the traces' and flows' tests).
#[gpu::kernel]
pub fn private_histo(data: gpu::GlobalSlice<u32>, histo: gpu::GlobalSlice<u32>) {
    use gpu::prelude::*;
    let s = shared_array![u32; 8];
    let t = thread::thread_idx_x();
    if t < 8 {
        s.store(t, 0);
    }
    thread::sync_threads();
    let i = thread::index_1d();
    if i < data.len() {
        s.atomic_add(data.load(i) % 8, 1);
    }
    thread::sync_threads();
    if t < 8 {
        histo.atomic_add(t, s.load(t));
    }
}

/// Each thread adds one to `out[t]` `n` times, a load and a store each time: a launch
/// whose length in warp steps is `2 n` per warp (the meter's and the watchdog's tests).
#[gpu::kernel]
pub fn reread(out: gpu::GlobalSlice<u32>, n: u32) {
    use gpu::prelude::*;
    let t = thread::thread_idx_x();
    let mut i = 0;
    while i < n {
        out.store(t, out.load(t) + 1);
        i += 1;
    }
}
