//! What every chapter crate (`ch05`, `ch09`, `ch10`, ...) shares: the device its checks, progression
//! and bench run on, the PTX of the kernels a GPU needs, the harness that runs an
//! exercise's check from a `#[test]`, and the parts of the progression command that are
//! the same in every chapter.
//!
//! - [`app`]: the progression command, generic over a chapter's [`app::Progression`].
//! - [`device`]: the SIMT emulator or a real GPU (`COURSE_DEVICE`, the `cuda` feature), and
//!   the PTX of `kernels` and `solutions` that this crate's `build.rs` compiles with the
//!   pinned nightly and embeds: built once for every chapter, since both crates hold
//!   every chapter's kernels.
//! - [`harness`]: `cargo test -p chNN` on the emulator or a GPU, each GPU check
//!   in its own process, a failing GPU check explained by the emulator.
//! - [`row`]: the progression's row and counters, one type for every chapter.
//! - [`table`]: the progression's aligned text table and its notes.
//! - [`timing`]: a GPU launch's time and throughput, a bench's median and repetitions.
//! - [`provenance`]: the driver version and UTC date a bench report records.
//! - [`rehearsal`]: the student's kernels rehearsed on the emulator before a GPU.
//! - [`trace`]: one step traced on the emulator and its busiest launch drawn.
//! - [`inputs`]: one named input of a check.
//! - [`launch`]: the grid of one element per thread, the download-and-free of a launch.
//! - [`cli`]: `--device`, printing, `--trace`, JSON or text output, the start and end of
//!   `bench`.
//! - [`check_tests`]: what a chapter's tests of its checks share.
//! - [`checking`]: what every check context does: a seeded block order, the replay line.
//! - [`declared`]: a progression step as data, the launches an exercise's record declares,
//!   and how a kernel's data must flow.
//! - [`follow`]: a launch's data followed from each load to its bin, against its
//!   declaration.
//!
//! A chapter crate re-exports `device` and `harness` (`ch09::device`, `ch09::harness`), so
//! its users need not know this crate.

#![deny(missing_docs)]

pub mod app;
pub mod check_tests;
pub mod checking;
pub mod cli;
pub mod declared;
pub mod device;
pub mod follow;
pub mod harness;
pub mod inputs;
pub mod launch;
pub mod provenance;
pub mod rehearsal;
pub mod row;
pub mod table;
pub mod timing;
pub mod trace;
pub mod trace_svg;
