//! A toy chapter of one exercise (1.1: multiply two arrays, with chapter 5's `mul_blocks`),
//! laid out as every chapter crate is: `exercises.toml` and its generated registry,
//! `kernels`, `progression`, `trace`, `checks` and the [`chapter::app::Progression`] impl.
//! The crate's tests run it through the same command, checks, trace, rehearsal and grader
//! as the course's chapters.

#![deny(missing_docs)]

pub mod checks;
pub mod command;
pub mod kernels;
pub mod progression;
pub mod trace;

// `EXERCISES`, `CHAPTER` and `harness`, from `exercises.toml` (see `crates/records`).
include!(concat!(env!("OUT_DIR"), "/registry.rs"));
