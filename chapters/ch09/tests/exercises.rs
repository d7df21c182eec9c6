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

#[test]
fn ex_9_01_sequential() {
    check("9.1");
}

#[test]
fn ex_9_02_naive_race() {
    check("9.2");
}

#[test]
fn ex_9_03_global_atomics() {
    check("9.3");
}

#[test]
fn ex_9_04_global_privatization() {
    check("9.4");
}

#[test]
fn ex_9_05_shared_privatization() {
    check("9.5");
}

#[test]
fn ex_9_06_coarsening() {
    check("9.6");
}

#[test]
fn ex_9_07_aggregation() {
    check("9.7");
}

#[test]
fn ex_9_08_warp_aggregation() {
    check("9.8");
}

#[test]
fn ex_9_09_fastest() {
    check("9.9");
}

#[test]
fn ex_9_10_register_privatization() {
    check("9.10");
}

#[test]
fn ex_9_11_rgb() {
    check("9.11");
}

#[test]
fn ex_9_12_weighted() {
    check("9.12");
}

#[test]
fn ex_9_13_joint_2d() {
    check("9.13");
}

#[test]
fn ex_9_14_u32_bins() {
    check("9.14");
}

#[test]
fn ex_9_15_cas_add() {
    check("9.15");
}

#[test]
fn ex_9_16_strategy() {
    check("9.16");
}

#[test]
fn ex_9_17_sliced_bins() {
    check("9.17");
}
