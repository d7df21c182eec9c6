//! Thread, block and grid indices, and the block barrier.
//!
//! CUDA runs a kernel as a *grid* of *blocks*, each a group of *threads*; both can be
//! laid out in up to three dimensions. Each thread finds its data from its indices, e.g.
//! the global 1-D index `block_idx_x() * block_dim_x() + thread_idx_x()` ([`index_1d`]).
//!
//! Blocks are independent: the hardware schedules them on its SMs in any order, and a
//! block can never wait for another. Threads of one block can: [`sync_threads`] is the
//! block-wide barrier. It must be reached by every thread of the block, at the same
//! place: calling it in code that only some threads run (`if tid < 16 { sync_threads() }`)
//! is undefined on a GPU and an error on the emulator.

/// Three unsigned dimensions, as CUDA's `dim3`/`uint3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// x
    pub x: u32,
    /// y
    pub y: u32,
    /// z
    pub z: u32,
}

macro_rules! index_fns {
    ($($name:ident, $nv:ident, $host:ident, $i:expr, $doc:literal;)*) => {$(
        #[doc = $doc]
        #[inline(always)]
        #[track_caller]
        pub fn $name() -> u32 {
            #[cfg(target_arch = "nvptx64")]
            // SAFETY: reading a special register has no preconditions.
            unsafe { core::arch::nvptx::$nv() as u32 }
            #[cfg(not(target_arch = "nvptx64"))]
            crate::emu::lane::$host()[$i]
        }
    )*};
}

index_fns! {
    thread_idx_x, _thread_idx_x, thread_idx, 0, "`threadIdx.x`: the thread's x index in its block (`%tid.x`).";
    thread_idx_y, _thread_idx_y, thread_idx, 1, "`threadIdx.y` (`%tid.y`).";
    thread_idx_z, _thread_idx_z, thread_idx, 2, "`threadIdx.z` (`%tid.z`).";
    block_idx_x, _block_idx_x, block_idx, 0, "`blockIdx.x`: the block's x index in the grid (`%ctaid.x`).";
    block_idx_y, _block_idx_y, block_idx, 1, "`blockIdx.y` (`%ctaid.y`).";
    block_idx_z, _block_idx_z, block_idx, 2, "`blockIdx.z` (`%ctaid.z`).";
    block_dim_x, _block_dim_x, block_dim, 0, "`blockDim.x`: threads per block in x (`%ntid.x`).";
    block_dim_y, _block_dim_y, block_dim, 1, "`blockDim.y` (`%ntid.y`).";
    block_dim_z, _block_dim_z, block_dim, 2, "`blockDim.z` (`%ntid.z`).";
    grid_dim_x, _grid_dim_x, grid_dim, 0, "`gridDim.x`: blocks in the grid in x (`%nctaid.x`).";
    grid_dim_y, _grid_dim_y, grid_dim, 1, "`gridDim.y` (`%nctaid.y`).";
    grid_dim_z, _grid_dim_z, grid_dim, 2, "`gridDim.z` (`%nctaid.z`).";
}

/// `threadIdx` as a [`Dim3`].
#[inline(always)]
#[track_caller]
pub fn thread_idx() -> Dim3 {
    Dim3 {
        x: thread_idx_x(),
        y: thread_idx_y(),
        z: thread_idx_z(),
    }
}

/// `blockIdx` as a [`Dim3`].
#[inline(always)]
#[track_caller]
pub fn block_idx() -> Dim3 {
    Dim3 {
        x: block_idx_x(),
        y: block_idx_y(),
        z: block_idx_z(),
    }
}

/// `blockDim` as a [`Dim3`].
#[inline(always)]
#[track_caller]
pub fn block_dim() -> Dim3 {
    Dim3 {
        x: block_dim_x(),
        y: block_dim_y(),
        z: block_dim_z(),
    }
}

/// `gridDim` as a [`Dim3`].
#[inline(always)]
#[track_caller]
pub fn grid_dim() -> Dim3 {
    Dim3 {
        x: grid_dim_x(),
        y: grid_dim_y(),
        z: grid_dim_z(),
    }
}

/// The thread's global index in a 1-D launch: `blockIdx.x * blockDim.x + threadIdx.x`.
#[inline(always)]
#[track_caller]
pub fn index_1d() -> u32 {
    block_idx_x() * block_dim_x() + thread_idx_x()
}

/// The thread's global (x, y) in a 2-D launch: `(idx, idy)` with
/// `idx = blockIdx.x * blockDim.x + threadIdx.x` and likewise for y.
#[inline(always)]
#[track_caller]
pub fn index_2d() -> (u32, u32) {
    (index_1d(), block_idx_y() * block_dim_y() + thread_idx_y())
}

/// The thread's global (x, y, z) in a 3-D launch.
#[inline(always)]
#[track_caller]
pub fn index_3d() -> (u32, u32, u32) {
    let (x, y) = index_2d();
    (x, y, block_idx_z() * block_dim_z() + thread_idx_z())
}

/// Threads in the whole grid along x: the stride of a grid-stride loop,
/// `gridDim.x * blockDim.x`.
#[inline(always)]
#[track_caller]
pub fn grid_stride_x() -> u32 {
    grid_dim_x() * block_dim_x()
}

/// The thread's index inside its block, counting x fastest:
/// `threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y`.
#[inline(always)]
#[track_caller]
pub fn thread_idx_linear() -> u32 {
    thread_idx_x() + thread_idx_y() * block_dim_x() + thread_idx_z() * block_dim_x() * block_dim_y()
}

// ANCHOR: sync_threads
/// `__syncthreads()`: waits until every thread of the block has reached this
/// barrier, and makes their shared- and global-memory writes visible to each
/// other (`bar.sync 0`).
///
/// Every thread of the block must reach the *same* call: a barrier inside a
/// branch that only some threads take is undefined behaviour on a GPU (it may
/// hang or corrupt data) and is reported by the emulator, like
/// compute-sanitizer's synccheck.
#[inline(always)]
#[track_caller]
pub fn sync_threads() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: `bar.sync` has no memory-safety preconditions.
    unsafe {
        core::arch::nvptx::_syncthreads()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        crate::emu::lane::park(core::panic::Location::caller(), crate::emu::Op::Barrier);
    }
}
// ANCHOR_END: sync_threads
