//! Shared memory: fast on-chip memory of one block (CUDA's `__shared__`).
//!
//! Every block gets its own copy; its threads see each other's writes after a
//! [`sync_threads`](crate::thread::sync_threads). It is organised in 32 *banks* of 4-byte
//! words: the 32 lanes of a warp are served in one pass when they touch different banks
//! (or the same word, which is broadcast); `k` distinct words in one bank take `k` passes,
//! a `k`-way bank conflict.
//!
//! Declare it in the kernel body:
//!
//! - `let bins = shared_array![u32; 256];` a static array, CUDA's `__shared__ unsigned bins[256]`;
//! - `let bins = dynamic_shared![u32];` launch-sized, CUDA's `extern __shared__ unsigned bins[]`,
//!   whose length comes from the dynamic shared bytes of the launch.
//!
//! Shared memory is **not** initialised: it holds whatever the previous block left. The
//! emulator fills it with poison (`0xCDCDCDCD`) and reports reads of words no thread
//! wrote (initcheck). Hazards between threads of different warps with no barrier between
//! them are reported as racecheck does:
//!
//! - write then read (the reader may see the old value),
//! - read then write (the reader may see the new value),
//! - two writes (either may win),
//! - a plain access and an atomic of another thread.

use crate::memory_ops::memory_ops;
use core::marker::PhantomData;

/// Rounds `x` up to a multiple of `align` (a power of two). Used by `#[kernel]` to lay out
/// shared arrays.
#[doc(hidden)]
pub const fn align_up(x: usize, align: usize) -> usize {
    (x + align - 1) & !(align - 1)
}

#[cfg(target_arch = "nvptx64")]
#[repr(C, align(16))]
struct Align16([u8; 16]);

/// The start of the block's shared memory on the GPU. All of a kernel's shared memory,
/// static arrays included, lives in the launch-sized region; the host runtime passes the
/// static size plus the dynamic size at launch.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn shared_base() -> *mut u8 {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<Align16>() as *mut u8
}

/// The byte offset of element `i` of a shared array of `T`, computed in 32 bits as CUDA C
/// computes shared addresses (a block's shared memory is far below 4 GiB, so the offset
/// of any element in bounds fits). An index written as a byte offset divided by the
/// element's size (9.9's `lane_counter`) then folds back into that byte offset, and the
/// compiler adds the array's base in the instruction (`ATOMS [R+UR]`); with the offset in
/// 64 bits (`ptr.add(i as usize)`) it kept a multiply-add per access (`LEA`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn byte_offset<T>(i: u32) -> usize {
    i.wrapping_mul(core::mem::size_of::<T>() as u32) as usize
}

/// Bytes of shared memory given to the launch (`%dynamic_smem_size`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn shared_size() -> u32 {
    let n: u32;
    // SAFETY: reading a special register has no preconditions.
    unsafe { core::arch::asm!("mov.u32 {n}, %dynamic_smem_size;", n = out(reg32) n) };
    n
}

/// A static shared array of `N` elements, declared with `shared_array![T; N]`.
pub struct SharedArray<T, const N: usize> {
    #[cfg(target_arch = "nvptx64")]
    ptr: *mut T,
    #[cfg(not(target_arch = "nvptx64"))]
    offset: u32,
    _t: PhantomData<T>,
}

impl<T, const N: usize> Clone for SharedArray<T, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize> Copy for SharedArray<T, N> {}

impl<T, const N: usize> SharedArray<T, N> {
    /// The array at byte `offset` of the block's shared memory (laid out by `#[kernel]`).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __at(offset: usize) -> Self {
        SharedArray {
            #[cfg(target_arch = "nvptx64")]
            // SAFETY: the offset lies inside the shared memory the launch provides.
            ptr: unsafe { shared_base().add(offset) as *mut T },
            #[cfg(not(target_arch = "nvptx64"))]
            offset: offset as u32,
            _t: PhantomData,
        }
    }

    /// Number of elements, `N`.
    #[inline(always)]
    pub const fn len(&self) -> u32 {
        N as u32
    }

    /// Whether `N == 0`.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        N == 0
    }

    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn __ptr(&self, i: u32) -> *mut T {
        // SAFETY: address arithmetic only.
        unsafe { self.ptr.byte_add(byte_offset::<T>(i)) }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    fn __space(&self) -> crate::emu::Space {
        crate::emu::Space::Shared
    }
    #[cfg(not(target_arch = "nvptx64"))]
    fn __base(&self) -> u64 {
        self.offset as u64
    }
    #[cfg(not(target_arch = "nvptx64"))]
    fn __len(&self) -> u64 {
        N as u64
    }
}

memory_ops!(SharedArray [const N: usize] [N]);

/// The launch-sized shared memory of a kernel, declared with `dynamic_shared![T]`.
pub struct DynamicShared<T> {
    #[cfg(target_arch = "nvptx64")]
    ptr: *mut T,
    #[cfg(not(target_arch = "nvptx64"))]
    offset: u32,
    len: u32,
    _t: PhantomData<T>,
}

impl<T> Clone for DynamicShared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DynamicShared<T> {}

impl<T> DynamicShared<T> {
    /// The dynamic part, after `static_bytes` of static arrays.
    #[doc(hidden)]
    #[inline(always)]
    #[track_caller]
    pub fn __at(static_bytes: usize) -> Self {
        #[cfg(target_arch = "nvptx64")]
        let total = shared_size() as usize;
        #[cfg(not(target_arch = "nvptx64"))]
        let total = crate::emu::lane::shared_bytes() as usize;
        let len = (total.saturating_sub(static_bytes) / core::mem::size_of::<T>()) as u32;
        DynamicShared {
            #[cfg(target_arch = "nvptx64")]
            // SAFETY: the offset lies inside the shared memory the launch provides.
            ptr: unsafe { shared_base().add(static_bytes) as *mut T },
            #[cfg(not(target_arch = "nvptx64"))]
            offset: static_bytes as u32,
            len,
            _t: PhantomData,
        }
    }

    /// Number of elements: the launch's dynamic shared bytes over `size_of::<T>()`.
    #[inline(always)]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the launch gave no dynamic shared memory.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn __ptr(&self, i: u32) -> *mut T {
        // SAFETY: address arithmetic only.
        unsafe { self.ptr.byte_add(byte_offset::<T>(i)) }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    fn __space(&self) -> crate::emu::Space {
        crate::emu::Space::Shared
    }
    #[cfg(not(target_arch = "nvptx64"))]
    fn __base(&self) -> u64 {
        self.offset as u64
    }
    #[cfg(not(target_arch = "nvptx64"))]
    fn __len(&self) -> u64 {
        self.len as u64
    }
}

memory_ops!(DynamicShared [] []);
