//! What every chapter's checks share: the context a check runs in (the device, the
//! kernels under test, the seed, a shuffled block order), the replay line of a failure,
//! and the macro that registers one check function per exercise.
//!
//! A chapter adds its own ways of verifying a launch (its outputs differ: ch05 compares
//! arrays, ch09 bins with a tolerance) as a trait on [`Ctx`] over its kernel table.

use course::{Outcome, Status};
use gpu_host::{Device, LaunchError, LaunchReport};

/// A check in progress: `Ok` carries the pass message, `Err` the failure.
pub type Checked = Result<String, Outcome>;

/// What a chapter's launcher returns, as a check reads it: the launch's report
/// (counters and findings on the emulator, time on a GPU) beside the launch's output.
pub trait Launched {
    /// An element of the output (`u32` bins, `f32` weighted bins).
    type Item: std::fmt::Display;
    /// The launch's report.
    fn report(&self) -> &LaunchReport;
    /// The output the launch downloaded.
    fn output(&self) -> &[Self::Item];
}

/// Exact equality, for [`Ctx::verify_output`]: the output must be the reference's.
pub fn exactly<T: PartialEq>(_index: usize, expected: &T, got: &T) -> bool {
    expected == got
}

/// The emulator's counters of a run, if it was emulated.
pub fn counters<R: Launched>(run: &R) -> Option<&gpu_host::Counters> {
    run.report().counters()
}

/// What a check works with: the device, the kernels `K` of the source under test, the
/// seed.
///
/// On the emulator the blocks of every launch run in a seeded shuffled order (blocks
/// run in no fixed order on a GPU, so a kernel that relies on one is wrong); the
/// device's own order is restored when the check ends.
pub struct Ctx<'a, K: 'static> {
    /// The device the kernels run on.
    pub dev: &'a mut Device,
    /// The kernel table under test: the student's, the reference, or a deliberately
    /// wrong one from the course's own tests.
    pub k: &'static K,
    /// The seed of the check's random inputs (derived from the grader's private seed, else
    /// `COURSE_SEED`, else the chapter's: [`course::draw::check_seed`]).
    pub seed: u64,
    /// The package a failure's replay line names (`cargo test -p ch05`).
    package: &'static str,
    /// The device's block order before the check, to restore.
    block_order: Option<Option<u64>>,
    /// The device's flow recording before [`Ctx::follow_data`], to restore.
    record_flow: Option<bool>,
    /// The device's racecheck between lanes before [`Ctx::order_lanes`], to restore.
    lane_hazards: Option<bool>,
}

impl<'a, K> Ctx<'a, K> {
    /// A context for checking `k` on `dev` with the seed `COURSE_SEED` gives, else
    /// `default_seed`; a failure says how to replay it with `cargo test -p {package}`.
    pub fn new(
        dev: &'a mut Device,
        k: &'static K,
        default_seed: u64,
        package: &'static str,
    ) -> Self {
        let seed = course::draw::check_seed(default_seed);
        let block_order = dev
            .emulator_config_mut()
            .map(|c| c.block_order_seed.replace(seed));
        Ctx {
            dev,
            k,
            seed,
            package,
            block_order,
            record_flow: None,
            lane_hazards: None,
        }
    }

    /// From now until the check ends, each emulated launch's report carries its flow
    /// (`simt::flow`: which thread loaded what, and which atomics it issued), for a
    /// check that follows the data to the atomics that counted it. Nothing on a GPU.
    pub fn follow_data(&mut self) {
        if let Some(c) = self.dev.emulator_config_mut() {
            let before = std::mem::replace(&mut c.record_flow, true);
            self.record_flow.get_or_insert(before);
        }
    }

    /// From now until the check ends, the emulator's racecheck reports shared-memory
    /// hazards between the lanes of one warp too (`simt::Config::lane_hazards`): for a
    /// kernel whose threads must order their own accesses with barriers (a tree's rounds),
    /// where the emulator's lockstep would hide a missing barrier inside a warp. Nothing
    /// on a GPU.
    pub fn order_lanes(&mut self) {
        if let Some(c) = self.dev.emulator_config_mut() {
            let before = std::mem::replace(&mut c.lane_hazards, true);
            self.lane_hazards.get_or_insert(before);
        }
    }

    /// The emulator-only note for pass messages on a GPU: a pass there checked the
    /// output, not the technique, and should say so.
    pub fn technique_note(&self) -> &'static str {
        if self.dev.is_emulator() {
            ""
        } else {
            " (technique not checked: counters need the emulator)"
        }
    }

    /// Adds "input: ..." and the replay line to a failure on `case`, so that a student
    /// can rerun exactly the input that failed (not to a `todo!`, which has no input to
    /// blame).
    pub fn on(&self, case: &str) -> impl Fn(Outcome) -> Outcome + '_ {
        let case = case.to_string();
        move |o: Outcome| {
            if o.status == Status::NotImplemented {
                return o;
            }
            let o = o.detail(format!("input: {case}"));
            if course::draw::private_seed().is_some() {
                return o.detail(
                    "inputs: drawn from the grader's private seed (your own `cargo test` \
                     runs the course's public inputs)",
                );
            }
            o.detail(format!(
                "{}{} cargo test -p {}",
                course::REPLAY,
                self.seed,
                self.package
            ))
        }
    }

    /// The outcome of a failed launch on `case`: a `todo!` is "not implemented", an
    /// access past a buffer "out of bounds" (with `oob` as a hint when it is not empty).
    pub fn launch_error(&self, case: &str, e: &LaunchError, oob: &str) -> Outcome {
        let o = Outcome::from_launch_error(e);
        let o = if o.status == Status::OutOfBounds && !oob.is_empty() {
            o.detail(oob.to_string())
        } else {
            o
        };
        self.on(case)(o)
    }

    /// A launch's result and findings, checked: a launch error becomes its outcome
    /// ([`launch_error`](Self::launch_error)) and a race fails. Returns the run for the
    /// output and technique checks.
    pub fn launched<R: Launched>(
        &self,
        case: &str,
        run: Result<R, LaunchError>,
        oob: &str,
    ) -> Result<R, Outcome> {
        let run = run.map_err(|e| self.launch_error(case, &e, oob))?;
        if let Some(out) = course::findings_outcome(run.report().findings()) {
            return Err(self.on(case)(out));
        }
        Ok(run)
    }

    /// [`launched`](Self::launched), then the output must equal `expected` element by
    /// element by `same(index, expected, got)` (each element named `what` in the
    /// message). Returns the run for the technique checks.
    pub fn verify_output<R: Launched>(
        &self,
        case: &str,
        run: Result<R, LaunchError>,
        what: &str,
        expected: &[R::Item],
        oob: &str,
        same: impl Fn(usize, &R::Item, &R::Item) -> bool,
    ) -> Result<R, Outcome> {
        let run = self.launched(case, run, oob)?;
        course::compare_by(what, expected, run.output(), same).map_err(self.on(case))?;
        Ok(run)
    }

    /// A [`Status::WrongTechnique`] failure on `case`: right output, but not by the
    /// technique the exercise teaches.
    pub fn technique(&self, case: &str, reason: impl Into<String>) -> Outcome {
        self.on(case)(Outcome::fail(Status::WrongTechnique, reason))
    }

    /// Runs `f` with the emulator's blocks in the order of `seed` (`None`: in index
    /// order), then restores the check's order: how a check shows that an output
    /// depends on the order of the blocks. On a GPU `f` just runs.
    pub fn with_block_order<R>(&mut self, seed: Option<u64>, f: impl FnOnce(&mut Self) -> R) -> R {
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

impl<K> Drop for Ctx<'_, K> {
    fn drop(&mut self) {
        if let (Some(before), Some(c)) = (self.block_order, self.dev.emulator_config_mut()) {
            c.block_order_seed = before;
        }
        if let (Some(before), Some(c)) = (self.record_flow, self.dev.emulator_config_mut()) {
            c.record_flow = before;
        }
        if let (Some(before), Some(c)) = (self.lane_hazards, self.dev.emulator_config_mut()) {
            c.lane_hazards = before;
        }
    }
}

/// Turns a finished check into its outcome.
pub fn finish(r: Checked) -> Outcome {
    match r {
        Ok(reason) => Outcome::pass(reason),
        Err(o) => o,
    }
}

/// Defines a chapter's checks module's common part: `DEFAULT_SEED` (the seed of a
/// check's random inputs when `COURSE_SEED` is not set), `Checked`, the chapter's
/// [`Ctx`] and `new_ctx`; for each exercise, the `fn(&mut Device, KernelSource) ->
/// Outcome` a chapter's registry holds; and `check_with`, which runs a check on any
/// kernel table (how the course tests its checks on deliberately wrong kernels).
///
/// At the call site, `Device`, `KernelSource`, `Outcome`, the chapter's `Kernels` and its
/// `kernels(source)` must be in scope.
#[macro_export]
macro_rules! check_registry {
    (chapter $chapter:literal, seed $seed:literal; $($id:literal $entry:ident => $check:path: $doc:literal;)*) => {
        /// The seed of a check's random inputs when `COURSE_SEED` is not set.
        pub const DEFAULT_SEED: u64 = $seed;

        /// A check in progress: `Ok` carries the pass message, `Err` the failure.
        #[allow(unused_imports)]
        pub(crate) use $crate::checking::Checked;

        /// What a check works with ([`chapter::checking::Ctx`]) over this chapter's kernels.
        pub(crate) type Ctx<'a> = $crate::checking::Ctx<'a, Kernels>;

        /// The context of a check of `k` on `dev`: this chapter's seed and replay command.
        fn new_ctx<'a>(dev: &'a mut Device, k: &'static Kernels) -> Ctx<'a> {
            Ctx::new(dev, k, DEFAULT_SEED, $chapter)
        }

        $(
            #[doc = $doc]
            pub(crate) fn $entry(dev: &mut Device, source: KernelSource) -> Outcome {
                $crate::checking::finish($check(&mut new_ctx(dev, kernels(source))))
            }
        )*

        /// Runs the check of exercise `id` against the kernels of `k`: how the course
        /// tests its checks on deliberately wrong kernels (a table that is the reference
        /// but for one kernel). `None` for an unknown id.
        pub fn check_with(id: &str, dev: &mut Device, k: &'static Kernels) -> Option<Outcome> {
            let mut ctx = new_ctx(dev, k);
            let out = match id {
                $($id => $crate::checking::finish($check(&mut ctx)),)*
                _ => return None,
            };
            Some(Outcome { exercise: match id { $($id => $id,)* _ => "" }, ..out })
        }
    };
}
