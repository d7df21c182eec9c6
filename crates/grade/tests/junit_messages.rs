//! The JUnit `message` of a failure starts with its status label, whatever the status and
//! whatever its reason starts with: a racecheck's reason starts with "race", a livelock's
//! with "livelock", and the status was dropped from both.

use course::Status;
use grade::Report;
use grade::render::{Format, render};

/// A reason as the checks write it for `status`.
fn reason(status: Status) -> &'static str {
    match status {
        Status::Race => {
            "racecheck: Race reported between Write access at kernels/src/ch09.rs:40:9 by \
             thread (3,0,0) and Read access at kernels/src/ch09.rs:52:21 by thread (0,0,0)"
        }
        Status::Livelock => {
            "livelock in block (0,0,0): threads spin forever, each repeating an operation"
        }
        Status::TimedOut => "timed out: thread (0,0,0) of block (0,0,0) ran 100000 instructions",
        Status::OutOfBounds => {
            "memcheck: Invalid atomicAdd on __global__ at kernels/src/ch09.rs:9:5: index 5 is \
             out of bounds (the buffer has 5 elements)"
        }
        Status::BarrierError => "barrier error in block (0,0,0): threads wait at two barriers",
        Status::WrongResult => "3 of 256 bins are wrong",
        _ => "the check says why",
    }
}

/// A one-exercise report of 9.3 failing with `status`.
fn report(status: Status) -> Report {
    let json = serde_json::json!({
        "schema_version": 1, "grader": "grade 0", "kernels": "student", "device": "emulator",
        "device_name": "SIMT emulator", "device_driver": null, "scoring": "all_or_nothing",
        "limits": course::Limits::CHECKS,
        "points": { "earned": 0, "possible": 10 }, "passed": 0, "exercises_graded": 1,
        "tampered": false,
        "integrity": {
            "manifest": "crates/grade/manifest.txt", "files_listed": 3, "files": [],
            "error": null
        },
        "inputs": "the course's public seed",
        "ignored": [],
        "build_note": null,
        "chapters": [{ "id": "ch09", "title": "The parallel histogram", "exercises": 1,
                       "passed": 0, "points": { "earned": 0, "possible": 10 } }],
        "exercises": [{
            "chapter": "ch09", "id": "9.3", "title": "global atomics", "kernels": ["histo_atomic"],
            "status": status.key(), "reason": reason(status), "details": [],
            "status_label": status.label(), "passed": false,
            "points": { "earned": 0, "possible": 10 },
            "hint": "Which operation adds 1 without losing an update?",
            "book": "book/src/ch09/03-global-atomics.md"
        }]
    });
    serde_json::from_value(json).expect("a report")
}

#[test]
fn every_failure_message_holds_its_status() {
    for status in Status::ALL.into_iter().filter(|&s| s != Status::Pass) {
        let junit = render(&report(status), Format::Junit);
        let doc = roxmltree::Document::parse(&junit).expect("XML");
        let failure = doc
            .descendants()
            .find(|n| n.has_tag_name("failure") || n.has_tag_name("error"))
            .unwrap_or_else(|| panic!("no failure for {status:?}:\n{junit}"));
        let message = failure.attribute("message").expect("a message");
        let label = format!("{}: ", status.label());
        assert!(
            message.starts_with(&label),
            "{status:?}: `{message}` does not start with `{label}`"
        );
        assert!(message.contains(reason(status)), "{status:?}: {message}");
        // The status once where the reason already starts with it.
        assert!(
            !message.starts_with(&format!("{label}{label}")),
            "{status:?}: {message}"
        );
    }
}
