//! Device buffers: typed allocations owned by a [`Device`](crate::Device).

use gpu::{DeviceValue, GlobalSlice};
use std::marker::PhantomData;

/// `len` elements of `T` in device memory. Hand [`slice`](Self::slice) to a kernel; copy
/// back with [`Device::download`](crate::Device::download).
#[derive(Debug)]
pub struct DeviceBuffer<T: DeviceValue> {
    pub(crate) addr: u64,
    pub(crate) len: u32,
    pub(crate) device: u64,
    pub(crate) _t: PhantomData<T>,
}

impl<T: DeviceValue> DeviceBuffer<T> {
    /// The kernel parameter for this buffer.
    pub fn slice(&self) -> GlobalSlice<T> {
        // SAFETY: the buffer is a live allocation of `len` elements of `T`.
        unsafe { GlobalSlice::from_raw_parts(self.addr, self.len) }
    }

    /// Number of elements.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.len as usize * std::mem::size_of::<T>()
    }
}

/// The bytes of a slice of device values.
pub(crate) fn as_bytes<T: DeviceValue>(data: &[T]) -> &[u8] {
    // SAFETY: `DeviceValue` types have no padding (its safety contract).
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) }
}

/// Fills `out` from little-endian device bytes.
pub(crate) fn from_bytes<T: DeviceValue>(bytes: &[u8], out: &mut [T]) {
    // SAFETY: `DeviceValue` types accept any bit pattern (its safety contract), and the
    // destination has exactly `bytes.len()` bytes.
    let dst = unsafe {
        std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut u8, std::mem::size_of_val(out))
    };
    dst.copy_from_slice(bytes);
}

/// The bytes of a mutable slice of device values, to copy device memory into.
#[cfg(feature = "cuda")]
pub(crate) fn as_bytes_mut<T: DeviceValue>(data: &mut [T]) -> &mut [u8] {
    // SAFETY: `DeviceValue` types have no padding and accept any bit pattern (its safety
    // contract), so any bytes written here leave valid values.
    unsafe {
        std::slice::from_raw_parts_mut(data.as_mut_ptr() as *mut u8, std::mem::size_of_val(data))
    }
}
