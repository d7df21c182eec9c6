//! The device: memory, launches, and the backend behind them.

use crate::buffer::{DeviceBuffer, as_bytes, from_bytes};
use crate::config::LaunchConfig;
use crate::props::DeviceProps;
use crate::{Config, Counters, Finding, LaunchError, Result};
use gpu::{DeviceValue, Kernel, KernelArgs};
use simt::{GlobalMemory, LaunchSpec};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Where kernels run. The emulator is always there; the real GPU (`cust`) joins it behind
/// the `cuda` feature.
#[non_exhaustive]
pub enum Backend {
    /// The deterministic SIMT emulator.
    Emulator {
        /// Its global memory.
        memory: GlobalMemory,
        /// How launches run (step budget, watchdog).
        config: Config,
    },
}

/// What a launch reports. On the emulator, the counters and findings; on a GPU, the time.
#[derive(Clone, Debug, Default)]
pub struct LaunchReport {
    /// The emulator's report (counters, per-line counters, findings).
    pub emulator: Option<simt::LaunchReport>,
    /// Time of the launch on a GPU, measured with events.
    pub gpu_time: Option<Duration>,
}

impl LaunchReport {
    /// The emulator's counters, if the launch was emulated.
    pub fn counters(&self) -> Option<&Counters> {
        self.emulator.as_ref().map(|r| &r.counters)
    }

    /// The emulator's findings (races, uninitialised reads); empty on a GPU.
    pub fn findings(&self) -> &[Finding] {
        self.emulator
            .as_ref()
            .map_or(&[], |r| r.findings.as_slice())
    }
}

/// A device: allocate, copy, launch.
pub struct Device {
    backend: Backend,
    props: DeviceProps,
    id: u64,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Device {
    /// The SIMT emulator, with the default [`Config`] (environment overrides apply).
    pub fn emulator() -> Self {
        Self::emulator_with(Config::default())
    }

    /// The SIMT emulator with an explicit configuration.
    pub fn emulator_with(config: Config) -> Self {
        Device {
            backend: Backend::Emulator {
                memory: GlobalMemory::new(),
                config,
            },
            props: DeviceProps::emulated_h100(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// What the device is.
    pub fn props(&self) -> &DeviceProps {
        &self.props
    }

    /// Is this the emulator (counters available)?
    pub fn is_emulator(&self) -> bool {
        matches!(self.backend, Backend::Emulator { .. })
    }

    /// The emulator's configuration, to adjust (e.g. a tighter step budget for a check).
    pub fn emulator_config_mut(&mut self) -> Option<&mut Config> {
        match &mut self.backend {
            Backend::Emulator { config, .. } => Some(config),
        }
    }

    fn check_len(len: usize) -> Result<u32> {
        u32::try_from(len).map_err(|_| LaunchError::InvalidConfig {
            cuda_error: "cudaErrorInvalidValue",
            message: format!(
                "a buffer holds at most {} elements; asked for {len}",
                u32::MAX
            ),
        })
    }

    fn memory(&mut self) -> Result<&mut GlobalMemory> {
        match &mut self.backend {
            Backend::Emulator { memory, .. } => {
                if memory.is_lost() {
                    return Err(LaunchError::DeviceLost {
                        message: "an earlier launch timed out and its memory could not be recovered; create a new device".into(),
                    });
                }
                Ok(memory)
            }
        }
    }

    fn own<T: DeviceValue>(&self, buf: &DeviceBuffer<T>) -> Result<()> {
        if buf.device != self.id {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: "this buffer belongs to another device".into(),
            });
        }
        Ok(())
    }

    /// Allocates `len` zeroed elements (`cudaMalloc` + `cudaMemset(0)`).
    pub fn alloc<T: DeviceValue>(&mut self, len: usize) -> Result<DeviceBuffer<T>> {
        let n = Self::check_len(len)?;
        let id = self.id;
        let addr = self.memory()?.alloc(len * std::mem::size_of::<T>());
        Ok(DeviceBuffer {
            addr,
            len: n,
            device: id,
            _t: PhantomData,
        })
    }

    /// Allocates a buffer holding a copy of `data` (`cudaMalloc` + `cudaMemcpy`).
    pub fn upload<T: DeviceValue>(&mut self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let buf = self.alloc::<T>(data.len())?;
        self.copy_to_device(&buf, data)?;
        Ok(buf)
    }

    /// Copies `data` into `buf`, which must have the same length.
    pub fn copy_to_device<T: DeviceValue>(
        &mut self,
        buf: &DeviceBuffer<T>,
        data: &[T],
    ) -> Result<()> {
        self.own(buf)?;
        if data.len() != buf.len as usize {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: format!(
                    "copy of {} elements into a buffer of {}",
                    data.len(),
                    buf.len
                ),
            });
        }
        let addr = buf.addr;
        let dst = self.memory()?.bytes_mut(addr).ok_or_else(freed)?;
        dst.copy_from_slice(as_bytes(data));
        Ok(())
    }

    /// Copies `buf` back to the host.
    pub fn download<T: DeviceValue>(&mut self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.own(buf)?;
        let mut out = vec![T::from_bits(0); buf.len as usize];
        let addr = buf.addr;
        let src = self.memory()?.bytes(addr).ok_or_else(freed)?;
        from_bytes(src, &mut out);
        Ok(out)
    }

    /// Sets every element of `buf` to `value` (`cudaMemset` generalised).
    pub fn fill<T: DeviceValue>(&mut self, buf: &DeviceBuffer<T>, value: T) -> Result<()> {
        self.own(buf)?;
        let data = vec![value; buf.len as usize];
        self.copy_to_device(buf, &data)
    }

    /// Frees `buf` (`cudaFree`).
    pub fn free<T: DeviceValue>(&mut self, buf: DeviceBuffer<T>) -> Result<()> {
        self.own(&buf)?;
        let addr = buf.addr;
        if !self.memory()?.free(addr) {
            return Err(freed());
        }
        Ok(())
    }

    /// Launches `kernel` with `cfg` and `args`, and waits for it.
    ///
    /// The configuration is checked against CUDA's limits first (0 threads, more than
    /// 1024 threads per block, more than 48 KiB of shared memory without opting in, grid
    /// dimensions past the maximum), with CUDA's wording. The kernel's static shared
    /// arrays are added to the dynamic shared bytes, as the CUDA runtime does.
    pub fn launch<A: KernelArgs>(
        &mut self,
        kernel: &Kernel<A>,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<LaunchReport> {
        let shared = kernel.static_shared_bytes as u64 + cfg.dynamic_shared_bytes as u64;
        let limit = match cfg.max_shared_bytes {
            None => self.props.shared_bytes_per_block,
            Some(b) if b <= self.props.shared_bytes_per_block_optin => b,
            Some(b) => {
                return Err(LaunchError::InvalidConfig {
                    cuda_error: "cudaErrorInvalidValue",
                    message: format!(
                        "invalid argument: opt-in of {b} bytes of shared memory per block; this device allows at most {}",
                        self.props.shared_bytes_per_block_optin
                    ),
                });
            }
        };
        let spec = LaunchSpec {
            grid: [cfg.grid.x, cfg.grid.y, cfg.grid.z],
            block: [cfg.block.x, cfg.block.y, cfg.block.z],
            shared_bytes: u32::try_from(shared).unwrap_or(u32::MAX),
            max_shared_bytes: limit,
        };
        match &mut self.backend {
            Backend::Emulator { memory, config } => {
                let host = kernel.host;
                let body: simt::launch::KernelBody = Arc::new(move || host(args));
                let report = simt::launch(memory, &spec, body, config)?;
                Ok(LaunchReport {
                    emulator: Some(report),
                    gpu_time: None,
                })
            }
        }
    }
}

fn freed() -> LaunchError {
    LaunchError::InvalidConfig {
        cuda_error: "cudaErrorInvalidValue",
        message: "the buffer was already freed".into(),
    }
}
