//! Pictures of one launch: which thread of which warp touched which word at each warp
//! step, from the emulator's trace (`simt::trace`).
//!
//! `cargo run -p ch10 -- --trace FILE.svg --step 10.6` runs step 10.6 once on a small
//! input with tracing on and writes the SVG; the runner (`cargo run -p learn`, key `t`)
//! does the same for the exercise in front of the student, on their own kernels. A step
//! that launches two kernels (10.9's `u32` and `f32`) is drawn side by side.

use crate::kernels::kernels;
use crate::progression::{self, Params};
use chapter::app::Steps;
use course::KernelSource;

/// The step a trace draws unless asked otherwise: 10.6, the tree with sequential
/// addressing, whose picture shows the busy threads halve round by round.
pub const DEFAULT_STEP: &str = "10.6";

/// A drawn trace: the SVG and what the run said ([`chapter::trace::Drawn`]).
pub use chapter::trace::Drawn;

/// Runs `step` with the kernels of `source` on a traced emulator and draws its busiest
/// launch ([`chapter::trace::draw`]). `Err` (one line) for an unknown step or a step
/// that launched no kernel (10.1 runs on the host).
pub fn draw(source: KernelSource, step: &str, params: &Params) -> Result<Drawn, String> {
    chapter::trace::draw(
        &progression::STEPS,
        step,
        |dev, step| progression::run(Steps::all(dev, kernels(source), params).only(&[step])),
        |step, rows| match rows.first() {
            Some(r) if r.extra.launch == "host" => {
                format!("{step} runs on the host (no kernel to draw): try --step 10.2 or later")
            }
            Some(r) => format!("{step} launched no kernel: {} {}", r.kernel, r.status),
            None => format!("{step} launched no kernel"),
        },
        |step, kernel, status| format!("{step} {kernel}: {status}"),
    )
}
