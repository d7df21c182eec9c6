//! The device API's backend inside the sandbox (`wasm32-unknown-unknown`).
//!
//! On this target the `gpu` crate does not link the emulator: it *is* the lane. Every
//! device operation becomes a call of an import of module `gpu`, which the emulator
//! (`simt::wasm`) defines and answers: the special registers, the kernel's arguments, one
//! device call that parks the lane until its warp instruction executes, a panic report
//! and `printf`. Nothing else is imported, so a kernel can reach nothing but the device
//! API. This module has the names of the parts of `simt` the other modules use
//! (`lane::park`, `Op`, ...), so they compile unchanged for both the native emulator and
//! the sandbox.

// The emulator's own definition of the operations and their encoding: both sides of the
// sandbox's boundary compile this one file, so they cannot disagree.
#[path = "../../simt/src/op.rs"]
#[allow(dead_code)]
mod op;

pub use op::{AtomicOp, AtomicType, Op, ShuffleKind, Space, WarpOp, constant_address, wire};

use core::panic::Location;

#[link(wasm_import_module = "gpu")]
unsafe extern "C" {
    /// Writes the lane's special registers as `n` words at `out`: threadIdx 0-2,
    /// blockIdx 3-5, blockDim 6-8, gridDim 9-11, laneid 12, the launch's shared bytes 13.
    #[link_name = "specials"]
    fn gpu_specials(out: *mut u32, n: u32);
    /// Word `i` of the kernel's arguments.
    #[link_name = "arg"]
    fn gpu_arg(i: u32) -> u64;
    /// The upper 64 bits of the last device call's result.
    #[link_name = "result_hi"]
    fn gpu_result_hi() -> u64;
    /// One device operation ([`wire`]) at a source location (the address of its
    /// `#[track_caller]` `Location`, which the emulator reads through
    /// [`location_file`]/[`location_line`] the first time it meets it); parks the lane.
    #[link_name = "call"]
    fn gpu_call(site: *const u8, w0: u64, w1: u64, w2: u64, w3: u64, w4: u64, w5: u64) -> u64;
    /// [`gpu_call`] for an operation whose last two words are zero (a load, a barrier):
    /// the commonest device call, with two arguments fewer to pass.
    #[link_name = "call4"]
    fn gpu_call4(site: *const u8, w0: u64, w1: u64, w2: u64, w3: u64) -> u64;
    /// The lane panicked: its message and location.
    #[link_name = "panic"]
    fn gpu_panic(
        msg: *const u8,
        msg_len: usize,
        file: *const u8,
        file_len: usize,
        line: u32,
        column: u32,
    );
    /// Kernel output (CUDA's device `printf`).
    #[link_name = "print"]
    fn gpu_print(text: *const u8, len: usize);
}

/// How many special registers a lane reads at its start (see `gpu_specials`).
const SPECIALS: usize = 14;

/// The lane's special registers, read once when its kernel starts ([`kernel_start`]):
/// they do not change while it runs, and each read would otherwise be a call out of the
/// sandbox. Each lane is an instance of its own, so these statics are the lane's.
static REGISTERS: [core::sync::atomic::AtomicU32; SPECIALS] =
    [const { core::sync::atomic::AtomicU32::new(0) }; SPECIALS];

fn gpu_special(i: u32) -> u32 {
    REGISTERS[i as usize].load(core::sync::atomic::Ordering::Relaxed)
}

/// What a lane can reach: its indices and the one scheduling point, [`lane::park`].
pub mod lane {
    use super::*;

    /// Suspends the lane at `site` with `op` until its warp instruction executes; returns
    /// the operation's result.
    #[inline(always)]
    pub fn park(site: &'static Location<'static>, op: Op) -> u128 {
        let [w0, w1, w2, w3, w4, w5] = wire::encode(&op);
        let site = (site as *const Location<'static>).cast::<u8>();
        // SAFETY: the import reads the `Location` at `site` (through the exports below)
        // and has no other preconditions.
        let lo = unsafe {
            match op {
                Op::Load { .. } | Op::Barrier => gpu_call4(site, w0, w1, w2, w3),
                _ => gpu_call(site, w0, w1, w2, w3, w4, w5),
            }
        };
        let hi = match op {
            // SAFETY: reading the last result has no preconditions.
            Op::Load { size: 16, .. } => unsafe { gpu_result_hi() },
            _ => 0,
        };
        lo as u128 | (hi as u128) << 64
    }

    #[inline(always)]
    fn special3(base: u32) -> [u32; 3] {
        [
            gpu_special(base),
            gpu_special(base + 1),
            gpu_special(base + 2),
        ]
    }

    /// `threadIdx`.
    #[inline]
    pub fn thread_idx() -> [u32; 3] {
        special3(0)
    }
    /// `blockIdx`.
    #[inline]
    pub fn block_idx() -> [u32; 3] {
        special3(3)
    }
    /// `blockDim`.
    #[inline]
    pub fn block_dim() -> [u32; 3] {
        special3(6)
    }
    /// `gridDim`.
    #[inline]
    pub fn grid_dim() -> [u32; 3] {
        special3(9)
    }
    /// `%laneid`.
    #[inline]
    pub fn lane_id() -> u32 {
        gpu_special(12)
    }
    /// Shared bytes of the launch.
    #[inline]
    pub fn shared_bytes() -> u32 {
        gpu_special(13)
    }
    /// Word `i` of the kernel's arguments.
    #[inline]
    pub fn arg(i: u32) -> u64 {
        // SAFETY: the import checks `i`.
        unsafe { gpu_arg(i) }
    }
    /// Prints `text` as kernel output.
    pub fn print(text: &str) {
        // SAFETY: the import reads `text` within its length.
        unsafe { gpu_print(text.as_ptr(), text.len()) }
    }
}

/// The file of the `Location` at `loc`, for the emulator: its address in the high 32
/// bits, its length in the low. A device call passes only its `Location`'s address; the
/// emulator asks for the rest once per call site.
#[unsafe(export_name = "__gpu_location_file")]
extern "C" fn location_file(loc: *const u8) -> u64 {
    // SAFETY: the emulator passes back an address a device call passed, that of a
    // `'static` `Location`.
    let file = unsafe { &*loc.cast::<Location<'static>>() }.file();
    (file.as_ptr() as u64) << 32 | file.len() as u64
}

/// The line (high 32 bits) and column (low) of the `Location` at `loc` (see
/// [`location_file`]).
#[unsafe(export_name = "__gpu_location_line")]
extern "C" fn location_line(loc: *const u8) -> u64 {
    // SAFETY: as in `location_file`.
    let loc = unsafe { &*loc.cast::<Location<'static>>() };
    (loc.line() as u64) << 32 | loc.column() as u64
}

/// Called by every kernel export before the kernel runs: [`lane_start`], then reads the
/// lane's special registers (its indices and the launch's shape) into the lane's statics.
pub fn kernel_start() {
    lane_start();
    let mut words = [0u32; SPECIALS];
    // SAFETY: the import writes `SPECIALS` words at `words`, which has room for them.
    unsafe { gpu_specials(words.as_mut_ptr(), SPECIALS as u32) };
    for (r, w) in REGISTERS.iter().zip(words) {
        r.store(w, core::sync::atomic::Ordering::Relaxed);
    }
}

/// Called by every export before it runs: reports a panic's message and
/// location to the emulator (a `todo!()` becomes "not implemented" with its line), then
/// the lane aborts, as `panic = "abort"` does on this target.
pub fn lane_start() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let message = match info.payload_as_str() {
                Some(s) => s.to_string(),
                None => "(non-string panic payload)".to_string(),
            };
            let (file, line, column) = info
                .location()
                .map_or(("", 0, 0), |l| (l.file(), l.line(), l.column()));
            // SAFETY: the import reads both strings within their lengths.
            unsafe {
                gpu_panic(
                    message.as_ptr(),
                    message.len(),
                    file.as_ptr(),
                    file.len(),
                    line,
                    column,
                )
            }
        }));
    });
}
