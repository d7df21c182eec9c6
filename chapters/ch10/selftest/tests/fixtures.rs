//! The checks themselves, tested: each check must reject a kernel that gets the sum right
//! by the wrong technique (or gets it wrong), with the right status, kind and a message
//! that says why. Each fixture is the reference table with one kernel replaced.
//!
//! These run against the reference kernels only (the student's stubs do not matter
//! here), so they pass on a fresh clone whatever `COURSE_KERNELS` says.

use ch10::checks::check_with;
use ch10::kernels::{Kernels, REFERENCE};
use course::{Outcome, Status};
use gpu::prelude::*;
use solutions::ch10::{Element, MAX_BLOCK, load_or_zero, tree_sequential, warp_sum};

/// Runs the check of `id` on `k` on the emulator.
fn run(id: &str, k: Kernels) -> Outcome {
    chapter::check_tests::run_on_emulator(check_with, id, k)
}

/// Asserts the outcome's status, its kind (`None`: the status as a whole) and that its
/// reason or details mention `says`; and that its first hint answers it.
fn expect(out: Outcome, status: Status, kind: Option<&str>, says: &str) {
    let all = format!("{}\n{}", out.reason, out.details.join("\n"));
    assert_eq!(out.status, status, "{}: {all}", out.exercise);
    assert_eq!(out.kind.as_deref(), kind, "{}: {all}", out.exercise);
    assert!(
        all.contains(says),
        "{}: `{all}` does not say `{says}`",
        out.exercise
    );
    chapter::check_tests::assert_hint_answers(&ch10::CHAPTER, &out);
}

// The registry's own tests: hints for the failures the reference can meet, a test and
// a progression step for every exercise.
chapter::registry_tests!(ch10);

#[test]
fn the_reference_passes_through_check_with() {
    for e in ch10::CHAPTER.exercises {
        chapter::check_tests::assert_passed(e.id, &run(e.id, REFERENCE));
    }
}

// 10.2 and 10.3 ------------------------------------------------------------------------

/// 10.2 with an atomic: right, but not the race the step is about.
#[kernel]
fn naive_with_atomic(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < data.len() {
        sum.atomic_add(0, data.load(i));
    }
}

/// 10.3 with each thread's elements added in a register first: one atomic per thread.
#[kernel]
fn atomic_per_thread(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    let mut mine = 0u32;
    while i < data.len() {
        mine = mine.wrapping_add(data.load(i));
        i += stride;
    }
    sum.atomic_add(0, mine);
}

/// 10.3 with an atomic of 0 after every element's: the no-ops change nothing, are not
/// counted as atomics, and do not fail the check.
#[kernel]
fn atomic_dummies(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        let x = data.load(i);
        sum.atomic_add(0, x);
        sum.atomic_add(0, 0);
        i += stride;
    }
}

#[test]
fn the_race_and_the_atomics() {
    let out = run(
        "10.2",
        Kernels {
            sum_naive: naive_with_atomic::KERNEL,
            ..REFERENCE
        },
    );
    expect(out, Status::WrongTechnique, None, "without* atomics");
    let out = run(
        "10.3",
        Kernels {
            sum_atomic: atomic_per_thread::KERNEL,
            ..REFERENCE
        },
    );
    expect(
        out,
        Status::WrongTechnique,
        None,
        "the value of no element it loaded",
    );
    // Atomics of 0 change nothing: not counted, and not a failure either.
    let out = run(
        "10.3",
        Kernels {
            sum_atomic: atomic_dummies::KERNEL,
            ..REFERENCE
        },
    );
    chapter::check_tests::assert_passed("10.3", &out);
}

// 10.4 to 10.7 --------------------------------------------------------------------------

/// The tree of 10.6 where 10.4's is asked for.
#[kernel]
fn sequential_tree(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    partial.store(t, load_or_zero(data, thread::index_1d()));
    thread::sync_threads();
    tree_sequential(partial);
    if t == 0 {
        sum.atomic_add(0, partial.load(0));
    }
}

/// 10.5's index where 10.6's is asked for.
#[kernel]
fn strided_tree(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
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
}

/// Thread 0 of each block adds the block's elements alone: no tree at all.
#[kernel]
fn block_serial(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    if thread::thread_idx_x() == 0 {
        let first = thread::block_idx_x() * thread::block_dim_x();
        let mut total = 0u32;
        for i in first..first + thread::block_dim_x() {
            total = total.wrapping_add(load_or_zero(data, i));
        }
        sum.atomic_add(0, total);
    }
}

/// The tree of 10.6 without the barrier after each round.
#[kernel]
fn tree_no_round_barrier(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    partial.store(t, load_or_zero(data, thread::index_1d()));
    thread::sync_threads();
    let mut stride = thread::block_dim_x() / 2;
    while stride > 0 {
        if t < stride {
            partial.store(t, partial.load(t).wrapping_add(partial.load(t + stride)));
        }
        stride /= 2;
    }
    if t == 0 {
        sum.atomic_add(0, partial.load(0));
    }
}

/// 10.7 with each thread's run contiguous: lanes `coarsen` words apart.
#[kernel]
fn coarsened_contiguous(data: GlobalSlice<u32>, sum: GlobalSlice<u32>, coarsen: u32) {
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    let segment = thread::block_idx_x() * thread::block_dim_x() * coarsen;
    let mut mine = 0u32;
    for k in 0..coarsen {
        mine = mine.wrapping_add(load_or_zero(data, segment + t * coarsen + k));
    }
    partial.store(t, mine);
    thread::sync_threads();
    tree_sequential(partial);
    if t == 0 {
        sum.atomic_add(0, partial.load(0));
    }
}

#[test]
fn trees_that_are_not_the_steps() {
    let out = run(
        "10.4",
        Kernels {
            sum_tree_interleaved: sequential_tree::KERNEL,
            ..REFERENCE
        },
    );
    expect(
        out,
        Status::WrongTechnique,
        Some("tree_shape"),
        "does not follow the step's tree",
    );
    let out = run(
        "10.6",
        Kernels {
            sum_tree_sequential: strided_tree::KERNEL,
            ..REFERENCE
        },
    );
    expect(
        out,
        Status::WrongTechnique,
        Some("tree_shape"),
        "thread t < stride adds word t + stride into word t",
    );
    let out = run(
        "10.5",
        Kernels {
            sum_tree_strided_index: sequential_tree::KERNEL,
            ..REFERENCE
        },
    );
    expect(
        out,
        Status::WrongTechnique,
        Some("tree_shape"),
        "2 * stride * t",
    );
    let out = run(
        "10.6",
        Kernels {
            sum_tree_sequential: block_serial::KERNEL,
            ..REFERENCE
        },
    );
    expect(out, Status::WrongTechnique, None, "loaded");
    let out = run(
        "10.6",
        Kernels {
            sum_tree_sequential: tree_no_round_barrier::KERNEL,
            ..REFERENCE
        },
    );
    assert!(
        matches!(out.status, Status::Race | Status::WrongResult),
        "{:?}: {}",
        out.status,
        out.reason
    );
    let out = run(
        "10.7",
        Kernels {
            sum_coarsened: coarsened_contiguous::KERNEL,
            ..REFERENCE
        },
    );
    expect(out, Status::WrongTechnique, Some("uncoalesced"), "sectors");
}

// 10.8 and 10.9 -------------------------------------------------------------------------

/// Lane 0 gathers its warp's sums one lane at a time: 31 shuffles, not 5.
#[kernel]
fn gather_in_lane_0(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    let mut mine = 0u32;
    while i < data.len() {
        mine = mine.wrapping_add(data.load(i));
        i += stride;
    }
    let mut total = mine;
    for l in 1..32 {
        let other = warp::warp_shuffle_idx(warp::FULL_MASK, mine, l, 32);
        total = total.wrapping_add(other);
    }
    if warp::lane_id() == 0 {
        sum.atomic_add(0, total);
    }
}

/// Every lane adds its own sum: shuffles done, then ignored.
#[kernel]
fn every_lane_commits(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    let mut mine = 0u32;
    while i < data.len() {
        mine = mine.wrapping_add(data.load(i));
        i += stride;
    }
    let _ = warp_sum(mine);
    sum.atomic_add(0, mine);
}

/// 10.9 read four bytes at a time.
#[kernel]
fn fastest_narrow(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
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
}

/// 10.9's f32 kernel without the elements past the last whole vector.
#[kernel]
fn fastest_f32_no_tail(data: GlobalSlice<f32>, sum: GlobalSlice<f32>) {
    let vectors = data.cast::<gpu::value::U32x4>();
    let stride = thread::grid_stride_x();
    let mut v = thread::index_1d();
    let mut acc = 0.0f32;
    while v < vectors.len() {
        acc = solutions::ch10::add_vector(acc, vectors.load(v));
        v += stride;
    }
    let total = warp_sum(acc);
    if warp::lane_id() == 0 && total.add(0.0) != 0.0 {
        sum.atomic_add(0, total);
    }
}

#[test]
fn shuffles_and_the_fastest() {
    let out = run(
        "10.8",
        Kernels {
            sum_warp_shuffle: gather_in_lane_0::KERNEL,
            ..REFERENCE
        },
    );
    assert_eq!(out.status, Status::WrongTechnique, "{}", out.reason);
    let out = run(
        "10.8",
        Kernels {
            sum_warp_shuffle: every_lane_commits::KERNEL,
            ..REFERENCE
        },
    );
    expect(
        out,
        Status::WrongTechnique,
        Some("atomics_per_warp"),
        "in 4 warps",
    );
    let out = run(
        "10.9",
        Kernels {
            sum_fastest_u32: fastest_narrow::KERNEL,
            ..REFERENCE
        },
    );
    expect(
        out,
        Status::WrongTechnique,
        Some("narrow_loads"),
        "16-byte load",
    );
    let out = run(
        "10.9",
        Kernels {
            sum_fastest_f32: fastest_f32_no_tail::KERNEL,
            ..REFERENCE
        },
    );
    expect(out, Status::WrongResult, Some("f32_bound"), "more than the");
}

// Other right ways ---------------------------------------------------------------------

/// 10.6 with the sum kept in a register: `v += partial[t + stride]; partial[t] = v`, the
/// thread's own word never read back (the CUDA samples' `reduce4`).
#[kernel]
fn sequential_with_register(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    let mut v = load_or_zero(data, thread::index_1d());
    partial.store(t, v);
    thread::sync_threads();
    let mut stride = thread::block_dim_x() / 2;
    while stride > 0 {
        if t < stride {
            v = v.wrapping_add(partial.load(t + stride));
            partial.store(t, v);
        }
        thread::sync_threads();
        stride /= 2;
    }
    if t == 0 {
        sum.atomic_add(0, v);
    }
}

/// 10.8 with the butterfly (`warp_shuffle_xor`): every lane ends with the warp's sum, lane
/// 0 commits it.
#[kernel]
fn shuffle_butterfly(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    let mut v = 0u32;
    while i < data.len() {
        v = v.wrapping_add(data.load(i));
        i += stride;
    }
    let mut mask = 16;
    while mask > 0 {
        v = v.wrapping_add(warp::warp_shuffle_xor(warp::FULL_MASK, v, mask, 32));
        mask /= 2;
    }
    if warp::lane_id() == 0 {
        sum.atomic_add(0, v);
    }
}

#[test]
fn other_right_ways_pass() {
    let out = run(
        "10.6",
        Kernels {
            sum_tree_sequential: sequential_with_register::KERNEL,
            ..REFERENCE
        },
    );
    chapter::check_tests::assert_passed("10.6", &out);
    let out = run(
        "10.8",
        Kernels {
            sum_warp_shuffle: shuffle_butterfly::KERNEL,
            ..REFERENCE
        },
    );
    chapter::check_tests::assert_passed("10.8", &out);
}

/// 10.8 where a warp with no element skips its shuffles (a vote, the same in all its
/// lanes), and the whole grid returns on an empty input: right, fewer shuffles than five
/// a warp of the grid.
#[kernel]
fn shuffle_busy_warps_only(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    if data.is_empty() {
        return;
    }
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    let mut v = 0u32;
    while i < data.len() {
        v = v.wrapping_add(data.load(i));
        i += stride;
    }
    if warp::warp_vote_any(warp::FULL_MASK, thread::index_1d() < data.len()) {
        let total = warp_sum(v);
        if warp::lane_id() == 0 {
            sum.atomic_add(0, total);
        }
    }
}

#[test]
fn warps_with_no_element_may_skip_their_shuffles() {
    let out = run(
        "10.8",
        Kernels {
            sum_warp_shuffle: shuffle_busy_warps_only::KERNEL,
            ..REFERENCE
        },
    );
    chapter::check_tests::assert_passed("10.8", &out);
}

/// 10.2 storing its element in place of the sum plus its element: the race hides it in
/// the sum (every store may be lost), the stores do not.
#[kernel]
fn naive_stores_its_element(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < data.len() {
        let _ = sum.load(0);
        sum.store(0, data.load(i));
    }
}

/// 10.4's array filled, then thread 0 adds its words one after another: no tree.
#[kernel]
fn words_added_by_thread_0(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    partial.store(t, load_or_zero(data, thread::index_1d()));
    thread::sync_threads();
    if t == 0 {
        let mut total = 0u32;
        for w in 0..thread::block_dim_x() {
            total = total.wrapping_add(partial.load(w));
        }
        sum.atomic_add(0, total);
    }
}

#[test]
fn what_the_sum_and_the_counters_hide() {
    let out = run(
        "10.2",
        Kernels {
            sum_naive: naive_stores_its_element::KERNEL,
            ..REFERENCE
        },
    );
    expect(
        out,
        Status::WrongResult,
        None,
        "stores the sum it loaded plus its element",
    );
    let out = run(
        "10.4",
        Kernels {
            sum_tree_interleaved: words_added_by_thread_0::KERNEL,
            ..REFERENCE
        },
    );
    expect(
        out,
        Status::WrongTechnique,
        Some("tree_shape"),
        "words of the block's array in its commit",
    );
}

/// 10.7 with each run walked from its last element: right, and coalesced.
#[kernel]
fn coarsened_from_the_end(data: GlobalSlice<u32>, sum: GlobalSlice<u32>, coarsen: u32) {
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    let block = thread::block_dim_x();
    let segment = thread::block_idx_x() * block * coarsen;
    let mut mine = 0u32;
    let mut k = coarsen;
    while k > 0 {
        k -= 1;
        mine = mine.wrapping_add(load_or_zero(data, segment + k * block + t));
    }
    partial.store(t, mine);
    thread::sync_threads();
    tree_sequential(partial);
    if t == 0 {
        sum.atomic_add(0, partial.load(0));
    }
}

/// On every length up to five blocks' runs, a run walked from its end is coalesced (the
/// warp that straddles the input's end issues two steps' loads as one request on the
/// emulator), and a run of neighbouring elements per thread is not, once the input fills
/// whole warps.
#[test]
fn runs_from_the_end_are_coalesced_at_every_length() {
    let mut dev = gpu_host::Device::emulator();
    for coarsen in [2u32, 4] {
        for n in 1..=5 * 64 * coarsen as usize {
            let data = ch10::inputs::uniform(n, 1000, n as u64);
            let run = ch10::launch::sum_coarsened(
                &mut dev,
                &coarsened_from_the_end::KERNEL,
                &data,
                64,
                coarsen,
            )
            .expect("launch");
            assert_eq!(run.out, [ch10::reference::sum_u32(&data)], "n = {n}");
            let c = run.report.counters().expect("emulated");
            assert!(
                ch10::checks::coarsened_loads_coalesced(c, coarsen),
                "n = {n}, coarsen {coarsen}: {c:?}"
            );
        }
        let data = ch10::inputs::uniform(256 * coarsen as usize, 1000, 7);
        let run = ch10::launch::sum_coarsened(
            &mut dev,
            &coarsened_contiguous::KERNEL,
            &data,
            64,
            coarsen,
        )
        .expect("launch");
        let c = run.report.counters().expect("emulated");
        assert!(
            !ch10::checks::coarsened_loads_coalesced(c, coarsen),
            "contiguous runs, coarsen {coarsen}: {c:?}"
        );
    }
    let out = run(
        "10.7",
        Kernels {
            sum_coarsened: coarsened_from_the_end::KERNEL,
            ..REFERENCE
        },
    );
    chapter::check_tests::assert_passed("10.7", &out);
}

/// 10.4 without the barrier between the stores and the first round: the first five
/// rounds pair words of one warp, which the emulator's lockstep would order.
// The condition as the book writes it.
#[allow(clippy::manual_is_multiple_of)]
#[kernel]
fn interleaved_no_first_barrier(data: GlobalSlice<u32>, sum: GlobalSlice<u32>) {
    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    partial.store(t, load_or_zero(data, thread::index_1d()));
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
}

#[test]
fn a_missing_barrier_inside_a_warp_is_a_race() {
    let out = run(
        "10.4",
        Kernels {
            sum_tree_interleaved: interleaved_no_first_barrier::KERNEL,
            ..REFERENCE
        },
    );
    expect(out, Status::Race, None, "Read-after-Write");
}
