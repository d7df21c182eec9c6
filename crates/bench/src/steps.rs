//! A chapter's kernels as the bench launches them ([`Step`]), and the same-grid mode: each
//! step again on the launch shape of the step before it, and what that says.

use crate::report::Row;
use chapter::launch::Shape;

/// One GPU kernel of a chapter's progression, as the bench launches it. `K` is the
/// chapter's kernel and the shape of its arguments (chapter 9's `StepKernel`).
#[derive(Clone, Copy, Debug)]
pub struct Step<K> {
    /// The exercise it belongs to, `9.9`.
    pub step: &'static str,
    /// The kernel's name.
    pub kernel: &'static str,
    /// The kernel and its arguments' shape.
    pub launch: K,
    /// `<<<grid, block, shared>>>`.
    pub shape: Shape,
    /// Elements the kernel's output holds (9.4 has a copy of the bins per block).
    pub out_len: u32,
}

/// The separator of a same-grid row's name: `histo_fastest@9.8` is 9.9's kernel on 9.8's
/// launch shape.
pub const SAME_GRID: char = '@';

/// `steps` (in the progression's order) with, after each step whose grid or block differs
/// from the step before it, the same kernel on that step's grid and block (its own dynamic
/// shared memory): row `KERNEL@STEP` of step `STEP`'s shape. Then "step `i` against step
/// `i - 1`" can be read on one grid (`KERNEL@PREV` against the previous row), and the
/// grid's own effect apart (`KERNEL` against `KERNEL@PREV`). `retarget(step, shape)` gives
/// the step's kernel and output length on the other shape (a coarsening that covers the
/// input there, a copy of the bins per block of that grid), when they depend on the grid.
pub fn same_grid_steps<K: Copy>(
    steps: Vec<Step<K>>,
    retarget: impl Fn(&Step<K>, Shape) -> (K, u32),
) -> Vec<Step<K>> {
    let mut out = Vec::with_capacity(2 * steps.len());
    for (i, s) in steps.iter().enumerate() {
        out.push(*s);
        let Some(prev) = i.checked_sub(1).map(|j| steps[j]) else {
            continue;
        };
        if (prev.shape.grid, prev.shape.block) == (s.shape.grid, s.shape.block) {
            continue;
        }
        let shape = Shape {
            grid: prev.shape.grid,
            block: prev.shape.block,
            shared_bytes: s.shape.shared_bytes,
        };
        let (launch, out_len) = retarget(s, shape);
        // A few names per run: leaked so that `Step` stays `Copy` like its other rows'.
        let kernel: &'static str =
            Box::leak(format!("{}{SAME_GRID}{}", s.kernel, prev.step).into_boxed_str());
        out.push(Step {
            step: s.step,
            kernel,
            launch,
            shape,
            out_len,
        });
    }
    out
}

/// The same-grid comparisons of `rows` (a bench with `--same-grid`), per element type and
/// input: for each row `KERNEL@PREV`, the step against the previous step's kernel on one
/// grid (`KERNEL@PREV` over the previous step's own row: the technique) and the step's own
/// grid against the previous step's (`KERNEL` over `KERNEL@PREV`: the grid). Ratios of
/// median times, below 1 faster.
pub fn same_grid_summary(rows: &[Row]) -> Vec<String> {
    let time = |dtype: &str, input: &str, name: &str| {
        rows.iter()
            .find(|r| r.dtype == dtype && r.input == input && r.implementation == name)
            .and_then(|r| r.rate.median_ms)
    };
    let mut out = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let Some((kernel, prev_step)) = r.implementation.split_once(SAME_GRID) else {
            continue;
        };
        // The previous step's kernel: the last row of step `prev_step` before this one.
        let Some(prev) = rows[..i].iter().rev().find(|p| {
            p.step == prev_step
                && p.dtype == r.dtype
                && p.input == r.input
                && !p.implementation.contains(SAME_GRID)
        }) else {
            continue;
        };
        let here = r.rate.median_ms;
        let (technique, grid) = match (here, prev.rate.median_ms, time(&r.dtype, &r.input, kernel))
        {
            (Some(h), Some(p), Some(own)) => (h / p, own / h),
            _ => continue,
        };
        out.push(format!(
            "same grid, {} {}: {} {kernel} on {prev_step}'s grid takes {technique:.2}x {} there \
             (the technique); on its own grid {grid:.2}x its time on {prev_step}'s (the grid)",
            r.dtype, r.input, r.step, prev.implementation
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(step: &'static str, grid: u32, launch: u32) -> Step<u32> {
        Step {
            step,
            kernel: step,
            launch,
            shape: Shape::new(grid, 256).with_bins(4),
            out_len: 8,
        }
    }

    /// A step gets a same-grid twin only when its grid differs from the step before, on
    /// that step's grid with its own shared memory and what `retarget` gives.
    #[test]
    fn a_twin_follows_each_step_whose_grid_changed() {
        let steps = vec![step("1", 10, 1), step("2", 10, 2), step("3", 20, 3)];
        let out = same_grid_steps(steps, |s, shape| (s.launch * 10, shape.grid));
        let names: Vec<&str> = out.iter().map(|s| s.kernel).collect();
        assert_eq!(names, ["1", "2", "3", "3@2"]);
        assert_eq!(out[3].shape, Shape::new(10, 256).with_bins(4));
        assert_eq!((out[3].launch, out[3].out_len), (30, 10));
    }

    #[test]
    fn the_summary_reads_the_technique_and_the_grid_apart() {
        let row = |name: &str, step: &str, ms: f64| {
            Row::new(name, step, "uniform", "u8", 256, 1 << 20).measured(ms, 1)
        };
        let rows = [
            row("a", "9.4", 2.0),
            row("b", "9.5", 1.0),
            row("b@9.4", "9.5", 0.5),
        ];
        let s = same_grid_summary(&rows);
        assert_eq!(s.len(), 1, "{s:?}");
        assert!(
            s[0].contains("9.5 b on 9.4's grid takes 0.25x a there"),
            "{}",
            s[0]
        );
        assert!(s[0].contains("on its own grid 2.00x"), "{}", s[0]);
    }
}
