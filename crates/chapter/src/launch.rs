//! Launch geometry both chapters size their grids with.

/// Blocks for one element per thread: `ceil(n / block)`, at least 1 (a grid of zero
/// blocks is not a launch, and an empty input must still run the kernel's guard).
pub fn one_per_thread(n: usize, block: u32) -> u32 {
    n.div_ceil(block as usize).max(1) as u32
}
