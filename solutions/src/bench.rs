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
//! - The designs 9.9's [`histo_fastest`](crate::ch09::histo_fastest()) was chosen from,
//!   timed against it by `bench --variants`: [`fast_run_length()`] (one copy of the bins
//!   per block, 9.7's run-length aggregation per vector: the course's first 9.9),
//!   [`fast_popc()`] (no run-length aggregation: `atomic_add(bin, 1)` per byte, which the
//!   GPU does as an aggregated `ATOMS.POPC.INC`; four 16-byte loads in flight per
//!   thread), [`fast_warp_bins()`] (the same with one sub-histogram per warp), and
//!   [`fast_lane_bins()`] (a column of counters per lane index, 9.9's design, with the
//!   bin count a constant).
//! - [`u32_vectors()`]: 9.14's `u32` histogram in shared memory with 9.9's 16-byte loads,
//!   four in flight.
//! - [`u32_sliced_vectors()`]: 9.17's sliced histogram (more bins than a block's shared
//!   memory) with the same loads.

use crate::ch09::{FastestPolicy, NO_BIN, STATIC_BINS, byte_bin, init_private_bins, store_output};
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
/// The bench's read-bandwidth reference: reads every whole 16-byte vector of
/// `data` once and writes, per thread, the XOR of the words it read to
/// `sink[thread]`.
///
/// Launch: a grid-stride grid (the bench uses a few waves of resident blocks),
/// any block; `sink.len()` at least the grid's threads (threads past it write
/// nothing); `grid * block * 4` below 2^32. The `data.len() % 16` bytes past the
/// last whole vector are not read.
///
/// Why it is shaped so: 16-byte loads (`ld.global.v4.u32`, a warp reads 512
/// contiguous bytes per instruction) and four independent loads in flight per
/// thread per round, so that enough requests are outstanding to cover DRAM
/// latency; the XOR keeps every load alive without a write per load (the sink is
/// `threads * 4` bytes, about a thousandth of a 1 GiB input), and lets the host
/// check the kernel really read each vector.
#[kernel]
pub fn read_bandwidth(data: GlobalSlice<u8>, sink: GlobalSlice<u32>) {
    let vectors = data.cast::<U32x4>();
    let n = vectors.len();
    let stride = thread::grid_stride_x();
    let mut v = thread::index_1d();
    let mut acc = 0u32;
    // Four loads per round while the fourth is in range (`n - v > 3 * stride`,
    // written so that nothing overflows), then the rest one by one.
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
/// [`histo_private_shared()`](crate::ch09::histo_private_shared()) with both of
/// its `sync_threads()` removed, and its bins zeroed the way many first attempts
/// do it: by thread 0 alone.
///
/// Launch as 9.5's static kernel: `<<<ceil(n / block), block>>>`, `histo.len() <=
/// 256`. Without the first barrier a thread may count into a bin thread 0 has not
/// zeroed yet (the zeroing store then wipes the count, or the count lands on
/// poison); without the second, a thread may commit a bin while other threads
/// still add to it. Whether the bins come out wrong depends on timing, which is
/// why a race needs a tool. `compute-sanitizer --tool racecheck` checks plain
/// shared-memory loads and stores (not atomics): it reports thread 0's zeroing
/// stores against the other warps' commit loads. The course's emulator reports
/// those and the atomics' hazards too, on every run.
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

// ANCHOR: variants
/// Counts the 16 bytes of `v` (in memory order) with `count(bin)`.
#[inline(always)]
fn count_vector(v: U32x4, num_bins: u32, count: &mut impl FnMut(u32)) {
    let U32x4(words) = v;
    for &word in &words {
        for k in 0..4 {
            count(byte_bin((word >> (8 * k)) as u8, num_bins));
        }
    }
}

/// Phase 2 of the variants: calls `count(bin)` once for each of this thread's
/// bytes of `data`, every byte of `data` counted by exactly one thread of the
/// grid.
///
/// Whole 16-byte vectors in a grid-stride loop, four loads in flight per thread
/// per round (all four issued before any is counted) while the fourth is in
/// range, then the last vectors one by one, then the `n % 16` tail bytes one per
/// thread. No warp collective, so no lane has to wait for another. With 256 bins
/// (the bench's case) the loop is compiled a second time with the bin count a
/// constant, where a byte's bin is the byte itself: no multiply and shift per
/// byte.
#[inline(always)]
fn count_bytes(data: GlobalSlice<u8>, num_bins: u32, mut count: impl FnMut(u32)) {
    if num_bins == 256 {
        count_bytes_in(data, 256, &mut count);
    } else {
        count_bytes_in(data, num_bins, &mut count);
    }
}

/// This thread's whole 16-byte vectors of `vectors` in a grid-stride loop, each
/// passed to `f`: four loads issued before the first is passed on while the
/// fourth is in range, then the last ones one at a time. The loads of the bench's
/// vector kernels ([`count_bytes`], [`u32_vectors()`]); each counts the elements
/// past the last whole vector itself.
#[inline(always)]
fn each_vector(vectors: GlobalSlice<U32x4>, f: impl FnMut(U32x4)) {
    each_vector_from(vectors, thread::index_1d(), thread::grid_stride_x(), f);
}

/// [`each_vector`] from vector `start` in steps of `stride` (a block's share of a
/// chunked grid-stride loop: [`u32_sliced_vectors()`]).
#[inline(always)]
fn each_vector_from(
    vectors: GlobalSlice<U32x4>,
    start: u32,
    stride: u32,
    mut f: impl FnMut(U32x4),
) {
    let n = vectors.len();
    let mut v = start;
    // `n - v > 3 * stride` (when `v < n`): the fourth vector is in range, no
    // overflow.
    while v < n && n - v > 3 * stride {
        let a = vectors.load(v);
        let b = vectors.load(v + stride);
        let c = vectors.load(v + 2 * stride);
        let d = vectors.load(v + 3 * stride);
        f(a);
        f(b);
        f(c);
        f(d);
        v += 4 * stride;
    }
    while v < n {
        f(vectors.load(v));
        v += stride;
    }
}

/// The loops of [`count_bytes`], for one bin count.
#[inline(always)]
fn count_bytes_in(data: GlobalSlice<u8>, num_bins: u32, mut count: impl FnMut(u32)) {
    let vectors = data.cast::<U32x4>();
    each_vector(vectors, |v| count_vector(v, num_bins, &mut count));
    let stride = thread::grid_stride_x();
    let mut i = vectors.len() * 16 + thread::index_1d();
    while i < data.len() {
        count(byte_bin(data.load(i), num_bins));
        i += stride;
    }
}

/// Variant 0: the first design of 9.9 (and the course's 9.9 until the sweep of
/// 2026-11-22 measured it): one private copy of the bins per block, and every
/// 16-byte vector counted with 9.7's run-length aggregation, the run carried from
/// one vector to the next (`ATOMS.ADD` with a variable operand, and a compare per
/// byte).
///
/// Launch: `<<<grid, block, histo.len() * 4 bytes>>>`, any grid and block.
#[kernel]
pub fn fast_run_length(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let mut run_bin = NO_BIN;
    let mut run_len = 0u32;
    let mut count = |bin: u32| {
        if bin == run_bin {
            run_len += 1;
        } else {
            if run_len > 0 {
                bins.atomic_add(run_bin, run_len);
            }
            run_bin = bin;
            run_len = 1;
        }
    };
    let vectors = data.cast::<U32x4>();
    let stride = thread::grid_stride_x();
    let lane = warp::lane_id();
    let mut v = thread::index_1d();
    while v - lane < vectors.len() {
        if v < vectors.len() {
            let U32x4(words) = vectors.load(v);
            for &word in &words {
                for k in 0..4 {
                    count(byte_bin((word >> (8 * k)) as u8, num_bins));
                }
            }
        }
        warp::sync_warp(warp::FULL_MASK);
        v += stride;
    }
    let mut i = vectors.len() * 16 + thread::index_1d();
    while i < data.len() {
        count(byte_bin(data.load(i), num_bins));
        i += stride;
    }
    if run_len > 0 {
        bins.atomic_add(run_bin, run_len);
    }
    store_output(bins, histo);
}

/// Variant 1: [`fast_run_length()`] without run-length aggregation. Each byte is
/// one `bins.atomic_add(bin, 1)` whose result is unused, which ptxas turns into
/// `ATOMS.POPC.INC.32` (the hardware aggregates the lanes of a warp that hit the
/// same address); four 16-byte loads in flight per thread.
///
/// Launch: `<<<grid, block, histo.len() * 4 bytes>>>` (any grid and block work),
/// `histo.len() <= 256`.
#[kernel]
pub fn fast_popc(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    count_bytes(data, num_bins, |bin| {
        bins.atomic_add(bin, 1);
    });
    store_output(bins, histo);
}

/// Variant 2: [`fast_popc()`] with one private sub-histogram of `num_bins`
/// counters per warp of the block, warp `w`'s at `bins[w * num_bins ..]`
/// (privatization one level further than 9.5, as CUB does with several copies per
/// block).
///
/// A shared atomic instruction comes from one warp, so its bank conflicts are
/// between that warp's lanes only (the bytes' bins modulo 32, as with one copy);
/// what the copies remove is contention between warps on the same counters (a hot
/// bin is updated by one warp's instructions at a time). Phase 3 adds the warps'
/// copies of each bin and commits the nonzero sums with one global atomic each.
///
/// Launch: `<<<grid, block, warps * histo.len() * 4 bytes>>>` where `warps =
/// ceil(block / 32)` (8 KiB for 256 threads and 256 bins).
#[kernel]
pub fn fast_warp_bins(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    let warps = thread::block_dim_x().div_ceil(32);
    init_private_bins(bins, warps * num_bins);
    let base = (thread::thread_idx_x() / 32) * num_bins;
    count_bytes(data, num_bins, |bin| {
        bins.atomic_add(base + bin, 1);
    });
    thread::sync_threads();
    let mut bin = thread::thread_idx_x();
    while bin < num_bins {
        let mut sum = 0;
        let mut w = 0;
        while w < warps {
            sum += bins.load(w * num_bins + bin);
            w += 1;
        }
        if sum > 0 {
            histo.atomic_add(bin, sum);
        }
        bin += thread::block_dim_x();
    }
}

/// Variant 3: [`fast_popc()`] with a column of counters per lane index, 9.9's
/// design (counter `bin * 32 + lane`: see [`FastestPolicy::LANE_COPIES`]):
/// conflict-free shared atomics. This is 9.9's
/// [`histo_fastest`](crate::ch09::histo_fastest()) but for one thing: its byte
/// loop is compiled a second time with the bin count a constant for 256 bins (no
/// multiply and shift per byte), which measures what the general `byte_bin`
/// costs.
///
/// Launch: `<<<grid, block, histo.len() * 32 * 4 bytes>>>` (32 KiB for 256 bins),
/// block a multiple of 32.
#[kernel]
pub fn fast_lane_bins(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    let copies = FastestPolicy::LANE_COPIES;
    init_private_bins(bins, num_bins * copies);
    let lane = warp::lane_id();
    count_bytes(data, num_bins, |bin| {
        bins.atomic_add(bin * copies + lane, 1);
    });
    store_bin_columns(bins, histo);
}

/// Variant 4: the course's 9.9 until 2026-11-26, which the H200 found bound by its
/// instructions (`notes/fastest-limit-2026-11-26/`): a column of counters per lane and *bin*,
/// counter `byte_bin(b) * 32 + lane`, so every byte costs `byte_bin`'s multiply and shift
/// and the index's arithmetic besides its atomic (7 SASS instructions per byte, against 3
/// in [`histo_fastest`](crate::ch09::histo_fastest())). Same loads, grid and commit.
///
/// Launch: `<<<grid, block, histo.len() * 32 * 4 bytes>>>`, `histo.len() <= 256`.
#[kernel]
pub fn fast_bin_columns(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    let copies = FastestPolicy::LANE_COPIES;
    init_private_bins(bins, num_bins * copies);
    let lane = warp::lane_id();
    let count = |byte: u8| {
        bins.atomic_add(byte_bin(byte, num_bins) * copies + lane, 1);
    };
    let vectors = data.cast::<U32x4>();
    each_vector(vectors, |U32x4(words)| {
        for word in words {
            for k in 0..4 {
                count((word >> (8 * k)) as u8);
            }
        }
    });
    let stride = thread::grid_stride_x();
    let mut i = vectors.len() * 16 + thread::index_1d();
    while i < data.len() {
        count(data.load(i));
        i += stride;
    }
    store_bin_columns(bins, histo);
}

/// The commit of [`fast_lane_bins()`] and [`fast_bin_columns()`]: after a barrier, thread
/// `t` adds bin `t`'s 32 column counters (rotated: 32 banks per warp instruction) and
/// commits the nonzero sum.
#[inline(always)]
fn store_bin_columns(bins: DynamicShared<u32>, histo: GlobalSlice<u32>) {
    thread::sync_threads();
    let copies = FastestPolicy::LANE_COPIES;
    let mut bin = thread::thread_idx_x();
    while bin < histo.len() {
        let mut sum = 0;
        let mut k = 0;
        while k < copies {
            sum += bins.load(bin * copies + (bin + k) % copies);
            k += 1;
        }
        if sum > 0 {
            histo.red_add(bin, sum);
        }
        bin += thread::block_dim_x();
    }
}

/// Variant 5: [`histo_fastest`](crate::ch09::histo_fastest())'s byte values, counters of byte value `x` at `x * 64 + (warp % 2) * 32 + lane`
/// (64 KiB, twice 9.9's 32): the counter's byte offset `x << 8 | (warp % 2) << 7 | lane << 2`
/// needs no shift for one byte of every four (`word & 0xff00`), so a byte costs 1.5
/// instructions besides its atomic where 9.9's cost 1.75, for twice the zeroing and commit.
///
/// Launch: `<<<grid, block, 64 KiB>>>` (opted in), block a multiple of 64.
#[kernel]
pub fn fast_wide_columns(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    init_private_bins(bins, 256 * 64);
    let column = (thread::thread_idx_x() / 32 % 2) * 32 + warp::lane_id();
    let column_bytes = column << 2;
    let vectors = data.cast::<U32x4>();
    each_vector(vectors, |U32x4(words)| {
        for word in words {
            for shifted in [word << 8, word, word >> 8, word >> 16] {
                bins.atomic_add(((shifted & 0xff00) | column_bytes) >> 2, 1);
            }
        }
    });
    let stride = thread::grid_stride_x();
    let mut i = vectors.len() * 16 + thread::index_1d();
    while i < data.len() {
        bins.atomic_add(((data.load(i) as u32) << 6) | column, 1);
        i += stride;
    }
    fold_byte_columns(bins, histo);
}

/// The commit of [`fast_wide_columns()`], as 9.9's
/// [`store_lane_columns`](crate::ch09::store_lane_columns) with 64 columns per byte value:
/// after a barrier thread `x` adds value `x`'s 64 counters (rotated) into the column's word
/// `x % 32`; after a second, thread `bin` adds its values and commits them.
#[inline(always)]
fn fold_byte_columns(bins: DynamicShared<u32>, histo: GlobalSlice<u32>) {
    const COLUMNS: u32 = 64;
    thread::sync_threads();
    let mut x = thread::thread_idx_x();
    while x < 256 {
        let mut sum = 0;
        let mut k = 0;
        while k < COLUMNS {
            sum += bins.load(x * COLUMNS + (x + k) % COLUMNS);
            k += 1;
        }
        bins.store(x * COLUMNS + x % 32, sum);
        x += thread::block_dim_x();
    }
    thread::sync_threads();
    let num_bins = histo.len();
    let mut bin = thread::thread_idx_x();
    while bin < num_bins {
        let mut x = (bin * 256).div_ceil(num_bins);
        let end = ((bin + 1) * 256).div_ceil(num_bins).min(256);
        let mut sum = 0;
        while x < end {
            sum += bins.load(x * COLUMNS + x % 32);
            x += 1;
        }
        if sum > 0 {
            histo.red_add(bin, sum);
        }
        bin += thread::block_dim_x();
    }
}

// ANCHOR_END: variants

// ANCHOR: u32_vectors
/// 9.14's shared-memory histogram of `u32` values with 9.9's loads: 16-byte
/// vectors ([`U32x4`], four values each) in a grid-stride loop, four vectors
/// issued before the first is counted; then the last vectors one at a time and
/// the `n % 4` values past them. Values `>= histo.len()` are skipped.
///
/// Launch: `<<<grid, block, histo.len() * 4 bytes>>>`, any grid and block (`grid *
/// block * 4` below 2^32). Why: `histo_u32_shared` loads one 4-byte value per
/// thread and counts it before the next load, so each SM has about `2048 * 4`
/// bytes in flight, a third of what covering DRAM's latency at full bandwidth
/// takes; Nsight Compute found it waiting on memory with DRAM at 67 %
/// (`notes/limits-h100-2026-11-24.md`).
#[kernel]
pub fn u32_vectors(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let count = |value: u32| {
        if value < num_bins {
            bins.atomic_add(value, 1);
        }
    };
    let vectors = data.cast::<U32x4>();
    each_vector(vectors, |U32x4(values)| {
        for value in values {
            count(value);
        }
    });
    let stride = thread::grid_stride_x();
    let mut i = vectors.len() * 4 + thread::index_1d();
    while i < data.len() {
        count(data.load(i));
        i += stride;
    }
    store_output(bins, histo);
}
// ANCHOR_END: u32_vectors

// ANCHOR: u32_sliced_vectors
/// 9.17's [`histo_u32_sliced`](crate::ch09::histo_u32_sliced()) with 9.9's loads:
/// each block privatizes one slice of the bins (as many as its dynamic shared
/// memory holds) and reads its chunk of the input as 16-byte vectors, four in
/// flight, counting the values that fall in its slice. Values `>= histo.len()`
/// are skipped.
///
/// Launch: `<<<grid, block, words * 4 bytes>>>` with `grid` a multiple of the
/// slices, `ceil(histo.len() / words)` (other grids are right too, with idle
/// blocks or blocks that count several slices in turn, as in 9.17). Why: the
/// blocks of one chunk read it at about the same time, so DRAM serves it once and
/// L2 the other slices' reads, and each slice's private copy commits once per
/// block, however long the input.
#[kernel]
pub fn u32_sliced_vectors(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let (width, num_bins) = (bins.len(), histo.len());
    if width == 0 || num_bins == 0 {
        return;
    }
    let slices = num_bins.div_ceil(width);
    let (grid, block) = (thread::grid_dim_x(), thread::block_idx_x());
    let (mut slice, slice_step, chunk, chunks) = if grid >= slices {
        (block % slices, slices, block / slices, grid / slices)
    } else {
        (block, grid, 0, 1)
    };
    if chunk >= chunks {
        return;
    }
    let threads = thread::block_dim_x();
    let (start, stride) = (chunk * threads + thread::thread_idx_x(), chunks * threads);
    let vectors = data.cast::<U32x4>();
    while slice < slices {
        let first = slice * width;
        let count = core::cmp::min(width, num_bins - first);
        init_private_bins(bins, count);
        let add = |value: u32| {
            let offset = value.wrapping_sub(first);
            if offset < count {
                bins.atomic_add(offset, 1);
            }
        };
        each_vector_from(vectors, start, stride, |U32x4(values)| {
            for value in values {
                add(value);
            }
        });
        let mut i = vectors.len() * 4 + start;
        while i < data.len() {
            add(data.load(i));
            i += stride;
        }
        thread::sync_threads();
        let mut bin = thread::thread_idx_x();
        while bin < count {
            let counted = bins.load(bin);
            if counted > 0 {
                histo.red_add(first + bin, counted);
            }
            bin += threads;
        }
        slice += slice_step;
    }
}
// ANCHOR_END: u32_sliced_vectors
