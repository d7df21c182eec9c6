//! Host-side launchers: upload the inputs, allocate the output, launch, download.
//!
//! One function per kernel shape. They return the launch's error unchanged (the check or
//! the progression decides what it means for the student) and never unwrap, so a stub's
//! `todo!()` or an out-of-bounds access in a student's kernel is a value, not a crash.

use crate::kernels::{HistoKernel, HistoKernelN, MapKernel, MulKernel, OutKernel};
use gpu_host::{Device, LaunchConfig, LaunchError};
use solutions::ch05::{BINS, UNWRITTEN};

/// What a launch produced ([`chapter::launch::Run`]): the output, the report and the
/// launch configuration.
pub type Run = chapter::launch::Run<u32>;

/// Blocks for one element per thread ([`chapter::launch::one_per_thread`]).
pub use chapter::launch::one_per_thread;

use chapter::launch::finish;

/// Runs `a[i] = b[i] * c[i]` (5.1, 5.3): `a` is allocated zeroed, `b.len()` long.
pub fn mul(
    dev: &mut Device,
    k: &MulKernel,
    b: &[u32],
    c: &[u32],
    cfg: LaunchConfig,
) -> Result<Run, LaunchError> {
    let db = dev.upload(b)?;
    let dc = dev.upload(c)?;
    let a = dev.alloc::<u32>(b.len())?;
    let launched = dev.launch(k, cfg, (a.slice(), db.slice(), dc.slice()));
    finish(dev, launched, a, vec![db, dc], cfg)
}

/// Runs a coordinate kernel (5.2) on an output of the launch's thread count, filled with
/// [`UNWRITTEN`] so that an element no thread writes shows.
pub fn coords(dev: &mut Device, k: &OutKernel, cfg: LaunchConfig) -> Result<Run, LaunchError> {
    let len = (cfg.blocks() * cfg.threads_per_block()) as usize;
    let out = dev.upload(&vec![UNWRITTEN; len])?;
    let launched = dev.launch(k, cfg, (out.slice(),));
    finish::<u32, u32>(dev, launched, out, vec![], cfg)
}

/// Runs a `(src, dst)` kernel (5.4, 5.5): `dst` is allocated zeroed, `src.len()` long.
pub fn map(
    dev: &mut Device,
    k: &MapKernel,
    src: &[u32],
    cfg: LaunchConfig,
) -> Result<Run, LaunchError> {
    let s = dev.upload(src)?;
    let d = dev.alloc::<u32>(src.len())?;
    let launched = dev.launch(k, cfg, (s.slice(), d.slice()));
    finish(dev, launched, d, vec![s], cfg)
}

/// Runs an in-place kernel (5.5's `smooth_in_place`) on a copy of `data`, returning it.
pub fn in_place(
    dev: &mut Device,
    k: &OutKernel,
    data: &[u32],
    cfg: LaunchConfig,
) -> Result<Run, LaunchError> {
    let d = dev.upload(data)?;
    let launched = dev.launch(k, cfg, (d.slice(),));
    finish::<u32, u32>(dev, launched, d, vec![], cfg)
}

/// Runs a byte histogram (5.6) into [`BINS`] zeroed bins.
pub fn histo(
    dev: &mut Device,
    k: &HistoKernel,
    data: &[u8],
    cfg: LaunchConfig,
) -> Result<Run, LaunchError> {
    let d = dev.upload(data)?;
    let h = dev.alloc::<u32>(BINS as usize)?;
    let launched = dev.launch(k, cfg, (d.slice(), h.slice()));
    finish(dev, launched, h, vec![d], cfg)
}

/// Runs 5.6's kernel 4 with `per_thread` words per thread into [`BINS`] zeroed bins.
pub fn histo_n(
    dev: &mut Device,
    k: &HistoKernelN,
    data: &[u8],
    per_thread: u32,
    cfg: LaunchConfig,
) -> Result<Run, LaunchError> {
    let d = dev.upload(data)?;
    let h = dev.alloc::<u32>(BINS as usize)?;
    let launched = dev.launch(k, cfg, (d.slice(), h.slice(), per_thread));
    finish(dev, launched, h, vec![d], cfg)
}

/// Blocks of 5.6's word kernels (2 and 3): one word per thread, `ceil((n / 4) / block)`,
/// at least 1 (the tail bytes need a thread even when there is no whole word).
pub fn word_grid(n: usize, block: u32) -> u32 {
    one_per_thread(n / 4, block)
}

/// Blocks of 5.6's kernel 4: `per_thread` words per thread.
pub fn word_grid_n(n: usize, block: u32, per_thread: u32) -> u32 {
    one_per_thread(n / 4, block * per_thread)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids() {
        assert_eq!(word_grid(3, 64), 1);
        assert_eq!(word_grid(4 * 129, 64), 3);
        assert_eq!(word_grid_n(4 * 1024, 64, 4), 4);
    }
}
