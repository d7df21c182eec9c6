//! The chapter's kernels and host functions, picked by source: the student's `kernels`
//! crate or the reference `solutions` crate.
//!
//! Both crates have the same module `ch09` with the same names and signatures, so one
//! macro builds a [`Kernels`] table from either. Checks, the progression and the grader
//! go through this table and never name a crate directly, which is what lets one check
//! grade both. On a GPU (`cuda` feature) the same table serves: a [`Kernel`] carries its
//! PTX entry name and source file, from which the host runtime finds the right module.

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

// `Kernels` (every kernel and host function the records name, its type the reference's),
// `STUDENT`, `REFERENCE` and `kernels(source)`: generated from `exercises.toml` and the
// reference source by the build script (`chapter_records::kernel_table_rs`).
include!(concat!(env!("OUT_DIR"), "/kernel_table.rs"));

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
