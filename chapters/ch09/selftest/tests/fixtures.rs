//! The checks themselves, tested: each check must reject a kernel that gets the bins
//! right by the wrong technique (or gets them wrong), with the right status and a message
//! that says why. Each fixture is the reference table with one function replaced.
//!
//! These run against the reference kernels only (the student's stubs do not matter
//! here), so they pass on a fresh clone whatever `COURSE_KERNELS` says.

use ch09::checks::check_with;
use ch09::kernels::{Kernels, REFERENCE};
use course::{Outcome, Status};
use gpu::prelude::*;
use solutions::ch09::{NO_BIN, Strategy, byte_bin, lane_counter};

/// Runs the check of `id` on `k` on the emulator ([`chapter::check_tests::run_on_emulator`]).
fn run(id: &str, k: Kernels) -> Outcome {
    chapter::check_tests::run_on_emulator(check_with, id, k)
}

/// Asserts the outcome's status and that its reason mentions `says`.
fn expect(out: Outcome, status: Status, says: &str) {
    assert_eq!(
        out.status,
        status,
        "{}: {}\n{}",
        out.exercise,
        out.reason,
        out.details.join("\n")
    );
    assert!(
        out.reason.contains(says),
        "{}: `{}` does not say `{says}`",
        out.exercise,
        out.reason
    );
    chapter::check_tests::assert_hint_answers(&ch09::CHAPTER, &out);
    assert_one_seed(&out);
}

/// A failure names one seed, the one that replays it (`COURSE_SEED=2009`): no input's
/// description shows a seed of its own (9.9's "n = 4099, seed 6108" did).
fn assert_one_seed(out: &Outcome) {
    let text = format!("{}\n{}", out.reason, out.details.join("\n"));
    let mut seeds: Vec<&str> = Vec::new();
    for (i, _) in text
        .match_indices("seed ")
        .chain(text.match_indices("SEED="))
    {
        let digits = &text[i + 5..];
        let end = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        if end > 0 {
            seeds.push(&digits[..end]);
        }
    }
    seeds.sort_unstable();
    seeds.dedup();
    assert!(
        seeds.len() <= 1,
        "{}: seeds {seeds:?} in\n{text}",
        out.exercise
    );
}

// The registry's own tests: hints for the failures the reference can meet, a test and
// a progression step for every exercise.
chapter::registry_tests!(ch09);

#[test]
fn the_strategy_pass_reason_ends_with_a_measurement() {
    let out = run("9.16", REFERENCE);
    assert!(out.passed(), "{}", out.reason);
    let reason = out.reason.trim_end();
    assert!(
        !reason.ends_with(';') && !reason.contains(";;") && !reason.contains(": ;"),
        "{reason}"
    );
    assert!(reason.contains("measured: 8 bins: "), "{reason}");
    assert!(reason.contains("; 4096 bins: "), "{reason}");
}

#[test]
fn the_reference_passes_through_check_with() {
    for id in ch09::progression::STEPS {
        chapter::check_tests::assert_passed(id, &run(id, REFERENCE));
    }
}

// 9.1 ----------------------------------------------------------------------------------

fn sequential_off_by_one(data: &[u8]) -> [u32; 256] {
    let mut h = [0u32; 256];
    for &b in data.iter().skip(1) {
        h[b as usize] += 1;
    }
    h
}

fn letters_with_uppercase(text: &[u8], per_bin: u32) -> [u32; 26] {
    let mut h = [0u32; 26];
    for c in text
        .iter()
        .map(|c| c.to_ascii_lowercase())
        .filter(u8::is_ascii_lowercase)
    {
        h[((c - b'a') as u32 / per_bin) as usize] += 1;
    }
    h
}

#[test]
fn sequential_mistakes_are_wrong_results() {
    expect(
        run(
            "9.1",
            Kernels {
                histogram_sequential: sequential_off_by_one,
                ..REFERENCE
            },
        ),
        Status::WrongResult,
        "wrong",
    );
    expect(
        run(
            "9.1",
            Kernels {
                letter_histogram: letters_with_uppercase,
                ..REFERENCE
            },
        ),
        Status::WrongResult,
        "wrong",
    );
}

// 9.2 ----------------------------------------------------------------------------------

#[kernel]
fn naive_with_atomics(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < data.len() {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
    }
}

fn predict_wrong() -> u32 {
    150
}

#[test]
fn the_naive_kernel_must_race_and_the_prediction_must_match() {
    expect(
        run(
            "9.2",
            Kernels {
                histo_naive: naive_with_atomics::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "without",
    );
    let out = run(
        "9.2",
        Kernels {
            predict_naive_count: predict_wrong,
            ..REFERENCE
        },
    );
    expect(
        out.clone(),
        Status::WrongResult,
        "predict_naive_count() returned 150",
    );
    assert!(
        !out.reason.contains(" 3"),
        "the message must not give the answer away: {}",
        out.reason
    );
}

// 9.3 ----------------------------------------------------------------------------------

#[kernel]
fn atomic_one_per_thread(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < data.len() {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
    }
}

#[kernel]
fn atomic_contiguous(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let threads = thread::grid_stride_x();
    let per_thread = data.len().div_ceil(threads);
    let start = thread::index_1d() * per_thread;
    let mut i = start;
    while i < data.len() && i < start + per_thread {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += 1;
    }
}

#[test]
fn global_atomics_need_the_grid_stride_loop_and_interleaving() {
    expect(
        run(
            "9.3",
            Kernels {
                histo_atomic: atomic_one_per_thread::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongResult,
        "wrong",
    );
    expect(
        run(
            "9.3",
            Kernels {
                histo_atomic: atomic_contiguous::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "interleaved",
    );
}

// 9.4 ----------------------------------------------------------------------------------

#[kernel]
fn global_without_copies(data: GlobalSlice<u8>, histo: GlobalSlice<u32>, num_bins: u32) {
    let mut i = thread::index_1d();
    while i < data.len() {
        histo.atomic_add(byte_bin(data.load(i), num_bins), 1);
        i += thread::grid_stride_x();
    }
}

/// 9.4 without the barrier before the commit: a block adds its copy to copy 0 while
/// its threads are still counting into it (a student's kernel).
#[kernel]
fn global_commit_without_barrier(data: GlobalSlice<u8>, histo: GlobalSlice<u32>, num_bins: u32) {
    let block = thread::block_idx_x();
    let private = block * num_bins;
    let mut i = thread::index_1d();
    while i < data.len() {
        histo.atomic_add(private + byte_bin(data.load(i), num_bins), 1);
        i += thread::grid_stride_x();
    }
    if block > 0 {
        let mut bin = thread::thread_idx_x();
        while bin < num_bins {
            let count = histo.load(private + bin);
            if count > 0 {
                histo.atomic_add(bin, count);
            }
            bin += thread::block_dim_x();
        }
    }
}

#[test]
fn global_privatization_needs_per_block_copies() {
    expect(
        run(
            "9.4",
            Kernels {
                histo_private_global: global_without_copies::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "private copy",
    );
}

#[test]
fn a_commit_before_the_barrier_is_a_wrong_commit() {
    let out = run(
        "9.4",
        Kernels {
            histo_private_global: global_commit_without_barrier::KERNEL,
            ..REFERENCE
        },
    );
    expect(out.clone(), Status::WrongResult, "wrong");
    assert_eq!(out.kind.as_deref(), Some("commit"), "{out:?}");
    assert!(
        out.details
            .iter()
            .any(|d| d.contains("private copy is right")),
        "{:?}",
        out.details
    );
    let e = ch09::CHAPTER.exercise("9.4").unwrap();
    let first = e.first_hint(e.failure_of(&out));
    assert!(
        first.contains("barrier") && first.contains("once"),
        "{first}"
    );
}

// 9.5 ----------------------------------------------------------------------------------

#[kernel]
fn shared_not_zeroed(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; 256];
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += thread::grid_stride_x();
    }
    thread::sync_threads();
    let mut b = thread::thread_idx_x();
    while b < histo.len() {
        histo.atomic_add(b, bins.load(b));
        b += thread::block_dim_x();
    }
}

/// 9.5 without the barrier between counting and committing: a thread commits a bin that
/// other threads of its block may still be counting into.
#[kernel]
fn shared_no_second_barrier(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; 256];
    let mut b = thread::thread_idx_x();
    while b < histo.len() {
        bins.store(b, 0);
        b += thread::block_dim_x();
    }
    thread::sync_threads();
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += thread::grid_stride_x();
    }
    let mut b = thread::thread_idx_x();
    while b < histo.len() {
        histo.atomic_add(b, bins.load(b));
        b += thread::block_dim_x();
    }
}

#[kernel]
fn shared_no_first_barrier(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; 256];
    let mut b = thread::thread_idx_x();
    while b < histo.len() {
        bins.store(b, 0);
        b += thread::block_dim_x();
    }
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += thread::grid_stride_x();
    }
    thread::sync_threads();
    let mut b = thread::thread_idx_x();
    while b < histo.len() {
        histo.atomic_add(b, bins.load(b));
        b += thread::block_dim_x();
    }
}

/// The right counters and the right bins, but each pair of neighbouring lanes swaps its
/// bytes through a shuffle and counts the other's: every byte is counted once, in the
/// block's shared bins, by a thread that did not load it.
#[kernel]
fn shared_swapped_bytes(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; 256];
    let n = histo.len();
    let mut b = thread::thread_idx_x();
    while b < n {
        bins.store(b, 0);
        b += thread::block_dim_x();
    }
    thread::sync_threads();
    let mut i = thread::index_1d();
    let mut first = i - warp::lane_id();
    while first < data.len() {
        let mine = if i < data.len() {
            byte_bin(data.load(i), n)
        } else {
            NO_BIN
        };
        let theirs = warp::warp_shuffle_xor(warp::FULL_MASK, mine, 1, 32);
        if theirs != NO_BIN {
            bins.atomic_add(theirs, 1);
        }
        i += thread::grid_stride_x();
        first += thread::grid_stride_x();
    }
    thread::sync_threads();
    let mut b = thread::thread_idx_x();
    while b < n {
        let c = bins.load(b);
        if c > 0 {
            histo.atomic_add(b, c);
        }
        b += thread::block_dim_x();
    }
}

/// The right counters (one shared atomic per element, at most one global atomic per bin
/// and block), but thread 0 counts its whole block in a `Vec` and commits that.
#[kernel]
fn shared_counted_by_thread_0(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; 256];
    let n = histo.len();
    let mut b = thread::thread_idx_x();
    while b < n {
        bins.store(b, 0);
        b += thread::block_dim_x();
    }
    thread::sync_threads();
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add(0, 0);
        i += thread::grid_stride_x();
    }
    thread::sync_threads();
    if thread::thread_idx_x() == 0 {
        let mut counts = vec![0u32; n as usize];
        let first = thread::block_idx_x() * thread::block_dim_x();
        for t in 0..thread::block_dim_x() {
            let mut i = first + t;
            while i < data.len() {
                counts[byte_bin(data.load(i), n) as usize] += 1;
                i += thread::grid_stride_x();
            }
        }
        for (b, &c) in counts.iter().enumerate() {
            if c > 0 {
                histo.atomic_add(b as u32, c);
            }
        }
    }
}

#[test]
fn shared_privatization_mistakes_are_caught() {
    expect(
        run(
            "9.5",
            Kernels {
                histo_private_shared: shared_not_zeroed::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongResult,
        "initcheck",
    );
    expect(
        run(
            "9.5",
            Kernels {
                histo_private_shared: shared_no_first_barrier::KERNEL,
                ..REFERENCE
            },
        ),
        Status::Race,
        "racecheck",
    );
    // The first input that shows a missing barrier spans several warps and blocks, so the
    // failure is the race, at its line, not a wrong count on a one-warp input.
    let out = run(
        "9.5",
        Kernels {
            histo_private_shared: shared_no_second_barrier::KERNEL,
            ..REFERENCE
        },
    );
    let all = format!("{}\n{}", out.reason, out.details.join("\n"));
    assert!(
        all.contains("fixtures.rs:"),
        "the race names its line: {all}"
    );
    expect(out, Status::Race, "racecheck");
    expect(
        run(
            "9.5",
            Kernels {
                histo_private_dynamic: REFERENCE.histo_atomic,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "shared atomic lanes",
    );
}

#[test]
fn the_technique_checks_follow_the_data() {
    expect(
        run(
            "9.5",
            Kernels {
                histo_private_shared: shared_counted_by_thread_0::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        // Its `atomic_add(0, 0)`s change nothing, so the counters no longer show one shared
        // atomic per element (before, the follower caught it: "through an atomic_add
        // issued by the thread that loaded it").
        "one shared atomic_add per counted element",
    );
    expect(
        run(
            "9.5",
            Kernels {
                histo_private_shared: shared_swapped_bytes::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "not in the bins of those bytes",
    );
}

// 9.6 ----------------------------------------------------------------------------------

#[kernel]
fn contiguous_but_interleaved(data: GlobalSlice<u8>, histo: GlobalSlice<u32>, _coarsen: u32) {
    let bins = dynamic_shared![u32];
    solutions::ch09::init_private_bins(bins, histo.len());
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += thread::grid_stride_x();
    }
    solutions::ch09::store_output(bins, histo);
}

#[kernel]
fn interleaved_one_per_thread(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    solutions::ch09::init_private_bins(bins, histo.len());
    let i = thread::index_1d();
    if i < data.len() {
        bins.atomic_add(byte_bin(data.load(i), histo.len()), 1);
    }
    solutions::ch09::store_output(bins, histo);
}

#[test]
fn coarsening_partitions_are_told_apart() {
    expect(
        run(
            "9.6",
            Kernels {
                histo_coarse_contiguous: contiguous_but_interleaved::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "sectors",
    );
    // One element per thread on a coarsened grid misses most of the input.
    let out = run(
        "9.6",
        Kernels {
            histo_coarse_interleaved: interleaved_one_per_thread::KERNEL,
            ..REFERENCE
        },
    );
    expect(out.clone(), Status::WrongResult, "wrong");
    assert!(
        out.details.iter().any(|d| d.contains("coarsening factor")),
        "{:?}",
        out.details
    );
}

// 9.7 ----------------------------------------------------------------------------------

#[kernel]
fn aggregate_no_final_flush(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    solutions::ch09::init_private_bins(bins, histo.len());
    let (mut run_bin, mut run_len) = (NO_BIN, 0u32);
    let mut i = thread::index_1d();
    while i < data.len() {
        let bin = byte_bin(data.load(i), histo.len());
        if bin == run_bin {
            run_len += 1;
        } else {
            if run_len > 0 {
                bins.atomic_add(run_bin, run_len);
            }
            run_bin = bin;
            run_len = 1;
        }
        i += thread::grid_stride_x();
    }
    solutions::ch09::store_output(bins, histo);
}

/// 9.7 with the last run flushed whether or not the thread counted anything: a thread
/// with no element flushes `NO_BIN` (a student's kernel).
#[kernel]
fn aggregate_flushes_no_bin(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    solutions::ch09::init_private_bins(bins, histo.len());
    let (mut run_bin, mut run_len) = (NO_BIN, 0u32);
    let mut i = thread::index_1d();
    while i < data.len() {
        let bin = byte_bin(data.load(i), histo.len());
        if bin == run_bin {
            run_len += 1;
        } else {
            if run_len > 0 {
                bins.atomic_add(run_bin, run_len);
            }
            run_bin = bin;
            run_len = 1;
        }
        i += thread::grid_stride_x();
    }
    bins.atomic_add(run_bin, run_len);
    solutions::ch09::store_output(bins, histo);
}

/// Asserts that `out` is a write past the end of a buffer, of the course's kind, whose
/// first hint is about an index past the bins (not about threads without an element).
fn expect_write_past_the_bins(out: Outcome, index: &str) {
    expect(out.clone(), Status::OutOfBounds, index);
    assert_eq!(out.kind.as_deref(), Some("out_of_bounds_write"), "{out:?}");
    let e = ch09::CHAPTER.exercise(out.exercise).unwrap();
    let first = e.first_hint(e.failure_of(&out));
    assert_eq!(
        Some(first),
        course::hints::course_hint(course::hints::OUT_OF_BOUNDS_WRITE)
    );
    assert!(
        first.contains("no bin") && first.contains("off by one"),
        "{first}"
    );
}

#[test]
fn a_flushed_sentinel_is_a_write_past_the_bins() {
    expect_write_past_the_bins(
        run(
            "9.7",
            Kernels {
                histo_aggregate: aggregate_flushes_no_bin::KERNEL,
                ..REFERENCE
            },
        ),
        &format!("index {NO_BIN} is out of bounds"),
    );
}

#[test]
fn aggregation_must_aggregate_and_flush() {
    expect(
        run(
            "9.7",
            Kernels {
                histo_aggregate: REFERENCE.histo_coarse_interleaved,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "nothing was aggregated",
    );
    expect(
        run(
            "9.7",
            Kernels {
                histo_aggregate: aggregate_no_final_flush::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongResult,
        "wrong",
    );
}

// 9.8 to 9.10 --------------------------------------------------------------------------

#[kernel]
fn registers_in_shared(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; 16];
    let mut b = thread::thread_idx_x();
    while b < 16 {
        bins.store(b, 0);
        b += thread::block_dim_x();
    }
    thread::sync_threads();
    let mut i = thread::index_1d();
    while i < data.len() {
        let v = data.load(i);
        if v < histo.len() {
            bins.atomic_add(v, 1);
        }
        i += thread::grid_stride_x();
    }
    thread::sync_threads();
    let mut b = thread::thread_idx_x();
    while b < histo.len() {
        histo.atomic_add(b, bins.load(b));
        b += thread::block_dim_x();
    }
}

/// 9.9's lane columns without the vector loads: one byte per lane per load.
#[kernel]
fn lane_columns_byte_loads(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    solutions::ch09::init_private_bins(bins, 256 * 32);
    let lane = warp::lane_id();
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add(lane_counter(data.load(i) as u32, lane), 1);
        i += thread::grid_stride_x();
    }
    solutions::ch09::store_lane_columns(bins, histo);
}

/// 9.9 with its 16-byte loads and lane columns, but one vector at a time: a lane never
/// has more than one load in flight.
#[kernel]
fn lane_columns_one_vector_at_a_time(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    solutions::ch09::init_private_bins(bins, 256 * 32);
    let lane = warp::lane_id();
    let vectors = data.cast::<gpu::value::U32x4>();
    let stride = thread::grid_stride_x();
    let mut v = thread::index_1d();
    while v < vectors.len() {
        let gpu::value::U32x4(words) = vectors.load(v);
        for word in words {
            for k in 0..4 {
                bins.atomic_add(lane_counter(word >> (8 * k), lane), 1);
            }
        }
        v += stride;
    }
    let mut i = vectors.len() * 16 + thread::index_1d();
    while i < data.len() {
        bins.atomic_add(lane_counter(data.load(i) as u32, lane), 1);
        i += stride;
    }
    solutions::ch09::store_lane_columns(bins, histo);
}

/// 9.10 whose commit loop goes one bin too far (`bin <= num_bins`): lane 0 commits bin
/// 5 of 5 (a student's kernel).
#[kernel]
fn registers_commit_one_bin_too_many(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let mut counts = [0u32; 16];
    let mut i = thread::index_1d();
    while i < data.len() {
        let value = data.load(i);
        for (bin, count) in counts.iter_mut().enumerate() {
            *count += (value == bin as u32) as u32;
        }
        i += thread::grid_stride_x();
    }
    let mut bin = 0;
    while bin <= histo.len() {
        let mut total = counts
            .iter()
            .enumerate()
            .fold(0, |p, (b, &c)| if b as u32 == bin { c } else { p });
        let mut offset = 16;
        while offset > 0 {
            total += warp::warp_shuffle_down(warp::FULL_MASK, total, offset, 32);
            offset /= 2;
        }
        if warp::lane_id() == 0 {
            histo.atomic_add(bin, total);
        }
        bin += 1;
    }
}

#[test]
fn a_bin_count_off_by_one_is_a_write_past_the_bins() {
    expect_write_past_the_bins(
        run(
            "9.10",
            Kernels {
                histo_registers: registers_commit_one_bin_too_many::KERNEL,
                ..REFERENCE
            },
        ),
        "is out of bounds",
    );
}

/// 9.9 right but on inputs whose tail past the last 16-byte vector is 3 bytes long (n =
/// 4099, a size the check draws): there thread 0 counts one zero too many.
#[kernel]
fn fastest_wrong_on_a_3_byte_tail(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    use solutions::ch09::FastestPolicy;
    let bins = dynamic_shared![u32];
    solutions::ch09::init_private_bins(
        bins,
        FastestPolicy::BYTE_VALUES * FastestPolicy::LANE_COPIES,
    );
    solutions::ch09::consume_tiles(data, bins);
    if data.len() % 16 == 3 && thread::index_1d() == 0 {
        bins.atomic_add(lane_counter(0, warp::lane_id()), 1);
    }
    solutions::ch09::store_lane_columns(bins, histo);
}

#[test]
fn a_failure_names_the_seed_that_replays_it() {
    let out = run(
        "9.9",
        Kernels {
            histo_fastest: fastest_wrong_on_a_3_byte_tail::KERNEL,
            ..REFERENCE
        },
    );
    assert!(!out.passed());
    let all = out.details.join("\n");
    assert!(all.contains("n = 4099"), "{all}");
    assert!(all.contains("COURSE_SEED=2009"), "{all}");
    assert_one_seed(&out);
}

#[test]
fn warp_aggregation_fastest_and_registers_check_their_technique() {
    expect(
        run(
            "9.8",
            Kernels {
                histo_warp_aggregate: REFERENCE.histo_aggregate,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "distinct bin",
    );
    expect(
        run(
            "9.9",
            Kernels {
                histo_fastest: REFERENCE.histo_aggregate,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "bank conflicts",
    );
    // One copy of the bins, 16-byte loads: right, fast, but its atomics conflict.
    expect(
        run(
            "9.9",
            Kernels {
                histo_fastest: solutions::bench::fast_popc::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "bank conflicts",
    );
    // Lane columns, but a byte per load.
    expect(
        run(
            "9.9",
            Kernels {
                histo_fastest: lane_columns_byte_loads::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "with one 16-byte load",
    );
    expect(
        run(
            "9.9",
            Kernels {
                histo_fastest: lane_columns_one_vector_at_a_time::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "in flight",
    );
    expect(
        run(
            "9.10",
            Kernels {
                histo_registers: REFERENCE.histo_u32_global,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "global atomic lanes",
    );
    expect(
        run(
            "9.10",
            Kernels {
                histo_registers: registers_in_shared::KERNEL,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "no shared memory",
    );
}

// 9.11 to 9.14 -------------------------------------------------------------------------

fn worst_is_n(n: u32, _bins: u32, _block: u32) -> u32 {
    n
}

#[test]
fn extensions_check_privatization_and_the_question() {
    expect(
        run(
            "9.14",
            Kernels {
                histo_u32_shared: REFERENCE.histo_u32_global,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "shared",
    );
    expect(
        run(
            "9.14",
            Kernels {
                privatized_worst_global_atomics: worst_is_n,
                ..REFERENCE
            },
        ),
        Status::WrongResult,
        "privatized_worst_global_atomics",
    );
    expect(
        run(
            "9.11",
            Kernels {
                histo_rgb: REFERENCE.histo_private_dynamic,
                ..REFERENCE
            },
        ),
        Status::WrongResult,
        "wrong",
    );
}

// 9.15 and 9.16 ------------------------------------------------------------------------

fn predict_linear(lanes: u32) -> u32 {
    lanes.saturating_sub(1)
}

fn always_shared(_bins: u32) -> Strategy {
    Strategy::Shared
}

/// PMPP's rule of thumb, what a student who learnt it from the textbook writes: right for
/// older GPUs, wrong against the H100's measurements.
fn textbook_rule(bins: u32) -> Strategy {
    if bins < 16 {
        Strategy::Registers
    } else if bins <= 1024 {
        Strategy::Shared
    } else {
        Strategy::Global
    }
}

#[test]
fn cas_and_strategy_are_checked() {
    expect(
        run(
            "9.15",
            Kernels {
                histo_cas: REFERENCE.histo_atomic,
                ..REFERENCE
            },
        ),
        Status::WrongTechnique,
        "no CAS attempt failed",
    );
    expect(
        run(
            "9.15",
            Kernels {
                predict_cas_failures: predict_linear,
                ..REFERENCE
            },
        ),
        Status::WrongResult,
        "predict_cas_failures",
    );
    expect(
        run(
            "9.16",
            Kernels {
                choose_strategy: always_shared,
                ..REFERENCE
            },
        ),
        Status::WrongResult,
        "choose_strategy(12289) chose shared",
    );
    expect(
        run(
            "9.16",
            Kernels {
                choose_strategy: textbook_rule,
                ..REFERENCE
            },
        ),
        Status::WrongResult,
        "choose_strategy(1) chose registers, the H100's measurements say shared",
    );
}
