//! Times of GPU launches: one launch's time and throughput, and the repetitions and
//! median a benchmark takes.
//!
//! Both chapters time kernels the same way (CUDA events around a launch, the median of
//! repeated runs), so that their numbers can be compared; the arithmetic lives here.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A GPU launch's time and the bytes the chapter counts for it: its throughput. Which
/// bytes is the chapter's choice (chapter 5: read and written; chapter 9: the input
/// read), and its header says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GpuTime {
    /// The launch's time, nanoseconds (one launch, bracketed by two CUDA events).
    pub ns: u64,
    /// Bytes the kernel is credited with moving.
    pub bytes: u64,
}

impl GpuTime {
    /// Milliseconds: the table's `ms` column.
    pub fn ms(&self) -> f64 {
        self.ns as f64 / 1e6
    }

    /// Bytes per nanosecond: GB/s (10^9), the table's `GB/s` column; 0 for a launch too
    /// short to time, rather than infinity.
    pub fn gbps(&self) -> f64 {
        if self.ns == 0 {
            0.0
        } else {
            self.bytes as f64 / self.ns as f64
        }
    }
}

/// The median of `times` (the upper one of an even count, as CUB's and PyTorch's
/// programs take it): robust to the odd slow run that a mean would carry.
pub fn median(times: &[Duration]) -> Duration {
    let mut t = times.to_vec();
    t.sort();
    t.get(t.len() / 2).copied().unwrap_or_default()
}

/// How many warm-ups and timed runs fit in `budget` when one takes `one`: up to
/// `warmup` and `reps`, at least one timed run, so that a slow case cannot stall a bench.
pub fn plan(one: Duration, warmup: u32, reps: u32, budget: Duration) -> (u32, u32) {
    let one = one.max(Duration::from_micros(1)).as_secs_f64();
    let fit = (budget.as_secs_f64() / one).floor().min(1e9) as u32;
    let reps = fit.clamp(1, reps.max(1));
    let warmup = fit.saturating_sub(reps).min(warmup);
    (warmup, reps)
}

/// A bench row's measure: the bytes a run moves, the median time of one run, and the
/// throughput they make; no time while unmeasured, or when the result was wrong or the
/// run failed. Flattened into every bench's JSON rows (`bytes`, `median_ms`, `gbps`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Bytes one run moves: what the GB/s are computed from.
    pub bytes: u64,
    /// Median time of the timed runs, in milliseconds.
    #[serde(deserialize_with = "course::json::present")]
    pub median_ms: Option<f64>,
    /// `bytes / median`, in GB/s (10^9 bytes per second).
    #[serde(deserialize_with = "course::json::present")]
    pub gbps: Option<f64>,
}

impl Rate {
    /// `bytes` a run, not measured yet.
    pub fn of(bytes: u64) -> Self {
        Rate {
            bytes,
            ..Rate::default()
        }
    }

    /// Records a median time and the GB/s it makes (none for a time of zero).
    pub fn measured(&mut self, median_ms: f64) {
        self.median_ms = Some(median_ms);
        self.gbps = (median_ms > 0.0).then(|| self.bytes as f64 / (median_ms * 1e6));
    }

    /// Forgets the time: a run that failed, or a wrong result.
    pub fn clear(&mut self) {
        self.median_ms = None;
        self.gbps = None;
    }
}

/// How much every bench of the course measures, and with what input: what its
/// `--size-mib`, `--warmup`, `--reps` and `--seed` say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchRuns {
    /// Bytes of each input.
    pub size_bytes: u64,
    /// Untimed launches before the timed ones (at most, for a bench with a time budget).
    pub warmup: u32,
    /// Timed launches per case (at most, for a bench with a time budget).
    pub reps: u32,
    /// Seed of the random inputs.
    pub seed: u64,
}

/// Untimed launches before the timed ones, by default: every bench's `--warmup`.
pub const DEFAULT_WARMUP: u32 = 3;
/// Timed launches per case, by default: every bench's `--reps`.
pub const DEFAULT_REPS: u32 = 20;
/// The seed of the random inputs, by default: every bench's `--seed`.
pub const DEFAULT_SEED: u64 = 9;

impl BenchRuns {
    /// Inputs of `size_bytes`, with every bench's defaults ([`DEFAULT_WARMUP`],
    /// [`DEFAULT_REPS`], [`DEFAULT_SEED`]: what `--warmup`, `--reps` and `--seed` default
    /// to).
    pub fn of(size_bytes: u64) -> Self {
        BenchRuns {
            size_bytes,
            warmup: DEFAULT_WARMUP,
            reps: DEFAULT_REPS,
            seed: DEFAULT_SEED,
        }
    }
}

/// The largest input a bench takes, in MiB: a buffer holds at most 2^32 - 1 elements.
pub const MAX_BENCH_MIB: u64 = 4095;

/// A bench's `--size-mib` and `--reps`, checked, with its `--warmup` and `--seed`: what
/// it runs, or the error (one line) that every chapter's bench gives.
pub fn bench_runs(size_mib: u64, warmup: u32, reps: u32, seed: u64) -> Result<BenchRuns, String> {
    if size_mib == 0 || size_mib > MAX_BENCH_MIB {
        return Err(format!(
            "--size-mib must be between 1 and {MAX_BENCH_MIB}, got {size_mib}"
        ));
    }
    if reps == 0 {
        return Err("--reps must be at least 1".into());
    }
    Ok(BenchRuns {
        size_bytes: size_mib << 20,
        warmup,
        reps,
        seed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_is_bytes_over_the_median() {
        let mut r = Rate::of(2_000_000);
        r.measured(0.5);
        assert_eq!((r.median_ms, r.gbps), (Some(0.5), Some(4.0)));
        r.measured(0.0);
        assert_eq!(r.gbps, None);
        r.clear();
        assert_eq!(r, Rate::of(2_000_000));
    }

    #[test]
    fn bench_sizes_are_checked() {
        let runs = bench_runs(1, 3, 5, 9).unwrap();
        assert_eq!(
            (runs.size_bytes, runs.warmup, runs.reps, runs.seed),
            (1 << 20, 3, 5, 9)
        );
        assert!(bench_runs(0, 3, 1, 9).unwrap_err().contains("--size-mib"));
        assert!(bench_runs(MAX_BENCH_MIB + 1, 3, 1, 9).is_err());
        assert!(bench_runs(1, 3, 0, 9).unwrap_err().contains("--reps"));
    }

    #[test]
    fn medians_and_throughput() {
        let ms = Duration::from_millis;
        assert_eq!(median(&[ms(3), ms(1), ms(2), ms(9)]), ms(3));
        assert_eq!(median(&[]), Duration::ZERO);
        let t = GpuTime { ns: 2, bytes: 10 };
        assert_eq!(t.gbps(), 5.0);
        assert_eq!(GpuTime { ns: 0, bytes: 1 }.gbps(), 0.0);
    }
}
