//! What both chapters' launchers share: the grid of one element per thread, and the
//! download-and-free that ends every launch.

use gpu_host::{Device, DeviceBuffer, DeviceValue, LaunchError, LaunchReport};

/// Blocks for one element per thread: `ceil(n / block)`, at least 1 (a grid of zero
/// blocks is not a launch, and an empty input must still run the kernel's guard).
pub fn one_per_thread(n: usize, block: u32) -> u32 {
    n.div_ceil(block as usize).max(1) as u32
}

/// Downloads `out` after a launch, then frees it and the `inputs` (best effort: a device
/// lost to a faulted or timed-out launch cannot free, and the launch's error is the one
/// that matters). Returns the output and the launch's report, for the chapter's `Run`.
pub fn download_and_free<T: DeviceValue, I: DeviceValue>(
    dev: &mut Device,
    launched: Result<LaunchReport, LaunchError>,
    out: DeviceBuffer<T>,
    inputs: Vec<DeviceBuffer<I>>,
) -> Result<(Vec<T>, LaunchReport), LaunchError> {
    let result = launched.and_then(|report| Ok((dev.download(&out)?, report)));
    let _ = dev.free(out);
    for buf in inputs {
        let _ = dev.free(buf);
    }
    result
}
