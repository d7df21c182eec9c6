//! The toy chapter's generated tests (one per record of `exercises.toml`), run on the
//! reference kernels: a course test must not depend on what is in `kernels/`.

/// Checks exercise `id` of the toy chapter with the reference kernels, on the emulator.
fn check(id: &str) {
    let ex = toy_chapter::CHAPTER
        .exercise(id)
        .expect("a registered exercise");
    ex.assert_passes(course::KernelSource::Reference);
}

// One `#[test]` per exercise of `exercises.toml` (see `crates/records`).
include!(concat!(env!("OUT_DIR"), "/exercise_tests.rs"));
