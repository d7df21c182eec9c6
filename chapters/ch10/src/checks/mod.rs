//! The checks of chapter 10: one function per exercise, each running the kernels of one
//! source on a device and returning an [`Outcome`].
//!
//! Every check runs its kernel on the inputs of [`crate::inputs`], compares the sum with
//! the CPU's ([`crate::reference`]: exactly for `u32`, within the bound of the kernel's
//! order for `f32`), fails on any race the emulator finds, and then tests the
//! *technique*: the counters the step must show (`require`: atomics that add nothing
//! are not counted) and the data followed from each load to the sum (`flow`). On a GPU
//! (no counters, no flow) the technique is not checked and the pass message says so.

mod basics;
mod flow;
mod trees;
mod warps;

pub use trees::{QUIET_DIVERGENCE, coarsened_loads_coalesced};

// One check function per exercise (`ex_<chapter>_<step>`, named by the records of
// `exercises.toml`) and `check_with`: `chapter::check_registry`.
include!(concat!(env!("OUT_DIR"), "/checks.rs"));

use crate::kernels::{Kernels, kernels};
use crate::launch::Run;
use course::{Failure, KernelSource, Outcome, Status};
use gpu_host::{Device, LaunchError};

/// A launch's result checked: a launch error becomes its outcome (a `todo!` is "not
/// implemented"), a race fails, and the sum must be `expected`. Returns the run for the
/// technique checks.
pub(crate) fn verify_sum(
    ctx: &Ctx,
    case: &str,
    run: Result<Run<u32>, LaunchError>,
    expected: u32,
) -> Result<Run<u32>, Outcome> {
    ctx.verify_output(
        case,
        run,
        "sum",
        &[expected],
        "",
        chapter::checking::exactly,
    )
}

/// An `f32` launch checked: no launch error, no race, and the sum within `bound` of the
/// exact sum `exact` (the failure is of kind `f32_bound`).
pub(crate) fn verify_f32(
    ctx: &Ctx,
    case: &str,
    run: Result<Run<f32>, LaunchError>,
    exact: f64,
    bound: f64,
) -> Result<Run<f32>, Outcome> {
    let run = ctx.launched(case, run, "")?;
    let got = run.out.first().copied().unwrap_or(f32::NAN) as f64;
    within_bound(ctx, case, got, exact, bound)?;
    Ok(run)
}

/// Fails (kind `f32_bound`) unless `got` is within `bound` of `exact`.
pub(crate) fn within_bound(
    ctx: &Ctx,
    case: &str,
    got: f64,
    exact: f64,
    bound: f64,
) -> Result<(), Outcome> {
    let err = (got - exact).abs();
    if err <= bound {
        return Ok(());
    }
    Err(ctx.on(case)(Outcome::failed(
        crate::failures::F32_BOUND,
        format!(
            "the f32 sum is {got}, the exact sum {exact}: off by {err:.3e}, more than the {bound:.3e} \
             that rounding in this order of additions can explain"
        ),
    )))
}

/// A technique check on an emulated run: when `holds` is false, the wrong technique of
/// kind `failure` (`None`: the status as a whole) with `why`.
pub(crate) fn require(
    ctx: &Ctx,
    case: &str,
    holds: bool,
    failure: Option<Failure>,
    why: impl FnOnce() -> String,
) -> Result<(), Outcome> {
    if holds {
        return Ok(());
    }
    let out = ctx.technique(case, why());
    Err(match failure {
        Some(f) => out.of_kind(f),
        None => out,
    })
}

/// Global atomic lanes that could change memory: the atomics that add something (the
/// emulator counts an add of 0 apart, as a no-op: no part of a technique).
pub(crate) fn effective_global_atomics(c: &gpu_host::Counters) -> u64 {
    c.global_atomic_lanes
}

/// Shared-memory instructions of every kind: loads, stores and atomics.
pub(crate) fn shared_accesses(c: &gpu_host::Counters) -> u64 {
    c.shared_load_requests + c.shared_store_requests + c.shared_atomic_lanes
}

/// The emulator's counters of a run, if it was emulated.
pub(crate) use chapter::checking::counters;

/// The failure of the course, not the student's (a launch the check cannot make).
#[allow(dead_code)]
pub(crate) fn course_error(why: impl Into<String>) -> Outcome {
    Outcome::fail(Status::Error, why)
}
