//! The student's checks: one test per exercise of chapter 5.
//!
//! `cargo test -p ch05` runs them against your kernels (`kernels/src/ch05.rs`); each
//! failure names the exercise, what went wrong, the first hint and the book section.
//! `COURSE_KERNELS=reference cargo test -p ch05` runs them against the reference
//! solutions. `COURSE_SEED=N` replays the random inputs of a failure.
//!
//! With `--features cuda` on a machine with an NVIDIA GPU the same checks run on the GPU
//! (`COURSE_DEVICE=emulator` keeps them on the emulator), each test in a process of its
//! own: a fault in one kernel would otherwise end every other test (see `ch05::harness`).

/// Runs exercise `id` with the kernels `COURSE_KERNELS` picks, on the emulator or the GPU.
fn check(id: &str) {
    ch05::harness::check_exercise(id);
}

#[test]
fn ex_5_01_spmd() {
    check("5.1");
}

#[test]
fn ex_5_02_indexing() {
    check("5.2");
}

#[test]
fn ex_5_03_grid_stride() {
    check("5.3");
}

#[test]
fn ex_5_04_warps() {
    check("5.4");
}

#[test]
fn ex_5_05_block_order() {
    check("5.5");
}

#[test]
fn ex_5_06_histograms() {
    check("5.6");
}
