//! What an exercise is.

use crate::hints;
use crate::outcome::{Failure, Outcome, Status};
use gpu_host::Device;
use serde::Serialize;

/// Whose kernels a check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum KernelSource {
    /// The student's `kernels` crate: stubs until solved.
    Student,
    /// The reference `solutions` crate.
    Reference,
}

impl KernelSource {
    /// `"student"` or `"reference"`, as the CLIs spell it.
    pub fn name(self) -> &'static str {
        match self {
            KernelSource::Student => "student",
            KernelSource::Reference => "reference",
        }
    }
}

/// One exercise: data, and the check that grades it.
#[derive(Clone, Copy)]
pub struct Exercise {
    /// The section id, e.g. `"9.4"`: the same in `todo!`, registry, book headings.
    pub id: &'static str,
    /// Short title.
    pub title: &'static str,
    /// The functions (kernels or host functions) the student writes for it.
    pub kernels: &'static [&'static str],
    /// Points for the grader.
    pub points: u32,
    /// Hints for any failure, gentlest first: the levels a student steps through.
    pub hints: &'static [&'static str],
    /// Hints that answer one kind of failure (a race: the barrier; a wrong technique:
    /// the technique; 5.4's wrong prediction of warps per block: warps), shown before
    /// the general [`hints`](Self::hints) when a check fails that way (see
    /// [`hints_for`](Self::hints_for)). No hint, of either kind, states a prediction's
    /// answer or holds the answer's code: they ask the question that leads to it.
    pub hints_by_failure: &'static [(Failure, &'static str)],
    /// Whether the check launches kernels (one of its functions, or of those it is given
    /// or needs, is a kernel): only then can it meet a launch's failures (a race, a
    /// barrier error, a spin...). A check of host functions alone meets a wrong result,
    /// a panic, a time-out.
    pub launches: bool,
    /// The exercises whose functions this one's reference calls (9.9 calls 9.5's
    /// `init_private_bins`): solved out of order, it fails until they are solved, with a
    /// failure that says so. The course's tests derive this list from the reference and
    /// compare.
    pub needs: &'static [&'static str],
    /// The book section, relative to `book/src/` (e.g. `"ch09/04-global-privatization.md"`).
    pub book: &'static str,
    /// What the check verifies, in a sentence without a number drawn from any input (the
    /// record's `checks`): what a pass means where the check's own pass message, which names
    /// its inputs, may not be shown (the grader under a private seed).
    pub checks: &'static str,
    /// Runs the check on `device` with the kernels of `source`.
    pub check: fn(&mut Device, KernelSource) -> Outcome,
}

impl std::fmt::Debug for Exercise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Exercise({} {})", self.id, self.title)
    }
}

impl Exercise {
    /// Runs the check and fills in the exercise id, hint and book section of a failure
    /// (its reason on one line: [`Outcome::one_line_reason`]),
    /// so every failure names the exercise, what went wrong, the first hint and where to read.
    /// A replay line (`replay with COURSE_SEED=N cargo test -p ch09`) gets this exercise's
    /// [test filter](Self::test_filter), so that it reruns this exercise alone.
    ///
    /// The check's host calls count on the same work meter as its launches (the device's,
    /// [`Limits::simt_config`](crate::Limits::simt_config)), or on a meter of their own
    /// with [`Limits::CHECKS`](crate::Limits::CHECKS)' budget when the device has none (a GPU).
    ///
    /// A student's answer that was not built (put back to its stub because it does not
    /// compile, its markers are broken or it holds what the sandbox refuses:
    /// [`gpu_host::lanes::broken`]) is not run: its outcome says why, in every tool alike.
    pub fn run(&self, device: &mut Device, source: KernelSource) -> Outcome {
        if source == KernelSource::Student
            && let Some(why) = gpu_host::lanes::broken(self.id)
        {
            let mut lines = why.into_iter();
            let first = lines.next().unwrap_or_else(|| "does not compile".into());
            let kind = if first.starts_with(gpu_host::lane_build::SIGNATURE_CHANGED) {
                Some(crate::hints::SIGNATURE_CHANGED)
            } else if first.starts_with(gpu_host::lane_build::DOES_NOT_COMPILE) {
                Some(crate::hints::DOES_NOT_COMPILE)
            } else {
                None
            };
            let mut out = Outcome::fail(Status::Error, first);
            if let Some(kind) = kind {
                out = out.of_kind(kind);
            }
            for line in lines {
                out = out.detail(line);
            }
            let mut out = out.one_line_reason();
            out.exercise = self.id;
            return out;
        }
        let meter = device
            .emulator_config_mut()
            .and_then(|c| c.meter.clone())
            .unwrap_or_else(|| gpu_host::meter::Meter::new(crate::Limits::CHECKS.work));
        // What the kernels print is kept apart from what the check finds, and joins the
        // outcome only once the check is done: no check can read it.
        let _ = gpu_host::kernel_output::take();
        let checked = gpu_host::meter::scope(Some(meter), || (self.check)(device, source));
        let mut checked = checked;
        checked.kernel_output = gpu_host::kernel_output::take();
        let mut out = checked.one_line_reason();
        out.exercise = self.id;
        if let Some(dep) = self.blocked_by(out.status, &out.reason) {
            out.reason = format!(
                "needs {dep} first: this exercise calls a function of {dep}, which is still a stub ({})",
                out.reason
            );
        }
        let filter = self.test_filter();
        for d in &mut out.details {
            if d.starts_with(REPLAY) && !d.ends_with(&filter) {
                d.push(' ');
                d.push_str(&filter);
            }
        }
        out
    }

    /// The `cargo test` filter that selects this exercise's test and no other: `ex_9_03`
    /// for 9.3. The step is zero-padded so that `ex_9_01` (9.1) does not also select
    /// 9.10 to 9.16, as `ex_9_1` would; each chapter's `tests/exercises.rs` names its
    /// tests `<filter>_<topic>` (`ex_9_03_global_atomics`).
    pub fn test_filter(&self) -> String {
        test_filter(self.id)
    }

    /// The hints for a failure of kind `failure`, in the order a student sees them (the
    /// first with the failure, the next ones level by level): the exercise's hints for
    /// this very kind (else for its status as a whole), else the course's own for it
    /// ([`hints::course_hint`]: a panic, a spin, an access out of bounds), then the
    /// general ones, gentlest first. A stub's `todo!` gets the general ones alone.
    pub fn hints_for(&self, failure: Failure) -> Vec<&'static str> {
        hints::choose(self.hints_by_failure, self.hints, failure)
    }

    /// Every kind of failure this exercise's check can produce: a stub's `todo!`, the
    /// kinds its records declare (its own hints), and those any check can meet
    /// ([`hints::ANY_CHECK`], or [`hints::HOST_ONLY`] for a check of host functions
    /// alone). The course's tests list each with the hint it gets.
    pub fn failures(&self) -> Vec<Failure> {
        let mut all = vec![Failure::status(Status::NotImplemented)];
        all.extend(self.hints_by_failure.iter().map(|&(f, _)| f));
        if self.launches {
            all.extend(hints::ANY_CHECK);
        } else {
            all.extend(hints::HOST_ONLY);
        }
        all.sort();
        all.dedup();
        all
    }

    /// The kind of failure `out` is, as this exercise knows it: its status and, when the
    /// exercise (or the course) names it, its kind.
    pub fn failure_of(&self, out: &Outcome) -> Failure {
        out.failure(&self.failures())
    }

    /// The exercise of [`needs`](Self::needs) whose stub made a failure of `status` with
    /// `reason` happen, if any: a `todo!` of another exercise (`not yet implemented: 9.5
    /// init_private_bins`).
    pub fn blocked_by(&self, status: Status, reason: &str) -> Option<&'static str> {
        if status != Status::NotImplemented {
            return None;
        }
        let todo = reason.split("not yet implemented: ").nth(1)?;
        let id = todo.split_whitespace().next()?;
        self.needs.iter().copied().find(|&dep| dep == id)
    }

    /// The hint a failure of this exercise shows first: "solve 9.5 first" when a needed
    /// exercise's stub stopped it, else [`first_hint`](Self::first_hint) of its kind.
    pub fn hint_for(&self, out: &Outcome) -> String {
        match self.blocked_by(out.status, &out.reason) {
            Some(dep) => format!(
                "Solve {dep} first (this exercise builds on its functions; `cargo test -p \
                 {} {}` checks it), then come back",
                package_of(dep).unwrap_or_default(),
                test_filter(dep)
            ),
            None => self.first_hint(self.failure_of(out)).to_string(),
        }
    }

    /// The hint a failure of kind `failure` shows first ([`hints_for`](Self::hints_for)).
    pub fn first_hint(&self, failure: Failure) -> &'static str {
        self.hints_for(failure)
            .first()
            .copied()
            .unwrap_or("(no hint)")
    }

    /// The message a failing check shows a student.
    pub fn failure_message(&self, out: &Outcome) -> String {
        let hint = self.hint_for(out);
        let mut s = format!(
            "exercise {} ({}): {} - {}\n",
            self.id,
            self.title,
            out.status.label(),
            out.reason
        );
        for d in &out.details {
            s.push_str("    ");
            s.push_str(d);
            s.push('\n');
        }
        s.push_str(&format!("  hint: {hint}\n"));
        if let Some(draw) = self.draw_command(out.status) {
            s.push_str(&format!("  see it: {draw}\n"));
        }
        s.push_str(&format!("  read: book/src/{}\n", self.book));
        s.push_str(&format!(
            "  api: {API_PAGE} (every function and macro a kernel may use)\n"
        ));
        s.push_str(&kernel_output_section(out));
        s
    }

    /// The command that draws the student's kernels of this exercise (the chapter's
    /// `--trace`: which thread touched which element at each warp step, and the atomic
    /// contention per bin), for a failure a picture explains: a race, a wrong result or
    /// technique, a barrier error, an access out of bounds. `None` for the others (a stub,
    /// a panic, a time-out, an error of the check), and for an exercise whose check
    /// launches no kernel (host functions alone: nothing to trace).
    pub fn draw_command(&self, status: Status) -> Option<String> {
        let drawable = matches!(
            status,
            Status::Race
                | Status::WrongResult
                | Status::WrongTechnique
                | Status::BarrierError
                | Status::OutOfBounds
        );
        let package = package_of(self.id)?;
        // A check of host functions alone launches no kernel: there is nothing to trace.
        (drawable && self.launches).then(|| {
            format!(
                "cargo run -p {package} -- --kernels student --step {id} --trace {id}.svg \
                 (or key t in `cargo run -p learn`)",
                id = self.id
            )
        })
    }

    /// For a `#[test]`: runs the check on the emulator and panics with the student's
    /// message unless it passes.
    pub fn assert_passes(&self, source: KernelSource) {
        self.assert_passes_on(
            &mut Device::emulator_with(crate::Limits::CHECKS.simt_config()),
            source,
        );
    }

    /// [`assert_passes`](Self::assert_passes) on a device of the caller's choosing: a GPU
    /// (`Device::cuda()` with the PTX of `source` loaded) runs the same check for real,
    /// with the counter-based technique assertions skipped.
    pub fn assert_passes_on(&self, device: &mut Device, source: KernelSource) {
        let out = self.run(device, source);
        self.assert_outcome(&out);
    }

    /// For a `#[test]` that obtained the outcome itself (a GPU check run in a child
    /// process): fails the test with the student's message unless `out` is a pass.
    pub fn assert_outcome(&self, out: &Outcome) {
        if out.status == crate::Status::Pass {
            // Shown with `-- --nocapture` (the test harness keeps a passing test's output).
            print!("{}", kernel_output_section(out));
        }
        if out.status != crate::Status::Pass {
            // The message is the report: print it (the test harness shows a failing
            // test's output) and unwind without the panic hook, so no "panicked at
            // exercise.rs" line and no backtrace (even with RUST_BACKTRACE set) bury it.
            println!("\n{}", self.failure_message(out));
            std::panic::resume_unwind(Box::new(format!("exercise {} failed", self.id)));
        }
    }
}

/// The kernel output of `out`, as `cargo test` shows it below a check's report: each
/// line labelled with its launch, block and thread, under a heading that says it is the
/// kernels' own text, which no check reads. Empty when nothing was printed.
pub fn kernel_output_section(out: &Outcome) -> String {
    if out.kernel_output.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "  kernel output ({} lines, printed by your kernels; shown for you, never read by the check):\n",
        out.kernel_output.len()
    );
    for line in &out.kernel_output {
        s.push_str("    | ");
        s.push_str(line);
        s.push('\n');
    }
    s
}

/// The package of exercise `id`'s chapter: `"9.5"` is in `ch09`.
fn package_of(id: &str) -> Option<String> {
    let chapter: u32 = id.split('.').next()?.parse().ok()?;
    Some(format!("ch{chapter:02}"))
}

/// How a check's replay line starts (see [`Exercise::run`]).
pub const REPLAY: &str = "inputs are seeded: replay with COURSE_SEED=";

/// The book's page of the device API (every function, method and macro a kernel may use,
/// one line each), which every failure points to: a student stuck on a name reads it there
/// rather than in the `gpu` crate's source.
pub const API_PAGE: &str = "book/src/device-api.md";

/// The `cargo test` filter of exercise `id` (see [`Exercise::test_filter`]): `"9.3"` gives
/// `ex_9_03`.
pub fn test_filter(id: &str) -> String {
    match id.split_once('.') {
        Some((chapter, step)) => match step.parse::<u32>() {
            Ok(n) => format!("ex_{chapter}_{n:02}"),
            Err(_) => format!("ex_{chapter}_{step}"),
        },
        None => format!("ex_{id}"),
    }
}

/// A chapter: its id, title and exercises in order.
#[derive(Clone, Copy, Debug)]
pub struct Chapter {
    /// `"ch09"`
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// Exercises, in the order the book teaches them.
    pub exercises: &'static [Exercise],
}

impl Chapter {
    /// The exercise with `id`.
    pub fn exercise(&self, id: &str) -> Option<&'static Exercise> {
        self.exercises.iter().find(|e| e.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::test_filter;

    #[test]
    fn a_filter_names_one_step() {
        assert_eq!(test_filter("9.1"), "ex_9_01");
        assert_eq!(test_filter("9.16"), "ex_9_16");
        assert_eq!(test_filter("5.4"), "ex_5_04");
        assert!(!test_filter("9.10").contains(&test_filter("9.1")));
        assert_eq!(super::package_of("9.5").as_deref(), Some("ch09"));
        assert_eq!(super::package_of("5.4").as_deref(), Some("ch05"));
    }

    #[test]
    fn only_an_exercise_that_launches_offers_a_trace() {
        use crate::{Exercise, Outcome, Status};
        fn check(_: &mut gpu_host::Device, _: crate::KernelSource) -> Outcome {
            Outcome::fail(Status::WrongResult, "unused")
        }
        let kernel = Exercise {
            id: "9.4",
            title: "privatization in global memory",
            kernels: &["histo_private_global"],
            points: 10,
            hints: &[],
            hints_by_failure: &[],
            launches: true,
            needs: &[],
            book: "ch09/04-global-privatization.md",
            checks: "copy 0 holds the result.",
            check,
        };
        let trace = kernel.draw_command(Status::WrongResult).expect("a trace");
        assert!(trace.contains("--trace 9.4.svg"), "{trace}");
        // 9.1 and 5.3's grid rule are host functions: no kernel to trace.
        let host = Exercise {
            id: "9.1",
            launches: false,
            ..kernel
        };
        for s in Status::ALL {
            assert_eq!(host.draw_command(s), None, "{s:?}");
        }
        let mut out = Outcome::fail(Status::WrongResult, "1 of 256 bins is wrong");
        out.exercise = "9.1";
        assert!(!host.failure_message(&out).contains("see it"));
    }

    #[test]
    fn a_label_names_one_status() {
        use crate::Status;
        for s in Status::ALL {
            assert_eq!(Status::from_label(s.label()), Some(s));
        }
        assert_eq!(Status::from_label("deadlock"), None);
    }
}
