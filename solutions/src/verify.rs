//! # Verification by decrementing, on the GPU: not an exercise
//!
//! CUDA by Example checks its GPU histogram without a second array: starting from the
//! GPU's bins, it walks the input again and *decrements* the bin of every element. If
//! the GPU counted right, every bin ends at zero; a bin that does not names where the
//! kernel went wrong, and by how much. The book does the walk on the CPU; here it is a
//! kernel too, so the whole check runs where the histogram is
//! (`cargo run -p ch09 -- verify --step 9.5`, on the emulator or with `--device gpu`),
//! and only the verdict travels back.
//!
//! The decrement uses the same bin of each element as the histogram kernels
//! ([`byte_bin`] for bytes, the value itself for `u32` values below the bin count), and
//! global atomics, so it cannot lose a decrement the way 9.2 loses increments: what is
//! left in a bin is exactly the histogram's error there, read as a signed number
//! (`u32` arithmetic wraps: a bin that ends at `u32::MAX` was counted once too few).

use crate::ch09::byte_bin;
use gpu::prelude::*;

// ANCHOR: histo_decrement
/// Subtracts one from the bin of every byte of `data`: run after a histogram
/// kernel filled `histo` from the same bytes, it leaves every bin at zero exactly
/// when that kernel counted right.
///
/// Launch: any grid, any block (a grid-stride loop), no shared memory.
#[kernel]
pub fn histo_decrement(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let num_bins = histo.len();
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        histo.atomic_sub(byte_bin(data.load(i), num_bins), 1);
        i += stride;
    }
}
// ANCHOR_END: histo_decrement

/// [`histo_decrement()`] for `u32` values: the bin of a value is the value itself,
/// and values `>= histo.len()` have none (as 9.10, 9.14 and 9.17 count them).
///
/// Launch: any grid, any block, no shared memory.
#[kernel]
pub fn histo_decrement_values(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let num_bins = histo.len();
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        let value = data.load(i);
        if value < num_bins {
            histo.atomic_sub(value, 1);
        }
        i += stride;
    }
}
