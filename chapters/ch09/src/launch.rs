//! Host-side launchers: upload an input, zero the bins, launch, download.
//!
//! One function per kernel shape. They return the launch's error unchanged (the check or
//! the progression decides what it means for the student) and never unwrap, so a stub's
//! `todo!()` or a fault in a student's kernel is a value, not a crash.

use crate::kernels::{ByteKernel, ByteKernelWith, JointKernel, U32Kernel, WeightedKernel};
use gpu_host::{Device, DeviceProps, LaunchConfig, LaunchError, LaunchReport};
use solutions::ch09::{FASTEST_SHARED_BYTES, FastestPolicy, fastest_grid_coarsened};

/// What a launch produced: the bins, the report (counters on the emulator) and the
/// configuration it ran with.
#[derive(Clone, Debug)]
pub struct Run<T> {
    /// The downloaded output buffer.
    pub bins: Vec<T>,
    /// The launch's report: counters and findings on the emulator, time on a GPU.
    pub report: LaunchReport,
    /// Blocks launched.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Device address of the output buffer (`bins`), to tell its atomics apart in the
    /// report's flow.
    pub output_addr: u64,
    /// Device addresses of the input buffers, in the kernel's argument order.
    pub input_addrs: Vec<u64>,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
}

impl<T: std::fmt::Display> chapter::checking::Launched for Run<T> {
    type Item = T;
    fn report(&self) -> &LaunchReport {
        &self.report
    }
    fn output(&self) -> &[T] {
        &self.bins
    }
}

/// Shared memory a block may use without opting in: 48 KiB, on every GPU since Kepler.
pub const DEFAULT_SHARED_BYTES: u32 = simt::hardware::DEFAULT_SHARED_LIMIT;

/// `<<<grid, block, shared_bytes>>>` in one dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
}

impl Shape {
    /// `<<<grid, block>>>`, no dynamic shared memory.
    pub fn new(grid: u32, block: u32) -> Self {
        Shape {
            grid,
            block,
            shared_bytes: 0,
        }
    }

    /// With `bins` 4-byte counters of dynamic shared memory (a private copy).
    pub fn with_bins(self, bins: u32) -> Self {
        Shape {
            shared_bytes: bins * 4,
            ..self
        }
    }

    /// The launch of 9.17's sliced kernels: private copies of `bins` bins cut into slices
    /// of at most `max_words` counters (dynamic shared memory: one slice), and `blocks`
    /// rounded up to whole chunks of `ceil(bins / slice)` blocks, so that every block counts.
    pub fn sliced(blocks: u32, block: u32, bins: u32, max_words: u32) -> Self {
        let words = bins.clamp(1, max_words.max(1));
        let slices = bins.div_ceil(words).max(1);
        Shape::new(blocks.div_ceil(slices).max(1) * slices, block).with_bins(words)
    }

    /// The launch configuration; above CUDA's default 48 KiB of shared memory per block
    /// it opts in to more, as `cudaFuncSetAttribute(MaxDynamicSharedMemorySize)` does (the
    /// device refuses more than it has: 227 KiB on an H100).
    pub fn config(self) -> LaunchConfig {
        let cfg = LaunchConfig::linear(self.grid, self.block).with_shared(self.shared_bytes);
        if self.shared_bytes > DEFAULT_SHARED_BYTES {
            cfg.with_max_shared(self.shared_bytes)
        } else {
            cfg
        }
    }
}

/// Blocks for one element per thread ([`chapter::launch::one_per_thread`]).
pub use chapter::launch::one_per_thread;

/// Blocks when each thread counts `coarsen` elements: `ceil(n / (block * coarsen))`, at
/// least 1 (9.6: coarsening by `C` cuts the blocks by `C`).
pub fn coarsened(n: usize, block: u32, coarsen: u32) -> u32 {
    n.div_ceil(block as usize * coarsen as usize).max(1) as u32
}

/// A grid sized from the device: the blocks it keeps resident at once (`sm_count *
/// blocks per SM`), but no more than give each thread `per_thread` elements; at least 1.
pub fn device_grid(props: &DeviceProps, n: usize, block: u32, per_thread: u32) -> u32 {
    let resident = props.sm_count * props.blocks_per_sm(block);
    resident.min(coarsened(n, block, per_thread))
}

/// A grid of one wave for a grid-stride byte kernel over `n` bytes, `block` threads and
/// `shared_bytes` of shared memory: [`fastest_grid_coarsened`] (with `vecs_per_thread`;
/// 9.9's policy is [`FastestPolicy::VECS_PER_THREAD`]) of the blocks per SM asked of the
/// device for `kernel` with that block and shared memory (the driver's occupancy query on
/// a GPU, which knows the kernel's registers; threads and shared memory on the emulator).
pub fn one_wave(
    dev: &mut Device,
    kernel: &ByteKernel,
    n: usize,
    block: u32,
    shared_bytes: u32,
    vecs_per_thread: u32,
) -> Result<Shape, LaunchError> {
    let shape = Shape {
        grid: 1,
        block,
        shared_bytes,
    };
    let per_sm = dev.max_active_blocks_per_sm(kernel, shape.config())?;
    Ok(Shape {
        grid: fastest_grid_coarsened(dev.props().sm_count, per_sm, block, n, vecs_per_thread),
        ..shape
    })
}

/// 9.9's launch for `n` bytes with `block` threads, for any bin count: a column of counters
/// per lane and byte value in shared memory ([`FASTEST_SHARED_BYTES`]) and a grid of
/// [`one_wave`].
pub fn fastest_shape(
    dev: &mut Device,
    kernel: &ByteKernel,
    n: usize,
    block: u32,
) -> Result<Shape, LaunchError> {
    one_wave(
        dev,
        kernel,
        n,
        block,
        FASTEST_SHARED_BYTES,
        FastestPolicy::VECS_PER_THREAD,
    )
}

/// Downloads `out` after a launch and frees the buffers
/// ([`chapter::launch::download_and_free`]): the run of `shape`.
fn finish<T: gpu_host::DeviceValue, I: gpu_host::DeviceValue>(
    dev: &mut Device,
    launched: Result<LaunchReport, LaunchError>,
    out: gpu_host::DeviceBuffer<T>,
    inputs: Vec<gpu_host::DeviceBuffer<I>>,
    shape: Shape,
) -> Result<Run<T>, LaunchError> {
    let output_addr = out.slice().addr();
    let input_addrs = inputs.iter().map(|b| b.slice().addr()).collect();
    let (bins, report) = chapter::launch::download_and_free(dev, launched, out, inputs)?;
    Ok(Run {
        bins,
        report,
        grid: shape.grid,
        block: shape.block,
        output_addr,
        input_addrs,
        shared_bytes: shape.shared_bytes,
    })
}

// ANCHOR: host_bytes
/// Runs a byte kernel `(data, histo)` with `bins` zeroed bins.
pub fn bytes(
    dev: &mut Device,
    k: &ByteKernel,
    data: &[u8],
    bins: u32,
    shape: Shape,
) -> Result<Run<u32>, LaunchError> {
    let d = dev.upload(data)?;
    let h = dev.alloc::<u32>(bins as usize)?;
    let launched = dev.launch(k, shape.config(), (d.slice(), h.slice()));
    finish(dev, launched, h, vec![d], shape)
}
// ANCHOR_END: host_bytes

/// Runs a byte kernel `(data, histo, arg)` with an output of `out_len` zeroed counters.
pub fn bytes_with(
    dev: &mut Device,
    k: &ByteKernelWith,
    data: &[u8],
    out_len: u32,
    arg: u32,
    shape: Shape,
) -> Result<Run<u32>, LaunchError> {
    let d = dev.upload(data)?;
    let h = dev.alloc::<u32>(out_len as usize)?;
    let launched = dev.launch(k, shape.config(), (d.slice(), h.slice(), arg));
    finish(dev, launched, h, vec![d], shape)
}

/// Runs a `u32`-input kernel `(data, histo)` with `bins` zeroed bins.
pub fn values(
    dev: &mut Device,
    k: &U32Kernel,
    data: &[u32],
    bins: u32,
    shape: Shape,
) -> Result<Run<u32>, LaunchError> {
    let d = dev.upload(data)?;
    let h = dev.alloc::<u32>(bins as usize)?;
    let launched = dev.launch(k, shape.config(), (d.slice(), h.slice()));
    finish(dev, launched, h, vec![d], shape)
}

/// Runs the weighted kernel `(data, weights, histo)` with `bins` zeroed `f32` bins.
pub fn weighted(
    dev: &mut Device,
    k: &WeightedKernel,
    data: &[u8],
    weights: &[f32],
    bins: u32,
    shape: Shape,
) -> Result<Run<f32>, LaunchError> {
    let d = dev.upload(data)?;
    let w = dev.upload(weights)?;
    let h = dev.alloc::<f32>(bins as usize)?;
    let launched = dev.launch(k, shape.config(), (d.slice(), w.slice(), h.slice()));
    let weights_addr = w.slice().addr();
    let _ = dev.free(w);
    let mut run = finish(dev, launched, h, vec![d], shape)?;
    run.input_addrs.push(weights_addr);
    Ok(run)
}

/// Runs the joint kernel `(x, y, histo, bins_x)` with `bins_x * bins_y` zeroed bins.
pub fn joint(
    dev: &mut Device,
    k: &JointKernel,
    x: &[u8],
    y: &[u8],
    bins_x: u32,
    bins_y: u32,
    shape: Shape,
) -> Result<Run<u32>, LaunchError> {
    let dx = dev.upload(x)?;
    let dy = dev.upload(y)?;
    let h = dev.alloc::<u32>((bins_x * bins_y) as usize)?;
    let launched = dev.launch(
        k,
        shape.config(),
        (dx.slice(), dy.slice(), h.slice(), bins_x),
    );
    finish(dev, launched, h, vec![dx, dy], shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids() {
        assert_eq!(coarsened(1000, 64, 4), 4);
        let props = DeviceProps::emulated_h100();
        assert_eq!(device_grid(&props, 1 << 30, 256, 1), 132 * 8);
        assert_eq!(device_grid(&props, 1000, 256, 1), 4);
    }
}
