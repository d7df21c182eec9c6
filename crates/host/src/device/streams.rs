//! Streams: launches that do not wait for each other (CUDA's `cudaStream_t`).
//!
//! [`Device::launch`] waits for its kernel: one launch at a time, which is what a check
//! wants. A GPU can do more: kernels launched on *different streams* may run at the same
//! time, when neither fills the GPU (its SMs run blocks of both). Launches on one stream
//! still run in order. [`Device::create_stream`] makes a stream, [`Device::launch_on`]
//! queues a kernel on it and returns at once, [`Device::record_event`] /
//! [`Device::wait_event`] / [`Device::synchronize_stream`] order and wait, and
//! [`Device::elapsed`] times between two events (on a GPU).
//!
//! **On the emulator** a launch on a stream runs to completion when it is queued, in the
//! order the host queued it: blocks of two launches never interleave. What the emulator
//! adds is the bookkeeping a GPU does not show: [`Device::timeline`] lists every stream
//! launch with the earlier launches it *may* overlap on a GPU (those of other streams
//! that no synchronisation or event orders before it) and the share of the GPU's
//! resident blocks its grid takes, so a reader can tell whether a GPU has room to run
//! two of them at once. The counters of each launch are its own, as if it ran alone.

use super::{Backend, Device, LaunchReport};
use crate::config::LaunchConfig;
use crate::{LaunchError, Result};
use gpu::{Kernel, KernelArgs};
use std::time::Duration;

/// A stream of one [`Device`]: launches queued on it run in order; launches on two
/// streams may run at the same time. Made by [`Device::create_stream`].
#[derive(Debug)]
pub struct Stream {
    index: usize,
    device: u64,
}

impl Stream {
    /// Its number on the device, from 1 (0 is the device's own, blocking stream).
    pub fn number(&self) -> usize {
        self.index + 1
    }
}

/// A point in a stream's work, recorded by [`Device::record_event`]: what a stream can
/// wait for ([`Device::wait_event`]) and what [`Device::elapsed`] times between.
#[derive(Debug)]
pub struct StreamEvent {
    index: usize,
    device: u64,
}

/// One launch on a stream, as the emulator ran it ([`Device::timeline`]).
#[derive(Clone, Debug)]
pub struct StreamLaunch {
    /// The stream's [`number`](Stream::number).
    pub stream: usize,
    /// The kernel's name.
    pub kernel: &'static str,
    /// Blocks of the grid.
    pub blocks: u64,
    /// Threads per block.
    pub threads: u32,
    /// The blocks one SM of the modelled GPU keeps resident with this block and shared
    /// memory (threads and shared memory only: the emulator has no registers).
    pub blocks_per_sm: u32,
    /// The launches (indices into the timeline) of other streams it may run beside on a
    /// GPU: queued before it and not ordered before it by a synchronisation or an event.
    pub may_overlap: Vec<usize>,
    /// The launch's report: its counters and findings, as if it ran alone.
    pub report: LaunchReport,
}

/// The emulator's record of stream launches and of what orders them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Timeline {
    pub(crate) launches: Vec<StreamLaunch>,
    /// Per stream: the timeline indices of its launches, in order.
    streams: Vec<Vec<usize>>,
    /// Per stream `s`, per stream `t`: how many of `t`'s launches are ordered before
    /// whatever `s` runs next.
    after: Vec<Vec<usize>>,
    /// Per event: its stream, and how many launches that stream had when it was recorded.
    events: Vec<(usize, usize)>,
}

impl Timeline {
    fn add_stream(&mut self) -> usize {
        self.streams.push(Vec::new());
        for a in &mut self.after {
            a.push(0);
        }
        let n = self.streams.len();
        self.after.push(vec![0; n]);
        n - 1
    }

    /// The host waited for stream `s`: whatever any stream runs next comes after all of
    /// `s`'s launches so far.
    fn host_waited(&mut self, s: usize) {
        let done = self.streams[s].len();
        for a in &mut self.after {
            a[s] = a[s].max(done);
        }
    }

    /// The host waited for the whole device (or a blocking launch ran).
    pub(crate) fn device_synchronized(&mut self) {
        for s in 0..self.streams.len() {
            self.host_waited(s);
        }
    }

    fn record(&mut self, s: usize) -> usize {
        self.events.push((s, self.streams[s].len()));
        self.events.len() - 1
    }

    fn wait(&mut self, s: usize, e: usize) {
        let (t, count) = self.events[e];
        self.after[s][t] = self.after[s][t].max(count);
    }

    /// Adds a launch on stream `s`; what it may overlap follows from the ordering so far.
    fn push(&mut self, s: usize, mut launch: StreamLaunch) {
        let mut overlap = Vec::new();
        for (t, ids) in self.streams.iter().enumerate() {
            if t != s {
                overlap.extend(ids.iter().skip(self.after[s][t]).copied());
            }
        }
        overlap.sort_unstable();
        let id = self.launches.len();
        for &m in &overlap {
            self.launches[m].may_overlap.push(id);
        }
        launch.may_overlap = overlap;
        self.streams[s].push(id);
        self.launches.push(launch);
    }
}

impl Device {
    fn own_stream(&self, s: &Stream) -> Result<()> {
        if s.device != self.id {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidResourceHandle",
                message: "this stream belongs to another device".into(),
            });
        }
        Ok(())
    }

    fn own_event(&self, e: &StreamEvent) -> Result<()> {
        if e.device != self.id {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidResourceHandle",
                message: "this event belongs to another device".into(),
            });
        }
        Ok(())
    }

    /// A new stream (`cudaStreamCreateWithFlags(cudaStreamNonBlocking)`): its launches
    /// do not wait for other streams' work, nor for [`Device::launch`]'s.
    pub fn create_stream(&mut self) -> Result<Stream> {
        let index = match &mut self.backend {
            Backend::Emulator { .. } => self.timeline.add_stream(),
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu.create_stream()?,
        };
        Ok(Stream {
            index,
            device: self.id,
        })
    }

    /// Queues `kernel` on `stream` (`kernel<<<grid, block, shared, stream>>>(args)`) and
    /// returns without waiting: on a GPU a fault inside the kernel is reported by the
    /// next call that waits for the stream. The configuration is checked as
    /// [`Device::launch`] checks it. Buffers the kernel uses must live until the stream
    /// has finished it ([`Device::synchronize_stream`]).
    ///
    /// On the emulator the kernel runs now, to completion, and its report joins
    /// [`Device::timeline`]; an error of the kernel is this call's.
    pub fn launch_on<A: KernelArgs>(
        &mut self,
        stream: &Stream,
        kernel: &Kernel<A>,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<()> {
        self.own_stream(stream)?;
        let spec = self.spec(kernel, &cfg)?;
        #[cfg(feature = "cuda")]
        if let Backend::Cuda(gpu) = &mut self.backend {
            spec.validate()?;
            let params = args.param_ptrs();
            return gpu.launch_on(
                stream.index,
                (kernel.name, kernel.file),
                &spec,
                cfg.max_shared_bytes,
                &params,
            );
        }
        let report = self.run_emulated(kernel, &spec, &cfg, args)?;
        let threads = spec.block.iter().product::<u32>();
        self.timeline.push(
            stream.index,
            StreamLaunch {
                stream: stream.number(),
                kernel: kernel.name,
                blocks: spec.grid.iter().map(|&g| g as u64).product(),
                threads,
                blocks_per_sm: self
                    .props
                    .blocks_per_sm_with_shared(threads, spec.shared_bytes),
                may_overlap: Vec::new(),
                report,
            },
        );
        Ok(())
    }

    /// Records an event on `stream` (`cudaEventRecord`): it completes when everything
    /// queued on the stream before it has.
    pub fn record_event(&mut self, stream: &Stream) -> Result<StreamEvent> {
        self.own_stream(stream)?;
        let index = match &mut self.backend {
            Backend::Emulator { .. } => self.timeline.record(stream.index),
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu.record_event(stream.index)?,
        };
        Ok(StreamEvent {
            index,
            device: self.id,
        })
    }

    /// Makes `stream` wait for `event` (`cudaStreamWaitEvent`): what is queued on it
    /// from now on starts after the work the event follows, on whichever stream.
    pub fn wait_event(&mut self, stream: &Stream, event: &StreamEvent) -> Result<()> {
        self.own_stream(stream)?;
        self.own_event(event)?;
        match &mut self.backend {
            Backend::Emulator { .. } => {
                self.timeline.wait(stream.index, event.index);
                Ok(())
            }
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu.wait_event(stream.index, event.index),
        }
    }

    /// Waits until everything queued on `stream` has finished (`cudaStreamSynchronize`);
    /// a kernel fault of the stream is reported here.
    pub fn synchronize_stream(&mut self, stream: &Stream) -> Result<()> {
        self.own_stream(stream)?;
        match &mut self.backend {
            Backend::Emulator { .. } => {
                self.timeline.host_waited(stream.index);
                Ok(())
            }
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu.synchronize_stream(stream.index),
        }
    }

    /// The GPU's time from `start` to `end` (`cudaEventElapsedTime`), both completed
    /// (synchronise first). `None` on the emulator, which has no clock of the GPU's.
    pub fn elapsed(&mut self, start: &StreamEvent, end: &StreamEvent) -> Result<Option<Duration>> {
        self.own_event(start)?;
        self.own_event(end)?;
        match &mut self.backend {
            Backend::Emulator { .. } => Ok(None),
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu.elapsed(start.index, end.index).map(Some),
        }
    }

    /// Every launch made on a stream of this device so far, in the order the emulator
    /// ran them, with what each may overlap on a GPU ([`StreamLaunch`]). Empty on a GPU.
    pub fn timeline(&self) -> &[StreamLaunch] {
        &self.timeline.launches
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(t: &mut Timeline, s: usize) -> usize {
        t.push(
            s,
            StreamLaunch {
                stream: s + 1,
                kernel: "k",
                blocks: 1,
                threads: 32,
                blocks_per_sm: 1,
                may_overlap: Vec::new(),
                report: LaunchReport::default(),
            },
        );
        t.launches.len() - 1
    }

    #[test]
    fn launches_of_two_streams_overlap_until_something_orders_them() {
        let mut t = Timeline::default();
        let (a, b) = (t.add_stream(), t.add_stream());
        let a0 = launch(&mut t, a);
        let b0 = launch(&mut t, b);
        let a1 = launch(&mut t, a);
        assert_eq!(t.launches[b0].may_overlap, [a0, a1]);
        assert_eq!(t.launches[a1].may_overlap, [b0], "one stream runs in order");
        // b waits for an event after a1: its next launch overlaps nothing of a's so far.
        let e = t.record(a);
        t.wait(b, e);
        let b1 = launch(&mut t, b);
        assert!(t.launches[b1].may_overlap.is_empty());
        // a's next launch still may overlap b1: nothing made a wait for b.
        let a2 = launch(&mut t, a);
        assert_eq!(t.launches[a2].may_overlap, [b0, b1]);
        // The host waits for b: nothing later overlaps b's launches.
        t.host_waited(b);
        let a3 = launch(&mut t, a);
        assert!(t.launches[a3].may_overlap.is_empty());
        t.device_synchronized();
        let b2 = launch(&mut t, b);
        assert!(t.launches[b2].may_overlap.is_empty());
    }
}
