//! Pictures of one launch: the access pattern and the atomic contention of one step's
//! kernel, from the emulator's trace (`simt::trace`).
//!
//! `cargo run -p ch09 -- --trace FILE.svg --step 9.3` runs step 9.3 once on a small input
//! with tracing on and writes the SVG; the runner (`cargo run -p learn`, key `t`) does
//! the same for the exercise in front of the student, on their own kernels. A step that
//! launches several kernels (9.16's strategies) is drawn from its launch with the most
//! atomics, the one the chapter is about.

use crate::kernels::kernels;
use crate::progression::{self, Params};
use course::KernelSource;
use gpu_host::{Config, Device};
use simt::trace::{Trace, TraceSink};

/// The elements a trace counts unless asked otherwise: enough for several blocks and
/// warps, few enough that every warp step stays a visible column.
pub const TRACE_N: usize = 2048;

/// The step a trace draws unless asked otherwise: 9.3, global atomics, the contention
/// every later step removes.
pub const DEFAULT_STEP: &str = "9.3";

/// Parameters that make a readable picture: [`TRACE_N`] elements, 64 threads a block
/// (two warps, so warps of one block can be told apart), 32 bins (so a hot bin shows).
pub fn trace_params() -> Params {
    Params {
        n: Some(TRACE_N),
        bins: 32,
        block: 64,
        grid: None,
        coarsen: 4,
        ..Params::default()
    }
}

/// A drawn trace: the SVG and what the run said.
#[derive(Clone, Debug)]
pub struct Drawn {
    /// The SVG document.
    pub svg: String,
    /// One line for the terminal: the step, the kernel, its status, the launch drawn.
    pub summary: String,
}

/// Runs `step` with the kernels of `source` on a traced emulator and draws its busiest
/// launch. `Err` (one line) for an unknown step or a step that launched no kernel (9.1
/// is host code).
pub fn draw(source: KernelSource, step: &str, params: &Params) -> Result<Drawn, String> {
    let Some(&step) = progression::STEPS.iter().find(|&&s| s == step) else {
        return Err(format!(
            "no step {step} (the steps are {})",
            progression::STEPS.join(", ")
        ));
    };
    let sink = TraceSink::new();
    let mut dev = Device::emulator_with(Config {
        trace: Some(sink.clone()),
        ..Config::default()
    });
    let rows = progression::run(&mut dev, kernels(source), params, &[step], &mut |_| {});
    let traces = sink.take();
    let Some((i, trace)) = Trace::busiest(&traces) else {
        return Err(format!(
            "step {step} launched no kernel on the device (9.1 is host code), so there is \
             nothing to draw"
        ));
    };
    let row = rows.get(i.min(rows.len().saturating_sub(1)));
    let kernel = row.map_or("?", |r| r.kernel.as_str());
    let status = row.map_or("?", |r| r.status.as_str());
    let title = format!(
        "{step} {kernel} ({} kernels): {} elements, {} bins: {status}",
        source.name(),
        params.elements(),
        params.bins
    );
    let summary = format!(
        "{step} {kernel}: {status}; traced launch {} of {} ({} warp steps touched memory, {} atomic lanes)",
        i + 1,
        traces.len(),
        trace.steps.len(),
        trace.atomic_lanes()
    );
    Ok(Drawn {
        svg: simt::render_svg(trace, &title),
        summary,
    })
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
    fn host_code_and_unknown_steps_are_errors() {
        assert!(
            draw(KernelSource::Reference, "9.1", &trace_params())
                .unwrap_err()
                .contains("host code")
        );
        assert!(
            draw(KernelSource::Reference, "9.99", &trace_params())
                .unwrap_err()
                .contains("9.1, 9.2")
        );
    }
}
