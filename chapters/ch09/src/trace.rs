//! Pictures of one launch: the access pattern and the atomic contention of one step's
//! kernel, from the emulator's trace (`simt::trace`).
//!
//! `cargo run -p ch09 -- --trace FILE.svg --step 9.3` runs step 9.3 once on a small input
//! with tracing on and writes the SVG; the runner (`cargo run -p learn`, key `t`) does
//! the same for the exercise in front of the student, on their own kernels. A step that
//! launches several kernels (9.16's strategies) is drawn from its launch with the most
//! atomics, the one the chapter is about.

use crate::command::Ch09;
use crate::kernels::kernels;
use crate::progression::{self, Params};
use chapter::app::Steps;
use course::KernelSource;

/// The step a trace draws unless asked otherwise: 9.3, global atomics, the contention
/// every later step removes.
pub const DEFAULT_STEP: &str = "9.3";

/// Parameters that make a readable picture: the options' defaults, with the trace's
/// ([`Ch09`]'s `TRACE_DEFAULTS`).
pub fn trace_params() -> Params {
    chapter::app::defaults_with(<Ch09 as chapter::app::Progression>::TRACE_DEFAULTS)
}

/// A drawn trace: the SVG and what the run said ([`chapter::trace::Drawn`]).
pub use chapter::trace::Drawn;

/// Runs `step` with the kernels of `source` on a traced emulator and draws its busiest
/// launch ([`chapter::trace::draw_kernels`]). `Err` (one line) for an unknown step or a step
/// that launched no kernel (9.1 is host code).
pub fn draw(source: KernelSource, step: &str, params: &Params) -> Result<Drawn, String> {
    chapter::trace::draw_kernels(
        source,
        &progression::STEPS,
        step,
        |dev, step| progression::run(Steps::all(dev, kernels(source), params).only(&[step])),
        |step, _| {
            format!(
                "step {step} launched no kernel on the device (9.1 is host code), so there is \
                 nothing to draw"
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_9_3_draws_its_global_atomics() {
        let d = draw(KernelSource::Reference, "9.3", &trace_params()).unwrap();
        assert!(
            d.svg.contains("atomic contention: global u32[32]"),
            "{}",
            d.summary
        );
        assert!(d.summary.starts_with("9.3 "), "{}", d.summary);
    }

    #[test]
    fn the_two_partitionings_of_9_6_are_drawn_side_by_side() {
        let d = draw(KernelSource::Reference, "9.6", &trace_params()).unwrap();
        assert!(
            d.summary.contains("2 launches side by side"),
            "{}",
            d.summary
        );
        assert!(d.svg.contains("histo_coarse_contiguous"), "{}", d.summary);
        assert!(d.svg.contains("histo_coarse_interleaved"), "{}", d.summary);
    }

    #[test]
    fn the_lost_updates_of_9_2_are_marked() {
        let d = draw(KernelSource::Reference, "9.2", &trace_params()).unwrap();
        assert!(d.svg.contains("updates lost"), "{}", d.summary);
        assert!(d.svg.contains(">bin</text>"), "{}", d.summary);
    }

    #[test]
    fn host_code_is_not_drawn() {
        let e = draw(KernelSource::Reference, "9.1", &trace_params()).unwrap_err();
        assert!(e.contains("host code"), "{e}");
    }
}
