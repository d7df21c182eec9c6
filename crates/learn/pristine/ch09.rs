//! # Chapter 9: the parallel histogram
//!
//! A histogram counts how often each value (or range of values) occurs. Unlike the
//! chapters before it, the *output* position of an element depends on its *value*: many
//! threads may want to update the same bin at once. This chapter steps from the
//! sequential loop to the fastest kernel, one hardware idea per step:
//!
//! | step | idea | what the counters show |
//! | --- | --- | --- |
//! | 9.1 | the sequential loop | (host code) |
//! | 9.2 | `h[b] = h[b] + 1` in parallel | lost updates: a read-modify-write race |
//! | 9.3 | `atomic_add` in a grid-stride loop | one global atomic per element, serialized on hot bins |
//! | 9.4 | one private copy per block, in global memory | contention only inside a block |
//! | 9.5 | the private copy in shared memory | shared atomics; global atomics only to commit |
//! | 9.6 | thread coarsening, contiguous vs interleaved | fewer blocks, fewer commits; interleaved loads coalesce |
//! | 9.7 | run-length aggregation in a register | one atomic per run of equal bins |
//! | 9.8 | warp aggregation with `match_any` | one atomic per distinct bin per warp instruction |
//! | 9.9 | all together: lane columns, 16-byte loads | conflict-free shared atomics, the fastest kernel |
//!
//! and the extensions 9.10 to 9.17 (registers, RGB, weights, 2-D, `u32` input, `atomicCAS`,
//! choosing a strategy by bin count, more bins than shared memory holds).
//!
//! ## Conventions of the byte kernels
//!
//! The byte kernels (9.2 to 9.9, 9.11 to 9.13, 9.15) count bytes into `histo.len()` bins
//! spread evenly over the 256 byte values, as CUB's `HistogramEven` does: byte `b` goes to
//! bin [`byte_bin`]`(b, histo.len())`, which is `b` itself for 256 bins. The `u32` kernels
//! (9.10, 9.14, 9.16, 9.17) take the value as the bin and skip values that are not bins.
//!
//! The host zeroes `histo` before a launch; a kernel adds to it. The launch each kernel
//! expects (grid, block, shared memory) is in its doc comment; the chapter crate
//! (`chapters/ch09`) makes those launches.
//!
//! The emulator runs every `load`, `store` and atomic as an observable step, so its
//! counters show what each kernel asks of the memory system; `cargo run -p ch09` prints
//! them step by step.
#![allow(unused_variables)] // the stubs leave their parameters unused until solved

use gpu::prelude::*;
use gpu::value::U32x4;

/// The sentence PMPP histograms in its chapter 9.
pub const PMPP_SENTENCE: &str = "programming massively parallel processors";

/// Letters of the alphabet the letter histogram counts (`a` to `z`).
pub const LETTERS: u32 = 26;

// ANCHOR: byte_bin
/// The bin of byte `byte` when the 256 byte values are spread evenly over
/// `num_bins` bins: `byte * num_bins / 256` (CUB's `HistogramEven` over `[0,
/// 256)`).
///
/// With 256 bins every byte value has its own bin; with 8 bins each bin holds 32
/// consecutive values, so fewer bins means more threads hitting the same counter,
/// which is what the atomics of this chapter are about. Valid for `num_bins <
/// 2^24`.
#[inline(always)]
pub fn byte_bin(byte: u8, num_bins: u32) -> u32 {
    (byte as u32 * num_bins) >> 8
}
// ANCHOR_END: byte_bin

// ANCHOR: no_bin
/// The value a lane holds in a warp collective when it has no element (past the
/// end of the input): no bin has this number, so it never matches a real bin.
pub const NO_BIN: u32 = u32::MAX;
// ANCHOR_END: no_bin

// ANCHOR: histogram_sequential
/// 9.1: the sequential byte histogram: `histo[b]` counts the bytes equal to `b`.
///
/// The loop every parallel version must agree with: one pass, one increment per
/// byte. It runs on the host, in one thread, so `histo[b] += 1` is safe here; it
/// is exactly the line that becomes a race when thousands of threads run it at
/// once (9.2).
#[cfg(not(target_arch = "nvptx64"))]
#[host]
pub fn histogram_sequential(data: &[u8]) -> [u32; 256] {
    // STUDENT-BEGIN 9.1
    // TODO: one counter per byte value: what type holds 256 counters, all
    // starting at 0? TODO: which loop visits every byte of `data` exactly once,
    // and which counter does it bump?
    todo!("9.1 histogram_sequential: count each byte of `data` in histo[byte]")
    // STUDENT-END
}
// ANCHOR_END: histogram_sequential

// ANCHOR: letter_bins
/// Bins of the letter histogram with `letters_per_bin` letters in each:
/// `ceil(26 / letters_per_bin)` (7 for PMPP's bins of 4: a-d, e-h, ..., y-z).
pub fn letter_bins(letters_per_bin: u32) -> u32 {
    LETTERS.div_ceil(letters_per_bin)
}
// ANCHOR_END: letter_bins

// ANCHOR: letter_histogram
/// 9.1: the letter histogram of `text`, as PMPP computes it: lowercase `a` to `z`
/// only (every other byte, uppercase and spaces included, is not counted),
/// `letters_per_bin` consecutive letters to a bin. Bin `k` counts the letters `a +
/// k * letters_per_bin` up to the next bin's first letter; the bins past
/// [`letter_bins`]`(letters_per_bin)` stay zero.
///
/// With `letters_per_bin = 1` this is one bin per letter; PMPP uses 4 (seven
/// bins), which puts more of the text into each bin: more collisions for the
/// parallel versions. `letters_per_bin` is at least 1.
#[cfg(not(target_arch = "nvptx64"))]
#[host]
pub fn letter_histogram(text: &[u8], letters_per_bin: u32) -> [u32; 26] {
    // STUDENT-BEGIN 9.1
    // TODO: which bytes are letters PMPP counts, and how far is a letter from
    // 'a'? TODO: with `letters_per_bin` letters to a bin, which bin does that
    // distance land in?
    todo!("9.1 letter_histogram: count lowercase letters, `letters_per_bin` to a bin")
    // STUDENT-END
}
// ANCHOR_END: letter_histogram

// ANCHOR: histo_naive
/// 9.2: the naive parallel histogram, one thread per element: `h[b] = h[b] + 1`.
///
/// Launch: `<<<ceil(n / block), block>>>`, no shared memory.
///
/// A plain load and a plain store: when two threads read the same bin before
/// either writes it back, both write the same value and one update is lost. It is
/// right only when no two threads share a bin. On the emulator the 32 lanes of a
/// warp load together and store together, so a warp whose elements fall into one
/// bin adds 1, not 32; the emulator reports the lost stores and the hazard
/// between blocks.
#[kernel]
pub fn histo_naive(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.2
    // TODO: which element does this thread own, and what if it is past the end of
    // `data`? TODO: read the bin's count with `histo.load`, write it back plus
    // one with `histo.store`
    //       (no atomics: this kernel exists to show what goes wrong without them).
    todo!("9.2 histo_naive: histo[bin] = histo[bin] + 1 with load and store")
    // STUDENT-END
}
// ANCHOR_END: histo_naive

// ANCHOR: predict_launch
/// The input of the 9.2 prediction: this many bytes, all equal to
/// [`PREDICT_BYTE`].
pub const PREDICT_N: u32 = 150;
/// The byte value of every element of the 9.2 prediction.
pub const PREDICT_BYTE: u8 = b'x';
/// Threads per block of the 9.2 prediction.
pub const PREDICT_BLOCK: u32 = 64;
/// Blocks of the 9.2 prediction: `ceil(PREDICT_N / PREDICT_BLOCK)`.
pub const PREDICT_GRID: u32 = 3;
// ANCHOR_END: predict_launch

// ANCHOR: predict_naive_count
/// 9.2, the question: what does the emulator leave in the bin?
///
/// The launch: [`histo_naive()`] over [`PREDICT_N`] = 150 bytes, every one equal
/// to [`PREDICT_BYTE`] (`b'x'`), with 256 bins (so every element goes to bin
/// 120), as `<<<3, 64>>>`: 3 blocks of 64 threads (2 warps each); threads 150 to
/// 191 have no element and return at once. The bin starts at 0. Return the value
/// of bin 120 after the launch.
///
/// How the emulator schedules (one legal schedule of a real GPU, and the one it
/// always uses): one *step* is one warp instruction, executed by every lane of
/// the warp that is at it; a load reads memory as it was before the step and a
/// store lands after it; the warps of a block take turns, one step each; the
/// blocks run one after another. Work out what each warp reads and writes.
#[cfg(not(target_arch = "nvptx64"))]
#[host]
pub fn predict_naive_count() -> u32 {
    // STUDENT-BEGIN 9.2
    // TODO: in one block, do both warps load the bin before either stores? What
    // do they store? TODO: the next block starts from what the previous one left.
    // How many blocks have elements?
    todo!("9.2 predict_naive_count: the count the emulator leaves in bin 120")
    // STUDENT-END
}
// ANCHOR_END: predict_naive_count

// ANCHOR: histo_atomic
/// 9.3: global atomics in a grid-stride loop.
///
/// Launch: any grid (the chapter uses one sized from the device), any block, no
/// shared memory. Thread `t` of the `T` threads in the grid counts elements `t`,
/// `t + T`, `t + 2T`, ...: the loop is correct for every grid size, and in each
/// round the lanes of a warp read 32 consecutive bytes (one 32-byte sector,
/// coalesced).
///
/// `atomic_add` makes each read-modify-write indivisible, so no update is lost.
/// The price: one global atomic per element, executed at the L2 cache, and the
/// atomics of one warp instruction that hit the same bin are serialized one after
/// another.
#[kernel]
pub fn histo_atomic(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.3
    // TODO: where does this thread start, and how far must it jump so that the
    // threads of the
    //       whole grid cover every element exactly once, whatever the grid size?
    // TODO: which operation adds 1 to a bin without losing another thread's
    // update?
    todo!("9.3 histo_atomic: atomic_add each element in a grid-stride loop")
    // STUDENT-END
}
// ANCHOR_END: histo_atomic

// ANCHOR: histo_private_global
/// 9.4: privatization in global memory: one private copy of the bins per block.
///
/// Launch: `<<<grid, block>>>`; `histo` holds `grid * num_bins` zeroed counters:
/// copy `b` is `histo[b * num_bins .. (b + 1) * num_bins]`. Each block counts its
/// elements (the grid-stride loop of 9.3) into its own copy, so its atomics
/// contend only with its own threads. Block 0's copy is the public one: after a
/// barrier (every thread of the block has finished counting), blocks 1.. add
/// their nonzero bins into it. The result is in `histo[0 .. num_bins]`.
#[kernel]
pub fn histo_private_global(data: GlobalSlice<u8>, histo: GlobalSlice<u32>, num_bins: u32) {
    // STUDENT-BEGIN 9.4
    // TODO: where does this block's private copy start in `histo`? TODO: count
    // with the loop of 9.3, but into the private copy. TODO: which blocks must
    // commit, and when is a block's copy complete? (A barrier must be
    //       reached by every thread of the block.)
    // TODO: commit: the block's threads share the bins; each adds a nonzero count
    // to copy 0.
    todo!("9.4 histo_private_global: count into the block's copy, commit it to copy 0")
    // STUDENT-END
}
// ANCHOR_END: histo_private_global

/// Bins of the static shared-memory copy of [`histo_private_shared()`]: one per byte value.
pub const STATIC_BINS: u32 = 256;

// ANCHOR: histo_private_shared
/// 9.5: privatization in shared memory, with a static array of [`STATIC_BINS`]
/// counters.
///
/// Launch: `<<<ceil(n / block), block>>>` (one element per thread, as PMPP's
/// first shared-memory version; coarsening comes in 9.6), `histo.len() <= 256`,
/// no dynamic shared memory.
///
/// Shared memory is on the SM: an atomic there is served next to the cores,
/// without a round trip to L2, and only the block's own threads contend. Shared
/// memory starts as garbage, so the block zeroes its bins first, and a barrier
/// keeps every thread from counting before the zeroing is done; a second barrier
/// keeps the commit (one global atomic per nonzero bin) from reading bins other
/// threads are still counting into.
#[kernel]
pub fn histo_private_shared(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.5
    // TODO: declare the block's bins with `shared_array!`. What do they hold
    // before you write them? TODO: how do the threads of the block share the
    // zeroing of `histo.len()` bins? TODO: when may a thread start counting, and
    // when may the block start committing? TODO: commit each nonzero private bin
    // to `histo` with one global atomic.
    todo!("9.5 histo_private_shared: count into a shared_array! copy, then commit it")
    // STUDENT-END
}
// ANCHOR_END: histo_private_shared

// ANCHOR: init_private_bins
/// Phase 1 of every privatized kernel from 9.5 on (CUB's `InitBinCounters`): zero
/// the block's `num_bins` private bins, then wait at a barrier.
///
/// The threads of the block share the work (thread `t` zeroes bins `t`, `t +
/// block`, ..., so each warp writes 32 consecutive words: no bank conflicts). The
/// barrier is part of the phase: no thread may count into a bin another thread
/// has not zeroed yet.
pub fn init_private_bins(bins: DynamicShared<u32>, num_bins: u32) {
    // STUDENT-BEGIN 9.5
    // TODO: thread t zeroes which bins, so that together the threads cover all
    // `num_bins`? TODO: what must every thread wait for before it may count into
    // the bins?
    todo!("9.5 init_private_bins: zero the private bins, then wait for the block")
    // STUDENT-END
}
// ANCHOR_END: init_private_bins

// ANCHOR: store_output
/// Last phase of every privatized kernel from 9.5 on (CUB's `StoreOutput`): wait
/// at a barrier, then add the block's nonzero private bins to the `histo.len()`
/// global bins.
///
/// The barrier comes first: a bin is final only when every thread of the block
/// has finished counting. Then one global atomic per nonzero bin and block: the
/// commit costs at most `blocks * bins` global atomics, however long the input.
pub fn store_output(bins: DynamicShared<u32>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.5
    // TODO: when is a private bin final? Wait for that first.
    // TODO: which bins does thread t commit, and which ones can it skip?
    todo!("9.5 store_output: after a barrier, add the block's nonzero bins to histo")
    // STUDENT-END
}
// ANCHOR_END: store_output

// ANCHOR: histo_private_dynamic
/// 9.5: privatization in launch-sized (dynamic) shared memory, for any bin count
/// that fits.
///
/// Launch: `<<<ceil(n / block), block, histo.len() * 4 bytes>>>` (one element per
/// thread). `dynamic_shared![u32]` is CUDA's `extern __shared__ unsigned bins[]`:
/// its size comes from the launch, so the same kernel serves 7 bins or 10 000 (48
/// KiB, 12 288 bins, by default; up to 227 KiB on an H100 when the launch opts
/// in). Built from the two phases [`init_private_bins`] and [`store_output`],
/// which every later privatized kernel reuses.
#[kernel]
pub fn histo_private_dynamic(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.5
    // TODO: declare the launch-sized bins with `dynamic_shared!`. TODO: the three
    // phases: zero the bins, count into them (one shared atomic per
    //       element), commit them. Two of the phases are the helpers above.
    todo!("9.5 histo_private_dynamic: zero, count with shared atomics, commit")
    // STUDENT-END
}
// ANCHOR_END: histo_private_dynamic

// ANCHOR: histo_coarse_contiguous
/// 9.6: thread coarsening with *contiguous* partitioning: thread `t` counts the
/// `coarsen` consecutive elements `t * coarsen .. (t + 1) * coarsen` (fewer at
/// the end).
///
/// Launch: `<<<ceil(n / (block * coarsen)), block, histo.len() * 4 bytes>>>`.
/// Each block now counts `coarsen` times as many elements, so there are `coarsen`
/// times fewer blocks and commits. But in each round the 32 lanes of a warp read
/// bytes `coarsen` apart: a warp instruction touches up to `coarsen` sectors for
/// 32 useful bytes. Good for a CPU core's cache, wasteful for a GPU's memory
/// system.
#[kernel]
pub fn histo_coarse_contiguous(data: GlobalSlice<u8>, histo: GlobalSlice<u32>, coarsen: u32) {
    // STUDENT-BEGIN 9.6
    // TODO: which `coarsen` consecutive elements belong to this thread, and where
    // does the
    //       last thread's range stop?
    // TODO: the phases of 9.5 around a loop over that range.
    todo!("9.6 histo_coarse_contiguous: `coarsen` consecutive elements a thread")
    // STUDENT-END
}
// ANCHOR_END: histo_coarse_contiguous

// ANCHOR: histo_coarse_interleaved
/// 9.6: thread coarsening with *interleaved* partitioning: thread `t` of the `T`
/// threads in the grid counts `t`, `t + T`, `t + 2T`, ... (the grid-stride loop).
///
/// Launch: `<<<ceil(n / (block * coarsen)), block, histo.len() * 4 bytes>>>`: the
/// same coarsened grid as [`histo_coarse_contiguous()`], so each thread still
/// counts about `coarsen` elements; but in each round the lanes of a warp read 32
/// consecutive bytes, one sector per warp instruction (coalesced).
#[kernel]
pub fn histo_coarse_interleaved(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.6
    // TODO: the grid has `coarsen` times fewer threads than elements: which
    // elements does
    //       thread t count so that the lanes of a warp read neighbouring bytes?
    todo!("9.6 histo_coarse_interleaved: every T-th element (T threads in the grid)")
    // STUDENT-END
}
// ANCHOR_END: histo_coarse_interleaved

// ANCHOR: histo_aggregate
/// 9.7: aggregation: each thread accumulates a run of equal bins in a register
/// and flushes it with one atomic when the bin changes, and once more at the end.
///
/// Launch: as [`histo_coarse_interleaved()`] (grid-stride loop, coarsened grid,
/// `histo.len() * 4` bytes of shared memory). On skewed data (a dark image, a
/// long run of one value) most elements extend the current run and cost no atomic
/// at all; on uniform data nearly every element starts a new run and the extra
/// register work buys nothing. The run still open when the loop ends must be
/// flushed too.
#[kernel]
pub fn histo_aggregate(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.7
    // TODO: which two registers describe the run of equal bins this thread is
    // building? TODO: what happens when the next element's bin equals the run's,
    // and when it does not? TODO: is anything left in the registers when the loop
    // ends?
    todo!("9.7 histo_aggregate: one atomic per run of equal bins")
    // STUDENT-END
}
// ANCHOR_END: histo_aggregate

// ANCHOR: histo_warp_aggregate
/// 9.8: warp aggregation: the lanes of a warp that hold the same bin elect one
/// leader, which adds their count with one shared atomic.
///
/// Launch: as [`histo_coarse_interleaved()`]. `warp_match_any(FULL_MASK, bin)`
/// gives each lane the mask of its *peers* (the lanes with the same bin); the
/// lowest peer adds `peers.count_ones()`. So a warp instruction issues one atomic
/// per distinct bin instead of one per lane, and no two lanes of it touch the
/// same address: no serialization.
///
/// The collective must be reached by every lane of the warp together: the loop
/// runs while the warp's *first* lane has an element, so every lane takes the
/// same number of rounds, and a lane past the end takes part with [`NO_BIN`].
#[kernel]
pub fn histo_warp_aggregate(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.8
    // TODO: every lane of the warp must reach `warp_match_any` together, the same
    // number of
    //       times: what loop condition is the same for the whole warp?
    // TODO: what does a lane without an element pass to the collective?
    // TODO: which peer adds for all of them, and how much?
    todo!("9.8 histo_warp_aggregate: one atomic per distinct bin per warp")
    // STUDENT-END
}
// ANCHOR_END: histo_warp_aggregate

// ANCHOR: policy
/// The knobs of 9.9 in one place, as CUB's `AgentHistogramPolicy` keeps them.
pub struct FastestPolicy;

impl FastestPolicy {
    /// Threads per block: 16 warps. Any multiple of 32 is right; 512 measured as
    /// fast as 1024 on an H100 and faster than 256 (see the book's 9.9 for the
    /// sweep).
    pub const BLOCK_THREADS: u32 = 512;
    /// Bytes one thread loads at once: a [`U32x4`], the widest load
    /// (`ld.global.v4.u32`).
    pub const VEC_BYTES: u32 = core::mem::size_of::<U32x4>() as u32;
    /// 16-byte loads a thread issues before it counts any of their bytes: 64
    /// bytes in flight per thread, so that an SM has enough reads outstanding to
    /// cover DRAM latency.
    pub const LOADS_IN_FLIGHT: u32 = 4;
    /// The values a byte can take. 9.9 counts byte *values* while it reads,
    /// whatever the bin count, and turns values into bins once per block, in the
    /// commit ([`store_lane_columns`]): `byte_bin`'s multiply and shift per byte
    /// were most of the instructions of the counting loop, which bounded it on an
    /// H200 (`notes/fastest-limit-2026-11-26/`).
    pub const BYTE_VALUES: u32 = 256;
    /// Copies of every counter in a block's shared memory: one per lane index,
    /// the counter of byte value `x` of lane `l` at `x * LANE_COPIES + l`
    /// ([`lane_counter`]), so that lane `l`'s counters are all in bank `l` and no
    /// shared atomic instruction has a bank conflict.
    pub const LANE_COPIES: u32 = 32;
    /// 16-byte vectors each thread counts, at least, before the grid grows:
    /// coarsening keeps the blocks (and their commits) few on short inputs. 8,
    /// not 16: at 16 MiB the twice as many blocks ran 1.21x the read kernel's
    /// time against 1.26x and 1.27x, and the same within 1 % at 1 MiB to 1 GiB
    /// (`bench --variants`, H100, cold L2).
    pub const VECS_PER_THREAD: u32 = 8;
}

/// Dynamic shared memory of 9.9 per block, whatever the bin count: a column of
/// [`FastestPolicy::LANE_COPIES`] counters per byte value, 32 KiB.
pub const FASTEST_SHARED_BYTES: u32 = FastestPolicy::BYTE_VALUES * FastestPolicy::LANE_COPIES * 4;

// ANCHOR: lane_counter
/// The index of lane `lane`'s counter of byte value `byte` (its low 8 bits) in
/// 9.9's shared memory: `byte * 32 + lane` ([`FastestPolicy::LANE_COPIES`] is
/// 32).
///
/// Written as the counter's byte offset, `byte * 128 + lane * 4`, divided by 4:
/// the GPU addresses shared memory in bytes, and in this form the compiler builds
/// the address with one `LOP3` (a shift for three bytes of four) and the atomic's
/// own base register, where `byte * 32 + lane` costs a separate multiply-add per
/// byte (`LEA`): 2 instructions per counted byte besides the atomic, against 3
/// (`notes/fastest-limit-2026-11-26/`).
#[inline(always)]
pub fn lane_counter(byte: u32, lane: u32) -> u32 {
    let bytes = FastestPolicy::LANE_COPIES * 4;
    (((byte & 0xff) * bytes) | (lane * 4)) / 4
}
// ANCHOR_END: lane_counter

/// The grid of 9.9: one wave, `sm_count * blocks_per_sm` blocks (`blocks_per_sm`
/// from the occupancy query, `Device::max_active_blocks_per_sm`, which counts the
/// block's threads, shared memory and registers), but no more than `n` bytes can
/// feed with [`FastestPolicy::VECS_PER_THREAD`] vectors per thread of `block`,
/// except that a short input still gets one block per SM as long as each thread
/// has a vector to load; at least 1.
///
/// Every block of a grid-stride kernel gets the same share of the input, so a
/// block that does not fit in the first wave starts only when one of it finishes,
/// and runs its whole share while most SMs have nothing left to do: on an H100 a
/// grid of 1.2 waves read at 82 % of the bandwidth where one wave read at 100 %
/// (the book's 9.9). Fewer blocks than SMs leave SMs idle: 1 MiB took 9.1 µs in 8
/// blocks (16 vectors per thread) and 6.2 µs in 132 (the book's 9.9).
#[cfg(not(target_arch = "nvptx64"))]
pub fn fastest_grid(sm_count: u32, blocks_per_sm: u32, block: u32, n: usize) -> u32 {
    fastest_grid_coarsened(
        sm_count,
        blocks_per_sm,
        block,
        n,
        FastestPolicy::VECS_PER_THREAD,
    )
}

/// [`fastest_grid`] with `vecs_per_thread` vectors per thread in place of the
/// policy's [`FastestPolicy::VECS_PER_THREAD`]: how the bench measures other
/// coarsenings.
#[cfg(not(target_arch = "nvptx64"))]
pub fn fastest_grid_coarsened(
    sm_count: u32,
    blocks_per_sm: u32,
    block: u32,
    n: usize,
    vecs_per_thread: u32,
) -> u32 {
    let resident = sm_count * blocks_per_sm.max(1);
    let vectors_per_block =
        |vectors: u32| block as usize * (FastestPolicy::VEC_BYTES * vectors) as usize;
    let coarsened = n.div_ceil(vectors_per_block(vecs_per_thread));
    let one_each = n.div_ceil(vectors_per_block(1)).min(sm_count as usize);
    (resident as usize).min(coarsened.max(one_each).max(1)) as u32
}
// ANCHOR_END: policy

// ANCHOR: store_lane_columns
/// Last phase of 9.9: after a barrier, add up each byte value's
/// [`FastestPolicy::LANE_COPIES`] column counters, then, after a second barrier,
/// add the values of each bin (those `x` with `byte_bin(x, histo.len()) == bin`)
/// and commit the nonzero sums to `histo`: one global atomic per nonzero bin and
/// block. With 256 bins every value is its own bin: each sum is committed at
/// once, without the second barrier (a block-wide choice, so every thread of the
/// block leaves before it or none does).
///
/// Thread `t` sums byte value `t`'s column, starting at its own position in it:
/// the `k`-th load is `bins[t * 32 + (t + k) % 32]`. Starting every thread at
/// position 0 would put the 32 loads of a warp instruction (values `t .. t + 32`,
/// position `k`) all in bank `k`: a 32-way conflict. Rotated, they are in 32
/// different banks. The sum goes to the column's word at position `t % 32` (only
/// its own thread has read that column), where the bins' threads, one bin each,
/// find 32 consecutive values in 32 banks.
pub fn store_lane_columns(bins: DynamicShared<u32>, histo: GlobalSlice<u32>) {
    thread::sync_threads();
    let copies = FastestPolicy::LANE_COPIES;
    let values = FastestPolicy::BYTE_VALUES;
    let num_bins = histo.len();
    // Two loops rather than a branch in one: the compiler made that branch's
    // store a predicated one, which the GPU counts as executed even where its
    // predicate is off.
    if num_bins == values {
        let mut x = thread::thread_idx_x();
        while x < values {
            let sum = lane_column_sum(bins, x);
            if sum > 0 {
                histo.red_add(x, sum);
            }
            x += thread::block_dim_x();
        }
        return;
    }
    let mut x = thread::thread_idx_x();
    while x < values {
        bins.store(x * copies + x % copies, lane_column_sum(bins, x));
        x += thread::block_dim_x();
    }
    thread::sync_threads();
    // The most values a bin has; every lane goes round this often, so that a warp
    // stays converged (a value past its bin's last reads a word in bounds and
    // adds 0).
    let width = values.div_ceil(num_bins);
    let mut bin = thread::thread_idx_x();
    while bin < num_bins {
        // The values of `bin`: `byte_bin(x) == bin` from x = ceil(bin * 256 /
        // num_bins).
        let first = (bin * values).div_ceil(num_bins);
        let end = ((bin + 1) * values).div_ceil(num_bins).min(values);
        let mut sum = 0;
        let mut k = 0;
        while k < width {
            let x = (first + k).min(values - 1);
            sum += bins.load(x * copies + x % copies) * (first + k < end) as u32;
            k += 1;
        }
        if sum > 0 {
            histo.red_add(bin, sum);
        }
        bin += thread::block_dim_x();
    }
}
// ANCHOR_END: store_lane_columns

/// The sum of byte value `x`'s [`FastestPolicy::LANE_COPIES`] column counters, read from
/// position `x % 32` on ([`store_lane_columns`] says why).
#[inline(always)]
pub fn lane_column_sum(bins: DynamicShared<u32>, x: u32) -> u32 {
    let copies = FastestPolicy::LANE_COPIES;
    let mut sum = 0;
    let mut k = 0;
    while k < copies {
        sum += bins.load(x * copies + (x + k) % copies);
        k += 1;
    }
    sum
}

// ANCHOR: consume_tiles
/// Phase 2 of 9.9 (CUB's `ConsumeTiles`): count the block's share of `data` into
/// the private lane columns `bins` by byte value: byte `b` of lane `l` adds 1 to
/// `bins[lane_counter(b, l)]`, counter `b * 32 + l`.
///
/// The bytes are read as 16-byte [`U32x4`] vectors in a grid-stride loop (a warp
/// reads 512 consecutive bytes per instruction, 16 sectors, all used), four loads
/// issued before the first is counted while the fourth is in range, then the last
/// vectors one at a time, then the tail: the `n % 16` bytes past the last whole
/// vector, one byte per thread with a bounds check. Every count is
/// `atomic_add(.., 1)` with its result unused, which the GPU does as
/// `ATOMS.POPC.INC` (equal addresses of a warp combined in hardware); the lane
/// columns make every such instruction a single pass through the banks. No warp
/// collective: no lane waits for another. The loop knows nothing of bins: a byte
/// costs its atomic and the two instructions that make its address.
pub fn consume_tiles(data: GlobalSlice<u8>, bins: DynamicShared<u32>) {
    // STUDENT-BEGIN 9.9
    // TODO: which counter does byte `b` of lane `l` add 1 to, so that a warp's 32
    // atomics
    //       are in 32 different banks whatever the bytes are? (`lane_counter`)
    // TODO: view `data` as 16-byte vectors: how many whole vectors are there?
    // TODO: issue four vector loads before counting any of them (grid-stride,
    // while the
    //       fourth is in range), then the remaining vectors one at a time.
    // TODO: which bytes are past the last whole vector, and who counts them?
    todo!("9.9 consume_tiles: lane columns, four 16-byte loads in flight, then the tail")
    // STUDENT-END
}
// ANCHOR_END: consume_tiles

// ANCHOR: histo_fastest
/// 9.9: everything together: shared-memory privatization with a column of
/// counters per lane and byte value (no bank conflicts, no bin arithmetic per
/// byte), 16-byte vectorised loads with four in flight, and coarsening (a grid of
/// one resident wave, [`fastest_grid`]).
///
/// Launch: `<<<fastest_grid(..), FastestPolicy::BLOCK_THREADS,
/// FASTEST_SHARED_BYTES>>>` (any block works), any bin count. Three phases, as
/// CUB's histogram kernel: [`init_private_bins`] over all the columns,
/// [`consume_tiles`], [`store_lane_columns`].
#[kernel]
pub fn histo_fastest(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.9
    // TODO: declare the private bins (how many counters?), then call the three
    // phases.
    todo!("9.9 histo_fastest: init_private_bins, consume_tiles, store_lane_columns")
    // STUDENT-END
}
// ANCHOR_END: histo_fastest

/// Most bins 9.10's per-thread counters hold: 16 registers per thread.
pub const REGISTER_BINS: u32 = 16;

// ANCHOR: histo_registers
/// 9.10: register privatization for at most [`REGISTER_BINS`] bins: every thread
/// keeps its own 16 counters in registers; `u32` input, value `v` counted in bin
/// `v` when `v < histo.len()` (other values are skipped).
///
/// Launch: a grid-stride grid, any block whose size is a multiple of 32, no
/// shared memory, `histo.len() <= 16`.
///
/// Registers are the fastest memory and private to a thread: no atomics at all
/// while counting. But a register cannot be indexed at run time: `counts[v] += 1`
/// would put the array in (slow, per-thread) local memory. So every counter
/// compares itself with the value (`counts[b] += (v == b) as u32` over a loop the
/// compiler unrolls), and the commit picks each counter out the same way. At the
/// end the warp adds up each counter with shuffles and lane 0 commits it: one
/// global atomic per bin and warp.
#[kernel]
pub fn histo_registers(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.10
    // TODO: 16 counters per thread; why can `counts[value] += 1` not stay in
    // registers, and
    //       how do you count with only compile-time indices?
    // TODO: after the loop, how does the warp add up one counter across its 32
    // lanes?
    //       (Every lane must take part in each shuffle.) And how do you read counter `bin`
    //       without indexing the array at run time?
    // TODO: who commits the warp's total of each bin (below histo.len())?
    todo!("9.10 histo_registers: counters in registers, warp-reduced, committed")
    // STUDENT-END
}
// ANCHOR_END: histo_registers

// ANCHOR: histo_rgb
/// 9.11: the three histograms of an RGB image at once.
///
/// `pixels` holds `pixels.len() / 3` pixels as interleaved bytes `R G B R G B
/// ...` (a trailing partial pixel is ignored); `histo` holds `3 * num_bins` bins:
/// red bins first, then green, then blue, each channel binned with [`byte_bin`].
/// Launch: a grid-stride grid, any block, `histo.len() * 4` bytes of shared
/// memory.
///
/// One private copy of all three channels per block, and three shared atomics per
/// pixel; the loads of a warp read 96 consecutive bytes in three instructions, so
/// they stay coalesced even though each lane reads bytes 3 apart.
#[kernel]
pub fn histo_rgb(pixels: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.11
    // TODO: how many bins per channel, and where do the green and blue bins
    // start? TODO: which three bytes belong to pixel p?
    todo!("9.11 histo_rgb: privatized histograms of the R, G and B channels")
    // STUDENT-END
}
// ANCHOR_END: histo_rgb

// ANCHOR: histo_weighted
/// 9.12: the weighted histogram: element `i` adds `weights[i]` to its bin instead
/// of 1.
///
/// Launch: a grid-stride grid, any block, `histo.len() * 4` bytes of shared
/// memory; `weights.len() == data.len()`. `f32` has an atomic add
/// (`atom.add.f32`), in shared and global memory alike, so the privatization of
/// 9.5 carries over with `f32` bins. Floating-point addition is not associative:
/// the order of the atomics changes the last bits of a sum, so results are
/// compared with a tolerance (or with weights whose sums are exact).
#[kernel]
pub fn histo_weighted(data: GlobalSlice<u8>, weights: GlobalSlice<f32>, histo: GlobalSlice<f32>) {
    // STUDENT-BEGIN 9.12
    // TODO: the phases of 9.5 with f32 bins: the helpers take u32 bins, so write
    // the zeroing
    //       and the commit for f32 here.
    // TODO: what does element i add to its bin?
    todo!("9.12 histo_weighted: privatized f32 bins, add each element's weight")
    // STUDENT-END
}
// ANCHOR_END: histo_weighted

// ANCHOR: histo_joint
/// 9.13: the 2-D joint histogram of two byte sequences: pair `(x[i], y[i])` goes
/// to bin `byte_bin(y[i], bins_y) * bins_x + byte_bin(x[i], bins_x)`, with
/// `bins_y = histo.len() / bins_x` (row-major, one row per `y` bin).
///
/// Launch: a grid-stride grid, any block, `histo.len() * 4` bytes of shared
/// memory; the pairs are the first `min(x.len(), y.len())` elements. A joint
/// histogram is an ordinary histogram over a computed bin index, so privatization
/// carries over unchanged; only the bin count grows as the product of the two.
#[kernel]
pub fn histo_joint(x: GlobalSlice<u8>, y: GlobalSlice<u8>, histo: GlobalSlice<u32>, bins_x: u32) {
    // STUDENT-BEGIN 9.13
    // TODO: how many y bins are there, and which bin does the pair (x[i], y[i])
    // fall in?
    todo!("9.13 histo_joint: privatized 2-D histogram of (x[i], y[i]) pairs")
    // STUDENT-END
}
// ANCHOR_END: histo_joint

/// Most bins of 9.14's kernels: 4096 `u32` counters are 16 KiB of shared memory.
pub const MAX_U32_BINS: u32 = 4096;

// ANCHOR: histo_u32_global
/// 9.14: `u32` input, any bin count: value `v` is counted in bin `v` when `v <
/// histo.len()`; other values are skipped. Global atomics in a grid-stride loop
/// (9.3 for `u32`).
///
/// Launch: any grid, any block, no shared memory. With many bins few elements
/// share a bin, so the atomics hardly contend: this is the strategy for more bins
/// than shared memory (or privatization) pays for.
#[kernel]
pub fn histo_u32_global(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.14
    // TODO: the loop of 9.3 over u32 values; which values are not bins?
    todo!("9.14 histo_u32_global: global atomics on u32 values that are bins")
    // STUDENT-END
}
// ANCHOR_END: histo_u32_global

// ANCHOR: histo_u32_shared
/// 9.14: `u32` input privatized in dynamic shared memory, for up to
/// [`MAX_U32_BINS`] bins; values `>= histo.len()` are skipped.
///
/// Launch: any grid, any block, `histo.len() * 4` bytes of shared memory. Every
/// block zeroes and commits all its bins, whatever it counts: `2 * bins` shared
/// accesses and up to `bins` global atomics per block. With 4096 bins and a block
/// that counts 1024 elements, that overhead is bigger than the work (see
/// [`privatized_worst_global_atomics`]).
#[kernel]
pub fn histo_u32_shared(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.14
    // TODO: the phases of 9.5 over u32 values; which values are not bins?
    todo!("9.14 histo_u32_shared: u32 input privatized in dynamic shared memory")
    // STUDENT-END
}
// ANCHOR_END: histo_u32_shared

// ANCHOR: privatized_worst_global_atomics
/// 9.14, the question: when does privatization not pay?
///
/// Launch [`histo_u32_shared()`] with one element per thread: `<<<ceil(n /
/// block), block>>>`, `n` values, `num_bins` bins (every value a valid bin). Each
/// block commits only its nonzero bins. Return the most global atomics the launch
/// can issue, over all inputs.
///
/// Then compare with the `n` global atomics of [`histo_u32_global()`] for 16384
/// elements, 4096 bins and 1024-thread blocks, and count the shared-memory words
/// each block zeroes and commits. (The blog post in the chapter's sources
/// measured the shared version slower there.)
#[cfg(not(target_arch = "nvptx64"))]
#[host]
pub fn privatized_worst_global_atomics(n: u32, num_bins: u32, block: u32) -> u32 {
    // STUDENT-BEGIN 9.14
    // TODO: how many elements does each block count, and how many nonzero bins
    // can it have? TODO: sum that over the blocks; then compare it with n for
    // 16384 / 4096 / 1024.
    todo!("9.14 privatized_worst_global_atomics: the most global atomics")
    // STUDENT-END
}
// ANCHOR_END: privatized_worst_global_atomics

// ANCHOR: atomic_add_cas
/// 9.15: `atomicAdd` built from `atomicCAS`: adds `v` to `counters[i]` and
/// returns the old value, as `counters.atomic_add(i, v)` would.
///
/// Read the counter, then try to swap in `old + v` *if it still holds `old`*; if
/// another thread changed it in between, the CAS fails and returns the value it
/// found: retry with that. This is how every atomic the hardware lacks is built
/// (CUDA's programming guide builds `double` `atomicAdd` this way for old GPUs).
/// Under contention the retries pile up: the emulator counts them
/// (`cas_failures`).
pub fn atomic_add_cas(counters: GlobalSlice<u32>, i: u32, v: u32) -> u32 {
    // STUDENT-BEGIN 9.15
    // TODO: read the counter; try to swap in old + v only if it still holds old.
    // TODO: how do you know the swap happened, and what do you retry with if it
    // did not?
    todo!("9.15 atomic_add_cas: atomicAdd from an atomic_cas retry loop")
    // STUDENT-END
}
// ANCHOR_END: atomic_add_cas

// ANCHOR: histo_cas
/// 9.15: the grid-stride histogram of 9.3 with [`atomic_add_cas`] instead of
/// `atomic_add`.
///
/// Launch: any grid, any block, no shared memory.
#[kernel]
pub fn histo_cas(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.15
    // TODO: the grid-stride loop of 9.3, with your atomic_add_cas.
    todo!("9.15 histo_cas: the histogram of 9.3 with atomic_add_cas")
    // STUDENT-END
}
// ANCHOR_END: histo_cas

// ANCHOR: predict_cas_failures
/// 9.15, the question: how many CAS attempts fail under contention?
///
/// The launch: [`histo_cas()`] over `lanes` zero bytes (`1 <= lanes <= 32`, so
/// all in bin 0), as `<<<1, lanes>>>`: one warp, one element per lane. Return the
/// number of failed `atomic_cas` calls the emulator counts.
///
/// The emulator's rules: the lanes of the warp execute each step together; the
/// lanes of one atomic step apply in lane order, each seeing the writes of the
/// lanes before it.
#[cfg(not(target_arch = "nvptx64"))]
#[host]
pub fn predict_cas_failures(lanes: u32) -> u32 {
    // STUDENT-BEGIN 9.15
    // TODO: all lanes read the same value; in one CAS step, how many succeed and
    // how many fail? TODO: the failed ones retry with the value they got back:
    // how many rounds, how many failures?
    todo!("9.15 predict_cas_failures: failed CAS attempts of `lanes` lanes")
    // STUDENT-END
}
// ANCHOR_END: predict_cas_failures

// ANCHOR: strategy
/// A way to privatize a histogram, by where the private counters live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, HostValue)]
pub enum Strategy {
    /// Per-thread counters in registers (9.10): no atomics while counting.
    Registers,
    /// A per-block copy in shared memory (9.5, 9.14): shared atomics, commit per
    /// block.
    Shared,
    /// No private copy: global atomics straight into the bins (9.3, 9.14).
    Global,
}
// ANCHOR_END: strategy

/// Bins a private copy of `u32` counters can have in a block's default shared memory,
/// 48 KiB (a launch may opt in to more, up to 227 KiB on an H100).
pub const SHARED_BINS: u32 = gpu::hardware::DEFAULT_SHARED_LIMIT / 4;

// ANCHOR: choose_strategy
/// 9.16: which strategy for `num_bins` bins, on the GPU the chapter measured?
///
/// Return the fastest of the three for `num_bins` bins as the H100's extension
/// sweep measured them (the book's 9.16 shows the table: registers, shared memory
/// and global atomics at 8 to 4096 bins), and beyond the sweep, what still fits:
/// a private copy in shared memory needs `num_bins * 4` bytes of the block's
/// default 48 KiB ([`SHARED_BINS`] bins); a histogram with more bins has no copy
/// to keep there. `cargo run -p ch09 -- --step 9.16 --bins B` runs all three on
/// the emulator.
#[cfg(not(target_arch = "nvptx64"))]
#[host]
pub fn choose_strategy(num_bins: u32) -> Strategy {
    // STUDENT-BEGIN 9.16
    // TODO: which strategy did the H100 measure fastest, and up to how many bins
    // does it fit?
    todo!("9.16 choose_strategy: the fastest strategy the H100 measured, for num_bins")
    // STUDENT-END
}
// ANCHOR_END: choose_strategy

// ANCHOR: histo_u32_sliced
/// 9.17: `u32` input with more bins than one block's shared memory holds (16 384
/// or 65 536 bins, say): each block privatizes one *slice* of the bins, as many
/// as its dynamic shared memory has words, and counts only the values that fall
/// in that slice.
///
/// The `histo.len()` bins make `slices = ceil(histo.len() / bins.len())` slices.
/// With at least as many blocks as slices, block `b` counts slice `b % slices`
/// over chunk `b / slices` of the input (`chunks = grid / slices` chunks, read in
/// a grid-stride loop over the chunks; the `grid % slices` blocks past the last
/// whole chunk have nothing to do). With fewer blocks than slices, block `b`
/// counts slices `b`, `b + grid`, ... over the whole input, one after another.
/// Neighbouring blocks count different slices of the same chunk at about the same
/// time: DRAM serves a chunk once, the L2 cache the other `slices - 1` reads.
///
/// Launch: any grid and block, dynamic shared memory of at least one word (more
/// words, fewer slices); a grid that is a multiple of the slices keeps every
/// block busy. Values `>= histo.len()` are skipped.
#[kernel]
pub fn histo_u32_sliced(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 9.17
    // TODO: which slice and which chunk is this block's? Zero the slice's private
    // bins, count the chunk's values that fall in the slice, commit the nonzero
    // bins to `histo[first + offset]`; mind the barriers when a block counts a
    // second slice.
    todo!("9.17 histo_u32_sliced: privatize one slice of the bins per block")
    // STUDENT-END
}
// ANCHOR_END: histo_u32_sliced
