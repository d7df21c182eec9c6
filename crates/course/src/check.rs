//! Building blocks of checks that every chapter needs: calling a student's host function
//! without crashing the test binary, comparing results, and turning the emulator's
//! findings into outcomes.

use crate::outcome::{Outcome, Status};
use gpu_host::Finding;
use std::cell::{Cell, RefCell};
use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};

thread_local! {
    /// Set while [`catch_host`] runs a function on this thread: its panic is expected.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// The message of the last panic caught quietly on this thread, and whether it was a
    /// sandboxed function that timed out.
    static CAUGHT: RefCell<Option<(String, bool)>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that keeps the panics [`catch_host`] expects off stderr
/// and records their message; every other panic goes to the hook that was there before.
fn install_quiet_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let message = gpu_host::panic_message(info.payload())
                    .unwrap_or_else(|| "(a panic without a message)".to_string());
                // A sandboxed host function's panic carries the lane's own location, and
                // says whether the function never returned.
                let lane = info.payload().downcast_ref::<gpu_host::LanePanic>();
                let at = match lane {
                    Some(p) => p.at.as_ref().map(|at| format!(" (at {at})")),
                    None => info
                        .location()
                        .map(|l| format!(" (at {}:{})", l.file(), l.line())),
                }
                .unwrap_or_default();
                let timed_out = lane.is_some_and(|p| p.timed_out);
                CAUGHT.with(|c| *c.borrow_mut() = Some((format!("{message}{at}"), timed_out)));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs a student's host function (a sequential loop, a prediction, a choice) and turns a
/// panic into an outcome instead of a crash: a `todo!()` is
/// [`Status::NotImplemented`] with the `todo!` message as the reason, a sandboxed
/// function that never returned (its fuel or the check's work budget ran out)
/// [`Status::TimedOut`], any other panic [`Status::Panicked`]. The panic message is not
/// printed, so a check's report is the only thing the student sees.
///
/// ```
/// let out = course::catch_host(|| -> u32 { todo!("9.2 predict: the count") });
/// assert_eq!(out.unwrap_err().status, course::Status::NotImplemented);
/// assert_eq!(course::catch_host(|| 6 * 7).unwrap(), 42);
/// ```
pub fn catch_host<R>(f: impl FnOnce() -> R) -> Result<R, Outcome> {
    install_quiet_hook();
    let was = QUIET.with(|q| q.replace(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    result.map_err(|_| {
        let (message, timed_out) = CAUGHT
            .with(|c| c.borrow_mut().take())
            .unwrap_or_else(|| ("(panic message unavailable)".into(), false));
        if timed_out {
            Outcome::fail(Status::TimedOut, message)
        } else {
            Outcome::from_host_panic(&message)
        }
    })
}

/// Compares `got` with `expected` element by element. On a difference, returns a
/// [`Status::WrongResult`] outcome whose reason counts the wrong elements and whose
/// details list the first few as `what[i]: expected E, got G`; the caller adds what the
/// input was.
///
/// `what` names an element for the student: a noun (`"bin"`, `"pixel"`: "3 of 256 bins
/// are wrong (first: bin 5 ...)", "1 of 256 bins is wrong ...") or, ending in `[]`, the
/// buffer the elements are of (`"a[]"`: `2 of 1000 elements of a are wrong (first: a[5] ...)`).
pub fn compare<T: PartialEq + Display>(
    what: &str,
    expected: &[T],
    got: &[T],
) -> Result<(), Outcome> {
    compare_by(what, expected, got, |_, e, g| e == g)
}

/// [`compare`] with an equality of your choosing, given the element's index, the
/// expected and the actual value (a tolerance for floating point, per element).
pub fn compare_by<T: Display>(
    what: &str,
    expected: &[T],
    got: &[T],
    same: impl Fn(usize, &T, &T) -> bool,
) -> Result<(), Outcome> {
    // `what` is a noun ("bin": "3 of 256 bins are wrong (first: bin 5 ...)") or, ending
    // in `[]`, a buffer's name ("a[]": "1 of 1000 elements of a is wrong (first: a[5] ...)").
    let name = what.strip_suffix("[]");
    let at = |i: usize| match name {
        Some(name) => format!("{name}[{i}]"),
        None => format!("{what} {i}"),
    };
    let of = |n: usize| match name {
        Some(name) => format!("{} of {name}", crate::words::plural(n as u64, "element")),
        None => crate::words::plural(n as u64, what),
    };
    if expected.len() != got.len() {
        return Err(Outcome::fail(
            Status::WrongResult,
            format!(
                "expected {} {}, got {}",
                expected.len(),
                of(expected.len()),
                got.len()
            ),
        ));
    }
    let wrong: Vec<usize> = (0..expected.len())
        .filter(|&i| !same(i, &expected[i], &got[i]))
        .collect();
    let Some(&first) = wrong.first() else {
        return Ok(());
    };
    let mut out = Outcome::fail(
        Status::WrongResult,
        format!(
            "{} of {} {} {} wrong (first: {} expected {}, got {})",
            wrong.len(),
            expected.len(),
            of(expected.len()),
            if wrong.len() == 1 { "is" } else { "are" },
            at(first),
            expected[first],
            got[first]
        ),
    );
    for &i in wrong.iter().take(5) {
        out = out.detail(format!(
            "{}: expected {}, got {}",
            at(i),
            expected[i],
            got[i]
        ));
    }
    if wrong.len() > 5 {
        out = out.detail(format!("... and {} more", wrong.len() - 5));
    }
    Err(out)
}

/// The outcome a launch's findings call for, if any: a data race (racecheck, or the
/// emulator's global-memory extension) is [`Status::Race`]; a read of shared memory no
/// thread wrote (initcheck) or a shuffle from a lane that did not take part is
/// [`Status::WrongResult`], since the value read is garbage. The first such finding is
/// the reason; the others follow as details. `None` when the findings are clean.
pub fn findings_outcome(findings: &[Finding]) -> Option<Outcome> {
    let races: Vec<&Finding> = findings.iter().filter(|f| f.is_race()).collect();
    let (status, list): (Status, Vec<&Finding>) = if !races.is_empty() {
        (Status::Race, races)
    } else if !findings.is_empty() {
        (Status::WrongResult, findings.iter().collect())
    } else {
        return None;
    };
    let mut out = Outcome::fail(status, list[0].to_string());
    if status == Status::WrongResult {
        match list[0] {
            Finding::UninitializedShared { .. } => {
                out = out.of_kind(crate::hints::UNINITIALISED_SHARED);
            }
            Finding::ShuffleFromInactiveLane { .. } => {
                out = out.of_kind(crate::hints::SHUFFLE_INACTIVE_LANE);
            }
            _ => {}
        }
    }
    for f in list.iter().skip(1).take(4) {
        out = out.detail(f.to_string());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_panics_become_outcomes() {
        let todo = catch_host(|| -> u32 { todo!("9.1 sequential: count") }).unwrap_err();
        assert_eq!(todo.status, Status::NotImplemented);
        assert!(todo.reason.contains("9.1 sequential"), "{}", todo.reason);
        let bug = catch_host(|| -> u32 { [1u32, 2][std::hint::black_box(5)] }).unwrap_err();
        assert_eq!(bug.status, Status::Panicked);
        assert!(bug.reason.contains("index out of bounds"), "{}", bug.reason);
        assert_eq!(catch_host(|| 3).unwrap(), 3);
        // A sandboxed function that never returned is a time-out, not a panic.
        let endless = catch_host(|| -> u32 {
            std::panic::panic_any(gpu_host::LanePanic {
                message: "timed out: `spin` ran 20 WebAssembly instructions without returning"
                    .into(),
                at: None,
                timed_out: true,
            })
        })
        .unwrap_err();
        assert_eq!(endless.status, Status::TimedOut);
        assert!(
            endless.reason.starts_with("timed out: `spin`"),
            "{}",
            endless.reason
        );
    }

    #[test]
    fn compare_lists_the_first_differences() {
        assert!(compare("bin", &[1, 2, 3], &[1, 2, 3]).is_ok());
        let out = compare("bin", &[1, 2, 3, 4], &[1, 0, 3, 5]).unwrap_err();
        assert_eq!(out.status, Status::WrongResult);
        assert!(
            out.reason
                .starts_with("2 of 4 bins are wrong (first: bin 1 expected 2, got 0)"),
            "{}",
            out.reason
        );
        assert_eq!(
            out.details,
            vec!["bin 1: expected 2, got 0", "bin 3: expected 4, got 5"]
        );
        let len = compare("bin", &[1], &[1, 2]).unwrap_err();
        assert!(
            len.reason.contains("expected 1 bin, got 2"),
            "{}",
            len.reason
        );
        // One wrong of many: "is"; a buffer's name is not a noun ("999 of 1000 dsts").
        let one = compare("bin", &[1, 2], &[1, 3]).unwrap_err();
        assert!(
            one.reason
                .starts_with("1 of 2 bins is wrong (first: bin 1 ")
        );
        let dst = compare("dst[]", &[1, 2, 3], &[0, 0, 3]).unwrap_err();
        assert!(
            dst.reason
                .starts_with("2 of 3 elements of dst are wrong (first: dst[0] expected 1, got 0)"),
            "{}",
            dst.reason
        );
        assert_eq!(dst.details[0], "dst[0]: expected 1, got 0");
        assert!(compare_by("bin", &[1.0f32], &[1.0001], |_, e, g| (e - g).abs() < 1e-3).is_ok());
    }

    #[test]
    fn clean_findings_are_no_outcome() {
        assert_eq!(findings_outcome(&[]), None);
    }
}
