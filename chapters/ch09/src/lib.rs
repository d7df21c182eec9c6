//! # Chapter 9: the parallel histogram
//!
//! The chapter crate: the exercise registry ([`CHAPTER`]), the checks behind it, the
//! CPU references and input generators they use, the host-side launchers, and the
//! progression that `cargo run -p ch09` prints.
//!
//! The kernels themselves live in the student's `kernels` crate (`kernels/src/ch09.rs`)
//! and the reference `solutions` crate; [`kernels::Kernels`] picks one of the two.
//!
//! - `cargo test -p ch09` checks the student's kernels, one test per exercise;
//!   `COURSE_KERNELS=reference cargo test -p ch09` checks the references.
//! - `cargo run -p ch09` runs the progression on the emulator and prints its counters.
//! - Checks take a `&mut Device`: on the emulator they test the technique with exact
//!   counters; on a GPU (this crate's `cuda` feature) the counters are absent, the
//!   technique assertions are skipped (the pass message says so) and the bins are still
//!   checked. [`device`] picks the device and holds the embedded PTX; [`harness`] runs a
//!   check from a `#[test]`, each GPU check in a process of its own.
//! - `cargo run -p ch09 --release --features cuda -- bench` measures every step on a GPU
//!   against the read bandwidth, CUB, PyTorch and the CPU ([`bench`](mod@bench)).

#![deny(missing_docs)]

pub mod bench;
pub mod checks;
pub mod command;
pub mod inputs;
pub mod kernels;
pub mod launch;
pub mod lookup;
pub mod progression;
pub mod reference;
pub mod streams;
pub mod trace;
pub mod verify;

// `EXERCISES`, `CHAPTER` and `harness`, from `exercises.toml` (see `crates/records`).
include!(concat!(env!("OUT_DIR"), "/registry.rs"));

/// Which device the chapter runs on, and the embedded PTX (shared by every chapter: see
/// the `chapter` crate).
pub use chapter::device;
