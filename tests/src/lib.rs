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
pub mod moved;
pub mod moved_ptx;
pub mod regions;

use course::Chapter;
use std::path::PathBuf;

/// Every chapter of the course, in order: the course's one list ([`chapters::all`]).
pub fn chapters() -> Vec<&'static Chapter> {
    chapters::all()
}

/// The course these tests run in, found at run time ([`course_root::course_root`]).
pub fn workspace_root() -> PathBuf {
    course_root::course_root().expect("the course these tests run in")
}

/// Makes the pristine stubs (`crates/learn/pristine`, what a fresh clone's `kernels/src`
/// holds) the `kernels` module this process runs, built as `grade --student` builds a
/// student's sources, so that a test of the untouched stubs sees them whatever
/// `kernels/` holds now (a course test must not depend on it). Once per process, and
/// first: it sets the environment variable the sandbox reads, so call it before the test
/// starts any thread.
pub fn use_pristine_stubs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let root = workspace_root();
        let dest = root
            .join("target")
            .join("course-tests")
            .join("pristine-stubs");
        let src = learn::cargo::write_pristine_sources(&root, &dest).expect("the pristine stubs");
        gpu_host::lanes::use_student(&src, &root).expect("the pristine stubs build");
    });
}
