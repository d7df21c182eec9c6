//! The CPU's answers the checks compare with, and what floating-point order allows.
//!
//! A `u32` sum wraps around, so every order of the additions gives the same `u32`. An
//! `f32` sum rounds after every addition: in a given order, an element that goes
//! through `d` additions before the result carries at most `d` roundings of relative
//! size `u = eps / 2 = 2^-24`, so the computed sum `s` of `x_1 .. x_n` satisfies
//! `|s - sum x| <= gamma(d) * sum |x|`, `gamma(d) = d u / (1 - d u)`, where `d` is the
//! order's depth: the most additions any element goes through (Higham, *Accuracy and
//! Stability of Numerical Algorithms*, 4.2). Sequentially `d = n - 1`; a tree of pairs
//! `ceil(log2 n)`. The checks take the exact sum from `f64`, whose own error (`n * 2^-53
//! * sum |x|`) is far below the bound.

/// The `u32` sum of `data`, wrapping around.
pub fn sum_u32(data: &[u32]) -> u32 {
    data.iter().fold(0u32, |s, &x| s.wrapping_add(x))
}

/// The sum of `data` in `f64` (exact to far below an `f32` rounding) and `sum |x|`.
pub fn sum_f64(data: &[f32]) -> (f64, f64) {
    data.iter().fold((0.0, 0.0), |(s, m), &x| {
        let x = x as f64;
        (s + x, m + x.abs())
    })
}

/// The unit roundoff of `f32`: `eps / 2 = 2^-24`.
pub const F32_UNIT_ROUNDOFF: f64 = f32::EPSILON as f64 / 2.0;

/// The largest error an `f32` sum of order depth `depth` may have, with `abs_sum = sum
/// |x|`: `gamma(depth) * abs_sum` (see the module's docs).
pub fn f32_bound(depth: u64, abs_sum: f64) -> f64 {
    let du = depth as f64 * F32_UNIT_ROUNDOFF;
    if du >= 1.0 {
        return f64::INFINITY;
    }
    du / (1.0 - du) * abs_sum
}

/// The depth of the sequential order over `n` elements: `n - 1` additions for element 0
/// (the sum's start, 0, adds no rounding).
pub fn sequential_depth(n: usize) -> u64 {
    n.saturating_sub(1) as u64
}

/// The depth of 10.9's order over `n` elements with `grid` blocks of `block` threads:
/// a thread's chain (its vectors' words one after another, then its tail element), five
/// shuffle rounds in the warp, five over the block's warps, then the blocks' atomics on
/// the sum, one after another in any order.
pub fn fastest_depth(n: usize, grid: u32, block: u32) -> u64 {
    let threads = (grid as u64 * block as u64).max(1);
    let vectors = (n / 4) as u64;
    let per_thread = vectors.div_ceil(threads) * 4 + 1;
    per_thread + 5 + 5 + grid as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u32_sums_wrap() {
        assert_eq!(sum_u32(&[u32::MAX, 2]), 1);
        assert_eq!(sum_u32(&[]), 0);
    }

    /// The bound holds for the sequential order on a sum that loses bits at every step, and
    /// is not slack by orders of magnitude: a large element added to many small ones.
    #[test]
    fn the_sequential_order_stays_within_its_bound() {
        let data: Vec<f32> = (0..4096)
            .map(|i| {
                if i == 0 {
                    1.0e8
                } else {
                    0.7 + (i % 13) as f32 * 0.01
                }
            })
            .collect();
        let seq = data.iter().fold(0.0f32, |s, &x| s + x) as f64;
        let (exact, mass) = sum_f64(&data);
        let err = (seq - exact).abs();
        let bound = f32_bound(sequential_depth(data.len()), mass);
        assert!(err <= bound, "error {err} over bound {bound}");
        assert!(err > bound / 1000.0, "error {err} far below bound {bound}");
        // Leaving out one element of 0.7 is outside the bound of a short order.
        assert!(0.7 > f32_bound(fastest_depth(4096, 2, 64), 4096.0));
    }

    #[test]
    fn depths() {
        assert_eq!(sequential_depth(0), 0);
        assert_eq!(sequential_depth(5), 4);
        // 1024 elements: 256 vectors over 128 threads, 2 each (8 words) + tail + 10 + 2.
        assert_eq!(fastest_depth(1024, 2, 64), 8 + 1 + 10 + 2);
        assert!(f32_bound(1 << 25, 1.0).is_infinite());
    }
}
