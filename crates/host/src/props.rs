//! What a device is: the numbers a kernel's launch is sized from.

use serde::Serialize;
use simt::hardware as hw;

/// Properties of a device, as `cudaGetDeviceProperties` reports them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeviceProps {
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Streaming multiprocessors: the grid is sized from this (a few blocks per SM keep
    /// every SM busy and hide memory latency).
    pub sm_count: u32,
    /// Compute capability (major, minor): what the hardware can do (9.0 = Hopper).
    pub compute_capability: (u32, u32),
    /// Most threads in one block.
    pub max_threads_per_block: u32,
    /// Most resident threads per SM (2048 on Hopper): occupancy's ceiling.
    pub max_threads_per_sm: u32,
    /// Shared memory per block without opting in (48 KiB).
    pub shared_bytes_per_block: u32,
    /// Shared memory per block with opt-in (227 KiB on an H100).
    pub shared_bytes_per_block_optin: u32,
    /// Shared memory of one SM (228 KiB on an H100): with
    /// [`reserved_shared_bytes_per_block`](Self::reserved_shared_bytes_per_block), how many
    /// blocks of a kernel that uses a lot of shared memory fit on an SM at once.
    pub shared_bytes_per_sm: u32,
    /// Shared memory the system keeps for itself in every resident block (1 KiB since
    /// compute capability 8.0): counted against the SM's shared memory with the kernel's.
    pub reserved_shared_bytes_per_block: u32,
    /// L2 cache size in bytes: where global atomics are executed.
    pub l2_bytes: u64,
    /// Threads per warp (32).
    pub warp_size: u32,
}

impl DeviceProps {
    /// The emulator's properties, modelled on an H100 SXM (sm_90), so that grid sizes
    /// derived from the device match what the course runs on the real GPU.
    pub fn emulated_h100() -> Self {
        DeviceProps {
            name: "SIMT emulator (modelled on an NVIDIA H100, sm_90)".into(),
            sm_count: hw::H100_SMS,
            compute_capability: (9, 0),
            max_threads_per_block: hw::MAX_THREADS_PER_BLOCK,
            max_threads_per_sm: hw::MAX_THREADS_PER_SM,
            shared_bytes_per_block: hw::DEFAULT_SHARED_LIMIT,
            shared_bytes_per_block_optin: hw::H100_SHARED_PER_BLOCK_OPTIN,
            shared_bytes_per_sm: hw::H100_SHARED_PER_SM,
            reserved_shared_bytes_per_block: hw::RESERVED_SHARED_PER_BLOCK,
            l2_bytes: hw::H100_L2_BYTES,
            warp_size: hw::WARP_SIZE,
        }
    }

    /// Blocks that fit on one SM at `threads_per_block` threads (thread limit only).
    pub fn blocks_per_sm(&self, threads_per_block: u32) -> u32 {
        (self.max_threads_per_sm / threads_per_block.max(1)).max(1)
    }

    /// Blocks that fit on one SM at `threads_per_block` threads and `shared_bytes` of
    /// shared memory per block (static and dynamic): the thread limit and the shared-memory
    /// limit, whichever is smaller (registers are not counted), at least 1.
    ///
    /// A grid of `sm_count` times this is one wave: every block resident at once. Sizing a
    /// grid by the thread limit alone overshoots when a block holds a big private
    /// histogram, and the last blocks then run as a second, mostly idle, wave.
    pub fn blocks_per_sm_with_shared(&self, threads_per_block: u32, shared_bytes: u32) -> u32 {
        let by_threads = self.blocks_per_sm(threads_per_block);
        if shared_bytes == 0 {
            return by_threads;
        }
        let per_block = shared_bytes + self.reserved_shared_bytes_per_block;
        by_threads.min(self.shared_bytes_per_sm / per_block).max(1)
    }
}

/// The oldest GPU the course runs on: compute capability 7.0 (Volta, `sm_70`), the oldest
/// architecture rustc's `nvptx64-nvidia-cuda` target still builds for, and the first with
/// what the kernels use (`match.any.sync` for 9.8's warp aggregation, the `*.sync` warp
/// intrinsics, independent thread scheduling). The PTX builder targets it by default
/// (`ptx_builder::DEFAULT_ARCH`), and the driver compiles that PTX for the GPU it runs on:
/// an RTX 20, 30, 40 or 50, a T4, A100, L4, H100 or H200 all load the same PTX.
pub const MIN_COMPUTE_CAPABILITY: (u32, u32) = (7, 0);

/// The architecture a PTX text targets, from its `.target sm_XY` line: `Some((X, Y))`
/// (`sm_90a` counts as 9.0); `None` when the text has no such line.
pub fn ptx_target(ptx: &str) -> Option<(u32, u32)> {
    let line = ptx
        .lines()
        .find(|l| l.trim_start().starts_with(".target"))?;
    let arch = line
        .split([' ', '\t', ','])
        .find_map(|w| w.strip_prefix("sm_"))?;
    let digits: String = arch.chars().take_while(|c| c.is_ascii_digit()).collect();
    let n: u32 = digits.parse().ok()?;
    Some((n / 10, n % 10))
}

#[cfg(test)]
mod floor_tests {
    use super::*;

    #[test]
    fn ptx_targets_are_read_from_the_target_line() {
        assert_eq!(ptx_target(".version 7.0\n.target sm_70\n"), Some((7, 0)));
        assert_eq!(ptx_target("//\n.target sm_90a, debug\n"), Some((9, 0)));
        assert_eq!(ptx_target("\t.target\tsm_86\n"), Some((8, 6)));
        assert_eq!(ptx_target(".version 7.0\n"), None);
        assert!(MIN_COMPUTE_CAPABILITY <= (7, 0));
    }
}
