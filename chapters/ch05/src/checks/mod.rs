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

/// Defines, for each exercise, the `fn(&mut Device, KernelSource) -> Outcome` the
/// registry holds, and [`check_with`], which runs a check on any kernel table.
macro_rules! checks {
    ($($id:literal $entry:ident => $check:path: $doc:literal;)*) => {
        $(
            #[doc = $doc]
            pub(crate) fn $entry(dev: &mut Device, source: KernelSource) -> Outcome {
                finish($check(&mut Ctx::new(dev, kernels(source))))
            }
        )*

        /// Runs the check of exercise `id` against the kernels of `k`: how the course
        /// tests its checks on deliberately wrong kernels (a table that is the reference
        /// but for one kernel). `None` for an unknown id.
        pub fn check_with(id: &str, dev: &mut Device, k: &'static Kernels) -> Option<Outcome> {
            let mut ctx = Ctx::new(dev, k);
            let out = match id {
                $($id => finish($check(&mut ctx)),)*
                _ => return None,
            };
            Some(Outcome { exercise: match id { $($id => $id,)* _ => "" }, ..out })
        }
    };
}

checks! {
    "5.1" ex_5_1 => threads::check_5_1: "5.1: one block, then two, then any length: right, guarded, one store per element.";
    "5.2" ex_5_2 => threads::check_5_2: "5.2: every element of 2-D and 3-D grids holds its own coordinates, written once.";
    "5.3" ex_5_3 => threads::check_5_3: "5.3: any n on a fixed grid, loads and stores exactly as coalesced as the model; the grid from the SM count.";
    "5.4" ex_5_4 => warps::check_5_4: "5.4: the warp-uniform kernel has no divergent step and 32 active lanes per instruction; warps per block predicted.";
    "5.5" ex_5_5 => warps::check_5_5: "5.5: the same right output whatever order the blocks run in.";
    "5.6" ex_5_6 => histograms::check_5_6: "5.6: the four histogram kernels: right bins, and the loads, shared and global atomics of each technique.";
}

use crate::kernels::{Kernels, kernels};
use crate::launch::Run;
use course::{KernelSource, Outcome, Status, seed_from_env};
use gpu_host::{Counters, Device, LaunchError};

/// The seed of a check's random inputs when `COURSE_SEED` is not set.
pub const DEFAULT_SEED: u64 = 2005;

/// A check in progress: `Ok` carries the pass message, `Err` the failure.
pub(crate) type Checked = Result<String, Outcome>;

/// What a check works with: the device, the kernels of the source under test, the seed.
///
/// On the emulator the blocks of every launch run in a seeded shuffled order (blocks
/// run in no fixed order on a GPU, so a kernel that relies on one is wrong); the
/// device's own order is restored when the check ends.
pub(crate) struct Ctx<'a> {
    pub(crate) dev: &'a mut Device,
    pub(crate) k: &'static Kernels,
    pub(crate) seed: u64,
    /// The device's block order before the check, to restore.
    block_order: Option<Option<u64>>,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(dev: &'a mut Device, k: &'static Kernels) -> Self {
        let seed = seed_from_env(DEFAULT_SEED);
        let block_order = dev
            .emulator_config_mut()
            .map(|c| c.block_order_seed.replace(seed));
        Ctx {
            dev,
            k,
            seed,
            block_order,
        }
    }

    /// The emulator-only note for pass messages on a GPU.
    pub(crate) fn technique_note(&self) -> &'static str {
        if self.dev.is_emulator() {
            ""
        } else {
            " (technique not checked: counters need the emulator)"
        }
    }

    /// Adds "input: ..." and the replay line to a failure on `case`.
    pub(crate) fn on(&self, case: &str) -> impl Fn(Outcome) -> Outcome + '_ {
        let case = case.to_string();
        move |o: Outcome| {
            if o.status == Status::NotImplemented {
                return o;
            }
            o.detail(format!("input: {case}")).detail(format!(
                "inputs are seeded: replay with COURSE_SEED={} cargo test -p ch05",
                self.seed
            ))
        }
    }

    /// The outcome of a failed launch on `case`: a `todo!` is "not implemented", an access
    /// past a buffer "out of bounds" (with `oob` as a hint when it is not empty).
    pub(crate) fn launch_error(&self, case: &str, e: &LaunchError, oob: &str) -> Outcome {
        let o = Outcome::from_launch_error(e);
        let o = if o.status == Status::OutOfBounds && !oob.is_empty() {
            o.detail(oob.to_string())
        } else {
            o
        };
        self.on(case)(o)
    }

    /// A launch's result and findings, checked: a launch error becomes its outcome (a
    /// `todo!` is "not implemented", an access past a buffer "out of bounds", with `oob`
    /// as a hint), and a race fails. Returns the run for the output and technique checks.
    pub(crate) fn launched(
        &self,
        case: &str,
        run: Result<Run, LaunchError>,
        oob: &str,
    ) -> Result<Run, Outcome> {
        let run = run.map_err(|e| self.launch_error(case, &e, oob))?;
        if let Some(out) = course::findings_outcome(run.report.findings()) {
            return Err(self.on(case)(out));
        }
        Ok(run)
    }

    /// [`launched`](Self::launched), then the output must equal `expected` (each element
    /// named `what` in the message).
    pub(crate) fn verify(
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

    /// A [`Status::WrongTechnique`] failure on `case`.
    pub(crate) fn technique(&self, case: &str, reason: impl Into<String>) -> Outcome {
        self.on(case)(Outcome::fail(Status::WrongTechnique, reason))
    }

    /// Runs `f` with the emulator's blocks in the order of `seed` (`None`: in index
    /// order), then restores the check's order. On a GPU `f` just runs.
    pub(crate) fn with_block_order<R>(
        &mut self,
        seed: Option<u64>,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let before = self
            .dev
            .emulator_config_mut()
            .map(|c| std::mem::replace(&mut c.block_order_seed, seed));
        let r = f(self);
        if let (Some(b), Some(c)) = (before, self.dev.emulator_config_mut()) {
            c.block_order_seed = b;
        }
        r
    }
}

impl Drop for Ctx<'_> {
    fn drop(&mut self) {
        if let (Some(before), Some(c)) = (self.block_order, self.dev.emulator_config_mut()) {
            c.block_order_seed = before;
        }
    }
}

/// The emulator's counters of a run, if it was emulated.
pub(crate) fn counters(run: &Run) -> Option<&Counters> {
    run.report.counters()
}

/// Turns a finished check into its outcome.
pub(crate) fn finish(r: Checked) -> Outcome {
    match r {
        Ok(reason) => Outcome::pass(reason),
        Err(o) => o,
    }
}
