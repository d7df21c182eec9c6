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

/// [`draw`] of a chapter's progression run with the kernels of `source`, each picture titled
/// `STEP KERNEL (SOURCE kernels): STATUS`: what every chapter's `trace::draw` is.
pub fn draw_kernels<E>(
    source: course::KernelSource,
    steps: &[&'static str],
    step: &str,
    run: impl FnOnce(&mut Device, &'static str) -> Vec<Row<E>>,
    nothing_to_draw: impl FnOnce(&'static str, &[Row<E>]) -> String,
) -> Result<Drawn, String> {
    draw(steps, step, run, nothing_to_draw, |step, kernel, status| {
        format!("{step} {kernel} ({} kernels): {status}", source.name())
    })
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
            .map(|(t, r)| {
                crate::trace_svg::render_svg(t, &title(step, &launch_name(t, &r.kernel), &r.status))
            })
            .collect();
        let names: Vec<String> = traces
            .iter()
            .zip(&rows)
            .map(|(t, r)| format!("{} ({})", launch_name(t, &r.kernel), &r.status))
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
    // The row of the kernel drawn (a step's rows need not be one per launch: 5.1's one
    // block and two blocks are two rows of several launches).
    let row = rows
        .iter()
        .find(|r| !trace.kernel.is_empty() && r.kernel == trace.kernel)
        .or_else(|| rows.get(i.min(rows.len().saturating_sub(1))));
    let kernel = launch_name(trace, row.map_or("?", |r| r.kernel.as_str()));
    let status = row.map_or("?", |r| r.status.as_str());
    let title = title(step, &kernel, status);
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

/// The launch a trace records, as a picture names it: its kernel (the trace's own name,
/// else `fallback`) and its shape, `mul_one_block<<<1, 128>>>`.
pub fn launch_name(trace: &Trace, fallback: &str) -> String {
    let kernel = if trace.kernel.is_empty() {
        fallback
    } else {
        trace.kernel.as_str()
    };
    let dim = |d: [u32; 3]| {
        if d[1] == 1 && d[2] == 1 {
            d[0].to_string()
        } else {
            format!("({},{},{})", d[0], d[1], d[2])
        }
    };
    format!("{kernel}<<<{}, {}>>>", dim(trace.grid), dim(trace.block))
}

/// Whether a failure's input (`..., <<<3, 64>>>` or `<<<1, 64, 1024 bytes>>>`) names the
/// 1-D shape of `trace`'s launch; an input that names no 1-D shape is taken as it is.
fn same_shape(input: &str, trace: &Trace) -> bool {
    let Some(shape) = input
        .split("<<<")
        .nth(1)
        .and_then(|rest| rest.split(">>>").next())
    else {
        return true;
    };
    if shape.contains('(') {
        return true;
    }
    let numbers: Vec<u32> = shape
        .split(',')
        .filter_map(|p| p.split_whitespace().next()?.parse().ok())
        .collect();
    match numbers[..] {
        [grid, block, ..] => trace.grid == [grid, 1, 1] && trace.block == [block, 1, 1],
        _ => true,
    }
}

/// What [`draw_failing`] found: the failing launch drawn, or a check that passes (the
/// caller then draws the exercise's step as usual).
#[derive(Debug)]
pub enum Failing {
    /// The check failed on a launch: the picture of that launch, on the input it failed.
    Drawn(Drawn),
    /// The check passes: there is no failing input to draw.
    Passes,
}

/// Runs exercise `id`'s check (`check`, on the device it is given: `Exercise::run` with
/// the student's kernels) on a traced emulator with the checks' own limits, and draws the
/// launch it failed on: its last, on the input the failure names (a check stops at its
/// first failure). `Err` (for the student) when the failure has no launch to draw, and
/// why: a stub's `todo!`, a host function's wrong answer, a build error.
pub fn draw_failing(
    id: &str,
    check: impl FnOnce(&mut Device) -> course::Outcome,
) -> Result<Failing, String> {
    let sink = TraceSink::last_only();
    let mut dev = Device::emulator_with(Config {
        trace: Some(sink.clone()),
        ..course::Limits::CHECKS.simt_config()
    });
    let out = check(&mut dev);
    if out.passed() {
        return Ok(Failing::Passes);
    }
    let status = out.status.label();
    let input = out
        .details
        .iter()
        .find_map(|d| d.strip_prefix("input: "))
        .map(str::to_string);
    let (Some(input), Some(trace)) = (input, sink.take().pop()) else {
        let why = match out.status {
            course::Status::NotImplemented => {
                "a `todo!` is still there: there is no kernel of yours to draw yet"
            }
            course::Status::Error => "the check could not run a launch",
            _ => "it fails on what a host function returned, not in a launch",
        };
        return Err(format!(
            "{} fails ({status}: {}), but there is no failing launch to draw: {why}",
            id, out.reason
        ));
    };
    if !same_shape(&input, &trace) {
        return Err(format!(
            "{} fails ({status}: {}) on {input}, which its check found after its last launch, \
             <<<{}, {}>>>: that launch is not the failing one, so it is not drawn",
            id, out.reason, trace.grid[0], trace.block[0]
        ));
    }
    let kernel = launch_name(&trace, "?");
    let title = format!("{} fails ({status}) on {input}: {kernel}", id);
    let summary = format!(
        "{} {kernel}: {status} - {}; traced the failing launch (input: {input}; {} warp steps touched memory, {} atomic lanes)",
        id,
        out.reason,
        trace.steps.len(),
        trace.atomic_lanes()
    );
    Ok(Failing::Drawn(Drawn {
        svg: crate::trace_svg::render_svg(&trace, &title),
        summary,
    }))
}
