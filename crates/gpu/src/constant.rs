//! Constant memory: read-only data the host sets before a launch (CUDA's `__constant__`).
//!
//! Declare an array at the top level of a kernel crate (whose root enables, for the GPU,
//! `#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]`: the macro
//! declares the array in the PTX with `global_asm!`), and read it in any kernel:
//!
//! ```ignore
//! gpu::constant! {
//!     /// The bin of every byte value.
//!     pub static BIN_OF: [u32; 256];
//! }
//!
//! #[kernel]
//! pub fn histo_lut(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
//!     // ...
//!     histo.atomic_add(BIN_OF.load(data.load(i) as u32), 1);
//! }
//! ```
//!
//! The host sets it with `Device::set_constant(&BIN_OF, &table)` (`cudaMemcpyToSymbol`),
//! once; every later launch reads it. A module has 64 KiB of constant memory.
//!
//! What makes it fast, and when it is not: each SM reads constant memory through a small
//! constant cache that serves **one address per pass** and broadcasts it to every lane
//! that asked. A value all 32 lanes read at once (a coefficient, a table's size) costs one
//! pass, whatever the warp; a table indexed by the data, where the lanes read `k`
//! distinct entries, takes `k` passes. The emulator counts those passes
//! (`constant_serialized`, `constant_max_addresses`).
//!
//! On the GPU the array is a `.const` variable of the module's PTX, declared by the
//! macro, and a load is `ld.const` (`LDC` in SASS); on the emulator it is a read-only
//! space of the device whose address the array's name gives
//! ([`simt::op::constant_address`]).

use crate::value::DeviceValue;
use core::marker::PhantomData;

/// What [`constant!`](crate::constant!) generates for one array: its name, element type
/// and length, and on the GPU its address.
///
/// # Safety
/// `NAME` must be the name of a `.const` array of `LEN` elements of `Elem` that the
/// kernel crate's PTX declares (the macro declares it), and on the GPU `base` must return
/// its address in the constant space.
pub unsafe trait ConstantSymbol: 'static {
    /// The array's element type.
    type Elem: DeviceValue;
    /// Its elements.
    const LEN: u32;
    /// Its name: the PTX symbol, and what the host looks up (`cuModuleGetGlobal`).
    const NAME: &'static str;
    /// Its address in the constant space (`mov.u64 %rd, NAME;`).
    #[cfg(target_arch = "nvptx64")]
    fn base() -> u64;
}

/// A constant array: `BIN_OF.load(i)` in a kernel, `Device::set_constant(&BIN_OF, ...)`
/// on the host. Made by [`constant!`](crate::constant!).
pub struct ConstantArray<S: ConstantSymbol> {
    /// The source file that declares it: on a GPU, which crate's module holds it.
    pub file: &'static str,
    _s: PhantomData<S>,
}

// SAFETY: a handle is a name; the data it names is device memory, reached only through
// the emulator or the GPU.
unsafe impl<S: ConstantSymbol> Sync for ConstantArray<S> {}

impl<S: ConstantSymbol> ConstantArray<S> {
    /// The handle of the array `S`, declared in `file`. The macro calls this.
    #[doc(hidden)]
    pub const fn __new(file: &'static str) -> Self {
        ConstantArray {
            file,
            _s: PhantomData,
        }
    }

    /// Its name: the PTX symbol.
    pub const fn name(&self) -> &'static str {
        S::NAME
    }

    /// Its length in elements.
    #[inline(always)]
    pub const fn len(&self) -> u32 {
        S::LEN
    }

    /// Whether it has no elements.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        S::LEN == 0
    }

    /// Reads element `i` (`ld.const`). Out of bounds is a memcheck error on the emulator
    /// and undefined on a GPU, as in CUDA C.
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, i: u32) -> S::Elem {
        #[cfg(target_arch = "nvptx64")]
        {
            let addr = S::base() + i as u64 * core::mem::size_of::<S::Elem>() as u64;
            // SAFETY: an address inside the array (bounds are the kernel's, as in CUDA C);
            // the load reads constant memory and nothing else.
            unsafe { load_const::<S::Elem>(addr) }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        S::Elem::from_bits(crate::emu::lane::park(
            core::panic::Location::caller(),
            crate::emu::Op::Load {
                space: crate::emu::Space::Constant,
                base: crate::emu::constant_address(S::NAME),
                index: i as u64,
                len: S::LEN as u64,
                size: core::mem::size_of::<S::Elem>() as u8,
            },
        ))
    }
}

/// `ld.const` of a `T` at `addr` in the constant space, by its size.
///
/// # Safety
/// `addr` must be the constant-space address of a `T`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn load_const<T: DeviceValue>(addr: u64) -> T {
    use core::arch::asm;
    let bits: u128 = match core::mem::size_of::<T>() {
        1 => {
            let v: u16;
            // SAFETY: the caller's.
            unsafe { asm!("ld.const.u8 {v}, [{a}];", v = out(reg16) v, a = in(reg64) addr) };
            v as u8 as u128
        }
        2 => {
            let v: u16;
            // SAFETY: the caller's.
            unsafe { asm!("ld.const.u16 {v}, [{a}];", v = out(reg16) v, a = in(reg64) addr) };
            v as u128
        }
        4 => {
            let v: u32;
            // SAFETY: the caller's.
            unsafe { asm!("ld.const.u32 {v}, [{a}];", v = out(reg32) v, a = in(reg64) addr) };
            v as u128
        }
        8 => {
            let v: u64;
            // SAFETY: the caller's.
            unsafe { asm!("ld.const.u64 {v}, [{a}];", v = out(reg64) v, a = in(reg64) addr) };
            v as u128
        }
        _ => {
            let (a, b, c, d): (u32, u32, u32, u32);
            // SAFETY: the caller's; 16-byte values are 16-byte aligned (`U32x4`).
            unsafe {
                asm!(
                    "ld.const.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
                    a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
                    p = in(reg64) addr,
                )
            };
            a as u128 | (b as u128) << 32 | (c as u128) << 64 | (d as u128) << 96
        }
    };
    T::from_bits(bits)
}

/// Declares constant arrays (CUDA's `__constant__ T NAME[N];`) at the top level of a
/// kernel crate: `gpu::constant! { pub static BIN_OF: [u32; 256]; }`. Each becomes a
/// [`ConstantArray`] with the same name; see [the module](mod@crate::constant).
///
/// The element type is one of the device's values (`u8` to `u64`, `i8` to `i64`, `f32`,
/// `f64`, `U32x4`); the array may take at most 64 KiB. The name is the PTX symbol, so it
/// must be unique among the crate's constant arrays. The crate's root needs
/// `#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]` for the GPU.
#[macro_export]
macro_rules! constant {
    ($($(#[$doc:meta])* $vis:vis static $name:ident: [$t:ty; $n:expr];)+) => {$(
        const _: () = assert!(
            ($n as usize) * ::core::mem::size_of::<$t>() <= 64 * 1024,
            "a module has 64 KiB of constant memory"
        );
        #[cfg(target_arch = "nvptx64")]
        ::core::arch::global_asm!(
            concat!(".visible .const .align 16 .b8 ", stringify!($name), "[{bytes}];"),
            bytes = const ($n as usize) * ::core::mem::size_of::<$t>(),
        );
        $(#[$doc])*
        $vis static $name: $crate::constant::ConstantArray<$name::Symbol> =
            $crate::constant::ConstantArray::__new(file!());
        #[doc(hidden)]
        #[allow(non_snake_case)]
        $vis mod $name {
            /// The array's symbol (see `gpu::constant::ConstantSymbol`).
            pub struct Symbol;
            // SAFETY: the `global_asm!` beside the array declares `.const` `NAME` of
            // `LEN` elements of `Elem`, and `base` reads its address.
            unsafe impl $crate::constant::ConstantSymbol for Symbol {
                type Elem = $t;
                const LEN: u32 = $n as u32;
                const NAME: &'static str = stringify!($name);
                #[cfg(target_arch = "nvptx64")]
                #[inline(always)]
                fn base() -> u64 {
                    let a: u64;
                    // SAFETY: taking a variable's address has no preconditions.
                    unsafe {
                        ::core::arch::asm!(
                            concat!("mov.u64 {a}, ", stringify!($name), ";"),
                            a = out(reg64) a,
                            options(pure, nomem, nostack),
                        )
                    };
                    a
                }
            }
        }
    )+};
}
