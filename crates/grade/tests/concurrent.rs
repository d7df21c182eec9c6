//! One verdict whatever runs at once: two tools that build the same answers at the same
//! time (the runner's rebuild after a save and a `cargo test`, or two graders) share a
//! scratch workspace; each must give the verdict it gives alone. Here two graders of the
//! same clone, started together, again and again: an answer that does not compile is
//! that, never a stub's "not implemented" built from the other's put-back sources.

mod clones;

use clones::exercise;
use std::process::Command;

#[test]
fn builds_started_together_give_the_verdict_each_gives_alone() {
    let broken = "    let x: u32 = \"not a number\";\n    let _ = (data, histo, x);";
    let dir = clones::student_with("concurrent", &[("ch09.rs", "9.3", broken)]);
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_grade"))
            .env_remove("COURSE_SEED")
            .env_remove("COURSE_LANES_KERNELS")
            .env_remove("COURSE_GRADE_SEED")
            .arg("--student")
            .arg(&dir)
            .args(["--exercise", "9.3", "--exercise", "9.4", "--json"])
            .spawn_output()
    };
    for round in 0..4 {
        let (a, b) = (run(), run());
        for child in [a, b] {
            let out = child.wait_with_output().expect("the grader ends");
            let report: serde_json::Value =
                serde_json::from_slice(&out.stdout).expect("the grader's JSON");
            let e = exercise(&report, "9.3");
            assert_eq!(
                (e["status"].as_str(), e["kind"].as_str()),
                (Some("error"), Some("does_not_compile")),
                "round {round}: {e}"
            );
            assert_eq!(exercise(&report, "9.4")["status"], "pass", "round {round}");
        }
    }
}

/// Starts a command with its standard output piped.
trait SpawnOutput {
    fn spawn_output(&mut self) -> std::process::Child;
}

impl SpawnOutput for Command {
    fn spawn_output(&mut self) -> std::process::Child {
        self.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the grader starts")
    }
}
