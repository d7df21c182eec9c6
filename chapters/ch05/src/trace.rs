//! Pictures of one launch: which thread of which warp touched which element at each warp
//! step, and the atomic contention per bin, from the emulator's trace (`simt::trace`).
//!
//! `cargo run -p ch05 -- --trace FILE.svg --step 5.3` runs step 5.3 once on a small input
//! with tracing on and writes the SVG; the runner (`cargo run -p learn`, key `t`) does the
//! same for the exercise in front of the student, on their own kernels. A step that
//! launches several kernels (5.1's one block and two blocks, 5.6's four histograms) is
//! drawn from its launch with the most atomics, else its first.

use crate::command::Ch05;
use crate::kernels::{Kernels, kernels};
use crate::progression::{self, Params};
use chapter::app::Steps;
use course::KernelSource;

/// The step a trace draws unless asked otherwise: 5.3, the grid-stride loop, whose
/// picture shows each warp sweeping the array a grid's width at a time.
pub const DEFAULT_STEP: &str = "5.3";

/// Parameters that make a readable picture: the options' defaults, with the trace's
/// ([`Ch05`]'s `TRACE_DEFAULTS`).
pub fn trace_params() -> Params {
    chapter::app::defaults_with(<Ch05 as chapter::app::Progression>::TRACE_DEFAULTS)
}

/// A drawn trace: the SVG and what the run said ([`chapter::trace::Drawn`]).
pub use chapter::trace::Drawn;

/// Runs `step` with the kernels of `source` on a traced emulator and draws its busiest
/// launch ([`chapter::trace::draw_kernels`]). `Err` (one line) for an unknown step or a step
/// that launched no kernel.
pub fn draw(source: KernelSource, step: &str, params: &Params) -> Result<Drawn, String> {
    draw_table(kernels(source), step, params)
}

/// [`draw`] from a table of kernels rather than a crate: what the tests use to draw a
/// stand-in without depending on the student's files.
pub fn draw_table(k: &Kernels, step: &str, params: &Params) -> Result<Drawn, String> {
    chapter::trace::draw_kernels(
        k.source,
        &progression::STEPS,
        step,
        |dev, step| progression::run(Steps::all(dev, k, params).only(&[step])),
        |step, rows| {
            let status = rows.first().map_or("no row", |r| r.status.as_str());
            format!(
                "step {step} launched no kernel on the device ({status}), so there is nothing to draw"
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::stand_ins::unsolved_mul;

    #[test]
    fn the_reference_grid_stride_loop_is_drawn() {
        let d = draw(KernelSource::Reference, "5.3", &trace_params()).unwrap();
        assert!(d.svg.starts_with("<svg"), "{}", d.summary);
        assert!(d.summary.starts_with("5.3 "), "{}", d.summary);
        assert!(d.summary.contains("0 atomic lanes"), "{}", d.summary);
    }

    #[test]
    fn the_histograms_are_drawn_from_a_launch_with_atomics() {
        let d = draw(KernelSource::Reference, "5.6", &trace_params()).unwrap();
        assert!(!d.summary.contains(" 0 atomic lanes"), "{}", d.summary);
        assert!(d.svg.contains("atomic contention"), "{}", d.summary);
    }

    /// The picture's title names the launch drawn, with its own shape (5.1's one-block
    /// launch was once titled with the two-block launch's block size).
    #[test]
    fn the_title_names_the_launch_drawn() {
        let d = draw(KernelSource::Reference, "5.1", &trace_params()).unwrap();
        let title = d
            .svg
            .split("font-weight=\"bold\">")
            .nth(1)
            .unwrap_or_default();
        let sub = d.svg.split("font-size=\"11\">").nth(1).unwrap_or_default();
        assert!(
            title.starts_with("5.1 mul_one_block&lt;&lt;&lt;1, 128&gt;&gt;&gt;"),
            "{title}"
        );
        assert!(sub.starts_with("grid (1,1,1), block (128,1,1)"), "{sub}");
    }

    /// An unguarded `mul_blocks`: the last block's threads past the end read and write
    /// out of bounds.
    #[gpu::kernel]
    fn mul_unguarded(a: gpu::GlobalSlice<u32>, b: gpu::GlobalSlice<u32>, c: gpu::GlobalSlice<u32>) {
        let i = gpu::thread::index_1d();
        a.store(i, b.load(i).wrapping_mul(c.load(i)));
    }

    fn warps_rounded_down(threads: u32) -> u32 {
        threads / 32
    }

    /// `t` on a failing exercise draws the launch the check failed on, titled with its
    /// input; a failure no launch shows says so.
    #[test]
    fn a_failing_check_draws_its_failing_launch_or_says_why_not() {
        let table = |k: Kernels| -> &'static Kernels { Box::leak(Box::new(k)) };
        let unguarded = table(Kernels {
            mul_blocks: mul_unguarded::KERNEL,
            ..crate::kernels::REFERENCE
        });
        let drawn = chapter::trace::draw_failing("5.1", |dev| {
            crate::checks::check_with("5.1", dev, unguarded).unwrap()
        });
        let Ok(chapter::trace::Failing::Drawn(d)) = drawn else {
            panic!("{drawn:?}")
        };
        assert!(
            d.summary
                .starts_with("5.1 mul_unguarded<<<2, 64>>>: out of bounds")
                && d.summary
                    .contains("input: mul_blocks, n = 100, <<<2, 64>>>"),
            "{}",
            d.summary
        );
        assert!(
            d.svg.contains("5.1 fails (out of bounds) on mul_blocks"),
            "{}",
            d.svg
        );
        // The reads past the end that failed the launch are drawn, marked.
        assert!(
            d.svg.contains("past the end (index 100") && d.svg.contains("stroke-dasharray"),
            "{}",
            d.svg
        );
        assert!(
            d.summary.contains("traced the failing launch"),
            "{}",
            d.summary
        );
        let wrong_count = table(Kernels {
            warps_per_block: warps_rounded_down,
            ..crate::kernels::REFERENCE
        });
        let why = chapter::trace::draw_failing("5.4", |dev| {
            crate::checks::check_with("5.4", dev, wrong_count).unwrap()
        })
        .unwrap_err();
        assert!(why.contains("host function"), "{why}");
        let passes = chapter::trace::draw_failing("5.1", |dev| {
            crate::checks::check_with("5.1", dev, &crate::kernels::REFERENCE).unwrap()
        });
        assert!(
            matches!(passes, Ok(chapter::trace::Failing::Passes)),
            "{passes:?}"
        );
    }

    #[test]
    fn stubs_say_why() {
        // A stub panics in its first warp: the launch is still traced (the trace is kept
        // when a launch fails), and the summary says what happened. The stub is a stand-in
        // here, so that the test does not depend on what is in `kernels/`.
        let stubs = Kernels {
            source: KernelSource::Student,
            mul_grid_stride: unsolved_mul::KERNEL,
            ..crate::kernels::REFERENCE
        };
        let d = draw_table(&stubs, "5.3", &trace_params()).unwrap();
        assert!(d.summary.contains("not implemented"), "{}", d.summary);
    }
}
