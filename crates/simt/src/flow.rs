//! An opt-in record of where a launch's data went: which thread loaded which bytes of
//! global memory, and which atomics each thread issued with which operand.
//!
//! Counters can be matched by dummy work: a histogram kernel whose thread 0 counts a
//! whole block in registers, while every other thread issues one pointless shared atomic,
//! shows the same *number* of shared atomics as the privatized kernel it pretends to be.
//! What it cannot fake is the flow: the bytes thread 0 loaded never reach a bin through
//! its own atomics, and the other threads' atomics count bytes they never loaded. With
//! [`Config::record_flow`](crate::Config::record_flow) on, each launch's report carries a
//! [`Flow`]: every global load and every atomic, per thread, in execution order, with the
//! loaded bits or the atomic's operand. A check then follows each loaded element to the
//! atomic that counted it (chapter 9's technique checks do).
//!
//! Off by default (one test per warp step). A flow is bounded ([`MAX_FLOW_EVENTS`]):
//! past the bound it is marked [`Flow::truncated`], which a check must treat as a failure
//! (a kernel that issues that many operations on a check's small input is not following
//! the technique either).

use crate::op::{AtomicOp, AtomicType, Space};

/// Most events one flow stores: far more than any check's launch needs (a few per input
/// element), few enough to bound its memory (about 40 bytes each).
pub const MAX_FLOW_EVENTS: usize = 1 << 21;

/// What a recorded operation was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    /// A global load; [`FlowEvent::value`] holds the loaded bits (the low 64).
    Load,
    /// An atomic (global or shared); [`FlowEvent::value`] holds its operand.
    Atomic(AtomicOp, AtomicType),
}

/// One thread's load or atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowEvent {
    /// The block's linear index.
    pub block: u64,
    /// The thread's linear index in its block (its warp is `thread / 32`).
    pub thread: u32,
    /// Load or atomic.
    pub kind: FlowKind,
    /// Global or shared memory (loads are global only).
    pub space: Space,
    /// Address (global) or offset (shared) of element 0 of the handle used: tells the
    /// buffers apart.
    pub base: u64,
    /// Address (global) or offset (shared) of the first byte accessed.
    pub addr: u64,
    /// Bytes accessed.
    pub size: u8,
    /// The loaded bits (low 64) or the atomic's operand.
    pub value: u64,
}

/// The global loads and atomics of one launch, thread by thread, in execution order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flow {
    /// The events, in the order the emulator executed them.
    pub events: Vec<FlowEvent>,
    /// Did the launch issue more than [`MAX_FLOW_EVENTS`]? Then the rest were not stored.
    pub truncated: bool,
}

impl Flow {
    pub(crate) fn push(&mut self, event: FlowEvent) {
        if self.events.len() < MAX_FLOW_EVENTS {
            self.events.push(event);
        } else {
            self.truncated = true;
        }
    }
}
