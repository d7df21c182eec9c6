//! The header of chapter 9's bench: the device, the host, the options and how it timed
//! (the pieces are the bench crate's, [`bench::provenance`]).

use super::*;

/// The header: the device, the host, the options.
pub(super) fn header(dev: &Device, opts: &Options) -> Header {
    let text = &opts.text;
    Header {
        host_clock_ghz: if opts.common.cpu {
            cpu::clock_ghz()
        } else {
            None
        },
        text: format!(
            "{}, {} bytes, FNV-1a {:016x}, repeated to the input size (u32: its bytes widened)",
            text.1,
            text.0.len(),
            data::fnv1a(&text.0)
        ),
        method: "GPU kernels: median of event-timed launches after warm-ups, each launch timed \
                 alone from a cold L2 (a kernel reads twice the L2 before every launch, and \
                 the histogram is zeroed by cuMemsetD8Async, outside the events: not timed); \
                 input upload not timed. CPU: host clock, same input. CUB and PyTorch: their own \
                 CUDA events around each call, twice the L2 read before each too (CUB zeroes its \
                 histogram outside them; torch.bincount allocates its output inside them). \
                 GB/s = input bytes / median time (10^9 B/s)."
            .into(),
        ..::bench::provenance::header(dev, &opts.common)
    }
}
