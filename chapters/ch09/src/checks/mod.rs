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
mod privatized;

pub use extensions::{
    CAS_LANES, PRIVATIZATION_QUESTION, STRATEGY_BINS, strategy_fits, strategy_kernel,
    table_strategy,
};

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
}

use crate::kernels::{Kernels, kernels};
use crate::launch::Run;
use course::{KernelSource, Outcome, Status, seed_from_env};
use gpu_host::{Counters, Device, LaunchError};
use std::fmt::Display;

/// The seed of a check's random inputs when `COURSE_SEED` is not set.
pub const DEFAULT_SEED: u64 = 2009;

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
                "inputs are seeded: replay with COURSE_SEED={} cargo test -p ch09",
                self.seed
            ))
        }
    }

    /// A launch's result, its findings and its bins, checked: a launch error becomes its
    /// outcome (a `todo!` is "not implemented"), a race fails, and the bins must equal
    /// `expected` (by `same(index, expected, got)`). Returns the run for the technique checks.
    pub(crate) fn verify<T: Display>(
        &self,
        case: &str,
        run: Result<Run<T>, LaunchError>,
        expected: &[T],
        same: impl Fn(usize, &T, &T) -> bool,
    ) -> Result<Run<T>, Outcome> {
        let on = self.on(case);
        let run = run.map_err(|e| on(Outcome::from_launch_error(&e)))?;
        if let Some(out) = course::findings_outcome(run.report.findings()) {
            return Err(on(out));
        }
        course::compare_by("bin", expected, &run.bins, same).map_err(&on)?;
        Ok(run)
    }

    /// [`verify`](Self::verify) with exact equality.
    pub(crate) fn verify_eq<T: Display + PartialEq>(
        &self,
        case: &str,
        run: Result<Run<T>, LaunchError>,
        expected: &[T],
    ) -> Result<Run<T>, Outcome> {
        self.verify(case, run, expected, |_, a, b| a == b)
    }

    /// A [`Status::WrongTechnique`] failure on `case`.
    pub(crate) fn technique(&self, case: &str, reason: impl Into<String>) -> Outcome {
        self.on(case)(Outcome::fail(Status::WrongTechnique, reason))
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
pub(crate) fn counters<T>(run: &Run<T>) -> Option<&Counters> {
    run.report.counters()
}

/// Turns a finished check into its outcome.
pub(crate) fn finish(r: Checked) -> Outcome {
    match r {
        Ok(reason) => Outcome::pass(reason),
        Err(o) => o,
    }
}
