//! The checks of chapter 9: one function per exercise, each running the kernels of one
//! source on a device and returning an [`Outcome`].
//!
//! Every check runs the kernel on the adversarial inputs of [`crate::inputs`], compares
//! the bins with the CPU references of [`crate::reference`], fails on any race the
//! emulator finds, and then tests the *technique* with exact emulator counters, computed
//! from the input by the models of [`crate::reference`]. On a GPU (no counters) the
//! technique assertions are skipped and the pass message says so; the bins are always
//! checked.

mod basics;
mod extensions;
mod flow;
mod privatized;

pub use extensions::{
    CAS_LANES, PRIVATIZATION_QUESTION, STRATEGY_BINS, strategy_fits, strategy_kernel,
    table_strategy,
};

// One check function per exercise and `check_with`: `chapter::check_registry`.
chapter::check_registry! {
    chapter "ch09", seed 2009;
    "9.1" ex_9_1 => basics::check_9_1: "9.1: the sequential byte histogram and the letter histogram, against the references.";
    "9.2" ex_9_2 => basics::check_9_2: "9.2: right without collisions, updates lost with them (the race is the lesson), and the prediction matches the emulator.";
    "9.3" ex_9_3 => basics::check_9_3: "9.3: right on every input and grid, one global atomic per element, interleaved (coalesced) loads.";
    "9.4" ex_9_4 => basics::check_9_4: "9.4: copy 0 holds the result, every other block's copy the counts of its own elements, committed after a barrier.";
    "9.5" ex_9_5 => privatized::check_9_5: "9.5: shared-memory privatization, static and dynamic: one shared atomic per element, at most one global atomic per bin and block.";
    "9.6" ex_9_6 => privatized::check_9_6: "9.6: right on the coarsened grid, and each partition's loads exactly as the model predicts.";
    "9.7" ex_9_7 => privatized::check_9_7: "9.7: exactly one shared atomic per run of equal bins in each thread's grid-stride sequence.";
    "9.8" ex_9_8 => privatized::check_9_8: "9.8: one shared atomic per distinct bin per warp instruction, never two lanes of one on the same bin.";
    "9.9" ex_9_9 => privatized::check_9_9: "9.9: right on tails of every length, privatized, 16-byte loads, shared atomics without bank conflicts.";
    "9.10" ex_9_10 => extensions::check_9_10: "9.10: right, no shared memory, global atomics bounded by commits instead of elements.";
    "9.11" ex_9_11 => extensions::check_9_11: "9.11: three privatized channels, three shared atomics per pixel.";
    "9.12" ex_9_12 => extensions::check_9_12: "9.12: exact on weights with exact sums, within rounding on random weights, privatized.";
    "9.13" ex_9_13 => extensions::check_9_13: "9.13: right for square, oblong and one-bin grids, privatized.";
    "9.14" ex_9_14 => extensions::check_9_14: "9.14: u32 input, global and privatized, and the question of when privatization does not pay.";
    "9.15" ex_9_15 => extensions::check_9_15: "9.15: one successful CAS per element plus the failed retries, retries under contention, and their prediction.";
    "9.16" ex_9_16 => extensions::check_9_16: "9.16: the choice follows the table, and the chosen kernels are right and measured.";
    "9.17" ex_9_17 => extensions::check_9_17: "9.17: right for every grid and slice width, one shared atomic per counted value, global atomics only to commit.";
}

use crate::kernels::{Kernels, kernels};
use crate::launch::Run;
use course::{KernelSource, Outcome};
use gpu_host::{Device, LaunchError};
use std::fmt::Display;

/// How this chapter verifies a launch: what its kernels output, compared with the CPU
/// references.
pub(crate) trait Verify {
    /// A launch's result, its findings and its bins, checked: a launch error becomes its
    /// outcome (a `todo!` is "not implemented"), a race fails, and the bins must equal
    /// `expected` (by `same(index, expected, got)`). Returns the run for the technique checks.
    fn verify<T: Display>(
        &self,
        case: &str,
        run: Result<Run<T>, LaunchError>,
        expected: &[T],
        same: impl Fn(usize, &T, &T) -> bool,
    ) -> Result<Run<T>, Outcome>;

    /// [`verify`](Verify::verify) with exact equality.
    fn verify_eq<T: Display + PartialEq>(
        &self,
        case: &str,
        run: Result<Run<T>, LaunchError>,
        expected: &[T],
    ) -> Result<Run<T>, Outcome>;
}

impl Verify for Ctx<'_> {
    fn verify<T: Display>(
        &self,
        case: &str,
        run: Result<Run<T>, LaunchError>,
        expected: &[T],
        same: impl Fn(usize, &T, &T) -> bool,
    ) -> Result<Run<T>, Outcome> {
        let run = self.launched(case, run, "")?;
        course::compare_by("bin", expected, &run.bins, same).map_err(self.on(case))?;
        Ok(run)
    }

    fn verify_eq<T: Display + PartialEq>(
        &self,
        case: &str,
        run: Result<Run<T>, LaunchError>,
        expected: &[T],
    ) -> Result<Run<T>, Outcome> {
        self.verify(case, run, expected, |_, a, b| a == b)
    }
}

/// The emulator's counters of a run, if it was emulated.
pub(crate) use chapter::checking::counters;
