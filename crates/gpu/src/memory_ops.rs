//! The load, store and atomic methods every memory handle has, written once.
//!
//! A handle provides, on the host, `__space()`, `__base()` and `__len()` (what the
//! emulator needs to check and count the access) and, on the GPU, `__ptr(i)` (the
//! element's address). This macro stamps the public methods on top.

macro_rules! memory_ops {
    ($handle:ident [$($gen:tt)*] [$($args:tt)*]) => {
        impl<T: $crate::value::DeviceValue, $($gen)*> $handle<T, $($args)*> {
            /// Reads element `i` (a `ld` instruction). Out of bounds is a memcheck error on
            /// the emulator and undefined (usually an illegal-address fault) on a GPU.
            #[inline(always)]
            #[track_caller]
            pub fn load(&self, i: u32) -> T {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: the handle points at device memory of the launch; bounds are the
                // kernel's responsibility, as in CUDA C.
                unsafe { self.__ptr(i).read() }
                #[cfg(not(target_arch = "nvptx64"))]
                T::from_bits($crate::emu::lane::park(
                    core::panic::Location::caller(),
                    $crate::emu::Op::Load { space: self.__space(), base: self.__base(), index: i as u64, len: self.__len(), size: core::mem::size_of::<T>() as u8 },
                ))
            }

            /// Writes `v` to element `i` (a `st` instruction). When several threads store
            /// to one element at once, one of them wins; the others' values are lost.
            #[inline(always)]
            #[track_caller]
            pub fn store(&self, i: u32, v: T) {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: as for `load`.
                unsafe { self.__ptr(i).write(v) }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    $crate::emu::lane::park(
                        core::panic::Location::caller(),
                        $crate::emu::Op::Store { space: self.__space(), base: self.__base(), index: i as u64, len: self.__len(), size: core::mem::size_of::<T>() as u8, value: v.to_bits() },
                    );
                }
            }
        }

        impl<T: $crate::atomic::AtomicAdd, $($gen)*> $handle<T, $($args)*> {
            /// `atomicAdd(&a[i], v)`: adds `v` to element `i` atomically and returns the old
            /// value.
            #[inline(always)]
            #[track_caller]
            pub fn atomic_add(&self, i: u32, v: T) -> T {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: as for `load`.
                unsafe { T::device_add(self.__ptr(i), v) }
                #[cfg(not(target_arch = "nvptx64"))]
                self.__atomic(i, $crate::emu::AtomicOp::Add, T::TY, v.to_bits() as u64, 0)
            }

            #[cfg(not(target_arch = "nvptx64"))]
            #[inline(always)]
            #[track_caller]
            fn __atomic(&self, i: u32, op: $crate::emu::AtomicOp, ty: $crate::emu::AtomicType, value: u64, compare: u64) -> T {
                T::from_bits($crate::emu::lane::park(
                    core::panic::Location::caller(),
                    $crate::emu::Op::Atomic { space: self.__space(), base: self.__base(), index: i as u64, len: self.__len(), ty, op, value, compare },
                ))
            }
        }

        impl<T: $crate::atomic::AtomicInt, $($gen)*> $handle<T, $($args)*> {
            memory_ops!(@rmw atomic_sub, Sub, "`atomicSub(&a[i], v)`: subtracts `v` (wrapping); returns the old value.");
            memory_ops!(@rmw atomic_min, Min, "`atomicMin(&a[i], v)`: keeps the smaller; returns the old value.");
            memory_ops!(@rmw atomic_max, Max, "`atomicMax(&a[i], v)`: keeps the larger; returns the old value.");
            memory_ops!(@rmw atomic_exch, Exch, "`atomicExch(&a[i], v)`: stores `v`; returns the old value.");
            memory_ops!(@rmw atomic_and, And, "`atomicAnd(&a[i], v)`: bitwise and; returns the old value.");
            memory_ops!(@rmw atomic_or, Or, "`atomicOr(&a[i], v)`: bitwise or; returns the old value.");
            memory_ops!(@rmw atomic_xor, Xor, "`atomicXor(&a[i], v)`: bitwise xor; returns the old value.");

            /// `atomicCAS(&a[i], compare, v)`: if element `i` equals `compare`, replaces it
            /// with `v`. Returns the old value either way: the swap happened exactly when
            /// the result equals `compare`. Every other atomic can be built from this in a
            /// retry loop.
            #[inline(always)]
            #[track_caller]
            pub fn atomic_cas(&self, i: u32, compare: T, v: T) -> T {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: as for `load`.
                unsafe { T::device_cas(self.__ptr(i), compare, v) }
                #[cfg(not(target_arch = "nvptx64"))]
                self.__atomic(i, $crate::emu::AtomicOp::Cas, T::TY, v.to_bits() as u64, compare.to_bits() as u64)
            }
        }

        impl<$($gen)*> $handle<u32, $($args)*> {
            /// `atomicInc(&a[i], limit)`: `old >= limit ? 0 : old + 1`, a wrapping counter;
            /// returns the old value. `u32` only, as in CUDA.
            #[inline(always)]
            #[track_caller]
            pub fn atomic_inc(&self, i: u32, limit: u32) -> u32 {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: as for `load`.
                unsafe { $crate::atomic::device_inc(self.__ptr(i), limit) }
                #[cfg(not(target_arch = "nvptx64"))]
                self.__atomic(i, $crate::emu::AtomicOp::Inc, $crate::emu::AtomicType::U32, limit as u64, 0)
            }

            /// `atomicDec(&a[i], limit)`: `(old == 0 || old > limit) ? limit : old - 1`;
            /// returns the old value. `u32` only, as in CUDA.
            #[inline(always)]
            #[track_caller]
            pub fn atomic_dec(&self, i: u32, limit: u32) -> u32 {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: as for `load`.
                unsafe { $crate::atomic::device_dec(self.__ptr(i), limit) }
                #[cfg(not(target_arch = "nvptx64"))]
                self.__atomic(i, $crate::emu::AtomicOp::Dec, $crate::emu::AtomicType::U32, limit as u64, 0)
            }
        }
    };
    (@rmw $name:ident, $op:ident, $doc:literal) => {
        #[doc = $doc]
        #[inline(always)]
        #[track_caller]
        pub fn $name(&self, i: u32, v: T) -> T {
            #[cfg(target_arch = "nvptx64")]
            // SAFETY: as for `load`.
            unsafe { T::device_rmw(self.__ptr(i), $crate::atomic::Rmw::$op, v) }
            #[cfg(not(target_arch = "nvptx64"))]
            self.__atomic(i, $crate::emu::AtomicOp::$op, T::TY, v.to_bits() as u64, 0)
        }
    };
}

pub(crate) use memory_ops;
