//! A command run under a wall-clock limit, with every process it started stopped at the
//! limit: the sandbox's builds of a kernel crate.
//!
//! Compiling a stranger's sources can take for ever: a `const` whose evaluation never
//! ends (`#![allow(long_running_const_eval)]` turns off rustc's own stop), a macro that
//! expands without end. The build runs in a process group of its own (on Unix), so that
//! stopping it stops `rustc` too, not only `cargo`, and the lock on the build folder that
//! the build holds is given back.
//!
//! It can also take all the machine's memory: a 1 GiB static array made rustc grow to
//! 22 GB in 266 s. On Linux the command and everything it starts run under a limit of
//! their data memory (`RLIMIT_DATA`, which counts the heap and private mappings), and rustc
//! stops at it with its own error ("tried to allocate more memory than available to
//! compiler"), pointing at the line.

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

/// Runs `cmd` (its stdout and stderr captured, no stdin) for at most `limit`, and on
/// Linux with at most `memory` bytes of data memory for each of its processes.
pub fn run(mut cmd: Command, limit: Duration, memory: u64) -> std::io::Result<Bounded> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    #[cfg(target_os = "linux")]
    limit_memory(&mut cmd, memory);
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
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

/// Sets `RLIMIT_DATA` to `bytes` in the child before it runs the command (inherited by
/// every process it starts).
#[cfg(target_os = "linux")]
fn limit_memory(cmd: &mut Command, bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: the closure runs in the forked child before `exec`, and calls only
    // `setrlimit`, which is async-signal-safe; it touches no memory of the parent.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(cmd, move || {
            if libc::setrlimit(libc::RLIMIT_DATA, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

/// The most bytes of a command's output kept (the rest is read and dropped): a compiler's
/// messages about a stranger's code can be made as long as its memory allows, and they are
/// read into the grader's own process (a report keeps a few KiB of them).
pub const MAX_OUTPUT_BYTES: usize = 16 << 20;

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(pipe) = pipe {
            let mut kept = pipe.take(MAX_OUTPUT_BYTES as u64);
            let _ = kept.read_to_end(&mut bytes);
            // Read on to the end, so that the command never blocks on a full pipe.
            let _ = std::io::copy(&mut kept.into_inner(), &mut std::io::sink());
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
        match run(cmd, Duration::from_secs(30), 1 << 30).expect("sh runs") {
            Bounded::Done(out) => {
                assert_eq!(out.status.code(), Some(3));
                assert_eq!(out.stdout, b"out\n");
                assert_eq!(out.stderr, b"err\n");
            }
            Bounded::Stopped => panic!("stopped"),
        }
    }

    /// Output past [`super::MAX_OUTPUT_BYTES`] is read to its end and dropped: the command
    /// ends, and the grader keeps what it can show.
    #[cfg(unix)]
    #[test]
    fn output_past_its_bound_is_dropped() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "head -c 40000000 /dev/zero >&2; echo done"]);
        match run(cmd, Duration::from_secs(60), 1 << 30).expect("sh runs") {
            Bounded::Done(out) => {
                assert_eq!(out.stderr.len(), super::MAX_OUTPUT_BYTES);
                assert_eq!(out.stdout, b"done\n");
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
        let out = run(cmd, Duration::from_millis(300), 1 << 30).expect("sh runs");
        assert!(matches!(out, Bounded::Stopped), "{out:?}");
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "the grandchild was left running");
    }

    /// A process that allocates past the limit fails to, and says so.
    #[cfg(target_os = "linux")]
    #[test]
    fn memory_past_the_limit_cannot_be_had() {
        let mut cmd = Command::new("python3");
        cmd.args(["-c", "b = bytearray(512 << 20); print(len(b))"]);
        match run(cmd, Duration::from_secs(30), 256 << 20) {
            Ok(Bounded::Done(out)) => {
                assert!(!out.status.success(), "512 MiB under a 256 MiB limit");
                assert!(
                    String::from_utf8_lossy(&out.stderr).contains("MemoryError"),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            Ok(Bounded::Stopped) => panic!("stopped"),
            // No python3 on this machine: nothing to show.
            Err(_) => {}
        }
    }
}
