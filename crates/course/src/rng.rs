//! A small seeded generator, so inputs are the same on every OS and every run.

/// SplitMix64: tiny, fast, and fully specified, so a seed printed on one machine replays
/// the same input on any other.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// True with probability `p` percent.
    pub fn percent(&mut self, p: u32) -> bool {
        self.below(100) < p as u64
    }
}

/// The seed for randomised inputs: `COURSE_SEED` if set (to replay a failure), else
/// `default`.
pub fn seed_from_env(default: u64) -> u64 {
    std::env::var("COURSE_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(default)
}
