//! # Chapter 5: threads, blocks, grids and warps
//!
//! Before a histogram's atomics make sense (chapter 9), a kernel must find its element.
//! This chapter turns a loop into a kernel and looks at what the hardware does with the
//! threads it launches:
//!
//! | step | idea | what the counters show |
//! | --- | --- | --- |
//! | 5.1 | `a[i] = b[i] * c[i]` as a kernel: one block, then two; the tail | one store request per warp with elements; a missing bounds guard is an out-of-bounds access |
//! | 5.2 | 2-D and 3-D indices and the linear index | every element written exactly once, with its own coordinates |
//! | 5.3 | the grid-stride loop and a grid sized from the SM count | any `n` with a fixed grid; coalesced loads, sector for sector |
//! | 5.4 | warps and divergence | divergent steps and SIMT efficiency: two passes per warp, or one |
//! | 5.5 | blocks run in no fixed order | a kernel whose output depends on block order, caught by running the blocks in several orders |
//! | 5.6 | four histogram kernels | global atomics per byte, loads per word, shared atomics and commits per block |
//!
//! ## Conventions
//!
//! The host allocates every output zeroed (5.2's with a poison value, so that an element
//! no thread writes shows) and passes slices whose `len()` is the problem size: a kernel
//! never needs `n` as a separate parameter. The launch each kernel expects (grid, block)
//! is in its doc comment; the chapter crate (`chapters/ch05`) makes those launches.
//!
//! The emulator runs every `load`, `store` and atomic as an observable step of a warp,
//! so its counters show how many warp instructions a kernel issued, how many lanes were
//! active in each (SIMT efficiency), and which steps ran with part of a warp (divergence);
//! `cargo run -p ch05` prints them step by step.
#![allow(unused_variables)] // the stubs leave their parameters unused until solved

use gpu::prelude::*;

// ANCHOR: spmd_constants
/// Elements of the 5.1 loop: the 128 of the source text's example.
pub const SPMD_N: u32 = 128;
/// Threads per block of 5.1's two-block launch: two blocks of 64 cover
/// [`SPMD_N`].
pub const SPMD_HALF: u32 = 64;
// ANCHOR_END: spmd_constants

// ANCHOR: mul_sequential
/// The loop this chapter starts from, on the host: `a[i] = b[i] * c[i]` for every
/// `i`.
///
/// One thread does every iteration, one after the other. Each iteration is
/// independent of the others (it reads `b[i]`, `c[i]` and writes only `a[i]`),
/// which is exactly what lets the kernels below give each iteration a thread of
/// its own. The products wrap on overflow, as `u32` arithmetic does on the GPU.
pub fn mul_sequential(a: &mut [u32], b: &[u32], c: &[u32]) {
    for ((a, &b), &c) in a.iter_mut().zip(b).zip(c) {
        *a = b.wrapping_mul(c);
    }
}
// ANCHOR_END: mul_sequential

// ANCHOR: mul_one_block
/// 5.1: the loop as a kernel for one block: thread `i` computes `a[i] = b[i] *
/// c[i]`.
///
/// Launch: `<<<1, a.len()>>>` (one block of [`SPMD_N`] = 128 threads; a block
/// holds at most 1024). This is SPMD, single program, multiple data: every thread
/// runs the same code, and only `thread_idx_x()` tells them apart, so the loop
/// index becomes the thread index and the loop itself disappears.
#[kernel]
pub fn mul_one_block(a: GlobalSlice<u32>, b: GlobalSlice<u32>, c: GlobalSlice<u32>) {
    // STUDENT-BEGIN 5.1
    // TODO: which element does this thread own? With one block, only the thread
    // index tells the threads apart.
    todo!("5.1 mul_one_block: a[i] = b[i] * c[i] with i = thread_idx_x()")
    // STUDENT-END
}
// ANCHOR_END: mul_one_block

// ANCHOR: mul_blocks
/// 5.1: the same loop for any number of blocks, with a bounds guard for the tail.
///
/// Launch: `<<<ceil(n / block), block>>>`, e.g. two blocks of [`SPMD_HALF`] for
/// 128 elements. Thread `thread_idx_x()` of block `block_idx_x()` owns element
/// `block_idx_x() * block_dim_x() + thread_idx_x()`. When `n` is not a multiple
/// of the block, the last block has threads past the end: they must do nothing,
/// or they read and write memory that is not the arrays' (memcheck reports it; a
/// GPU may corrupt another buffer silently).
#[kernel]
pub fn mul_blocks(a: GlobalSlice<u32>, b: GlobalSlice<u32>, c: GlobalSlice<u32>) {
    // STUDENT-BEGIN 5.1
    // TODO: with several blocks, which element does thread t of block b own? when
    // n is not a multiple of the block, what must the threads past the end do?
    todo!("5.1 mul_blocks: i = block_idx_x * block_dim_x + thread_idx_x, guarded by i < n")
    // STUDENT-END
}
// ANCHOR_END: mul_blocks

// ANCHOR: pack_coords
/// The value 5.2's 2-D kernel writes at element `(x, y)`: `y << 16 | x`, so that
/// the host can read back which thread wrote where (both coordinates below
/// 65536).
#[inline(always)]
pub fn pack_xy(x: u32, y: u32) -> u32 {
    (y << 16) | x
}

/// The value 5.2's 3-D kernel writes at element `(x, y, z)`: `z << 20 | y << 10 |
/// x` (each coordinate below 1024).
#[inline(always)]
pub fn pack_xyz(x: u32, y: u32, z: u32) -> u32 {
    (z << 20) | (y << 10) | x
}

/// The value the host fills 5.2's outputs with before the launch: no element's
/// packed coordinates, so an element no thread writes shows as this.
pub const UNWRITTEN: u32 = u32::MAX;
// ANCHOR_END: pack_coords

// ANCHOR: write_coords_2d
/// 5.2: a 2-D grid of 2-D blocks, each thread writing its own coordinates.
///
/// Launch: `<<<(gx, gy), (bx, by)>>>` with `out.len() == gx * bx * gy * by`: one
/// element per thread of a `width = gx * bx` by `height = gy * by` image, stored
/// row by row. Thread `(idx, idy)` (global x and y: `block_idx * block_dim +
/// thread_idx` in each dimension) writes [`pack_xy`]`(idx, idy)` at the linear
/// index `(grid_dim_x * block_dim_x) * idy + idx`: a row holds as many elements
/// as the grid has threads in x. Swapping x and y, or a row length from the y
/// dimension, writes the wrong element, which a non-square grid shows.
#[kernel]
pub fn write_coords_2d(out: GlobalSlice<u32>) {
    // STUDENT-BEGIN 5.2
    // TODO: compute this thread's global x (idx) and y (idy) from the block and
    // thread indices. how many elements does one row hold? Store pack_xy(idx,
    // idy) at row * width + column.
    todo!("5.2 write_coords_2d: out[(grid_dim_x * block_dim_x) * idy + idx] = pack_xy(idx, idy)")
    // STUDENT-END
}
// ANCHOR_END: write_coords_2d

// ANCHOR: write_coords_3d
/// 5.2: the same in three dimensions: thread `(idx, idy, idz)` writes
/// [`pack_xyz`]`(idx, idy, idz)` at `(height * idz + idy) * width + idx`, with
/// `width = grid_dim_x * block_dim_x` and `height = grid_dim_y * block_dim_y`.
///
/// Launch: `<<<(gx, gy, gz), (bx, by, bz)>>>`, `out.len()` the grid's thread
/// count, each dimension's thread count below 1024. A volume is a stack of
/// images: z picks the image, y the row, x the element, x varying fastest (so
/// that a warp's 32 lanes, which are consecutive in x, write consecutive words).
#[kernel]
pub fn write_coords_3d(out: GlobalSlice<u32>) {
    // STUDENT-BEGIN 5.2
    // TODO: the 3-D global index, then: which image (z), which row (y), which
    // element (x)?
    todo!("5.2 write_coords_3d: out[(height * idz + idy) * width + idx] = pack_xyz(idx, idy, idz)")
    // STUDENT-END
}
// ANCHOR_END: write_coords_3d

// ANCHOR: blocks_per_sm
/// Blocks per SM that [`stride_grid`] asks for: enough resident warps per SM for
/// the scheduler to hide memory latency, few enough that every block is resident
/// at once (8 blocks of 256 threads is 2048 threads, all an H100's SM holds;
/// 5.5's bench measured 8 per SM the fastest, and 16 no faster).
pub const BLOCKS_PER_SM: u32 = 8;
// ANCHOR_END: blocks_per_sm

// ANCHOR: mul_grid_stride
/// 5.3: the loop for any `n` on a fixed grid: the grid-stride loop.
///
/// Launch: any grid, any block, e.g. `<<<stride_grid(sm_count, n, block),
/// block>>>`. The grid has `T = grid_dim_x * block_dim_x` threads; thread `t`
/// computes elements `t`, `t + T`, `t + 2T`, ... while they are below `n`. In
/// each round the lanes of a warp touch 32 consecutive elements (coalesced), and
/// the grid's size is a tuning knob instead of a function of `n`.
#[kernel]
pub fn mul_grid_stride(a: GlobalSlice<u32>, b: GlobalSlice<u32>, c: GlobalSlice<u32>) {
    // STUDENT-BEGIN 5.3
    // TODO: the grid has fewer threads than elements: where does this thread
    // start, and how far
    //       must it jump so that the whole grid covers every element exactly once?
    todo!("5.3 mul_grid_stride: a grid-stride loop over a[i] = b[i] * c[i]")
    // STUDENT-END
}
// ANCHOR_END: mul_grid_stride

// ANCHOR: stride_grid
/// 5.3: the grid for a grid-stride kernel on a device with `sm_count` SMs:
/// [`BLOCKS_PER_SM`] blocks per SM, but no more blocks than `n` elements fill
/// (one element per thread, `ceil(n / block)`), and at least one block.
///
/// Sized from the device, the grid fills every SM once whatever `n` is; a grid
/// sized from `n` alone launches millions of blocks for a large input, each
/// paying its start-up, and leaves SMs idle for a small one.
#[host]
pub fn stride_grid(sm_count: u32, n: u32, block: u32) -> u32 {
    // STUDENT-BEGIN 5.3
    // TODO: how many blocks fill every SM BLOCKS_PER_SM times, and how many does
    // n need at most?
    todo!("5.3 stride_grid: BLOCKS_PER_SM blocks per SM, at most ceil(n / block), at least 1")
    // STUDENT-END
}
// ANCHOR_END: stride_grid

// ANCHOR: classify_work
/// What 5.4's kernels do to an element at an even index: double it.
#[inline(always)]
pub fn even_work(v: u32) -> u32 {
    v.wrapping_mul(2)
}

/// What 5.4's kernels do to an element at an odd index: add one.
#[inline(always)]
pub fn odd_work(v: u32) -> u32 {
    v.wrapping_add(1)
}
// ANCHOR_END: classify_work

// ANCHOR: classify_divergent
/// 5.4, given: even elements get [`even_work`], odd ones [`odd_work`], chosen by
/// `if i % 2 == 0`: the 32 lanes of every warp disagree.
///
/// Launch: `<<<ceil(n / block), block>>>`. A warp issues one instruction for all
/// its lanes; when they disagree on a branch, it runs the `if` side with the even
/// lanes and then the `else` side with the odd ones, each at half its width. The
/// emulator counts both stores as divergent steps, and the SIMT efficiency of the
/// kernel (active lanes per warp instruction) drops below 32.
#[kernel]
pub fn classify_divergent(data: GlobalSlice<u32>, out: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < data.len() {
        let v = data.load(i);
        if i.is_multiple_of(2) {
            out.store(i, even_work(v));
        } else {
            out.store(i, odd_work(v));
        }
    }
}
// ANCHOR_END: classify_divergent

// ANCHOR: classify_half_warp
/// 5.4, given: the same work chosen by `if i % 32 < 16` (even elements get
/// [`even_work`] when in the first half of their warp...): a different branch
/// condition, the same cost. Lanes 0-15 take one side and lanes 16-31 the other,
/// so every warp still runs both sides at half width: what counts is not *which*
/// lanes disagree but *whether* any lanes of a warp do.
///
/// Launch: as [`classify_divergent()`]. Its output: `even_work(v)` where `i % 32
/// < 16`, `odd_work(v)` elsewhere.
#[kernel]
pub fn classify_half_warp(data: GlobalSlice<u32>, out: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < data.len() {
        let v = data.load(i);
        if i % 32 < 16 {
            out.store(i, even_work(v));
        } else {
            out.store(i, odd_work(v));
        }
    }
}
// ANCHOR_END: classify_half_warp

// ANCHOR: classify_uniform
/// 5.4: [`classify_divergent()`]'s output without divergence: the branch depends
/// on the *warp*, not the lane.
///
/// Launch: as [`classify_divergent()`] (`<<<ceil(n / block), block>>>`, block a
/// multiple of 64). Warps come in pairs: the threads of warp `2p` handle the 32
/// even elements of the 64 elements `64p .. 64p + 64`, those of warp `2p + 1` the
/// 32 odd ones. Every lane of a warp takes the same side of `if warp % 2 == 0`,
/// so each warp runs one side at full width: no divergent steps, 32 active lanes
/// per instruction (the tail of a length that is not a multiple of 64 aside). The
/// price: each warp reads every other word of 256 bytes, twice the sectors per
/// request of a contiguous read.
#[kernel]
pub fn classify_uniform(data: GlobalSlice<u32>, out: GlobalSlice<u32>) {
    // STUDENT-BEGIN 5.4
    // TODO: give each warp one kind of element: which 32 elements does lane l of
    // warp w handle,
    //       so that every lane of a warp takes the same side of the branch?
    todo!("5.4 classify_uniform: branch on the warp index, not the lane")
    // STUDENT-END
}
// ANCHOR_END: classify_uniform

// ANCHOR: warps_per_block
/// 5.4: how many warps a block of `threads` threads occupies.
///
/// The hardware schedules a block as whole warps of 32 lanes; a block whose size
/// is not a multiple of 32 still takes a whole last warp, with the lanes past the
/// block's end masked off for its whole life. A block of 65 threads is three
/// warps, the third with one active lane: every instruction of that warp does
/// 1/32 of the work a full one could.
#[host]
pub fn warps_per_block(threads: u32) -> u32 {
    // STUDENT-BEGIN 5.4
    // TODO: how many 32-lane warps does a block of `threads` threads need, the
    // last one partial?
    todo!("5.4 warps_per_block: whole warps for `threads` threads")
    // STUDENT-END
}
// ANCHOR_END: warps_per_block

// ANCHOR: smooth_in_place
/// 5.5, given and wrong: the 3-point sum `data[i] = data[i-1] + data[i] +
/// data[i+1]` (missing neighbours count as 0), computed in place.
///
/// Launch: `<<<ceil(n / block), block>>>`. Inside a block every thread loads its
/// three values before any thread stores, so the block alone would be right. But
/// block `b`'s first thread reads `data[i - 1]`, which belongs to block `b - 1`:
/// whether it reads the old value or the new sum depends on which block ran
/// first, and blocks run in no fixed order. The emulator runs the blocks in
/// several orders and sees the output change.
#[kernel]
pub fn smooth_in_place(data: GlobalSlice<u32>) {
    let i = thread::index_1d();
    let n = data.len();
    if i < n {
        let left = if i > 0 { data.load(i - 1) } else { 0 };
        let mid = data.load(i);
        let right = if i + 1 < n { data.load(i + 1) } else { 0 };
        data.store(i, left.wrapping_add(mid).wrapping_add(right));
    }
}
// ANCHOR_END: smooth_in_place

// ANCHOR: smooth
/// 5.5: the 3-point sum, right whatever order the blocks run in: `dst[i] =
/// src[i-1] + src[i] + src[i+1]`, neighbours outside `src` counting as 0.
///
/// Launch: `<<<ceil(n / block), block>>>`, `dst.len() == src.len()`. No block may
/// read what another block writes: with the input and the output in different
/// buffers, each thread's result depends only on the input, so any order of the
/// blocks (and any number of them running at once) gives the same output.
#[kernel]
pub fn smooth(src: GlobalSlice<u32>, dst: GlobalSlice<u32>) {
    // STUDENT-BEGIN 5.5
    // TODO: read only `src`, write only `dst`: which neighbours exist at the two
    // ends?
    todo!("5.5 smooth: dst[i] = src[i-1] + src[i] + src[i+1], out of place")
    // STUDENT-END
}
// ANCHOR_END: smooth

// ANCHOR: histo_constants
/// Bins of 5.6's histograms: one per byte value.
pub const BINS: u32 = 256;
// ANCHOR_END: histo_constants

// ANCHOR: histo_byte
/// 5.6, kernel 1: one byte per thread, one global atomic per byte.
///
/// Launch: `<<<ceil(n / block), block>>>`, `histo.len() == BINS`, zeroed. The
/// simplest histogram kernel and the slowest: every byte is a read-modify-write
/// in L2, and on a skewed input thousands of them queue on one address. A warp's
/// load is 32 bytes, one sector: the loads are cheap, the atomics are not.
#[kernel]
pub fn histo_byte(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 5.6
    // TODO: which byte does this thread own? Add 1 to its bin with a global
    // atomic.
    todo!("5.6 histo_byte: one byte per thread, histo.atomic_add(byte, 1)")
    // STUDENT-END
}
// ANCHOR_END: histo_byte

// ANCHOR: count_tail
/// 5.6: the bytes past the last whole 32-bit word (`data.len() % 4` of them),
/// counted by the threads with global index below that count, each one byte, with
/// `count` (a global or a shared atomic add, whichever the kernel uses for its
/// bytes).
///
/// Why a helper: the word kernels read four bytes per load, and a length that is
/// not a multiple of four leaves up to three bytes no word covers; forgetting
/// them is wrong on every such length. `#[track_caller]`: its load is the
/// caller's, at the caller's line, so the emulator reconverges the tail's lanes
/// where the kernel does.
#[inline(always)]
#[track_caller]
pub fn count_tail(data: GlobalSlice<u8>, count: impl Fn(u32)) {
    let words = data.len() / 4;
    let t = thread::index_1d();
    if t < data.len() - words * 4 {
        count(data.load(words * 4 + t) as u32);
    }
}
// ANCHOR_END: count_tail

// ANCHOR: histo_word
/// 5.6, kernel 2: four bytes per thread, from one 32-bit load.
///
/// Launch: `<<<max(1, ceil((n / 4) / block)), block>>>`, `histo.len() == BINS`.
/// Thread `i` loads word `i` of `data.cast::<u32>()` (one load where kernel 1
/// issued four) and adds 1 to the bins of its four bytes (`word & 0xff`, `(word
/// >> 8) & 0xff`, ...) with four global atomics; the `n % 4` bytes past the last
/// word go to [`count_tail`]. A quarter of the threads and of the load
/// instructions; the same number of atomics.
#[kernel]
pub fn histo_word(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 5.6
    // TODO: load word i of data.cast::<u32>(), count its four bytes; count_tail
    // does the rest.
    todo!("5.6 histo_word: four bytes per thread from one 32-bit load")
    // STUDENT-END
}
// ANCHOR_END: histo_word

// ANCHOR: histo_shared
/// 5.6, kernel 3: a histogram per block in shared memory: clear, barrier, count,
/// barrier, commit.
///
/// Launch: `<<<max(1, ceil((n / 4) / block)), block>>>`, `histo.len() == BINS`.
/// Each thread counts the four bytes of one word (and the tail, [`count_tail`])
/// with shared atomics into the block's 256 bins, which live on the SM: no trip
/// to L2, and only the block's own threads contend. Shared memory starts as
/// garbage, hence the clear (thread `t` zeroes bins `t`, `t + block`, ...) and a
/// barrier before counting; a second barrier before the commit, which adds each
/// *nonzero* bin to `histo` with one global atomic: at most 256 global atomics
/// per block instead of one per byte.
#[kernel]
pub fn histo_shared(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    // STUDENT-BEGIN 5.6
    // TODO: clear a shared array of BINS counters, barrier, count the word's
    // bytes with shared
    //       atomics, barrier, then add each nonzero counter to histo.
    todo!("5.6 histo_shared: clear, barrier, count in shared memory, barrier, commit")
    // STUDENT-END
}
// ANCHOR_END: histo_shared

// ANCHOR: histo_shared_n
/// 5.6, kernel 4: kernel 3 with `words_per_thread` words per thread: `N` times
/// fewer blocks, so `N` times fewer commits.
///
/// Launch: `<<<max(1, ceil((n / 4) / (block * N))), block>>>`, `histo.len() ==
/// BINS`. Block `b` counts the `block * N` words from `b * block * N`; in round
/// `r` (0 to `N - 1`) its thread `t` counts word `b * block * N + r * block + t`,
/// if it exists, so that in every round a warp reads 32 consecutive words. The
/// tail bytes go to [`count_tail`], the clear and the commit are kernel 3's: each
/// block's commit now covers `N` times as many bytes.
#[kernel]
pub fn histo_shared_n(data: GlobalSlice<u8>, histo: GlobalSlice<u32>, words_per_thread: u32) {
    // STUDENT-BEGIN 5.6
    // TODO: kernel 3, with `words_per_thread` rounds: which word does thread t
    // count in round r?
    todo!("5.6 histo_shared_n: kernel 3 with N words per thread")
    // STUDENT-END
}
// ANCHOR_END: histo_shared_n
