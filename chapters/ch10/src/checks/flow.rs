//! Technique checks that follow the data: what chapter 10's inputs are to
//! [`chapter::follow`] (`u32` or `f32` values, each added once into the one output), and
//! the one call a check makes on a launch of a kernel whose record declares its flow
//! (`[[exercise.follow]]` in `exercises.toml`, generated into [`super::FOLLOWS`]).
//!
//! The counters say how many atomics a kernel issued, and dummy work can match any
//! number; the flow says which thread loaded which element and where its value went: a
//! store into the block's tree, a move of two words' sum into one, a shuffle, an atomic.

use super::Ctx;
use crate::launch::Run;
use chapter::follow::{Adds, Elements, Followed, Part};
use course::{Failure, Outcome};

/// The input of a followed launch.
pub(crate) enum Values<'a> {
    /// `u32` elements, summed with wrapping.
    U32(&'a [u32]),
    /// `f32` elements.
    F32(&'a [f32]),
}

/// Follows the flow of `run` (a launch of `kernel` on `values`) against the kernel's
/// declaration: the summary when every element reached the sum as it says, else the
/// wrong technique on `case` (of kind `tree_shape` when the rounds of the tree are not
/// the step's). Nothing to follow on a GPU.
pub(crate) fn follow<T>(
    ctx: &Ctx,
    case: &str,
    kernel: &str,
    run: &Run<T>,
    values: Values,
) -> Result<Followed, Outcome> {
    let Some(flow) = run.report.emulator.as_ref().and_then(|r| r.flow.as_ref()) else {
        return Ok(Followed::default());
    };
    let decl = chapter::declared::follow_declared(&super::FOLLOWS, kernel)?;
    let (n, adds) = match values {
        Values::U32(v) => (v.len(), Adds::Values(v)),
        Values::F32(v) => (v.len(), Adds::FloatValues(v)),
    };
    let e = Elements {
        parts: vec![Part {
            addr: run.input_addrs[0],
            size: 4,
        }],
        n,
        bin: &|_| Some(0),
        adds,
        output: run.output_addr,
        noun: "element",
        block_threads: run.block,
        slice_width: 0,
    };
    chapter::follow::follow(decl, flow, &e).map_err(|why| {
        let kind = kind_of(decl, &why);
        let out = ctx.technique(case, why);
        match kind {
            Some(k) => out.of_kind(k),
            None => out,
        }
    })
}

/// The kind of a break of the chain, where the records name one: a tree whose rounds
/// are not the step's, or a whole vector read with narrower loads.
fn kind_of(decl: &chapter::declared::Follow, why: &str) -> Option<Failure> {
    if why.contains(chapter::follow::TREE_BROKEN) {
        return Some(crate::failures::TREE_SHAPE);
    }
    let vector = format!("every whole {}-byte vector", decl.vector_bytes);
    (decl.vector_bytes > 0 && why.contains(&vector)).then_some(crate::failures::NARROW_LOADS)
}
