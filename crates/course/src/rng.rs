//! The course's seeded generator, so inputs are the same on every OS and every run.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// ChaCha8 from `rand_chacha` (the `rand` project's portable generators): its values are
/// specified, the same on every platform and promised not to change between versions of
/// the crate, so a seed printed on one machine replays the same input on any other, this
/// year and next. Seeded from a `u64` by `SeedableRng::seed_from_u64` (as stable).
///
/// The ranges are drawn here, not with `rand`'s distributions, whose algorithms may change
/// between `rand` versions: [`Rng::below`] is a multiply and a shift of the next 64 bits.
#[derive(Clone, Debug)]
pub struct Rng(ChaCha8Rng);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A value in `0..n` (n > 0): the high 64 bits of the next 64 bits times `n` (Lemire's
    /// multiply-shift; its bias, under `n / 2^64`, is far below what a test could see).
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
