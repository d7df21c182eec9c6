//! The chapter's kernels and host functions, picked by source: the student's `kernels`
//! crate or the reference `solutions` crate (the same module `ch10`, the same names and
//! signatures). Checks, the progression and the grader go through this table.

use gpu::{GlobalSlice, Kernel};

/// A `u32` sum kernel: `(data, sum)`.
pub type SumKernel = Kernel<(GlobalSlice<u32>, GlobalSlice<u32>)>;
/// An `f32` sum kernel: `(data, sum)`.
pub type SumF32Kernel = Kernel<(GlobalSlice<f32>, GlobalSlice<f32>)>;
/// 10.7's kernel: `(data, sum, coarsen)`.
pub type CoarsenedKernel = Kernel<(GlobalSlice<u32>, GlobalSlice<u32>, u32)>;

// `Kernels` (every kernel and host function the records name, its type the reference's),
// `STUDENT`, `REFERENCE` and `kernels(source)`: generated from `exercises.toml` and the
// reference source by the build script (`chapter_records::kernel_table_rs`).
include!(concat!(env!("OUT_DIR"), "/kernel_table.rs"));
