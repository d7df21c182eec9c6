//! The host side of a `#[kernel]`: a typed launchable.

use crate::global::GlobalSlice;

/// A kernel, as `#[kernel]` describes it for the host: its PTX entry name, its static
/// shared memory, and the function the emulator runs in every lane. `A` is the tuple of
/// its parameter types, so a launch's arguments are checked at compile time.
pub struct Kernel<A: KernelArgs> {
    /// The PTX entry name (the function's name).
    pub name: &'static str,
    /// Bytes of `shared_array!` memory the kernel declares.
    pub static_shared_bytes: u32,
    /// The kernel body, for the emulator.
    pub host: fn(A),
    /// Source file of the kernel.
    pub file: &'static str,
    /// Line of the `#[kernel]` attribute.
    pub line: u32,
    /// The crate that defines the kernel. The emulator runs the kernels of the course's
    /// kernel crates (`kernels`, `solutions`) from their WebAssembly build, in the
    /// sandbox, and only those of other crates (the course's own test fixtures) natively.
    pub module: &'static str,
}

impl<A: KernelArgs> Clone for Kernel<A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A: KernelArgs> Copy for Kernel<A> {}

impl<A: KernelArgs> std::fmt::Debug for Kernel<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Kernel({} at {}:{})", self.name, self.file, self.line)
    }
}

/// A type that can be passed to a kernel by value: a scalar or a [`GlobalSlice`].
///
/// # Safety
/// The type's bytes must mean the same on the host and the GPU (`repr(C)` or a scalar).
pub unsafe trait KernelArg: Copy + Send + Sync + 'static {
    /// The argument as the 64-bit words a sandboxed lane reads back (`gpu.arg`).
    #[doc(hidden)]
    fn __words(&self, out: &mut Vec<u64>);
    /// The argument from those words, in the lane.
    #[doc(hidden)]
    fn __from_words(next: &mut dyn FnMut() -> u64) -> Self;
    /// The bytes of device memory the argument hands the kernel: a slice's length times
    /// its element's size, 0 for a scalar.
    #[doc(hidden)]
    fn __bytes(&self) -> u64 {
        0
    }
}

macro_rules! kernel_arg {
    ($($t:ty),*) => {$(
        // SAFETY: scalars have one layout on both targets.
        unsafe impl KernelArg for $t {
            fn __words(&self, out: &mut Vec<u64>) {
                out.push(*self as u64);
            }
            fn __from_words(next: &mut dyn FnMut() -> u64) -> Self {
                next() as $t
            }
        }
    )*};
}
kernel_arg!(u8, u16, u32, u64, i8, i16, i32, i64);

// SAFETY: as for integers.
unsafe impl KernelArg for f32 {
    fn __words(&self, out: &mut Vec<u64>) {
        out.push(self.to_bits() as u64);
    }
    fn __from_words(next: &mut dyn FnMut() -> u64) -> Self {
        f32::from_bits(next() as u32)
    }
}
// SAFETY: as for integers.
unsafe impl KernelArg for f64 {
    fn __words(&self, out: &mut Vec<u64>) {
        out.push(self.to_bits());
    }
    fn __from_words(next: &mut dyn FnMut() -> u64) -> Self {
        f64::from_bits(next())
    }
}
// SAFETY: as for integers.
unsafe impl KernelArg for bool {
    fn __words(&self, out: &mut Vec<u64>) {
        out.push(*self as u64);
    }
    fn __from_words(next: &mut dyn FnMut() -> u64) -> Self {
        next() != 0
    }
}
// SAFETY: `GlobalSlice` is `repr(C)`: a 64-bit address and two `u32`.
unsafe impl<T: 'static> KernelArg for GlobalSlice<T> {
    fn __words(&self, out: &mut Vec<u64>) {
        out.push(self.addr());
        out.push(self.len() as u64);
    }
    fn __from_words(next: &mut dyn FnMut() -> u64) -> Self {
        let addr = next();
        let len = next() as u32;
        // SAFETY: the emulator passes the handle the host made; every access through it
        // is checked by the emulator anyway.
        unsafe { GlobalSlice::from_raw_parts(addr, len) }
    }
    fn __bytes(&self) -> u64 {
        self.len() as u64 * core::mem::size_of::<T>() as u64
    }
}

/// The tuple of a kernel's arguments.
pub trait KernelArgs: Copy + Send + Sync + 'static {
    /// Pointers to each argument, in order, as `cuLaunchKernel` takes them.
    fn param_ptrs(&self) -> Vec<*mut std::ffi::c_void>;
    /// The arguments as the words a sandboxed lane reads back, in order.
    fn words(&self) -> Vec<u64>;
    /// The bytes of device memory the arguments hand the kernel (the slices' sizes): what
    /// a launch's throughput is computed from where nothing better is known.
    fn bytes(&self) -> u64;
    /// The arguments from those words, in the lane (what `#[kernel]`'s export calls).
    #[doc(hidden)]
    fn __from_words(next: &mut dyn FnMut() -> u64) -> Self;
}

macro_rules! kernel_args {
    ($(($($n:ident),*)),*) => {$(
        impl<$($n: KernelArg),*> KernelArgs for ($($n,)*) {
            #[allow(non_snake_case)]
            fn param_ptrs(&self) -> Vec<*mut std::ffi::c_void> {
                let ($($n,)*) = self;
                vec![$($n as *const $n as *mut std::ffi::c_void),*]
            }
            #[allow(unused_mut, non_snake_case)]
            fn words(&self) -> Vec<u64> {
                let ($($n,)*) = self;
                let mut out = Vec::new();
                $($n.__words(&mut out);)*
                out
            }
            #[allow(non_snake_case)]
            fn bytes(&self) -> u64 {
                let ($($n,)*) = self;
                0 $(+ $n.__bytes())*
            }
            #[allow(unused_variables, clippy::unused_unit)]
            fn __from_words(next: &mut dyn FnMut() -> u64) -> Self {
                ($($n::__from_words(next),)*)
            }
        }
    )*};
}
kernel_args!(
    (),
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
    (A, B, C, D, E, F, G),
    (A, B, C, D, E, F, G, H),
    (A, B, C, D, E, F, G, H, I),
    (A, B, C, D, E, F, G, H, I, J),
    (A, B, C, D, E, F, G, H, I, J, K),
    (A, B, C, D, E, F, G, H, I, J, K, L)
);

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch's bytes are its slices' (length times element size); scalars add none.
    #[test]
    fn a_launch_s_bytes_are_its_slices() {
        // SAFETY: the handles are never dereferenced: only their lengths are read.
        let (words, bytes) = unsafe {
            (
                GlobalSlice::<u32>::from_raw_parts(0x1000, 10),
                GlobalSlice::<u8>::from_raw_parts(0x2000, 7),
            )
        };
        assert_eq!((words, 3u32, bytes).bytes(), 47);
        assert_eq!((5u64,).bytes(), 0);
        assert_eq!(().bytes(), 0);
    }
}
