//! # Kernels of the benchmark, not exercises
//!
//! `cargo run -p ch09 --release --features cuda -- bench` measures every step of chapter 9
//! against what the memory system can do, and `demo-racecheck` shows what NVIDIA's
//! `compute-sanitizer --tool racecheck` says about a broken kernel. The kernels they need
//! live here, in the reference crate, so that they are built into `solutions.ptx` with
//! the chapter's kernels; the student's `kernels` crate has no counterpart, and the
//! course's checks never run them.
//!
//! - [`read_bandwidth()`]: the ceiling. A histogram must read every input byte once and
//!   writes almost nothing, so the fastest a histogram kernel can be is the time to read
//!   its input; this kernel does only that, with the widest loads, and its GB/s is the
//!   100 % the bench's percentages refer to.
//! - [`histo_shared_no_barrier()`]: 9.5's privatized kernel with its barriers removed, a
//!   race `racecheck` must catch (and the emulator reports too).

use crate::ch09::{STATIC_BINS, byte_bin};
use gpu::prelude::*;
use gpu::value::U32x4;

/// The XOR of the four words of a vector: folds 16 loaded bytes into one register, so
/// that no load can be optimised away and the host can check that every byte was read.
#[inline(always)]
fn fold(v: U32x4) -> u32 {
    let U32x4([a, b, c, d]) = v;
    a ^ b ^ c ^ d
}

// ANCHOR: read_bandwidth
/// The bench's read-bandwidth reference: reads every whole 16-byte vector of `data` once
/// and writes, per thread, the XOR of the words it read to `sink[thread]`.
///
/// Launch: a grid-stride grid (the bench uses a few waves of resident blocks), any block;
/// `sink.len()` at least the grid's threads (threads past it write nothing); `grid * block
/// * 4` below 2^32. The `data.len() % 16` bytes past the last whole vector are not read.
///
/// Why it is shaped so: 16-byte loads (`ld.global.v4.u32`, a warp reads 512 contiguous
/// bytes per instruction) and four independent loads in flight per thread per round, so
/// that enough requests are outstanding to cover DRAM latency; the XOR keeps every load
/// alive without a write per load (the sink is `threads * 4` bytes, about a thousandth
/// of a 1 GiB input), and lets the host check the kernel really read each vector.
#[kernel]
pub fn read_bandwidth(data: GlobalSlice<u8>, sink: GlobalSlice<u32>) {
    let vectors = data.cast::<U32x4>();
    let n = vectors.len();
    let stride = thread::grid_stride_x();
    let mut v = thread::index_1d();
    let mut acc = 0u32;
    // Four loads per round while the fourth is in range (`n - v > 3 * stride`, written
    // so that nothing overflows), then the rest one by one.
    while v < n && n - v > 3 * stride {
        let a = vectors.load(v);
        let b = vectors.load(v + stride);
        let c = vectors.load(v + 2 * stride);
        let d = vectors.load(v + 3 * stride);
        acc ^= fold(a) ^ fold(b) ^ fold(c) ^ fold(d);
        v += 4 * stride;
    }
    while v < n {
        acc ^= fold(vectors.load(v));
        v += stride;
    }
    let t = thread::index_1d();
    if t < sink.len() {
        sink.store(t, acc);
    }
}
// ANCHOR_END: read_bandwidth

// ANCHOR: histo_shared_no_barrier
/// **Broken on purpose**, for `cargo run -p ch09 -- demo-racecheck` only: 9.5's
/// [`histo_private_shared`](crate::ch09::histo_private_shared()) with both of its
/// `sync_threads()` removed, and its bins zeroed the way many first attempts do it: by
/// thread 0 alone.
///
/// Launch as 9.5's static kernel: `<<<ceil(n / block), block>>>`, `histo.len() <= 256`.
/// Without the first barrier a thread may count into a bin thread 0 has not zeroed yet
/// (the zeroing store then wipes the count, or the count lands on poison); without the
/// second, a thread may commit a bin while other threads still add to it. Whether the
/// bins come out wrong depends on timing, which is why a race needs a tool.
/// `compute-sanitizer --tool racecheck` checks plain shared-memory loads and stores (not
/// atomics): it reports thread 0's zeroing stores against the other warps' commit loads.
/// The course's emulator reports those and the atomics' hazards too, on every run.
#[kernel]
pub fn histo_shared_no_barrier(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; STATIC_BINS as usize];
    let num_bins = histo.len();
    if thread::thread_idx_x() == 0 {
        let mut bin = 0;
        while bin < num_bins {
            bins.store(bin, 0);
            bin += 1;
        }
    }
    // (9.5 waits here: `thread::sync_threads();`)
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add(byte_bin(data.load(i), num_bins), 1);
        i += stride;
    }
    // (and here: `thread::sync_threads();`)
    let mut bin = thread::thread_idx_x();
    while bin < num_bins {
        let count = bins.load(bin);
        if count > 0 {
            histo.atomic_add(bin, count);
        }
        bin += thread::block_dim_x();
    }
}
// ANCHOR_END: histo_shared_no_barrier
