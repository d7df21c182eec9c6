//! Host-side launchers: upload the input, zero the sum, launch, download.
//!
//! They return the launch's error unchanged (the check or the progression decides what it
//! means for the student) and never unwrap, so a stub's `todo!()` or a fault in a
//! student's kernel is a value, not a crash.

use crate::kernels::{CoarsenedKernel, SumF32Kernel, SumKernel};
use gpu_host::{Device, DeviceValue, LaunchConfig, LaunchError, LaunchReport};

/// What a launch produced: the sum, the report (counters on the emulator) and the
/// configuration it ran with.
#[derive(Clone, Debug)]
pub struct Run<T> {
    /// The downloaded output: one element, the sum.
    pub sum: Vec<T>,
    /// The launch's report: counters and findings on the emulator, time on a GPU.
    pub report: LaunchReport,
    /// Blocks launched.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Device address of the output, to tell its atomics apart in the report's flow.
    pub output_addr: u64,
    /// Device address of the input.
    pub input_addr: u64,
}

impl<T> Run<T> {
    /// The downloaded sum.
    pub fn value(&self) -> Option<&T> {
        self.sum.first()
    }
}

impl<T: std::fmt::Display> chapter::checking::Launched for Run<T> {
    type Item = T;
    fn report(&self) -> &LaunchReport {
        &self.report
    }
    fn output(&self) -> &[T] {
        &self.sum
    }
}

/// Blocks for one element per thread ([`chapter::launch::one_per_thread`]).
pub use chapter::launch::one_per_thread;

/// Blocks when each thread adds `coarsen` elements: `ceil(n / (block * coarsen))`, at
/// least 1 (10.7).
pub fn coarsened(n: usize, block: u32, coarsen: u32) -> u32 {
    n.div_ceil(block as usize * coarsen.max(1) as usize).max(1) as u32
}

/// Uploads `data`, zeroes one output element, runs `launch` and downloads the sum.
fn run<T: DeviceValue + Default>(
    dev: &mut Device,
    data: &[T],
    grid: u32,
    block: u32,
    launch: impl FnOnce(
        &mut Device,
        gpu::GlobalSlice<T>,
        gpu::GlobalSlice<T>,
    ) -> Result<LaunchReport, LaunchError>,
) -> Result<Run<T>, LaunchError> {
    let d = dev.upload(data)?;
    let out = dev.alloc::<T>(1)?;
    let (input_addr, output_addr) = (d.slice().addr(), out.slice().addr());
    let launched = launch(dev, d.slice(), out.slice());
    let (sum, report) = chapter::launch::download_and_free(dev, launched, out, vec![d])?;
    Ok(Run {
        sum,
        report,
        grid,
        block,
        output_addr,
        input_addr,
    })
}

// ANCHOR: host_sum
/// Runs a `u32` sum kernel `(data, sum)` as `<<<grid, block>>>`.
pub fn sum_u32(
    dev: &mut Device,
    k: &SumKernel,
    data: &[u32],
    grid: u32,
    block: u32,
) -> Result<Run<u32>, LaunchError> {
    let cfg = LaunchConfig::linear(grid, block);
    run(dev, data, grid, block, |dev, d, s| {
        dev.launch(k, cfg, (d, s))
    })
}
// ANCHOR_END: host_sum

/// Runs an `f32` sum kernel `(data, sum)` as `<<<grid, block>>>`.
pub fn sum_f32(
    dev: &mut Device,
    k: &SumF32Kernel,
    data: &[f32],
    grid: u32,
    block: u32,
) -> Result<Run<f32>, LaunchError> {
    let cfg = LaunchConfig::linear(grid, block);
    run(dev, data, grid, block, |dev, d, s| {
        dev.launch(k, cfg, (d, s))
    })
}

/// Runs 10.7's kernel `(data, sum, coarsen)` on its coarsened grid ([`coarsened`]).
pub fn sum_coarsened(
    dev: &mut Device,
    k: &CoarsenedKernel,
    data: &[u32],
    block: u32,
    coarsen: u32,
) -> Result<Run<u32>, LaunchError> {
    let grid = coarsened(data.len(), block, coarsen);
    let cfg = LaunchConfig::linear(grid, block);
    run(dev, data, grid, block, |dev, d, s| {
        dev.launch(k, cfg, (d, s, coarsen))
    })
}

/// 10.9's grid on `dev` for `n` elements with `block` threads: the blocks resident at
/// once (the driver's occupancy query on a GPU), but no idle ones
/// ([`solutions::ch10::fastest_grid`]).
pub fn fastest_grid<A: gpu_host::KernelArgs>(
    dev: &mut Device,
    k: &gpu::Kernel<A>,
    n: usize,
    block: u32,
) -> Result<u32, LaunchError> {
    let per_sm = dev.max_active_blocks_per_sm(k, LaunchConfig::linear(1, block))?;
    Ok(solutions::ch10::fastest_grid(
        dev.props().sm_count,
        per_sm,
        block,
        n,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coarsened_grid_has_coarsen_times_fewer_blocks() {
        assert_eq!(coarsened(1000, 64, 4), 4);
        assert_eq!(coarsened(1024, 64, 4), 4);
        assert_eq!(coarsened(1025, 64, 4), 5);
        assert_eq!(coarsened(0, 64, 4), 1);
    }
}
