//! The checks of chapter 9: one function per exercise (written here, or declared by its
//! record and run by `declared`), each running the kernels of one
//! source on a device and returning an [`Outcome`].
//!
//! Every check runs the kernel on the adversarial inputs of [`crate::inputs`], compares
//! the bins with the CPU references of [`crate::reference`], fails on any race the
//! emulator finds, and then tests the *technique* with exact emulator counters, computed
//! from the input by the models of [`crate::reference`]. On a GPU (no counters) the
//! technique assertions are skipped and the pass message says so; the bins are always
//! checked.

mod basics;
mod declared;
mod extensions;
mod flow;
mod privatized;

pub use extensions::{
    CAS_LANES, PRIVATIZATION_QUESTION, STRATEGY_BINS, strategy_fits, strategy_kernel,
    table_strategy,
};

// One check function per exercise (`ex_<chapter>_<step>`, named by the records of
// `exercises.toml`; a record that declares its check gets its `DECLARED_<step>` and a
// function that runs it with `declared::check_declared`) and `check_with`:
// `chapter::check_registry`.
include!(concat!(env!("OUT_DIR"), "/checks.rs"));

use crate::kernels::{Kernels, kernels};
use crate::launch::Run;
use course::{KernelSource, Outcome};
use declared::check_declared;
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
        self.verify_output(case, run, "bin", expected, "", same)
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
