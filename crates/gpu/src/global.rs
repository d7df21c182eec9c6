//! Global (device) memory: what `cudaMalloc` returns, visible to every thread of the grid.
//!
//! A [`GlobalSlice<T>`] is a kernel parameter: a device pointer and a length, `Copy`,
//! passed by value exactly like `(T* ptr, unsigned n)` in CUDA C. The hardware reads
//! global memory in 32-byte *sectors*: when the 32 lanes of a warp read 32 consecutive
//! `u32`, that is 128 bytes, 4 sectors, one request (coalesced); with a stride of 32
//! elements each lane needs its own sector, 32 of them. The emulator counts both.

use crate::memory_ops::memory_ops;
use core::marker::PhantomData;

/// A typed view of device memory: a kernel parameter.
///
/// Create one on the host from a device buffer (the host runtime does); read and write it
/// in a kernel with [`load`](Self::load), [`store`](Self::store) and the atomics.
#[repr(C)]
pub struct GlobalSlice<T> {
    /// Device address of element 0.
    #[cfg(target_arch = "nvptx64")]
    ptr: *mut T,
    /// The modelled device address of element 0 (64 bits on every target, the sandbox's
    /// 32-bit wasm included).
    #[cfg(not(target_arch = "nvptx64"))]
    addr: u64,
    /// Number of elements.
    len: u32,
    _pad: u32,
    _t: PhantomData<T>,
}

impl<T> Clone for GlobalSlice<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for GlobalSlice<T> {}

// SAFETY: a handle is an address and a length; what it points at is device memory,
// reached only through the emulator or the GPU.
unsafe impl<T> Send for GlobalSlice<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for GlobalSlice<T> {}

impl<T> core::fmt::Debug for GlobalSlice<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "GlobalSlice({:#x}, len {})", self.addr(), self.len)
    }
}

impl<T> GlobalSlice<T> {
    /// A handle to `len` elements at device address `addr`.
    ///
    /// # Safety
    /// `addr` must be the device address of at least `len` elements of `T`, aligned for
    /// `T`, that stay allocated while any kernel uses the handle. The host runtime's
    /// buffers give such handles; use those instead of calling this.
    pub const unsafe fn from_raw_parts(addr: u64, len: u32) -> Self {
        GlobalSlice {
            #[cfg(target_arch = "nvptx64")]
            ptr: addr as usize as *mut T,
            #[cfg(not(target_arch = "nvptx64"))]
            addr,
            len,
            _pad: 0,
            _t: PhantomData,
        }
    }

    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether there are no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of element 0.
    #[inline(always)]
    pub fn addr(&self) -> u64 {
        #[cfg(target_arch = "nvptx64")]
        return self.ptr as usize as u64;
        #[cfg(not(target_arch = "nvptx64"))]
        self.addr
    }

    /// The first `len` elements (all of them when `len` is larger): a handle to part of
    /// a buffer, as `(ptr, len)` is in CUDA C. A host passes it to a kernel that must
    /// see fewer elements than the buffer holds (the first copy of 9.4's private bins).
    #[inline(always)]
    pub fn prefix(self, len: u32) -> Self {
        GlobalSlice {
            len: len.min(self.len),
            ..self
        }
    }

    /// The same memory seen as elements of `U`: `len * size_of::<T>() / size_of::<U>()`
    /// of them (a tail shorter than one `U` is left out). This is how a kernel reads bytes
    /// four at a time (`data.cast::<u32>()`) or sixteen at a time
    /// (`data.cast::<U32x4>()`), the vectorised loads of chapter 9. The address must be
    /// aligned for `U` (device allocations are 256-byte aligned).
    #[inline(always)]
    pub fn cast<U>(self) -> GlobalSlice<U> {
        let bytes = self.len as u64 * core::mem::size_of::<T>() as u64;
        GlobalSlice {
            #[cfg(target_arch = "nvptx64")]
            ptr: self.ptr as *mut U,
            #[cfg(not(target_arch = "nvptx64"))]
            addr: self.addr,
            len: (bytes / core::mem::size_of::<U>() as u64) as u32,
            _pad: 0,
            _t: PhantomData,
        }
    }

    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn __ptr(&self, i: u32) -> *mut T {
        // SAFETY: address arithmetic only; the access is the caller's.
        unsafe { self.ptr.add(i as usize) }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    fn __space(&self) -> crate::emu::Space {
        crate::emu::Space::Global
    }

    #[cfg(not(target_arch = "nvptx64"))]
    fn __base(&self) -> u64 {
        self.addr()
    }

    #[cfg(not(target_arch = "nvptx64"))]
    fn __len(&self) -> u64 {
        self.len as u64
    }
}

memory_ops!(GlobalSlice [] []);

impl<T: crate::atomic::AtomicAdd> GlobalSlice<T> {
    /// `atomicAdd(&a[i], v)` when the old value is not wanted. CUDA C compiles such an
    /// `atomicAdd` to `RED`, an add the thread sends to the L2 cache and does not wait
    /// for; [`atomic_add`](Self::atomic_add), which returns the old value, is `ATOM`,
    /// whose reply the thread waits for before it can finish. The throughput is the same;
    /// the wait is not: a block's commit of 4096 adds ended 1 to 2 µs sooner as `RED` on
    /// an H100 (`notes/commit-probe-2026-11-24/`), which is most of what a launch over a
    /// few MiB pays beyond reading its input. On the emulator it is `atomic_add` exactly:
    /// the same counters, the same checks.
    #[inline(always)]
    #[track_caller]
    pub fn red_add(&self, i: u32, v: T) {
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: a global slice's elements are global memory, as for `atomic_add`.
        unsafe {
            T::device_red_global(self.__ptr(i), v)
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let _ = self.atomic_add(i, v);
        }
    }
}
