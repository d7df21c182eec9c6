//! Pictures of one launch: one step of a chapter run on a traced emulator, and its
//! busiest launch drawn as SVG ([`crate::trace_svg::render_svg`]).
//!
//! `cargo run -p ch05 -- --trace FILE.svg` and `cargo run -p ch09 -- --trace FILE.svg`
//! (and the runner's key `t`) draw this way; a chapter says how to run a step and how to
//! title the picture, this module does the tracing and picks the launch.

use crate::row::Row;
use gpu_host::{Config, Device};
use simt::trace::{Trace, TraceSink};

/// A drawn trace: the SVG and what the run said.
#[derive(Clone, Debug)]
pub struct Drawn {
    /// The SVG document.
    pub svg: String,
    /// One line for the terminal: the step, the kernel, its status, the launch drawn.
    pub summary: String,
}

/// Runs `step` (one of `steps`) by `run` on a traced emulator and draws it: a step of
/// two or three kernels of one launch each side by side (9.6's contiguous and
/// interleaved partitionings), else its busiest launch, the one with the most atomics
/// (else the first): the one with the contention the chapter is about. The picture is titled
/// `title(step, kernel, status)`. `Err` (one line) for an unknown step, or
/// `nothing_to_draw(step, rows)` for a step that launched no kernel.
pub fn draw<E>(
    steps: &[&'static str],
    step: &str,
    run: impl FnOnce(&mut Device, &'static str) -> Vec<Row<E>>,
    nothing_to_draw: impl FnOnce(&'static str, &[Row<E>]) -> String,
    title: impl Fn(&'static str, &str, &str) -> String,
) -> Result<Drawn, String> {
    let Some(&step) = steps.iter().find(|&&s| s == step) else {
        return Err(format!(
            "no step {step} (the steps are {})",
            steps.join(", ")
        ));
    };
    let sink = TraceSink::new();
    let mut dev = Device::emulator_with(Config {
        trace: Some(sink.clone()),
        ..Config::default()
    });
    let rows = run(&mut dev, step);
    let traces = sink.take();
    let Some((i, trace)) = Trace::busiest(&traces) else {
        return Err(nothing_to_draw(step, &rows));
    };
    // A step of two or three kernels, one launch each (9.6's two partitionings, 9.14's
    // global and shared kernels): side by side, so that the contrast it is about shows.
    if (2..=3).contains(&traces.len()) && traces.len() == rows.len() {
        let parts: Vec<String> = traces
            .iter()
            .zip(&rows)
            .map(|(t, r)| crate::trace_svg::render_svg(t, &title(step, &r.kernel, &r.status)))
            .collect();
        let names: Vec<String> = rows
            .iter()
            .map(|r| format!("{} ({})", &r.kernel, &r.status))
            .collect();
        return Ok(Drawn {
            svg: crate::trace_svg::side_by_side(&parts),
            summary: format!(
                "{step}: {} launches side by side: {}",
                traces.len(),
                names.join(", ")
            ),
        });
    }
    let row = rows.get(i.min(rows.len().saturating_sub(1)));
    let kernel = row.map_or("?", |r| r.kernel.as_str());
    let status = row.map_or("?", |r| r.status.as_str());
    let title = title(step, kernel, status);
    let summary = format!(
        "{step} {kernel}: {status}; traced launch {} of {} ({} warp steps touched memory, {} atomic lanes)",
        i + 1,
        traces.len(),
        trace.steps.len(),
        trace.atomic_lanes()
    );
    Ok(Drawn {
        svg: crate::trace_svg::render_svg(trace, &title),
        summary,
    })
}
