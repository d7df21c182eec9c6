//! Many exercises in one child process: a class run's submission.
//!
//! Grading one exercise per child process ([`crate::engine::Isolation::Subprocess`]) pays a
//! process start, the sandbox's module load and the emulator's set-up per exercise: about
//! a quarter of a submission's time in a class run of reference-like code. Every exercise's
//! kernels run in the sandbox (WebAssembly lanes) and every check on a fresh device in a
//! thread of its own, so one process can run a submission's exercises one after another
//! with the same verdicts; what it cannot survive is what kills a process (a native stack
//! overflow in a check, an abort) or a check stopped by its wall clock, whose thread may
//! still spin. So the child ([`child_main`]) says which exercise it starts
//! ([`START_PREFIX`]) and gives each result as it has it, and ends itself after a check
//! stopped by its wall clock; the parent ([`grade`]) reads the lines as they come, and when
//! the child dies or hangs, records that for the exercise it was running, exactly as a
//! child of its own would have, and starts a new child for the exercises left.

use crate::engine::{self, CHILD_GRACE, RESULT_PREFIX};
use course::{Chapter, Exercise, KernelSource, Limits, Outcome, Status};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Instant;

/// The hidden subcommand of the grader's binary that runs several exercises:
/// `grade __exercises --only ch09/9.3 --only ch09/9.4 … --kernels … --step-budget …`.
pub const BATCH_COMMAND: &str = "__exercises";

/// The prefix of the line the batch child prints before each exercise (its index in the
/// batch after it).
pub const START_PREFIX: &str = "grade-start: ";

/// In the child: runs exercises `work` (chapter and id) of `chapters` one after another
/// on the emulator, printing a [`START_PREFIX`] line before each and a [`RESULT_PREFIX`]
/// line after it. After a check stopped by its wall clock it returns (its thread may still
/// spin); the caller should exit the process right away.
pub fn child_main(
    chapters: &[&'static Chapter],
    work: &[(String, String)],
    source: KernelSource,
    limits: &Limits,
) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    for (k, (chapter, id)) in work.iter().enumerate() {
        let exercise = chapters
            .iter()
            .find(|c| c.id == chapter)
            .and_then(|c| c.exercise(id))
            .ok_or_else(|| format!("no exercise {id} in chapter {chapter}"))?;
        writeln!(out, "\n{START_PREFIX}{k}")
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write: {e}"))?;
        let checked = engine::check_in_process(exercise, source, limits);
        let stopped_by_clock = checked == engine::exercise_timed_out(limits);
        let line = serde_json::to_string(&checked)
            .map_err(|e| format!("cannot encode the result: {e}"))?;
        writeln!(out, "\n{RESULT_PREFIX}{line}")
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write the result: {e}"))?;
        if stopped_by_clock {
            break;
        }
    }
    Ok(())
}

/// What the batch child said, line by line.
enum Said {
    Started(usize),
    Result(Option<Outcome>),
}

/// Grades `work` on the emulator in batch children of the grader's binary `exe` (each with
/// the environment variables `env`), as few as it takes (see the module docs); the
/// outcomes in `work`'s order. `Err` only when a child cannot be started.
pub fn grade(
    exe: &Path,
    env: &[(String, std::ffi::OsString)],
    work: &[(&'static Chapter, &'static Exercise)],
    source: KernelSource,
    limits: &Limits,
) -> Result<Vec<Outcome>, String> {
    let mut results: Vec<Option<Outcome>> = vec![None; work.len()];
    let limit = limits.exercise_timeout() + CHILD_GRACE;
    loop {
        let pending: Vec<usize> = (0..work.len()).filter(|&i| results[i].is_none()).collect();
        if pending.is_empty() {
            break;
        }
        let mut cmd = Command::new(exe);
        cmd.arg(BATCH_COMMAND);
        for &i in &pending {
            cmd.arg("--only")
                .arg(format!("{}/{}", work[i].0.id, work[i].1.id));
        }
        engine::limit_args(&mut cmd, source, limits);
        cmd.envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let program = exe.display().to_string();
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take();
        std::thread::spawn(move || {
            let Some(stdout) = stdout else { return };
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let said = if let Some(k) = line.strip_prefix(START_PREFIX) {
                    k.trim().parse().ok().map(Said::Started)
                } else {
                    line.strip_prefix(RESULT_PREFIX)
                        .map(|json| Said::Result(serde_json::from_str(json).ok()))
                };
                if let Some(said) = said
                    && tx.send(said).is_err()
                {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(s) = stderr.as_mut() {
                let _ = s.read_to_string(&mut text);
            }
            text
        });
        let mut current: Option<usize> = None;
        let mut next = 0;
        let mut progressed = false;
        let mut deadline = Instant::now() + limit;
        let hung = loop {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                // Only the start the child owes next counts: the lines come in order,
                // one start and one result per exercise.
                Ok(Said::Started(k)) if current.is_none() && k == next => {
                    current = pending.get(k).copied();
                    next += 1;
                    deadline = Instant::now() + limit;
                }
                Ok(Said::Started(_)) => {}
                Ok(Said::Result(outcome)) => {
                    if let Some(i) = current.take() {
                        results[i] = Some(outcome.unwrap_or_else(|| {
                            Outcome::fail(
                                Status::Error,
                                "the exercise's process wrote a result that cannot be read",
                            )
                        }));
                        progressed = true;
                    }
                    deadline = Instant::now() + limit;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break false,
                Err(mpsc::RecvTimeoutError::Timeout) => break true,
            }
        };
        if hung {
            let _ = child.kill();
        }
        let status = child
            .wait()
            .map_err(|e| format!("cannot wait for {program}: {e}"))?;
        let stderr = stderr.join().unwrap_or_default();
        match current {
            Some(i) if hung => results[i] = Some(engine::exercise_timed_out(limits)),
            Some(i) => results[i] = Some(engine::crashed(status, &stderr)),
            None if !progressed => {
                // The child died before it started an exercise: the first one left says so
                // (never a loop of children that all die at start).
                results[pending[0]] = Some(engine::crashed(status, &stderr));
            }
            None => {}
        }
    }
    Ok(results
        .into_iter()
        .map(|r| r.expect("invariant: every exercise got a result"))
        .collect())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A stand-in for the grader's binary that speaks the batch protocol and dies (a
    /// SIGSEGV) when it starts exercise 5.2; then a child for what is left. After each
    /// start it prints another, out of turn (as text a check printed might), which must not
    /// move the result to another exercise.
    #[test]
    fn a_child_that_dies_costs_the_exercise_it_ran_and_a_new_child_runs_the_rest() {
        let dir = std::env::temp_dir().join(format!("grade-batch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("fake-grade");
        std::fs::write(
            &exe,
            "#!/bin/sh\nk=0\nwhile [ $# -gt 0 ]; do\n  if [ \"$1\" = --only ]; then\n    echo \"grade-start: $k\"\n    echo 'grade-start: 2'\n    \
             if [ \"$2\" = ch05/5.2 ]; then echo 'overflowed' >&2; kill -SEGV $$; fi\n    \
             echo 'grade-result: {\"status\":\"pass\",\"reason\":\"'$2'\",\"details\":[]}'\n    \
             k=$((k+1)); shift\n  fi\n  shift\ndone\n",
        )
        .unwrap();
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&exe)
            .status()
            .unwrap();
        let chapters = chapters::all();
        let work = engine::selected(&chapters, &crate::Selection::only(["5.1", "5.2", "5.3"]));
        let out = grade(&exe, &[], &work, KernelSource::Student, &Limits::CHECKS).unwrap();
        assert_eq!(
            (out[0].status, out[0].reason.as_str()),
            (Status::Pass, "ch05/5.1")
        );
        assert_eq!(out[1].status, Status::Error);
        assert!(out[1].reason.contains("signal 11"), "{}", out[1].reason);
        assert_eq!(out[1].details, vec!["stderr: overflowed"]);
        assert_eq!(
            (out[2].status, out[2].reason.as_str()),
            (Status::Pass, "ch05/5.3")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
