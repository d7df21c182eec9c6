//! The hardware the course models, in one place: the numbers of an NVIDIA H100 (SXM,
//! compute capability 9.0) that the emulator's counters and limits are computed from.
//!
//! One crate, read everywhere: the emulator as `simt::hardware`, the host runtime's
//! emulated device properties (`gpu-host`'s `DeviceProps::emulated_h100`) and its CUDA
//! backend through it, and the kernels as `gpu::hardware` (a kernel sizes its shared
//! arrays from [`DEFAULT_SHARED_LIMIT`] and its warps from [`WARP_SIZE`]). It has no
//! dependencies and no `std`, so it builds for the GPU (nvptx64) and the sandbox (wasm32)
//! as for the host: a figure changes here or nowhere.
#![no_std]
#![deny(missing_docs)]

/// Threads per warp: the width of every warp instruction.
pub const WARP_SIZE: u32 = 32;

/// Bytes of a global-memory sector: the unit a load or store request is served in.
pub const SECTOR_BYTES: u64 = 32;

/// Shared-memory banks: a warp's shared access takes one pass per distinct word in the
/// busiest bank.
pub const SHARED_BANKS: u32 = 32;

/// Bytes of a shared-memory bank word: consecutive words are in consecutive banks.
pub const BANK_WORD_BYTES: u64 = 4;

/// Bytes one pass of shared memory moves: a warp's 4-byte accesses take one pass, its
/// 8-byte ones two (by half-warps), its 16-byte ones four (by quarter-warps).
pub const SHARED_PASS_BYTES: u64 = 128;

/// Shared memory a block may use without opting in (`cudaFuncSetAttribute`): 48 KiB on
/// every GPU since Kepler.
pub const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

/// Shared memory a block may use with opt-in on an H100: 227 KiB.
pub const H100_SHARED_PER_BLOCK_OPTIN: u32 = 227 * 1024;

/// Shared memory of one H100 SM: 228 KiB.
pub const H100_SHARED_PER_SM: u32 = 228 * 1024;

/// Shared memory the system keeps in every resident block since compute capability 8.0.
pub const RESERVED_SHARED_PER_BLOCK: u32 = 1024;

/// Streaming multiprocessors of an H100 SXM.
pub const H100_SMS: u32 = 132;

/// Most resident threads of one SM (compute capability 9.0).
pub const MAX_THREADS_PER_SM: u32 = 2048;

/// Most threads of one block.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;

/// The H100's L2 cache, in bytes (50 MiB), where global atomics execute.
pub const H100_L2_BYTES: u64 = 50 * 1024 * 1024;
