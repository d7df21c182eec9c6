//! Helpers for a chapter's tests of its own checks (`selftest/tests/fixtures.rs`): each check
//! must reject deliberately wrong kernels, and every exercise must have its test.
//!
//! Both chapters test their checks the same way; the parts that do not depend on the
//! chapter's kernels live here, so that a new chapter gets them by calling two functions.

use course::{Chapter, Outcome, Status};
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

/// Asserts that `out`, the outcome of exercise `id`'s check, passed: a failure shows its
/// status, reason and details, what a test of a right kernel needs to say why it failed.
pub fn assert_passed(id: &str, out: &Outcome) {
    assert!(
        out.passed(),
        "{id}: {:?}: {}\n{}",
        out.status,
        out.reason,
        out.details.join("\n")
    );
    assert_eq!(out.exercise, id, "the outcome names another exercise");
}

/// Asserts that the exercises of `chapter` are the `steps` of its progression, in
/// order, and that `tests` (the tests generated from its `exercises.toml`) has a test
/// named `<filter>_<topic>` ([`course::test_filter`]: `ex_9_03_...`) that checks each,
/// and that `cargo test -p chNN <filter>` selects it alone: an exercise added to one and
/// not the others fails here, not in front of a student.
pub fn assert_every_exercise_tested(chapter: &Chapter, steps: &[&str], tests: &str) {
    let ids: Vec<&str> = chapter.exercises.iter().map(|e| e.id).collect();
    assert_eq!(
        ids, steps,
        "update progression::STEPS to match exercises.toml"
    );
    for id in ids {
        let filter = course::test_filter(id);
        let name = format!("fn {filter}_");
        assert!(
            tests.contains(&name),
            "the generated tests have no `{name}...` for exercise {id}"
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
            "the generated tests never check exercise {id}"
        );
    }
}

/// The failures whose hint must be the exercise's own: a check failing this way shows,
/// first, a hint of the exercise written for this kind of failure (a wrong result what
/// the output must hold, a race the barrier, a wrong technique the technique, a barrier
/// error the collective's rule), unless the failure is one of the course's own kinds
/// (`course::hints::COURSE_KINDS`: garbage read from shared memory), which the course
/// answers the same way in every exercise.
pub const ANSWERED: [Status; 4] = [
    Status::WrongResult,
    Status::Race,
    Status::WrongTechnique,
    Status::BarrierError,
];

/// Asserts that the hint `out` shows first answers its failure: the failure's kind is one
/// that its exercise lists ([`course::Exercise::failures`]: a kind the check names is
/// declared by the exercise's records), its first hint is never a general one (those
/// are for a stub), and for the failures in [`ANSWERED`] it is the exercise's own. The
/// chapter's fixtures call it on every deliberately wrong kernel, so each exercise's
/// hints are pinned by the mistakes its check catches.
pub fn assert_hint_answers(chapter: &Chapter, out: &Outcome) {
    if out.passed() || out.status == Status::NotImplemented {
        return;
    }
    let e = chapter
        .exercise(out.exercise)
        .unwrap_or_else(|| panic!("no exercise `{}` in {}", out.exercise, chapter.id));
    if let Some(kind) = &out.kind {
        assert!(
            e.failures()
                .iter()
                .any(|f| f.status == out.status && f.name == Some(kind.as_str())),
            "{} fails as `{}/{kind}`, a kind its records do not declare",
            e.id,
            out.status.key()
        );
    }
    let failure = e.failure_of(out);
    let first = e.first_hint(failure);
    assert!(
        !e.hints.contains(&first),
        "{} fails as `{}` but its first hint is a general one: {first}",
        e.id,
        failure.key()
    );
    let course_kind = course::hints::COURSE_KINDS.contains(&failure);
    if ANSWERED.contains(&out.status) && !course_kind {
        assert!(
            e.hints_by_failure.iter().any(|&(_, h)| h == first),
            "{} fails as `{}` but its first hint is not one of its own: {first}",
            e.id,
            failure.key()
        );
    }
}

/// Asserts, from the reference solutions' source (`solutions`, the text of
/// `solutions/src/<chapter>.rs`), that every exercise whose reference waits at a barrier
/// has a hint for a race, and every exercise whose
/// reference uses a warp collective has one for a barrier error: the failures a student
/// meets first when a barrier or a collective is missing or misplaced.
pub fn assert_hints_cover_failures(chapter: &Chapter, solutions: &str) {
    let regions = course::regions::regions(solutions).expect("the reference's regions parse");
    for e in chapter.exercises {
        let code = course::regions::code_of(solutions, &regions, e.id);
        let has = |s: Status| e.hints_by_failure.iter().any(|&(on, _)| on.status == s);
        if code.contains("sync_threads") {
            assert!(
                has(Status::Race),
                "{}: a barrier, but no hint for a race",
                e.id
            );
        }
        let collective = ["warp_match_any", "warp_shuffle", "warp_ballot", "sync_warp"]
            .iter()
            .any(|c| code.contains(c));
        if collective {
            assert!(
                has(Status::BarrierError),
                "{}: a warp collective, but no hint for a barrier error",
                e.id
            );
        }
    }
}

/// The tests of a chapter's registry, for its self-test (`selftest/tests/fixtures.rs`):
/// every exercise whose reference (`solutions/src/<chapter>.rs`) waits at a barrier or a
/// warp collective has the hints a student needs when one is missing
/// ([`assert_hints_cover_failures`]), and every exercise has its test, in order, and a
/// step in the progression ([`assert_every_exercise_tested`], on the tests
/// `exercises.toml` generated).
#[macro_export]
macro_rules! registry_tests {
    ($chapter:ident) => {
        #[test]
        fn hints_answer_the_failures_the_reference_can_meet() {
            $crate::check_tests::assert_hints_cover_failures(
                &$chapter::CHAPTER,
                $chapter::REFERENCE_SOURCE,
            );
        }

        #[test]
        fn every_exercise_has_a_test() {
            $crate::check_tests::assert_every_exercise_tested(
                &$chapter::CHAPTER,
                &$chapter::progression::STEPS,
                $chapter::EXERCISE_TESTS,
            );
        }
    };
}

/// Asserts that the rehearsal keeps a chapter's stubs off the GPU: with `stubs` (a
/// reference table but for stand-ins of unsolved exercises), the student's GPU rows of
/// `steps` ([`crate::app::gpu_student_rows`], on an emulator standing in for the GPU)
/// have the kernels `stubbed` "not implemented", each at the size `params` asked for and
/// saying why it was not launched.
pub fn assert_stubs_stay_off_the_gpu<P: crate::app::Progression>(
    stubs: &P::Kernels,
    params: &P::Params,
    steps: &[&'static str],
    stubbed: &[&str],
) {
    let mut dev = Device::emulator();
    let rows = crate::app::gpu_student_rows::<P>(&mut dev, stubs, params, steps, &mut |_| {});
    let unsolved: Vec<_> = rows
        .iter()
        .filter(|r| r.status == "not implemented")
        .collect();
    let kernels: Vec<&str> = unsolved.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(kernels, stubbed, "{rows:#?}");
    for r in unsolved {
        assert_eq!(r.n, P::elements(params), "{r:?}");
        let note = r.note.as_deref().unwrap_or_default();
        assert!(note.contains("not launched on the GPU"), "{note}");
    }
}
