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

// One check function per exercise and `check_with`: `chapter::check_registry`.
chapter::check_registry! {
    chapter "ch05", seed 2005;
    "5.1" ex_5_1 => threads::check_5_1: "5.1: one block, then two, then any length: right, guarded, one store per element.";
    "5.2" ex_5_2 => threads::check_5_2: "5.2: every element of 2-D and 3-D grids holds its own coordinates, written once.";
    "5.3" ex_5_3 => threads::check_5_3: "5.3: any n on a fixed grid, loads and stores exactly as coalesced as the model; the grid from the SM count.";
    "5.4" ex_5_4 => warps::check_5_4: "5.4: the warp-uniform kernel has no divergent step and 32 active lanes per instruction; warps per block predicted.";
    "5.5" ex_5_5 => warps::check_5_5: "5.5: the same right output whatever order the blocks run in.";
    "5.6" ex_5_6 => histograms::check_5_6: "5.6: the four histogram kernels: right bins, and the loads, shared and global atomics of each technique.";
}

use crate::kernels::{Kernels, kernels};
use crate::launch::Run;
use course::{KernelSource, Outcome};
use gpu_host::{Device, LaunchError};

/// How this chapter verifies a launch: what its kernels output, compared with the CPU
/// references.
pub(crate) trait Verify {
    /// [`Ctx::launched`](chapter::checking::Ctx::launched), then the output must equal
    /// `expected` (each element named `what` in the message).
    fn verify(
        &self,
        case: &str,
        run: Result<Run, LaunchError>,
        what: &str,
        expected: &[u32],
        oob: &str,
    ) -> Result<Run, Outcome>;
}

impl Verify for Ctx<'_> {
    fn verify(
        &self,
        case: &str,
        run: Result<Run, LaunchError>,
        what: &str,
        expected: &[u32],
        oob: &str,
    ) -> Result<Run, Outcome> {
        let run = self.launched(case, run, oob)?;
        course::compare(what, expected, &run.out).map_err(self.on(case))?;
        Ok(run)
    }
}

/// The emulator's counters of a run, if it was emulated.
pub(crate) use chapter::checking::counters;
