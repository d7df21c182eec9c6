//! The checks of chapter 5: one function per exercise, each running the kernels of one
//! source on a device and returning an [`Outcome`].
//!
//! Every check runs the kernel on adversarial launches (a length that is not a multiple
//! of the block, zero and one element, non-square grids, seeded random sizes), compares
//! the output with the CPU references of [`crate::reference`], fails on any memcheck or
//! race finding, and then tests the *technique* with exact emulator counters computed by
//! the models of [`crate::reference`]. On a GPU (no counters) the technique assertions
//! are skipped and the pass message says so; the output is always checked.

mod histograms;
mod threads;
mod warps;

pub use warps::{BLOCK_ORDER_SEEDS, order_dependence};

// One check function per exercise (`ex_<chapter>_<step>`, named by the records of
// `exercises.toml`) and `check_with`: `chapter::check_registry`.
include!(concat!(env!("OUT_DIR"), "/checks.rs"));

use crate::kernels::{Kernels, kernels};
use course::{KernelSource, Outcome};
use gpu_host::Device;

/// The emulator's counters of a run, if it was emulated.
pub(crate) use chapter::checking::counters;
