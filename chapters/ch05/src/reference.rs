//! CPU references and counter models: what each kernel must produce, and how many
//! memory requests, sectors and atomics the technique an exercise asks for makes.
//!
//! The checks compare a kernel's output with these references and its emulator counters
//! with these models, computed from the input and the launch (never hard-coded): a
//! kernel that gets the right output by another technique (a loop over everything in
//! every thread, a global atomic per byte where the exercise privatizes) shows up as a
//! counter that differs from the model.

use solutions::ch05::{BINS, even_work, odd_work, pack_xy, pack_xyz};
use std::collections::BTreeSet;

/// `a[i] = b[i] * c[i]`, wrapping, for every `i` of the shorter input.
pub fn mul(b: &[u32], c: &[u32]) -> Vec<u32> {
    b.iter().zip(c).map(|(&b, &c)| b.wrapping_mul(c)).collect()
}

/// 5.2's expected 2-D output for `<<<grid, block>>>`: element `y * width + x` holds
/// `pack_xy(x, y)`.
pub fn coords_2d(grid: (u32, u32), block: (u32, u32)) -> Vec<u32> {
    let (w, h) = (grid.0 * block.0, grid.1 * block.1);
    (0..h)
        .flat_map(|y| (0..w).map(move |x| pack_xy(x, y)))
        .collect()
}

/// 5.2's expected 3-D output for `<<<grid, block>>>`: element `(z * height + y) * width
/// + x` holds `pack_xyz(x, y, z)`.
pub fn coords_3d(grid: (u32, u32, u32), block: (u32, u32, u32)) -> Vec<u32> {
    let (w, h, d) = (grid.0 * block.0, grid.1 * block.1, grid.2 * block.2);
    (0..d)
        .flat_map(|z| (0..h).flat_map(move |y| (0..w).map(move |x| pack_xyz(x, y, z))))
        .collect()
}

/// 5.4's output: `even_work` on even indices, `odd_work` on odd ones.
pub fn classify(data: &[u32]) -> Vec<u32> {
    data.iter()
        .enumerate()
        .map(|(i, &v)| {
            if i.is_multiple_of(2) {
                even_work(v)
            } else {
                odd_work(v)
            }
        })
        .collect()
}

/// The output of 5.4's given `classify_half_warp`: `even_work` where `i % 32 < 16`.
pub fn classify_half_warp(data: &[u32]) -> Vec<u32> {
    data.iter()
        .enumerate()
        .map(|(i, &v)| {
            if i % 32 < 16 {
                even_work(v)
            } else {
                odd_work(v)
            }
        })
        .collect()
}

/// 5.5's 3-point sum, out of place: `src[i-1] + src[i] + src[i+1]`, wrapping, with the
/// neighbours outside `src` counting as 0.
pub fn smooth(src: &[u32]) -> Vec<u32> {
    let at = |i: usize| src.get(i).copied().unwrap_or(0);
    (0..src.len())
        .map(|i| {
            let left = if i > 0 { at(i - 1) } else { 0 };
            left.wrapping_add(at(i)).wrapping_add(at(i + 1))
        })
        .collect()
}

/// The 256-bin byte histogram.
pub fn histogram(data: &[u8]) -> Vec<u32> {
    let mut h = vec![0u32; BINS as usize];
    for &b in data {
        h[b as usize] += 1;
    }
    h
}

/// Global memory requests and 32-byte sectors of one load (or store) site of a kernel,
/// modelled warp by warp, as the emulator counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Warp instructions: one per warp and round with at least one lane in range.
    pub requests: u64,
    /// Distinct 32-byte sectors those instructions touched (buffers are 256-byte aligned).
    pub sectors: u64,
}

/// The [`Access`] of a site where, in round `r` (0 to `rounds - 1`), thread `t` of block
/// `b` touches element `index(b, t, r)` of `elem_bytes` bytes if it is below `n`: the
/// model behind every coalescing check of the chapter. Threads are grouped into warps of
/// 32 consecutive thread indices of a 1-D block.
pub fn access(
    grid: u32,
    block: u32,
    rounds: u32,
    n: u64,
    elem_bytes: u64,
    index: impl Fn(u32, u32, u32) -> u64,
) -> Access {
    let mut a = Access::default();
    for r in 0..rounds {
        for b in 0..grid {
            for w in 0..block.div_ceil(32) {
                let sectors: BTreeSet<u64> = (w * 32..((w + 1) * 32).min(block))
                    .map(|t| index(b, t, r))
                    .filter(|&i| i < n)
                    .map(|i| i * elem_bytes / 32)
                    .collect();
                if !sectors.is_empty() {
                    a.requests += 1;
                    a.sectors += sectors.len() as u64;
                }
            }
        }
    }
    a
}

/// [`access`] for one element per thread: thread `b * block + t` touches that element.
pub fn one_per_thread(grid: u32, block: u32, n: u64, elem_bytes: u64) -> Access {
    access(grid, block, 1, n, elem_bytes, |b, t, _| {
        b as u64 * block as u64 + t as u64
    })
}

/// [`access`] for a grid-stride loop: thread `g` touches `g`, `g + T`, ... (`T` the
/// grid's threads).
pub fn grid_stride(grid: u32, block: u32, n: u64, elem_bytes: u64) -> Access {
    let threads = grid as u64 * block as u64;
    let rounds = n.div_ceil(threads.max(1)).max(1) as u32;
    access(grid, block, rounds, n, elem_bytes, |b, t, r| {
        r as u64 * threads + b as u64 * block as u64 + t as u64
    })
}

/// The words block `b` of 5.6's kernel 4 counts with `per_thread` words per thread:
/// `b * block * N + r * block + t` for rounds `r` and threads `t` (kernel 3 is `N = 1`).
pub fn shared_n_word(block: u32, per_thread: u32) -> impl Fn(u32, u32, u32) -> u64 {
    move |b, t, r| b as u64 * block as u64 * per_thread as u64 + r as u64 * block as u64 + t as u64
}

/// The global atomics 5.6's privatized kernels (3 and 4) make: each block commits its
/// nonzero bins, so the sum over blocks of the distinct byte values the block counted.
/// Block 0 also counts the `n % 4` tail bytes ([`solutions::ch05::count_tail`]).
pub fn shared_commits(data: &[u8], grid: u32, block: u32, per_thread: u32) -> u64 {
    let words = data.len() / 4;
    let word = shared_n_word(block, per_thread);
    (0..grid)
        .map(|b| {
            let mut seen = [false; 256];
            for r in 0..per_thread {
                for t in 0..block {
                    let w = word(b, t, r) as usize;
                    if w < words {
                        for &byte in &data[4 * w..4 * w + 4] {
                            seen[byte as usize] = true;
                        }
                    }
                }
            }
            if b == 0 {
                for &byte in &data[4 * words..] {
                    seen[byte as usize] = true;
                }
            }
            seen.iter().filter(|&&s| s).count() as u64
        })
        .sum()
}

/// The one load request of the tail bytes ([`solutions::ch05::count_tail`]): 1 when
/// `n % 4 > 0`, else 0.
pub fn tail_requests(n: usize) -> u64 {
    u64::from(!n.is_multiple_of(4))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalesced_and_strided_accesses() {
        // 64 u32 in two warps: two requests of 128 bytes, four sectors each.
        assert_eq!(
            one_per_thread(1, 64, 64, 4),
            Access {
                requests: 2,
                sectors: 8
            }
        );
        // A tail of 4 elements in the last warp: one request, one sector.
        assert_eq!(one_per_thread(2, 64, 100, 4).requests, 4);
        // Bytes: 32 lanes read one sector.
        assert_eq!(one_per_thread(1, 32, 32, 1).sectors, 1);
        // A grid of 64 threads over 200 elements: four rounds, the last with 8 lanes.
        assert_eq!(grid_stride(1, 64, 200, 4).requests, 7);
        // Nothing in range: no request.
        assert_eq!(grid_stride(2, 64, 0, 4), Access::default());
    }

    #[test]
    fn references() {
        assert_eq!(mul(&[2, 3], &[5, 7]), vec![10, 21]);
        assert_eq!(
            coords_2d((1, 1), (2, 2)),
            vec![0, 1, 1 << 16, (1 << 16) | 1]
        );
        assert_eq!(smooth(&[1, 2, 3]), vec![3, 6, 5]);
        assert_eq!(classify(&[5, 5]), vec![10, 6]);
        assert_eq!(histogram(&[0, 0, 255])[0], 2);
        // Two blocks of 32 threads, one word each: block 0 sees 0,1,2,3 plus the tail 9.
        let data: Vec<u8> = (0..256u32 + 1)
            .map(|i| (i % 4) as u8 + 9 * (i / 256) as u8)
            .collect();
        assert_eq!(shared_commits(&data, 2, 32, 1), 4 + 1 + 4);
        assert_eq!(tail_requests(257), 1);
    }
}
