//! Technique checks that follow the data: what chapter 9's inputs are to
//! [`chapter::follow`] (bytes, `u32` values, pixels, weighted bytes, pairs), and the one
//! call every check makes on a launch of a kernel whose record declares its flow
//! (`[[exercise.follow]]` in `exercises.toml`, generated into [`super::FOLLOWS`]).
//!
//! The counters say how many atomics a kernel issued, and dummy atomics can match any
//! number; the launch's flow (`simt::flow`, recorded when the check calls
//! `Ctx::follow_data`) says which thread loaded which elements and where its adds went.
//! A kernel that counts somewhere else (a `Vec` in one thread, another thread's
//! registers), or lets one thread load for its block, fails here as the wrong
//! technique, with a message that names the thread that broke the chain.

use super::Ctx;
use crate::launch::Run;
use chapter::follow::{Adds, Elements, Followed, Part};
use course::Outcome;
use solutions::ch09::byte_bin;

/// What a launch's input is, element by element.
pub(crate) enum Input<'a> {
    /// Bytes, each to `byte_bin(b, bins)`.
    Bytes(&'a [u8], u32),
    /// `u32` values, each to its own bin when it is one (`v < bins`).
    Values(&'a [u32], u32),
    /// RGB pixels `R G B R G B ...` (9.11): byte `i` to channel `i % 3`'s bin of it; the
    /// bytes of a partial pixel at the end to none.
    Pixels(&'a [u8], u32),
    /// Bytes with their weights (9.12): element `i` adds `weights[i]` to its byte's bin.
    Weighted(&'a [u8], &'a [f32], u32),
    /// Pairs `(x[i], y[i])` (9.13), to `byte_bin(y, bins_y) * bins_x + byte_bin(x, bins_x)`.
    Pairs(&'a [u8], &'a [u8], u32, u32),
}

/// Follows the flow of `run` (a launch of `kernel` on `input`) against the kernel's
/// declaration: the summary when every element went where it says, else the wrong
/// technique on `case`. Nothing to follow on a GPU (the summary is empty).
pub(crate) fn follow<T>(
    ctx: &Ctx,
    case: &str,
    kernel: &str,
    run: &Run<T>,
    input: Input,
) -> Result<Followed, Outcome> {
    let Some(flow) = run.report.emulator.as_ref().and_then(|r| r.flow.as_ref()) else {
        return Ok(Followed::default());
    };
    let decl = chapter::declared::follow_declared(&super::FOLLOWS, kernel)?;
    let addr = |k: usize| run.input_addrs.get(k).copied().unwrap_or(u64::MAX);
    let part = |k: usize, size: u32| Part {
        addr: addr(k),
        size,
    };
    type Bin<'b> = Box<dyn Fn(usize) -> Option<u32> + 'b>;
    let (parts, n, bin, adds, noun): (Vec<Part>, usize, Bin, Adds, &str) = match input {
        Input::Bytes(data, bins) => (
            vec![part(0, 1)],
            data.len(),
            Box::new(move |i| Some(byte_bin(data[i], bins))),
            Adds::One,
            "byte",
        ),
        Input::Values(data, bins) => (
            vec![part(0, 4)],
            data.len(),
            Box::new(move |i| Some(data[i]).filter(|&v| v < bins)),
            Adds::One,
            "value",
        ),
        Input::Pixels(data, bins) => {
            let whole = data.len() / 3 * 3;
            (
                vec![part(0, 1)],
                data.len(),
                Box::new(move |i| {
                    (i < whole).then(|| (i % 3) as u32 * bins + byte_bin(data[i], bins))
                }),
                Adds::One,
                "pixel byte",
            )
        }
        Input::Weighted(data, weights, bins) => (
            vec![part(0, 1), part(1, 4)],
            data.len().min(weights.len()),
            Box::new(move |i| Some(byte_bin(data[i], bins))),
            Adds::Weights(weights),
            "byte",
        ),
        Input::Pairs(x, y, bins_x, bins_y) => (
            vec![part(0, 1), part(1, 1)],
            x.len().min(y.len()),
            Box::new(move |i| Some(byte_bin(y[i], bins_y) * bins_x + byte_bin(x[i], bins_x))),
            Adds::One,
            "pair",
        ),
    };
    let e = Elements {
        parts,
        n,
        bin: &*bin,
        adds,
        output: run.output_addr,
        noun,
        block_threads: run.block,
        slice_width: run.shared_bytes / 4,
    };
    chapter::follow::follow(decl, flow, &e).map_err(|why| ctx.technique(case, why))
}
