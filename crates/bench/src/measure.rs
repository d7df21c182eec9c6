//! One measurement: a checked first launch, then timed launches (or a timed CPU loop), and
//! the inputs on the host and on the device that it runs on.

use crate::report::{Row, WRONG};
use crate::{median, plan};
use chapter::timing::BenchRuns;
use gpu::{Kernel, KernelArgs};
use gpu_host::{Device, DeviceBuffer, GlobalSlice, LaunchConfig};
use std::time::{Duration, Instant};

/// How long a case may take and how many launches it makes at most: the options every
/// measurement reads.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Input size, launches at most (`warmup`, `reps`) and seed.
    pub runs: BenchRuns,
    /// Time to spend per case, about (at least one timed run each).
    pub budget: Duration,
}

/// What one measurement came to.
pub enum Measured {
    /// Right, with its median over `reps` runs; `note` says how when that differs.
    Ok {
        /// The median time.
        median: Duration,
        /// Timed runs behind it.
        reps: u32,
        /// How it was measured, when that differs from the rest.
        note: Option<String>,
    },
    /// A wrong result: the first wrong bin.
    Wrong(String),
    /// It failed to run: why.
    Failed(String),
}

impl Measured {
    /// `row` with this measurement: its time, or why it has none.
    pub fn into_row(self, row: Row) -> Row {
        match self {
            Measured::Ok { median, reps, note } => {
                let r = row.measured(median.as_secs_f64() * 1e3, reps);
                match note {
                    Some(n) => r.noted(n),
                    None => r,
                }
            }
            Measured::Wrong(why) => row.failed(format!("{WRONG}: {why}")),
            Measured::Failed(why) => row.failed(why),
        }
    }
}

/// The first difference between a result and the CPU's histogram, if any.
pub fn difference<T: PartialEq + std::fmt::Display + Copy>(
    expected: &[u32],
    got: &[T],
) -> Option<String>
where
    u64: From<T>,
{
    if got.len() < expected.len() {
        return Some(format!("{} bins, expected {}", got.len(), expected.len()));
    }
    let wrong = (0..expected.len()).filter(|&i| u64::from(got[i]) != expected[i] as u64);
    let wrong: Vec<usize> = wrong.collect();
    let first = *wrong.first()?;
    Some(format!(
        "{} of {} bins differ from the CPU's histogram (first: bin {first} expected {}, got {})",
        wrong.len(),
        expected.len(),
        expected[first],
        got[first]
    ))
}

/// The first line of an error, for a row's note.
pub fn first_line(e: &impl std::fmt::Display) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}

/// Measures one kernel: a checked first launch, then timed launches from a zeroed output,
/// the last of them checked too.
#[allow(clippy::too_many_arguments)]
pub fn measure_kernel<A: KernelArgs>(
    dev: &mut Device,
    k: &Kernel<A>,
    cfg: LaunchConfig,
    args: A,
    out: &DeviceBuffer<u32>,
    expected: &[u32],
    b: &Budget,
) -> Measured {
    let check = |got: &[u32]| difference(expected, got);
    measure_checked(dev, k, cfg, args, out, &check, b)
}

// ANCHOR: measure_checked
/// [`measure_kernel`] with any output type and check (`None`: right; else why
/// not).
pub fn measure_checked<A: KernelArgs, T: gpu_host::DeviceValue>(
    dev: &mut Device,
    k: &Kernel<A>,
    cfg: LaunchConfig,
    args: A,
    out: &DeviceBuffer<T>,
    check: &dyn Fn(&[T]) -> Option<String>,
    b: &Budget,
) -> Measured {
    let wall = Instant::now();
    let probe = match dev.launch(k, cfg, args) {
        Ok(r) => r.gpu_time.unwrap_or_else(|| wall.elapsed()),
        Err(e) => return Measured::Failed(format!("launch failed: {}", first_line(&e))),
    };
    match dev.download(out) {
        Ok(got) => {
            if let Some(d) = check(&got) {
                return Measured::Wrong(d);
            }
        }
        Err(e) => return Measured::Failed(format!("download failed: {}", first_line(&e))),
    }
    if probe >= b.budget {
        return Measured::Ok {
            median: probe,
            reps: 1,
            note: Some(format!(
                "one launch ({:.0} ms, longer than the {} ms budget)",
                probe.as_secs_f64() * 1e3,
                b.budget.as_millis()
            )),
        };
    }
    let (warmup, reps) = plan(probe, b.runs.warmup, b.runs.reps, b.budget);
    let times = match dev.time_launches_zeroed(k, cfg, args, out, warmup, reps) {
        Ok(t) => t,
        Err(e) => return Measured::Failed(format!("timed launches failed: {}", first_line(&e))),
    };
    match dev.download(out) {
        Ok(got) => {
            if let Some(d) = check(&got) {
                return Measured::Wrong(format!("in the timed launches: {d}"));
            }
        }
        Err(e) => return Measured::Failed(format!("download failed: {}", first_line(&e))),
    }
    Measured::Ok {
        median: median(&times),
        reps,
        note: None,
    }
}
// ANCHOR_END: measure_checked

/// An input on the device.
pub enum Uploaded {
    /// Bytes.
    U8(DeviceBuffer<u8>),
    /// `u32` values.
    U32(DeviceBuffer<u32>),
}

impl Uploaded {
    /// The input's bytes, as the read kernel reads them.
    pub fn bytes(&self) -> GlobalSlice<u8> {
        match self {
            Uploaded::U8(d) => d.slice(),
            Uploaded::U32(d) => d.slice().cast::<u8>(),
        }
    }
}

impl Uploaded {
    /// Uploads `data` to `dev`.
    pub fn of(dev: &mut Device, data: &HostData) -> Result<Uploaded, gpu_host::LaunchError> {
        match data {
            HostData::U8(d) => dev.upload(d).map(Uploaded::U8),
            HostData::U32(d) => dev.upload(d).map(Uploaded::U32),
        }
    }

    /// Frees it on `dev` (best effort).
    pub fn free(self, dev: &mut Device) {
        match self {
            Uploaded::U8(d) => drop(dev.free(d)),
            Uploaded::U32(d) => drop(dev.free(d)),
        }
    }
}

/// An input on the host.
pub enum HostData {
    /// Bytes.
    U8(Vec<u8>),
    /// `u32` values.
    U32(Vec<u32>),
}

impl HostData {
    /// The input's size in bytes.
    pub fn len_bytes(&self) -> u64 {
        match self {
            HostData::U8(d) => d.len() as u64,
            HostData::U32(d) => 4 * d.len() as u64,
        }
    }

    /// The little-endian bytes, as the device and the external programs see them.
    pub fn bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match self {
            HostData::U8(d) => std::borrow::Cow::Borrowed(d),
            #[cfg(target_endian = "little")]
            HostData::U32(d) => {
                // SAFETY: `u32` has no padding and any byte is a valid `u8`; on a
                // little-endian host its bytes in memory are the little-endian encoding.
                std::borrow::Cow::Borrowed(unsafe {
                    std::slice::from_raw_parts(d.as_ptr() as *const u8, 4 * d.len())
                })
            }
            #[cfg(not(target_endian = "little"))]
            HostData::U32(d) => {
                std::borrow::Cow::Owned(d.iter().flat_map(|v| v.to_le_bytes()).collect())
            }
        }
    }

    /// The XOR of the `u32` words of every whole 16-byte vector: what the read kernel's
    /// threads, XORed together, must give.
    pub fn vector_xor(&self) -> u32 {
        match self {
            HostData::U8(d) => d
                .chunks_exact(16)
                .flat_map(|v| v.chunks_exact(4))
                .fold(0, |x, w| x ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]])),
            HostData::U32(d) => d.chunks_exact(4).flatten().fold(0, |x, &w| x ^ w),
        }
    }
}

/// The first bin of a weighted histogram off the exact sums by more than `1e-6` of the
/// bin's weight (at least `1e-3`), if any.
pub fn weighted_difference(expected: &[f64], got: &[f32]) -> Option<String> {
    if got.len() < expected.len() {
        return Some(format!("{} bins, expected {}", got.len(), expected.len()));
    }
    let off = |i: usize| (got[i] as f64 - expected[i]).abs() > (expected[i].abs() * 1e-6).max(1e-3);
    let wrong: Vec<usize> = (0..expected.len()).filter(|&i| off(i)).collect();
    let first = *wrong.first()?;
    Some(format!(
        "{} of {} bins differ from the CPU's sums (first: bin {first} expected {}, got {})",
        wrong.len(),
        expected.len(),
        expected[first],
        got[first]
    ))
}

/// The fewest runs a CPU row's median is taken of.
pub const CPU_MIN_RUNS: u32 = 3;

/// Times a CPU histogram: [`measure_cpu_checked`] against the CPU's own histogram.
pub fn measure_cpu(f: &dyn Fn() -> Vec<u32>, expected: &[u32], b: &Budget) -> Measured {
    measure_cpu_checked(f, &|got: &Vec<u32>| difference(expected, got), b)
}

/// Times a CPU loop: one run checked by `check` (`None`: right; else why not), then as
/// many more as fit in the budget and at least [`CPU_MIN_RUNS`], the median of them all.
/// A core of the shared host machine ran the same loop at speeds a third apart from one
/// run to the next: one run is not a measurement.
pub fn measure_cpu_checked<T>(
    f: &dyn Fn() -> T,
    check: &dyn Fn(&T) -> Option<String>,
    b: &Budget,
) -> Measured {
    let t = Instant::now();
    let got = f();
    let first = t.elapsed();
    if let Some(d) = check(&got) {
        return Measured::Wrong(d);
    }
    let (_, planned) = plan(first, 0, b.runs.reps, b.budget.saturating_sub(first));
    let more = planned.max(CPU_MIN_RUNS - 1);
    let mut times: Vec<Duration> = (0..more)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect();
    times.push(first);
    Measured::Ok {
        median: median(&times),
        reps: times.len() as u32,
        note: None,
    }
}
