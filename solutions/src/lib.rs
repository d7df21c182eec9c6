//! # Reference kernels
//!
//! The course's solutions: the same modules, signatures and docs as the student's
//! `kernels` crate, with the code filled in between the `STUDENT-BEGIN`/`STUDENT-END`
//! markers. The course's self-test checks that every one passes its exercise and that
//! outside the markers the two crates are identical.
//!
//! [`bench`](mod@bench) is this crate's alone: the kernels of the chapter's benchmark (a read-bandwidth
//! reference and a deliberately broken kernel for the racecheck demonstration), built into
//! `solutions.ptx` but no exercise. So are [`verify`] (CUDA by Example's check by
//! decrementing, as a kernel) and [`lookup`] (a table of bins in constant memory).
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bench;
pub mod ch05;
pub mod ch09;
pub mod ch10;
pub mod lookup;
pub mod verify;
