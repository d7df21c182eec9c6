//! The CPU baselines: what the same histogram costs on the host, measured on the machine
//! that holds the GPU, on the same input.
//!
//! - [`naive`]: the sequential loop of 9.1, `histo[bin] += 1`. On skewed data every
//!   increment waits for the previous one to the same counter (a load-add-store chain
//!   through memory), which is the CPU's version of atomic contention.
//! - [`interleaved`]: four tables, element `i` counted in table `i % 4`, summed at the
//!   end: four independent chains, so a hot bin no longer serialises the loop.
//! - [`tuned`]: the fastest single-core code the course has. Bytes, on a CPU with AVX-512
//!   VBMI2, BITALG and GFNI, go through [`super::cpu_simd`] (a positional popcount, as
//!   the fastest published byte histogram counts); elsewhere they are read eight at a
//!   time (a `u64`) and counted by value into eight tables of 256 (no bounds checks: a
//!   byte indexes a 256-entry table), then folded into the bins, as the fast scalar byte
//!   histograms of compression libraries are (TurboHist's `hist_8_32`, Yann Collet's
//!   `FSE_count`). `u32` values go into four tables of 16-bit counters (4096 bins in
//!   32 KiB), with a spare slot that takes every value past the bins (a branchless
//!   `min`). Both count a block of equal elements with one add. The book's *Speed on a
//!   CPU* (9.1) compares them with the published figures.
//! - [`threaded`]: [`tuned`] on every core (`std::thread::scope`), each thread taking
//!   the next chunk of the input into its private tables, merged at the end:
//!   privatization, on a CPU.

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
    /// The tables [`Tuned::tuned`] counts into for `bins` bins, for the bench's row name.
    fn tables(bins: u32) -> &'static str;
}

impl Tuned for u8 {
    fn tuned(data: &[u8], bins: u32) -> Vec<u32> {
        let counts = super::cpu_simd::byte_values(data).unwrap_or_else(|| byte_values(data));
        let mut histo = vec![0u32; bins as usize];
        for (value, &c) in counts.iter().enumerate() {
            if let Some(b) = (value as u8).bin(bins) {
                histo[b] += c;
            }
        }
        histo
    }

    fn tables(_: u32) -> &'static str {
        if super::cpu_simd::available() {
            "AVX-512 positional popcount"
        } else {
            "8 tables"
        }
    }
}

impl Tuned for u32 {
    fn tables(bins: u32) -> &'static str {
        if bins <= TABLE_BINS as u32 {
            "4 tables of 16-bit counters"
        } else {
            "1 table"
        }
    }

    fn tuned(data: &[u32], bins: u32) -> Vec<u32> {
        if bins <= TABLE_BINS as u32 {
            value_counts(data, bins)
        } else {
            // Past 4096 bins one table: its cache misses are the cost of many bins.
            let mut table = vec![0u32; bins as usize + 1];
            for &v in data {
                table[v.min(bins) as usize] += 1;
            }
            table.truncate(bins as usize);
            table
        }
    }
}

/// The block [`tuned`] first checks for a single value: a block of one value is counted
/// at once, so that a run of equal elements is not a chain of increments of one counter.
/// Long enough that skewed but not constant data (90 % one value) almost never has one
/// (0.9^256), so the check's branch is predicted right and costs about 5 % of the
/// counting; shorter blocks mispredict on such data and lost a quarter of the speed
/// (`notes/cpu-histogram-2026-11-24.md`).
const RUN_BLOCK: usize = 256;

/// Whether every byte of `block` is its first. Eight sampled words first: a block of a
/// varied input fails there (90 % one value almost always: 0.9^64), without a second
/// pass over the block, which cost up to a tenth of the counting on 90 % one value on
/// the Intel host. Then one 8-byte compare per word, or-ed, which the compiler turns
/// into vector compares.
fn one_byte_value(block: &[u8]) -> bool {
    let first = u64::from(block[0]) * 0x0101_0101_0101_0101;
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("chunks_exact(8) yields 8 bytes"));
    let words = block.chunks_exact(8);
    if words.remainder().iter().any(|&b| b != block[0]) {
        return false;
    }
    let stride = (block.len() / 8 / 8).max(1);
    block
        .chunks_exact(8)
        .step_by(stride)
        .all(|w| word(w) == first)
        && words.fold(0, |diff, w| diff | (word(w) ^ first)) == 0
}

/// Whether every value of `block` is its first. Eight samples first: a block of a
/// varied input fails there (on 90 % one value about four blocks in five do), without a
/// second pass over the block, which cost a fifth of the counting on the AMD machine.
fn one_value(block: &[u32]) -> bool {
    let first = block[0];
    block.iter().step_by(RUN_BLOCK / 8).all(|&v| v == first)
        && block.iter().fold(0, |diff, &v| diff | (v ^ first)) == 0
}

/// How many bytes of `data` hold each of the 256 values: eight tables, byte `k` of each
/// 8-byte word counted in table `k`, so that equal neighbours update different counters
/// and the increments of one word are eight independent chains (an increment to the
/// counter the one before updated waits for that store: a skewed input in one table is
/// a queue of such waits). Bytes are read a word at a time: indexing eight bytes of a
/// block compiles to eight byte loads. A block of [`RUN_BLOCK`] equal bytes is one add.
fn byte_values(data: &[u8]) -> [u32; 256] {
    let mut tables = [[0u32; 256]; 8];
    let add_word = |tables: &mut [[u32; 256]; 8], w: &[u8]| {
        let mut x = u64::from_le_bytes(w.try_into().expect("chunks_exact(8) yields 8 bytes"));
        for table in tables.iter_mut() {
            table[(x & 0xff) as usize] += 1;
            x >>= 8;
        }
    };
    let mut blocks = data.chunks_exact(RUN_BLOCK);
    for block in &mut blocks {
        if one_byte_value(block) {
            tables[0][block[0] as usize] += RUN_BLOCK as u32;
            continue;
        }
        for w in block.chunks_exact(8) {
            add_word(&mut tables, w);
        }
    }
    let mut words = blocks.remainder().chunks_exact(8);
    for w in &mut words {
        add_word(&mut tables, w);
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

/// The bins [`value_counts`]'s tables hold.
const TABLE_BINS: usize = 4096;

/// The tables of [`value_counts`].
const VALUE_TABLES: usize = 4;

/// The histogram of `values` into `bins` (at most [`TABLE_BINS`]) bins: four tables of
/// 16-bit counters, value `i` of each group of four counted in table `i % 4`, so that a
/// skewed input is four independent chains of increments, not one; 16-bit counters keep
/// the four tables in 32 KiB, an L1 cache on the course's machines. One slot past the
/// bins takes every value that is not a bin (a branchless `min`, which also bounds the
/// index so that no bounds check is left). A block of [`RUN_BLOCK`] equal values is one
/// add. The tables are added into 32-bit totals and cleared before a counter can pass
/// 65 535.
fn value_counts(values: &[u32], bins: u32) -> Vec<u32> {
    if bins == TABLE_BINS as u32 {
        // The bench's bin count: one `min` with a constant, which bounds the index too.
        value_counts_into(values, bins, |v| v.min(TABLE_BINS as u32) as usize)
    } else {
        let spare = bins.min(TABLE_BINS as u32);
        value_counts_into(values, bins, move |v| {
            (v.min(spare) as usize).min(TABLE_BINS)
        })
    }
}

/// [`value_counts`] with `slot` giving a value's table index (at most [`TABLE_BINS`]).
#[inline(always)]
fn value_counts_into(values: &[u32], bins: u32, slot: impl Fn(u32) -> usize) -> Vec<u32> {
    let mut totals = vec![0u32; TABLE_BINS + 1];
    let mut tables = [[0u16; TABLE_BINS + 1]; VALUE_TABLES];
    // A table takes at most a quarter of a part: 255 blocks of 256, 65 280 counts.
    let part_len = RUN_BLOCK * (usize::from(u16::MAX) / RUN_BLOCK) * VALUE_TABLES;
    for part in values.chunks(part_len) {
        let mut blocks = part.chunks_exact(RUN_BLOCK);
        for block in &mut blocks {
            if one_value(block) {
                totals[slot(block[0])] += RUN_BLOCK as u32;
                continue;
            }
            for group in block.chunks_exact(VALUE_TABLES) {
                for (table, &v) in tables.iter_mut().zip(group) {
                    table[slot(v)] += 1;
                }
            }
        }
        for &v in blocks.remainder() {
            totals[slot(v)] += 1;
        }
        for table in &mut tables {
            for (total, count) in totals.iter_mut().zip(table.iter_mut()) {
                *total += u32::from(*count);
                *count = 0;
            }
        }
    }
    totals.truncate(bins as usize);
    totals
}

/// The fastest single-core histogram the course has ([`Tuned`]).
pub fn tuned<T: Tuned>(data: &[T], bins: u32) -> Vec<u32> {
    T::tuned(data, bins)
}

/// The elements a thread of [`threaded`] takes at a time: 4 MiB of bytes, 16 MiB of `u32`,
/// small enough that a thread slower than the others (a busy core of a shared machine)
/// leaves its last chunks to the others.
pub const THREAD_CHUNK: usize = 1 << 22;

/// [`tuned`] on `threads` threads, each taking the next chunk of [`THREAD_CHUNK`]
/// elements until none is left, into its own histogram; the histograms are added at the
/// end. One contiguous slice per thread made the slowest core's time the whole run's.
pub fn threaded<T: Tuned>(data: &[T], bins: u32, threads: usize) -> Vec<u32> {
    threaded_in_chunks(data, bins, threads, THREAD_CHUNK)
}

/// [`threaded`] with chunks of `chunk_len` elements.
fn threaded_in_chunks<T: Tuned>(
    data: &[T],
    bins: u32,
    threads: usize,
    chunk_len: usize,
) -> Vec<u32> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let chunks: Vec<&[T]> = data.chunks(chunk_len.max(1)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut histo = vec![0u32; bins as usize];
        while let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
            for (h, c) in histo.iter_mut().zip(tuned(chunk, bins)) {
                *h += c;
            }
        }
        histo
    };
    let parts: Vec<Vec<u32>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.clamp(1, chunks.len().max(1)))
            .map(|_| s.spawn(work))
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

/// The clock of the core this thread runs on, in GHz: the best of three timings of a
/// chain of 200 million dependent register adds (`add r, r`, one cycle each on every
/// x86-64 core since long ago; an add of an immediate can be folded away by recent Intel
/// cores, a register doubling cannot). `None` off x86-64. A shared machine's cores run
/// at their own clocks (2.2 GHz on one core of the H100's host, 1.9 on all 16: see
/// `notes/cpu-histogram-2026-11-24.md`), so this is the clock of the single-thread rows.
pub fn clock_ghz() -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        const ITERS: u64 = 10_000_000;
        const ADDS: u64 = 20;
        let best = (0..3)
            .map(|_| {
                let mut x = std::hint::black_box(1u64);
                let t = std::time::Instant::now();
                for _ in 0..ITERS {
                    // SAFETY: register arithmetic only: no memory, no stack, no flags read.
                    unsafe {
                        std::arch::asm!(
                            "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}",
                            "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}",
                            "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}",
                            "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}",
                            "add {0}, {0}", "add {0}, {0}", "add {0}, {0}", "add {0}, {0}",
                            inout(reg) x,
                            options(nomem, nostack),
                        );
                    }
                }
                std::hint::black_box(x);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min);
        Some((ITERS * ADDS) as f64 / best / 1e9)
    }
    #[cfg(not(target_arch = "x86_64"))]
    None
}

/// A CPU histogram the bench times: its row name and the call.
pub type Row<'a> = (String, Box<dyn Fn() -> Vec<u32> + Sync + 'a>);

/// The bench's CPU rows for `data`: the naive loop, four interleaved tables and [`tuned`]
/// on one thread, then [`threaded`] on 2, 4, 8, ... threads and on `threads`, so that
/// the rows show how the code scales across the machine's cores.
pub fn rows<T: Tuned>(data: &[T], bins: u32, threads: usize) -> Vec<Row<'_>> {
    let mut rows: Vec<Row<'_>> = vec![
        ("cpu naive loop".into(), Box::new(move || naive(data, bins))),
        (
            "cpu 4 interleaved tables".into(),
            Box::new(move || interleaved(data, bins)),
        ),
        (
            format!("cpu 1 thread, {}", T::tables(bins)),
            Box::new(move || tuned(data, bins)),
        ),
    ];
    for n in thread_counts(threads) {
        rows.push((
            format!("cpu {n} threads"),
            Box::new(move || threaded(data, bins, n)),
        ));
    }
    rows
}

/// 2, 4, 8, ... below `threads`, then `threads` (nothing for one thread).
pub fn thread_counts(threads: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = std::iter::successors(Some(2usize), |n| n.checked_mul(2))
        .take_while(|&n| n < threads)
        .collect();
    if threads > 1 {
        counts.push(threads);
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain loops every other is checked against (chapter 9's 9.1 and its `u32`
    /// histogram: `solutions::ch09::byte_bin`, values past the last bin not counted).
    mod reference {
        pub fn byte_histogram(data: &[u8], bins: u32) -> Vec<u32> {
            let mut h = vec![0u32; bins as usize];
            for &b in data {
                h[solutions::ch09::byte_bin(b, bins) as usize] += 1;
            }
            h
        }

        pub fn value_histogram(data: &[u32], bins: u32) -> Vec<u32> {
            let mut h = vec![0u32; bins as usize];
            for &v in data.iter().filter(|&&v| v < bins) {
                h[v as usize] += 1;
            }
            h
        }
    }

    #[test]
    fn the_four_agree_with_the_reference() {
        let bytes = crate::data::bytes(crate::data::Input::Skewed90, 10_007, 4, b"");
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
        // Many chunks, more than threads, and a short last one.
        assert_eq!(threaded_in_chunks(&values, 4096, 3, 1000), want);
        assert_eq!(
            threaded_in_chunks(&bytes, 256, 4, 999),
            reference::byte_histogram(&bytes, 256)
        );
        assert_eq!(threaded::<u32>(&[], 16, 4), vec![0; 16]);
    }

    #[test]
    fn the_clock_is_a_plausible_core_clock() {
        if let Some(ghz) = clock_ghz() {
            assert!((0.3..8.0).contains(&ghz), "{ghz} GHz");
        }
    }

    #[test]
    fn the_rows_scale_to_every_core() {
        assert_eq!(thread_counts(1), Vec::<usize>::new());
        assert_eq!(thread_counts(2), vec![2]);
        assert_eq!(thread_counts(16), vec![2, 4, 8, 16]);
        assert_eq!(thread_counts(12), vec![2, 4, 8, 12]);
        let values: Vec<u32> = (0..70_001u32).map(|i| (i * 7919) % 4100).collect();
        let want = reference::value_histogram(&values, 4096);
        let rows = rows(&values, 4096, 3);
        let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "cpu naive loop",
                "cpu 4 interleaved tables",
                "cpu 1 thread, 4 tables of 16-bit counters",
                "cpu 2 threads",
                "cpu 3 threads"
            ]
        );
        for (name, f) in &rows {
            assert_eq!(f(), want, "{name}");
        }
    }

    #[test]
    fn blocks_of_one_value_and_long_inputs_are_counted_right() {
        // Blocks of one value (the tuned code's single add): a whole aligned block, a run
        // that straddles two blocks, a block that differs only in its last element, and
        // a tail shorter than a block.
        let mut bytes = vec![0u8; 3 * RUN_BLOCK];
        bytes.extend([5u8; RUN_BLOCK + 100]);
        bytes.extend((0..=255u8).cycle().take(301));
        let mut almost = vec![9u8; RUN_BLOCK];
        almost[RUN_BLOCK - 1] = 10;
        bytes.extend(&almost[..RUN_BLOCK - (bytes.len() % RUN_BLOCK)]);
        bytes.extend(&almost);
        bytes.extend([200u8; 77]);
        for bins in [256, 7] {
            assert_eq!(tuned(&bytes, bins), reference::byte_histogram(&bytes, bins));
            assert_eq!(
                threaded(&bytes, bins, 3),
                reference::byte_histogram(&bytes, bins)
            );
        }
        let mut values = vec![0u32; 2 * RUN_BLOCK];
        values.extend([4095u32; RUN_BLOCK]);
        values.extend([4096u32; RUN_BLOCK]); // a block of one value that is not a bin
        values.extend([70_000u32; 3]);
        values.extend((0..5000u32).map(|i| (i * 37) % 4100));
        values.extend([7u32; 3]);
        for bins in [4096, 4000, 1, 65_536] {
            assert_eq!(
                tuned(&values, bins),
                reference::value_histogram(&values, bins),
                "{bins} bins"
            );
        }
        // More counts of one bin than a 16-bit counter holds, never in a block of one
        // value: the tables must be emptied into the totals before they wrap.
        let skewed: Vec<u32> = (0..600_000u32)
            .map(|i| if i % 10 == 3 { i % 4096 } else { 17 })
            .collect();
        assert_eq!(
            tuned(&skewed, 4096),
            reference::value_histogram(&skewed, 4096)
        );
        let skewed_bytes: Vec<u8> = skewed.iter().map(|&v| v as u8).collect();
        assert_eq!(
            tuned(&skewed_bytes, 256),
            reference::byte_histogram(&skewed_bytes, 256)
        );
    }
}
