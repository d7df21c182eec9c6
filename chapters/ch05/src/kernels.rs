//! The chapter's kernels and host functions, picked by source: the student's `kernels`
//! crate or the reference `solutions` crate.
//!
//! Both crates have the same module `ch05` with the same names and signatures, so one
//! macro builds a [`Kernels`] table from either. Checks, the progression and the grader
//! go through this table and never name a crate directly, which is what lets one check
//! grade both, and lets the course's fixtures grade a deliberately wrong kernel (the
//! reference table with one entry replaced). On a GPU (`cuda` feature) the same table
//! serves: a [`Kernel`] carries its PTX entry name and source file.

use course::KernelSource;
use gpu::{GlobalSlice, Kernel};

/// `a[i] = b[i] * c[i]`: `(a, b, c)` (5.1, 5.3).
pub type MulKernel = Kernel<(GlobalSlice<u32>, GlobalSlice<u32>, GlobalSlice<u32>)>;
/// A kernel that writes every element of one output: `(out)` (5.2, 5.5's in-place sum).
pub type OutKernel = Kernel<(GlobalSlice<u32>,)>;
/// An input and an output of `u32`: `(src, dst)` (5.4, 5.5).
pub type MapKernel = Kernel<(GlobalSlice<u32>, GlobalSlice<u32>)>;
/// A byte histogram: `(data, histo)` (5.6).
pub type HistoKernel = Kernel<(GlobalSlice<u8>, GlobalSlice<u32>)>;
/// A byte histogram with a words-per-thread parameter: `(data, histo, n)` (5.6, kernel 4).
pub type HistoKernelN = Kernel<(GlobalSlice<u8>, GlobalSlice<u32>, u32)>;

/// Every function a chapter-5 exercise covers (and the given kernels the checks and the
/// progression compare with), from one crate.
#[derive(Clone, Copy)]
pub struct Kernels {
    /// Which crate this table was built from.
    pub source: KernelSource,
    /// 5.1 `mul_one_block`.
    pub mul_one_block: MulKernel,
    /// 5.1 `mul_blocks`.
    pub mul_blocks: MulKernel,
    /// 5.2 `write_coords_2d`.
    pub write_coords_2d: OutKernel,
    /// 5.2 `write_coords_3d`.
    pub write_coords_3d: OutKernel,
    /// 5.3 `mul_grid_stride`.
    pub mul_grid_stride: MulKernel,
    /// 5.3 `stride_grid`.
    pub stride_grid: fn(u32, u32, u32) -> u32,
    /// 5.4 `classify_divergent` (given).
    pub classify_divergent: MapKernel,
    /// 5.4 `classify_half_warp` (given).
    pub classify_half_warp: MapKernel,
    /// 5.4 `classify_uniform`.
    pub classify_uniform: MapKernel,
    /// 5.4 `warps_per_block`.
    pub warps_per_block: fn(u32) -> u32,
    /// 5.5 `smooth_in_place` (given, block-order dependent).
    pub smooth_in_place: OutKernel,
    /// 5.5 `smooth`.
    pub smooth: MapKernel,
    /// 5.6 `histo_byte`.
    pub histo_byte: HistoKernel,
    /// 5.6 `histo_word`.
    pub histo_word: HistoKernel,
    /// 5.6 `histo_shared`.
    pub histo_shared: HistoKernel,
    /// 5.6 `histo_shared_n`.
    pub histo_shared_n: HistoKernelN,
}

// `STUDENT`, `REFERENCE` and `kernels(source)`: every kernel and host function of the
// exercises, from the student's crate or the reference one, run in the sandbox.
chapter::kernel_tables! {
    chapter ch05;
    kernels [
        mul_one_block, mul_blocks, write_coords_2d, write_coords_3d, mul_grid_stride,
        classify_divergent, classify_half_warp, classify_uniform, smooth_in_place, smooth,
        histo_byte, histo_word, histo_shared, histo_shared_n,
    ];
    host [
        stride_grid(sm_count: u32, n: u32, block: u32) -> u32,
        warps_per_block(threads: u32) -> u32,
    ];
}

/// The kernel source the tests use (`COURSE_KERNELS`), as every chapter reads it.
pub use chapter::harness::source_from_env;

/// Stand-ins for unsolved exercises in this crate's tests (a reference table with one of
/// them is a half-solved course), so that no test depends on what the student has (or has
/// not yet) written in `kernels/`.
#[cfg(test)]
pub(crate) mod stand_ins {
    /// An unsolved `a[i] = b[i] * c[i]` (5.1, 5.3).
    #[gpu::kernel]
    pub fn unsolved_mul(
        a: gpu::GlobalSlice<u32>,
        b: gpu::GlobalSlice<u32>,
        c: gpu::GlobalSlice<u32>,
    ) {
        let _ = (a, b, c);
        todo!("5.x: an unsolved stand-in")
    }

    /// An unsolved histogram of `n` words per thread (5.6's fourth kernel).
    #[gpu::kernel]
    pub fn unsolved_histo_n(data: gpu::GlobalSlice<u8>, histo: gpu::GlobalSlice<u32>, n: u32) {
        let _ = (data, histo, n);
        todo!("5.x: an unsolved stand-in")
    }
}
