//! The chapter's kernels and host functions, picked by source: the student's `kernels`
//! crate or the reference `solutions` crate.
//!
//! Both crates have the same module `ch05` with the same names and signatures, so one
//! macro builds a [`Kernels`] table from either. Checks, the progression and the grader
//! go through this table and never name a crate directly, which is what lets one check
//! grade both, and lets the course's fixtures grade a deliberately wrong kernel (the
//! reference table with one entry replaced). On a GPU (`cuda` feature) the same table
//! serves: a [`Kernel`] carries its PTX entry name and source file.

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

// `Kernels` (every kernel and host function the records name, its type the reference's),
// `STUDENT`, `REFERENCE` and `kernels(source)`: generated from `exercises.toml` and the
// reference source by the build script (`chapter_records::kernel_table_rs`).
include!(concat!(env!("OUT_DIR"), "/kernel_table.rs"));

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
