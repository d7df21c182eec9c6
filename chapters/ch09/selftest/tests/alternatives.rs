//! Right kernels written otherwise than the reference, as a student who never saw it
//! might: other loop shapes, other index arithmetic, another leader lane, commits that do
//! not skip empty bins. Each must pass its check: the technique checks follow the data
//! and the counters, not the reference's code.
//!
//! From 9.6 on, the kernels zero and commit their shared bins with 9.5's phases
//! (`init_private_bins`, `store_output`), as the exercises ask a student to; the count in
//! between is each alternative's own.
//!
//! Like the fixtures, these run on the reference table with one function replaced, so
//! they pass on a fresh clone whatever `COURSE_KERNELS` says.

use ch09::checks::check_with;
use ch09::kernels::{Kernels, REFERENCE};
use course::Outcome;
use gpu::prelude::*;
use gpu::value::U32x4;
use solutions::ch09::{
    FastestPolicy, REGISTER_BINS, STATIC_BINS, byte_bin, init_private_bins, store_output,
};

fn run(id: &str, k: Kernels) -> Outcome {
    chapter::check_tests::run_on_emulator(check_with, id, k)
}

fn passes(id: &str, k: Kernels) {
    chapter::check_tests::assert_passed(id, &run(id, k));
}

/// 9.3 with the index and stride spelt out, and a `loop` with a `break`.
#[kernel]
fn atomic_spelt_out(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let n = data.len();
    let stride = thread::grid_dim_x() * thread::block_dim_x();
    let mut i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    loop {
        if i >= n {
            break;
        }
        let bin = byte_bin(data.load(i), histo.len());
        histo.atomic_add(bin, 1);
        i += stride;
    }
}

/// 9.4 committing every bin, empty or not, from a `for` over a stepped range.
#[kernel]
fn private_global_every_bin(data: GlobalSlice<u8>, histo: GlobalSlice<u32>, num_bins: u32) {
    let base = thread::block_idx_x() * num_bins;
    let mut i = thread::index_1d();
    while i < data.len() {
        histo.atomic_add(base + byte_bin(data.load(i), num_bins), 1);
        i += thread::grid_stride_x();
    }
    if thread::block_idx_x() != 0 {
        thread::sync_threads();
        for bin in (thread::thread_idx_x()..num_bins).step_by(thread::block_dim_x() as usize) {
            histo.atomic_add(bin, histo.load(base + bin));
        }
    }
}

/// 9.5 (static array) with `for` loops, and a commit that does not skip empty bins.
#[kernel]
fn shared_for_loops(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; STATIC_BINS as usize];
    let (t, threads, num_bins) = (
        thread::thread_idx_x(),
        thread::block_dim_x() as usize,
        histo.len(),
    );
    for bin in (t..num_bins).step_by(threads) {
        bins.store(bin, 0);
    }
    thread::sync_threads();
    let stride = thread::grid_stride_x() as usize;
    for i in (thread::index_1d() as usize..data.len() as usize).step_by(stride) {
        bins.atomic_add(byte_bin(data.load(i as u32), num_bins), 1);
    }
    thread::sync_threads();
    for bin in (t..num_bins).step_by(threads) {
        histo.atomic_add(bin, bins.load(bin));
    }
}

/// 9.5 with the private bins rotated by one word: bin `b` counted in word `(b + 1) % n`
/// and committed from there. Any layout of a block's counters is privatization, so long
/// as each counter is committed to the bin whose bytes it counted.
#[kernel]
fn shared_rotated_layout(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; STATIC_BINS as usize];
    let n = histo.len();
    let mut b = thread::thread_idx_x();
    while b < n {
        bins.store(b, 0);
        b += thread::block_dim_x();
    }
    thread::sync_threads();
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add((byte_bin(data.load(i), n) + 1) % n, 1);
        i += thread::grid_stride_x();
    }
    thread::sync_threads();
    let mut b = thread::thread_idx_x();
    while b < n {
        let c = bins.load((b + 1) % n);
        if c > 0 {
            histo.atomic_add(b, c);
        }
        b += thread::block_dim_x();
    }
}

/// 9.6's contiguous partition with a `for` over the thread's range.
#[kernel]
fn contiguous_for(data: GlobalSlice<u8>, histo: GlobalSlice<u32>, coarsen: u32) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let first = thread::index_1d() * coarsen;
    let last = (first + coarsen).min(data.len());
    for i in first..last {
        bins.atomic_add(byte_bin(data.load(i), num_bins), 1);
    }
    store_output(bins, histo);
}

/// 9.7 with the run flushed when the next element breaks it, before it is counted.
#[kernel]
fn aggregate_flush_first(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let (mut current, mut run) = (0u32, 0u32);
    let mut i = thread::index_1d();
    while i < data.len() {
        let b = byte_bin(data.load(i), num_bins);
        if run > 0 && b != current {
            bins.atomic_add(current, run);
            run = 0;
        }
        current = b;
        run += 1;
        i += thread::grid_stride_x();
    }
    if run != 0 {
        bins.atomic_add(current, run);
    }
    store_output(bins, histo);
}

/// 9.8 with the highest lane of each group as its leader, and the active mask of the
/// lanes still in the loop (the last turn has fewer).
#[kernel]
fn warp_aggregate_highest_leader(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let lane = warp::lane_id();
    let mut i = thread::index_1d();
    while i < data.len() {
        let b = byte_bin(data.load(i), num_bins);
        let group = warp::warp_match_any(warp::activemask(), b);
        if lane == 31 - group.leading_zeros() {
            bins.atomic_add(b, group.count_ones());
        }
        i += thread::grid_stride_x();
    }
    store_output(bins, histo);
}

/// 9.10 with the counter picked by the value (an index known only at run time, which a
/// GPU keeps in local memory), and each lane committing its own counts, no shuffles.
#[kernel]
fn registers_indexed(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let num_bins = histo.len();
    let mut counts = [0u32; REGISTER_BINS as usize];
    let mut i = thread::index_1d();
    while i < data.len() {
        let v = data.load(i);
        if v < num_bins {
            counts[v as usize] += 1;
        }
        i += thread::grid_stride_x();
    }
    for (bin, &c) in counts.iter().enumerate().take(num_bins as usize) {
        if c > 0 {
            histo.atomic_add(bin as u32, c);
        }
    }
}

/// 9.15 with a CAS loop that reads the counter again after each failure.
#[kernel]
fn cas_reload(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let mut i = thread::index_1d();
    while i < data.len() {
        let bin = byte_bin(data.load(i), histo.len());
        loop {
            let seen = histo.load(bin);
            if histo.atomic_cas(bin, seen, seen + 1) == seen {
                break;
            }
        }
        i += thread::grid_stride_x();
    }
}

/// 9.11 over the bytes rather than the pixels: byte `i` is channel `i % 3` (the partial
/// pixel at the end left out), so a warp reads 32 neighbouring bytes.
#[kernel]
fn rgb_by_bytes(pixels: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    init_private_bins(bins, histo.len());
    let per_channel = histo.len() / 3;
    let bytes = pixels.len() / 3 * 3;
    let mut i = thread::index_1d();
    while i < bytes {
        let channel = i % 3;
        bins.atomic_add(
            channel * per_channel + byte_bin(pixels.load(i), per_channel),
            1,
        );
        i += thread::grid_stride_x();
    }
    store_output(bins, histo);
}

/// 9.12 committing every bin, zero sums too.
#[kernel]
fn weighted_every_bin(data: GlobalSlice<u8>, weights: GlobalSlice<f32>, histo: GlobalSlice<f32>) {
    let bins = dynamic_shared![f32];
    let (t, num_bins) = (thread::thread_idx_x(), histo.len());
    for b in (t..num_bins).step_by(thread::block_dim_x() as usize) {
        bins.store(b, 0.0);
    }
    thread::sync_threads();
    let mut i = thread::index_1d();
    while i < data.len() {
        let w = weights.load(i);
        bins.atomic_add(byte_bin(data.load(i), num_bins), w);
        i += thread::grid_stride_x();
    }
    thread::sync_threads();
    for b in (t..num_bins).step_by(thread::block_dim_x() as usize) {
        histo.atomic_add(b, bins.load(b));
    }
}

/// 9.17 with the blocks of one slice next to each other (slice-major), not interleaved.
#[kernel]
fn sliced_slice_major(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let (width, num_bins) = (bins.len(), histo.len());
    if width == 0 || num_bins == 0 {
        return;
    }
    let slices = num_bins.div_ceil(width);
    let grid = thread::grid_dim_x();
    let block = thread::block_idx_x();
    let (t, threads) = (thread::thread_idx_x(), thread::block_dim_x());
    // Each slice gets `grid / slices` blocks in a row; with fewer blocks than slices,
    // each block takes every `grid`-th slice over the whole input.
    let (first_slice, slice_step, chunk, chunks) = if grid >= slices {
        let per = grid / slices;
        (block / per, slices, block % per, per)
    } else {
        (block, grid, 0, 1)
    };
    if first_slice >= slices {
        return;
    }
    let mut slice = first_slice;
    while slice < slices {
        let lo = slice * width;
        let count = width.min(num_bins - lo);
        let mut b = t;
        while b < count {
            bins.store(b, 0);
            b += threads;
        }
        thread::sync_threads();
        let mut i = chunk * threads + t;
        while i < data.len() {
            let v = data.load(i);
            if v >= lo && v < lo + count {
                bins.atomic_add(v - lo, 1);
            }
            i += chunks * threads;
        }
        thread::sync_threads();
        let mut b = t;
        while b < count {
            let c = bins.load(b);
            if c > 0 {
                histo.atomic_add(lo + b, c);
            }
            b += threads;
        }
        thread::sync_threads();
        slice += slice_step;
    }
}

#[test]
fn global_atomics_written_otherwise_pass() {
    passes(
        "9.3",
        Kernels {
            histo_atomic: atomic_spelt_out::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn global_privatization_written_otherwise_passes() {
    passes(
        "9.4",
        Kernels {
            histo_private_global: private_global_every_bin::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn shared_privatization_written_otherwise_passes() {
    passes(
        "9.5",
        Kernels {
            histo_private_shared: shared_for_loops::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn a_rotated_layout_of_the_private_bins_passes() {
    passes(
        "9.5",
        Kernels {
            histo_private_shared: shared_rotated_layout::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn coarsening_written_otherwise_passes() {
    passes(
        "9.6",
        Kernels {
            histo_coarse_contiguous: contiguous_for::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn aggregation_written_otherwise_passes() {
    passes(
        "9.7",
        Kernels {
            histo_aggregate: aggregate_flush_first::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn warp_aggregation_with_another_leader_passes() {
    passes(
        "9.8",
        Kernels {
            histo_warp_aggregate: warp_aggregate_highest_leader::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn per_thread_counters_written_otherwise_pass() {
    passes(
        "9.10",
        Kernels {
            histo_registers: registers_indexed::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn a_cas_loop_written_otherwise_passes() {
    passes(
        "9.15",
        Kernels {
            histo_cas: cas_reload::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn a_colour_histogram_over_the_bytes_passes() {
    passes(
        "9.11",
        Kernels {
            histo_rgb: rgb_by_bytes::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn a_weighted_histogram_written_otherwise_passes() {
    passes(
        "9.12",
        Kernels {
            histo_weighted: weighted_every_bin::KERNEL,
            ..REFERENCE
        },
    );
}

#[test]
fn slices_given_to_blocks_in_another_order_pass() {
    passes(
        "9.17",
        Kernels {
            histo_u32_sliced: sliced_slice_major::KERNEL,
            ..REFERENCE
        },
    );
}

/// 9.8 with the peers found by 32 ballots, one per bit of the bin (how warp aggregation
/// was written before `__match_any_sync`, sm_70): a lane's peers are the lanes whose
/// every bit agrees with its own.
#[kernel]
fn warp_aggregate_bit_ballots(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let n = data.len();
    let lane = warp::lane_id();
    let mut i = thread::index_1d();
    let mut warp_first = i - lane;
    while warp_first < n {
        let bin = if i < n {
            byte_bin(data.load(i), num_bins)
        } else {
            solutions::ch09::NO_BIN
        };
        let mut peers = warp::FULL_MASK;
        for bit in 0..32 {
            let set = warp::warp_vote_ballot(warp::FULL_MASK, (bin >> bit) & 1 == 1);
            peers &= if (bin >> bit) & 1 == 1 { set } else { !set };
        }
        if bin != solutions::ch09::NO_BIN && lane == peers.trailing_zeros() {
            bins.atomic_add(bin, peers.count_ones());
        }
        i += thread::grid_stride_x();
        warp_first += thread::grid_stride_x();
    }
    store_output(bins, histo);
}

/// 9.8 with the peers found by shuffles and ballots: each round the lowest lane not yet
/// grouped broadcasts its bin, and the lanes holding it vote (a loop over the warp's
/// distinct bins).
#[kernel]
fn warp_aggregate_shuffle_rounds(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let n = data.len();
    let lane = warp::lane_id();
    let mut i = thread::index_1d();
    let mut warp_first = i - lane;
    while warp_first < n {
        let bin = if i < n {
            byte_bin(data.load(i), num_bins)
        } else {
            solutions::ch09::NO_BIN
        };
        let mut left = warp::FULL_MASK;
        let mut peers = 0;
        while left != 0 {
            let leader = left.trailing_zeros();
            let theirs = warp::warp_shuffle_idx(warp::FULL_MASK, bin, leader, 32);
            let same = warp::warp_vote_ballot(warp::FULL_MASK, bin == theirs);
            if bin == theirs {
                peers = same;
            }
            left &= !same;
        }
        if bin != solutions::ch09::NO_BIN && lane == peers.trailing_zeros() {
            bins.atomic_add(bin, peers.count_ones());
        }
        i += thread::grid_stride_x();
        warp_first += thread::grid_stride_x();
    }
    store_output(bins, histo);
}

/// Warp aggregation by other means is a pass (the technique checked is one shared atomic
/// per distinct bin of each warp instruction, led by one lane), and its pass message says
/// how the peers were found.
#[test]
fn warp_aggregation_without_match_any_passes_and_says_so() {
    for k in [
        warp_aggregate_bit_ballots::KERNEL,
        warp_aggregate_shuffle_rounds::KERNEL,
    ] {
        let out = run(
            "9.8",
            Kernels {
                histo_warp_aggregate: k,
                ..REFERENCE
            },
        );
        chapter::check_tests::assert_passed("9.8", &out);
        assert!(
            out.reason.contains("without warp_match_any"),
            "{}",
            out.reason
        );
    }
    let reference = run("9.8", REFERENCE);
    assert!(
        reference.reason.contains("with warp_match_any"),
        "{}",
        reference.reason
    );
}

/// 9.9 with its loads double-buffered: each round loads the next four vectors before it
/// counts the four of the round before (eight in flight at the start), and each bin's
/// column committed by a warp (one lane per counter, a shuffle reduction, lane 0 adds).
#[kernel]
fn fastest_double_buffered(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    let copies = FastestPolicy::LANE_COPIES;
    init_private_bins(bins, num_bins * copies);
    let lane = warp::lane_id();
    let count = |byte: u8| {
        bins.atomic_add(byte_bin(byte, num_bins) * copies + lane, 1);
    };
    let count_vector = |U32x4(words): U32x4| {
        for word in words {
            for k in 0..4 {
                count((word >> (8 * k)) as u8);
            }
        }
    };
    let vectors = data.cast::<U32x4>();
    let n = vectors.len();
    let stride = thread::grid_stride_x();
    let four = |v: u32| {
        [
            vectors.load(v),
            vectors.load(v + stride),
            vectors.load(v + 2 * stride),
            vectors.load(v + 3 * stride),
        ]
    };
    let mut v = thread::index_1d();
    if v < n && n - v > 3 * stride {
        let mut ready = four(v);
        v += 4 * stride;
        while v < n && n - v > 3 * stride {
            let next = four(v);
            ready.into_iter().for_each(count_vector);
            ready = next;
            v += 4 * stride;
        }
        ready.into_iter().for_each(count_vector);
    }
    while v < n {
        count_vector(vectors.load(v));
        v += stride;
    }
    let mut i = n * FastestPolicy::VEC_BYTES + thread::index_1d();
    while i < data.len() {
        count(data.load(i));
        i += stride;
    }
    // Commit: warp w sums the columns of bins w, w + warps, ...; lane l reads copy l.
    thread::sync_threads();
    let warps = thread::block_dim_x() / 32;
    let mut bin = thread::thread_idx_x() / 32;
    while bin < num_bins {
        let mut sum = bins.load(bin * copies + lane);
        let mut offset = 16;
        while offset > 0 {
            sum += warp::warp_shuffle_down(warp::FULL_MASK, sum, offset, 32);
            offset /= 2;
        }
        if lane == 0 && sum > 0 {
            histo.atomic_add(bin, sum);
        }
        bin += warps;
    }
}

/// 9.10 with a butterfly of `xor` shuffles (every lane ends with the total) and the last
/// lane committing.
#[kernel]
fn registers_butterfly(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let num_bins = histo.len();
    let mut counts = [0u32; REGISTER_BINS as usize];
    let mut i = thread::index_1d();
    while i < data.len() {
        let value = data.load(i);
        for (bin, count) in counts.iter_mut().enumerate() {
            *count += (value == bin as u32) as u32;
        }
        i += thread::grid_stride_x();
    }
    for bin in 0..num_bins {
        let mut total = counts
            .iter()
            .enumerate()
            .fold(0, |t, (b, &c)| if b as u32 == bin { c } else { t });
        for offset in [16, 8, 4, 2, 1] {
            total += warp::warp_shuffle_xor(warp::FULL_MASK, total, offset, 32);
        }
        if warp::lane_id() == 31 && total > 0 {
            histo.atomic_add(bin, total);
        }
    }
}

/// 9.11 with the channels loaded blue first, into bins written as a channel's offset.
#[kernel]
fn rgb_blue_first(pixels: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    init_private_bins(bins, histo.len());
    let per_channel = histo.len() / 3;
    let mut p = thread::index_1d();
    while p < pixels.len() / 3 {
        for c in [2, 1, 0] {
            let b = pixels.load(3 * p + c);
            bins.atomic_add(c * per_channel + byte_bin(b, per_channel), 1);
        }
        p += thread::grid_stride_x();
    }
    store_output(bins, histo);
}

/// 9.13 with `y` loaded before `x`, the bin as a row and a column, and every bin
/// committed, empty or not.
#[kernel]
fn joint_rows_first(x: GlobalSlice<u8>, y: GlobalSlice<u8>, histo: GlobalSlice<u32>, bins_x: u32) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let rows = num_bins / bins_x;
    let n = if x.len() < y.len() { x.len() } else { y.len() };
    let mut i = thread::index_1d();
    while i < n {
        let row = byte_bin(y.load(i), rows);
        let column = byte_bin(x.load(i), bins_x);
        bins.atomic_add(row * bins_x + column, 1);
        i += thread::grid_stride_x();
    }
    thread::sync_threads();
    for bin in (thread::thread_idx_x()..num_bins).step_by(thread::block_dim_x() as usize) {
        histo.atomic_add(bin, bins.load(bin));
    }
}

/// 9.14's shared kernel with `for` loops, the range test written as a `match`, and every
/// bin committed.
#[kernel]
fn u32_shared_for_loops(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let (t, threads, num_bins) = (
        thread::thread_idx_x(),
        thread::block_dim_x() as usize,
        histo.len(),
    );
    for bin in (t..num_bins).step_by(threads) {
        bins.store(bin, 0);
    }
    thread::sync_threads();
    let stride = thread::grid_stride_x() as usize;
    for i in (thread::index_1d() as usize..data.len() as usize).step_by(stride) {
        match data.load(i as u32) {
            v if v < num_bins => {
                bins.atomic_add(v, 1);
            }
            _ => {}
        }
    }
    thread::sync_threads();
    for bin in (t..num_bins).step_by(threads) {
        histo.atomic_add(bin, bins.load(bin));
    }
}

#[test]
fn the_tightened_extensions_written_otherwise_pass() {
    passes(
        "9.9",
        Kernels {
            histo_fastest: fastest_double_buffered::KERNEL,
            ..REFERENCE
        },
    );
    passes(
        "9.10",
        Kernels {
            histo_registers: registers_butterfly::KERNEL,
            ..REFERENCE
        },
    );
    passes(
        "9.11",
        Kernels {
            histo_rgb: rgb_blue_first::KERNEL,
            ..REFERENCE
        },
    );
    passes(
        "9.13",
        Kernels {
            histo_joint: joint_rows_first::KERNEL,
            ..REFERENCE
        },
    );
    passes(
        "9.14",
        Kernels {
            histo_u32_shared: u32_shared_for_loops::KERNEL,
            ..REFERENCE
        },
    );
}
