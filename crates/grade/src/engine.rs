//! Running the checks: one exercise at a time, each on a fresh device, none able to take
//! the whole run down with it.
//!
//! A student's kernel can fail in every way a program can, and each must cost only its
//! own exercise:
//!
//! | what the kernel does | what stops it | reported as |
//! | --- | --- | --- |
//! | loops forever, touching memory | the emulator's step budget ([`Limits::step_budget`]) | timed out |
//! | spin-waits on a flag no thread sets | the emulator's spin detector ([`Limits::spin_steps`]) | livelock |
//! | spins in registers (`while i < n {}`) | the lane's fuel ([`gpu_host::LaneLimits::fuel`]) | timed out |
//! | burns instructions between device calls, in launch after launch | the check's work budget ([`Limits::work`]) | timed out |
//! | a host function never returns | its fuel, and the check's work budget | timed out |
//! | anything the counts above miss (a native kernel of the emulator's own tests) | the wall clocks ([`Limits::launch_watchdog_ms`], [`Limits::exercise_timeout_ms`]): the last resort, reported as such | timed out |
//! | panics in check code (not kernel code) | `catch_unwind` around the check | error |
//! | aborts the process (stack overflow, `abort`) | the child process it ran in ([`Isolation::Subprocess`]) | error |
//!
//! A launch stopped by the watchdog leaves its device lost (the spinning lane still owns
//! its memory), so every exercise gets a fresh [`Device`]. The spinning thread itself
//! cannot be stopped from inside the process: with [`Isolation::Subprocess`] (the
//! CLI's default) it dies with its child process; in-process it spins on until the
//! grader exits.
//!
//! Exercises run `jobs` at a time; the report lists them in course order whatever
//! order they finished in.

use crate::report::ExerciseReport;
use course::Limits;
use course::{Chapter, Exercise, KernelSource, Outcome, Status};
use gpu_host::Device;
use std::cell::{Cell, RefCell};
use std::io::{Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Where each exercise's check runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// On a worker thread of this process. A kernel that aborts the process (a stack
    /// overflow) takes the grader with it, and a lane spinning in registers keeps a core
    /// busy until the grader exits; fine for tests and for debugging the grader.
    InProcess,
    /// In a child process running `exe` (the grader's own binary) with the hidden
    /// [`CHILD_COMMAND`], which prints one [`RESULT_PREFIX`] line. A crash or a hang
    /// ends that process only.
    Subprocess {
        /// The grader's binary.
        exe: PathBuf,
        /// Environment variables set for each child (a class run names each submission's
        /// module, [`gpu_host::lanes::module_env`], here rather than in its own environment).
        env: Vec<(String, std::ffi::OsString)>,
    },
}

/// The hidden subcommand of the grader's binary that runs one exercise:
/// `grade __exercise <chapter> <id> --kernels … --device emulator|gpu --step-budget … --spin-steps …
/// --watchdog-ms … --timeout-ms … --work-instructions … --work-steps …`.
pub const CHILD_COMMAND: &str = "__exercise";

/// The prefix of the line a child prints with its result (JSON after it). The last such
/// line of the child's standard output counts; anything else it prints is ignored.
pub const RESULT_PREFIX: &str = "grade-result: ";

/// Extra time a child gets over the exercise limit before it is killed: the child
/// enforces the limit itself and reports it; killing it is the fallback.
pub(crate) const CHILD_GRACE: Duration = Duration::from_secs(5);

/// The device the checks run on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The SIMT emulator, with the grader's [`Limits`]: deterministic, with counters.
    Emulator,
    /// CUDA device 0 (the `cuda` feature), the PTX of the graded kernels loaded on a
    /// fresh device per exercise (chapter 9's [`chapter::device::open_gpu`]). The GPU has no
    /// step budget, spin detector or watchdog: only [`Limits::exercise_timeout_ms`] stops
    /// a kernel that never ends. Every check runs on the emulator too, and passes only
    /// when both pass ([`chapter::harness::two_judges`]).
    Gpu {
        /// The GPU's name, as the driver reports it.
        name: String,
        /// The CUDA version the driver supports, e.g. `"CUDA 12.8"`.
        driver: String,
    },
}

impl Target {
    /// Opens CUDA device 0 to learn its name and driver (and that it works), then closes
    /// it. `Err` (one line) without the `cuda` feature, a driver or a GPU.
    pub fn gpu() -> Result<Target, String> {
        if !chapter::device::has_cuda() {
            return Err(
                "this grader was built without the `cuda` feature (build it with \
                        `cargo build --release -p grade --features cuda`)"
                    .into(),
            );
        }
        let dev = chapter::device::open_gpu(&[]).map_err(|e| one_line(&e.to_string()))?;
        let (major, minor) = dev.driver_version().unwrap_or_default();
        Ok(Target::Gpu {
            name: dev.props().name.clone(),
            driver: format!("CUDA {major}.{minor}"),
        })
    }

    /// `"emulator"` or `"gpu"`: the report's `device` and the child's `--device`.
    pub fn key(&self) -> &'static str {
        match self {
            Target::Emulator => "emulator",
            Target::Gpu { .. } => "gpu",
        }
    }

    /// A device for one check of `source`'s kernels: a fresh emulator with `limits`, or
    /// the GPU with the PTX loaded. `Err` is an outcome: the GPU could not be used.
    fn open(&self, source: KernelSource, limits: &Limits) -> Result<Device, Outcome> {
        match self {
            Target::Emulator => Ok(Device::emulator_with(limits.simt_config())),
            Target::Gpu { .. } => chapter::device::open_gpu(&[source]).map_err(|e| {
                Outcome::fail(
                    Status::Error,
                    format!(
                        "{}: {}",
                        chapter::harness::GPU_UNUSABLE,
                        one_line(&e.to_string())
                    ),
                )
            }),
        }
    }
}

/// `text` on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Which exercises to grade.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Exercise ids (`"9.4"`); empty means every exercise.
    pub ids: Vec<String>,
}

impl Selection {
    /// Every exercise of every chapter.
    pub fn all() -> Self {
        Selection::default()
    }

    /// Only the exercises with these ids.
    pub fn only<S: Into<String>>(ids: impl IntoIterator<Item = S>) -> Self {
        Selection {
            ids: ids.into_iter().map(Into::into).collect(),
        }
    }

    /// Is exercise `id` selected?
    pub fn contains(&self, id: &str) -> bool {
        self.ids.is_empty() || self.ids.iter().any(|s| s == id)
    }

    /// The selected ids that no chapter of `chapters` has.
    pub fn unknown(&self, chapters: &[&'static Chapter]) -> Vec<String> {
        self.ids
            .iter()
            .filter(|id| chapters.iter().all(|c| c.exercise(id).is_none()))
            .cloned()
            .collect()
    }
}

/// Grades the selected exercises of `chapters` against the kernels of `source`, `jobs`
/// at a time, and scores each. Fails only when grading itself cannot run (a child
/// process cannot be started); a failing or misbehaving kernel is a status in the report.
pub fn grade(
    chapters: &[&'static Chapter],
    selection: &Selection,
    source: KernelSource,
    limits: &Limits,
    isolation: &Isolation,
    jobs: usize,
) -> Result<Vec<ExerciseReport>, String> {
    grade_on(
        chapters,
        selection,
        source,
        limits,
        isolation,
        jobs,
        &Target::Emulator,
    )
}

/// The exercises of `chapters` that `selection` picks, in course order, with their chapter.
pub fn selected(
    chapters: &[&'static Chapter],
    selection: &Selection,
) -> Vec<(&'static Chapter, &'static Exercise)> {
    chapters
        .iter()
        .flat_map(|c| c.exercises.iter().map(move |e| (*c, e)))
        .filter(|(_, e)| selection.contains(e.id))
        .collect()
}

/// [`grade`] on `target`. On the GPU, a check that fails is run again on the emulator
/// (isolated the same way, under `limits`) and explained as chapter 9's tests do: the
/// emulator's report when it fails too, with the GPU's finding as a detail; the GPU's
/// failure, marked as one only the hardware shows, when it passes.
pub fn grade_on(
    chapters: &[&'static Chapter],
    selection: &Selection,
    source: KernelSource,
    limits: &Limits,
    isolation: &Isolation,
    jobs: usize,
    target: &Target,
) -> Result<Vec<ExerciseReport>, String> {
    let work = selected(chapters, selection);
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, work.len().max(1)) {
            let tx = tx.clone();
            let (work, next) = (&work, &next);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(chapter, exercise)) = work.get(i) else {
                        break;
                    };
                    let check = |target: &Target| match isolation {
                        Isolation::InProcess => {
                            Ok(check_in_process_on(exercise, source, limits, target))
                        }
                        Isolation::Subprocess { exe, env } => {
                            check_isolated_with(exe, env, chapter, exercise, source, limits, target)
                        }
                    };
                    let checked = check(target).map(|gpu| match target {
                        Target::Emulator => gpu,
                        Target::Gpu { .. } => explain(gpu, || check(&Target::Emulator)),
                    });
                    // Under a private seed, a failure is run once more on the public seed,
                    // whose case the sealed report may show (crate::private).
                    let checked = checked.and_then(|c| {
                        let public = match isolation {
                            Isolation::Subprocess { exe, env }
                                if crate::private::active() && !c.passed() =>
                            {
                                Some(check_public(exe, env, chapter, exercise, source, limits)?)
                            }
                            _ => None,
                        };
                        Ok((c, public))
                    });
                    if tx.send((i, checked)).is_err() {
                        break;
                    }
                }
            });
        }
    });
    drop(tx);
    let mut results: Vec<Option<(Outcome, Option<Outcome>)>> = vec![None; work.len()];
    for (i, checked) in rx {
        results[i] = Some(checked?);
    }
    work.iter()
        .zip(results)
        .map(|(&(chapter, exercise), checked)| {
            let (checked, public) = checked.ok_or_else(|| {
                format!("exercise {} was never graded (a worker died)", exercise.id)
            })?;
            Ok(crate::private::report(
                chapter,
                exercise,
                checked,
                public.as_ref(),
            ))
        })
        .collect()
}

thread_local! {
    /// Set on the threads that run a check: their panics are recorded for the report.
    static CHECKING: Cell<bool> = const { Cell::new(false) };
    /// The last panic recorded on this thread: message and location.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that records, on check threads, where a panic happened,
/// then hands every panic to the hook that was there before. It never swallows a panic:
/// the hooks of `course` (host functions' `todo!`) and `simt` (lane panics) keep working
/// whichever was installed first.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CHECKING.with(Cell::get) {
                let message = gpu_host::panic_message(info.payload())
                    .unwrap_or_else(|| "(a panic without a message)".to_string());
                let at = info
                    .location()
                    .map(|l| format!(" at {}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{at}")));
            }
            previous(info);
        }));
    });
}

/// The result of an exercise whose check outlived [`Limits::exercise_timeout_ms`].
pub(crate) fn exercise_timed_out(limits: &Limits) -> Outcome {
    Outcome::machine_too_slow(&format!(
        "the check did not finish within the exercise's wall-clock limit of {} s",
        limits.exercise_timeout_ms as f64 / 1000.0
    ))
}

/// A GPU result judged beside the emulator's (`emulate`): [`chapter::harness::two_judges`].
/// An emulator run that cannot start is a failure of its own.
fn explain(gpu: Outcome, emulate: impl FnOnce() -> Result<Outcome, String>) -> Outcome {
    chapter::harness::two_judges(gpu, || match emulate() {
        Ok(emulated) => emulated,
        // Not a pass and not the GPU's reason: the GPU's report stands, with this.
        Err(e) => Outcome::fail(Status::Error, format!("the emulator could not run: {e}")),
    })
}

/// [`check_in_process_on`] the emulator.
pub fn check_in_process(
    exercise: &'static Exercise,
    source: KernelSource,
    limits: &Limits,
) -> Outcome {
    check_in_process_on(exercise, source, limits, &Target::Emulator)
}

/// Runs the check of `exercise` in this process, on a worker thread with a fresh
/// device of `target` (an emulator configured by `limits`, or the GPU), and waits at
/// most [`Limits::exercise_timeout_ms`].
///
/// A panic that escapes the check (a bug in check code, or a student's host function
/// called without `course::catch_host`) is [`Status::Error`] with the panic's message;
/// a check that does not finish in time is [`Status::TimedOut`], and its thread is
/// abandoned.
pub fn check_in_process_on(
    exercise: &'static Exercise,
    source: KernelSource,
    limits: &Limits,
    target: &Target,
) -> Outcome {
    install_panic_hook();
    let (tx, rx) = mpsc::channel();
    let (target, limits_of_device) = (target.clone(), *limits);
    let spawned = std::thread::Builder::new()
        .name(format!("grade {}", exercise.id))
        .spawn(move || {
            CHECKING.with(|c| c.set(true));
            let result = catch_unwind(AssertUnwindSafe(|| {
                match target.open(source, &limits_of_device) {
                    Ok(mut device) => exercise.run(&mut device, source),
                    Err(unusable) => unusable,
                }
            }));
            let checked = match result {
                Ok(outcome) => outcome,
                Err(payload) => {
                    let recorded = LAST_PANIC.with(|p| p.borrow_mut().take());
                    let message = recorded.unwrap_or_else(|| {
                        gpu_host::panic_message(payload.as_ref())
                            .unwrap_or_else(|| "(a panic without a message)".into())
                    });
                    Outcome::fail(
                        Status::Error,
                        format!("the check itself panicked: {message}"),
                    )
                    .detail(
                        "a bug in the check or in a host function it called: tell the instructor",
                    )
                }
            };
            let _ = tx.send(checked);
        });
    if let Err(e) = spawned {
        return Outcome::fail(
            Status::Error,
            format!("could not start the check's thread: {e}"),
        );
    }
    match rx.recv_timeout(limits.exercise_timeout()) {
        Ok(checked) => checked,
        Err(mpsc::RecvTimeoutError::Timeout) => exercise_timed_out(limits),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Outcome::fail(Status::Error, "the check's thread ended without a result")
        }
    }
}

/// [`check_isolated_on`] the emulator.
pub fn check_isolated(
    exe: &std::path::Path,
    chapter: &'static Chapter,
    exercise: &'static Exercise,
    source: KernelSource,
    limits: &Limits,
) -> Result<Outcome, String> {
    check_isolated_on(exe, chapter, exercise, source, limits, &Target::Emulator)
}

/// Runs the check of `exercise` on `target` in a child process of the grader's binary
/// `exe` (see [`CHILD_COMMAND`]). `Err` only when the child cannot be started.
///
/// On the GPU this isolation is needed, not only prudent: a kernel fault poisons every
/// CUDA context of its process, so one unsolved exercise would fail all the others.
pub fn check_isolated_on(
    exe: &std::path::Path,
    chapter: &'static Chapter,
    exercise: &'static Exercise,
    source: KernelSource,
    limits: &Limits,
    target: &Target,
) -> Result<Outcome, String> {
    check_isolated_with(exe, &[], chapter, exercise, source, limits, target)
}

/// Runs the check of `exercise` on the emulator in a child process of `exe` (with the
/// environment variables `env`) under the course's public seed, whatever seed this grader
/// draws from: the child is started without [`course::draw::PRIVATE_SEED_ENV`]. Under a
/// private seed, the public case a sealed failure offers to replay ([`crate::private`]).
/// `Err` only when the child cannot be started.
pub fn check_public(
    exe: &std::path::Path,
    env: &[(String, std::ffi::OsString)],
    chapter: &'static Chapter,
    exercise: &'static Exercise,
    source: KernelSource,
    limits: &Limits,
) -> Result<Outcome, String> {
    let mut cmd = child_command(
        exe,
        env,
        chapter,
        exercise,
        source,
        limits,
        &Target::Emulator,
    );
    cmd.env_remove(course::draw::PRIVATE_SEED_ENV);
    run_checked(cmd, limits)
}

/// [`check_isolated_on`] with the environment variables `env` set for the child.
fn check_isolated_with(
    exe: &std::path::Path,
    env: &[(String, std::ffi::OsString)],
    chapter: &'static Chapter,
    exercise: &'static Exercise,
    source: KernelSource,
    limits: &Limits,
    target: &Target,
) -> Result<Outcome, String> {
    run_checked(
        child_command(exe, env, chapter, exercise, source, limits, target),
        limits,
    )
}

/// Runs a check's child `cmd` within the exercise's time limit (and a grace): its
/// outcome, or the wall clock's "not graded" when it ran past.
fn run_checked(cmd: Command, limits: &Limits) -> Result<Outcome, String> {
    let checked = run_child(cmd, limits.exercise_timeout() + CHILD_GRACE)?;
    Ok(checked.unwrap_or_else(|| exercise_timed_out(limits)))
}

/// The command of a child that runs the check of `exercise` on `target` ([`CHILD_COMMAND`]).
fn child_command(
    exe: &std::path::Path,
    env: &[(String, std::ffi::OsString)],
    chapter: &'static Chapter,
    exercise: &'static Exercise,
    source: KernelSource,
    limits: &Limits,
    target: &Target,
) -> Command {
    let mut cmd = Command::new(exe);
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    cmd.arg(CHILD_COMMAND)
        .arg(chapter.id)
        .arg(exercise.id)
        .args(["--device", target.key()]);
    limit_args(&mut cmd, source, limits);
    cmd
}

/// The arguments every child of the grader takes (whose kernels, the limits), and the
/// environment it must not see: the report must not depend on the grader's environment (a
/// replay seed would change the inputs, a backtrace setting the text of a crash).
pub(crate) fn limit_args(cmd: &mut Command, source: KernelSource, limits: &Limits) {
    cmd.args(["--kernels", source.name()])
        .args(["--step-budget", &limits.step_budget.to_string()])
        .args(["--spin-steps", &limits.spin_steps.to_string()])
        .args(["--watchdog-ms", &limits.launch_watchdog_ms.to_string()])
        .args(["--timeout-ms", &limits.exercise_timeout_ms.to_string()])
        .args(["--work-instructions", &limits.work.instructions.to_string()])
        .args(["--work-steps", &limits.work.warp_steps.to_string()])
        .env_remove("COURSE_SEED")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
}

/// The body of [`CHILD_COMMAND`]: runs exercise `id` of chapter `chapter` on `target`
/// in this process and prints its [`RESULT_PREFIX`] line. The caller should exit the
/// process right after, which also ends a launch thread left spinning.
pub fn child_main(
    chapters: &[&'static Chapter],
    chapter: &str,
    id: &str,
    source: KernelSource,
    limits: &Limits,
    target: &Target,
) -> Result<(), String> {
    let exercise = chapters
        .iter()
        .find(|c| c.id == chapter)
        .and_then(|c| c.exercise(id))
        .ok_or_else(|| format!("no exercise {id} in chapter {chapter}"))?;
    let checked = check_in_process_on(exercise, source, limits, target);
    let line =
        serde_json::to_string(&checked).map_err(|e| format!("cannot encode the result: {e}"))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "\n{RESULT_PREFIX}{line}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the result: {e}"))
}

/// Runs a child that prints a [`RESULT_PREFIX`] line, killing it after `limit`.
///
/// `Ok(Some(_))`: its result, or [`Status::Error`] if it died without one (a crash: its
/// exit status and the end of its standard error are the details). `Ok(None)`: it was
/// killed at the limit. `Err`: it could not be started.
pub fn run_child(mut cmd: Command, limit: Duration) -> Result<Option<Outcome>, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let program = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                let _ = child.kill();
                return Err(format!("cannot wait for {program}: {e}"));
            }
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let Some(status) = status else {
        return Ok(None);
    };
    if let Some(checked) = parse_result(&stdout) {
        return Ok(Some(checked));
    }
    Ok(Some(crashed(status, &stderr)))
}

/// The outcome of an exercise whose process ended (`status`) without its result: an
/// error, with the last lines of what it wrote on standard error.
pub(crate) fn crashed(status: ExitStatus, stderr: &str) -> Outcome {
    let mut crashed = Outcome::fail(
        Status::Error,
        format!(
            "the exercise's process died without a result ({}): a kernel or host function \
             aborted it (a stack overflow from deep recursion, `std::process::abort`, `exit`)",
            describe_exit(status)
        ),
    );
    let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    for line in &tail[tail.len().saturating_sub(5)..] {
        crashed.details.push(format!("stderr: {}", line.trim_end()));
    }
    crashed
}

/// The last [`RESULT_PREFIX`] line of `stdout`, parsed.
fn parse_result(stdout: &str) -> Option<Outcome> {
    let json = stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(RESULT_PREFIX))?;
    serde_json::from_str(json).ok()
}

/// "exit code 3" or "killed by signal 11 (SIGSEGV)".
fn describe_exit(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                _ => "",
            };
            return format!("killed by signal {sig}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => "no exit code".to_string(),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        cmd
    }

    #[test]
    fn a_childs_last_result_line_counts() {
        let out = run_child(
            sh(
                r#"echo 'grade-result: {"status":"pass","reason":"forged","details":[]}'
                   echo 'noise'
                   echo 'grade-result: {"status":"race","reason":"r","details":["d"]}'"#,
            ),
            Duration::from_secs(10),
        )
        .unwrap()
        .unwrap();
        assert_eq!(out, Outcome::fail(Status::Race, "r").detail("d"));
    }

    #[test]
    fn a_crashed_child_is_an_error_with_its_stderr() {
        let out = run_child(
            sh("echo 'thread overflowed its stack' >&2; kill -SEGV $$"),
            Duration::from_secs(10),
        )
        .unwrap()
        .unwrap();
        assert_eq!(out.status, Status::Error);
        assert!(out.reason.contains("signal 11 (SIGSEGV)"), "{}", out.reason);
        assert_eq!(out.details, vec!["stderr: thread overflowed its stack"]);
        let out = run_child(sh("exit 3"), Duration::from_secs(10))
            .unwrap()
            .unwrap();
        assert!(out.reason.contains("exit code 3"), "{}", out.reason);
    }

    #[test]
    fn a_hanging_child_is_killed_at_the_limit() {
        let t = Instant::now();
        let out = run_child(sh("exec sleep 30"), Duration::from_millis(300)).unwrap();
        assert_eq!(out, None);
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_missing_program_is_an_error_of_the_grader() {
        let err = run_child(
            Command::new("/nonexistent/grade-binary"),
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(
            err.starts_with("cannot start /nonexistent/grade-binary"),
            "{err}"
        );
    }
}
