//! # Chapter 10: the parallel reduction
//!
//! A reduction folds every element of an array into one value with an associative
//! operator: here the sum. Every element reaches the same output, so the whole chapter is
//! about how the partial sums meet. This chapter steps from the sequential loop to a
//! kernel at the read bandwidth, one hardware idea per step:
//!
//! | step | idea | what the counters show |
//! | --- | --- | --- |
//! | 10.1 | the sequential loop | (host code) |
//! | 10.2 | `sum = sum + x` from every thread | lost updates: the race of 9.2 on one word |
//! | 10.3 | one global atomic per element | every element serialized on one address |
//! | 10.4 | a tree in shared memory, `t % (2 * stride) == 0` | divergent warps at every level |
//! | 10.5 | the same tree, `index = 2 * stride * t` | no divergence in the busy warps, bank conflicts |
//! | 10.6 | stride halving, `t < stride` | neither divergence nor conflicts |
//! | 10.7 | coarsening: a run of elements per thread first | fewer blocks, fewer atomics |
//! | 10.8 | `warp_shuffle_down` in each warp | no shared memory, one atomic per warp |
//! | 10.9 | 16-byte loads, shuffles, one atomic per block | the read bandwidth |
//!
//! ## Conventions
//!
//! Every kernel takes the input `data` and the output `sum`, one element that the host
//! zeroes before the launch; a kernel adds to it. `u32` sums wrap around (`wrapping_add`),
//! as the GPU's `u32` atomics do, so every order of the additions gives the same `u32`.
//! Not so for `f32`: rounding depends on the order (10.1 and 10.9 say how much). The
//! launch each kernel expects is in its doc comment; the chapter crate (`chapters/ch10`)
//! makes those launches.
#![allow(unused_variables)] // the stubs leave their parameters unused until solved

use gpu::prelude::*;
use gpu::value::U32x4;
use gpu::warp::ShuffleValue;
// Kernel output: std's printing macros have no standard output in a lane; these are
// `gpu::println!` and its kin, shown to you labelled as kernel output.
#[allow(unused_imports)]
use gpu::{dbg, eprint, eprintln, print, println};

/// The largest block the tree kernels (10.4 to 10.7) take: their shared array holds one
/// word per thread.
pub const MAX_BLOCK: u32 = 1024;

// ANCHOR: sum_sequential_u32
/// 10.1: the sum of `data`, one element after another, wrapping around past `u32::MAX`
/// (the GPU's `u32` atomics wrap too, so every kernel of the chapter agrees with it).
#[cfg(not(target_arch = "nvptx64"))]
#[host]
pub fn sum_sequential_u32(data: &[u32]) -> u32 {
    // STUDENT-BEGIN 10.1
    let mut sum = 0u32;
    for &x in data {
        sum = sum.wrapping_add(x);
    }
    sum
    // STUDENT-END
}
// ANCHOR_END: sum_sequential_u32

// ANCHOR: sum_sequential_f32
/// 10.1: the `f32` sum of `data` in index order, `((x0 + x1) + x2) + ...`.
///
/// Each addition rounds to the nearest `f32`; the order decides which partial sums are
/// rounded, so another order gives another last few bits. In this order element 0 goes
/// through `n - 1` roundings: the error is at most about `(n - 1) * eps/2 * sum |x|`.
#[cfg(not(target_arch = "nvptx64"))]
#[host]
pub fn sum_sequential_f32(data: &[f32]) -> f32 {
    // STUDENT-BEGIN 10.1
    let mut sum = 0.0f32;
    for &x in data {
        sum += x;
    }
    sum
    // STUDENT-END
}
// ANCHOR_END: sum_sequential_f32

// ANCHOR: sum_naive
/// 10.2: the naive parallel sum, one thread per element: `sum = sum + x`.
///
/// Launch: `<<<ceil(n / block), block>>>`, no shared memory.
///
/// A plain load and a plain store of one word that every thread shares: 9.2's race with
/// a single bin. The lanes of a warp load the sum together and store together, so a warp
/// adds one element, not 32; the emulator reports the lost stores and the hazard.
#[kernel]
pub fn sum_naive(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    // STUDENT-BEGIN 10.2
    let i = thread::index_1d();
    if i < data.len() {
        let s = sum.load(0);
        sum.store(0, s.wrapping_add(data.load(i)));
    }
    // STUDENT-END
}
// ANCHOR_END: sum_naive

// ANCHOR: sum_atomic
/// 10.3: one global atomic per element, in a grid-stride loop.
///
/// Launch: any grid, any block, no shared memory. Right, and as slow as a reduction can
/// be: every atomic of the grid lands on the same address, where the L2 cache applies
/// them one after another.
#[kernel]
pub fn sum_atomic(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    // STUDENT-BEGIN 10.3
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        sum.atomic_add(0, data.load(i));
        i += stride;
    }
    // STUDENT-END
}
// ANCHOR_END: sum_atomic

// ANCHOR: load_or_zero
/// Element `i` of `data`, or 0 past its end: what a thread with no element contributes
/// to its block's tree.
#[inline(always)]
pub fn load_or_zero(data: GlobalSlice<u32>, i: u32) -> u32 {
    if i < data.len() { data.load(i) } else { 0 }
}
// ANCHOR_END: load_or_zero

// ANCHOR: sum_tree_interleaved
/// 10.4: a tree in shared memory, one element per thread, interleaved pairs: in the
/// round of `stride` (1, 2, 4, ...), thread `t` with `t % (2 * stride) == 0` adds word
/// `t + stride` into word `t`; after the last round, thread 0 adds word 0 (the block's
/// sum) to `sum` with one global atomic.
///
/// Launch: `<<<ceil(n / block), block>>>`, `block` a power of two, at most
/// [`MAX_BLOCK`]. The active threads are spread over every warp: each warp diverges in
/// every round (half of its lanes idle in the first, 31 of 32 from the fifth on).
// The condition as the book and PMPP write it (`t.is_multiple_of(2 * stride)` is the same).
#[allow(clippy::manual_is_multiple_of)]
#[kernel]
pub fn sum_tree_interleaved(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    // STUDENT-BEGIN 10.4
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    partial.store(t, load_or_zero(data, thread::index_1d()));
    thread::sync_threads();
    let mut stride = 1;
    while stride < thread::block_dim_x() {
        if t % (2 * stride) == 0 {
            partial.store(t, partial.load(t).wrapping_add(partial.load(t + stride)));
        }
        thread::sync_threads();
        stride *= 2;
    }
    if t == 0 {
        sum.atomic_add(0, partial.load(0));
    }
    // STUDENT-END
}
// ANCHOR_END: sum_tree_interleaved

// ANCHOR: sum_tree_strided_index
/// 10.5: the tree of 10.4 with the work moved to the first threads: in the round of
/// `stride`, thread `t` works on `index = 2 * stride * t` (while `index < block`),
/// adding word `index + stride` into word `index`.
///
/// Launch: as 10.4. The busy threads are the first ones, so whole warps are busy or
/// idle (no divergence until fewer than 32 threads work); but lane `l` reads word
/// `2 * stride * l`: two lanes in one bank from the first round on (bank conflicts).
#[kernel]
pub fn sum_tree_strided_index(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    // STUDENT-BEGIN 10.5
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    partial.store(t, load_or_zero(data, thread::index_1d()));
    thread::sync_threads();
    let mut stride = 1;
    while stride < thread::block_dim_x() {
        let index = 2 * stride * t;
        if index < thread::block_dim_x() {
            partial.store(
                index,
                partial
                    .load(index)
                    .wrapping_add(partial.load(index + stride)),
            );
        }
        thread::sync_threads();
        stride *= 2;
    }
    if t == 0 {
        sum.atomic_add(0, partial.load(0));
    }
    // STUDENT-END
}
// ANCHOR_END: sum_tree_strided_index

// ANCHOR: tree_sequential
/// The sequential-addressing tree over the first `block_dim` words of `partial`, which
/// every thread of the block has stored: `stride` halves from `block_dim / 2`, and thread
/// `t < stride` adds word `t + stride` into word `t`. After it, word 0 holds the block's
/// sum (and every thread has passed the last barrier).
pub fn tree_sequential(partial: SharedArray<u32, { MAX_BLOCK as usize }>) {
    // STUDENT-BEGIN 10.6
    let t = thread::thread_idx_x();
    let mut stride = thread::block_dim_x() / 2;
    while stride > 0 {
        if t < stride {
            partial.store(t, partial.load(t).wrapping_add(partial.load(t + stride)));
        }
        thread::sync_threads();
        stride /= 2;
    }
    // STUDENT-END
}
// ANCHOR_END: tree_sequential

// ANCHOR: sum_tree_sequential
/// 10.6: the tree with sequential addressing ([`tree_sequential`]): the busy threads are
/// the first `stride`, reading consecutive words.
///
/// Launch: as 10.4. Whole warps busy or idle (no divergence until fewer than 32 threads
/// work), and the 32 lanes of a warp read 32 consecutive words: 32 banks, no conflict.
#[kernel]
pub fn sum_tree_sequential(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    // STUDENT-BEGIN 10.6
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    partial.store(t, load_or_zero(data, thread::index_1d()));
    thread::sync_threads();
    tree_sequential(partial);
    if t == 0 {
        sum.atomic_add(0, partial.load(0));
    }
    // STUDENT-END
}
// ANCHOR_END: sum_tree_sequential

// ANCHOR: sum_coarsened
/// 10.7: thread coarsening: block `b` sums the `block * coarsen` elements from
/// `b * block * coarsen` on. Thread `t` first adds, in a register, elements `t`,
/// `t + block`, `t + 2 * block`, ... of its block's segment (`coarsen` of them, fewer at
/// the end of the input), then the block runs 10.6's tree on those partial sums.
///
/// Launch: `<<<ceil(n / (block * coarsen)), block>>>`, `block` a power of two at most
/// [`MAX_BLOCK`]. `coarsen` times fewer blocks, trees and atomics than 10.6; the loads
/// of a warp stay 32 consecutive words.
#[kernel]
pub fn sum_coarsened(data: GlobalSlice<u32>, sum: GlobalSlice<u32>, coarsen: u32) {
    // STUDENT-BEGIN 10.7
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    let block = thread::block_dim_x();
    let segment = thread::block_idx_x() * block * coarsen;
    let mut mine = 0u32;
    let mut k = 0;
    while k < coarsen {
        mine = mine.wrapping_add(load_or_zero(data, segment + k * block + t));
        k += 1;
    }
    partial.store(t, mine);
    thread::sync_threads();
    tree_sequential(partial);
    if t == 0 {
        sum.atomic_add(0, partial.load(0));
    }
    // STUDENT-END
}
// ANCHOR_END: sum_coarsened

// ANCHOR: element
/// What the chapter's sums add: `u32` (wrapping) or `f32`. One generic kernel body
/// serves both types of 10.9.
pub trait Element: Copy + DeviceValue + ShuffleValue {
    /// The sum of nothing.
    const ZERO: Self;
    /// `self + other` (wrapping for `u32`).
    fn add(self, other: Self) -> Self;
    /// The element held by the bits of one word (a vector load reads words).
    fn from_word(word: u32) -> Self;
}

impl Element for u32 {
    const ZERO: Self = 0;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    #[inline(always)]
    fn from_word(word: u32) -> Self {
        word
    }
}

impl Element for f32 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self + other
    }
    #[inline(always)]
    fn from_word(word: u32) -> Self {
        f32::from_bits(word)
    }
}
// ANCHOR_END: element

// ANCHOR: warp_sum
/// The sum of `value` over the 32 lanes of the warp, in lane 0 (the other lanes hold
/// partial sums): five rounds of `warp_shuffle_down` with offsets 16, 8, 4, 2, 1, each
/// lane adding the value of the lane `offset` above it. Every lane of the warp must call
/// it.
pub fn warp_sum<T: Element>(value: T) -> T {
    // STUDENT-BEGIN 10.8
    let mut total = value;
    let mut offset = 16;
    while offset > 0 {
        total = total.add(warp::warp_shuffle_down(warp::FULL_MASK, total, offset, 32));
        offset /= 2;
    }
    total
    // STUDENT-END
}
// ANCHOR_END: warp_sum

// ANCHOR: sum_warp_shuffle
/// 10.8: each thread adds its elements of a grid-stride loop in a register, the warp adds
/// its 32 sums with shuffles ([`warp_sum`]), and lane 0 adds the warp's sum to `sum`: one
/// global atomic per warp, no shared memory, no barrier.
///
/// Launch: any grid, `block` a multiple of 32 (the shuffles need every lane of a warp).
#[kernel]
pub fn sum_warp_shuffle(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    // STUDENT-BEGIN 10.8
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    let mut mine = 0u32;
    while i < data.len() {
        mine = mine.wrapping_add(data.load(i));
        i += stride;
    }
    let total = warp_sum(mine);
    if warp::lane_id() == 0 {
        sum.atomic_add(0, total);
    }
    // STUDENT-END
}
// ANCHOR_END: sum_warp_shuffle

// ANCHOR: policy
/// 10.9's launch, in one place (as CUB keeps its tuning in a policy).
pub struct FastestPolicy;

impl FastestPolicy {
    /// Threads per block: a multiple of 32, at most 32 warps (one shared word each).
    pub const BLOCK_THREADS: u32 = 256;
    /// Vector loads a thread issues before it adds the first of them: 64 bytes in flight
    /// per thread, so that a resident wave keeps enough reads in flight to cover the
    /// memory's latency.
    pub const VECS_IN_FLIGHT: u32 = 4;
    /// Bytes per vector load (`U32x4`, `ld.global.v4`).
    pub const VEC_BYTES: u32 = 16;
}

/// 10.9's grid for `n` elements: the blocks resident at once (`sm_count *
/// blocks_per_sm`), but none that would have less than one round of
/// [`FastestPolicy::VECS_IN_FLIGHT`] vectors per thread; at least 1.
#[cfg(not(target_arch = "nvptx64"))]
pub fn fastest_grid(sm_count: u32, blocks_per_sm: u32, block: u32, n: usize) -> u32 {
    let resident = sm_count as usize * blocks_per_sm.max(1) as usize;
    let per_block = block as usize * (FastestPolicy::VECS_IN_FLIGHT * 4) as usize;
    resident.min(n.div_ceil(per_block)).max(1) as u32
}
// ANCHOR_END: policy

// ANCHOR: add_vector
/// `acc` plus the four elements of one 16-byte vector, in order. Written out (no loop
/// over the array), so that the vector stays in four registers: a loop the compiler keeps
/// would index the array at run time, in local memory.
#[inline(always)]
pub fn add_vector<T: Element>(acc: T, U32x4([a, b, c, d]): U32x4) -> T {
    acc.add(T::from_word(a))
        .add(T::from_word(b))
        .add(T::from_word(c))
        .add(T::from_word(d))
}
// ANCHOR_END: add_vector

// ANCHOR: thread_sum
/// This thread's sum of its share of `data`, in a register: the whole 16-byte vectors in
/// a grid-stride loop, [`FastestPolicy::VECS_IN_FLIGHT`] loads issued before the first is
/// added while that many are left, then the last vectors one at a time, then the
/// elements past the last whole vector (`n % 4`), one per thread ([`add_vector`] adds a vector).
pub fn thread_sum<T: Element>(data: GlobalSlice<T>) -> T {
    // STUDENT-BEGIN 10.9
    let vectors = data.cast::<U32x4>();
    let n = vectors.len();
    let stride = thread::grid_stride_x();
    let mut v = thread::index_1d();
    let mut acc = T::ZERO;
    // `n - v > 3 * stride` (when `v < n`): the fourth vector is in range, no overflow.
    while v < n && n - v > 3 * stride {
        let a = vectors.load(v);
        let b = vectors.load(v + stride);
        let c = vectors.load(v + 2 * stride);
        let d = vectors.load(v + 3 * stride);
        acc = add_vector(acc, a);
        acc = add_vector(acc, b);
        acc = add_vector(acc, c);
        acc = add_vector(acc, d);
        v += 4 * stride;
    }
    while v < n {
        acc = add_vector(acc, vectors.load(v));
        v += stride;
    }
    let mut i = n * 4 + thread::index_1d();
    while i < data.len() {
        acc = acc.add(data.load(i));
        i += stride;
    }
    acc
    // STUDENT-END
}
// ANCHOR_END: thread_sum

// ANCHOR: block_sum
/// The sum of `value` over the block, in thread 0: each warp's sum ([`warp_sum`]) goes
/// to word `warp` of `warp_sums`, and after a barrier the first warp adds those (a lane
/// past the last warp adds zero). Every thread of the block must call it; the block is
/// a multiple of 32 threads, at most 1024.
pub fn block_sum<T: Element>(value: T, warp_sums: SharedArray<T, 32>) -> T {
    // STUDENT-BEGIN 10.9
    let lane = warp::lane_id();
    let warp = thread::thread_idx_x() / 32;
    let total = warp_sum(value);
    if lane == 0 {
        warp_sums.store(warp, total);
    }
    thread::sync_threads();
    let mut block_total = T::ZERO;
    if warp == 0 {
        let warps = thread::block_dim_x() / 32;
        let mine = if lane < warps {
            warp_sums.load(lane)
        } else {
            T::ZERO
        };
        block_total = warp_sum(mine);
    }
    block_total
    // STUDENT-END
}
// ANCHOR_END: block_sum

// ANCHOR: sum_fastest_u32
/// 10.9: the fastest reduction of `u32`: every thread sums its share with 16-byte loads
/// ([`thread_sum`]), the block adds the threads' sums ([`block_sum`]: shuffles, then the
/// warps' sums through shared memory), and thread 0 adds the block's sum to `sum`: one
/// global atomic per block.
///
/// Launch: `<<<fastest_grid(..), FastestPolicy::BLOCK_THREADS>>>` (any block that is a
/// multiple of 32 works; any grid).
#[kernel]
pub fn sum_fastest_u32(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    // STUDENT-BEGIN 10.9
    let warp_sums = shared_array![u32; 32];
    let total = block_sum(thread_sum(data), warp_sums);
    if thread::thread_idx_x() == 0 {
        sum.atomic_add(0, total);
    }
    // STUDENT-END
}
// ANCHOR_END: sum_fastest_u32

// ANCHOR: sum_fastest_f32
/// 10.9: the fastest reduction of `f32`, the same kernel as [`sum_fastest_u32()`] on
/// `f32` elements. The order of the additions is not the sequential one: each thread's
/// chain, then five shuffle rounds in the warp and five over the warps, then the blocks'
/// atomics in whatever order they arrive; the error is bounded by the longest of those
/// chains times `eps/2 * sum |x|`, and the last bits may differ from run to run on a GPU.
#[kernel]
pub fn sum_fastest_f32(data: GlobalSlice<f32>, sum: GlobalSlice<f32>) {
    // STUDENT-BEGIN 10.9
    let warp_sums = shared_array![f32; 32];
    let total = block_sum(thread_sum(data), warp_sums);
    if thread::thread_idx_x() == 0 {
        sum.atomic_add(0, total);
    }
    // STUDENT-END
}
// ANCHOR_END: sum_fastest_f32
