//! Concurrent kernels, run: `cargo run -p ch09 -- streams`.
//!
//! The input's two halves are counted by two launches of 9.5's
//! [`histo_private_dynamic`](solutions::ch09::histo_private_dynamic()) (a grid-stride loop,
//! so any grid serves), each into bins of its own, and the host adds the two histograms.
//! Once both launches go to one stream (the second waits for the first), once to two
//! streams (nothing orders them). A GPU runs the two at the same time only when the first
//! leaves it room: the grids are sized as a share of the blocks the GPU keeps resident.
//!
//! On a GPU each arrangement is timed between two events, `reps` times. On the emulator,
//! which runs one launch after the other, the run shows [`Device::timeline`]: which
//! launches a GPU may overlap, and how much of the GPU each one's grid takes.

use crate::launch::Shape;
use chapter::timing::median;
use gpu_host::{Device, DeviceBuffer, LaunchError, Stream};
use solutions::ch09::histo_private_dynamic;
use std::time::Duration;

/// One arrangement of the two launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrangement {
    /// Both launches on one stream.
    OneStream,
    /// One launch on each of two streams.
    TwoStreams,
}

impl Arrangement {
    /// Its name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Arrangement::OneStream => "one stream",
            Arrangement::TwoStreams => "two streams",
        }
    }
}

/// One grid's result: both arrangements.
#[derive(Clone, Debug)]
pub struct StreamsRun {
    /// The launch of each half.
    pub shape: Shape,
    /// The blocks the device keeps resident at once with this block and shared memory.
    pub resident: u32,
    /// Whether the sum of the two halves' histograms was right, in each arrangement.
    pub correct: [bool; 2],
    /// On a GPU: the median time of each arrangement, from before the first launch to
    /// after the second.
    pub gpu_median: [Option<Duration>; 2],
}

/// Runs the two halves of `data` in both arrangements, for each grid of `grids`
/// (blocks per launch), `block` threads a block, `bins` bins; `reps` timed runs of each
/// on a GPU. On the emulator the device's [`Device::timeline`] holds the launches.
pub fn run(
    dev: &mut Device,
    data: &[u8],
    bins: u32,
    block: u32,
    grids: &[u32],
    reps: u32,
) -> Result<Vec<StreamsRun>, LaunchError> {
    let (lo, hi) = data.split_at(data.len() / 2);
    let expected = crate::reference::byte_histogram(data, bins);
    let halves = [dev.upload(lo)?, dev.upload(hi)?];
    let outs = [
        dev.alloc::<u32>(bins as usize)?,
        dev.alloc::<u32>(bins as usize)?,
    ];
    let streams = [dev.create_stream()?, dev.create_stream()?];
    let mut runs = Vec::new();
    for &grid in grids {
        let shape = Shape::new(grid, block).with_bins(bins);
        let resident = dev.props().sm_count
            * dev
                .props()
                .blocks_per_sm_with_shared(block, shape.shared_bytes);
        let mut run = StreamsRun {
            shape,
            resident,
            correct: [false; 2],
            gpu_median: [None; 2],
        };
        for (i, arr) in [Arrangement::OneStream, Arrangement::TwoStreams]
            .into_iter()
            .enumerate()
        {
            let mut times = Vec::new();
            let rounds = if dev.is_emulator() {
                1
            } else {
                reps.max(1) + 2
            };
            for round in 0..rounds {
                let t = pair(dev, &streams, arr, shape, &halves, &outs)?;
                if round >= 2 {
                    times.extend(t);
                }
            }
            let a = dev.download(&outs[0])?;
            let b = dev.download(&outs[1])?;
            let sum: Vec<u32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            run.correct[i] = sum == expected;
            run.gpu_median[i] = (!times.is_empty()).then(|| median(&times));
        }
        runs.push(run);
    }
    for b in halves {
        dev.free(b)?;
    }
    for b in outs {
        dev.free(b)?;
    }
    Ok(runs)
}

// ANCHOR: pair
/// One run of the two launches in arrangement `arr`, from zeroed bins: the GPU's
/// time from an event before the first launch to one after both (`None` on the
/// emulator).
fn pair(
    dev: &mut Device,
    streams: &[Stream; 2],
    arr: Arrangement,
    shape: Shape,
    halves: &[DeviceBuffer<u8>; 2],
    outs: &[DeviceBuffer<u32>; 2],
) -> Result<Option<Duration>, LaunchError> {
    dev.fill(&outs[0], 0)?;
    dev.fill(&outs[1], 0)?;
    // The fills run on the device's default stream, which the two streams do not
    // wait for: wait here, outside the timed events.
    dev.synchronize()?;
    let [a, b] = streams;
    let second = match arr {
        Arrangement::OneStream => a,
        Arrangement::TwoStreams => b,
    };
    // Both streams start after `start`, and `end` follows both.
    let start = dev.record_event(a)?;
    dev.wait_event(b, &start)?;
    let k = &histo_private_dynamic::KERNEL;
    dev.launch_on(a, k, shape.config(), (halves[0].slice(), outs[0].slice()))?;
    dev.launch_on(
        second,
        k,
        shape.config(),
        (halves[1].slice(), outs[1].slice()),
    )?;
    let b_done = dev.record_event(b)?;
    dev.wait_event(a, &b_done)?;
    let end = dev.record_event(a)?;
    dev.synchronize_stream(a)?;
    dev.elapsed(&start, &end)
}
// ANCHOR_END: pair

/// The runs as a table: the grid's share of the GPU, and the time of each arrangement
/// on a GPU, or whether the emulator's run was right.
pub fn table(runs: &[StreamsRun], bytes: usize) -> String {
    let gpu = runs.iter().any(|r| r.gpu_median[0].is_some());
    let mut out = format!(
        "{:>14} {:>10} {:>22} {:>22} {:>8}",
        "grid x block",
        "of GPU",
        "one stream",
        "two streams",
        if gpu { "ratio" } else { "" }
    )
    .trim_end()
    .to_string();
    out.push('\n');
    for r in runs {
        let share = format!(
            "{:.0} %",
            100.0 * r.shape.grid as f64 / r.resident.max(1) as f64
        );
        let cell = |i: usize| match r.gpu_median[i] {
            Some(t) => format!(
                "{:.3} ms {:.0} GB/s",
                t.as_secs_f64() * 1e3,
                bytes as f64 / t.as_secs_f64() / 1e9
            ),
            None => (if r.correct[i] { "correct" } else { "WRONG" }).to_string(),
        };
        let ratio = match r.gpu_median {
            [Some(one), Some(two)] => format!("{:.2}x", one.as_secs_f64() / two.as_secs_f64()),
            _ => String::new(),
        };
        let line = format!(
            "{:>14} {share:>10} {:>22} {:>22} {ratio:>8}",
            format!("{} x {}", r.shape.grid, r.shape.block),
            cell(0),
            cell(1),
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The emulator's timeline of the two-stream launches: each with its stream, grid, share
/// of the resident blocks and what it may overlap on a GPU.
pub fn timeline(dev: &Device) -> String {
    let t = dev.timeline();
    let mut out = String::new();
    for (i, l) in t.iter().enumerate() {
        let resident = dev.props().sm_count * l.blocks_per_sm;
        let overlap = if l.may_overlap.is_empty() {
            "none (ordered)".to_string()
        } else {
            l.may_overlap
                .iter()
                .map(|m| format!("#{}", m + 1))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let c = l.report.counters().copied().unwrap_or_default();
        out.push_str(&format!(
            "#{} stream {}: {} <<<{}, {}>>>, {:.0} % of {} resident blocks\n   \
             {} global atomics; may overlap on a GPU: {overlap}\n",
            i + 1,
            l.stream,
            l.kernel,
            l.blocks,
            l.threads,
            100.0 * l.blocks as f64 / resident.max(1) as f64,
            resident,
            c.global_atomic_lanes,
        ));
    }
    out
}
