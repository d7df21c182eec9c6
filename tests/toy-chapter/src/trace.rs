//! The toy chapter's one step, traced and drawn.

use crate::kernels::kernels;
use crate::progression::{self, Params};
use chapter::app::Steps;
use course::KernelSource;

/// The step a trace draws unless asked otherwise.
pub const DEFAULT_STEP: &str = "1.1";

/// Runs `step` on a traced emulator and draws it ([`chapter::trace::draw`]).
pub fn draw(
    source: KernelSource,
    step: &str,
    params: &Params,
) -> Result<chapter::trace::Drawn, String> {
    chapter::trace::draw(
        &progression::STEPS,
        step,
        |dev, step| progression::run(Steps::all(dev, kernels(source), params).only(&[step])),
        |step, _| format!("{step} launched no kernel"),
        |step, kernel, status| format!("{step} {kernel}: {status}"),
    )
}
