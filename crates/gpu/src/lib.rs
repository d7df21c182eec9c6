//! # `gpu`: the device API of the course
//!
//! Kernels are written once, in Rust, against this crate, and run two ways:
//!
//! - on **`nvptx64-nvidia-cuda`** (a real NVIDIA GPU) every function compiles to the PTX
//!   instruction CUDA C would use: `%tid.x`, `bar.sync`, `ld.global`, `atom.shared.add`,
//!   `match.any.sync`, ...;
//! - on **`wasm32-unknown-unknown`** (the sandbox), every function is a call into the
//!   `simt` emulator, which runs each CUDA thread as a WebAssembly instance in lockstep
//!   warps, checks every access and counts what the hardware would do; the kernel reaches
//!   nothing but this API;
//! - on the **host** (the emulator's own tests and the course's trusted fixtures), every
//!   function calls the emulator directly, on a native coroutine per thread.
//!
//! ## Threads, blocks and grids
//!
//! A kernel launch runs a *grid* of *blocks* of *threads*. Every thread runs the same
//! function; [`thread::thread_idx_x`], [`thread::block_idx_x`] and friends tell it which
//! thread it is, so it can pick its data. Threads of one block share fast on-chip memory
//! ([`shared`]) and can wait for each other ([`thread::sync_threads`]); blocks cannot: they
//! run in no fixed order, so a kernel must never depend on one block finishing before
//! another. The hardware runs the threads of a block in *warps* of 32 ([`warp`]).
//!
//! ## Memory is reached through handles
//!
//! Device memory is never handed out as `&`/`&mut`: a [`GlobalSlice`] or a
//! [`shared::SharedArray`] has explicit [`load`](GlobalSlice::load),
//! [`store`](GlobalSlice::store) and atomic methods. On the GPU they are plain loads,
//! stores and `atom.*` instructions; on the emulator each one is an observable step, which
//! is what lets it show the race in `histo[b] = histo[b] + 1`.
//!
//! Names follow Rust-CUDA's `cuda_std` where it has the concept (`thread::index_1d`,
//! `warp::warp_match_any`, `warp::sync_warp`, ...), so the Rust-CUDA guide reads alike.
//!
//! ## No `unsafe` in a kernel, on any target
//!
//! `#[kernel]` compiles a kernel's body as one safe function on every target; on nvptx64
//! the `unsafe extern "ptx-kernel"` entry only calls it. So an unsafe operation in a body
//! is an error everywhere (E0133), never the warning edition 2024 gives inside an unsafe
//! function, and a body that compiles for the GPU compiles for the emulator's sandbox:
//!
//! ```compile_fail,E0133
//! use gpu::prelude::*;
//!
//! #[kernel]
//! pub fn peek(addr: u64, out: GlobalSlice<u32>) {
//!     out.store(0, *(addr as *const u32));
//! }
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        stdarch_nvptx,
        asm_experimental_arch,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
#![deny(missing_docs)]

pub mod atomic;
pub mod constant;
pub mod global;
/// The hardware the course models (the `gpu-hardware` crate, which the emulator reads as
/// `simt::hardware`): a kernel sizes what it keeps per block from the same figures.
pub use gpu_hardware as hardware;
#[cfg(not(target_arch = "nvptx64"))]
pub mod host_value;
#[cfg(not(target_arch = "nvptx64"))]
mod kernel;
/// The emulator as the device API reaches it: the `simt` crate on the host, the sandbox's
/// imports on wasm32.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "wasm32")))]
pub(crate) use ::simt as emu;
#[cfg(target_arch = "wasm32")]
#[path = "wasm_lane.rs"]
pub(crate) mod emu;
mod memory_ops;
pub mod shared;
pub mod thread;
pub mod value;
pub mod warp;

pub use global::GlobalSlice;
pub use gpu_macros::{HostValue, host, kernel};
#[cfg(not(target_arch = "nvptx64"))]
pub use host_value::HostValue;
#[cfg(not(target_arch = "nvptx64"))]
pub use kernel::{Kernel, KernelArg, KernelArgs};
pub use value::DeviceValue;

/// The emulator behind the host build, re-exported for the host runtime.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "wasm32")))]
pub use simt;

/// What `#[kernel]`'s WebAssembly export calls: the lane's start and its arguments.
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod __wasm {
    pub use crate::emu::lane::arg;
    pub use crate::emu::{kernel_start, lane_start};

    /// Called by the emulator once per instance, before it keeps the instance's statics
    /// as the state each lane starts from: installs the panic hook.
    #[unsafe(export_name = "__gpu_lane_init")]
    extern "C" fn lane_init() {
        lane_start();
    }

    /// Memory for the bytes the emulator passes to a host function (`#[gpu::host]`).
    #[unsafe(export_name = "__gpu_alloc")]
    extern "C" fn alloc(len: usize) -> *mut u8 {
        let mut v = Vec::<u8>::with_capacity(len);
        let p = v.as_mut_ptr();
        core::mem::forget(v);
        p
    }

    /// Runs a host function on the bytes at `ptr` (its encoded arguments, which `call`
    /// decodes) and returns where its encoded result lies: address in the high 32 bits,
    /// length in the low.
    // Not `unsafe`: only `#[gpu::host]`'s export calls it, with the pointer the emulator
    // passed, which `__gpu_alloc` gave it.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn host_call(ptr: *mut u8, len: usize, call: impl FnOnce(&mut &[u8]) -> Vec<u8>) -> u64 {
        lane_start();
        // SAFETY: the emulator wrote `len` bytes at `ptr`, which `__gpu_alloc` gave it.
        let input = unsafe { Vec::from_raw_parts(ptr, len, len) };
        let out = call(&mut &input[..]);
        let (p, n) = (out.as_ptr() as u64, out.len() as u64);
        core::mem::forget(out);
        p << 32 | n
    }
}

/// Prints from a kernel, as CUDA's device `printf` does: `gpu::println!("i = {i}")`.
///
/// On the emulator the text is kept with the launch, labelled with the launch (kernel
/// and shape), the block and the thread that printed it, and shown to you as kernel
/// output (in `cargo test`'s failure report and in the runner's pane of its own); no
/// check ever reads it. On a GPU it prints nothing (the course's PTX has no `vprintf`).
///
/// A kernel file imports it under std's names (`use gpu::{dbg, eprint, eprintln, print,
/// println};` at the top of `kernels/src/ch05.rs`): the standard macros write to a
/// standard output that a lane does not have, so there they would print nothing. The
/// sandbox refuses `std::println!` and its kin for the same reason.
#[macro_export]
macro_rules! println {
    ($($arg:tt)*) => {
        $crate::__print(::core::format_args!($($arg)*))
    };
}

/// [`println!`]: each call is one line of kernel output (as CUDA's `printf` gives each
/// call's text to one thread, a line without its newline is still that thread's line).
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::__print(::core::format_args!($($arg)*))
    };
}

/// [`println!`]: a lane has one output, the kernel output.
#[macro_export]
macro_rules! eprintln {
    ($($arg:tt)*) => {
        $crate::__print(::core::format_args!($($arg)*))
    };
}

/// [`println!`]: a lane has one output, the kernel output.
#[macro_export]
macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::__print(::core::format_args!($($arg)*))
    };
}

/// std's `dbg!` as kernel output: prints `[file:line:column] expr = value` (one line,
/// `{:?}`) with [`println!`] and returns the value, so `let b = dbg!(bin(x));` works in a
/// kernel as it does on the host.
#[macro_export]
macro_rules! dbg {
    () => {
        $crate::__print(::core::format_args!(
            "[{}:{}:{}]",
            ::core::file!(),
            ::core::line!(),
            ::core::column!()
        ))
    };
    ($val:expr $(,)?) => {
        match $val {
            tmp => {
                $crate::__print(::core::format_args!(
                    "[{}:{}:{}] {} = {:?}",
                    ::core::file!(),
                    ::core::line!(),
                    ::core::column!(),
                    ::core::stringify!($val),
                    &tmp
                ));
                tmp
            }
        }
    };
    ($($val:expr),+ $(,)?) => {
        ($($crate::dbg!($val)),+,)
    };
}

/// The body of [`println!`].
#[doc(hidden)]
#[inline]
pub fn __print(args: core::fmt::Arguments<'_>) {
    #[cfg(target_arch = "nvptx64")]
    let _ = args;
    #[cfg(target_arch = "wasm32")]
    emu::lane::print(&std::fmt::format(args));
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "wasm32")))]
    simt::lane::print(&std::fmt::format(args));
}

/// Everything a kernel file needs: `use gpu::prelude::*;`.
pub mod prelude {
    pub use crate::atomic::{AtomicAdd, AtomicInt};
    pub use crate::constant::ConstantArray;
    pub use crate::global::GlobalSlice;
    pub use crate::shared::{DynamicShared, SharedArray};
    pub use crate::value::DeviceValue;
    pub use crate::{HostValue, dynamic_shared, host, kernel, shared_array, thread, warp};
}

/// Declares a block's static shared-memory array (CUDA's `__shared__ T name[N]`):
/// `let bins = shared_array![u32; 256];`. Only valid directly in a `#[kernel]` body,
/// where the attribute lays it out; its contents start as garbage (poison on the
/// emulator), so initialise it before reading.
///
/// Anywhere else it is an error that says so, e.g. in a helper (pass the array to it as an
/// argument instead):
///
/// ```compile_fail
/// use gpu::prelude::*;
///
/// fn helper() {
///     let _bins = shared_array![u32; 4];
/// }
/// ```
#[macro_export]
macro_rules! shared_array {
    ($($t:tt)*) => {
        compile_error!("shared_array! must be used directly in the body of a #[kernel] function, which lays out its shared memory; pass the array to helpers as an argument")
    };
}

/// Declares the launch-sized shared memory of a kernel (CUDA's
/// `extern __shared__ T name[]`): `let bins = dynamic_shared![u32];`. Its length is the
/// dynamic shared bytes given at launch divided by the element size. Only valid directly
/// in a `#[kernel]` body.
#[macro_export]
macro_rules! dynamic_shared {
    ($($t:tt)*) => {
        compile_error!("dynamic_shared! must be used directly in the body of a #[kernel] function, which lays out its shared memory; pass the handle to helpers as an argument")
    };
}

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // A panic on the GPU (an index out of bounds, a `todo!()`) traps: the launch fails
    // with CUDA_ERROR_LAUNCH_FAILED / an illegal instruction, as `assert` does in CUDA C.
    // SAFETY: `trap` aborts the kernel; it has no memory-safety preconditions.
    unsafe { core::arch::nvptx::trap() }
}
