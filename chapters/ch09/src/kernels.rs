//! The chapter's kernels and host functions, picked by source: the student's `kernels`
//! crate or the reference `solutions` crate.
//!
//! Both crates have the same module `ch09` with the same names and signatures, so one
//! macro builds a [`Kernels`] table from either. Checks, the progression and the grader
//! go through this table and never name a crate directly, which is what lets one check
//! grade both. On a GPU (`cuda` feature) the same table serves: a [`Kernel`] carries its
//! PTX entry name and source file, from which the host runtime finds the right module.

use course::KernelSource;
use gpu::{GlobalSlice, Kernel};

/// A byte kernel: `(data, histo)`.
pub type ByteKernel = Kernel<(GlobalSlice<u8>, GlobalSlice<u32>)>;
/// A byte kernel with one `u32` parameter after `(data, histo)`: the bin count (9.4) or
/// the coarsening factor (9.6).
pub type ByteKernelWith = Kernel<(GlobalSlice<u8>, GlobalSlice<u32>, u32)>;
/// A `u32`-input kernel: `(data, histo)`.
pub type U32Kernel = Kernel<(GlobalSlice<u32>, GlobalSlice<u32>)>;
/// The weighted kernel: `(data, weights, histo)`.
pub type WeightedKernel = Kernel<(GlobalSlice<u8>, GlobalSlice<f32>, GlobalSlice<f32>)>;
/// The joint kernel: `(x, y, histo, bins_x)`.
pub type JointKernel = Kernel<(GlobalSlice<u8>, GlobalSlice<u8>, GlobalSlice<u32>, u32)>;

/// Where a histogram's private counters live (the chapter crate's copy of the kernels'
/// `Strategy`, which is a different type in each crate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Per-thread counters in registers (9.10).
    Registers,
    /// A per-block copy in shared memory (9.14's `histo_u32_shared`).
    Shared,
    /// Global atomics straight into the bins (9.14's `histo_u32_global`).
    Global,
}

impl Strategy {
    /// All three, from the most private to the least.
    pub const ALL: [Strategy; 3] = [Strategy::Registers, Strategy::Shared, Strategy::Global];

    /// Lowercase name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Registers => "registers",
            Strategy::Shared => "shared",
            Strategy::Global => "global",
        }
    }
}

/// Every function a chapter-9 exercise covers, from one crate.
#[derive(Clone, Copy)]
pub struct Kernels {
    /// Which crate this table was built from.
    pub source: KernelSource,
    /// 9.1 `histogram_sequential`.
    pub histogram_sequential: fn(&[u8]) -> [u32; 256],
    /// 9.1 `letter_histogram`.
    pub letter_histogram: fn(&[u8], u32) -> [u32; 26],
    /// 9.2 `predict_naive_count`.
    pub predict_naive_count: fn() -> u32,
    /// 9.2 `histo_naive`.
    pub histo_naive: ByteKernel,
    /// 9.3 `histo_atomic`.
    pub histo_atomic: ByteKernel,
    /// 9.4 `histo_private_global`.
    pub histo_private_global: ByteKernelWith,
    /// 9.5 `histo_private_shared`.
    pub histo_private_shared: ByteKernel,
    /// 9.5 `histo_private_dynamic`.
    pub histo_private_dynamic: ByteKernel,
    /// 9.6 `histo_coarse_contiguous`.
    pub histo_coarse_contiguous: ByteKernelWith,
    /// 9.6 `histo_coarse_interleaved`.
    pub histo_coarse_interleaved: ByteKernel,
    /// 9.7 `histo_aggregate`.
    pub histo_aggregate: ByteKernel,
    /// 9.8 `histo_warp_aggregate`.
    pub histo_warp_aggregate: ByteKernel,
    /// 9.9 `histo_fastest`.
    pub histo_fastest: ByteKernel,
    /// 9.10 `histo_registers`.
    pub histo_registers: U32Kernel,
    /// 9.11 `histo_rgb`.
    pub histo_rgb: ByteKernel,
    /// 9.12 `histo_weighted`.
    pub histo_weighted: WeightedKernel,
    /// 9.13 `histo_joint`.
    pub histo_joint: JointKernel,
    /// 9.14 `histo_u32_global`.
    pub histo_u32_global: U32Kernel,
    /// 9.14 `histo_u32_shared`.
    pub histo_u32_shared: U32Kernel,
    /// 9.14 `privatized_worst_global_atomics`.
    pub privatized_worst_global_atomics: fn(u32, u32, u32) -> u32,
    /// 9.15 `histo_cas`.
    pub histo_cas: ByteKernel,
    /// 9.15 `predict_cas_failures`.
    pub predict_cas_failures: fn(u32) -> u32,
    /// 9.16 `choose_strategy`, its answer mapped to [`Strategy`].
    pub choose_strategy: fn(u32) -> Strategy,
    /// 9.17 `histo_u32_sliced`.
    pub histo_u32_sliced: U32Kernel,
}

// `STUDENT`, `REFERENCE` and `kernels(source)`: every kernel and host function of the
// exercises, from the student's crate or the reference one, run in the sandbox.
chapter::kernel_tables! {
    chapter ch09;
    kernels [
        histo_naive, histo_atomic, histo_private_global, histo_private_shared,
        histo_private_dynamic, histo_coarse_contiguous, histo_coarse_interleaved,
        histo_aggregate, histo_warp_aggregate, histo_fastest, histo_registers, histo_rgb,
        histo_weighted, histo_joint, histo_u32_global, histo_u32_shared, histo_cas,
        histo_u32_sliced,
    ];
    host [
        histogram_sequential(data: &[u8]) -> [u32; 256],
        letter_histogram(text: &[u8], letters_per_bin: u32) -> [u32; 26],
        predict_naive_count() -> u32,
        privatized_worst_global_atomics(n: u32, bins: u32, block: u32) -> u32,
        predict_cas_failures(lanes: u32) -> u32,
        choose_strategy(bins: u32) -> Strategy = solutions::ch09::Strategy,
    ];
}

/// The reference crate's answer to 9.16, as the chapter names it.
impl From<solutions::ch09::Strategy> for Strategy {
    fn from(s: solutions::ch09::Strategy) -> Self {
        use solutions::ch09::Strategy as S;
        match s {
            S::Registers => Strategy::Registers,
            S::Shared => Strategy::Shared,
            S::Global => Strategy::Global,
        }
    }
}

/// The kernel source the tests use (`COURSE_KERNELS`), as every chapter reads it.
pub use chapter::harness::source_from_env;
