//! The student's checks: one test per exercise of chapter 10.
//!
//! `cargo test -p ch10` runs them against your kernels (`kernels/src/ch10.rs`); each
//! failure names the exercise, what went wrong, the first hint and the book section.
//! `COURSE_KERNELS=reference cargo test -p ch10` runs them against the reference
//! solutions. `COURSE_SEED=N` replays the random inputs of a failure.

/// Runs exercise `id` with the kernels `COURSE_KERNELS` picks, on the emulator or the GPU.
fn check(id: &str) {
    ch10::harness::check_exercise(id);
}

// One `#[test]` per exercise of `exercises.toml`, `ex_10_01_<topic>` and on (see
// `crates/records`).
include!(concat!(env!("OUT_DIR"), "/exercise_tests.rs"));
