//! Every reference solution passes every check of its exercise.
//!
//! With `--features cuda` on a machine with an NVIDIA GPU the solutions are checked on the
//! GPU (`COURSE_DEVICE=emulator` keeps them on the emulator, `COURSE_DEVICE=gpu` insists
//! on the GPU); without one, on the emulator with a printed note. That every untouched
//! stub fails with its own hint is `tests/stubs_fail.rs`.

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

/// Runs the check of every exercise with the reference kernels on two worker threads
/// (the emulator is single-threaded).
fn run_all() -> Vec<(&'static Exercise, Outcome)> {
    let source = KernelSource::Reference;
    let gpu = reference_on_gpu();
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
    let results = run_all();
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
