//! # `gpu-host`: the host runtime of the course
//!
//! A [`Device`] runs `#[kernel]` functions on one of two backends behind one API, so a
//! check written once runs on both:
//!
//! - the deterministic SIMT emulator ([`Device::emulator`]), always there: counters,
//!   race and barrier findings, and the thread and line of every fault;
//! - a real NVIDIA GPU through `cust` (feature `cuda`, `Device::cuda()`): the same typed
//!   launches of the same kernels, compiled to PTX, timed with CUDA events. The driver
//!   (`libcuda.so.1`) is loaded when the first CUDA device is created, so a binary built
//!   with the feature still starts, and runs its emulator work, on a machine without one
//!   (see the `cuda` module and this crate's README for how it links).
//!
//! ```ignore
//! let mut dev = Device::emulator();            // or Device::cuda()?
//! dev.load_ptx_file("solutions", "target/ptx/solutions.ptx")?;   // a no-op on the emulator
//! let data = dev.upload(&bytes)?;
//! let histo = dev.alloc::<u32>(256)?;
//! let report = dev.launch(&histo_atomic::KERNEL, LaunchConfig::linear(8, 256), (data.slice(), histo.slice()))?;
//! let bins = dev.download(&histo)?;
//! ```
//!
//! Errors are [`simt::LaunchError`], one report type for every backend: invalid launch
//! configurations are rejected with CUDA's wording before anything runs, on both; driver
//! errors on a GPU become [`LaunchError::Driver`], and a machine that cannot run CUDA
//! answers [`LaunchError::NoDevice`].
#![deny(missing_docs)]

pub mod allowed;
pub mod answers;
mod bounded;
mod buffer;
mod config;
#[cfg(feature = "cuda")]
pub mod cuda;
mod device;
pub mod fnv;
pub mod lane_build;
pub mod lane_cache;
pub mod lanes;
mod props;
pub mod sources;

pub use buffer::DeviceBuffer;
pub use config::{Dim3, LaunchConfig};
pub use device::streams::{Stream, StreamEvent, StreamLaunch};
pub use device::{Backend, Device, GpuLaunch, LaunchReport};
pub use gpu::{DeviceValue, GlobalSlice, Kernel, KernelArgs};
pub use props::DeviceProps;
pub use props::{MIN_COMPUTE_CAPABILITY, ptx_target};
pub use simt::kernel_output;
pub use simt::lane::{LanePanic, panic_message};
pub use simt::meter::{self, Meter, WorkBudget};
pub use simt::text::{hidden, printable};
pub use simt::wasm::LaneLimits;
pub use simt::{Config, Counters, Finding, LaunchError};

/// Results of the host runtime.
pub type Result<T> = std::result::Result<T, LaunchError>;
