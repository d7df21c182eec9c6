//! What a launch is, before it runs: its shape ([`LaunchSpec`], checked against CUDA's
//! limits), the body every lane runs ([`KernelBody`]), and where it was last seen
//! (`LastSeen`, for the watchdog). The scheduler and the launcher both use these, so
//! they live apart from either.

use crate::hardware::DEFAULT_SHARED_LIMIT;
use crate::report::{LaunchError, ThreadRef};
use crate::site::{Site, SiteInfo};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// The shape of a launch: `<<<grid, block, shared_bytes>>>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchSpec {
    /// `gridDim`: blocks in x, y, z.
    pub grid: [u32; 3],
    /// `blockDim`: threads per block in x, y, z.
    pub block: [u32; 3],
    /// Shared memory per block, in bytes: the kernel's static arrays plus the launch's
    /// dynamic part.
    pub shared_bytes: u32,
    /// Most shared memory a block may use: 48 KiB unless the launch opted in to more
    /// (up to the device's per-block maximum, 227 KiB on an H100).
    pub max_shared_bytes: u32,
}

impl LaunchSpec {
    /// A 1-D launch of `grid` blocks of `block` threads, no shared memory.
    pub fn linear(grid: u32, block: u32) -> Self {
        LaunchSpec {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            shared_bytes: 0,
            max_shared_bytes: DEFAULT_SHARED_LIMIT,
        }
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&d| d as u64).product()
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| d as u64).product()
    }

    /// Checks the configuration against CUDA's limits (compute capability 9.0), with
    /// CUDA's wording.
    pub fn validate(&self) -> Result<(), LaunchError> {
        let cfg = |message: String| LaunchError::InvalidConfig {
            cuda_error: "cudaErrorInvalidConfiguration",
            message: format!("invalid configuration argument: {message}"),
        };
        let [bx, by, bz] = self.block;
        let [gx, gy, gz] = self.grid;
        if bx == 0 || by == 0 || bz == 0 {
            return Err(cfg(format!(
                "blockDim ({bx},{by},{bz}) has a zero dimension; a block needs at least one thread"
            )));
        }
        if gx == 0 || gy == 0 || gz == 0 {
            return Err(cfg(format!(
                "gridDim ({gx},{gy},{gz}) has a zero dimension; a grid needs at least one block"
            )));
        }
        if bx > 1024 || by > 1024 || bz > 64 {
            return Err(cfg(format!(
                "blockDim ({bx},{by},{bz}) exceeds the per-dimension limits (1024, 1024, 64)"
            )));
        }
        if self.threads_per_block() > 1024 {
            return Err(cfg(format!(
                "blockDim ({bx},{by},{bz}) has {} threads; a block holds at most 1024",
                self.threads_per_block()
            )));
        }
        if gx > i32::MAX as u32 || gy > 65535 || gz > 65535 {
            return Err(cfg(format!(
                "gridDim ({gx},{gy},{gz}) exceeds the limits (2147483647, 65535, 65535)"
            )));
        }
        if self.shared_bytes > self.max_shared_bytes {
            let hint = if self.max_shared_bytes == DEFAULT_SHARED_LIMIT {
                " without opting in (cudaFuncAttributeMaxDynamicSharedMemorySize)"
            } else {
                ""
            };
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: format!(
                    "invalid argument: {} bytes of shared memory per block requested, more than the {} allowed{hint}",
                    self.shared_bytes, self.max_shared_bytes
                ),
            });
        }
        Ok(())
    }
}

/// Where the launch was last seen, readable by the watchdog while the launch runs.
#[derive(Default)]
pub(crate) struct LastSeen {
    site: AtomicUsize,
    block: AtomicU64,
    thread: AtomicU64,
    /// Set by the launching thread when the watchdog expires: the launch stops at its
    /// next warp step and gives its memory back ([`crate::launch::launch`]).
    stop: AtomicBool,
}

fn pack(v: [u32; 3]) -> u64 {
    (v[0] as u64) | ((v[1] as u64) << 32) | ((v[2] as u64) << 48)
}
fn unpack(p: u64) -> [u32; 3] {
    [p as u32, ((p >> 32) & 0xffff) as u32, (p >> 48) as u32]
}

impl LastSeen {
    /// Asks the launch to stop at its next warp step.
    pub(crate) fn request_stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Was the launch asked to stop?
    #[inline]
    pub(crate) fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub(crate) fn set(&self, site: Site, t: ThreadRef) {
        self.site
            .store(site as *const _ as usize, Ordering::Relaxed);
        self.block.store(pack(t.block), Ordering::Relaxed);
        self.thread.store(pack(t.thread), Ordering::Relaxed);
    }

    pub(crate) fn get(&self) -> Option<(String, ThreadRef)> {
        let p = self.site.load(Ordering::Relaxed);
        if p == 0 {
            return None;
        }
        // SAFETY: only pointers of interned sites, which live for the process, are stored.
        let site: Site = unsafe { &*(p as *const SiteInfo) };
        Some((
            crate::site::fmt_site(site),
            ThreadRef {
                block: unpack(self.block.load(Ordering::Relaxed)),
                thread: unpack(self.thread.load(Ordering::Relaxed)),
            },
        ))
    }
}

/// The body every lane runs: the kernel with its arguments bound.
#[derive(Clone)]
pub enum KernelBody {
    /// Native code, run on the lane's coroutine: for the emulator's own tests and the
    /// course's trusted fixtures. Student code never runs this way.
    Native(Arc<dyn Fn() + Send + Sync + 'static>),
    /// A kernel of a sandboxed module ([`crate::wasm`]): every lane is an instance of it.
    Wasm {
        /// The module.
        module: Arc<crate::wasm::WasmModule>,
        /// The kernel's name (its export is `__gpu_kernel_<name>`).
        kernel: String,
        /// The kernel's arguments, as the words its export reads with `gpu.arg`.
        args: Arc<[u64]>,
    },
}

impl KernelBody {
    /// A native body from a closure.
    pub fn native(f: impl Fn() + Send + Sync + 'static) -> Self {
        KernelBody::Native(Arc::new(f))
    }
}
