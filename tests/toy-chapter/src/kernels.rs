//! The toy chapter's kernels, from the student's crate or the reference one.

use course::KernelSource;
use gpu::{GlobalSlice, Kernel};

/// `a[i] = b[i] * c[i]`.
pub type MulKernel = Kernel<(GlobalSlice<u32>, GlobalSlice<u32>, GlobalSlice<u32>)>;

/// The toy chapter's one kernel.
#[derive(Clone, Copy)]
pub struct Kernels {
    /// Which crate this table was built from.
    pub source: KernelSource,
    /// 1.1 (chapter 5's `mul_blocks`).
    pub mul_blocks: MulKernel,
}

chapter::kernel_tables! {
    chapter ch05;
    kernels [mul_blocks];
    host [];
}
