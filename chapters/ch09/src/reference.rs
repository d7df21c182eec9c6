//! CPU references and models: what each kernel must produce, and what its technique
//! must cost, computed from the input on the host.
//!
//! The histograms are the oracles of the checks. The models replay a kernel's
//! documented partition of the input (which thread counts which element, which lanes
//! load together) to predict exact emulator counters: the runs 9.7 flushes, the distinct
//! bins per warp instruction of 9.8, the 32-byte sectors of 9.6's loads. A kernel that
//! gets the bins right by another technique misses these numbers, and its check says so.

use solutions::ch09::byte_bin;
use std::collections::BTreeSet;

/// Threads per warp.
pub const WARP: u64 = 32;

/// The byte histogram over `bins` bins (each byte to `byte_bin(byte, bins)`).
pub fn byte_histogram(data: &[u8], bins: u32) -> Vec<u32> {
    let mut h = vec![0u32; bins as usize];
    for &b in data {
        h[byte_bin(b, bins) as usize] += 1;
    }
    h
}

/// The 256-bin byte histogram of 9.1.
pub fn sequential(data: &[u8]) -> [u32; 256] {
    let mut h = [0u32; 256];
    for &b in data {
        h[b as usize] += 1;
    }
    h
}

/// PMPP's letter histogram (9.1): lowercase letters only, `letters_per_bin` to a bin.
pub fn letter_histogram(text: &[u8], letters_per_bin: u32) -> [u32; 26] {
    let mut h = [0u32; 26];
    for &c in text.iter().filter(|c| c.is_ascii_lowercase()) {
        h[((c - b'a') as u32 / letters_per_bin) as usize] += 1;
    }
    h
}

/// The histogram of `u32` values as bins, values `>= bins` skipped (9.10, 9.14).
pub fn value_histogram(data: &[u32], bins: u32) -> Vec<u32> {
    let mut h = vec![0u32; bins as usize];
    for &v in data.iter().filter(|&&v| v < bins) {
        h[v as usize] += 1;
    }
    h
}

/// The three channel histograms of interleaved RGB bytes (9.11): red, green, blue bins.
pub fn rgb_histogram(pixels: &[u8], bins: u32) -> Vec<u32> {
    let mut h = vec![0u32; 3 * bins as usize];
    for p in pixels.chunks_exact(3) {
        for (c, &b) in p.iter().enumerate() {
            h[c * bins as usize + byte_bin(b, bins) as usize] += 1;
        }
    }
    h
}

/// The weighted histogram (9.12), summed in `f64` so it is the exact sum to compare a
/// kernel's `f32` sums against.
pub fn weighted_histogram(data: &[u8], weights: &[f32], bins: u32) -> Vec<f64> {
    let mut h = vec![0f64; bins as usize];
    for (&b, &w) in data.iter().zip(weights) {
        h[byte_bin(b, bins) as usize] += w as f64;
    }
    h
}

/// The joint histogram of pairs (9.13), row-major with one row per `y` bin.
pub fn joint_histogram(x: &[u8], y: &[u8], bins_x: u32, bins_y: u32) -> Vec<u32> {
    let mut h = vec![0u32; (bins_x * bins_y) as usize];
    for (&a, &b) in x.iter().zip(y) {
        h[(byte_bin(b, bins_y) * bins_x + byte_bin(a, bins_x)) as usize] += 1;
    }
    h
}

/// The elements thread `t` of `threads` counts in a grid-stride loop over `n`.
pub fn grid_stride(t: u64, threads: u64, n: u64) -> impl Iterator<Item = u64> {
    (t..n).step_by(threads.max(1) as usize)
}

/// Each block's own histogram when `grid` blocks of `block` threads count `data` in a
/// grid-stride loop: the private copies 9.4 leaves in global memory.
pub fn block_histograms(data: &[u8], bins: u32, grid: u32, block: u32) -> Vec<Vec<u32>> {
    let threads = grid as u64 * block as u64;
    let mut out = vec![vec![0u32; bins as usize]; grid as usize];
    for (i, &b) in data.iter().enumerate() {
        let block_of = (i as u64 % threads) / block as u64;
        out[block_of as usize][byte_bin(b, bins) as usize] += 1;
    }
    out
}

/// The warps of a 1-D launch, each as the global thread ids of its lanes.
fn warps(grid: u32, block: u32) -> impl Iterator<Item = std::ops::Range<u64>> {
    (0..grid as u64).flat_map(move |b| {
        let base = b * block as u64;
        (0..(block as u64).div_ceil(WARP))
            .map(move |w| base + w * WARP..base + ((w + 1) * WARP).min(block as u64))
    })
}

/// Runs of equal bins summed over the threads of a grid-stride loop: the shared atomics
/// of 9.7, which flushes once per run.
pub fn grid_stride_runs(data: &[u8], bins: u32, grid: u32, block: u32) -> u64 {
    let threads = grid as u64 * block as u64;
    let mut runs = 0;
    for t in 0..threads.min(data.len() as u64) {
        let mut prev = None;
        for i in grid_stride(t, threads, data.len() as u64) {
            let bin = byte_bin(data[i as usize], bins);
            if prev != Some(bin) {
                runs += 1;
                prev = Some(bin);
            }
        }
    }
    runs
}

/// Distinct bins among the active lanes of each warp instruction of a grid-stride loop,
/// summed: the shared atomics of warp aggregation (9.8), one per distinct bin per warp
/// per round.
pub fn warp_distinct_bins(data: &[u8], bins: u32, grid: u32, block: u32) -> u64 {
    let threads = grid as u64 * block as u64;
    let n = data.len() as u64;
    let mut total = 0;
    for lanes in warps(grid, block) {
        let mut first = lanes.start;
        while first < n {
            let offset = first - lanes.start;
            let set: BTreeSet<u32> = lanes
                .clone()
                .map(|t| t + offset)
                .filter(|&i| i < n)
                .map(|i| byte_bin(data[i as usize], bins))
                .collect();
            total += set.len() as u64;
            first += threads;
        }
    }
    total
}

/// Warp load instructions and the 32-byte sectors they touch when each thread loads the
/// indices `elements(thread)` in order, one element of `size` bytes per round, the lanes
/// of a warp loading their k-th element together (a 256-byte-aligned buffer, as
/// `cudaMalloc` gives).
pub fn load_sectors<I: Iterator<Item = u64>>(
    grid: u32,
    block: u32,
    size: u64,
    elements: impl Fn(u64) -> I,
) -> (u64, u64) {
    let (mut requests, mut sectors) = (0, 0);
    for lanes in warps(grid, block) {
        let lists: Vec<Vec<u64>> = lanes.map(&elements).map(|it| it.collect()).collect();
        let rounds = lists.iter().map(Vec::len).max().unwrap_or(0);
        for k in 0..rounds {
            let set: BTreeSet<u64> = lists
                .iter()
                .filter_map(|l| l.get(k))
                .map(|&i| i * size / 32)
                .collect();
            requests += 1;
            sectors += set.len() as u64;
        }
    }
    (requests, sectors)
}

/// The warp loads and sectors of 9.6's contiguous partition: thread `t` loads bytes
/// `t * coarsen .. min((t + 1) * coarsen, n)`.
pub fn contiguous_sectors(n: u64, grid: u32, block: u32, coarsen: u64) -> (u64, u64) {
    load_sectors(grid, block, 1, |t| {
        (t * coarsen..((t + 1) * coarsen).min(n)).filter(move |&i| i < n)
    })
}

/// The warp loads and sectors of a grid-stride loop over `n` bytes.
pub fn interleaved_sectors(n: u64, grid: u32, block: u32) -> (u64, u64) {
    let threads = grid as u64 * block as u64;
    load_sectors(grid, block, 1, |t| grid_stride(t, threads, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_count_every_element() {
        let data = [0u8, 255, 128, 0, 7];
        assert_eq!(byte_histogram(&data, 2), vec![3, 2]);
        assert_eq!(byte_histogram(&data, 256).iter().sum::<u32>(), 5);
        assert_eq!(value_histogram(&[0, 1, 5, 1, 9], 6), vec![1, 2, 0, 0, 0, 1]);
        assert_eq!(
            rgb_histogram(&[0, 128, 255, 0, 0, 0, 9], 2),
            vec![2, 0, 1, 1, 1, 1]
        );
        assert_eq!(
            joint_histogram(&[0, 255], &[255, 255], 2, 2),
            vec![0, 0, 1, 1]
        );
        let l = letter_histogram(b"programming massively parallel processors", 4);
        assert_eq!(l.iter().sum::<u32>(), 38);
        assert_eq!(l[0], 5, "a, b, c, d: a a a c c");
    }

    #[test]
    fn models_match_hand_counts() {
        // Two threads, grid-stride: thread 0 sees 0,0,1 (2 runs), thread 1 sees 0,1 (2 runs).
        assert_eq!(grid_stride_runs(&[0, 0, 0, 255, 255], 2, 1, 2), 4);
        // One warp of 32 lanes over 40 elements: round 0 has 2 distinct bins, round 1 one.
        let mut data = vec![0u8; 40];
        data[5] = 255;
        assert_eq!(warp_distinct_bins(&data, 2, 1, 32), 3);
        // Interleaved: a warp reads 32 consecutive bytes, one sector per request.
        assert_eq!(interleaved_sectors(64, 1, 32), (2, 2));
        // Contiguous with 4 bytes a thread: each request spans 128 bytes, 4 sectors.
        assert_eq!(contiguous_sectors(128, 1, 32, 4), (4, 16));
        let copies = block_histograms(&[0, 255, 0, 255], 2, 2, 1);
        assert_eq!(copies, vec![vec![2, 0], vec![0, 2]]);
    }
}
