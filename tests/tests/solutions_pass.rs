//! Every reference solution passes every check of its exercise.
//!
//! With `--features cuda` on a machine with an NVIDIA GPU the solutions are checked on the
//! GPU (`COURSE_DEVICE=emulator` keeps them on the emulator, `COURSE_DEVICE=gpu` insists
//! on the GPU); without one, on the emulator with a printed note. The stubs are always
//! checked on the emulator: on a GPU a `todo!()` is a trap that says nothing, and this
//! test is about the message each stub fails with.

use course::{Exercise, KernelSource, Outcome, Status};
use course_tests::chapters;
use gpu_host::Device;
use std::io::Write;

/// Whether the reference solutions run on the GPU (printing why not when one was possible).
fn reference_on_gpu() -> bool {
    match chapter::device::choice_from_env().and_then(chapter::device::select) {
        Ok(chapter::device::Selected::Gpu) => {
            note("the course self-test checks the reference solutions on the GPU (CUDA device 0)");
            true
        }
        Ok(chapter::device::Selected::Emulator { note: why }) => {
            if let Some(why) = why {
                note(&why);
            }
            false
        }
        Ok(chapter::device::Selected::IsolatedEmulator) => false,
        Err(e) => panic!("{e}"),
    }
}

/// Prints past the test harness's output capture, so the note shows in `cargo test`.
fn note(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "note: {text}");
}

/// A device for one exercise: the emulator, or a GPU with the PTX of `source` loaded (the
/// PTX of the whole `kernels`/`solutions` crate, which every chapter's kernels live in).
fn device(gpu: bool, source: KernelSource) -> Result<Device, Outcome> {
    if !gpu {
        return Ok(Device::emulator());
    }
    chapter::device::open_gpu(&[source])
        .map_err(|e| Outcome::fail(Status::Error, format!("cannot use the GPU: {e}")))
}

/// Runs `f` over the exercises on two worker threads (the emulator is single-threaded).
fn run_all(source: KernelSource) -> Vec<(&'static Exercise, Outcome)> {
    let gpu = source == KernelSource::Reference && reference_on_gpu();
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
                        .map(|e| {
                            let out = match device(gpu, source) {
                                Ok(mut dev) => e.run(&mut dev, source),
                                Err(o) => o,
                            };
                            (e, out)
                        })
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
            !e.hints.is_empty() && msg.contains(e.first_hint(out.status)),
            "the failure of {} does not show the hint for its failure",
            e.id
        );
        assert!(
            msg.contains(e.book),
            "the failure of {} does not point to its book section",
            e.id
        );
    }
}
