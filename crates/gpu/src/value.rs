//! Values that live in device memory.

/// A plain value that can be stored in device memory: fixed size, no pointers to host
/// memory, any bit pattern read back as written. The emulator moves values as
/// little-endian bits, as the GPU does.
///
/// # Safety
/// The type must have no padding bytes and every bit pattern must be a valid value: the
/// host runtime copies buffers of it as raw bytes.
pub unsafe trait DeviceValue: Copy + 'static {
    /// The value's bits, zero-extended.
    fn to_bits(self) -> u128;
    /// The value from its bits (the low `size_of::<Self>()` bytes).
    fn from_bits(bits: u128) -> Self;
}

macro_rules! int_value {
    ($($t:ty => $u:ty),*) => {$(
        // SAFETY: integers have no padding and no invalid bit patterns.
        unsafe impl DeviceValue for $t {
            #[inline(always)]
            fn to_bits(self) -> u128 { self as $u as u128 }
            #[inline(always)]
            fn from_bits(bits: u128) -> Self { bits as $u as $t }
        }
    )*};
}
int_value!(u8 => u8, u16 => u16, u32 => u32, u64 => u64, i8 => u8, i16 => u16, i32 => u32, i64 => u64);

// SAFETY: as for integers.
unsafe impl DeviceValue for f32 {
    #[inline(always)]
    fn to_bits(self) -> u128 {
        f32::to_bits(self) as u128
    }
    #[inline(always)]
    fn from_bits(bits: u128) -> Self {
        f32::from_bits(bits as u32)
    }
}

// SAFETY: as for integers.
unsafe impl DeviceValue for f64 {
    #[inline(always)]
    fn to_bits(self) -> u128 {
        f64::to_bits(self) as u128
    }
    #[inline(always)]
    fn from_bits(bits: u128) -> Self {
        f64::from_bits(bits as u64)
    }
}

/// Four `u32`, 16-byte aligned: one vectorised load (`ld.global.v4.u32`) moves a whole
/// 16-byte chunk, the widest load a thread can issue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct U32x4(pub [u32; 4]);

// SAFETY: four `u32`, 16 bytes, no padding.
unsafe impl DeviceValue for U32x4 {
    #[inline(always)]
    fn to_bits(self) -> u128 {
        let [a, b, c, d] = self.0;
        a as u128 | (b as u128) << 32 | (c as u128) << 64 | (d as u128) << 96
    }
    #[inline(always)]
    fn from_bits(bits: u128) -> Self {
        U32x4([
            bits as u32,
            (bits >> 32) as u32,
            (bits >> 64) as u32,
            (bits >> 96) as u32,
        ])
    }
}
