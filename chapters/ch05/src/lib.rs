//! # Chapter 5: threads, blocks, grids and warps
//!
//! The chapter crate: the exercise registry ([`CHAPTER`]), the checks behind it, the
//! CPU references and counter models they use, the input generators, the host-side
//! launchers, and the progression that `cargo run -p ch05` prints.
//!
//! The kernels themselves live in the student's `kernels` crate (`kernels/src/ch05.rs`)
//! and the reference `solutions` crate; [`kernels::Kernels`] picks one of the two. The
//! crate is built exactly as chapter 9's (`chapters/ch09`): the same registry types, CLI
//! contract, harness and device selection, so a student who knows one knows both.
//!
//! - `cargo test -p ch05` checks the student's kernels, one test per exercise;
//!   `COURSE_KERNELS=reference cargo test -p ch05` checks the references.
//! - `cargo run -p ch05` runs the progression on the emulator and prints its counters.
//! - Checks take a `&mut Device`: on the emulator they test the technique with exact
//!   counters (divergent steps, SIMT efficiency, requests, sectors, atomics, and the
//!   output in several block orders); on a GPU (this crate's `cuda` feature) the
//!   counters are absent, the technique assertions are skipped and the output is still
//!   checked. [`device`] picks the device and holds the embedded PTX; [`harness`] runs a
//!   check from a `#[test]`, each GPU check in a process of its own.
//! - `cargo run -p ch05 --release --features cuda -- bench` times 5.5's blocks-per-SM
//!   sweep and 5.6's four histogram kernels on a GPU ([`bench`](mod@bench)).

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
