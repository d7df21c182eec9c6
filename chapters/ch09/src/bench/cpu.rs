//! The CPU baselines: what the same histogram costs on the host, measured on the machine
//! that holds the GPU, on the same input.
//!
//! - [`naive`]: the sequential loop of 9.1, `histo[bin] += 1`. On skewed data every
//!   increment waits for the previous one to the same counter (a load-add-store chain
//!   through memory), which is the CPU's version of atomic contention.
//! - [`interleaved`]: four tables, element `i` counted in table `i % 4`, summed at the
//!   end: four independent chains, so a hot bin no longer serialises the loop.
//! - [`tuned`]: the fastest single-core code the course has: bytes are read eight at a
//!   time (a `u64`) and counted by value into eight tables of 256 (no bounds checks: a
//!   byte indexes a 256-entry table), then folded into the bins; `u32` values go into one
//!   table with a spare slot that takes every value past the bins (a branchless `min`).
//!   Both count a run of equal words or values once, when it ends.
//!   It is the baseline the book's "best CPU" rows are, written as the fast byte
//!   histograms of compression libraries are (TurboHist's `hist_8_32`, Yann Collet's
//!   `FSE_count`).
//! - [`threaded`]: [`tuned`] on every core (`std::thread::scope`), one contiguous slice
//!   per thread, the private tables merged at the end: privatization, on a CPU.

/// An element a histogram counts: a byte (256 values spread evenly over the bins, as the
/// kernels' `byte_bin`) or a `u32` value (counted in bin `value` when it is a bin).
pub trait Element: Copy + Send + Sync {
    /// The bin of `self` among `bins`, or `None` when it is not counted.
    fn bin(self, bins: u32) -> Option<usize>;
}

impl Element for u8 {
    #[inline(always)]
    fn bin(self, bins: u32) -> Option<usize> {
        Some(solutions::ch09::byte_bin(self, bins) as usize)
    }
}

impl Element for u32 {
    #[inline(always)]
    fn bin(self, bins: u32) -> Option<usize> {
        (self < bins).then_some(self as usize)
    }
}

/// The sequential loop.
pub fn naive<T: Element>(data: &[T], bins: u32) -> Vec<u32> {
    let mut histo = vec![0u32; bins as usize];
    for &x in data {
        if let Some(b) = x.bin(bins) {
            histo[b] += 1;
        }
    }
    histo
}

/// Four interleaved tables, summed at the end.
pub fn interleaved<T: Element>(data: &[T], bins: u32) -> Vec<u32> {
    let b = bins as usize;
    let mut tables = vec![0u32; 4 * b];
    let (t0, rest) = tables.split_at_mut(b);
    let (t1, rest) = rest.split_at_mut(b);
    let (t2, t3) = rest.split_at_mut(b);
    let mut quads = data.chunks_exact(4);
    for q in &mut quads {
        if let Some(x) = q[0].bin(bins) {
            t0[x] += 1;
        }
        if let Some(x) = q[1].bin(bins) {
            t1[x] += 1;
        }
        if let Some(x) = q[2].bin(bins) {
            t2[x] += 1;
        }
        if let Some(x) = q[3].bin(bins) {
            t3[x] += 1;
        }
    }
    for &e in quads.remainder() {
        if let Some(x) = e.bin(bins) {
            t0[x] += 1;
        }
    }
    (0..b).map(|i| t0[i] + t1[i] + t2[i] + t3[i]).collect()
}

/// The element types [`tuned`] has a fast path for.
pub trait Tuned: Element {
    /// The histogram of `data` into `bins` bins, as [`naive`] counts it.
    fn tuned(data: &[Self], bins: u32) -> Vec<u32>;
}

impl Tuned for u8 {
    fn tuned(data: &[u8], bins: u32) -> Vec<u32> {
        let counts = byte_values(data);
        let mut histo = vec![0u32; bins as usize];
        for (value, &c) in counts.iter().enumerate() {
            if let Some(b) = (value as u8).bin(bins) {
                histo[b] += c;
            }
        }
        histo
    }
}

impl Tuned for u32 {
    fn tuned(data: &[u32], bins: u32) -> Vec<u32> {
        // One slot past the bins takes every value that is not a bin: no branch. A value
        // equal to the one before only extends a run, added when the run ends, so that a
        // hot value is not a chain of increments of one counter.
        let mut table = vec![0u32; bins as usize + 1];
        let (mut prev, mut run) = (0u32, 0u32);
        for &v in data {
            if v == prev {
                run += 1;
                continue;
            }
            table[prev.min(bins) as usize] += run;
            prev = v;
            run = 1;
        }
        table[prev.min(bins) as usize] += run;
        table.truncate(bins as usize);
        table
    }
}

/// How many bytes of `data` hold each of the 256 values: eight tables, byte `k` of each
/// 8-byte word counted in table `k`, so that equal neighbours update different counters;
/// a word equal to the one before is only counted as a repeat (one compare), and a run of
/// repeats is added at once when it ends: skewed data runs faster, not slower (the trick
/// of TurboHist's `histr_8_64`).
fn byte_values(data: &[u8]) -> [u32; 256] {
    let mut tables = [[0u32; 256]; 8];
    let mut words = data.chunks_exact(8);
    let add = |tables: &mut [[u32; 256]; 8], mut x: u64, times: u32| {
        for table in tables.iter_mut() {
            table[(x & 0xff) as usize] += times;
            x >>= 8;
        }
    };
    let (mut prev, mut repeats) = (0u64, 0u32);
    for w in &mut words {
        // One 8-byte load: the array of eight indexed bytes would compile to eight byte
        // loads (4x slower on a run of one value, measured).
        let x = u64::from_le_bytes(w.try_into().expect("chunks_exact(8) yields 8 bytes"));
        if x == prev {
            repeats += 1;
            continue;
        }
        if repeats > 0 {
            add(&mut tables, prev, repeats);
            repeats = 0;
        }
        add(&mut tables, x, 1);
        prev = x;
    }
    // The first word is compared with `prev = 0` before any word was counted: a run of
    // zero words at the start is counted as repeats of a word that was never added, which
    // is right, since repeats of 0 add to bin 0 exactly as counting them would.
    if repeats > 0 {
        add(&mut tables, prev, repeats);
    }
    for &b in words.remainder() {
        tables[0][b as usize] += 1;
    }
    let mut counts = [0u32; 256];
    for table in &tables {
        for (c, t) in counts.iter_mut().zip(table) {
            *c += t;
        }
    }
    counts
}

/// The fastest single-core histogram the course has ([`Tuned`]).
pub fn tuned<T: Tuned>(data: &[T], bins: u32) -> Vec<u32> {
    T::tuned(data, bins)
}

/// [`tuned`] on `threads` threads, one contiguous slice each, merged at the end.
pub fn threaded<T: Tuned>(data: &[T], bins: u32, threads: usize) -> Vec<u32> {
    let per = data.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<Vec<u32>> = std::thread::scope(|s| {
        let handles: Vec<_> = data
            .chunks(per)
            .map(|part| s.spawn(move || tuned(part, bins)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut histo = vec![0u32; bins as usize];
    for part in parts {
        for (h, p) in histo.iter_mut().zip(part) {
            *h += p;
        }
    }
    histo
}

/// The threads [`threaded`] uses by default: every core the OS gives this process.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;

    #[test]
    fn the_four_agree_with_the_reference() {
        let bytes = crate::inputs::bytes(&crate::inputs::InputKind::Skew(70), 10_007, 4);
        for bins in [256, 7, 1] {
            let want = reference::byte_histogram(&bytes, bins);
            assert_eq!(naive(&bytes, bins), want);
            assert_eq!(interleaved(&bytes, bins), want);
            assert_eq!(tuned(&bytes, bins), want);
            assert_eq!(
                tuned(&bytes[..13], bins),
                reference::byte_histogram(&bytes[..13], bins)
            );
            assert_eq!(threaded(&bytes, bins, 3), want);
            assert_eq!(
                threaded(&bytes[..3], bins, 8),
                reference::byte_histogram(&bytes[..3], bins)
            );
        }
        let values: Vec<u32> = (0..9_999u32).map(|i| (i * 7919) % 5000).collect();
        let want = reference::value_histogram(&values, 4096);
        assert_eq!(naive(&values, 4096), want);
        assert_eq!(interleaved(&values, 4096), want);
        assert_eq!(tuned(&values, 4096), want);
        assert_eq!(
            tuned(&values[..7], 16),
            reference::value_histogram(&values[..7], 16)
        );
        assert_eq!(threaded(&values, 4096, 5), want);
        assert_eq!(threaded::<u32>(&[], 16, 4), vec![0; 16]);
    }

    #[test]
    fn runs_are_counted_once_and_right() {
        // Runs of equal words and values: at the start (zeros, the tuned code's first
        // `prev`), in the middle, at the end, and runs that are not word-aligned.
        let mut bytes = vec![0u8; 100];
        bytes.extend([5u8; 17]);
        bytes.extend((0..=255u8).cycle().take(301));
        bytes.extend([0u8; 9]);
        bytes.extend([200u8; 64]);
        for bins in [256, 7] {
            assert_eq!(tuned(&bytes, bins), reference::byte_histogram(&bytes, bins));
            assert_eq!(
                threaded(&bytes, bins, 3),
                reference::byte_histogram(&bytes, bins)
            );
        }
        let mut values = vec![0u32; 33];
        values.extend([4095u32; 10]);
        values.extend([4096u32; 5]);
        values.extend((0..5000u32).map(|i| (i * 37) % 4100));
        values.extend([7u32; 3]);
        assert_eq!(
            tuned(&values, 4096),
            reference::value_histogram(&values, 4096)
        );
        assert_eq!(tuned(&values, 1), reference::value_histogram(&values, 1));
    }
}
