//! # `gpu-host`: the host runtime of the course
//!
//! A [`Device`] runs `#[kernel]` functions. Today it has one backend, the deterministic
//! SIMT emulator ([`Device::emulator`]); the real-GPU backend (`cust`, behind the `cuda`
//! feature) plugs into the same [`Backend`] seam, so a check written once runs on both.
//!
//! ```ignore
//! let mut dev = Device::emulator();
//! let data = dev.upload(&bytes)?;
//! let histo = dev.alloc::<u32>(256)?;
//! let report = dev.launch(&histo_atomic::KERNEL, LaunchConfig::linear(8, 256), (data.slice(), histo.slice()))?;
//! let bins = dev.download(&histo)?;
//! ```
//!
//! Errors are [`simt::LaunchError`], one report type for every backend: invalid launch
//! configurations are rejected with CUDA's wording before anything runs.
#![deny(missing_docs)]

mod buffer;
mod config;
#[cfg(feature = "cuda")]
pub mod cuda;
mod device;
mod props;

pub use buffer::DeviceBuffer;
pub use config::{Dim3, LaunchConfig};
pub use device::{Backend, Device, LaunchReport};
pub use gpu::{DeviceValue, GlobalSlice, Kernel, KernelArgs};
pub use props::DeviceProps;
pub use simt::{Config, Counters, Finding, LaunchError};

/// Results of the host runtime.
pub type Result<T> = std::result::Result<T, LaunchError>;
