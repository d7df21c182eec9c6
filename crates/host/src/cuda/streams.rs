//! Streams and events on a GPU, for launches that do not wait
//! ([`Device::launch_on`](crate::Device::launch_on)).

use super::{CudaBackend, error, opt_in_shared};
use crate::{LaunchError, Result};
use cust::function::{BlockSize, GridSize};
use cust::stream::{Stream, StreamFlags};
use simt::LaunchSpec;
use std::ffi::c_void;
use std::time::Duration;

/// A CUDA event made with the driver's API: cust keeps its events' handles to itself,
/// and `cuStreamWaitEvent` needs one. Destroyed with its backend.
pub(crate) struct RawEvent(cust_raw::CUevent);

impl Drop for RawEvent {
    fn drop(&mut self) {
        // SAFETY: the event was created by cuEventCreate and is destroyed once, while
        // its context lives (the backend drops its events before the context).
        unsafe { cust_raw::cuEventDestroy_v2(self.0) };
    }
}

impl CudaBackend {
    fn user_stream(&self, i: usize) -> Result<&Stream> {
        self.user_streams
            .get(i)
            .ok_or_else(|| LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidResourceHandle",
                message: format!("no stream {}", i + 1),
            })
    }

    /// A new non-blocking stream; its index.
    pub(crate) fn create_stream(&mut self) -> Result<usize> {
        self.activate()?;
        let s = Stream::new(StreamFlags::NON_BLOCKING, None)
            .map_err(|e| self.fail("cuStreamCreate", error::code_of(e)))?;
        self.user_streams.push(s);
        Ok(self.user_streams.len() - 1)
    }

    /// Queues `kernel` on stream `stream` without waiting.
    pub(crate) fn launch_on(
        &mut self,
        stream: usize,
        kernel: (&'static str, &'static str),
        spec: &LaunchSpec,
        opt_in: Option<u32>,
        params: &[*mut c_void],
    ) -> Result<()> {
        self.activate()?;
        self.user_stream(stream)?;
        let m = self.resolve(kernel.0, kernel.1)?;
        let this = &*self;
        let func = match this.modules[m].module.get_function(kernel.0) {
            Ok(f) => f,
            Err(e) => return Err(self.fail("cuModuleGetFunction", error::code_of(e))),
        };
        if let Err(r) = opt_in_shared(func.to_raw(), spec.shared_bytes, opt_in) {
            return Err(self.fail("cuFuncSetAttribute", r));
        }
        let [gx, gy, gz] = spec.grid;
        let [bx, by, bz] = spec.block;
        // SAFETY: `params` points at the kernel's arguments, whose types `#[kernel]`
        // checked against its signature; the driver copies them during this call.
        let r = unsafe {
            this.user_streams[stream].launch(
                &func,
                GridSize::xyz(gx, gy, gz),
                BlockSize::xyz(bx, by, bz),
                spec.shared_bytes,
                params,
            )
        };
        r.map_err(|e| self.fail("cuLaunchKernel", error::code_of(e)))
    }

    /// Records a new event on stream `stream`; its index.
    pub(crate) fn record_event(&mut self, stream: usize) -> Result<usize> {
        self.activate()?;
        let s = self.user_stream(stream)?.as_inner();
        let mut event: cust_raw::CUevent = std::ptr::null_mut();
        // SAFETY: an out-pointer; default flags (timing on).
        let r = unsafe { cust_raw::cuEventCreate(&mut event, 0) };
        self.check_raw("cuEventCreate", r)?;
        self.user_events.push(RawEvent(event));
        // SAFETY: a live event and a live stream of this context.
        let r = unsafe { cust_raw::cuEventRecord(event, s) };
        self.check_raw("cuEventRecord", r)?;
        Ok(self.user_events.len() - 1)
    }

    fn user_event(&self, i: usize) -> Result<cust_raw::CUevent> {
        self.user_events
            .get(i)
            .map(|e| e.0)
            .ok_or_else(|| LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidResourceHandle",
                message: format!("no event {i}"),
            })
    }

    /// Makes stream `stream` wait for event `event`.
    pub(crate) fn wait_event(&mut self, stream: usize, event: usize) -> Result<()> {
        self.activate()?;
        let s = self.user_stream(stream)?.as_inner();
        let e = self.user_event(event)?;
        // SAFETY: a live stream and a live event of this context.
        let r = unsafe { cust_raw::cuStreamWaitEvent(s, e, 0) };
        self.check_raw("cuStreamWaitEvent", r)
    }

    /// Waits for stream `stream`.
    pub(crate) fn synchronize_stream(&mut self, stream: usize) -> Result<()> {
        self.activate()?;
        let r = self.user_stream(stream)?.synchronize();
        self.check("cuStreamSynchronize", r)
    }

    /// The time between two completed events.
    pub(crate) fn elapsed(&mut self, start: usize, end: usize) -> Result<Duration> {
        self.activate()?;
        let (a, b) = (self.user_event(start)?, self.user_event(end)?);
        let mut ms = 0f32;
        // SAFETY: an out-pointer and two live events of this context.
        let r = unsafe { cust_raw::cuEventElapsedTime(&mut ms, a, b) };
        self.check_raw("cuEventElapsedTime", r)?;
        Ok(Duration::from_secs_f64(ms.max(0.0) as f64 / 1000.0))
    }
}
