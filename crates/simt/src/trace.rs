//! An opt-in record of one launch's memory accesses.
//!
//! Counters say *how many* atomics a kernel issued; a trace says *which thread touched
//! which element when*, which is what a student needs to see to understand why the naive
//! histogram loses updates or why privatization moves the contention from global to
//! shared memory. With [`Config::trace`](crate::Config::trace) set to a [`TraceSink`],
//! every launch records, per warp step that touches memory (a global or shared load,
//! store or atomic), the block, the warp, the buffer and, per active lane, the element
//! index it touched. The launch pushes its [`Trace`] into the sink when it ends, also
//! when it ends with an error (a race or a panic is exactly when a picture helps).
//!
//! Off by default: with no sink, the scheduler tests one `Option` per step and records
//! nothing. A trace is bounded ([`MAX_TRACE_STEPS`]); steps past the bound are counted,
//! not stored.
//!
//! The pictures of a trace are drawn outside the emulator, by the course's chapter
//! support (`chapter::trace_svg`): the emulator records, the course draws.

use crate::op::Space;
use std::sync::{Arc, Mutex};

/// Most warp steps one trace stores (about 10 MB at 32 lanes a step); later steps are
/// counted in [`Trace::dropped_steps`]. A trace is for looking at, and a picture of more
/// steps than this is downsampled into a few hundred columns anyway.
pub const MAX_TRACE_STEPS: usize = 20_000;

/// Where launches with tracing on deliver their traces. Cloning shares the sink, so the
/// caller keeps one clone and the device's [`Config`](crate::Config) another.
#[derive(Clone, Debug, Default)]
pub struct TraceSink(Arc<Mutex<Vec<Trace>>>, bool);

impl TraceSink {
    /// An empty sink.
    pub fn new() -> Self {
        TraceSink::default()
    }

    /// An empty sink that keeps only the last launch's trace: for a check's many launches,
    /// of which a picture wants the one that failed (its last), without holding them all.
    pub fn last_only() -> Self {
        TraceSink(Arc::default(), true)
    }

    /// Takes the traces delivered so far, one per launch, in launch order.
    pub fn take(&self) -> Vec<Trace> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Names the kernel of the last trace delivered, if it has no name yet: the host
    /// runtime, which knows what it launched, calls it after each launch.
    pub fn name_last(&self, kernel: &str) {
        let mut traces = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = traces.last_mut().filter(|t| t.kernel.is_empty()) {
            t.kernel = kernel.to_string();
        }
    }

    pub(crate) fn push(&self, trace: Trace) {
        let mut traces = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if self.1 {
            traces.clear();
        }
        traces.push(trace);
    }
}

/// What a traced warp step did to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AccessKind {
    /// A load.
    Load,
    /// A store.
    Store,
    /// An atomic read-modify-write.
    Atomic,
}

impl AccessKind {
    /// `"load"`, `"store"` or `"atomic"`.
    pub fn name(self) -> &'static str {
        match self {
            AccessKind::Load => "load",
            AccessKind::Store => "store",
            AccessKind::Atomic => "atomic",
        }
    }
}

/// A buffer a trace saw: a global slice or a shared array, told apart by its space, the
/// address (global) or offset (shared) of its element 0, and its element size. A shared
/// array is one buffer for all blocks: each block has its own copy, at the same offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceBuffer {
    /// Global or shared.
    pub space: Space,
    /// Address (global) or offset (shared) of element 0.
    pub base: u64,
    /// Bytes per element.
    pub elem_bytes: u8,
    /// Elements in the handle.
    pub len: u64,
}

impl TraceBuffer {
    /// A label for a picture: `global u8[4096]`, `shared u32[256]`.
    pub fn label(&self) -> String {
        let space = match self.space {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Constant => "constant",
        };
        let ty = match self.elem_bytes {
            1 => "u8".to_string(),
            2 => "u16".to_string(),
            4 => "u32".to_string(),
            8 => "u64".to_string(),
            n => format!("{n}-byte"),
        };
        format!("{space} {ty}[{}]", self.len)
    }
}

/// One warp step that touched memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    /// The step's number in the launch (1-based, counting every warp step, also those
    /// that did not touch memory): the x axis of the pictures.
    pub step: u64,
    /// The block's linear index.
    pub block: u64,
    /// The warp within the block.
    pub warp: u32,
    /// Load, store or atomic.
    pub kind: AccessKind,
    /// Index into [`Trace::buffers`].
    pub buffer: u32,
    /// The kernel's source line.
    pub line: u32,
    /// Per active lane: its lane number (0..32) and the element index it touched.
    pub lanes: Vec<(u8, u64)>,
}

/// The memory accesses of one launch, step by step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// The kernel launched, when the host runtime named it ([`TraceSink::name_last`]);
    /// empty otherwise.
    pub kernel: String,
    /// `gridDim`.
    pub grid: [u32; 3],
    /// `blockDim`.
    pub block: [u32; 3],
    /// The buffers, in order of first use.
    pub buffers: Vec<TraceBuffer>,
    /// The steps, in execution order (at most [`MAX_TRACE_STEPS`]).
    pub steps: Vec<TraceStep>,
    /// Steps that touched memory after the trace was full.
    pub dropped_steps: u64,
}

impl Trace {
    /// Warps per block.
    pub fn warps_per_block(&self) -> u64 {
        (self.block.iter().map(|&d| d as u64).product::<u64>()).div_ceil(32)
    }

    /// Lanes that performed an atomic, over the whole trace.
    pub fn atomic_lanes(&self) -> u64 {
        self.steps
            .iter()
            .filter(|s| s.kind == AccessKind::Atomic)
            .map(|s| s.lanes.len() as u64)
            .sum()
    }

    /// Of the launches `traces` (a sink's, in launch order), the one a picture should
    /// show: the one with the most atomic lanes (the first on a tie), or the first when
    /// none has atomics; with its index. A step of a chapter may launch several kernels
    /// (a warm-up, a check, two strategies); the busiest is the one it is about.
    pub fn busiest(traces: &[Trace]) -> Option<(usize, &Trace)> {
        let mut best: Option<(usize, &Trace)> = None;
        for (i, t) in traces.iter().enumerate() {
            if best.is_none_or(|(_, b)| t.atomic_lanes() > b.atomic_lanes()) {
                best = Some((i, t));
            }
        }
        best
    }

    /// Records one step: the scheduler calls it for each warp step that touches memory;
    /// a test or a tool builds a trace of its own with it. `buffer` identifies the handle
    /// (steps on the same space, base and element size share one [`TraceBuffer`]).
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        step: u64,
        block: u64,
        warp: u32,
        kind: AccessKind,
        buffer: TraceBuffer,
        line: u32,
        lanes: Vec<(u8, u64)>,
    ) {
        if self.steps.len() >= MAX_TRACE_STEPS {
            self.dropped_steps += 1;
            return;
        }
        let id = match self.buffers.iter().position(|b| {
            b.space == buffer.space && b.base == buffer.base && b.elem_bytes == buffer.elem_bytes
        }) {
            Some(i) => {
                let b = &mut self.buffers[i];
                b.len = b.len.max(buffer.len);
                i
            }
            None => {
                self.buffers.push(buffer);
                self.buffers.len() - 1
            }
        };
        self.steps.push(TraceStep {
            step,
            block,
            warp,
            kind,
            buffer: id as u32,
            line,
            lanes,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(len: u64) -> TraceBuffer {
        TraceBuffer {
            space: Space::Global,
            base: 256,
            elem_bytes: 4,
            len,
        }
    }

    #[test]
    fn buffers_are_interned_and_the_trace_is_bounded() {
        let mut t = Trace::default();
        for i in 0..MAX_TRACE_STEPS as u64 + 3 {
            t.record(i + 1, 0, 0, AccessKind::Atomic, buf(8), 7, vec![(0, i % 8)]);
        }
        assert_eq!(t.buffers.len(), 1);
        assert_eq!(t.steps.len(), MAX_TRACE_STEPS);
        assert_eq!(t.dropped_steps, 3);
    }
}
