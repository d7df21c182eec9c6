//! # Chapter 10: the parallel reduction
//!
//! The chapter crate: the exercise registry ([`CHAPTER`]), the checks behind it, the CPU
//! references and input generators they use, the host-side launchers, and the
//! progression that `cargo run -p ch10` prints.
//!
//! The kernels themselves live in the student's `kernels` crate (`kernels/src/ch10.rs`)
//! and the reference `solutions` crate; [`kernels::Kernels`] picks one of the two.
//!
//! - `cargo test -p ch10` checks the student's kernels, one test per exercise;
//!   `COURSE_KERNELS=reference cargo test -p ch10` checks the references.
//! - `cargo run -p ch10` runs the progression on the emulator and prints its counters.
//! - On a GPU (this crate's `cuda` feature) the counters are absent, the technique
//!   assertions are skipped (the pass message says so) and the sums are still checked.
//! - `cargo run -p ch10 --release --features cuda -- bench` measures every step on a GPU
//!   against the read bandwidth, CUB, PyTorch and the CPU ([`bench`](mod@bench)).

#![deny(missing_docs)]

pub mod bench;
pub mod checks;
pub mod command;
pub mod inputs;
pub mod kernels;
pub mod launch;
pub mod progression;
pub mod reference;
pub mod trace;

// `EXERCISES`, `CHAPTER` and `harness`, from `exercises.toml` (see `crates/records`).
include!(concat!(env!("OUT_DIR"), "/registry.rs"));

/// Which device the chapter runs on, and the embedded PTX (shared by every chapter: see
/// the `chapter` crate).
pub use chapter::device;
