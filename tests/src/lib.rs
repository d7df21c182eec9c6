//! # `course-tests`: the course checks itself
//!
//! Like rustlings' `dev check` and the skeleton check of GPU puzzle courses, the tests of
//! this crate (run by a plain `cargo test`) prove that the course is consistent:
//!
//! - every reference solution passes every check of its exercise;
//! - every student stub compiles and fails *with its own hint* (not a crash, not a pass);
//! - each stub file equals its solution file outside the marked student regions, so
//!   what a student is given is exactly the reference minus the answers;
//! - every exercise has a book section, and the book's includes and links resolve.
//!
//! The library holds the pieces the tests and the grader share.
#![deny(missing_docs)]

pub mod book;
pub mod regions;

use course::Chapter;
use std::path::PathBuf;

/// Every chapter of the course, in order: the course's one list ([`chapters::all`]).
pub fn chapters() -> Vec<&'static Chapter> {
    chapters::all()
}

/// The workspace root (this crate lives in `tests/`).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("invariant: tests/ has a parent")
        .to_path_buf()
}
