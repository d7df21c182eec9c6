//! Inputs of the checks and the progression, all from a seed so that a failure replays
//! exactly (`COURSE_SEED=N`).

use chapter::inputs::InputKind;
use course::Rng;

/// One input of a check, data and name ([`chapter::inputs::Case`]).
pub use chapter::inputs::Case;

/// `n` values below `limit`, from `seed`: small enough that the products of two of them
/// (5.1, 5.3) and sums of three (5.5) stay far from wrapping, so a wrong index shows as
/// a wrong value rather than a coincidence.
pub fn values(n: usize, limit: u32, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.below(limit as u64) as u32).collect()
}

/// `n` values of `kind` from `seed`: uniform ones below `limit` as [`values`] makes them;
/// otherwise the bytes of `kind` ([`chapter::inputs::bytes`]) as values (zeros, a hot zero,
/// a file's bytes), all below 256 and so below every `limit` the progression uses.
pub fn of_kind(kind: &InputKind, n: usize, limit: u32, seed: u64) -> Vec<u32> {
    match kind {
        InputKind::Uniform => values(n, limit, seed),
        _ => chapter::inputs::bytes(kind, n, seed)
            .into_iter()
            .map(u32::from)
            .collect(),
    }
}

/// `n` uniform random bytes from `seed`.
pub fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.below(256) as u8).collect()
}

/// `n` bytes, `percent` % of them zero and the rest uniform: one hot bin.
pub fn skewed_bytes(n: usize, percent: u32, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            if rng.percent(percent) {
                0
            } else {
                rng.below(256) as u8
            }
        })
        .collect()
}

/// `n` bytes in sorted runs: `0, 0, ..., 1, 1, ...`, each value `run` times.
pub fn sorted_runs(n: usize, run: usize) -> Vec<u8> {
    (0..n).map(|i| ((i / run.max(1)) % 256) as u8).collect()
}

/// A length from `seed` in `1..=max`: the "random n" of every check, printed with it.
pub fn random_len(max: usize, seed: u64) -> usize {
    1 + Rng::new(seed ^ 0x5eed).below(max as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_bounded() {
        assert_eq!(values(100, 50, 3), values(100, 50, 3));
        assert!(values(100, 50, 3).iter().all(|&v| v < 50));
        let s = skewed_bytes(1000, 90, 1);
        assert!(s.iter().filter(|&&b| b == 0).count() > 800);
        assert_eq!(sorted_runs(6, 2), vec![0, 0, 1, 1, 2, 2]);
        let n = random_len(10, 7);
        assert!((1..=10).contains(&n));
    }
}
