//! The checks' inputs: adversarial lengths (empty, one element, one warp and one more,
//! not a multiple of any block), values that wrap a `u32` sum, and for `f32` sums whose
//! terms cancel. Every random input is drawn from the check's seed
//! ([`course::draw`]: the public seed, or the grader's private one).

use course::Rng;

/// One named input of a check ([`chapter::inputs::Case`]).
pub type Case<T> = chapter::inputs::Case<T>;

/// `n` random `u32` in `1..=max` (nonzero: an element of 0 would need no atomic).
pub fn uniform(n: usize, max: u32, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| 1 + rng.below(max as u64) as u32).collect()
}

/// The `u32` inputs of the sum kernels: lengths 0, 1, 33, a length no block divides,
/// and a long one whose sum wraps past `u32::MAX` several times.
pub fn u32_cases(seed: u64) -> Vec<Case<u32>> {
    let one = course::draw::between(0x1001, 7, 1, 1000) as u32;
    let odd = course::draw::n(333);
    let long = course::draw::n(1000);
    vec![
        Case::new("empty input (n = 0)", Vec::new()),
        Case::new("one element (n = 1)", vec![one]),
        Case::new(
            "33 elements: one warp and one more",
            uniform(33, 1000, seed + 1),
        ),
        Case::new(
            "random elements, a length no block divides",
            uniform(odd, 1 << 20, seed + 2),
        ),
        Case::new(
            "elements up to 2^32 (the sum wraps around)",
            uniform(long, u32::MAX, seed + 3),
        ),
    ]
}

/// `n` random `f32` in `(-1, 1)` times `scale`.
pub fn f32_uniform(n: usize, scale: f32, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let x = (rng.below(1 << 24) as f32 / (1 << 23) as f32) - 1.0;
            if x == 0.0 { scale * 0.5 } else { x * scale }
        })
        .collect()
}

/// The `f32` inputs: short ones, random ones, and sums whose large terms cancel (the
/// small ones are what rounding in a long order loses).
pub fn f32_cases(seed: u64) -> Vec<Case<f32>> {
    let odd = course::draw::n(333);
    let long = course::draw::n(1000);
    let mut cancel = f32_uniform(long, 1.0, seed + 5);
    for (i, x) in cancel.iter_mut().enumerate().step_by(50) {
        *x = if i % 100 == 0 { 3.0e7 } else { -3.0e7 };
    }
    vec![
        Case::new("empty input (n = 0)", Vec::new()),
        Case::new("one element (n = 1, value -2.5)", vec![-2.5]),
        Case::new(
            "7 elements (one vector and 3 more)",
            f32_uniform(7, 100.0, seed + 6),
        ),
        Case::new(
            "random elements in (-1000, 1000), a length no block divides",
            f32_uniform(odd, 1000.0, seed + 7),
        ),
        Case::new("pairs of +-3e7 among small elements (cancellation)", cancel),
    ]
}
