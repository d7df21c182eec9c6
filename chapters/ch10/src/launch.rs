//! Host-side launchers: upload the input, zero the sum, launch, download.
//!
//! They return the launch's error unchanged (the check or the progression decides what it
//! means for the student) and never unwrap, so a stub's `todo!()` or a fault in a
//! student's kernel is a value, not a crash.

use crate::kernels::{CoarsenedKernel, SumF32Kernel, SumKernel};
use gpu_host::{Device, DeviceValue, LaunchConfig, LaunchError, LaunchReport};

/// What a launch produced: the sum (`out`, one element), the report (counters on the
/// emulator) and the configuration it ran with ([`chapter::launch::Run`]).
pub use chapter::launch::Run;

/// Blocks for one element per thread ([`chapter::launch::one_per_thread`]), and when each
/// thread adds `coarsen` elements (10.7, [`chapter::launch::coarsened`]).
pub use chapter::launch::{coarsened, one_per_thread};

/// Uploads `data`, zeroes one output element, runs `launch` as `cfg` and downloads the
/// sum.
fn run<T: DeviceValue + Default>(
    dev: &mut Device,
    data: &[T],
    cfg: LaunchConfig,
    launch: impl FnOnce(
        &mut Device,
        gpu::GlobalSlice<T>,
        gpu::GlobalSlice<T>,
    ) -> Result<LaunchReport, LaunchError>,
) -> Result<Run<T>, LaunchError> {
    let d = dev.upload(data)?;
    let out = dev.alloc::<T>(1)?;
    let launched = launch(dev, d.slice(), out.slice());
    chapter::launch::finish(dev, launched, out, vec![d], cfg)
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
    run(dev, data, cfg, |dev, d, s| dev.launch(k, cfg, (d, s)))
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
    run(dev, data, cfg, |dev, d, s| dev.launch(k, cfg, (d, s)))
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
    run(dev, data, cfg, |dev, d, s| {
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
