//! Warming the GPU before the first timed case: its clocks follow its load, and a GPU that
//! was idle (or just let go by a profiler) runs the first kernels slower than the rest.

use crate::measure::{Uploaded, first_line};
use crate::{BLOCK, median};
use gpu_host::{Device, LaunchConfig};
use std::time::{Duration, Instant};

/// Event-timed launches of the read kernel per batch.
pub const WARM_BATCH: u32 = 10;
/// Two consecutive batch medians within this fraction of each other count as settled.
pub const WARM_TOLERANCE: f64 = 0.02;
/// The least warm-up time: a GPU that is busy from the first batch still gets this much.
pub const WARM_MIN: Duration = Duration::from_millis(300);
/// The most warm-up time: a GPU whose times never settle is timed anyway, and the header
/// says so.
pub const WARM_MAX: Duration = Duration::from_secs(5);

/// Keeps the GPU busy with the read kernel over the uploaded input (each launch from a
/// cold L2, as every timed launch: the flush keeps the memory busy too) until its times
/// settle: batches of [`WARM_BATCH`] launches until two consecutive batch medians agree
/// within [`WARM_TOLERANCE`], after at least [`WARM_MIN`] and at most [`WARM_MAX`].
/// Returns the sentence the bench's header carries: how long, and the first and last
/// medians. Seen on an H100 on 2026-11-26: after Nsight Compute ran, the first timed case
/// at 1 MiB took 20.8 µs where a rerun took 5.9.
pub fn warm_up(dev: &mut Device, up: &Uploaded) -> String {
    let k = solutions::bench::read_bandwidth::KERNEL;
    let props = dev.props().clone();
    let grid = props.sm_count * props.blocks_per_sm(BLOCK);
    let sink = match dev.alloc::<u32>((grid * BLOCK) as usize) {
        Ok(s) => s,
        Err(e) => return format!("warm-up not run: alloc failed: {}", first_line(&e)),
    };
    let cfg = LaunchConfig::linear(grid, BLOCK);
    let args = (up.bytes(), sink.slice());
    let start = Instant::now();
    let mut medians: Vec<Duration> = Vec::new();
    let mut settled = false;
    let mut failed = None;
    while start.elapsed() < WARM_MAX {
        match dev.time_launches(&k, cfg, args, 0, WARM_BATCH) {
            Ok(t) => medians.push(median(&t)),
            Err(e) => {
                failed = Some(first_line(&e));
                break;
            }
        }
        if let [.., a, b] = medians[..] {
            let (a, b) = (a.as_secs_f64(), b.as_secs_f64());
            settled = (a - b).abs() <= WARM_TOLERANCE * a;
            if settled && start.elapsed() >= WARM_MIN {
                break;
            }
        }
    }
    let _ = dev.free(sink);
    let us = |d: &Duration| format!("{:.1} us", d.as_secs_f64() * 1e6);
    let (first, last) = match (medians.first(), medians.last()) {
        (Some(f), Some(l)) => (us(f), us(l)),
        _ => return format!("warm-up failed: {}", failed.unwrap_or_default()),
    };
    let how = match (failed, settled) {
        (Some(why), _) => format!("stopped by an error ({why})"),
        (None, true) => format!(
            "until two batch medians agreed within {:.0} %",
            WARM_TOLERANCE * 100.0
        ),
        (None, false) => format!(
            "NOT settled within {} s: the first cases may be slow",
            WARM_MAX.as_secs()
        ),
    };
    format!(
        "warmed for {} ms before the first timed case: {} batches of {WARM_BATCH} read-kernel \
         launches <<<{grid}, {BLOCK}>>>, {how} (batch medians: first {first}, last {last})",
        start.elapsed().as_millis(),
        medians.len()
    )
}
