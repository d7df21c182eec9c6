//! Host-side launchers: upload an input, zero the bins, launch, download.
//!
//! One function per kernel shape. They return the launch's error unchanged (the check or
//! the progression decides what it means for the student) and never unwrap, so a stub's
//! `todo!()` or a fault in a student's kernel is a value, not a crash.

use crate::kernels::{ByteKernel, ByteKernelWith, JointKernel, U32Kernel, WeightedKernel};
use gpu_host::{Device, LaunchError};
use solutions::ch09::{FASTEST_SHARED_BYTES, FastestPolicy, fastest_grid_coarsened};

/// What a launch produced ([`chapter::launch::Run`]): the bins, the report and the
/// configuration it ran with.
pub use chapter::launch::Run;

/// `<<<grid, block, shared_bytes>>>`, shared memory and the grids of the chapter's launches
/// ([`chapter::launch`]).
pub use chapter::launch::{
    DEFAULT_SHARED_BYTES, Shape, coarsened, device_grid, finish, one_per_thread,
};

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
    finish(dev, launched, h, vec![d], shape.config())
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
    finish(dev, launched, h, vec![d], shape.config())
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
    finish(dev, launched, h, vec![d], shape.config())
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
    let mut run = finish(dev, launched, h, vec![d], shape.config())?;
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
    finish(dev, launched, h, vec![dx, dy], shape.config())
}
