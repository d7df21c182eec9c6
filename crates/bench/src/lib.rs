//! # The course's GPU bench
//!
//! What every chapter's `bench` subcommand shares: a chapter's bench is its kernels (a
//! list of [`steps::Step`]s), its inputs ([`data`]) and its anchors' names ([`external`]);
//! this crate times them and writes the results.
//!
//! - **Timing** ([`measure`]): a checked first launch, then up to `warmup` untimed and
//!   `reps` timed launches, each alone between two CUDA events, from a cold L2 and a zeroed
//!   output (outside the events); fewer when one launch is slow, so that a case takes
//!   about its budget. The row's time is the median. CPU loops the same way, on the host's
//!   clock.
//! - **Warm-up** ([`warm`]): the GPU kept busy until its times settle, before the first
//!   timed case.
//! - **The limit** ([`reference`](mod@reference)): a read-only kernel with 16-byte loads and a
//!   device-to-device copy on the same input; every row's `pct_read_bw` is a percentage of
//!   the faster.
//! - **Anchors**: the CPU ([`cpu`], [`cpu_simd`] for histograms, [`cpu_sum`] for sums), and programs a user would run instead
//!   of writing a kernel (CUB, PyTorch: [`external`]).
//! - **Options** ([`options`]): what every chapter's `bench` takes alike, on the command
//!   line and checked.
//! - **Modes**: the size sweep ([`sizes`]) and the same-grid runs ([`steps`]).
//! - **Results** ([`report`], [`provenance`]): a table, CSV and JSON with a header saying
//!   where, when and how.

#![deny(missing_docs)]

pub mod cpu;
pub mod cpu_simd;
pub mod cpu_sum;
pub mod data;
pub mod external;
pub mod measure;
pub mod options;
pub mod provenance;
pub mod reference;
pub mod report;
pub mod sizes;
pub mod steps;
pub mod warm;

/// The median of `times` and how many runs fit a budget ([`chapter::timing`]).
pub use chapter::timing::{median, plan};

/// The suffix of a student's row's implementation (`histo_atomic (yours)`).
pub const YOURS: &str = " (yours)";

/// Threads per block of the bench's own kernels (the read kernel, the warm-up).
pub const BLOCK: u32 = 256;

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn plans_fit_the_budget() {
        let ms = Duration::from_millis;
        assert_eq!(plan(ms(1), 3, 20, ms(2000)), (3, 20));
        assert_eq!(plan(ms(100), 3, 20, ms(2000)), (0, 20));
        assert_eq!(plan(ms(250), 3, 20, ms(2000)), (0, 8));
        assert_eq!(plan(ms(900), 3, 20, ms(2000)), (0, 2));
        assert_eq!(plan(ms(5000), 3, 20, ms(2000)), (0, 1));
        assert_eq!(plan(Duration::ZERO, 3, 20, ms(2000)), (3, 20));
        assert_eq!(median(&[ms(3), ms(1), ms(2)]), ms(2));
        assert_eq!(median(&[ms(4), ms(1), ms(2), ms(3)]), ms(3));
    }
}
