//! # `simt`: a deterministic SIMT emulator
//!
//! This crate is the one place where the course's model of an NVIDIA GPU lives. A kernel
//! written against the `gpu` device API runs here with one stackful coroutine per CUDA
//! thread; the course's kernels (the student's and the reference) run on that coroutine as
//! an instance of their crate compiled to WebAssembly ([`wasm`], the sandbox), the
//! emulator's own tests as native closures. Every device operation that touches shared state (a global or shared load, a
//! store, an atomic, a warp collective, a barrier) *parks* the lane at its call site; the
//! scheduler then executes **one warp instruction per step**:
//!
//! - among a warp's parked lanes, it takes those parked at the same call site (the earliest
//!   site first, counting a jump back to an earlier site as a new loop iteration, so
//!   structured code reconverges); that set is the step's active mask. A warp collective
//!   (`__shfl_sync`, `__ballot_sync`, ...) waits until every existing lane its mask names
//!   has arrived;
//! - loads read memory as it was before the step; stores land after it; when several
//!   lanes store to one address, the highest lane wins and the others are counted as
//!   overwritten; atomics apply in lane order;
//! - the warps of a block take turns, one step each; blocks run one after another (in
//!   order, or in a seeded permutation: [`Config::block_order_seed`]).
//!
//! The details, and what the model leaves out, are in the `schedule` module's source docs.
//!
//! Lockstep execution is *one* legal schedule of a real GPU (since Volta, warps may
//! interleave their lanes differently: see the book's chapter on the model). It is the one
//! that makes races reproducible: the naive histogram `h[b] = h[b] + 1` loses the same
//! updates on every run, and the report can say why ("lanes 0-31 all stored 11 to address
//! 0x1000000000 in one step; lane 31 won").
//!
//! Checks are worded like NVIDIA's compute-sanitizer: memcheck (out-of-bounds and
//! misaligned accesses), racecheck (shared-memory hazards between barriers), synccheck
//! (divergent barriers and warp collectives) and initcheck (reads of never-written shared
//! memory). Hazards on *global* memory are this project's own extension. A launch never
//! hangs and never crashes the caller: a panicking lane, a deadlock (threads spinning on
//! memory nothing will change, see [`Config::spin_steps`]), an endless loop (the step
//! budget) and a lane spinning in registers (the watchdog) each end it with a
//! [`LaunchError`].
//!
//! Counters ([`Counters`]) mirror Nsight Compute metrics, per launch and per kernel source
//! line. They are a model, not a measurement: the docs on each field say which metric
//! they stand for and where the model is simpler than the hardware.
#![deny(missing_docs)]

pub mod check;
pub mod config;
pub mod counters;
mod exec;
pub mod flow;
/// The hardware the emulator models (the `gpu-hardware` crate, which the kernels read as
/// `gpu::hardware`): one definition of every figure.
pub use gpu_hardware as hardware;
#[cfg(test)]
mod invalid_calls;
pub mod kernel_output;
pub mod lane;
pub mod launch;
pub mod local_memory;
pub mod loops;
pub mod memory;
pub mod meter;
pub mod op;
mod reconverge;
pub mod report;
mod rodata;
mod schedule;
pub mod site;
pub mod spec;
pub mod text;
pub mod trace;
pub mod wasm;
#[cfg(test)]
mod wasm_bytes;

pub use config::Config;
pub use counters::{Counters, LineCounters};
pub use flow::Flow;
pub use launch::launch;
pub use loops::CodeLoop;
pub use memory::GlobalMemory;
pub use op::{AtomicOp, AtomicType, Op, ShuffleKind, Space, WarpOp, constant_address};
pub use report::{Finding, LaunchError, LaunchReport, LoopPlace, ThreadRef};
pub use spec::{KernelBody, LaunchSpec};
pub use trace::{Trace, TraceSink};
