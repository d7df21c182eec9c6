//! A command run under a wall-clock limit, with every process it started stopped at the
//! limit: the sandbox's builds of a kernel crate.
//!
//! Compiling a stranger's sources can take for ever: a `const` whose evaluation never
//! ends (`#![allow(long_running_const_eval)]` turns off rustc's own stop), a macro that
//! expands without end. The build runs in a process group of its own (on Unix), so that
//! stopping it stops `rustc` too, not only `cargo`, and the lock on the build folder that
//! the build holds is given back.

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How a bounded command ended.
#[derive(Debug)]
pub enum Bounded {
    /// It exited (successfully or not) within the limit.
    Done(Output),
    /// It ran past the limit and was stopped, with everything it started.
    Stopped,
}

/// Runs `cmd` (its stdout and stderr captured, no stdin) for at most `limit`.
pub fn run(mut cmd: Command, limit: Duration) -> std::io::Result<Bounded> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Bounded::Done(Output {
                status,
                stdout: stdout.join().unwrap_or_default(),
                stderr: stderr.join().unwrap_or_default(),
            }));
        }
        let elapsed = start.elapsed();
        if elapsed >= limit {
            stop(&mut child);
            let _ = child.wait();
            // The readers end when the last process holding the pipes does; they are not
            // waited for (a process that left the group could hold them).
            return Ok(Bounded::Stopped);
        }
        // A short build (a student's edit: about 0.1 s) is seen ending within a few
        // milliseconds; a long one is polled every 50 ms.
        std::thread::sleep(
            (elapsed / 20).clamp(Duration::from_millis(1), Duration::from_millis(50)),
        );
    }
}

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// Stops `child` and, on Unix, every process of its group (the command's own: see [`run`]).
fn stop(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // The group's id is the child's pid. `kill -KILL -- -PGID` signals the group.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
}

#[cfg(test)]
mod tests {
    use super::{Bounded, run};
    use std::process::Command;
    use std::time::{Duration, Instant};

    #[test]
    fn a_quick_command_is_done_with_its_output() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        match run(cmd, Duration::from_secs(30)).expect("sh runs") {
            Bounded::Done(out) => {
                assert_eq!(out.status.code(), Some(3));
                assert_eq!(out.stdout, b"out\n");
                assert_eq!(out.stderr, b"err\n");
            }
            Bounded::Stopped => panic!("stopped"),
        }
    }

    /// A command that started another (as cargo starts rustc) is stopped with it: the
    /// grandchild would otherwise hold the output pipe, or the build folder's lock.
    #[cfg(unix)]
    #[test]
    fn a_command_past_its_limit_is_stopped_with_its_children() {
        let marker = std::env::temp_dir().join(format!("bounded-{}", std::process::id()));
        let _ = std::fs::remove_file(&marker);
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("(sleep 2; touch {}) & sleep 30", marker.display()));
        let t = Instant::now();
        let out = run(cmd, Duration::from_millis(300)).expect("sh runs");
        assert!(matches!(out, Bounded::Stopped), "{out:?}");
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "the grandchild was left running");
    }
}
