//! Inputs: the adversarial cases of the checks and the generated inputs of the
//! progression, all from a seed so that a failure replays exactly.

use course::Rng;

/// A paragraph of ordinary English, for "real text" inputs: letters cluster on a few
/// bins (e, t, a, space), the way real data is skewed.
pub const TEXT: &str = "A histogram counts how often each value occurs. Every element decides \
for itself which counter it updates, so two threads may want the same counter at the same \
moment. Reading the counter, adding one and writing it back are three steps; if another \
thread slips in between them, one of the two updates is lost. Atomic operations make the \
three steps one, privatization gives each block its own counters, and aggregation merges \
the updates to one counter before they are made. ";

/// One input of a check, data and name ([`chapter::inputs::Case`]).
pub use chapter::inputs::Case;

/// How the progression's input is generated ([`chapter::inputs::InputKind`]), and its
/// bytes.
pub use chapter::inputs::{InputKind, bytes, cycle};

/// `n` values of `kind` for a histogram of `bins` bins: uniform values are bins, skewed
/// ones favour bin 0, text bytes are spread over the bins with `byte_bin`.
pub fn values(kind: &InputKind, n: usize, bins: u32, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    match kind {
        InputKind::Uniform => (0..n).map(|_| rng.below(bins as u64) as u32).collect(),
        InputKind::Zeros => vec![0; n],
        InputKind::Skew(p) => (0..n)
            .map(|_| {
                if rng.percent(*p) {
                    0
                } else {
                    rng.below(bins as u64) as u32
                }
            })
            .collect(),
        InputKind::Text(t) => cycle(t, n)
            .into_iter()
            .map(|b| solutions::ch09::byte_bin(b, bins))
            .collect(),
    }
}

/// `n` uniform random bytes.
pub fn uniform(n: usize, seed: u64) -> Vec<u8> {
    bytes(&InputKind::Uniform, n, seed)
}

/// Ascending runs of random lengths (1 to 64) of random bytes: sorted data, where
/// neighbours share a bin.
pub fn sorted_runs(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let value = rng.below(256) as u8;
        let len = 1 + rng.below(64) as usize;
        out.extend(std::iter::repeat_n(value, len.min(n - out.len())));
    }
    out.sort_unstable();
    out
}

/// The 256 byte values, each once, shuffled: no two elements share a bin of 256.
pub fn all_distinct(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut v: Vec<u8> = (0..=255).collect();
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
    v
}

/// The adversarial byte inputs every byte kernel is checked on, from `seed`, in the
/// order they are tried: uniform random over several warps and blocks first (where a
/// missing barrier is a race the racecheck names), then empty, one element, all one value, all distinct, sorted runs,
/// real text, a hot bin, and uniform random (small and larger). Sizes stay small: the
/// emulator runs every lane.
pub fn byte_cases(seed: u64) -> Vec<Case<u8>> {
    use course::draw::n;
    let one = course::draw::between(0x0b17e, 200, 0, 255) as u8;
    let (random, zeros, runs, text, hot) = (n(1001), n(777), n(1500), n(1234), n(999));
    vec![
        // First an input spanning several warps and blocks: a missing barrier shows there
        // as a race at its line, where a one-warp input would only miscount.
        Case::new(
            format!("uniform random bytes, n = {random}"),
            uniform(random, seed),
        ),
        Case::new("empty input (n = 0)", Vec::new()),
        Case::new(format!("one element (n = 1, byte {one})"), vec![one]),
        Case::new(format!("all zeros, n = {zeros}"), vec![0; zeros]),
        Case::new(
            "the 256 byte values once each, shuffled",
            all_distinct(seed + 1),
        ),
        Case::new(
            format!("sorted runs, n = {runs}"),
            sorted_runs(runs, seed + 2),
        ),
        Case::new(
            format!("English text, n = {text}"),
            cycle(TEXT.as_bytes(), text),
        ),
        Case::new(
            format!("90% zeros, n = {hot}"),
            bytes(&InputKind::Skew(90), hot, seed + 3),
        ),
    ]
}

/// The line every failure on a seeded input ends with: how to replay it.
pub fn replay_line(seed: u64) -> String {
    format!("replay this input with COURSE_SEED={seed} (the seed of this run)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_deterministic_and_sized() {
        assert_eq!(
            bytes(&InputKind::Uniform, 100, 7),
            bytes(&InputKind::Uniform, 100, 7)
        );
        assert_ne!(
            bytes(&InputKind::Uniform, 100, 7),
            bytes(&InputKind::Uniform, 100, 8)
        );
        assert_eq!(sorted_runs(500, 3).len(), 500);
        assert!(sorted_runs(500, 3).windows(2).all(|w| w[0] <= w[1]));
        let mut d = all_distinct(5);
        d.sort_unstable();
        assert_eq!(d, (0..=255).collect::<Vec<u8>>());
        assert!(
            values(&InputKind::Uniform, 1000, 10, 1)
                .iter()
                .all(|&v| v < 10)
        );
        let skew = bytes(&InputKind::Skew(90), 1000, 2);
        let zeros = skew.iter().filter(|&&b| b == 0).count();
        assert!((850..=950).contains(&zeros), "{zeros}");
        assert_eq!(cycle(b"ab", 5), b"ababa");
        assert_eq!(cycle(b"", 2), vec![0, 0]);
    }
}
