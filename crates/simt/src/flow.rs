//! An opt-in record of where a launch's data went: which thread loaded which bytes of
//! global and shared memory, which atomics each thread issued with which operand, what it
//! stored, and which warp collectives it took part in.
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
//! Off by default (one test per warp step: `cargo bench -p simt lane_ops` runs without
//! it). A flow is bounded ([`MAX_FLOW_EVENTS`]):
//! past the bound it is marked [`Flow::truncated`], which a check must treat as a failure
//! (a kernel that issues that many operations on a check's small input is not following
//! the technique either).

use crate::op::{AtomicOp, AtomicType, ShuffleKind, Space, WarpOp};

/// Most events one flow stores: far more than any check's launch needs (a few per input
/// element and per shared counter), few enough to bound its memory (about 48 bytes each).
pub const MAX_FLOW_EVENTS: usize = 1 << 21;

/// What a recorded operation was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    /// A load (global or shared); [`FlowEvent::value`] holds the loaded bits (the low 64).
    Load,
    /// A store (global or shared); [`FlowEvent::value`] holds the stored bits (the low 64).
    Store,
    /// An atomic (global or shared); [`FlowEvent::value`] holds its operand.
    Atomic(AtomicOp, AtomicType),
    /// A warp collective; [`FlowEvent::value`] holds the lane's operand (a vote's
    /// predicate as 0 or 1, the value a match or a shuffle was given, else 0).
    Warp(Collective),
}

/// Which warp collective a [`FlowKind::Warp`] event was: how a check tells the ways a
/// kernel talks across its lanes apart (peers found with `warp_match_any`, or with
/// ballots and shuffles).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Collective {
    /// `__activemask()`.
    ActiveMask,
    /// `__ballot_sync`.
    Ballot,
    /// `__all_sync`.
    All,
    /// `__any_sync`.
    Any,
    /// `__match_any_sync`.
    MatchAny,
    /// A `__shfl*_sync` of this kind.
    Shuffle(ShuffleKind),
    /// `__syncwarp`.
    SyncWarp,
}

impl Collective {
    /// The collective of `op`, with the lane's operand.
    pub(crate) fn of(op: &WarpOp) -> (Collective, u64) {
        match *op {
            WarpOp::ActiveMask => (Collective::ActiveMask, 0),
            WarpOp::Ballot { pred, .. } => (Collective::Ballot, pred as u64),
            WarpOp::All { pred, .. } => (Collective::All, pred as u64),
            WarpOp::Any { pred, .. } => (Collective::Any, pred as u64),
            WarpOp::MatchAny { value, .. } => (Collective::MatchAny, value),
            WarpOp::Shuffle { value, kind, .. } => (Collective::Shuffle(kind), value),
            WarpOp::SyncWarp { .. } => (Collective::SyncWarp, 0),
        }
    }

    /// CUDA's name of the collective, for messages.
    pub fn cuda_name(self) -> &'static str {
        match self {
            Collective::ActiveMask => "__activemask",
            Collective::Ballot => "__ballot_sync",
            Collective::All => "__all_sync",
            Collective::Any => "__any_sync",
            Collective::MatchAny => "__match_any_sync",
            Collective::Shuffle(ShuffleKind::Idx) => "__shfl_sync",
            Collective::Shuffle(ShuffleKind::Up) => "__shfl_up_sync",
            Collective::Shuffle(ShuffleKind::Down) => "__shfl_down_sync",
            Collective::Shuffle(ShuffleKind::Xor) => "__shfl_xor_sync",
            Collective::SyncWarp => "__syncwarp",
        }
    }
}

/// One thread's load, store, atomic or warp collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowEvent {
    /// The block's linear index.
    pub block: u64,
    /// The thread's linear index in its block (its warp is `thread / 32`).
    pub thread: u32,
    /// Load, store, atomic or collective.
    pub kind: FlowKind,
    /// Global or shared memory (a collective's is `Shared`, and means nothing).
    pub space: Space,
    /// Address (global) or offset (shared) of element 0 of the handle used: tells the
    /// buffers apart (0 for a collective).
    pub base: u64,
    /// Address (global) or offset (shared) of the first byte accessed (0 for a
    /// collective).
    pub addr: u64,
    /// Bytes accessed (0 for a collective).
    pub size: u8,
    /// The loaded or stored bits (low 64), the atomic's operand, the collective's.
    pub value: u64,
    /// The source line of the call: a check's message can name it.
    pub line: u32,
}

/// The loads, stores, atomics and collectives of one launch, thread by thread, in
/// execution order.
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
