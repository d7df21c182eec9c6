//! Constant memory, run: `cargo run -p ch09 -- constant`.
//!
//! A letter histogram (9.1's, with upper and lower case in one bin) whose bins come from
//! a table, [`solutions::lookup::LETTER_BIN`], set once from the host into constant
//! memory. Two kernels read it: [`solutions::lookup::letters_constant()`] looks every byte
//! up in constant memory, [`solutions::lookup::letters_shared_table()`] copies the table
//! into shared memory first. On the emulator the rows show what the constant cache does
//! with the lanes' addresses (`constant_serialized`); on a GPU, the time of each.

use crate::launch::{Shape, device_grid};
use chapter::timing::median;
use gpu_host::{Device, LaunchError, LaunchReport};
use solutions::lookup::{LETTER_BIN, NO_LETTER, letters_constant, letters_shared_table};

// ANCHOR: letter_table
/// The table of bins: `a`-`z` and `A`-`Z` to `(letter - 'a') / letters_per_bin`,
/// every other byte to [`NO_LETTER`]. `letters_per_bin` is at least 1.
pub fn letter_table(letters_per_bin: u32) -> Vec<u32> {
    let per = letters_per_bin.max(1);
    (0..=255u8)
        .map(|b| {
            if b.is_ascii_alphabetic() {
                (b.to_ascii_lowercase() - b'a') as u32 / per
            } else {
                NO_LETTER
            }
        })
        .collect()
}
// ANCHOR_END: letter_table

/// Bins of the letter histogram: `ceil(26 / letters_per_bin)`.
pub fn letter_bins(letters_per_bin: u32) -> u32 {
    26u32.div_ceil(letters_per_bin.max(1))
}

/// The histogram the kernels must produce, on the CPU.
pub fn reference(text: &[u8], letters_per_bin: u32) -> Vec<u32> {
    let table = letter_table(letters_per_bin);
    let mut h = vec![0u32; letter_bins(letters_per_bin) as usize];
    for &b in text {
        if let Some(c) = h.get_mut(table[b as usize] as usize) {
            *c += 1;
        }
    }
    h
}

/// One kernel's run.
#[derive(Clone, Debug)]
pub struct LookupRun {
    /// The kernel's name.
    pub kernel: &'static str,
    /// Its launch.
    pub shape: Shape,
    /// Whether its bins equal [`reference()`]'s.
    pub correct: bool,
    /// The report of one launch (counters on the emulator).
    pub report: LaunchReport,
    /// On a GPU: the median of the timed launches (each from a cold L2 and zeroed bins).
    pub gpu_median: Option<std::time::Duration>,
}

/// Sets the table, then runs both kernels on `text` with `letters_per_bin`, blocks of
/// `block` threads and `grid` blocks (default: the device's resident blocks, no more
/// than 8 elements per thread). On a GPU each is also timed `reps` times.
pub fn run(
    dev: &mut Device,
    text: &[u8],
    letters_per_bin: u32,
    block: u32,
    grid: Option<u32>,
    reps: u32,
) -> Result<Vec<LookupRun>, LaunchError> {
    // ANCHOR: set_constant
    dev.set_constant(&LETTER_BIN, &letter_table(letters_per_bin))?;
    // ANCHOR_END: set_constant
    let bins = letter_bins(letters_per_bin);
    let expected = reference(text, letters_per_bin);
    let grid = grid.unwrap_or_else(|| device_grid(dev.props(), text.len(), block, 8));
    let shape = Shape::new(grid, block).with_bins(bins);
    let d = dev.upload(text)?;
    let h = dev.alloc::<u32>(bins as usize)?;
    let mut out = Vec::new();
    for kernel in [&letters_constant::KERNEL, &letters_shared_table::KERNEL] {
        dev.fill(&h, 0)?;
        let report = dev.launch(kernel, shape.config(), (d.slice(), h.slice()))?;
        let correct = dev.download(&h)? == expected;
        let gpu_median = if dev.is_emulator() || reps == 0 {
            None
        } else {
            let args = (d.slice(), h.slice());
            let times = dev.time_launches_zeroed(kernel, shape.config(), args, &h, 2, reps)?;
            Some(median(&times))
        };
        out.push(LookupRun {
            kernel: kernel.name,
            shape,
            correct,
            report,
            gpu_median,
        });
    }
    dev.free(d)?;
    dev.free(h)?;
    Ok(out)
}

/// The runs as a table: counters on the emulator, times on a GPU (GB/s of text read).
pub fn table(runs: &[LookupRun], text_bytes: usize) -> String {
    let mut out = String::new();
    let gpu = runs.iter().any(|r| r.gpu_median.is_some());
    if gpu {
        out.push_str(&format!(
            "{:<22} {:>7} {:>12} {:>9} {:>8}\n",
            "kernel", "status", "grid x block", "ms", "GB/s"
        ));
    } else {
        out.push_str(&format!(
            "{:<22} {:>7} {:>9} {:>9} {:>10} {:>9} {:>10}\n",
            "kernel", "status", "c.loads", "c.serial", "c.worst", "bank.conf", "warp.instr"
        ));
    }
    for r in runs {
        let status = if r.correct { "correct" } else { "WRONG" };
        if let Some(t) = r.gpu_median {
            let ms = t.as_secs_f64() * 1e3;
            out.push_str(&format!(
                "{:<22} {:>7} {:>12} {:>9.3} {:>8.0}\n",
                r.kernel,
                status,
                format!("{} x {}", r.shape.grid, r.shape.block),
                ms,
                text_bytes as f64 / t.as_secs_f64() / 1e9
            ));
        } else {
            let c = r.report.counters().copied().unwrap_or_default();
            out.push_str(&format!(
                "{:<22} {:>7} {:>9} {:>9} {:>10} {:>9} {:>10}\n",
                r.kernel,
                status,
                c.constant_load_requests,
                c.constant_serialized,
                c.constant_max_addresses,
                c.bank_conflicts,
                c.warp_instructions
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_folds_case_and_skips_the_rest() {
        let t = letter_table(1);
        assert_eq!((t[b'a' as usize], t[b'A' as usize]), (0, 0));
        assert_eq!((t[b'z' as usize], t[b'Z' as usize]), (25, 25));
        assert_eq!(t[b' ' as usize], NO_LETTER);
        assert_eq!(letter_table(4)[b'Z' as usize], 6);
        assert_eq!(letter_bins(4), 7);
        assert_eq!(reference(b"Aa b!Z", 1)[..2], [2, 1]);
        assert_eq!(reference(b"Aa b!Z", 1)[25], 1);
    }
}
