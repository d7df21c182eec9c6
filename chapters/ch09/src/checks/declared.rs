//! Declared checks: an exercise whose record declares its launches and the counters they
//! must show (`[[exercise.verify]]`, `[[exercise.expect]]`) is checked here, with
//! no check function of its own (`chapter::declared::Check`).
//!
//! A byte kernel `(data, histo)` runs on every input of [`inputs::byte_cases`], a `u32`
//! kernel on values for its bins; each result must equal the reference histogram, the
//! emulator must find no race, then the data of a kernel whose record declares its flow
//! is followed (`[[exercise.follow]]`, [`super::flow`]) and every expectation tested with
//! the launch's names: `n` (elements), `counted` (elements the reference
//! counts), `grid`, `block`, `bins`, and each counter by its report name.

use super::flow::{self, Input};
use super::{Checked, Ctx, FOLLOWS, Verify, counters};
use crate::inputs::{self, Case};
use crate::kernels::{ByteKernel, U32Kernel};
use crate::launch::{self, Run, Shape};
use crate::reference;
use chapter::declared::{self, Check};
use course::{Outcome, Status};

/// The record's mistake, as the check's outcome (the course's, not the student's).
fn record_error(message: String) -> Outcome {
    Outcome::fail(
        Status::Error,
        format!("the exercise's declared check cannot run: {message}"),
    )
}

/// Runs the declared check `spec` (see the module's docs).
pub(crate) fn check_declared(ctx: &mut Ctx, spec: &Check) -> Checked {
    let followed = |kernel: &str| chapter::declared::follow_of(&FOLLOWS, kernel).is_some();
    if spec.launches.iter().any(|v| followed(v.kernel)) {
        ctx.follow_data();
    }
    let mut launches = 0;
    // The byte inputs, made once for every byte launch of the check.
    let seed = ctx.seed;
    let mut byte_cases: Option<Vec<Case<u8>>> = None;
    for v in spec.launches {
        let kernel = ctx
            .k
            .named(v.kernel)
            .ok_or_else(|| record_error(format!("no kernel `{}`", v.kernel)))?;
        if let Some(k) = kernel.downcast_ref::<ByteKernel>() {
            let k = *k;
            let cases = byte_cases.get_or_insert_with(|| inputs::byte_cases(seed));
            for case in cases.iter() {
                let expected = reference::byte_histogram(&case.data, v.bins);
                let shape = shape_of(v, case.n());
                let name = launch_name(spec, v, case, shape);
                let run = launch::bytes(ctx.dev, &k, &case.data, v.bins, shape);
                let run = ctx.verify_eq(&name, run, &expected)?;
                if followed(v.kernel) {
                    flow::follow(ctx, &name, v.kernel, &run, Input::Bytes(&case.data, v.bins))?;
                }
                expectations(ctx, spec, &name, &run, case.n(), &expected, shape, v)?;
                launches += 1;
            }
        } else if let Some(k) = kernel.downcast_ref::<U32Kernel>() {
            let k = *k;
            for case in super::extensions::value_cases(ctx.seed, v.bins) {
                let expected = reference::value_histogram(&case.data, v.bins);
                let shape = shape_of(v, case.n());
                let name = launch_name(spec, v, &case, shape);
                let run = launch::values(ctx.dev, &k, &case.data, v.bins, shape);
                let run = ctx.verify_eq(&name, run, &expected)?;
                if followed(v.kernel) {
                    flow::follow(
                        ctx,
                        &name,
                        v.kernel,
                        &run,
                        Input::Values(&case.data, v.bins),
                    )?;
                }
                expectations(ctx, spec, &name, &run, case.n(), &expected, shape, v)?;
                launches += 1;
            }
        } else {
            return Err(record_error(format!(
                "`{}` is neither a byte nor a u32 kernel `(data, histo)`: its check needs code",
                v.kernel
            )));
        }
    }
    let means: String = spec.means().iter().map(|m| format!(", {m}")).collect();
    Ok(format!(
        "{launches} launches right{means}{}",
        ctx.technique_note()
    ))
}

/// The launch's shape on an input of `n` elements.
fn shape_of(v: &declared::Verify, n: usize) -> Shape {
    let shape = Shape::new(v.blocks.count(n, v.block), v.block);
    if v.shared_bins {
        shape.with_bins(v.bins)
    } else {
        shape
    }
}

/// The launch as messages name it: the input, the bins and the shape, after the kernel's
/// name when the check launches more than one kernel.
fn launch_name<T>(spec: &Check, v: &declared::Verify, case: &Case<T>, shape: Shape) -> String {
    let kernel = if spec.launches.iter().any(|l| l.kernel != v.kernel) {
        format!("{}, ", v.kernel)
    } else {
        String::new()
    };
    format!(
        "{kernel}{}, {} bins, <<<{}, {}>>>",
        case.name, v.bins, shape.grid, shape.block
    )
}

/// The names an expectation may read besides the counters (see the module's docs).
const LAUNCH_NAMES: [&str; 5] = ["n", "counted", "grid", "block", "bins"];

/// Tests every expectation of `spec` on `run` (an emulated launch; none on a GPU).
#[allow(clippy::too_many_arguments)]
fn expectations(
    ctx: &Ctx,
    spec: &Check,
    name: &str,
    run: &Run<u32>,
    n: usize,
    expected: &[u32],
    shape: Shape,
    v: &declared::Verify,
) -> Result<(), Outcome> {
    let Some(c) = counters(run) else {
        return Ok(());
    };
    let counted: u64 = expected.iter().map(|&x| x as u64).sum();
    let by_name = declared::counters_by_name(c);
    // The values of LAUNCH_NAMES, in its order.
    let launch = [
        n as i128,
        counted as i128,
        shape.grid as i128,
        shape.block as i128,
        v.bins as i128,
    ];
    let value = |key: &str| -> Option<i128> {
        match LAUNCH_NAMES.iter().position(|k| *k == key) {
            Some(i) => Some(launch[i]),
            None => by_name.get(key).copied(),
        }
    };
    for e in spec.expect {
        if let Some(why) = e.test(&value).map_err(record_error)? {
            let out = ctx.technique(name, why);
            return Err(match e.kind {
                Some(kind) => out.of_kind(course::Failure::named(Status::WrongTechnique, kind)),
                None => out,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chapter::declared::Expr;

    /// What a declared check names, it can run: kernels of the table with a signature
    /// the check knows and expressions of known names (a typo in `exercises.toml` fails
    /// here, not in a student's check); every kernel whose flow the records declare is
    /// a kernel of the table.
    #[test]
    fn every_declared_check_names_what_it_can_run() {
        let k = crate::kernels::kernels(course::KernelSource::Reference);
        let counters = declared::counters_by_name(&gpu_host::Counters::default());
        let known = |name: &str| LAUNCH_NAMES.contains(&name) || counters.contains_key(name);
        assert!(!crate::checks::DECLARED.is_empty());
        for (id, check) in &crate::checks::DECLARED {
            for v in check.launches {
                let kernel = k.named(v.kernel);
                assert!(
                    kernel.is_some_and(|k| k.downcast_ref::<ByteKernel>().is_some()
                        || k.downcast_ref::<U32Kernel>().is_some()),
                    "{id}: `{}` is not a byte or u32 kernel of the table",
                    v.kernel
                );
            }
            for e in check.expect {
                for text in [e.counter, e.value] {
                    for name in Expr::parse(text).unwrap().names() {
                        assert!(known(name), "{id}: `{text}` reads `{name}`");
                    }
                }
            }
        }
        for f in &FOLLOWS {
            assert!(k.named(f.kernel).is_some(), "follow `{}`", f.kernel);
        }
    }

    /// A record naming what the chapter cannot run is the course's error, said as such,
    /// not a student's wrong technique.
    #[test]
    fn a_record_the_chapter_cannot_run_is_an_error_of_the_course() {
        static NOWHERE: Check = Check {
            launches: &[declared::Verify {
                kernel: "nowhere",
                blocks: declared::Blocks::Fixed(1),
                block: 32,
                bins: 4,
                shared_bins: false,
            }],
            expect: &[],
        };
        static WEIGHTED: Check = Check {
            launches: &[declared::Verify {
                kernel: "histo_weighted",
                blocks: declared::Blocks::Fixed(1),
                block: 32,
                bins: 4,
                shared_bins: false,
            }],
            expect: &[],
        };
        let mut dev = gpu_host::Device::emulator();
        for (check, said) in [(&NOWHERE, "no kernel `nowhere`"), (&WEIGHTED, "needs code")] {
            let mut ctx = Ctx::new(&mut dev, &crate::kernels::REFERENCE, 1, "ch09");
            let out = check_declared(&mut ctx, check).unwrap_err();
            assert_eq!(out.status, Status::Error, "{}", out.reason);
            assert!(out.reason.contains(said), "{}", out.reason);
        }
    }
}
