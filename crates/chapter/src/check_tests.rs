//! Helpers for a chapter's tests of its own checks (`tests/fixtures.rs`): each check
//! must reject deliberately wrong kernels, and every exercise must have its test.
//!
//! Both chapters test their checks the same way; the parts that do not depend on the
//! chapter's kernels live here, so that a new chapter gets them by calling two functions.

use course::{Chapter, Outcome};
use gpu_host::Device;

/// A chapter's `checks::check_with`: runs the check of an exercise id on a kernel table.
pub type CheckWith<K> = fn(&str, &mut Device, &'static K) -> Option<Outcome>;

/// Runs the check of `id` on `k` on a fresh emulator, `k` leaked (a check wants a
/// `'static` table, and a test's few tables are not worth freeing). Panics for an id the
/// chapter does not register: the test itself is wrong then.
pub fn run_on_emulator<K>(check_with: CheckWith<K>, id: &str, k: K) -> Outcome {
    let k: &'static K = Box::leak(Box::new(k));
    check_with(id, &mut Device::emulator(), k).expect("a registered exercise")
}

/// Asserts that the exercises of `chapter` are the `steps` of its progression, in
/// order, and that `tests` (the text of its `tests/exercises.rs`) has a test named
/// `<filter>_<topic>` ([`course::test_filter`]: `ex_9_03_...`) that checks each: an exercise added to one and not the others fails here, not in
/// front of a student.
pub fn assert_every_exercise_tested(chapter: &Chapter, steps: &[&str], tests: &str) {
    let ids: Vec<&str> = chapter.exercises.iter().map(|e| e.id).collect();
    assert_eq!(
        ids, steps,
        "update tests/exercises.rs and progression::STEPS to match the registry"
    );
    for id in ids {
        let filter = course::test_filter(id);
        let name = format!("fn {filter}_");
        assert!(
            tests.contains(&name),
            "tests/exercises.rs has no test `{name}...` for exercise {id}"
        );
        // `cargo test -p chNN <filter>` must run this exercise and no other.
        let selected: Vec<&str> = tests
            .lines()
            .filter_map(|l| l.trim().strip_prefix("fn "))
            .filter(|f| f.contains(&filter))
            .collect();
        assert_eq!(
            selected.len(),
            1,
            "the filter `{filter}` of exercise {id} selects the tests {selected:?}"
        );
        assert!(
            tests.contains(&format!("check(\"{id}\")")),
            "tests/exercises.rs never checks exercise {id}"
        );
    }
}
