//! Bypasses of the technique checks, as a motivated student would write them: kernels
//! that get every bin right and match every counter of the technique (one shared atomic
//! per element, few global atomics, no shared memory...) without doing it. Each must
//! fail as the wrong technique, with a message that names the thread that broke the
//! chain from a loaded element to its bin (issue 37; these passed at 1123df6).
//!
//! And the other side of those checks: each exercise is judged on its own (a bug in 9.10
//! does not fail 9.16), and 9.9's loads in flight are checked in every round.
//!
//! Like the fixtures, each is the reference table with one function replaced, so they
//! pass on a fresh clone whatever `COURSE_KERNELS` says.

use ch09::checks::check_with;
use ch09::kernels::{Kernels, REFERENCE};
use course::{Outcome, Status};
use gpu::prelude::*;
use gpu::value::U32x4;
use solutions::ch09::{
    FastestPolicy, REGISTER_BINS, byte_bin, init_private_bins, lane_counter, store_lane_columns,
};

fn run(id: &str, k: Kernels) -> Outcome {
    chapter::check_tests::run_on_emulator(check_with, id, k)
}

/// The outcome is the wrong technique, its reason says every one of `says`, and the
/// hint shown first answers it.
fn wrong_technique(out: Outcome, says: &[&str]) {
    assert_eq!(
        out.status,
        Status::WrongTechnique,
        "{}: {:?}: {}\n{}",
        out.exercise,
        out.status,
        out.reason,
        out.details.join("\n")
    );
    for s in says {
        assert!(
            out.reason.contains(s),
            "{}: `{}` does not say `{s}`",
            out.exercise,
            out.reason
        );
    }
    chapter::check_tests::assert_hint_answers(&ch09::CHAPTER, &out);
}

// 9.10: one thread counts for the others, in registers --------------------------------

/// Thread 0 of the grid loads every value and counts it in its registers; every other
/// thread does nothing. No shared memory, at most one global atomic per bin: the
/// counters of register privatization.
#[kernel]
fn registers_one_thread_counts_all(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    if thread::index_1d() != 0 {
        return;
    }
    let num_bins = histo.len();
    let mut counts = [0u32; REGISTER_BINS as usize];
    let mut i = 0;
    while i < data.len() {
        let value = data.load(i);
        for (bin, count) in counts.iter_mut().enumerate() {
            *count += (value == bin as u32) as u32;
        }
        i += 1;
    }
    for (bin, &count) in counts.iter().enumerate().take(num_bins as usize) {
        if count > 0 {
            histo.atomic_add(bin as u32, count);
        }
    }
}

/// Lane 0 of each warp loads its warp's 32 values of each round and counts them in its
/// registers; the other lanes load nothing.
#[kernel]
fn registers_lane_0_counts_its_warp(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    if warp::lane_id() != 0 {
        return;
    }
    let num_bins = histo.len();
    let mut counts = [0u32; REGISTER_BINS as usize];
    let mut base = thread::index_1d();
    while base < data.len() {
        for l in 0..32 {
            if base + l < data.len() {
                let value = data.load(base + l);
                for (bin, count) in counts.iter_mut().enumerate() {
                    *count += (value == bin as u32) as u32;
                }
            }
        }
        base += thread::grid_stride_x();
    }
    for (bin, &count) in counts.iter().enumerate().take(num_bins as usize) {
        if count > 0 {
            histo.atomic_add(bin as u32, count);
        }
    }
}

/// Each lane loads its own values, but passes each to lane 0 through a shuffle, and lane
/// 0 counts its warp's values alone in its registers and commits them: the loads and
/// the commits of register privatization, the counting of one lane per warp.
#[kernel]
fn registers_gathered_by_lane_0(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let num_bins = histo.len();
    let lane = warp::lane_id();
    let mut counts = [0u32; REGISTER_BINS as usize];
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    let mut first = i - lane;
    while first < data.len() {
        let value = if i < data.len() {
            data.load(i)
        } else {
            u32::MAX
        };
        for l in 0..32 {
            let v = warp::warp_shuffle_idx(warp::FULL_MASK, value, l, 32);
            if lane == 0 {
                for (bin, count) in counts.iter_mut().enumerate() {
                    *count += (v == bin as u32) as u32;
                }
            }
        }
        i += stride;
        first += stride;
    }
    if lane == 0 {
        for (bin, &count) in counts.iter().enumerate().take(num_bins as usize) {
            if count > 0 {
                histo.atomic_add(bin as u32, count);
            }
        }
    }
}

#[test]
fn counting_for_the_grid_or_the_warp_in_registers_is_the_wrong_technique() {
    wrong_technique(
        run(
            "9.10",
            Kernels {
                histo_registers: registers_one_thread_counts_all::KERNEL,
                ..REFERENCE
            },
        ),
        &["thread 0 of block 0", "its own share"],
    );
    wrong_technique(
        run(
            "9.10",
            Kernels {
                histo_registers: registers_lane_0_counts_its_warp::KERNEL,
                ..REFERENCE
            },
        ),
        &["thread 0 of block 0", "its own share"],
    );
    wrong_technique(
        run(
            "9.10",
            Kernels {
                histo_registers: registers_gathered_by_lane_0::KERNEL,
                ..REFERENCE
            },
        ),
        &[
            "of block 0 passed a value to other lanes",
            "only its counts cross lanes",
        ],
    );
}

// 9.11 to 9.14 and 9.17: dummy shared atomics, one thread counting in a `Vec` ----------

/// 9.11 with three shared atomics per pixel (of zero, on bin 0) and one commit per
/// nonzero bin and block; thread 0 counts its block's pixels in a `Vec` and commits that.
#[kernel]
fn rgb_counted_by_thread_0(pixels: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    init_private_bins(bins, histo.len());
    let num_bins = histo.len() / 3;
    let n = pixels.len() / 3;
    let stride = thread::grid_stride_x();
    let mut p = thread::index_1d();
    while p < n {
        for _ in 0..3 {
            bins.atomic_add(0, 0);
        }
        p += stride;
    }
    thread::sync_threads();
    if thread::thread_idx_x() == 0 {
        let mut counts = vec![0u32; histo.len() as usize];
        let first = thread::block_idx_x() * thread::block_dim_x();
        for t in 0..thread::block_dim_x() {
            let mut p = first + t;
            while p < n {
                for c in 0..3 {
                    let bin = c * num_bins + byte_bin(pixels.load(3 * p + c), num_bins);
                    counts[bin as usize] += 1;
                }
                p += stride;
            }
        }
        for (bin, &c) in counts.iter().enumerate() {
            if c > 0 {
                histo.atomic_add(bin as u32, c);
            }
        }
    }
}

/// 9.12 with one shared `f32` atomic per element (of 0.0, on bin 0); thread 0 sums its
/// block's weights in a `Vec` and commits that.
#[kernel]
fn weighted_summed_by_thread_0(
    data: GlobalSlice<u8>,
    weights: GlobalSlice<f32>,
    histo: GlobalSlice<f32>,
) {
    let bins = dynamic_shared![f32];
    let num_bins = histo.len();
    let mut bin = thread::thread_idx_x();
    while bin < num_bins {
        bins.store(bin, 0.0);
        bin += thread::block_dim_x();
    }
    thread::sync_threads();
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add(0, 0.0);
        i += stride;
    }
    thread::sync_threads();
    if thread::thread_idx_x() == 0 {
        let mut sums = vec![0f32; num_bins as usize];
        let first = thread::block_idx_x() * thread::block_dim_x();
        for t in 0..thread::block_dim_x() {
            let mut i = first + t;
            while i < data.len() {
                sums[byte_bin(data.load(i), num_bins) as usize] += weights.load(i);
                i += stride;
            }
        }
        for (bin, &s) in sums.iter().enumerate() {
            if s != 0.0 {
                histo.atomic_add(bin as u32, s);
            }
        }
    }
}

/// 9.13 with one shared atomic per pair (of zero, on bin 0); thread 0 counts its block's
/// pairs in a `Vec` and commits that.
#[kernel]
fn joint_counted_by_thread_0(
    x: GlobalSlice<u8>,
    y: GlobalSlice<u8>,
    histo: GlobalSlice<u32>,
    bins_x: u32,
) {
    let bins = dynamic_shared![u32];
    init_private_bins(bins, histo.len());
    let bins_y = histo.len() / bins_x;
    let n = x.len().min(y.len());
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < n {
        bins.atomic_add(0, 0);
        i += stride;
    }
    thread::sync_threads();
    if thread::thread_idx_x() == 0 {
        let mut counts = vec![0u32; histo.len() as usize];
        let first = thread::block_idx_x() * thread::block_dim_x();
        for t in 0..thread::block_dim_x() {
            let mut i = first + t;
            while i < n {
                let bin = byte_bin(y.load(i), bins_y) * bins_x + byte_bin(x.load(i), bins_x);
                counts[bin as usize] += 1;
                i += stride;
            }
        }
        for (bin, &c) in counts.iter().enumerate() {
            if c > 0 {
                histo.atomic_add(bin as u32, c);
            }
        }
    }
}

/// 9.14's shared kernel with one shared atomic per value that is a bin (of zero, on bin
/// 0); thread 0 counts its block's values in a `Vec` and commits that.
#[kernel]
fn u32_shared_counted_by_thread_0(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        if data.load(i) < num_bins {
            bins.atomic_add(0, 0);
        }
        i += stride;
    }
    thread::sync_threads();
    if thread::thread_idx_x() == 0 {
        let mut counts = vec![0u32; num_bins as usize];
        let first = thread::block_idx_x() * thread::block_dim_x();
        for t in 0..thread::block_dim_x() {
            let mut i = first + t;
            while i < data.len() {
                let value = data.load(i);
                if value < num_bins {
                    counts[value as usize] += 1;
                }
                i += stride;
            }
        }
        for (bin, &c) in counts.iter().enumerate() {
            if c > 0 {
                histo.atomic_add(bin as u32, c);
            }
        }
    }
}

/// 9.17 with one shared atomic per value of the block's slice (of zero, on word 0);
/// thread 0 counts the slice's values of its chunk in a `Vec` and commits that.
#[kernel]
fn sliced_counted_by_thread_0(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
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
    let stride = chunks * threads;
    while slice < slices {
        let first = slice * width;
        let count = width.min(num_bins - first);
        init_private_bins(bins, count);
        let mut i = chunk * threads + thread::thread_idx_x();
        while i < data.len() {
            if data.load(i).wrapping_sub(first) < count {
                bins.atomic_add(0, 0);
            }
            i += stride;
        }
        thread::sync_threads();
        if thread::thread_idx_x() == 0 {
            let mut counts = vec![0u32; count as usize];
            for t in 0..threads {
                let mut i = chunk * threads + t;
                while i < data.len() {
                    let offset = data.load(i).wrapping_sub(first);
                    if offset < count {
                        counts[offset as usize] += 1;
                    }
                    i += stride;
                }
            }
            for (bin, &c) in counts.iter().enumerate() {
                if c > 0 {
                    histo.atomic_add(first + bin as u32, c);
                }
            }
        }
        thread::sync_threads();
        slice += slice_step;
    }
}

/// The reason of a `Vec` bypass: its adds of zero change nothing, so the counters show no
/// shared atomic that counted (before no-op atomics were counted apart, the follower
/// caught these: thread 0 loaded elements its atomics never counted).
const VEC_SAYS: [&str; 2] = ["0 shared and", "shared atomic"];

#[test]
fn one_thread_counting_behind_dummy_atomics_is_the_wrong_technique_in_every_extension() {
    wrong_technique(
        run(
            "9.11",
            Kernels {
                histo_rgb: rgb_counted_by_thread_0::KERNEL,
                ..REFERENCE
            },
        ),
        &VEC_SAYS,
    );
    wrong_technique(
        run(
            "9.12",
            Kernels {
                histo_weighted: weighted_summed_by_thread_0::KERNEL,
                ..REFERENCE
            },
        ),
        &VEC_SAYS,
    );
    wrong_technique(
        run(
            "9.13",
            Kernels {
                histo_joint: joint_counted_by_thread_0::KERNEL,
                ..REFERENCE
            },
        ),
        &VEC_SAYS,
    );
    wrong_technique(
        run(
            "9.14",
            Kernels {
                histo_u32_shared: u32_shared_counted_by_thread_0::KERNEL,
                ..REFERENCE
            },
        ),
        &VEC_SAYS,
    );
    wrong_technique(
        run(
            "9.17",
            Kernels {
                histo_u32_sliced: sliced_counted_by_thread_0::KERNEL,
                ..REFERENCE
            },
        ),
        &VEC_SAYS,
    );
}

// 9.9: four loads in flight in every round --------------------------------------------

/// 9.9 with lane columns and 16-byte loads, four in flight in its first round only, then
/// one vector at a time.
#[kernel]
fn fastest_burst_once(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    init_private_bins(
        bins,
        FastestPolicy::BYTE_VALUES * FastestPolicy::LANE_COPIES,
    );
    let lane = warp::lane_id();
    let count = |byte: u32| {
        bins.atomic_add(lane_counter(byte, lane), 1);
    };
    let count_vector = |U32x4(words): U32x4| {
        for word in words {
            for k in 0..4 {
                count((word >> (8 * k)) & 0xff);
            }
        }
    };
    let vectors = data.cast::<U32x4>();
    let n = vectors.len();
    let stride = thread::grid_stride_x();
    let mut v = thread::index_1d();
    if v < n && n - v > 3 * stride {
        let a = vectors.load(v);
        let b = vectors.load(v + stride);
        let c = vectors.load(v + 2 * stride);
        let d = vectors.load(v + 3 * stride);
        count_vector(a);
        count_vector(b);
        count_vector(c);
        count_vector(d);
        v += 4 * stride;
    }
    while v < n {
        count_vector(vectors.load(v));
        v += stride;
    }
    let mut i = n * FastestPolicy::VEC_BYTES + thread::index_1d();
    while i < data.len() {
        count(data.load(i) as u32);
        i += stride;
    }
    store_lane_columns(bins, histo);
}

#[test]
fn four_loads_in_flight_once_is_not_four_in_every_round() {
    wrong_technique(
        run(
            "9.9",
            Kernels {
                histo_fastest: fastest_burst_once::KERNEL,
                ..REFERENCE
            },
        ),
        &["in flight", "round"],
    );
}

// 9.16: judged on its own -------------------------------------------------------------

/// A 9.10 or 9.14 kernel with a bug: it counts nothing.
#[kernel]
fn counts_nothing(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let _ = (data, histo);
}

#[test]
fn a_bug_in_9_10_or_9_14_costs_those_exercises_not_9_16() {
    let broken = Kernels {
        histo_registers: counts_nothing::KERNEL,
        histo_u32_shared: counts_nothing::KERNEL,
        histo_u32_global: counts_nothing::KERNEL,
        ..REFERENCE
    };
    chapter::check_tests::assert_passed("9.16", &run("9.16", broken));
    assert_eq!(run("9.10", broken).status, Status::WrongResult);
    assert_eq!(run("9.14", broken).status, Status::WrongResult);
}

// Atomics that change nothing (issue point 3) -----------------------------------------

/// 9.14 where each thread counts its own values in a `Vec`, adds each distinct value's
/// count once, and pads with adds of zero up to one shared atomic per element.
#[kernel]
fn u32_shared_padded_with_zero_adds(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    let mut counts: Vec<(u32, u32)> = Vec::new();
    let mut elements = 0u32;
    while i < data.len() {
        let value = data.load(i);
        if value < num_bins {
            elements += 1;
            match counts.iter_mut().find(|(v, _)| *v == value) {
                Some((_, c)) => *c += 1,
                None => counts.push((value, 1)),
            }
        }
        i += stride;
    }
    for &(value, c) in &counts {
        bins.atomic_add(value, c);
    }
    for _ in counts.len() as u32..elements {
        bins.atomic_add(0, 0);
    }
    thread::sync_threads();
    let mut bin = thread::thread_idx_x();
    while bin < num_bins {
        let c = bins.load(bin);
        if c > 0 {
            histo.atomic_add(bin, c);
        }
        bin += thread::block_dim_x();
    }
}

/// 9.15 with `atomic_add` doing the add and a compare-and-swap that can never succeed
/// (no retry loop) to show failed CAS attempts.
#[kernel]
fn cas_that_cannot_succeed(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let num_bins = histo.len();
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        let bin = byte_bin(data.load(i), num_bins);
        histo.atomic_add(bin, 1);
        histo.atomic_cas(bin, u32::MAX, 0);
        i += stride;
    }
}

#[test]
fn zero_adds_padding_a_per_thread_count_are_not_one_atomic_per_element() {
    wrong_technique(
        run(
            "9.14",
            Kernels {
                histo_u32_shared: u32_shared_padded_with_zero_adds::KERNEL,
                ..REFERENCE
            },
        ),
        &["one shared atomic per counted element"],
    );
}

#[test]
fn a_cas_that_cannot_succeed_beside_an_atomic_add_is_not_a_cas_add() {
    wrong_technique(
        run(
            "9.15",
            Kernels {
                histo_cas: cas_that_cannot_succeed::KERNEL,
                ..REFERENCE
            },
        ),
        &[
            "0 successful atomic_cas swaps",
            "exactly one atomic_cas that succeeds",
        ],
    );
}

/// 9.10 where, when its lanes have few values (at most 6 each), each lane loads all of
/// them first and shuffles them one by one to lane 0, which counts the warp's values
/// alone; longer inputs are counted right. Every shuffle comes after the lane's last
/// load, so only the warp's collectives give it away.
#[kernel]
fn registers_gathered_after_loading(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let num_bins = histo.len();
    let lane = warp::lane_id();
    let stride = thread::grid_stride_x();
    let first = thread::index_1d() - lane;
    let rounds = data.len().saturating_sub(first).div_ceil(stride);
    let mut counts = [0u32; REGISTER_BINS as usize];
    let mut i = thread::index_1d();
    if rounds <= 6 {
        let mut values = [u32::MAX; 6];
        let mut k = 0;
        while i < data.len() {
            values[k] = data.load(i);
            k += 1;
            i += stride;
        }
        for l in 0..32 {
            for &value in &values {
                let v = warp::warp_shuffle_idx(warp::FULL_MASK, value, l, 32);
                for (bin, count) in counts.iter_mut().enumerate() {
                    *count += (v == bin as u32) as u32;
                }
            }
        }
        if lane == 0 {
            for (bin, &count) in counts.iter().enumerate().take(num_bins as usize) {
                if count > 0 {
                    histo.atomic_add(bin as u32, count);
                }
            }
        }
        return;
    }
    while i < data.len() {
        let value = data.load(i);
        for (bin, count) in counts.iter_mut().enumerate() {
            *count += (value == bin as u32) as u32;
        }
        i += stride;
    }
    let mut bin = 0;
    while bin < num_bins {
        let mut total = counts.iter().enumerate().fold(
            0,
            |picked, (b, &c)| if b as u32 == bin { c } else { picked },
        );
        let mut offset = 16;
        while offset > 0 {
            total += warp::warp_shuffle_down(warp::FULL_MASK, total, offset, 32);
            offset /= 2;
        }
        if lane == 0 && total > 0 {
            histo.atomic_add(bin, total);
        }
        bin += 1;
    }
}

#[test]
fn a_lane_counting_its_warps_values_after_their_loads_is_the_wrong_technique() {
    wrong_technique(
        run(
            "9.10",
            Kernels {
                histo_registers: registers_gathered_after_loading::KERNEL,
                ..REFERENCE
            },
        ),
        &["more warp collectives than a 5-shuffle reduction of each of 16 counters per warp"],
    );
}
