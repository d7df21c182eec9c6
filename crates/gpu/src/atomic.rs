//! Atomic read-modify-write operations, as CUDA's `atomicAdd`, `atomicCAS`, ...
//!
//! An atomic reads a word, combines it with an operand and writes it back as one
//! indivisible operation, and returns the *old* value. Two threads adding to one counter
//! with atomics never lose an update; with a plain load and store they can (chapter 9).
//!
//! The operations are methods of the memory handles ([`GlobalSlice`](crate::GlobalSlice),
//! [`SharedArray`](crate::shared::SharedArray), [`DynamicShared`](crate::shared::DynamicShared)):
//! `histo.atomic_add(bin, 1)`. On the GPU they compile to `atom` instructions (and
//! [`GlobalSlice::red_add`](crate::GlobalSlice::red_add) to `red`),
//! executed by the L2 cache for global memory and by the SM for shared memory; on the
//! emulator the lanes of one warp instruction apply in lane order, and the counters
//! record how many lanes hit the same address (serialization).
//!
//! Which types support what follows CUDA: `u32`, `i32` and `u64` support every integer
//! operation except that `atomicInc`/`atomicDec` exist only for `u32`; `f32` supports
//! `atomicAdd` (and exchange and compare-and-swap of its bits through `u32`).

use crate::value::DeviceValue;

/// Types with an atomic add: `u32`, `i32`, `u64` and `f32` (`atomicAdd`).
pub trait AtomicAdd: DeviceValue {
    /// How the emulator combines the bits.
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    const TY: crate::emu::AtomicType;

    /// `atom.add` on the GPU.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn device_add(p: *mut Self, v: Self) -> Self;

    /// `red.global.add` on the GPU: the add without the old value. `p` is a generic
    /// address of global memory.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn device_red_global(p: *mut Self, v: Self);
}

/// `red.global.add.TYPE [p], v` after converting the generic address `p` to a global one,
/// as nvcc emits CUDA C's `atomicAdd` whose result is unused.
#[cfg(target_arch = "nvptx64")]
macro_rules! red_global {
    ($ty:literal, $reg:ident, $p:expr, $v:expr) => {
        // SAFETY: the caller passes a valid, aligned pointer to global memory.
        unsafe {
            core::arch::asm!(
                concat!("{{ .reg .u64 %rg; cvta.to.global.u64 %rg, {p}; red.global.add.", $ty, " [%rg], {v}; }}"),
                p = in(reg64) $p,
                v = in($reg) $v,
                options(nostack, preserves_flags)
            )
        }
    };
}

/// The integer atomic operations other than add, by CUDA name.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rmw {
    Sub,
    Min,
    Max,
    Exch,
    And,
    Or,
    Xor,
}

/// Integer types with the full set of atomics: `u32`, `i32`, `u64`.
pub trait AtomicInt: AtomicAdd {
    /// A read-modify-write on the GPU.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn device_rmw(p: *mut Self, op: Rmw, v: Self) -> Self;

    /// Compare-and-swap on the GPU: returns the old value.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn device_cas(p: *mut Self, compare: Self, v: Self) -> Self;
}

macro_rules! int_atomics {
    ($($t:ty, $atomic:ident, $ty:ident, $bits:literal, $add:literal, $reg:ident;)*) => {$(
        impl AtomicAdd for $t {
            #[cfg(not(target_arch = "nvptx64"))]
            const TY: crate::emu::AtomicType = crate::emu::AtomicType::$ty;
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn device_add(p: *mut Self, v: Self) -> Self {
                use core::sync::atomic::{$atomic, Ordering::Relaxed};
                // SAFETY: the caller passes a valid, aligned device pointer.
                unsafe { $atomic::from_ptr(p).fetch_add(v, Relaxed) }
            }
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn device_red_global(p: *mut Self, v: Self) {
                red_global!($add, $reg, p, v);
            }
        }
        impl AtomicInt for $t {
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn device_rmw(p: *mut Self, op: Rmw, v: Self) -> Self {
                use core::sync::atomic::{$atomic, Ordering::Relaxed};
                // SAFETY: the caller passes a valid, aligned device pointer.
                let a = unsafe { $atomic::from_ptr(p) };
                match op {
                    Rmw::Sub => a.fetch_sub(v, Relaxed),
                    Rmw::Min => a.fetch_min(v, Relaxed),
                    Rmw::Max => a.fetch_max(v, Relaxed),
                    Rmw::Exch => a.swap(v, Relaxed),
                    Rmw::And => a.fetch_and(v, Relaxed),
                    Rmw::Or => a.fetch_or(v, Relaxed),
                    Rmw::Xor => a.fetch_xor(v, Relaxed),
                }
            }
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn device_cas(p: *mut Self, compare: Self, v: Self) -> Self {
                // CUDA's `atomicCAS`: `atom.cas` at the default scope, the GPU (`.gpu`).
                // Rust's `compare_exchange` would be `atom.relaxed.sys.cas`: system
                // scope, coherent with the host and peer GPUs, which a kernel's own
                // counters never need.
                let old: Self;
                // SAFETY: the caller passes a valid, aligned device pointer.
                unsafe {
                    core::arch::asm!(
                        concat!("atom.cas.", $bits, " {o}, [{p}], {c}, {v};"),
                        o = out($reg) old,
                        p = in(reg64) p,
                        c = in($reg) compare,
                        v = in($reg) v,
                        options(nostack, preserves_flags)
                    );
                }
                old
            }
        }
    )*};
}

int_atomics! {
    u32, AtomicU32, U32, "b32", "u32", reg32;
    i32, AtomicI32, I32, "b32", "s32", reg32;
    u64, AtomicU64, U64, "b64", "u64", reg64;
}

impl AtomicAdd for f32 {
    #[cfg(not(target_arch = "nvptx64"))]
    const TY: crate::emu::AtomicType = crate::emu::AtomicType::F32;
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn device_add(p: *mut Self, v: Self) -> Self {
        let old: u32;
        // SAFETY: the caller passes a valid, aligned device pointer.
        unsafe {
            core::arch::asm!("atom.add.f32 {o}, [{p}], {v};", o = out(reg32) old, p = in(reg64) p, v = in(reg32) v.to_bits());
        }
        f32::from_bits(old)
    }
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn device_red_global(p: *mut Self, v: Self) {
        red_global!("f32", reg32, p, v.to_bits());
    }
}

/// `atom.inc.u32` on the GPU.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(crate) unsafe fn device_inc(p: *mut u32, v: u32) -> u32 {
    let old: u32;
    // SAFETY: the caller passes a valid, aligned device pointer.
    unsafe {
        core::arch::asm!("atom.inc.u32 {o}, [{p}], {v};", o = out(reg32) old, p = in(reg64) p, v = in(reg32) v)
    };
    old
}

/// `atom.dec.u32` on the GPU.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(crate) unsafe fn device_dec(p: *mut u32, v: u32) -> u32 {
    let old: u32;
    // SAFETY: the caller passes a valid, aligned device pointer.
    unsafe {
        core::arch::asm!("atom.dec.u32 {o}, [{p}], {v};", o = out(reg32) old, p = in(reg64) p, v = in(reg32) v)
    };
    old
}
