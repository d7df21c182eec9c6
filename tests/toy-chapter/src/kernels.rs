//! The toy chapter's kernels, from the student's crate or the reference one.

use gpu::{GlobalSlice, Kernel};

/// `a[i] = b[i] * c[i]`.
pub type MulKernel = Kernel<(GlobalSlice<u32>, GlobalSlice<u32>, GlobalSlice<u32>)>;

// `Kernels` (every kernel and host function the records name, its type the reference's),
// `STUDENT`, `REFERENCE` and `kernels(source)`: generated from `exercises.toml` and the
// reference source by the build script (`chapter_records::kernel_table_rs`).
include!(concat!(env!("OUT_DIR"), "/kernel_table.rs"));
