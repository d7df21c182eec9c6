//! Host-side launchers: upload the inputs, allocate the output, launch, download.
//!
//! One function per kernel shape. They return the launch's error unchanged (the check or
//! the progression decides what it means for the student) and never unwrap, so a stub's
//! `todo!()` or an out-of-bounds access in a student's kernel is a value, not a crash.

use crate::kernels::{HistoKernel, HistoKernelN, MapKernel, MulKernel, OutKernel};
use gpu_host::{Device, DeviceBuffer, DeviceValue, LaunchConfig, LaunchError, LaunchReport};
use solutions::ch05::{BINS, UNWRITTEN};

/// What a launch produced: the output, the report (counters on the emulator, the time on
/// a GPU) and the launch configuration.
#[derive(Clone, Debug)]
pub struct Run {
    /// The downloaded output buffer.
    pub out: Vec<u32>,
    /// The launch's report.
    pub report: LaunchReport,
    /// Blocks launched (all dimensions multiplied).
    pub grid: u32,
    /// Threads per block (all dimensions multiplied).
    pub block: u32,
    /// Device address of the output buffer, to tell its atomics apart in the report's
    /// flow.
    pub output_addr: u64,
    /// Device addresses of the input buffers, in the kernel's argument order.
    pub input_addrs: Vec<u64>,
}

impl chapter::checking::Launched for Run {
    type Item = u32;
    fn report(&self) -> &LaunchReport {
        &self.report
    }
    fn output(&self) -> &[u32] {
        &self.out
    }
}

/// Blocks for one element per thread ([`chapter::launch::one_per_thread`]).
pub use chapter::launch::one_per_thread;

/// Downloads `out` after a launch and frees the buffers
/// ([`chapter::launch::download_and_free`]): the run of `cfg`.
fn finish<I: DeviceValue>(
    dev: &mut Device,
    launched: Result<LaunchReport, LaunchError>,
    out: DeviceBuffer<u32>,
    inputs: Vec<DeviceBuffer<I>>,
    cfg: LaunchConfig,
) -> Result<Run, LaunchError> {
    let output_addr = out.slice().addr();
    let input_addrs = inputs.iter().map(|b| b.slice().addr()).collect();
    let (out, report) = chapter::launch::download_and_free(dev, launched, out, inputs)?;
    Ok(Run {
        out,
        report,
        grid: cfg.blocks() as u32,
        block: cfg.threads_per_block() as u32,
        output_addr,
        input_addrs,
    })
}

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
    finish::<u32>(dev, launched, out, vec![], cfg)
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
    finish::<u32>(dev, launched, d, vec![], cfg)
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
