//! # Chapter 5: threads, blocks, grids and warps
//!
//! The chapter crate: the exercise registry ([`CHAPTER`]), the checks behind it, the
//! CPU references and counter models they use, the input generators, the host-side
//! launchers, and the progression that `cargo run -p ch05` prints.
//!
//! The kernels themselves live in the student's `kernels` crate (`kernels/src/ch05.rs`)
//! and the reference `solutions` crate; [`kernels::Kernels`] picks one of the two. The
//! crate is built exactly as chapter 9's (`chapters/ch09`): the same registry types, CLI
//! contract, harness and device selection, so a student who knows one knows both.
//!
//! - `cargo test -p ch05` checks the student's kernels, one test per exercise;
//!   `COURSE_KERNELS=reference cargo test -p ch05` checks the references.
//! - `cargo run -p ch05` runs the progression on the emulator and prints its counters.
//! - Checks take a `&mut Device`: on the emulator they test the technique with exact
//!   counters (divergent steps, SIMT efficiency, requests, sectors, atomics, and the
//!   output in several block orders); on a GPU (this crate's `cuda` feature) the
//!   counters are absent, the technique assertions are skipped and the output is still
//!   checked. [`device`] picks the device and holds the embedded PTX; [`harness`] runs a
//!   check from a `#[test]`, each GPU check in a process of its own.
//! - `cargo run -p ch05 --release --features cuda -- bench` times 5.5's blocks-per-SM
//!   sweep and 5.6's four histogram kernels on a GPU ([`bench`](mod@bench)).

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
        concat!("ch05/", $file)
    };
}

/// The exercises of chapter 5, in the order the book teaches them.
pub static EXERCISES: [Exercise; 6] = [
    Exercise {
        id: "5.1",
        title: "from a loop to a kernel: SPMD",
        kernels: &["mul_one_block", "mul_blocks"],
        points: 10,
        hints: &[
            "The loop index becomes the thread's index: which one is it with one block, and with several? What must a thread do when its index is past the end of the arrays?",
            "One block: `let i = thread::thread_idx_x();`. Several: `thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()`, and everything inside `if i < a.len()`.",
            "`a.store(i, b.load(i).wrapping_mul(c.load(i)))`.",
        ],
        hints_by_failure: &[
            (
                Status::WrongTechnique,
                "The counters count each load and store: every element must be read and written once, by the one thread that owns it. Does some thread do more than its own element, or a loop do a kernel's work?",
            ),
            (
                Status::Race,
                "Two threads wrote the same element: with several blocks, does each thread's index include its block's offset, `block_idx_x() * block_dim_x()`?",
            ),
            (
                Status::OutOfBounds,
                "A thread whose index is past the end of the arrays must do nothing: which `if` guards its load and store?",
            ),
        ],
        needs: &[],
        book: book!("01-spmd.md"),
        check: checks::ex_5_1,
    },
    Exercise {
        id: "5.2",
        title: "2-D and 3-D indices",
        kernels: &["write_coords_2d", "write_coords_3d"],
        points: 10,
        hints: &[
            "A thread's global x comes from the x indices only, its y from the y indices only. How many elements does one row of the output hold, and which of x and y picks the row?",
            "`idx = block_idx_x * block_dim_x + thread_idx_x`, the same for y; the element is `(grid_dim_x * block_dim_x) * idy + idx`.",
            "3-D: `thread::index_3d()`, then `(height * idz + idy) * width + idx` with `height = grid_dim_y * block_dim_y`.",
        ],
        hints_by_failure: &[
            (
                Status::WrongTechnique,
                "The counters count each store: every element must be written once, by the thread whose coordinates it holds. Does some thread write more than its own?",
            ),
            (
                Status::Race,
                "Two threads wrote the same element: do x and y each combine the block index, the block size and the thread index of their own axis?",
            ),
            (
                Status::OutOfBounds,
                "Are the row length and the index built from the grid's shape (blockDim times gridDim), not from the data's?",
            ),
        ],
        needs: &[],
        book: book!("02-indexing.md"),
        check: checks::ex_5_2,
    },
    Exercise {
        id: "5.3",
        title: "grid-stride loops",
        kernels: &["mul_grid_stride", "stride_grid"],
        points: 10,
        hints: &[
            "With fewer threads than elements, how far must a thread jump so that the whole grid covers every element exactly once? And how many blocks keep every SM busy without launching more than n needs?",
            "Start at `thread::index_1d()` and add `grid_dim_x * block_dim_x` while `i < a.len()`.",
            "`(sm_count * BLOCKS_PER_SM).min(n.div_ceil(block)).max(1)`.",
        ],
        hints_by_failure: &[
            (
                Status::Race,
                "Two threads wrote the same element: does every thread start at its own global index, and jump by the whole grid (all blocks), not by one block?",
            ),
            (
                Status::WrongTechnique,
                "A grid-stride loop: every thread starts at its global index and jumps by the whole grid. Compare your loads' sectors with the table's: consecutive threads must touch consecutive elements.",
            ),
            (
                Status::TimedOut,
                "Does your loop variable grow on every iteration, by the grid's stride?",
            ),
        ],
        needs: &[],
        book: book!("03-grid-stride.md"),
        check: checks::ex_5_3,
    },
    Exercise {
        id: "5.4",
        title: "warps and divergence",
        kernels: &["classify_uniform", "warps_per_block"],
        points: 15,
        hints: &[
            "A warp runs both sides of a branch its lanes disagree on. What do all 32 lanes of one warp have in common, and how can that pick the kind of element a warp handles?",
            "`warp = t / 32`, `lane = t % 32`: warp 2p takes the even elements of the 64 from 64p, warp 2p + 1 the odd ones: `i = 64 * (warp / 2) + 2 * lane + warp % 2`, then branch on `warp % 2`.",
            "Warps per block: how many warps does a block of 33 threads need, and what do the lanes of its last warp that have no thread do?",
        ],
        hints_by_failure: &[(
            Status::WrongTechnique,
            "Divergence is counted per warp instruction: within one warp, do all 32 lanes take the same side of the branch?",
        )],
        needs: &[],
        book: book!("04-warps.md"),
        check: checks::ex_5_4,
    },
    Exercise {
        id: "5.5",
        title: "blocks run in any order",
        kernels: &["smooth"],
        points: 10,
        hints: &[
            "Can a block read a value another block writes, when you cannot know which of the two runs first? Where else can the sums go?",
            "Load the three neighbours from `src` only (0 outside it) and store the sum into `dst`: no block writes anything another block reads.",
        ],
        hints_by_failure: &[
            (
                Status::WrongTechnique,
                "The check counts loads and stores: each output element is one store, its three neighbours three loads from `src`. Does your kernel do extra passes?",
            ),
            (
                Status::Race,
                "A block reads what another block writes, and blocks run in any order: where can the results go so that no block reads another's?",
            ),
        ],
        needs: &[],
        book: book!("05-scheduling.md"),
        check: checks::ex_5_5,
    },
    Exercise {
        id: "5.6",
        title: "four histogram kernels",
        kernels: &["histo_byte", "histo_word", "histo_shared", "histo_shared_n"],
        points: 20,
        hints: &[
            "Kernel 1 counts one byte per thread; kernel 2 four bytes of one 32-bit word; kernel 3 counts into the block's own bins in shared memory first; kernel 4 gives each thread N words. Which bytes does no whole word cover, and what must every thread wait for in kernels 3 and 4?",
            "Bytes of a word: `w & 0xff`, `(w >> 8) & 0xff`, `(w >> 16) & 0xff`, `w >> 24`; `count_tail(data, |b| { ... })` counts the bytes past the last word.",
            "Kernels 3 and 4: `shared_array![u32; BINS as usize]`; zero it (thread t zeroes t, t + block, ...), `sync_threads()`, count with `bins.atomic_add`, `sync_threads()`, then add each nonzero bin with `histo.atomic_add`. Kernel 4's thread t counts word `b * block * N + r * block + t` in round r.",
        ],
        hints_by_failure: &[
            (
                Status::Race,
                "Kernels 3 and 4 share their bins between the threads of a block: which two moments must every thread wait for?",
            ),
            (
                Status::WrongTechnique,
                "Compare each kernel's counters with the table of the section: loads per byte or per word, shared atomics then one global atomic per bin and block.",
            ),
            (
                Status::BarrierError,
                "Is every `sync_threads()` reached by every thread of the block?",
            ),
        ],
        needs: &[],
        book: book!("06-histograms.md"),
        check: checks::ex_5_6,
    },
];

/// Chapter 5, for the course's tests, the grader and the progression.
pub static CHAPTER: Chapter = Chapter {
    id: "ch05",
    title: "Threads, blocks, grids and warps",
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
