//! Times of GPU launches: one launch's time and throughput, and the repetitions and
//! median a benchmark takes.
//!
//! Both chapters time kernels the same way (CUDA events around a launch, the median of
//! repeated runs), so that their numbers can be compared; the arithmetic lives here.

use serde::Serialize;
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

/// The largest input a bench takes, in MiB: a buffer holds at most 2^32 - 1 elements.
pub const MAX_BENCH_MIB: u64 = 4095;

/// A bench's `--size-mib` and `--reps`, checked: the input's bytes, or the error (one
/// line) that every chapter's bench gives.
pub fn bench_size(size_mib: u64, reps: u32) -> Result<u64, String> {
    if size_mib == 0 || size_mib > MAX_BENCH_MIB {
        return Err(format!(
            "--size-mib must be between 1 and {MAX_BENCH_MIB}, got {size_mib}"
        ));
    }
    if reps == 0 {
        return Err("--reps must be at least 1".into());
    }
    Ok(size_mib << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_sizes_are_checked() {
        assert_eq!(bench_size(1, 1), Ok(1 << 20));
        assert!(bench_size(0, 1).unwrap_err().contains("--size-mib"));
        assert!(bench_size(MAX_BENCH_MIB + 1, 1).is_err());
        assert!(bench_size(1, 0).unwrap_err().contains("--reps"));
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
