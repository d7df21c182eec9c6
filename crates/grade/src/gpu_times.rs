//! A student's kernels timed beside the reference's, on a GPU, on the checks' own inputs.
//!
//! After the checks, each exercise the GPU passed is run once more in a child process of
//! its own ([`TIME_COMMAND`]), one after another so that no other launch shares the GPU: its
//! check with the student's kernels, then with the reference's, on one fresh device each,
//! the device recording every launch's time ([`gpu_host::Device::take_gpu_launches`]). Per
//! kernel of the exercise, the report gets the first launch on the checks' largest input
//! (the most bytes handed to it) and the reference's launch on the same input: one launch
//! each, bracketed by CUDA events. Always on the course's public seed, whatever seed the
//! grade draws from: no size drawn from a private seed reaches a report.
//!
//! The GB/s are the bytes of the device slices the kernel was handed (its input and its
//! output) over its time: for a histogram, about its input.

use crate::engine::CHILD_GRACE;
use course::{Chapter, Exercise, KernelSource, Limits};
use gpu_host::GpuLaunch;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The hidden subcommand of the grader's binary that times one exercise's kernels:
/// `grade __time <chapter> <id>`.
pub const TIME_COMMAND: &str = "__time";

/// The prefix of the line the timing child prints (JSON after it).
pub const TIMES_PREFIX: &str = "grade-times: ";

/// Throughput in GB/s (10^9 bytes per second), compared bit for bit (a report is `Eq`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Gbps(pub f64);

impl PartialEq for Gbps {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}
impl Eq for Gbps {}

impl Gbps {
    /// `bytes` moved in `ns` nanoseconds; 0 for a launch too short to time.
    pub fn of(bytes: u64, ns: u64) -> Gbps {
        Gbps(if ns == 0 {
            0.0
        } else {
            bytes as f64 / ns as f64
        })
    }
}

/// One kernel of an exercise, timed on a GPU beside the reference's on the same input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelTime {
    /// The kernel's name.
    pub kernel: String,
    /// Bytes of the device slices it was handed on the checks' largest input.
    pub bytes: u64,
    /// Threads of that launch.
    pub threads: u64,
    /// The student's kernel: its time, in nanoseconds.
    pub student_ns: u64,
    /// The student's kernel: `bytes` over its time.
    pub student_gbps: Gbps,
    /// The reference kernel on the same input, in the same run: its time, when it ran.
    #[serde(deserialize_with = "course::json::present")]
    pub reference_ns: Option<u64>,
    /// The reference kernel's GB/s.
    #[serde(deserialize_with = "course::json::present")]
    pub reference_gbps: Option<Gbps>,
}

impl KernelTime {
    /// The student's time over the reference's (2.0: twice as slow), when both ran.
    pub fn ratio(&self) -> Option<f64> {
        let r = self.reference_ns.filter(|&r| r > 0)?;
        Some(self.student_ns as f64 / r as f64)
    }

    /// One line: `histo_shared: 0.142 ms, 236.2 GB/s (reference 0.120 ms, 279.6 GB/s:
    /// 1.18x its time) on 33554432 bytes`.
    pub fn line(&self) -> String {
        let reference = match (self.reference_ns, self.reference_gbps) {
            (Some(ns), Some(g)) => {
                let ratio = self
                    .ratio()
                    .map(|r| format!(": {r:.2}x its time"))
                    .unwrap_or_default();
                format!(
                    "reference {:.3} ms, {:.1} GB/s{ratio}",
                    ns as f64 / 1e6,
                    g.0
                )
            }
            _ => "no reference launch on this input".to_string(),
        };
        format!(
            "{}: {:.3} ms, {:.1} GB/s ({reference}) on {} bytes",
            self.kernel,
            self.student_ns as f64 / 1e6,
            self.student_gbps.0,
            self.bytes
        )
    }
}

/// Per kernel of `kernels`: the student's first launch on the largest input (`student`:
/// what the device recorded running the check with the student's kernels), beside the
/// reference's first launch of the same kernel on an input of the same size (`reference`).
pub fn pair(kernels: &[&str], student: &[GpuLaunch], reference: &[GpuLaunch]) -> Vec<KernelTime> {
    let mut out = Vec::new();
    for &k in kernels {
        let of = |log: &[GpuLaunch], module: &str| -> Vec<GpuLaunch> {
            log.iter()
                .filter(|l| l.kernel == k && l.module == module)
                .cloned()
                .collect()
        };
        let mine = of(student, "kernels");
        let Some(largest) = mine.iter().map(|l| l.bytes).max() else {
            continue;
        };
        let Some(s) = mine.iter().find(|l| l.bytes == largest) else {
            continue;
        };
        let r = of(reference, "solutions")
            .into_iter()
            .find(|l| l.bytes == largest);
        let ns = |l: &GpuLaunch| l.time.as_nanos() as u64;
        out.push(KernelTime {
            kernel: k.to_string(),
            bytes: largest,
            threads: s.threads,
            student_ns: ns(s),
            student_gbps: Gbps::of(largest, ns(s)),
            reference_ns: r.as_ref().map(ns),
            reference_gbps: r.as_ref().map(|r| Gbps::of(largest, ns(r))),
        });
    }
    out
}

/// The body of [`TIME_COMMAND`]: runs exercise `id` of `chapter`'s check on the GPU with
/// the student's kernels, then the reference's, and prints the [`TIMES_PREFIX`] line (no
/// times when the student's check fails there).
pub fn child_main(chapters: &[&'static Chapter], chapter: &str, id: &str) -> Result<(), String> {
    let exercise = chapters
        .iter()
        .find(|c| c.id == chapter)
        .and_then(|c| c.exercise(id))
        .ok_or_else(|| format!("no exercise {id} in chapter {chapter}"))?;
    let (passed, student) = run_logged(exercise, KernelSource::Student)?;
    let times = if passed {
        let (_, reference) = run_logged(exercise, KernelSource::Reference)?;
        pair(exercise.kernels, &student, &reference)
    } else {
        Vec::new()
    };
    let json = serde_json::to_string(&times).map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "\n{TIMES_PREFIX}{json}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the times: {e}"))
}

/// The check of `exercise` with `source`'s kernels on a fresh GPU device: whether it
/// passed, and the launches it timed.
fn run_logged(
    exercise: &'static Exercise,
    source: KernelSource,
) -> Result<(bool, Vec<GpuLaunch>), String> {
    let mut dev = chapter::device::open_gpu(&[source]).map_err(|e| e.to_string())?;
    let passed = catch_unwind(AssertUnwindSafe(|| exercise.run(&mut dev, source).passed()))
        .map_err(|_| format!("the check of {} panicked", exercise.id))?;
    Ok((passed, dev.take_gpu_launches()))
}

/// Times every exercise of `work` that launches kernels, one child process of `exe` after
/// another (with the environment variables `env`, on the public seed), each stopped after
/// the exercise's time limit: the times by exercise id. An exercise whose child fails or
/// prints nothing has none.
pub fn measure(
    exe: &Path,
    env: &[(String, std::ffi::OsString)],
    work: &[(&'static Chapter, &'static Exercise)],
    limits: &Limits,
) -> BTreeMap<String, Vec<KernelTime>> {
    let mut out = BTreeMap::new();
    for &(chapter, exercise) in work.iter().filter(|(_, e)| e.launches) {
        let mut cmd = Command::new(exe);
        cmd.envs(env.iter().map(|(k, v)| (k, v)))
            .env_remove(course::draw::PRIVATE_SEED_ENV)
            .env_remove("COURSE_SEED")
            .args([TIME_COMMAND, chapter.id, exercise.id]);
        if let Some(times) = run(cmd, limits.exercise_timeout() * 2 + CHILD_GRACE)
            && !times.is_empty()
        {
            out.insert(exercise.id.to_string(), times);
        }
    }
    out
}

/// Times the kernels of the exercises of `exercises` that passed ([`measure`], the
/// selection's exercises of `chapters`) and puts the times into their report lines.
pub fn attach(
    exercises: &mut [crate::ExerciseReport],
    exe: &Path,
    env: &[(String, std::ffi::OsString)],
    chapters: &[&'static Chapter],
    selection: &crate::Selection,
    limits: &Limits,
) {
    let passed: Vec<_> = crate::engine::selected(chapters, selection)
        .into_iter()
        .filter(|(_, e)| exercises.iter().any(|r| r.id == e.id && r.passed))
        .collect();
    let mut times = measure(exe, env, &passed, limits);
    for r in exercises.iter_mut() {
        if let Some(t) = times.remove(&r.id) {
            r.gpu_times = t;
        }
    }
}

/// Runs a timing child, killed after `limit`: its times, if it printed them.
fn run(mut cmd: Command, limit: Duration) -> Option<Vec<KernelTime>> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break;
            }
        }
    }
    let text = reader.join().ok()?;
    let json = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(TIMES_PREFIX))?;
    serde_json::from_str(json).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(kernel: &'static str, module: &'static str, bytes: u64, us: u64) -> GpuLaunch {
        GpuLaunch {
            kernel,
            module,
            threads: bytes / 4,
            bytes,
            time: Duration::from_micros(us),
        }
    }

    #[test]
    fn the_largest_launch_is_paired_with_the_reference_s_on_the_same_input() {
        let student = [
            launch("histo", "kernels", 1000, 5),
            launch("histo", "kernels", 4_000_000, 40),
            launch("histo", "kernels", 4_000_000, 90),
            launch("other", "solutions", 8_000_000, 1),
        ];
        let reference = [
            launch("histo", "solutions", 1000, 3),
            launch("histo", "solutions", 4_000_000, 20),
        ];
        let t = pair(&["histo", "helper"], &student, &reference);
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!(t[0].bytes, 4_000_000);
        assert_eq!(t[0].student_ns, 40_000);
        assert_eq!(t[0].reference_ns, Some(20_000));
        assert_eq!(t[0].student_gbps, Gbps(100.0));
        assert_eq!(t[0].ratio(), Some(2.0));
        let line = t[0].line();
        assert!(line.contains("0.040 ms, 100.0 GB/s"), "{line}");
        assert!(
            line.contains("reference 0.020 ms, 200.0 GB/s: 2.00x its time"),
            "{line}"
        );
    }

    #[test]
    fn without_a_reference_launch_of_that_size_the_time_stands_alone() {
        let t = pair(
            &["histo"],
            &[launch("histo", "kernels", 64, 2)],
            &[launch("histo", "solutions", 128, 1)],
        );
        assert_eq!(t[0].reference_ns, None);
        assert!(
            t[0].line().contains("no reference launch"),
            "{}",
            t[0].line()
        );
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<Vec<KernelTime>>(&json).unwrap(), t);
    }
}
