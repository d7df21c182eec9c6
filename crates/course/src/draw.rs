//! Where a check's inputs come from: the course's public seed, or an instructor's private
//! one.
//!
//! `cargo test` and the runner draw every check's inputs from the course's public seed
//! (each chapter's `check_seed`, or `COURSE_SEED` to replay a failure), with the sizes the
//! course publishes: a student sees exactly what their checks run on. The grader can draw
//! them from a private seed instead ([`PRIVATE_SEED_ENV`], `grade --seed`): the values,
//! the sizes ([`n`]) and the arguments of host functions ([`pick`]) then come from it, so
//! an answer that keys on the public inputs (a table of the checks' cases, a branch on the
//! input's length) fails. A size keeps its class: 0 and 1 stay themselves, and any other
//! keeps its remainder by 32, so a size that is not a multiple of a block of whole warps
//! stays one, a multiple stays one, and a tail of 3 bytes past a word stays 3 bytes.
//! Nothing a private seed derives is printed ([`seed_text`]).

use crate::Rng;
use std::sync::OnceLock;

/// Environment variable holding the instructor's private seed, any text (a CI secret):
/// read by the grader (`--seed` sets it for its own child processes) and, where a student
/// sets it, by their own `cargo test`.
pub const PRIVATE_SEED_ENV: &str = "COURSE_GRADE_SEED";

/// The private seed of this process, as a number (FNV-1a of the text), if one is set and
/// not empty. Read once.
pub fn private_seed() -> Option<u64> {
    static SEED: OnceLock<Option<u64>> = OnceLock::new();
    *SEED.get_or_init(|| {
        let text = std::env::var(PRIVATE_SEED_ENV).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| hash(text.as_bytes()))
    })
}

/// FNV-1a, 64 bits.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A value drawn from `private` and `salt` through ChaCha8: nothing of `private` can be
/// recovered from it.
fn derived(private: u64, salt: u64) -> Rng {
    let mut rng = Rng::new(private ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let _ = rng.next_u64();
    rng
}

/// The seed of a check's random values: under a private seed, one derived from it and
/// `default` (the chapter's); else `COURSE_SEED` if set (to replay a failure), else
/// `default`.
pub fn check_seed(default: u64) -> u64 {
    match private_seed() {
        Some(p) => derived(p, default).next_u64(),
        None => crate::seed_from_env(default),
    }
}

/// A size of a check's input: `public` under the public seed; under a private seed, one
/// drawn between about half and one and a half times it, in the same class (see the
/// module docs).
pub fn n(public: usize) -> usize {
    match private_seed() {
        Some(p) => drawn_size(p, public),
        None => public,
    }
}

/// [`n`] under private seed `p`.
fn drawn_size(p: u64, public: usize) -> usize {
    if public <= 1 {
        return public;
    }
    let lo = (public / 2).max(2);
    let hi = public + public / 2;
    let m = lo + derived(p, public as u64).below((hi - lo + 1) as u64) as usize;
    let m = m - m % 32 + public % 32;
    if m < 2 { m + 32 } else { m }
}

/// One of `options` (not empty): the first under the public seed; under a private seed, one
/// drawn with `salt` (so that two questions of one check draw apart).
pub fn pick<T: Copy>(salt: u64, options: &[T]) -> T {
    match private_seed() {
        None => options[0],
        Some(p) => options[derived(p, salt ^ 0x7069_636b).below(options.len() as u64) as usize],
    }
}

/// A value in `lo..=hi`: `public` under the public seed; under a private seed, drawn with
/// `salt`.
pub fn between(salt: u64, public: u64, lo: u64, hi: u64) -> u64 {
    match private_seed() {
        None => public,
        Some(p) => lo + derived(p, salt ^ 0x6265_7477).below(hi - lo + 1),
    }
}

/// `count` values in `lo..=hi` drawn with `salt` under a private seed; none under the
/// public seed (the check's published values are all it runs on).
pub fn extra(salt: u64, count: usize, lo: u64, hi: u64) -> Vec<u64> {
    match private_seed() {
        None => Vec::new(),
        Some(p) => {
            let mut rng = derived(p, salt ^ 0x6578_7472);
            (0..count).map(|_| lo + rng.below(hi - lo + 1)).collect()
        }
    }
}

/// How a seed reads where no replay line names it (a check's failure names only the seed
/// that replays it, `COURSE_SEED=2009`, so its inputs carry none): `seed 2010` under the
/// public seed; under a private seed nothing that could lead to it.
pub fn seed_text(seed: u64) -> String {
    if private_seed().is_some() {
        "drawn from the grader's private seed".to_string()
    } else {
        format!("seed {seed}")
    }
}

/// What the reports say of the inputs.
pub fn inputs_text() -> &'static str {
    if private_seed().is_some() {
        "a private seed (not shown)"
    } else {
        "the course's public seed"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_inputs_are_the_published_ones() {
        // No private seed in a test process unless the environment sets one.
        if private_seed().is_none() {
            assert_eq!(n(1001), 1001);
            assert_eq!(pick(3, &[4, 5, 6]), 4);
            assert_eq!(between(1, 7, 0, 100), 7);
            assert_eq!(seed_text(12), "seed 12");
        }
    }

    #[test]
    fn derived_sizes_keep_their_class_and_move() {
        let mut moved = 0;
        for p in 0..50u64 {
            let p = hash(&p.to_le_bytes());
            let m = drawn_size(p, 1027);
            assert!(m % 32 == 1027 % 32 && (470..=1540).contains(&m), "{m}");
            moved += usize::from(m != 1027);
            assert!(drawn_size(p, 4096).is_multiple_of(32));
            assert_eq!((drawn_size(p, 0), drawn_size(p, 1)), (0, 1));
            assert!(drawn_size(p, 3) >= 2 && drawn_size(p, 3) % 32 == 3);
        }
        assert!(moved > 40, "{moved} of 50 seeds moved the size");
    }
}
