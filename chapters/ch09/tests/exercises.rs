//! The student's checks: one test per exercise of chapter 9.
//!
//! `cargo test -p ch09` runs them against your kernels (`kernels/src/ch09.rs`); each
//! failure names the exercise, what went wrong, the first hint and the book section.
//! `COURSE_KERNELS=reference cargo test -p ch09` runs them against the reference
//! solutions. `COURSE_SEED=N` replays the random inputs of a failure.
//!
//! With `--features cuda` on a machine with an NVIDIA GPU the same checks run on the GPU
//! (`COURSE_DEVICE=emulator` keeps them on the emulator), each test in a process of its
//! own: a fault in one kernel would otherwise end every other test (see `ch09::harness`).

/// Runs exercise `id` with the kernels `COURSE_KERNELS` picks, on the emulator or the GPU.
fn check(id: &str) {
    ch09::harness::check_exercise(id);
}

// One `#[test]` per exercise of `exercises.toml`, `ex_9_01_<topic>` and on (see
// `crates/records`).
include!(concat!(env!("OUT_DIR"), "/exercise_tests.rs"));
