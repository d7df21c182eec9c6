//! Every reference solution passes every check of its exercise.

use course::{Exercise, KernelSource, Outcome};
use course_tests::chapters;
use gpu_host::Device;

/// Runs `f` over the exercises on two worker threads (the emulator is single-threaded).
fn run_all(source: KernelSource) -> Vec<(&'static Exercise, Outcome)> {
    let all: Vec<&'static Exercise> = chapters()
        .into_iter()
        .flat_map(|c| c.exercises.iter())
        .collect();
    let mut results = Vec::new();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let mine: Vec<&'static Exercise> = all.iter().copied().skip(w).step_by(2).collect();
                s.spawn(move || {
                    mine.into_iter()
                        .map(|e| (e, e.run(&mut Device::emulator(), source)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for w in workers {
            results.extend(w.join().expect("a worker panicked outside a check"));
        }
    });
    results.sort_by_key(|(e, _)| e.id);
    results
}

#[test]
fn every_solution_passes_its_check() {
    let results = run_all(KernelSource::Reference);
    assert!(!results.is_empty(), "no exercises registered");
    let failures: Vec<String> = results
        .iter()
        .filter(|(_, o)| !o.passed())
        .map(|(e, o)| e.failure_message(o))
        .collect();
    assert!(
        failures.is_empty(),
        "reference solutions that fail:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_stub_fails_with_its_own_hint() {
    for (e, out) in run_all(KernelSource::Student) {
        assert_eq!(
            out.status,
            course::Status::NotImplemented,
            "the stub of {} should fail as not implemented, got: {}",
            e.id,
            e.failure_message(&out)
        );
        assert!(
            out.reason.contains(e.id),
            "the stub of {} fails without naming it: {}",
            e.id,
            out.reason
        );
        let msg = e.failure_message(&out);
        assert!(
            !e.hints.is_empty() && msg.contains(e.hints[0]),
            "the failure of {} does not show its first hint",
            e.id
        );
        assert!(
            msg.contains(e.book),
            "the failure of {} does not point to its book section",
            e.id
        );
    }
}
