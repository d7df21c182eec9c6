//! Running an exercise's check from a `#[test]`, on the emulator or on a GPU.
//!
//! `cargo test -p chNN` calls [`check_exercise`] once per exercise. On the emulator that
//! is [`Exercise::assert_passes`]; a failure prints the student's report and fails the
//! test ([`Exercise::assert_outcome`]). On a GPU (the `cuda` feature, a CUDA device, and
//! `COURSE_DEVICE` not saying otherwise) two things differ:
//!
//! - **Isolation.** A kernel fault (a `todo!()` is a `trap` on the GPU, an index past a
//!   buffer an illegal address) poisons every CUDA context of the process, as observed
//!   on an H200 with driver 580: one unsolved exercise would fail all the others. So the
//!   test runs itself again, as a child process that runs only this one test
//!   (`TEST --exact`), does the check on the GPU, and writes the outcome to a file for the
//!   parent. A child that dies, or runs past [`TIMEOUT_ENV`] seconds (an endless loop in
//!   a kernel: the GPU has no step budget), is an outcome too. The test's name comes from
//!   its thread, which the standard test harness names after the test; without one (a
//!   custom harness) the check runs in this process.
//! - **Two judges.** A GPU can say *that* a kernel faulted, not where or why, and it
//!   cannot see an access out of bounds it tolerates, a race its timing hides or the
//!   technique. So every check also runs on the emulator, and passes only when both pass
//!   ([`two_judges`]): a failure says which judge failed, with the emulator's report (the
//!   `todo!` message, the thread and line, the race) wherever it has one.

use crate::device::{self, Selected};
use course::{Chapter, Exercise, KernelSource, Outcome, Status};
use gpu_host::Device;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the child: the id of the exercise it checks on the GPU (ids are unique across
/// chapters: `5.3`, `9.3`).
const CHILD_ID_ENV: &str = "COURSE_GPU_CHILD_ID";
/// Set in the child: the file it writes its outcome to.
const CHILD_OUT_ENV: &str = "COURSE_GPU_CHILD_OUT";
/// Seconds a GPU check may take before it is stopped (default [`DEFAULT_TIMEOUT_S`]).
pub const TIMEOUT_ENV: &str = "COURSE_GPU_TIMEOUT";
/// The default of [`TIMEOUT_ENV`]: far above what a check of a right kernel takes
/// (about a second), well below a student's patience.
pub const DEFAULT_TIMEOUT_S: u64 = 120;

/// How the child's outcome begins when it could not open the GPU or load the PTX: a
/// failure of the machine, not of the kernels, so the emulator is not asked to explain it.
/// Public for the grader (`crates/grade`), which reports such a failure the same way.
pub const GPU_UNUSABLE: &str = "cannot use the GPU";

/// Prints past the test harness's output capture, so the note shows in a plain
/// `cargo test` run (once per test binary).
fn note_once(text: &str) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = writeln!(std::io::stderr().lock(), "note: {text}");
    });
}

/// The kernel source the tests use: the student's, unless the environment variable
/// `COURSE_KERNELS` is `reference` (how the course checks its own solutions).
pub fn source_from_env() -> KernelSource {
    match std::env::var("COURSE_KERNELS").as_deref().map(str::trim) {
        Ok("reference") | Ok("solutions") => KernelSource::Reference,
        _ => KernelSource::Student,
    }
}

/// For a `#[test]`: checks exercise `id` of `chapter` with the kernels `COURSE_KERNELS`
/// picks ([`source_from_env`]), on the device `COURSE_DEVICE` and the build pick, and
/// fails the test with the student's report unless it passes.
pub fn check_exercise(chapter: &Chapter, id: &str) {
    let Some(ex) = chapter.exercise(id) else {
        panic!("exercise {id} is not registered in {}", chapter.id);
    };
    let source = source_from_env();
    if let Ok(child_id) = std::env::var(CHILD_ID_ENV) {
        if child_id == id {
            child(ex, source);
        }
        return;
    }
    let selected = device::choice_from_env().and_then(device::select);
    match selected {
        Err(e) => panic!("{e}"),
        Ok(Selected::Emulator { note }) => {
            if let Some(n) = note {
                note_once(&n);
            }
            ex.assert_passes(source);
        }
        Ok(sel @ (Selected::Gpu | Selected::IsolatedEmulator)) => {
            if sel == Selected::Gpu {
                note_once("the checks run on the GPU (CUDA device 0), each in its own process");
            }
            let gpu = match test_name() {
                Some(name) => run_isolated(ex, &name),
                None => match device::open_gpu(&[source]) {
                    Ok(mut dev) => ex.run(&mut dev, source),
                    Err(e) => Outcome::fail(Status::Error, format!("{GPU_UNUSABLE}: {e}")),
                },
            };
            ex.assert_outcome(&explain(ex, source, gpu));
        }
    }
}

/// The running test's name: the standard harness names each test's thread after it.
fn test_name() -> Option<String> {
    std::thread::current()
        .name()
        .filter(|n| !n.is_empty() && *n != "main")
        .map(str::to_string)
}

/// The child: the check on the GPU, its outcome written where the parent reads it.
fn child(ex: &Exercise, source: KernelSource) {
    let isolated_emulator = device::choice_from_env() == Ok(device::Choice::IsolatedEmulator);
    let dev = if isolated_emulator {
        Ok(Device::emulator_with(course::Limits::CHECKS.simt_config()))
    } else {
        device::open_gpu(&[source])
    };
    let out = match dev {
        Ok(mut dev) => ex.run(&mut dev, source),
        Err(e) => Outcome::fail(Status::Error, format!("{GPU_UNUSABLE}: {e}")),
    };
    let Ok(path) = std::env::var(CHILD_OUT_ENV) else {
        panic!("{CHILD_OUT_ENV} is not set in the GPU check's child process");
    };
    let json = serde_json::to_string(&out).unwrap_or_default();
    if let Err(e) = std::fs::write(&path, json) {
        panic!("cannot write the GPU check's outcome to {path}: {e}");
    }
}

/// Runs this test binary again for `test_name` only, with the GPU check in the child,
/// and returns the child's outcome (or what went wrong with the child).
fn run_isolated(ex: &Exercise, test_name: &str) -> Outcome {
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return error(format!("cannot find this test binary to rerun it: {e}")),
    };
    let out_file = outcome_file(ex.id);
    let timeout = Duration::from_secs(
        std::env::var(TIMEOUT_ENV)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(DEFAULT_TIMEOUT_S),
    );
    let spawned = Command::new(&exe)
        .args([test_name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ID_ENV, ex.id)
        .env(CHILD_OUT_ENV, &out_file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let child = match spawned {
        Ok(c) => c,
        Err(e) => return error(format!("cannot start {}: {e}", exe.display())),
    };
    let (status, output) = wait_with_timeout(child, timeout);
    let read = std::fs::read_to_string(&out_file);
    let _ = std::fs::remove_file(&out_file);
    match (status, read) {
        (Finished::TimedOut, _) => Outcome::fail(
            Status::TimedOut,
            format!(
                "the check did not finish on the GPU within {} s and was stopped: is a loop \
                 in a kernel endless? (a GPU has no step budget; {TIMEOUT_ENV}=SECONDS \
                 allows more)",
                timeout.as_secs()
            ),
        ),
        (_, Ok(text)) => match serde_json::from_str::<Outcome>(&text) {
            Ok(mut o) => {
                o.exercise = ex.id;
                o
            }
            Err(e) => error(format!(
                "the GPU check's outcome is unreadable ({e}): {text}"
            )),
        },
        (Finished::Exited(code), Err(_)) => {
            let mut o = error(format!(
                "the GPU check's process ended ({code}) without an outcome"
            ));
            for line in tail(&output, 8) {
                o = o.detail(line);
            }
            o
        }
    }
}

fn error(reason: String) -> Outcome {
    Outcome::fail(Status::Error, reason)
}

/// A file for the child's outcome, unique per process and exercise.
fn outcome_file(id: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    std::env::temp_dir().join(format!(
        "course-gpu-check-{}-{}-{nanos}.json",
        std::process::id(),
        id.replace('.', "_")
    ))
}

/// How the child ended.
enum Finished {
    /// It exited, with this status (as text).
    Exited(String),
    /// It ran past the timeout and was killed.
    TimedOut,
}

/// Waits for `child`, killing it after `timeout`; returns how it ended and its output.
fn wait_with_timeout(mut child: std::process::Child, timeout: Duration) -> (Finished, String) {
    // Read the pipes on threads, so that a chatty child cannot block on a full pipe.
    let mut pipes = Vec::new();
    if let Some(mut out) = child.stdout.take() {
        pipes.push(std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut out, &mut s);
            s
        }));
    }
    if let Some(mut err) = child.stderr.take() {
        pipes.push(std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut s);
            s
        }));
    }
    let start = Instant::now();
    let finished = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Finished::Exited(status.to_string()),
            Ok(None) if start.elapsed() >= timeout => {
                // Our own child, by its handle.
                let _ = child.kill();
                let _ = child.wait();
                break Finished::TimedOut;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => break Finished::Exited(format!("unknown status: {e}")),
        }
    };
    let output = pipes
        .into_iter()
        .filter_map(|h| h.join().ok())
        .collect::<Vec<_>>()
        .join("");
    (finished, output)
}

/// The last `n` non-empty lines of `text`.
fn tail(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// The GPU's outcome judged beside the same check on the emulator ([`two_judges`]).
fn explain(ex: &Exercise, source: KernelSource, gpu: Outcome) -> Outcome {
    two_judges(gpu, || {
        ex.run(
            &mut Device::emulator_with(course::Limits::CHECKS.simt_config()),
            source,
        )
    })
}

/// How a reason begins when the emulator's judge failed a check the GPU passed.
pub const EMULATOR_JUDGE: &str = "the emulator's judge";

/// How a reason begins when the GPU failed a check the emulator passed.
pub const GPU_JUDGE: &str = "on the GPU";

/// A check with two judges: `gpu`, the check's outcome on the real hardware, and
/// `emulate`, the same check on the emulator, which always runs. The check passes only
/// when both pass: the GPU adds what only it shows (its results on the real hardware, its
/// time), the emulator what the GPU cannot see (an access out of bounds the hardware
/// tolerates silently, a race its timing hides, the technique, a barrier error). A failure
/// says which judge failed and why:
///
/// - both pass: the emulator's pass (it says what was verified), the GPU's as a detail;
/// - the emulator fails and the GPU passes: the emulator's report, its reason beginning
///   with [`EMULATOR_JUDGE`];
/// - the GPU fails and the emulator passes: the GPU's report, its reason beginning with
///   [`GPU_JUDGE`] (a failure only the hardware shows);
/// - both fail: the emulator's report (it names the thread, the line, the race), the
///   GPU's finding as a detail when it differs.
///
/// An outcome that begins with [`GPU_UNUSABLE`] is the machine's, returned as it is and
/// `emulate` not called. Public for the grader (`crates/grade`), which runs the
/// emulator's check its own way (in a child process, under its fixed limits).
pub fn two_judges(gpu: Outcome, emulate: impl FnOnce() -> Outcome) -> Outcome {
    if gpu.reason.starts_with(GPU_UNUSABLE) {
        return gpu;
    }
    let on_gpu = format!("on the GPU: {} - {}", gpu.status.label(), gpu.reason);
    let mut emulated = emulate();
    match (gpu.passed(), emulated.passed()) {
        (true, true) => emulated.detail(format!("{on_gpu} (the GPU's judge passed too)")),
        (true, false) => {
            emulated.reason = format!("{EMULATOR_JUDGE}: {}", emulated.reason);
            emulated.detail(
                "the GPU's run of this check passed: the emulator finds what the hardware \
                 does not show (an access out of bounds it tolerates, a race its timing hides, \
                 the technique the counters see)",
            )
        }
        (false, true) => {
            let mut gpu = gpu.detail(
                "the same check passes on the emulator: this failure shows only on the real \
                 hardware (a race the emulator's lockstep schedule hides, a missing \
                 sync_warp, a read of memory no thread wrote?)",
            );
            gpu.reason = format!("{GPU_JUDGE}: {}", gpu.reason);
            gpu
        }
        (false, false) if emulated.status == gpu.status && emulated.reason == gpu.reason => {
            emulated
        }
        (false, false) => emulated.detail(format!("{on_gpu} (the report above is the emulator's)")),
    }
}

#[cfg(test)]
mod judges {
    use super::{EMULATOR_JUDGE, GPU_JUDGE, GPU_UNUSABLE, two_judges};
    use course::{Outcome, Status};

    fn fail(status: Status, why: &str) -> Outcome {
        Outcome::fail(status, why.to_string())
    }

    #[test]
    fn a_check_passes_only_when_both_judges_pass() {
        let both = two_judges(Outcome::pass("right on the GPU"), || {
            Outcome::pass("right, one atomic per element")
        });
        assert!(both.passed());
        assert_eq!(both.reason, "right, one atomic per element");
        assert!(both.details.iter().any(|d| d.contains("right on the GPU")));

        // Out of bounds: the GPU tolerates it silently, the emulator does not.
        let oob = two_judges(Outcome::pass("right on the GPU"), || {
            fail(Status::OutOfBounds, "memcheck: index 1001 is out of bounds")
        });
        assert_eq!(oob.status, Status::OutOfBounds);
        assert!(oob.reason.starts_with(EMULATOR_JUDGE), "{}", oob.reason);
        assert!(
            oob.details
                .iter()
                .any(|d| d.contains("GPU's run of this check passed"))
        );

        // The wrong technique: only the emulator's counters see it.
        let technique = two_judges(Outcome::pass("right"), || {
            fail(Status::WrongTechnique, "no private copy")
        });
        assert_eq!(technique.status, Status::WrongTechnique);

        // A failure only the hardware shows.
        let hw = two_judges(fail(Status::WrongResult, "bin 3 expected 4, got 3"), || {
            Outcome::pass("right")
        });
        assert_eq!(hw.status, Status::WrongResult);
        assert!(hw.reason.starts_with(GPU_JUDGE), "{}", hw.reason);

        // Both fail: the emulator's report, with the GPU's finding beside it.
        let both_fail = two_judges(fail(Status::Panicked, "trap"), || {
            fail(Status::NotImplemented, "not yet implemented: 9.4")
        });
        assert_eq!(both_fail.status, Status::NotImplemented);
        assert!(
            both_fail
                .details
                .iter()
                .any(|d| d.contains("on the GPU: panicked"))
        );

        // A GPU that cannot be used is the machine's: the emulator is not asked.
        let unusable = two_judges(
            fail(Status::Error, &format!("{GPU_UNUSABLE}: no driver")),
            || panic!("the emulator must not run"),
        );
        assert!(unusable.reason.starts_with(GPU_UNUSABLE));
    }
}
