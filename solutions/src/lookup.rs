//! # Constant memory: a lookup table of bins (Cook's chapter 5): not an exercise
//!
//! A histogram's bin is sometimes no arithmetic of the value but a table: PMPP's letter
//! histogram counts `a` to `z`; a text statistic wants `A` and `a` in one bin and every
//! other byte in none. [`LETTER_BIN`] is that table, 256 entries the host fills once
//! (`Device::set_constant`) and every kernel of the module reads: CUDA's `__constant__`
//! memory.
//!
//! Constant memory is read through a per-SM cache that serves one address per pass and
//! broadcasts it to the lanes that asked. These two kernels count the same letters with
//! the same table, read two ways:
//!
//! - [`letters_constant()`]: every byte looks its bin up in constant memory, so a warp
//!   reading `k` different characters takes `k` passes (the emulator's
//!   `constant_serialized` counts the extra ones);
//! - [`letters_shared_table()`]: each block first copies the table into shared memory
//!   (256 reads of constant memory per block, serialized once) and looks every byte up
//!   there, where 32 banks serve distinct words at once.

use crate::ch09::{init_private_bins, store_output};
use gpu::prelude::*;

/// The bin of a byte no bin counts: past every bin, so a kernel skips it.
pub const NO_LETTER: u32 = u32::MAX;

// ANCHOR: letter_bin
gpu::constant! {
    /// The bin of every byte value: a letter's bin, the same for its upper and
    /// lower case, or [`NO_LETTER`]. The host builds it
    /// (`ch09::lookup::letter_table`) and sets it before the first launch.
    pub static LETTER_BIN: [u32; 256];
}
// ANCHOR_END: letter_bin

// ANCHOR: letters_constant
/// A letter histogram of `text` into `histo` (one bin per `histo.len()`-th of the
/// alphabet, as [`LETTER_BIN`] says), looking every byte's bin up in constant
/// memory.
///
/// Launch: a grid-stride grid, any block, `histo.len() * 4` bytes of dynamic
/// shared memory (the block's private bins, as 9.5's).
#[kernel]
pub fn letters_constant(text: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    init_private_bins(bins, num_bins);
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < text.len() {
        let bin = LETTER_BIN.load(text.load(i) as u32);
        if bin < num_bins {
            bins.atomic_add(bin, 1);
        }
        i += stride;
    }
    store_output(bins, histo);
}
// ANCHOR_END: letters_constant

// ANCHOR: letters_shared_table
/// [`letters_constant()`] with the table copied into shared memory first: each
/// block reads the 256 entries of [`LETTER_BIN`] once, then looks every byte up
/// in shared memory.
///
/// Launch: as [`letters_constant()`] (the table's 1 KiB is a static shared array).
#[kernel]
pub fn letters_shared_table(text: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let table = shared_array![u32; 256];
    let mut entry = thread::thread_idx_x();
    while entry < 256 {
        table.store(entry, LETTER_BIN.load(entry));
        entry += thread::block_dim_x();
    }
    let bins = dynamic_shared![u32];
    let num_bins = histo.len();
    // Its barrier also orders the table's stores before the lookups.
    init_private_bins(bins, num_bins);
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < text.len() {
        let bin = table.load(text.load(i) as u32);
        if bin < num_bins {
            bins.atomic_add(bin, 1);
        }
        i += stride;
    }
    store_output(bins, histo);
}
// ANCHOR_END: letters_shared_table
