//! What every chapter crate (`ch05`, `ch09`) shares: the device its checks, progression
//! and bench run on, the PTX of the kernels a GPU needs, and the harness that runs an
//! exercise's check from a `#[test]`.
//!
//! - [`device`]: the SIMT emulator or a real GPU (`COURSE_DEVICE`, the `cuda` feature), and
//!   the PTX of `kernels` and `solutions` that this crate's `build.rs` compiles with the
//!   pinned nightly and embeds: built once for every chapter, since both crates hold
//!   every chapter's kernels.
//! - [`harness`]: `cargo test -p ch09` (or `ch05`) on the emulator or a GPU, each GPU check
//!   in its own process, a failing GPU check explained by the emulator.
//!
//! A chapter crate re-exports both (`ch09::device`, `ch09::harness`), so its users need
//! not know this crate.

pub mod device;
pub mod harness;
