//! # `course`: exercises as data
//!
//! Every chapter registers its exercises here as [`Exercise`] values: an id (`"9.4"`), a
//! title, the kernels it covers, points, hints in levels, the book section, and a check.
//! A check runs the kernels of one [`KernelSource`] (the student's `kernels` crate or the
//! reference `solutions`) on a device and returns an [`Outcome`]. The same registry
//! drives `cargo test -p ch09` (the student's checks), `cargo run -p ch09` (the
//! progression), the grader, and the course's self-test.
#![deny(missing_docs)]

mod check;
pub mod draw;
mod exercise;
pub mod hints;
pub mod json;
mod limits;
mod outcome;
pub mod regions;
mod rng;
pub mod words;

pub use check::{catch_host, compare, compare_by, findings_outcome};
pub use exercise::{
    API_PAGE, Chapter, Exercise, KernelSource, REPLAY, kernel_output_section, test_filter,
};
pub use limits::Limits;
pub use outcome::{Failure, Outcome, Status};
pub use rng::{Rng, seed_from_env};
