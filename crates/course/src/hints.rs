//! The course's own hints: for the failures any check can meet, whatever the exercise
//! (a panic, an access out of bounds, a spin...), shown when the exercise has no hint of
//! its own for that failure, and the kinds of failure the course itself names.
//!
//! No hint here, nor any exercise's, holds an answer's code: they ask the question that
//! leads to it (the course's tests compare every hint with the reference solutions).

use crate::outcome::{Failure, Status};

/// A read of shared memory no thread of the block wrote (initcheck): the bins were not
/// zeroed, or were read before the barrier that follows the zeroing.
pub const UNINITIALISED_SHARED: Failure =
    Failure::named(Status::WrongResult, "uninitialised_shared");

/// A shuffle that read a lane which did not take part in it: an undefined value.
pub const SHUFFLE_INACTIVE_LANE: Failure =
    Failure::named(Status::WrongResult, "shuffle_inactive_lane");

/// A write or an atomic (not a read) at an index at or past the end of its buffer
/// (memcheck): an index past the bins, such as a sentinel bin committed or a bin count off
/// by one, rather than a thread with no element of its own reading past the input.
pub const OUT_OF_BOUNDS_WRITE: Failure = Failure::named(Status::OutOfBounds, "out_of_bounds_write");

/// Threads spin on shared memory (the spin detector): they repeat a read or an atomic of a
/// `__shared__` word that no thread of their block still running will change.
pub const SHARED_SPIN: Failure = Failure::named(Status::Livelock, "shared_spin");

/// A lane was stopped (its fuel, the check's work budget) in a loop whose iterations
/// change nothing and make no device call: once entered, it never ends (`while i < n {}`).
pub const ENDLESS_LOOP: Failure = Failure::named(Status::TimedOut, "endless_loop");

/// A lane was stopped in a loop that makes no device call but changes its variables: a
/// loop of arithmetic that runs far longer than the exercise needs, or never reaches its
/// bound.
pub const LONG_LOOP: Failure = Failure::named(Status::TimedOut, "long_loop");

/// The kernels do not build for the emulator's sandbox: a compile error, or what the
/// sandbox refuses (the check could not run because of the student's code).
pub const BUILD: Failure = Failure::named(Status::Error, "build");

/// The student's answer to this exercise does not compile: it was put back to its stub
/// (the other exercises were built without it). The errors are the student's own.
pub const DOES_NOT_COMPILE: Failure = Failure::named(Status::Error, "does_not_compile");

/// The answer was written for an earlier version of its exercise's stub: the function it
/// sits in has another signature now, so it does not compile.
pub const SIGNATURE_CHANGED: Failure = Failure::named(Status::Error, "signature_changed");

/// A wall clock stopped the check before any counted limit did: the grading machine was
/// too slow or too loaded, and the exercise was not graded ([`Outcome::machine_too_slow`]).
///
/// [`Outcome::machine_too_slow`]: crate::Outcome::machine_too_slow
pub const WALL_CLOCK: Failure = Failure::named(Status::Error, "wall_clock");

/// The kinds of failure the course names itself (from the emulator's findings and the
/// sandbox's build), by name: a chapter's records may give an exercise its own hint for
/// one of them.
pub const COURSE_KINDS: [Failure; 10] = [
    UNINITIALISED_SHARED,
    SHUFFLE_INACTIVE_LANE,
    SHARED_SPIN,
    OUT_OF_BOUNDS_WRITE,
    ENDLESS_LOOP,
    LONG_LOOP,
    BUILD,
    DOES_NOT_COMPILE,
    SIGNATURE_CHANGED,
    WALL_CLOCK,
];

/// The failures any exercise's check can meet besides its own (a launch or a host call
/// fails, a finding of the emulator): every exercise lists them
/// ([`Exercise::failures`](crate::Exercise::failures)).
pub const ANY_CHECK: [Failure; 18] = [
    Failure::status(Status::WrongResult),
    UNINITIALISED_SHARED,
    SHUFFLE_INACTIVE_LANE,
    Failure::status(Status::Race),
    Failure::status(Status::BarrierError),
    Failure::status(Status::Livelock),
    SHARED_SPIN,
    Failure::status(Status::OutOfBounds),
    OUT_OF_BOUNDS_WRITE,
    Failure::status(Status::Panicked),
    Failure::status(Status::TimedOut),
    ENDLESS_LOOP,
    LONG_LOOP,
    Failure::status(Status::Error),
    BUILD,
    DOES_NOT_COMPILE,
    SIGNATURE_CHANGED,
    WALL_CLOCK,
];

/// The hints a failure of kind `failure` shows, in order, from an exercise's hints by
/// failure (`by_failure`) and its general ones (`general`): its hints for this very
/// kind (else for its status as a whole), else the course's own ([`course_hint`]: for the
/// kind, else the status), then the general ones. What
/// [`Exercise::hints_for`](crate::Exercise::hints_for) and the runner show.
pub fn choose<'a, S: AsRef<str>>(
    by_failure: &'a [(Failure, S)],
    general: &'a [S],
    failure: Failure,
) -> Vec<&'a str> {
    let mine = |f: Failure| -> Vec<&'a str> {
        by_failure
            .iter()
            .filter(|(on, _)| *on == f)
            .map(|(_, text)| text.as_ref())
            .collect()
    };
    let whole = Failure::status(failure.status);
    let mut answer = mine(failure);
    if answer.is_empty() && failure.name.is_some() {
        answer.extend(course_hint(failure));
    }
    if answer.is_empty() {
        answer = mine(whole);
    }
    if answer.is_empty() {
        answer.extend(course_hint(whole));
    }
    answer.extend(general.iter().map(|h| h.as_ref()));
    answer
}

/// The failures a check of host functions alone can meet besides its own (no launch: no
/// race, no barrier, no finding of the emulator).
pub const HOST_ONLY: [Failure; 8] = [
    Failure::status(Status::WrongResult),
    Failure::status(Status::Panicked),
    Failure::status(Status::TimedOut),
    Failure::status(Status::Error),
    BUILD,
    DOES_NOT_COMPILE,
    SIGNATURE_CHANGED,
    WALL_CLOCK,
];

/// The course's hint for `failure`, used when the exercise has none of its own.
pub fn course_hint(failure: Failure) -> Option<&'static str> {
    COURSE_HINTS
        .iter()
        .find(|(f, _)| *f == failure)
        .map(|&(_, h)| h)
}

/// The course's hints, by failure.
const COURSE_HINTS: [(Failure, &str); 17] = [
    (
        DOES_NOT_COMPILE,
        "Your answer to this exercise does not compile: fix the errors below (each names your \
         file and line) and save. Until then this exercise runs as its stub, and the other \
         exercises are built without it.",
    ),
    (
        SIGNATURE_CHANGED,
        "This exercise's stub changed since your answer was written: its function takes other \
         parameters now (the message shows the new signature beside yours). Take the new stub \
         (the runner's `r` resets the exercise and keeps your file in .course/backups/), then \
         bring your answer into its region, using the new parameters.",
    ),
    (
        WALL_CLOCK,
        "Not a verdict on your code: the machine that checked it was too slow or too busy to \
         finish the check in its time limit, before any of the counts that judge a kernel \
         (instructions, warp steps, printed bytes) ran out. Check it again on a less busy \
         machine (or ask your instructor to regrade it).",
    ),
    (
        BUILD,
        "Your kernels do not build for the emulator: the message shows the compiler's first \
         error (or what the sandbox refuses), with its file and line. Fix it and save: every \
         exercise is checked again.",
    ),
    (
        UNINITIALISED_SHARED,
        "A thread read shared memory that no thread of its block had written (the report names the \
         line): shared memory starts as garbage, not zero. Which words must be set before any \
         thread reads or adds to them, and which barrier makes every thread wait until they are?",
    ),
    (
        SHUFFLE_INACTIVE_LANE,
        "A shuffle read a lane that did not take part in it, and got an undefined value: is every \
         shuffle reached by all the lanes its mask names, outside any branch that only some take?",
    ),
    (
        Failure::status(Status::Race),
        "Two threads touched the same word with nothing ordering them (the report names both \
         lines and threads): which one of them should own that word, or which barrier or atomic \
         must stand between them?",
    ),
    (
        Failure::status(Status::BarrierError),
        "A barrier or warp collective must be reached by every thread it waits for, the same \
         number of times: is one inside a branch or a loop whose condition differs between the \
         threads of a block (or the lanes of a warp)?",
    ),
    (
        Failure::status(Status::Livelock),
        "Some threads spin: they repeat the same operation (a load, a compare-and-swap) and it \
         never sees a change. What must change for your loop to end, and can a thread that is \
         still running change it? A failed compare-and-swap returns the value it found: is that \
         the value your next try expects?",
    ),
    (
        SHARED_SPIN,
        "Some threads spin re-reading shared memory (the report names the line and the loop): \
         the word they wait on can only be changed by a thread of their own block. Is that \
         thread waiting at a barrier, or for the spinning threads in turn? Threads of a block \
         wait for each other at `sync_threads()`, not in a loop on a shared flag.",
    ),
    (
        ENDLESS_LOOP,
        "The loop the report names changes nothing from one iteration to the next (no \
         variable, no memory), so once a thread enters it, it never leaves: which variable \
         should its body move toward the bound its condition tests?",
    ),
    (
        LONG_LOOP,
        "The loop the report names makes no device call and was still running when the \
         check's count ran out: does its variable move toward its bound on every iteration \
         (not past it, not wrapping around), and does it run only as many iterations as the \
         exercise needs?",
    ),
    (
        Failure::status(Status::OutOfBounds),
        "A thread read or wrote past the end of a buffer (the report names the thread, the line \
         and the index): which threads have no element of their own, and which guard keeps \
         them from touching the buffers?",
    ),
    (
        OUT_OF_BOUNDS_WRITE,
        "A thread wrote (or added atomically) at an index at or past the end of the buffer it \
         writes (the report names the index and the buffer's length): where does that index \
         come from? A sentinel that means \"no bin\" committed as if it were a bin, a loop over \
         the bins that goes one bin too far, a bin computed with a count that is off by one?",
    ),
    (
        Failure::status(Status::Panicked),
        "A thread panicked at the line the report names: an index past the end of a local array, \
         a division by zero, a subtraction below zero on an unsigned value? What were the \
         values at that line, for that thread? (`println!` in a kernel shows them, as kernel \
         output.)",
    ),
    (
        Failure::status(Status::TimedOut),
        "A loop that does not end (or does far more work than the exercise needs): does your \
         loop variable grow on every iteration, by the right step, and does the loop condition \
         test it?",
    ),
    (
        Failure::status(Status::Error),
        "The check itself could not run (the message says why): if it names a file of the course \
         rather than your kernels, run `cargo test` on a fresh clone or ask your instructor.",
    ),
];
