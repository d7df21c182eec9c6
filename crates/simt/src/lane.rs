//! What a running lane can reach: its indices and the one scheduling point, [`park`].
//!
//! The scheduler sets a thread-local pointer to the lane's context before it resumes the
//! lane's coroutine, so device API calls find their lane without taking it as a parameter,
//! just as `threadIdx` is simply there in CUDA C.

use crate::op::{Op, wire};
use crate::site::Site;
use corosensei::Yielder;
use std::cell::{Cell, RefCell};
use std::panic::Location;

/// What a parked lane hands the scheduler: where it is and what it wants done.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Req {
    pub(crate) site: Site,
    pub(crate) op: Op,
}

/// A request as it crosses the switch from the lane to the scheduler: the site, and the
/// operation in its wire form (`op::wire`), which the scheduler decodes into a [`Req`].
///
/// Whole words, not the decoded `Op`: the scheduler reads what crosses the switch right
/// after it, while the lane's stores of it are still on their way to the cache, and the
/// CPU forwards such a store to a load only when the load reads what one store wrote.
/// An `Op` is written field by field (bytes among words) and was read back in other
/// widths, and each of those reads waited for the stores to land (measured with `perf`:
/// the largest stall of the sandboxed launch's step).
#[derive(Clone, Copy)]
pub(crate) struct Parked {
    pub(crate) site: Site,
    pub(crate) words: wire::Words,
}

/// The per-lane state a device API call can read.
pub(crate) struct LaneCtx {
    pub(crate) thread: [u32; 3],
    pub(crate) block: [u32; 3],
    pub(crate) block_dim: [u32; 3],
    pub(crate) grid_dim: [u32; 3],
    pub(crate) lane: u32,
    pub(crate) dynamic_shared_bytes: u32,
    pub(crate) yielder: Cell<*const Yielder<u128, Parked>>,
    /// Where the lane's stack was when it last parked (the scheduler prefetches it).
    pub(crate) sp: Cell<usize>,
}

thread_local! {
    static CURRENT: Cell<*const LaneCtx> = const { Cell::new(std::ptr::null()) };
    /// The message and location of the last panic of a lane on this OS thread.
    static LAST_PANIC: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

pub(crate) fn set_current(ctx: *const LaneCtx) {
    CURRENT.with(|c| c.set(ctx));
}

pub(crate) fn take_last_panic() -> Option<(String, String)> {
    LAST_PANIC.with(|p| p.borrow_mut().take())
}

/// Panics as a device function called outside a launch must.
#[cold]
#[track_caller]
fn outside_launch() -> ! {
    panic!(
        "a `gpu` device function was called outside a kernel launch: launch the kernel \
         through a `Device` instead of calling it directly"
    );
}

#[inline]
#[track_caller]
fn ctx() -> &'static LaneCtx {
    let p = CURRENT.with(|c| c.get());
    if p.is_null() {
        outside_launch();
    }
    // SAFETY: the scheduler keeps the context alive while the lane runs and clears the
    // pointer when it leaves the lane.
    unsafe { &*p }
}

/// Suspends the calling lane at `site` with `op`; returns the operation's result (the
/// loaded bits, the old value of an atomic, a collective's result; 0 otherwise).
#[inline]
pub fn park(site: &'static Location<'static>, op: Op) -> u128 {
    park_at(crate::site::of_location(site), op)
}

/// [`park`] at an interned site: how a sandboxed lane parks, with the location its
/// device call passed ([`crate::site::intern`]).
#[inline]
pub(crate) fn park_at(site: Site, op: Op) -> u128 {
    try_park_at(site, &wire::encode(&op)).unwrap_or_else(|| outside_launch())
}

/// [`park_at`] with the operation's wire words `words` (a sandboxed lane passes them on
/// as its device call carried them; the scheduler decodes them), or `None` outside a
/// launch (a sandboxed host function has no lane).
#[inline]
pub(crate) fn try_park_at(site: Site, words: &wire::Words) -> Option<u128> {
    let p = CURRENT.with(|c| c.get());
    if p.is_null() {
        return None;
    }
    // SAFETY: the scheduler keeps the context alive while the lane runs; its yielder
    // pointer is set by the lane's coroutine before its body runs and stays valid while
    // the coroutine is alive.
    let y = unsafe { &*(*p).yielder.get() };
    let here = 0u8;
    // SAFETY: as above.
    unsafe {
        (*p).sp
            .set(std::hint::black_box(&here) as *const u8 as usize)
    };
    Some(y.suspend(Parked {
        site,
        words: *words,
    }))
}

/// `threadIdx` of the calling lane.
#[inline]
#[track_caller]
pub fn thread_idx() -> [u32; 3] {
    ctx().thread
}
/// `blockIdx` of the calling lane.
#[inline]
#[track_caller]
pub fn block_idx() -> [u32; 3] {
    ctx().block
}
/// `blockDim` of the launch.
#[inline]
#[track_caller]
pub fn block_dim() -> [u32; 3] {
    ctx().block_dim
}
/// `gridDim` of the launch.
#[inline]
#[track_caller]
pub fn grid_dim() -> [u32; 3] {
    ctx().grid_dim
}
/// `%laneid`: the lane's index in its warp, 0..32.
#[inline]
#[track_caller]
pub fn lane_id() -> u32 {
    ctx().lane
}
/// Bytes of shared memory of the launch (static and dynamic together).
#[inline]
#[track_caller]
pub fn shared_bytes() -> u32 {
    ctx().dynamic_shared_bytes
}
/// Is the caller a lane of a running launch?
pub fn in_launch() -> bool {
    CURRENT.with(|c| !c.get().is_null())
}

/// The panic payload of a sandboxed host function that failed (see
/// `simt::wasm::WasmModule::call_host`), raised again in the process that called it so
/// that its caller reports it as it would a native panic: the lane's message, and the
/// lane's own `file:line` rather than the place the host re-raised it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LanePanic {
    /// What the lane said (`not yet implemented: …` for a `todo!()`).
    pub message: String,
    /// `file:line` in the kernel crate, when the lane panicked (not for a trap).
    pub at: Option<String>,
    /// The function did not return: it ran its fuel, or the check's work budget, out (a
    /// loop that never ends). Its caller reports a time-out, not a panic.
    pub timed_out: bool,
}

/// The text of a panic payload: `panic!("...")` carries a `&str` or a `String`; anything
/// else (`std::panic::panic_any(42)`) has no text. Shared by every panic hook of the
/// course (lanes here, host functions in `course`, checks in the grader).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .or_else(|| {
            payload
                .downcast_ref::<LanePanic>()
                .map(|p| p.message.clone())
        })
}

/// Installs (once) a panic hook that keeps lane panics quiet and records their message,
/// so a student's `todo!()` becomes a report rather than noise on stderr. Panics outside
/// lanes go to the previous hook.
pub(crate) fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if in_launch() {
                let msg = panic_message(info.payload())
                    .unwrap_or_else(|| "(non-string panic payload)".to_string());
                let loc = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some((msg, loc)));
            } else {
                prev(info);
            }
        }));
    });
}

/// Most bytes of kernel output one launch keeps; the rest is dropped, with a note.
const OUTPUT_LIMIT: usize = 64 * 1024;

thread_local! {
    /// What the lanes of the running launch printed, and its size in bytes.
    static OUTPUT: RefCell<(Vec<String>, usize)> = const { RefCell::new((Vec::new(), 0)) };
}

/// Records `text` as printed by the calling lane (CUDA's device `printf`), labelled with
/// its block and thread; outside a launch (a host function), as host output
/// ([`crate::kernel_output::host`]).
pub fn print(text: &str) {
    if !in_launch() {
        crate::kernel_output::host(text);
        return;
    }
    let c = ctx();
    let [bx, by, bz] = c.block;
    let [tx, ty, tz] = c.thread;
    OUTPUT.with(|o| {
        let (lines, bytes) = &mut *o.borrow_mut();
        if *bytes >= OUTPUT_LIMIT {
            return;
        }
        *bytes += text.len();
        let text = text.strip_suffix('\n').unwrap_or(text);
        lines.push(format!(
            "block ({bx},{by},{bz}) thread ({tx},{ty},{tz}): {text}"
        ));
        if *bytes >= OUTPUT_LIMIT {
            lines.push(format!(
                "(kernel output past {} KiB dropped)",
                OUTPUT_LIMIT / 1024
            ));
        }
    });
}

/// Whether the running launch's output is past its limit (64 KiB: a print then keeps
/// nothing, and need not read its text); `false` outside a launch.
pub fn printing_is_full() -> bool {
    in_launch() && OUTPUT.with(|o| o.borrow().1 >= OUTPUT_LIMIT)
}

/// Takes what the lanes printed since the last call.
pub(crate) fn take_output() -> Vec<String> {
    OUTPUT.with(|o| {
        let (lines, bytes) = &mut *o.borrow_mut();
        *bytes = 0;
        std::mem::take(lines)
    })
}
