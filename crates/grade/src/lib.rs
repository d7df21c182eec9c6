//! # `grade`: the instructor's grader
//!
//! `cargo run -p grade` turns a student's clone into a score: it runs the check of every
//! exercise of every chapter against the student's `kernels/` crate on the SIMT emulator
//! (or, built with the `cuda` feature, on a GPU: `--device gpu`, [`Target`]), and prints
//! one report, as a terminal table (the default), JSON (`--json`), JUnit XML
//! (`--junit`) or a Markdown feedback comment (`--markdown`). The crate's `README.md`
//! is the instructor's manual (the CLI, the JSON schema, the CI recipe); this library is
//! the grader's machinery, public so that the course's own tests can drive it on fake
//! chapters and lock its output with snapshots.
//!
//! The pieces, in the order a run uses them:
//!
//! - [`Limits`] (`course::Limits`): how long a student's kernel may run, the same for
//!   every check (`cargo test`, the runner, the grader), fixed rather than read from the
//!   environment so that the verdict is the same on every machine.
//! - [`engine`]: runs one exercise's check, either in this process (on a worker thread,
//!   with a fresh device, a panic in check code caught) or isolated in a child process
//!   (the CLI's default: a kernel that crashes the process or spins forever in registers
//!   is killed with its process and costs only its exercise).
//! - [`manifest`]: the tamper check, SHA-256 of every course file except the student's.
//! - [`report`]: the scored report, the one data model every format renders.
//! - [`private`]: under a private seed, every exercise's line sealed: nothing drawn from
//!   the seed (an input, a size, an expected answer, kernel output) reaches a report.
//! - [`render`]: the four formats.
//!
//! Scoring is all or nothing per exercise: an exercise earns its points (from the
//! registry, [`course::Exercise::points`]) when its check passes, and none otherwise.
//! Grading is deterministic: the same clone gives the same report, byte for byte, since
//! checks use seeded inputs, the emulator is deterministic, and the report carries no
//! time or path of the machine.
#![deny(missing_docs)]

pub mod batch;
pub mod class;
pub mod classroom;
pub mod classroom50;
pub mod collect;
pub mod engine;
pub mod gpu_build;
pub mod gpu_times;
pub mod gradebook;
pub mod manifest;
pub mod private;
pub mod regrade;
pub mod render;
pub mod report;
pub mod student;

pub use course::Limits;
pub use engine::{Isolation, Selection, Target, grade, grade_on};
pub use report::{ExerciseReport, Integrity, Report, SCHEMA_VERSION};

use course::Chapter;
use std::path::PathBuf;

/// Every chapter the grader grades, in course order: the course's one list
/// ([`chapters::all`]).
pub fn chapters() -> Vec<&'static Chapter> {
    chapters::all()
}

/// The course this grader grades, found at run time ([`course_root::course_root`]: the
/// course `cargo run -p grade` runs in, from any of its folders, never the folder the
/// grader was built in); `--root` overrides it. `Err` says where it looked.
pub fn workspace_root() -> Result<PathBuf, String> {
    course_root::course_root()
}
