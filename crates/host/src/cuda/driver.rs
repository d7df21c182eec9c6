//! Loading the CUDA driver (`libcuda.so.1`) when it is first needed, not when the program
//! starts.
//!
//! `cust` calls the driver through `cust_raw`'s `extern "C"` declarations, which a normal
//! build resolves against `libcuda.so`: the binary then names `libcuda.so.1` as a needed
//! library, and on a machine without the NVIDIA driver (a laptop, CI) the dynamic loader
//! refuses to start it, emulator tests included. So this module defines every one of those
//! 353 symbols itself, as a one-instruction trampoline (`jmp *slot`), and fills the slots
//! from `dlopen("libcuda.so.1")` + `dlsym` the first time a CUDA device is asked for:
//!
//! - until then (and for good, when there is no driver) every slot points at a function
//!   returning `CUDA_ERROR_NOT_INITIALIZED`, so a stray call fails cleanly;
//! - a name the installed driver does not export returns `CUDA_ERROR_NOT_FOUND`;
//! - the trampoline only jumps, so arguments in registers and on the stack reach the
//!   driver untouched, whatever the signature: no list of signatures is needed;
//! - the library is never closed: the slots point into it for the life of the process.
//!
//! The link still passes `-lcuda` (cust's build script asks for it); it finds the empty
//! archive in `crates/host/cuda-stub/lib64` (or a real toolkit's `libcuda.so`, which the
//! linker then drops as unneeded), so the binary needs only glibc at start-up, and
//! `libcuda.so.1` of the installed driver once a CUDA device is created.
//!
//! Supported: Linux on x86-64 and AArch64 (the trampolines are assembly).

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Expands the symbol list into the slot table, the trampolines and [`NAMES`].
macro_rules! driver_symbols {
    ($($i:literal $name:ident)*) => {
        /// The driver's entry points, NUL-terminated for `dlsym`, in slot order.
        pub(super) const NAMES: &[&str] = &[$(concat!(stringify!($name), "\0")),*];

        #[cfg(target_arch = "x86_64")]
        core::arch::global_asm!(
            ".pushsection .data.gpu_host_cuda_slots,\"aw\",%progbits",
            ".p2align 3",
            ".globl gpu_host_cuda_slots",
            ".hidden gpu_host_cuda_slots",
            "gpu_host_cuda_slots:",
            $(concat!(".Lgpu_host_slot_", stringify!($name), ": .quad {fallback}"),)*
            ".popsection",
            ".pushsection .text.gpu_host_cuda_trampolines,\"ax\",%progbits",
            $(
                concat!(".globl ", stringify!($name)),
                concat!(".hidden ", stringify!($name)),
                concat!(".type ", stringify!($name), ",%function"),
                ".p2align 4",
                concat!(stringify!($name), ":"),
                concat!("jmp qword ptr [rip + gpu_host_cuda_slots + 8*", stringify!($i), "]"),
                concat!(".size ", stringify!($name), ", . - ", stringify!($name)),
            )*
            ".popsection",
            fallback = sym super::not_initialized,
        );

        #[cfg(target_arch = "aarch64")]
        core::arch::global_asm!(
            ".pushsection .data.gpu_host_cuda_slots,\"aw\",%progbits",
            ".p2align 3",
            ".globl gpu_host_cuda_slots",
            ".hidden gpu_host_cuda_slots",
            "gpu_host_cuda_slots:",
            $(concat!(".Lgpu_host_slot_", stringify!($name), ": .xword {fallback}"),)*
            ".popsection",
            ".pushsection .text.gpu_host_cuda_trampolines,\"ax\",%progbits",
            $(
                concat!(".globl ", stringify!($name)),
                concat!(".hidden ", stringify!($name)),
                concat!(".type ", stringify!($name), ",%function"),
                ".p2align 2",
                concat!(stringify!($name), ":"),
                concat!("adrp x16, gpu_host_cuda_slots + 8*", stringify!($i)),
                concat!("ldr x16, [x16, :lo12:gpu_host_cuda_slots + 8*", stringify!($i), "]"),
                "br x16",
                concat!(".size ", stringify!($name), ", . - ", stringify!($name)),
            )*
            ".popsection",
            fallback = sym super::not_initialized,
        );
    };
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
compile_error!(
    "gpu-host's `cuda` feature loads libcuda.so.1 at run time through trampolines written for \
     Linux on x86-64 and AArch64; this target is not one of them (use the emulator backend)"
);

#[path = "symbols.rs"]
mod symbols;

use symbols::NAMES;

unsafe extern "C" {
    /// The slot table defined by the assembly above: one code address per name. Naming
    /// it here also makes the linker keep the object that holds the trampolines.
    static gpu_host_cuda_slots: [AtomicUsize; NAMES.len()];
}

/// Every slot's value before the driver is loaded (and after a failed load).
extern "C" fn not_initialized() -> c_int {
    3 // CUDA_ERROR_NOT_INITIALIZED
}

/// The slot of a name the installed driver does not export.
extern "C" fn not_found() -> c_int {
    500 // CUDA_ERROR_NOT_FOUND
}

// glibc: `dlopen` and friends live in libc.so.6 since 2.34 and in libdl.so.2 before; the
// `dl` library also exists (as an empty stub) on newer glibc, so naming it is harmless.
#[link(name = "dl")]
unsafe extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}

const RTLD_NOW: c_int = 2;

/// The soname of the NVIDIA driver's user-space library.
pub(crate) const LIBCUDA: &str = "libcuda.so.1";

fn slots() -> &'static [AtomicUsize] {
    // SAFETY: the table is defined (and initialised) by the assembly in this module, has
    // exactly `NAMES.len()` pointer-sized, pointer-aligned entries, and is only written
    // through these atomics.
    unsafe { &*std::ptr::addr_of!(gpu_host_cuda_slots) }
}

/// Loads `libcuda.so.1` and fills the slots, once per process. The error is `dlerror()`'s
/// text (typically "libcuda.so.1: cannot open shared object file: No such file or
/// directory").
pub(crate) fn load() -> Result<(), String> {
    static LOADED: OnceLock<Result<(), String>> = OnceLock::new();
    LOADED.get_or_init(open).clone()
}

fn open() -> Result<(), String> {
    let name = c"libcuda.so.1";
    // SAFETY: a NUL-terminated name; the flags are valid for dlopen.
    let handle = unsafe { dlopen(name.as_ptr(), RTLD_NOW) };
    if handle.is_null() {
        // SAFETY: dlerror returns NULL or a NUL-terminated string owned by libc.
        let err = unsafe { dlerror() };
        return Err(if err.is_null() {
            format!("{LIBCUDA}: could not be loaded")
        } else {
            // SAFETY: as above.
            unsafe { CStr::from_ptr(err) }
                .to_string_lossy()
                .into_owned()
        });
    }
    for (slot, name) in slots().iter().zip(NAMES) {
        // SAFETY: `handle` is a live library handle; `name` ends with NUL.
        let addr = unsafe { dlsym(handle, name.as_ptr() as *const c_char) };
        let target = if addr.is_null() {
            not_found as *const () as usize
        } else {
            addr as usize
        };
        slot.store(target, Ordering::Release);
    }
    Ok(())
}

/// The code address behind a driver entry point, once [`load`] succeeded.
fn entry(name: &str) -> Option<usize> {
    let i = NAMES
        .iter()
        .position(|n| n.strip_suffix('\0') == Some(name))?;
    let addr = slots()[i].load(Ordering::Acquire);
    (addr != not_initialized as *const () as usize && addr != not_found as *const () as usize)
        .then_some(addr)
}

/// `cuInit(0)`, returning the driver's status code as a plain integer.
///
/// Called through the slot rather than `cust_raw`'s binding, whose return type is a Rust
/// enum generated from CUDA 11 headers: a newer driver can answer with a code that enum
/// lacks (e.g. `CUDA_ERROR_STUB_LIBRARY`), which as an enum would be undefined behaviour.
pub(crate) fn init() -> i32 {
    match entry("cuInit") {
        // SAFETY: the driver's cuInit has this C signature (CUresult is a C enum: int).
        Some(f) => unsafe {
            let f: extern "C" fn(u32) -> c_int = std::mem::transmute(f);
            f(0)
        },
        None => 3,
    }
}

/// The driver's name for a status code (`CUDA_ERROR_ILLEGAL_ADDRESS`), and its one-line
/// description, as `cuGetErrorName`/`cuGetErrorString` give them.
pub(crate) fn error_text(code: i32) -> (String, Option<String>) {
    let ask = |fname: &str| -> Option<String> {
        let f = entry(fname)?;
        let mut s: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorName/String(CUresult, const char**) -> CUresult; on success
        // the string is static storage of the driver.
        unsafe {
            let f: extern "C" fn(c_int, *mut *const c_char) -> c_int = std::mem::transmute(f);
            if f(code, &mut s) != 0 || s.is_null() {
                return None;
            }
            Some(CStr::from_ptr(s).to_string_lossy().into_owned())
        }
    };
    let name = ask("cuGetErrorName").unwrap_or_else(|| format!("CUDA error {code}"));
    (name, ask("cuGetErrorString"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_terminated() {
        let mut v: Vec<&str> = NAMES.to_vec();
        assert!(v.iter().all(|n| n.ends_with('\0') && n.starts_with("cu")));
        v.sort();
        v.dedup();
        assert_eq!(v.len(), NAMES.len());
    }

    #[test]
    fn without_a_driver_every_call_fails_cleanly() {
        if load().is_ok() {
            return; // a driver is installed: the slots point into it
        }
        unsafe extern "C" {
            fn cuDriverGetVersion(v: *mut c_int) -> c_int;
        }
        let mut v = 0;
        // SAFETY: the trampoline jumps to `not_initialized`, which ignores its arguments.
        assert_eq!(unsafe { cuDriverGetVersion(&mut v) }, 3);
        assert_eq!(init(), 3);
        assert_eq!(error_text(700).0, "CUDA error 700");
    }
}
