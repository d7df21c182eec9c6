//! Under a private seed, nothing drawn from it reaches a report.
//!
//! A check's own words name its inputs: the size it ran on, the value of a host function's
//! argument, the bins it expected and those it got, what the kernels printed on that input.
//! Under the course's public seed that is the feedback a student needs (they can run the
//! same case); under an instructor's private seed it is a leak: a student who collects the
//! failure messages of a few gradings holds a table of the private cases and their answers.
//! So the grader's parent process (the one that writes every report, never a process that
//! runs student code) seals each exercise's line of the report at one place, whatever made
//! it (the check, a crashed or hung child, the GPU), before any format renders it:
//!
//! - a pass keeps its status and points, with a fixed reason ([`PASSED`]) and no details;
//! - a failure keeps its status, its kind and its hint, with a reason that says only which
//!   kind of case failed, and, where the course's public seed fails the same way (the same
//!   status and kind: the grader runs that exercise once more under the public seed, in a
//!   child process without the private seed), the public run's reason and details, marked
//!   as the public seed's, with the command that replays them (`cargo test -p ch09
//!   ex_9_04`);
//! - no kernel output is kept (the JSON's `kernel_output` is absent).
//!
//! Nothing of a sealed line depends on the private seed but the verdict: the report is the
//! same, byte for byte, under any two private seeds for a submission whose verdicts do not
//! change. Without a private seed nothing is sealed.

use crate::report::ExerciseReport;
use course::{Chapter, Exercise, Outcome};

/// Is this grading run under a private seed (`--seed`, `--seed-file` or
/// `COURSE_GRADE_SEED`, set in this process's environment before any child starts)?
pub fn active() -> bool {
    course::draw::private_seed().is_some()
}

/// The reason of a pass under a private seed, before what the exercise's check verifies
/// ([`Exercise::checks`]): what a pass means, with no number of the inputs it ran on.
pub const PASSED: &str =
    "every assertion of its check held on inputs drawn from the grader's private seed (not shown)";

/// The reason of a pass of an exercise whose check verifies `checks`, under a private seed.
pub fn passed(checks: &str) -> String {
    if checks.is_empty() {
        PASSED.to_string()
    } else {
        format!("{PASSED}: {checks}")
    }
}

/// The report line of `exercise` of `chapter` for `outcome`, sealed when the run is under a
/// private seed ([`seal`], with `public`, the public seed's outcome of the same exercise
/// when it was run); as [`ExerciseReport::new`] makes it otherwise.
pub fn report(
    chapter: &'static Chapter,
    exercise: &'static Exercise,
    outcome: Outcome,
    public: Option<&Outcome>,
) -> ExerciseReport {
    let line = ExerciseReport::new(chapter, exercise, outcome);
    if active() {
        seal(line, exercise.checks, public)
    } else {
        line
    }
}

/// `line` with nothing drawn from a private seed (see the module docs): its verdict, kind,
/// points and hint (chosen from the private run's failure before this) kept, its reason,
/// details and kernel output replaced; a pass's reason says what its check verifies
/// (`checks`, the exercise's [`Exercise::checks`]). `public` is the outcome of the same exercise under
/// the course's public seed, if it was run (only failures are replayed; `None` also when
/// the checks ran in the grader's own process, which cannot leave the private seed).
pub fn seal(mut line: ExerciseReport, checks: &str, public: Option<&Outcome>) -> ExerciseReport {
    let replay = format!(
        "cargo test -p {} {}",
        line.chapter,
        course::test_filter(&line.id)
    );
    let out = &mut line.outcome;
    out.kernel_output.clear();
    out.details.clear();
    if out.passed() {
        out.reason = passed(checks);
        return line;
    }
    let kind = out
        .kind
        .as_deref()
        .map(|k| format!(" ({k})"))
        .unwrap_or_default();
    out.reason = format!(
        "failed{kind} on inputs drawn from the grader's private seed (not shown: no input, \
         size, expected answer or kernel output of that seed is)"
    );
    let details = match public {
        Some(p) if p.status == out.status && p.kind == out.kind => {
            let mut lines = vec![format!(
                "the course's public seed fails the same way; replay it with `{replay}`:"
            )];
            lines.push(format!("public seed: {}", p.reason));
            lines.extend(p.details.iter().map(|d| format!("public seed: {d}")));
            lines
        }
        Some(p) if p.passed() => vec![format!(
            "the course's public seed passes (`{replay}`): this failure shows only on inputs \
             the public seed does not draw; read the hint and the check's cases in the book"
        )],
        Some(p) => vec![format!(
            "the course's public seed fails another way ({}{}): `{replay}` shows it",
            p.status.label(),
            p.kind
                .as_deref()
                .map(|k| format!(", {k}"))
                .unwrap_or_default()
        )],
        None => vec![format!(
            "the public seed's run was not made (checks in the grader's own process): \
             `{replay}` runs it"
        )],
    };
    out.details = details;
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use course::Status;

    fn line(outcome: Outcome) -> ExerciseReport {
        let chapters = chapters::all();
        let ch = chapters.iter().find(|c| c.id == "ch09").expect("ch09");
        ExerciseReport::new(ch, ch.exercise("9.4").expect("9.4"), outcome)
    }

    #[test]
    fn a_sealed_failure_keeps_its_verdict_and_hint_and_loses_every_drawn_word() {
        let mut private = Outcome::fail(Status::WrongResult, "bin 17: expected 1234, got 1233")
            .detail("input: 4711 bytes");
        private.kind = Some("uncoalesced".into());
        private.kernel_output = vec!["launch 1 …: 4711".into()];
        let before = line(private.clone());
        let mut other = private.clone();
        other.reason = "bin 3: expected 99, got 98".into();
        other.details = vec!["input: 812 bytes".into()];
        // The same verdict under another seed: the same sealed line.
        let a = seal(before.clone(), "", None);
        assert_eq!(a, seal(line(other), "", None));
        assert_eq!(
            (a.status(), a.points, &a.hint),
            (before.status(), before.points, &before.hint)
        );
        assert_eq!(a.outcome.kind.as_deref(), Some("uncoalesced"));
        assert!(a.outcome.kernel_output.is_empty());
        let text = format!("{} {:?}", a.outcome.reason, a.outcome.details);
        for drawn in ["1234", "1233", "4711", "17"] {
            assert!(!text.contains(drawn), "{drawn} in {text}");
        }
        // The public seed failing the same way is offered to replay; a pass is not.
        let public = Outcome::fail(Status::WrongResult, "bin 5: expected 10, got 9")
            .of_kind(course::Failure::named(Status::WrongResult, "uncoalesced"))
            .detail("input: 1001 bytes");
        let replayed = seal(before.clone(), "", Some(&public));
        assert_eq!(
            replayed.outcome.details,
            [
                "the course's public seed fails the same way; replay it with `cargo test -p ch09 ex_9_04`:",
                "public seed: bin 5: expected 10, got 9",
                "public seed: input: 1001 bytes",
            ]
        );
        let passes = seal(before, "", Some(&Outcome::pass("on 1001 bytes")));
        assert!(passes.outcome.details[0].contains("public seed passes"));
        assert!(!passes.outcome.details[0].contains("1001"));
    }

    #[test]
    fn a_sealed_pass_has_the_fixed_reason_and_nothing_else() {
        let mut pass = Outcome::pass("on 1234 colliding elements 567 updates were lost");
        pass.details = vec!["n = 1234".into()];
        pass.kernel_output = vec!["printed 1234".into()];
        let sealed = seal(line(pass), "what 9.4 checks.", None);
        assert_eq!(sealed.outcome.reason, format!("{PASSED}: what 9.4 checks."));
        assert!(sealed.outcome.details.is_empty() && sealed.outcome.kernel_output.is_empty());
        assert!(sealed.passed);
    }
}
