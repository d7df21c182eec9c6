//! # Chapter 9: the parallel histogram
//!
//! The chapter crate: the exercise registry ([`CHAPTER`]), the checks behind it, the
//! CPU references and input generators they use, the host-side launchers, and the
//! progression that `cargo run -p ch09` prints.
//!
//! The kernels themselves live in the student's `kernels` crate (`kernels/src/ch09.rs`)
//! and the reference `solutions` crate; [`kernels::Kernels`] picks one of the two.
//!
//! - `cargo test -p ch09` checks the student's kernels, one test per exercise;
//!   `COURSE_KERNELS=reference cargo test -p ch09` checks the references.
//! - `cargo run -p ch09` runs the progression on the emulator and prints its counters.
//! - Checks take a `&mut Device`: on the emulator they test the technique with exact
//!   counters; on a GPU (this crate's `cuda` feature) the counters are absent, the
//!   technique assertions are skipped (the pass message says so) and the bins are still
//!   checked. [`device`] picks the device and holds the embedded PTX; [`harness`] runs a
//!   check from a `#[test]`, each GPU check in a process of its own.
//! - `cargo run -p ch09 --release --features cuda -- bench` measures every step on a GPU
//!   against the read bandwidth, CUB, PyTorch and the CPU ([`bench`](mod@bench)).

#![deny(missing_docs)]

pub mod bench;
pub mod checks;
pub mod inputs;
pub mod kernels;
pub mod launch;
pub mod progression;
pub mod reference;
pub mod trace;

use course::{Chapter, Exercise, Status};

/// The book's folder of this chapter, relative to `book/src`.
macro_rules! book {
    ($file:literal) => {
        concat!("ch09/", $file)
    };
}

/// The exercises of chapter 9, in the order the book teaches them.
pub static EXERCISES: [Exercise; 17] = [
    Exercise {
        id: "9.1",
        title: "the sequential histogram",
        kernels: &["histogram_sequential", "letter_histogram"],
        points: 5,
        hints: &[
            "How many counters does a byte histogram need, what do they start at, and how many times must each byte be looked at?",
            "For letters: which bytes does PMPP count, and how far is a letter from 'a'? Divide that distance by the letters per bin.",
            "`for &c in text { if c.is_ascii_lowercase() { histo[((c - b'a') as u32 / letters_per_bin) as usize] += 1; } }`",
        ],
        hints_by_failure: &[],
        needs: &[],
        book: book!("01-sequential.md"),
        check: checks::ex_9_1,
    },
    Exercise {
        id: "9.2",
        title: "the naive kernel and its race",
        kernels: &["histo_naive", "predict_naive_count"],
        points: 10,
        hints: &[
            "Which element does each thread own, and what does `histo[bin] = histo[bin] + 1` look like with only `load` and `store`? (No atomics: the race is the lesson.)",
            "For the prediction: all lanes of a warp load in the same step, and the warps of a block take turns step by step. Does any warp of a block store before every warp has loaded?",
            "So how many of a block's increments of one bin can survive, and does the answer depend on the block's size or on the number of blocks?",
        ],
        hints_by_failure: &[(
            Status::WrongTechnique,
            "This kernel must lose updates: it is the race the chapter starts from. Which operation did you use that cannot lose one, and what do plain `load` and `store` do instead?",
        )],
        needs: &[],
        book: book!("02-naive.md"),
        check: checks::ex_9_2,
    },
    Exercise {
        id: "9.3",
        title: "global atomics in a grid-stride loop",
        kernels: &["histo_atomic"],
        points: 10,
        hints: &[
            "With fewer threads than elements, how far must a thread jump so that the whole grid covers every element exactly once? And which operation adds 1 without losing an update?",
            "Start at `thread::index_1d()`, step by `thread::grid_stride_x()` while in range, and count with `histo.atomic_add(byte_bin(data.load(i), histo.len()), 1)`.",
        ],
        hints_by_failure: &[
            (
                Status::WrongTechnique,
                "Which threads issue the atomics, and on which elements? Each thread must count, with its own `atomic_add`, exactly the elements its grid-stride loop visits: i, i + stride, ...",
            ),
            (
                Status::TimedOut,
                "Does your loop variable grow on every iteration, by the grid's stride?",
            ),
        ],
        needs: &[],
        book: book!("03-global-atomics.md"),
        check: checks::ex_9_3,
    },
    Exercise {
        id: "9.4",
        title: "privatization in global memory",
        kernels: &["histo_private_global"],
        points: 10,
        hints: &[
            "Where does block b's own copy of the bins start in `histo`, and when is that copy complete enough to add into copy 0?",
            "Count into `histo[b * num_bins + bin]` with the loop of 9.3; then, inside `if block > 0`, `thread::sync_threads()` and add each nonzero count of your copy to `histo[bin]` (thread t takes bins t, t + blockDim, ...).",
        ],
        hints_by_failure: &[
            (
                Status::Race,
                "Block 0 reads the other blocks' copies while they may still be counting into them. Which barrier tells it that a copy is complete, and does a barrier wait for other blocks at all?",
            ),
            (
                Status::WrongTechnique,
                "Where does each block count: into its own copy at `histo[b * num_bins ..]`, or into copy 0? The counters show where the atomics landed.",
            ),
        ],
        needs: &[],
        book: book!("04-global-privatization.md"),
        check: checks::ex_9_4,
    },
    Exercise {
        id: "9.5",
        title: "privatization in shared memory",
        kernels: &[
            "histo_private_shared",
            "init_private_bins",
            "store_output",
            "histo_private_dynamic",
        ],
        points: 15,
        hints: &[
            "What does shared memory hold before you write it, and which two moments must every thread of the block wait for?",
            "Three phases: zero the bins (thread t zeroes t, t + blockDim, ...), `sync_threads()`; count with `bins.atomic_add`; `sync_threads()`, then one global atomic per nonzero bin.",
            "`shared_array![u32; STATIC_BINS as usize]` for the static kernel, `dynamic_shared![u32]` for the dynamic one, whose handle `init_private_bins` and `store_output` take.",
        ],
        hints_by_failure: &[
            (
                Status::Race,
                "A race in shared memory: which threads read or write a bin that another thread of the block is still writing? Look for the two moments every thread must wait for: after zeroing, and after counting.",
            ),
            (
                Status::WrongTechnique,
                "Each byte must reach its bin through a shared `atomic_add` by the thread that loaded it, and each block must commit exactly the bins its shared atomics built: no counting in a thread's own memory, no counting for other threads.",
            ),
            (
                Status::BarrierError,
                "Is every `sync_threads()` reached by every thread of the block? A barrier inside an `if` that only some threads take is never released.",
            ),
        ],
        needs: &[],
        book: book!("05-shared-privatization.md"),
        check: checks::ex_9_5,
    },
    Exercise {
        id: "9.6",
        title: "thread coarsening: contiguous and interleaved",
        kernels: &["histo_coarse_contiguous", "histo_coarse_interleaved"],
        points: 10,
        hints: &[
            "The grid has `coarsen` times fewer threads than elements: which elements does each thread count, and which of the two partitions lets a warp's lanes read neighbouring bytes?",
            "Contiguous: thread t counts `t * coarsen .. min((t + 1) * coarsen, n)`. Interleaved: the grid-stride loop of 9.3. Keep the phases of 9.5 around either loop.",
            "Compare the two with `cargo run -p ch09 -- --step 9.6`: look at the global sectors.",
        ],
        hints_by_failure: &[
            (
                Status::Race,
                "The phases of 9.5 still need their two barriers around the loop: which one is missing?",
            ),
            (
                Status::WrongTechnique,
                "Look at the global load sectors of the two kernels: contiguous threads read bytes `coarsen` apart, interleaved threads read neighbouring bytes. Which of your two loops visits which elements?",
            ),
        ],
        needs: &["9.5"],
        book: book!("06-coarsening.md"),
        check: checks::ex_9_6,
    },
    Exercise {
        id: "9.7",
        title: "aggregation of runs",
        kernels: &["histo_aggregate"],
        points: 10,
        hints: &[
            "Which two registers describe the run of equal bins a thread is building, and when must that run be flushed? Is a run left over when the loop ends?",
            "Start with `run_bin = NO_BIN`, `run_len = 0`. Same bin: `run_len += 1`. Another bin: flush the run with one `bins.atomic_add(run_bin, run_len)` if it is not empty, then start a run of 1.",
            "After the loop, flush the last run too.",
        ],
        hints_by_failure: &[
            (
                Status::Race,
                "The run-length loop changes nothing about the phases: which of 9.5's barriers is missing?",
            ),
            (
                Status::WrongTechnique,
                "A run of equal bins must reach shared memory as one `atomic_add(run_bin, run_len)`: how many shared atomics does your kernel issue on input made of long runs?",
            ),
        ],
        needs: &["9.5"],
        book: book!("07-aggregation.md"),
        check: checks::ex_9_7,
    },
    Exercise {
        id: "9.8",
        title: "warp aggregation with match_any",
        kernels: &["histo_warp_aggregate"],
        points: 15,
        hints: &[
            "A warp collective must be reached by every lane of the warp, the same number of times: what loop condition is the same for the whole warp, and what does a lane without an element contribute?",
            "Loop while `i - warp::lane_id() < n` (the warp's first lane has an element); past the end use `NO_BIN`. `let peers = warp::warp_match_any(warp::FULL_MASK, bin);`",
            "The lane with `lane_id() == peers.trailing_zeros()` adds `peers.count_ones()` for all its peers (unless the bin is `NO_BIN`).",
        ],
        hints_by_failure: &[
            (
                Status::Race,
                "Which of 9.5's barriers is missing around the warp-aggregated loop?",
            ),
            (
                Status::WrongTechnique,
                "One lane per group of peers adds the group's count: is it exactly one lane (the lowest in `peers`) that issues the atomic, with `peers.count_ones()`?",
            ),
            (
                Status::BarrierError,
                "`warp_match_any` must be reached by every lane the mask names, the same number of times: is your loop's condition the same for the whole warp?",
            ),
        ],
        needs: &["9.5"],
        book: book!("08-warp-aggregation.md"),
        check: checks::ex_9_8,
    },
    Exercise {
        id: "9.9",
        title: "the fastest kernel",
        kernels: &["consume_tiles", "histo_fastest"],
        points: 20,
        hints: &[
            "A shared atomic instruction takes one pass per distinct word in its busiest bank: where must lane `l`'s counters live so that its 32 lanes never share a bank, whatever bytes they count? And how many bytes can one lane load at once?",
            "Counter `byte_bin(b, num_bins) * FastestPolicy::LANE_COPIES + warp::lane_id()` (a column of 32 counters per bin: lane `l` is always in bank `l`), `atomic_add(.., 1)`. `let vectors = data.cast::<U32x4>();` has `n / 16` vectors: grid-stride, four loads before you count any, while `n - v > 3 * stride`; then the rest one at a time, 4 bytes per word (`(word >> (8 * k)) as u8`).",
            "Then the tail `vectors.len() * 16 + index_1d()` grid-stride with a bounds check. `histo_fastest` is `init_private_bins(bins, num_bins * FastestPolicy::LANE_COPIES)`, `consume_tiles`, `store_lane_columns`.",
        ],
        hints_by_failure: &[
            (
                Status::Race,
                "Which barrier is missing: after zeroing the lane columns, or before committing them?",
            ),
            (
                Status::WrongTechnique,
                "Two things are checked: lane l counts only into its own column (bank l), and each lane has four 16-byte loads in flight before it counts any of them. Which of the two does your kernel miss?",
            ),
        ],
        needs: &["9.5"],
        book: book!("09-fastest.md"),
        check: checks::ex_9_9,
    },
    Exercise {
        id: "9.10",
        title: "register privatization for few bins",
        kernels: &["histo_registers"],
        points: 10,
        hints: &[
            "A register cannot be indexed at run time: how do you add 1 to counter `value` of a 16-counter array using only compile-time indices? And how does a warp add up one counter across its lanes?",
            "`for (b, c) in counts.iter_mut().enumerate() { *c += (value == b as u32) as u32; }` keeps the array in registers.",
            "Commit bin b (b < histo.len()) by summing it with `warp::warp_shuffle_down(warp::FULL_MASK, total, offset, 32)` for offsets 16, 8, 4, 2, 1; lane 0 adds the total with one global atomic.",
        ],
        hints_by_failure: &[
            (
                Status::WrongTechnique,
                "The counters must stay in registers: no shared or global atomic per element, one shuffle reduction per bin and one global atomic per warp and bin.",
            ),
            (
                Status::BarrierError,
                "Is every shuffle reached by all 32 lanes? A shuffle inside a branch some lanes skip never completes.",
            ),
        ],
        needs: &[],
        book: book!("10-register-privatization.md"),
        check: checks::ex_9_10,
    },
    Exercise {
        id: "9.11",
        title: "the RGB histogram",
        kernels: &["histo_rgb"],
        points: 10,
        hints: &[
            "Which three bytes make pixel p, and where do the green and blue bins start in `histo`?",
            "Channel c's bins start at `c * num_bins` with `num_bins = histo.len() / 3`; `init_private_bins` and `store_output` work unchanged on all `histo.len()` bins.",
        ],
        hints_by_failure: &[
            (Status::Race, "Which of 9.5's two barriers is missing?"),
            (
                Status::WrongTechnique,
                "Each of the three channels counts into its own block of bins in shared memory, then commits once per nonzero bin: where do your atomics go?",
            ),
        ],
        needs: &["9.5"],
        book: book!("11-rgb.md"),
        check: checks::ex_9_11,
    },
    Exercise {
        id: "9.12",
        title: "the weighted histogram",
        kernels: &["histo_weighted"],
        points: 10,
        hints: &[
            "What does element i add to its bin, and which type do the private bins hold?",
            "`dynamic_shared![f32]`: zero it with `0.0`, barrier, `bins.atomic_add(bin, weights.load(i))`, barrier, then add each nonzero sum to `histo` with `histo.atomic_add`.",
        ],
        hints_by_failure: &[
            (Status::Race, "Which of 9.5's two barriers is missing?"),
            (
                Status::WrongTechnique,
                "The weights are summed in shared `f32` bins, then committed once per nonzero bin: does your kernel add each weight straight to global memory instead?",
            ),
        ],
        needs: &[],
        book: book!("12-weighted.md"),
        check: checks::ex_9_12,
    },
    Exercise {
        id: "9.13",
        title: "the 2-D joint histogram",
        kernels: &["histo_joint"],
        points: 10,
        hints: &[
            "How many bins does the y axis have, and which single bin index does the pair (x[i], y[i]) map to?",
            "`bins_y = histo.len() / bins_x`; the pair's bin is `byte_bin(y, bins_y) * bins_x + byte_bin(x, bins_x)`; the rest is 9.5's dynamic kernel over `min(x.len(), y.len())` pairs.",
        ],
        hints_by_failure: &[
            (Status::Race, "Which of 9.5's two barriers is missing?"),
            (
                Status::WrongTechnique,
                "The pair's bins are private to the block first, as in 9.5: where do your atomics go?",
            ),
        ],
        needs: &["9.5"],
        book: book!("13-joint-2d.md"),
        check: checks::ex_9_13,
    },
    Exercise {
        id: "9.14",
        title: "u32 input and up to 4096 bins",
        kernels: &[
            "histo_u32_global",
            "histo_u32_shared",
            "privatized_worst_global_atomics",
        ],
        points: 10,
        hints: &[
            "Which values are not bins? And for the question: how many of a block's bins can its elements make nonzero, with one element per thread?",
            "Both kernels skip values `>= histo.len()`: the global one is 9.3 for u32, the shared one 9.5's dynamic kernel for u32.",
            "For the question: how many elements does one block count (mind the last block), how many distinct bins can those elements make nonzero, and what do you add up over the blocks?",
        ],
        hints_by_failure: &[
            (Status::Race, "Which barrier does the shared kernel miss?"),
            (
                Status::WrongTechnique,
                "One kernel counts with global atomics only, the other privatizes in shared memory: does each do what its name says? Values at or past `histo.len()` are skipped, not clamped.",
            ),
        ],
        needs: &["9.5"],
        book: book!("14-u32-bins.md"),
        check: checks::ex_9_14,
    },
    Exercise {
        id: "9.15",
        title: "atomicAdd from atomicCAS",
        kernels: &["atomic_add_cas", "histo_cas", "predict_cas_failures"],
        points: 10,
        hints: &[
            "How do you know whether `atomic_cas` swapped, and what value do you retry with when it did not?",
            "`let mut old = counters.load(i);` then loop: `let assumed = old; old = counters.atomic_cas(i, assumed, assumed + v);` until `old == assumed`.",
            "For the prediction: when k lanes of a warp CAS the same address in one step, how many of them can succeed, and how many steps does it take until all k have?",
        ],
        hints_by_failure: &[(
            Status::WrongTechnique,
            "`atomic_add_cas` may use only `atomic_cas` to change the counter: a loop that retries with the value the failed CAS returned.",
        )],
        needs: &[],
        book: book!("15-cas-add.md"),
        check: checks::ex_9_15,
    },
    Exercise {
        id: "9.16",
        title: "choosing the strategy by bin count",
        kernels: &["choose_strategy"],
        points: 10,
        hints: &[
            "Read the H100's table in the book's 9.16: which strategy is fastest at 8 bins, at 256, at 4096? And how many u32 bins does a block's 48 KiB of shared memory hold?",
            "Shared memory was the fastest at every bin count the H100 measured, 8 to 4096; registers at none. Beyond the sweep, a private copy fits the block's default 48 KiB up to SHARED_BINS (12288) bins, and global atomics take the rest. `cargo run -p ch09 -- --step 9.16 --bins B` shows the counters.",
        ],
        hints_by_failure: &[(
            Status::WrongResult,
            "PMPP's rule of thumb (registers below 16 bins, global atomics above 1024) is what older GPUs measured; the H100's sweep in the book's 9.16 says otherwise at every bin count it tried.",
        )],
        needs: &["9.5", "9.10", "9.14"],
        book: book!("16-strategy.md"),
        check: checks::ex_9_16,
    },
    Exercise {
        id: "9.17",
        title: "more bins than shared memory holds",
        kernels: &["histo_u32_sliced"],
        points: 10,
        hints: &[
            "How many slices do the bins make when a block's private copy holds `bins.len()` of them, and which slice and which part of the input does block `b` take?",
            "`slices = histo.len().div_ceil(bins.len())`; with `grid >= slices` block `b` counts slice `b % slices` over chunk `b / slices` of `grid / slices` chunks (a grid-stride loop with stride `chunks * blockDim`); with fewer blocks, it counts slices `b, b + grid, ...` over all the data. Within a slice: 9.14's shared kernel with `value - first` as the bin.",
        ],
        hints_by_failure: &[
            (
                Status::Race,
                "Which of 9.5's two barriers is missing? And when a block counts a second slice: does each thread zero the same words it read to commit?",
            ),
            (
                Status::WrongTechnique,
                "Each value is counted by a shared atomic in the block whose slice holds it, and only once: does every block of a chunk read the chunk, and only that chunk?",
            ),
        ],
        needs: &["9.5", "9.14"],
        book: book!("17-sliced-bins.md"),
        check: checks::ex_9_17,
    },
];

/// Chapter 9, for the course's tests, the grader and the progression.
pub static CHAPTER: Chapter = Chapter {
    id: "ch09",
    title: "The parallel histogram",
    exercises: &EXERCISES,
};

/// Which device the chapter runs on, and the embedded PTX (shared by every chapter: see
/// the `chapter` crate).
pub use chapter::device;

/// Running an exercise's check from a `#[test]` (see [`harness::check_exercise`]).
pub mod harness {
    pub use chapter::harness::*;

    /// For a `#[test]`: [`chapter::harness::check_exercise`] on this chapter.
    pub fn check_exercise(id: &str) {
        chapter::harness::check_exercise(&crate::CHAPTER, id);
    }
}
