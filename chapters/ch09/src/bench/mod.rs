//! `cargo run -p ch09 --release --features cuda -- bench`: every step of the chapter on a
//! real GPU, against the hardware's limit and against what a user would use instead.
//!
//! A benchmark, not a test: it reports, and judges only correctness. What one run does:
//!
//! 1. **Inputs** ([`data`]): by default 1 GiB of bytes (256 bins) and 1 GiB of `u32`
//!    values (256 Mi values, 4096 bins), each as uniform, one-value, 90 %-one-value and
//!    real text.
//! 2. **The limit, measured in the same run**: [`read_bandwidth`](solutions::bench::read_bandwidth()),
//!    a read-only kernel with 16-byte loads (best of 1, 2 and 4 waves of resident
//!    blocks), and a device-to-device copy (`cuMemcpyDtoDAsync`, read + write bytes).
//!    The larger of the two GB/s is the "read bandwidth" every row's `pct_read_bw` is a
//!    percentage of: a histogram reads its input once and writes next to nothing, so it
//!    can at best run at the speed of reading.
//! 3. **The chapter's kernels** (the reference solutions): the GPU kernels of 9.3 to 9.9
//!    on bytes, 9.14's two `u32` kernels on values, launched as the progression launches
//!    them (`cargo run -p ch09`: 256-thread blocks, grids from the device).
//! 4. **The alternatives**: `cub::DeviceHistogram::HistogramEven` and `torch.bincount`
//!    ([`external`]), when `nvcc` (or `--cub`) and PyTorch are there; and the CPU of the
//!    same machine ([`cpu`]): the naive loop, four interleaved tables, the tuned single-core code, and it on all cores.
//!
//! **Timing.** A GPU kernel is first launched once (which also checks it and sizes the
//! rest); then up to `--warmup` untimed and up to `--reps` timed launches, each timed
//! alone by two CUDA events around it; the histogram is zeroed before every launch by a
//! `cuMemsetD8Async` *outside* those events (not timed). When one launch is slow (global
//! atomics on one-value input take about a second per GiB), fewer launches are made so
//! that a case takes about `--budget-ms` (at least one timed launch; `reps` in the
//! results says how many). The row's time is the median. CPU loops are timed with the
//! host's clock the same way; CUB and PyTorch time themselves with events.
//!
//! **Correctness.** Every result is compared with the CPU histogram (the first and the
//! last launch of every kernel, every CUB and PyTorch result, every CPU loop); a wrong
//! one is reported and gets no time. The read kernel's XOR of what it read is checked,
//! and the copy's destination.
//!
//! **Output.** A table on stdout, `bench.csv` and `bench.json` in `--out` (one row per
//! implementation, input and element type: impl, step, input, dtype, bins, bytes,
//! median_ms, gbps, pct_read_bw, correct, reps, note), the JSON with a header: GPU,
//! driver, CUDA version, SMs, date (UTC), host CPU, git commit, options, and the course's
//! speed targets (issue 4) with what this run reached ([`report::TARGETS`]). Progress
//! goes to stderr.

pub mod cpu;
pub mod data;
pub mod external;
pub mod report;
pub mod sizes;

use crate::device;
use crate::kernels::{ByteKernel, ByteKernelWith, Kernels, REFERENCE, U32Kernel};
use crate::launch::{Shape, coarsened, device_grid, one_per_thread};
use course::KernelSource;
use data::Input;
use gpu::{Kernel, KernelArgs};
use gpu_host::{Device, DeviceBuffer, GlobalSlice, LaunchConfig, LaunchError};
use report::{Header, Report, Row, SKIPPED, WRONG};
use solutions::ch09::{FastestPolicy, fastest_grid, fastest_shared_bytes};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Bins of the byte histograms: one per byte value.
pub const U8_BINS: u32 = 256;
/// Bins of the `u32` histograms: 16 KiB of shared counters per block.
pub const U32_BINS: u32 = 4096;
/// Threads per block of every step but 9.9 (which has its own policy): the progression's
/// default.
pub const BLOCK: u32 = 256;
/// Elements per thread the grid-stride grids are sized for: the progression's default.
pub const COARSEN: u32 = 8;

/// The element type of an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// Bytes, 256 bins.
    U8,
    /// `u32` values, 4096 bins.
    U32,
}

impl Dtype {
    /// Both, in the order the bench runs them.
    pub const ALL: [Dtype; 2] = [Dtype::U8, Dtype::U32];

    /// `u8` or `u32`, as in the results and on the command lines of CUB and PyTorch.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::U8 => "u8",
            Dtype::U32 => "u32",
        }
    }

    /// The bins of this type's histograms.
    pub fn bins(self) -> u32 {
        match self {
            Dtype::U8 => U8_BINS,
            Dtype::U32 => U32_BINS,
        }
    }
}

/// Where an external implementation comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tool {
    /// Found or built by the bench (CUB: compiled with `nvcc` from PATH; PyTorch: the
    /// embedded script run with `python3`); skipped with a note when impossible.
    Auto,
    /// This program (CUB) or script (PyTorch).
    Path(PathBuf),
    /// Not run.
    Off,
}

/// What to measure and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes of every input (`--size-mib`, default 1 GiB).
    pub size_bytes: u64,
    /// Untimed launches before the timed ones, at most.
    pub warmup: u32,
    /// Timed launches, at most.
    pub reps: u32,
    /// Time to spend per case, about (at least one timed run each).
    pub budget: Duration,
    /// Seed of the random inputs.
    pub seed: u64,
    /// The element types to run.
    pub dtypes: Vec<Dtype>,
    /// The inputs to run.
    pub inputs: Vec<Input>,
    /// Only these GPU steps (`9.3` …); all when empty.
    pub steps: Vec<String>,
    /// The variant sweep (`--variants`): instead of the steps, 9.9's `histo_fastest` and
    /// its experimental variants ([`variant_steps`]), on the inputs of [`Self::dtypes`]
    /// that are bytes only.
    pub variants: bool,
    /// The extension sweep (`--extensions`): instead of the steps, 9.15's `histo_cas` on
    /// the byte inputs of [`Self::inputs`] (their first [`CAS_MAX_BYTES`],
    /// [`extension_steps`]), 9.11's RGB, 9.12's weighted and 9.13's joint histograms on
    /// the uniform bytes, then 9.16's strategy sweep on uniform `u32` values
    /// ([`STRATEGY_BINS`], [`strategy_steps`]).
    pub extensions: bool,
    /// The CPU baselines.
    pub cpu: bool,
    /// Threads of the multi-threaded CPU baseline.
    pub cpu_threads: usize,
    /// CUB.
    pub cub: Tool,
    /// PyTorch.
    pub torch: Tool,
    /// The Python interpreter for PyTorch.
    pub python: String,
    /// The text input's bytes and where they came from.
    pub text: (Vec<u8>, String),
    /// Where `bench.csv`, `bench.json` and a compiled CUB go.
    pub out_dir: PathBuf,
    /// Where the input files for CUB and PyTorch are written (default: `/dev/shm` when
    /// it has room, else the system's temporary directory).
    pub tmp_dir: Option<PathBuf>,
    /// The command line, for the header.
    pub command: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            size_bytes: 1 << 30,
            warmup: 3,
            reps: 20,
            budget: Duration::from_millis(2000),
            seed: 9,
            dtypes: Dtype::ALL.to_vec(),
            inputs: Input::ALL.to_vec(),
            steps: Vec::new(),
            variants: false,
            extensions: false,
            cpu: true,
            cpu_threads: cpu::cores(),
            cub: Tool::Auto,
            torch: Tool::Auto,
            python: "python3".into(),
            text: default_text(),
            out_dir: PathBuf::from("ch09-bench"),
            tmp_dir: None,
            command: String::new(),
        }
    }
}

/// The default text input: the book's chapters (`book/src/**/*.md` of the workspace this
/// crate was built in, in path order, concatenated) when they are there, else the
/// chapter's paragraph of English ([`crate::inputs::TEXT`]). Returns the bytes and a
/// description for the header.
pub fn default_text() -> (Vec<u8>, String) {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/src");
    let mut files = Vec::new();
    collect_markdown(&book, &mut files);
    files.sort();
    let mut text = Vec::new();
    for f in &files {
        if let Ok(mut bytes) = std::fs::read(f) {
            text.append(&mut bytes);
            text.push(b'\n');
        }
    }
    if text.is_empty() {
        (
            crate::inputs::TEXT.as_bytes().to_vec(),
            "the chapter's English paragraph (ch09::inputs::TEXT)".into(),
        )
    } else {
        (text, format!("book/src/**/*.md ({} files)", files.len()))
    }
}

fn collect_markdown(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_markdown(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// Opens GPU 0 with the reference PTX and runs the bench on it. Without a CUDA device
/// (or without the `cuda` feature) this is the host runtime's one clear `no CUDA device`
/// error, before any input is generated.
pub fn run(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Report, LaunchError> {
    let mut dev = device::open_gpu(&[KernelSource::Reference])?;
    Ok(run_on(&mut dev, opts, progress))
}

/// [`run`] at each of `sizes` (bytes) on GPU 0, one after another ([`sizes::sweep`]).
pub fn run_sizes(
    opts: &Options,
    sizes: &[u64],
    progress: &mut dyn FnMut(&str),
) -> Result<sizes::SizeSweep, LaunchError> {
    let mut dev = device::open_gpu(&[KernelSource::Reference])?;
    Ok(sizes::sweep(&mut dev, opts, sizes, progress))
}

/// One GPU kernel of the progression, as the bench launches it.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// The exercise it belongs to, `9.9`.
    pub step: &'static str,
    /// The kernel's name.
    pub kernel: &'static str,
    /// The kernel and its arguments' shape.
    pub launch: StepKernel,
    /// `<<<grid, block, shared>>>`.
    pub shape: Shape,
    /// Counters the kernel's output holds (9.4 has a copy per block); the first
    /// [`Dtype::bins`] are the histogram.
    pub out_len: u32,
}

/// A step's kernel, by the shape of its arguments.
#[derive(Clone, Copy, Debug)]
pub enum StepKernel {
    /// `(data: u8, histo)`.
    Bytes(ByteKernel),
    /// `(data: u8, histo, arg)`.
    BytesWith(ByteKernelWith, u32),
    /// `(data: u32, histo)`.
    Values(U32Kernel),
}

/// The byte steps (9.3 to 9.9) on `n` bytes, launched as `cargo run -p ch09` launches them
/// with its defaults (256-thread blocks, grids for 8 elements per thread or from the
/// device, 9.9 by its own policy).
pub fn byte_steps(k: &Kernels, dev: &mut Device, n: usize) -> Vec<Step> {
    let bins = U8_BINS;
    let fastest = wave(
        dev,
        &k.histo_fastest,
        n,
        FastestPolicy::BLOCK_THREADS,
        fastest_shared_bytes(bins),
    );
    let props = dev.props();
    let grid = device_grid(props, n, BLOCK, COARSEN);
    let resident = Shape::new(grid, BLOCK);
    let per_thread = Shape::new(one_per_thread(n, BLOCK), BLOCK);
    let coarse = Shape::new(coarsened(n, BLOCK, COARSEN), BLOCK).with_bins(bins);
    let step = |step, kernel, launch, shape, out_len| Step {
        step,
        kernel,
        launch,
        shape,
        out_len,
    };
    vec![
        step(
            "9.3",
            "histo_atomic",
            StepKernel::Bytes(k.histo_atomic),
            resident,
            bins,
        ),
        step(
            "9.4",
            "histo_private_global",
            StepKernel::BytesWith(k.histo_private_global, bins),
            resident,
            grid * bins,
        ),
        step(
            "9.5",
            "histo_private_shared",
            StepKernel::Bytes(k.histo_private_shared),
            per_thread,
            bins,
        ),
        step(
            "9.5",
            "histo_private_dynamic",
            StepKernel::Bytes(k.histo_private_dynamic),
            per_thread.with_bins(bins),
            bins,
        ),
        step(
            "9.6",
            "histo_coarse_contiguous",
            StepKernel::BytesWith(k.histo_coarse_contiguous, COARSEN),
            coarse,
            bins,
        ),
        step(
            "9.6",
            "histo_coarse_interleaved",
            StepKernel::Bytes(k.histo_coarse_interleaved),
            coarse,
            bins,
        ),
        step(
            "9.7",
            "histo_aggregate",
            StepKernel::Bytes(k.histo_aggregate),
            resident.with_bins(bins),
            bins,
        ),
        step(
            "9.8",
            "histo_warp_aggregate",
            StepKernel::Bytes(k.histo_warp_aggregate),
            resident.with_bins(bins),
            bins,
        ),
        step(
            "9.9",
            "histo_fastest",
            StepKernel::Bytes(k.histo_fastest),
            fastest,
            bins,
        ),
    ]
}

/// [`launch::one_wave`] for `kernel` on `n` bytes; if the device cannot answer the
/// occupancy query, a grid from its thread and shared-memory limits.
fn wave(dev: &mut Device, kernel: &ByteKernel, n: usize, block: u32, shared_bytes: u32) -> Shape {
    crate::launch::one_wave(dev, kernel, n, block, shared_bytes).unwrap_or_else(|_| {
        let props = dev.props();
        let per_sm = props.blocks_per_sm_with_shared(block, shared_bytes);
        Shape {
            grid: fastest_grid(props.sm_count, per_sm, block, n),
            block,
            shared_bytes,
        }
    })
}

/// The variant sweep on `n` bytes: 9.9's `histo_fastest` (step `9.9`) at its policy's
/// block and at 256 and 1024 threads, and the designs it was chosen from
/// (`solutions::bench`, step `var`): [`fast_run_length`](solutions::bench::fast_run_length())
/// (the first 9.9), [`fast_popc`](solutions::bench::fast_popc()),
/// [`fast_warp_bins`](solutions::bench::fast_warp_bins()) and
/// [`fast_lane_bins`](solutions::bench::fast_lane_bins()). Every grid is one wave, sized
/// from the device's occupancy for that kernel, block and shared memory ([`wave`]).
pub fn variant_steps(dev: &mut Device, n: usize) -> Vec<Step> {
    use solutions::bench as b;
    let bins = U8_BINS;
    let fastest = solutions::ch09::histo_fastest::KERNEL;
    let columns = fastest_shared_bytes(bins) / 4;
    let policy = FastestPolicy::BLOCK_THREADS;
    let warps = policy.div_ceil(32);
    let steps = [
        ("9.9", "histo_fastest", fastest, policy, columns),
        ("9.9", "histo_fastest/b256", fastest, 256, columns),
        ("9.9", "histo_fastest/b1024", fastest, 1024, columns),
        (
            "var",
            "fast_run_length",
            b::fast_run_length::KERNEL,
            policy,
            bins,
        ),
        ("var", "fast_popc", b::fast_popc::KERNEL, policy, bins),
        (
            "var",
            "fast_warp_bins",
            b::fast_warp_bins::KERNEL,
            policy,
            warps * bins,
        ),
        (
            "var",
            "fast_lane_bins",
            b::fast_lane_bins::KERNEL,
            policy,
            columns,
        ),
    ];
    steps
        .into_iter()
        .map(|(step, name, kernel, block, shared_bins)| Step {
            step,
            kernel: name,
            launch: StepKernel::Bytes(kernel),
            shape: wave(dev, &kernel, n, block, shared_bins * 4),
            out_len: bins,
        })
        .collect()
}

/// Bytes 9.15's `histo_cas` counts at most in the extension sweep (a prefix of the input):
/// a compare-and-swap loop on one contended counter retires about one update per round
/// trip, so even 16 MiB of uniform bytes took 1.6 s per launch on an H100 (2026-11-22).
pub const CAS_MAX_BYTES: usize = 1 << 20;

/// The byte steps of the extension sweep on `n` bytes: 9.15's `histo_cas` (256 bins) on
/// the progression's grid-stride grid.
pub fn extension_steps(props: &gpu_host::DeviceProps, n: usize) -> Vec<Step> {
    vec![Step {
        step: "9.15",
        kernel: "histo_cas",
        launch: StepKernel::Bytes(solutions::ch09::histo_cas::KERNEL),
        shape: Shape::new(device_grid(props, n, BLOCK, COARSEN), BLOCK),
        out_len: U8_BINS,
    }]
}

/// The bin counts of 9.16's strategy sweep.
pub const STRATEGY_BINS: [u32; 6] = [8, 16, 64, 256, 1024, 4096];

/// The strategies of 9.16 on `n` values into `bins` bins: 9.10's `histo_registers` where
/// it applies (`bins <= REGISTER_BINS`), 9.14's `histo_u32_shared` (`bins <=
/// MAX_U32_BINS`) and `histo_u32_global`, all on the progression's grid-stride grid.
pub fn strategy_steps(props: &gpu_host::DeviceProps, n: usize, bins: u32) -> Vec<Step> {
    use solutions::ch09 as s;
    let resident = Shape::new(device_grid(props, n, BLOCK, COARSEN), BLOCK);
    let step = |step, kernel, k, shape| Step {
        step,
        kernel,
        launch: StepKernel::Values(k),
        shape,
        out_len: bins,
    };
    let mut steps = Vec::new();
    if bins <= s::REGISTER_BINS {
        steps.push(step(
            "9.10",
            "histo_registers",
            s::histo_registers::KERNEL,
            resident,
        ));
    }
    if bins <= s::MAX_U32_BINS {
        steps.push(step(
            "9.14",
            "histo_u32_shared",
            s::histo_u32_shared::KERNEL,
            resident.with_bins(bins),
        ));
    }
    steps.push(step(
        "9.14",
        "histo_u32_global",
        s::histo_u32_global::KERNEL,
        resident,
    ));
    steps
}

/// Threads per block of [`solutions::bench::u32_vectors`], launched one block per SM:
/// every block zeroes and commits all 4096 bins, so the fewest blocks that fill the SMs
/// commit least; 1024 threads with four 16-byte loads each keep enough bytes in flight.
/// Measured on an H100 against 132x512, 264x512, 264x1024, 528x512 and 1056x256: the
/// best or within 3 % of it from 16 MiB to 1 GiB (notes/limits-h100-2026-11-24.md).
pub const U32_VECTORS_BLOCK: u32 = 1024;

/// The `u32` steps on `n` values: 9.14's two kernels on the progression's resident grid,
/// and [`solutions::bench::u32_vectors`] (9.14 with 9.9's loads), one block per SM.
pub fn value_steps(k: &Kernels, props: &gpu_host::DeviceProps, n: usize) -> Vec<Step> {
    let bins = U32_BINS;
    let resident = Shape::new(device_grid(props, n, BLOCK, COARSEN), BLOCK);
    vec![
        Step {
            step: "9.14",
            kernel: "histo_u32_global",
            launch: StepKernel::Values(k.histo_u32_global),
            shape: resident,
            out_len: bins,
        },
        Step {
            step: "9.14",
            kernel: "histo_u32_shared",
            launch: StepKernel::Values(k.histo_u32_shared),
            shape: resident.with_bins(bins),
            out_len: bins,
        },
        Step {
            step: "9.14",
            kernel: "u32_vectors",
            launch: StepKernel::Values(solutions::bench::u32_vectors::KERNEL),
            shape: Shape::new(props.sm_count, U32_VECTORS_BLOCK).with_bins(bins),
            out_len: bins,
        },
    ]
}

/// What one measurement came to.
enum Measured {
    /// Right, with its median over `reps` runs; `note` says how when that differs.
    Ok {
        median: Duration,
        reps: u32,
        note: Option<String>,
    },
    /// A wrong result: the first wrong bin.
    Wrong(String),
    /// It failed to run: why.
    Failed(String),
}

impl Measured {
    fn into_row(self, row: Row) -> Row {
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

/// The median of `times` and how many runs fit a budget ([`chapter::timing`]).
pub use chapter::timing::{median, plan};

/// The first difference between a result and the CPU's histogram, if any.
fn difference<T: PartialEq + std::fmt::Display + Copy>(
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
fn first_line(e: &impl std::fmt::Display) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}

/// Measures one kernel: a checked first launch, then timed launches from a zeroed output,
/// the last of them checked too.
#[allow(clippy::too_many_arguments)]
fn measure_kernel<A: KernelArgs>(
    dev: &mut Device,
    k: &Kernel<A>,
    cfg: LaunchConfig,
    args: A,
    out: &DeviceBuffer<u32>,
    expected: &[u32],
    opts: &Options,
) -> Measured {
    let check = |got: &[u32]| difference(expected, got);
    measure_checked(dev, k, cfg, args, out, &check, opts)
}

// ANCHOR: measure_checked
/// [`measure_kernel`] with any output type and check (`None`: right; else why not).
fn measure_checked<A: KernelArgs, T: gpu_host::DeviceValue>(
    dev: &mut Device,
    k: &Kernel<A>,
    cfg: LaunchConfig,
    args: A,
    out: &DeviceBuffer<T>,
    check: &dyn Fn(&[T]) -> Option<String>,
    opts: &Options,
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
    if probe >= opts.budget {
        return Measured::Ok {
            median: probe,
            reps: 1,
            note: Some(format!(
                "one launch ({:.0} ms, longer than the {} ms budget)",
                probe.as_secs_f64() * 1e3,
                opts.budget.as_millis()
            )),
        };
    }
    let (warmup, reps) = plan(probe, opts.warmup, opts.reps, opts.budget);
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

/// Runs `step` on the uploaded input `data` (bytes or values, as the step takes).
fn measure_step(
    dev: &mut Device,
    step: &Step,
    data: &Uploaded,
    expected: &[u32],
    opts: &Options,
) -> Measured {
    let out = match dev.alloc::<u32>(step.out_len as usize) {
        Ok(o) => o,
        Err(e) => return Measured::Failed(format!("alloc failed: {}", first_line(&e))),
    };
    let cfg = step.shape.config();
    let h = out.slice();
    let m = match (step.launch, data) {
        (StepKernel::Bytes(k), Uploaded::U8(d)) => {
            measure_kernel(dev, &k, cfg, (d.slice(), h), &out, expected, opts)
        }
        (StepKernel::BytesWith(k, arg), Uploaded::U8(d)) => {
            measure_kernel(dev, &k, cfg, (d.slice(), h, arg), &out, expected, opts)
        }
        (StepKernel::Values(k), Uploaded::U32(d)) => {
            measure_kernel(dev, &k, cfg, (d.slice(), h), &out, expected, opts)
        }
        _ => Measured::Failed("invariant: a step got the other element type".into()),
    };
    let _ = dev.free(out);
    m
}

/// An input on the device.
enum Uploaded {
    U8(DeviceBuffer<u8>),
    U32(DeviceBuffer<u32>),
}

impl Uploaded {
    /// The input's bytes, as the read kernel reads them.
    fn bytes(&self) -> GlobalSlice<u8> {
        match self {
            Uploaded::U8(d) => d.slice(),
            Uploaded::U32(d) => d.slice().cast::<u8>(),
        }
    }
}

/// An input on the host.
enum HostData {
    U8(Vec<u8>),
    U32(Vec<u32>),
}

impl HostData {
    fn len_bytes(&self) -> u64 {
        match self {
            HostData::U8(d) => d.len() as u64,
            HostData::U32(d) => 4 * d.len() as u64,
        }
    }

    /// The little-endian bytes, as the device and the external programs see them.
    fn bytes(&self) -> std::borrow::Cow<'_, [u8]> {
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
    fn vector_xor(&self) -> u32 {
        match self {
            HostData::U8(d) => d
                .chunks_exact(16)
                .flat_map(|v| v.chunks_exact(4))
                .fold(0, |x, w| x ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]])),
            HostData::U32(d) => d.chunks_exact(4).flatten().fold(0, |x, &w| x ^ w),
        }
    }
}

/// Runs the whole bench on `dev` (a GPU; the emulator works too, slowly, for tests):
/// references, kernels, alternatives. Never fails as a whole: every failure is a row's or
/// the header's note.
pub fn run_on(dev: &mut Device, opts: &Options, progress: &mut dyn FnMut(&str)) -> Report {
    let mut report = Report {
        header: header(dev, opts),
        rows: Vec::new(),
    };
    let mut anchors_done = false;
    let work_dir = opts.out_dir.join("tools");
    let cub = match &opts.cub {
        Tool::Off => None,
        Tool::Path(p) => Some(external::cub_binary(Some(p), &work_dir, (0, 0))),
        Tool::Auto => Some(external::cub_binary(
            None,
            &work_dir,
            dev.props().compute_capability,
        )),
    };
    if let Some(Err(why)) = &cub {
        report.header.notes.push(format!("CUB not run: {why}"));
    }
    let torch = match &opts.torch {
        Tool::Off => None,
        _ if !external::on_path(&opts.python) => {
            report.header.notes.push(format!(
                "torch.bincount not run: {} is not on PATH",
                opts.python
            ));
            None
        }
        Tool::Path(p) => Some(external::torch_script(Some(p), &work_dir)),
        Tool::Auto => Some(external::torch_script(None, &work_dir)),
    };
    if let Some(Err(why)) = &torch {
        report
            .header
            .notes
            .push(format!("torch.bincount not run: {why}"));
    }
    for &dtype in &opts.dtypes {
        if (opts.variants || opts.extensions) && dtype != Dtype::U8 {
            continue;
        }
        for &input in &opts.inputs {
            let tag = format!("[{} {}]", dtype.name(), input.name());
            progress(&format!("{tag} generating {} MiB", opts.size_bytes >> 20));
            let data = match dtype {
                Dtype::U8 => HostData::U8(data::bytes(
                    input,
                    opts.size_bytes as usize,
                    opts.seed,
                    &opts.text.0,
                )),
                Dtype::U32 => HostData::U32(data::values(
                    input,
                    (opts.size_bytes / 4) as usize,
                    U32_BINS,
                    opts.seed,
                    &opts.text.0,
                )),
            };
            let bins = dtype.bins();
            let expected = match &data {
                HostData::U8(d) => cpu::threaded(d, bins, opts.cpu_threads),
                HostData::U32(d) => cpu::threaded(d, bins, opts.cpu_threads),
            };
            let row = |implementation: &str, step: &str| {
                Row::new(
                    implementation,
                    step,
                    input.name(),
                    dtype.name(),
                    bins,
                    data.len_bytes(),
                )
            };

            // The GPU: upload, the references once, then the steps.
            let uploaded = match &data {
                HostData::U8(d) => dev.upload(d).map(Uploaded::U8),
                HostData::U32(d) => dev.upload(d).map(Uploaded::U32),
            };
            match uploaded {
                Err(e) => {
                    report.header.notes.push(format!(
                        "{tag}: upload failed, GPU kernels not run: {}",
                        first_line(&e)
                    ));
                }
                Ok(up) => {
                    if !anchors_done {
                        anchors_done = true;
                        progress(&format!("{tag} read bandwidth and device copy"));
                        anchors(dev, &up, &data, input, opts, &mut report);
                    }
                    let steps = match dtype {
                        // The extension sweep's byte kernels run below, on their own sizes.
                        Dtype::U8 if opts.extensions => Vec::new(),
                        Dtype::U8 if opts.variants => variant_steps(dev, data.len_bytes() as usize),
                        Dtype::U8 => byte_steps(&REFERENCE, dev, data.len_bytes() as usize),
                        Dtype::U32 => {
                            value_steps(&REFERENCE, dev.props(), data.len_bytes() as usize / 4)
                        }
                    };
                    for s in steps {
                        if !opts.variants
                            && !opts.extensions
                            && !opts.steps.is_empty()
                            && !opts.steps.iter().any(|x| x == s.step)
                        {
                            continue;
                        }
                        let m = measure_step(dev, &s, &up, &expected, opts);
                        let r = m.into_row(row(s.kernel, s.step));
                        progress(&format!("{tag} {} {}: {}", s.step, s.kernel, summary(&r)));
                        report.rows.push(r);
                    }
                    if let (true, Uploaded::U8(up), HostData::U8(d)) = (opts.extensions, &up, &data)
                    {
                        cas_sweep(dev, d, input, opts, &tag, progress, &mut report);
                        if input == Input::Uniform {
                            rgb_and_joint(dev, up, d, opts, &tag, progress, &mut report);
                        }
                    }
                    match up {
                        Uploaded::U8(d) => drop(dev.free(d)),
                        Uploaded::U32(d) => drop(dev.free(d)),
                    }
                }
            }

            // The CPU of this machine.
            if opts.cpu {
                let threads = opts.cpu_threads;
                let impls: [(String, &dyn Fn() -> Vec<u32>); 4] = match &data {
                    HostData::U8(d) => [
                        ("cpu naive loop".into(), &|| cpu::naive(d, bins)),
                        ("cpu 4 interleaved tables".into(), &|| {
                            cpu::interleaved(d, bins)
                        }),
                        ("cpu 8 tables, 64-bit loads".into(), &|| cpu::tuned(d, bins)),
                        (format!("cpu {threads} threads x 8 tables"), &|| {
                            cpu::threaded(d, bins, threads)
                        }),
                    ],
                    HostData::U32(d) => [
                        ("cpu naive loop".into(), &|| cpu::naive(d, bins)),
                        ("cpu 4 interleaved tables".into(), &|| {
                            cpu::interleaved(d, bins)
                        }),
                        ("cpu 1 table, branchless".into(), &|| cpu::tuned(d, bins)),
                        (format!("cpu {threads} threads x 1 table"), &|| {
                            cpu::threaded(d, bins, threads)
                        }),
                    ],
                };
                for (name, f) in impls {
                    let r = measure_cpu(f, &expected, opts).into_row(row(&name, "cpu"));
                    progress(&format!("{tag} {name}: {}", summary(&r)));
                    report.rows.push(r);
                }
            }

            // CUB and PyTorch, on the same input written to a file.
            let tools: Vec<(&str, &str, &Result<PathBuf, String>)> = [
                ("cub::DeviceHistogram::HistogramEven", "cub", cub.as_ref()),
                ("torch.bincount", "torch", torch.as_ref()),
            ]
            .into_iter()
            .filter_map(|(n, s, t)| t.map(|t| (n, s, t)))
            .collect();
            if tools.iter().any(|(_, _, t)| t.is_ok()) {
                match write_input(&data, opts, &tag) {
                    Err(why) => report
                        .header
                        .notes
                        .push(format!("{tag}: {why}; CUB and PyTorch not run")),
                    Ok(file) => {
                        for (name, step, tool) in &tools {
                            let Ok(path) = tool else { continue };
                            progress(&format!("{tag} {name}"));
                            let mut cmd = if *step == "torch" {
                                let mut c = std::process::Command::new(&opts.python);
                                c.arg(path);
                                c
                            } else {
                                std::process::Command::new(path)
                            };
                            cmd.args(external::args(
                                &file,
                                dtype.name(),
                                bins,
                                opts.warmup,
                                opts.reps,
                            ));
                            let r = match external::run(cmd) {
                                external::Outcome::Ran {
                                    median_ms,
                                    reps,
                                    bins,
                                } => match difference(&expected, &bins) {
                                    Some(d) => row(name, step).failed(format!("{WRONG}: {d}")),
                                    None => row(name, step).measured(median_ms, reps),
                                },
                                external::Outcome::Skipped(why) => {
                                    row(name, step).failed(format!("{SKIPPED}: {why}"))
                                }
                                external::Outcome::Failed(why) => row(name, step).failed(why),
                            };
                            progress(&format!("{tag} {name}: {}", summary(&r)));
                            report.rows.push(r);
                        }
                        let _ = std::fs::remove_file(&file);
                    }
                }
            }
        }
    }
    if opts.extensions {
        strategy_sweep(dev, opts, progress, &mut report);
    }
    report.set_percentages();
    report.set_targets();
    report
}

/// 9.15 of the extension sweep ([`extension_steps`]) on the first [`CAS_MAX_BYTES`] of
/// the bytes `d`, checked against the CPU's histogram of that prefix.
fn cas_sweep(
    dev: &mut Device,
    d: &[u8],
    input: Input,
    opts: &Options,
    tag: &str,
    progress: &mut dyn FnMut(&str),
    report: &mut Report,
) {
    let d = &d[..d.len().min(CAS_MAX_BYTES)];
    let expected = cpu::threaded(d, U8_BINS, opts.cpu_threads);
    let up = match dev.upload(d) {
        Ok(up) => Uploaded::U8(up),
        Err(e) => {
            report.header.notes.push(format!(
                "{tag}: upload failed, histo_cas not run: {}",
                first_line(&e)
            ));
            return;
        }
    };
    for s in extension_steps(dev.props(), d.len()) {
        let row = Row::new(
            s.kernel,
            s.step,
            input.name(),
            "u8",
            U8_BINS,
            d.len() as u64,
        );
        let r = measure_step(dev, &s, &up, &expected, opts).into_row(row);
        progress(&format!("{tag} {} {}: {}", s.step, s.kernel, summary(&r)));
        report.rows.push(r);
    }
    if let Uploaded::U8(b) = up {
        drop(dev.free(b));
    }
}

/// 9.11 to 9.13 of the extension sweep on the bytes `d` (uploaded as `up`): `histo_rgb`
/// on `d` as pixels (3 bytes each, 3 x 256 bins), `histo_weighted` on `d` with `f32`
/// weights (256 bins), then `histo_joint` on the pairs
/// `(d[i], d[n/2 + i])` (16 x 16 bins); each checked against [`crate::reference`].
fn rgb_and_joint(
    dev: &mut Device,
    up: &DeviceBuffer<u8>,
    d: &[u8],
    opts: &Options,
    tag: &str,
    progress: &mut dyn FnMut(&str),
    report: &mut Report,
) {
    use crate::reference;
    let n = d.len();
    let input = Input::Uniform.name();

    // 9.11: RGB, one block-private copy of the three channels.
    let bins = 3 * U8_BINS;
    let expected = reference::rgb_histogram(d, U8_BINS);
    let shape = Shape::new(device_grid(dev.props(), n / 3, BLOCK, COARSEN), BLOCK).with_bins(bins);
    let k = solutions::ch09::histo_rgb::KERNEL;
    let m = match dev.alloc::<u32>(bins as usize) {
        Ok(out) => {
            let args = (up.slice(), out.slice());
            let m = measure_kernel(dev, &k, shape.config(), args, &out, &expected, opts);
            let _ = dev.free(out);
            m
        }
        Err(e) => Measured::Failed(format!("alloc failed: {}", first_line(&e))),
    };
    let r = m.into_row(Row::new("histo_rgb", "9.11", input, "u8", bins, n as u64));
    progress(&format!("{tag} 9.11 histo_rgb: {}", summary(&r)));
    report.rows.push(r);

    // 9.12: weighted, f32 weights in quarters from -2 to 2 (as the exercise's check),
    // compared with the f64 sums within a relative tolerance.
    let bins = U8_BINS;
    let mut rng = course::Rng::new(opts.seed ^ 0x12);
    let weights: Vec<f32> = (0..n).map(|_| (rng.below(17) as f32 - 8.0) / 4.0).collect();
    let expected = reference::weighted_histogram(d, &weights, bins);
    let check = |got: &[f32]| weighted_difference(&expected, got);
    let shape = Shape::new(device_grid(dev.props(), n, BLOCK, COARSEN), BLOCK).with_bins(bins);
    let k = solutions::ch09::histo_weighted::KERNEL;
    let m = match (dev.upload(&weights), dev.alloc::<f32>(bins as usize)) {
        (Ok(ws), Ok(out)) => {
            let args = (up.slice(), ws.slice(), out.slice());
            let m = measure_checked(dev, &k, shape.config(), args, &out, &check, opts);
            let _ = dev.free(out);
            let _ = dev.free(ws);
            m
        }
        (ws, out) => {
            let mut why = Vec::new();
            match ws {
                Ok(b) => drop(dev.free(b)),
                Err(e) => why.push(first_line(&e)),
            }
            match out {
                Ok(b) => drop(dev.free(b)),
                Err(e) => why.push(first_line(&e)),
            }
            Measured::Failed(format!("upload or alloc failed: {}", why.join("; ")))
        }
    };
    drop(weights);
    let r = m.into_row(Row::new(
        "histo_weighted",
        "9.12",
        input,
        "u8",
        bins,
        5 * n as u64,
    ));
    progress(&format!("{tag} 9.12 histo_weighted: {}", summary(&r)));
    report.rows.push(r);

    // 9.13: joint, 16 x 16 bins over the pairs of the two halves.
    let (bins_x, bins_y) = (16u32, 16u32);
    let bins = bins_x * bins_y;
    let half = n / 2;
    let (x, y) = (&d[..half], &d[half..2 * half]);
    let expected = reference::joint_histogram(x, y, bins_x, bins_y);
    let shape = Shape::new(device_grid(dev.props(), half, BLOCK, COARSEN), BLOCK).with_bins(bins);
    let k = solutions::ch09::histo_joint::KERNEL;
    let m = match (
        dev.upload(x),
        dev.upload(y),
        dev.alloc::<u32>(bins as usize),
    ) {
        (Ok(xs), Ok(ys), Ok(out)) => {
            let args = (xs.slice(), ys.slice(), out.slice(), bins_x);
            let m = measure_kernel(dev, &k, shape.config(), args, &out, &expected, opts);
            let _ = dev.free(out);
            let _ = dev.free(xs);
            let _ = dev.free(ys);
            m
        }
        (xs, ys, out) => {
            let mut why = Vec::new();
            match xs {
                Ok(b) => drop(dev.free(b)),
                Err(e) => why.push(first_line(&e)),
            }
            match ys {
                Ok(b) => drop(dev.free(b)),
                Err(e) => why.push(first_line(&e)),
            }
            match out {
                Ok(b) => drop(dev.free(b)),
                Err(e) => why.push(first_line(&e)),
            }
            Measured::Failed(format!("upload or alloc failed: {}", why.join("; ")))
        }
    };
    let r = m.into_row(Row::new(
        "histo_joint",
        "9.13",
        input,
        "u8",
        bins,
        2 * half as u64,
    ));
    progress(&format!(
        "{tag} 9.13 histo_joint (16 x 16 bins): {}",
        summary(&r)
    ));
    report.rows.push(r);
}

/// The first bin of a weighted histogram off the exact sums by more than `1e-6` of the
/// bin's weight (at least `1e-3`), if any.
fn weighted_difference(expected: &[f64], got: &[f32]) -> Option<String> {
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

/// 9.16's strategy sweep: uniform `u32` values (a quarter of `opts.size_bytes`) at every
/// bin count of [`STRATEGY_BINS`], every applicable strategy checked against the CPU's
/// histogram and timed.
fn strategy_sweep(
    dev: &mut Device,
    opts: &Options,
    progress: &mut dyn FnMut(&str),
    report: &mut Report,
) {
    let input = Input::Uniform;
    let n = (opts.size_bytes / 4) as usize;
    for bins in STRATEGY_BINS {
        let tag = format!("[u32 {} {bins} bins]", input.name());
        progress(&format!("{tag} generating {} MiB", opts.size_bytes >> 20));
        let d = data::values(input, n, bins, opts.seed, &opts.text.0);
        let expected = cpu::threaded(&d, bins, opts.cpu_threads);
        let up = match dev.upload(&d) {
            Ok(up) => Uploaded::U32(up),
            Err(e) => {
                report.header.notes.push(format!(
                    "{tag}: upload failed, GPU kernels not run: {}",
                    first_line(&e)
                ));
                continue;
            }
        };
        for s in strategy_steps(dev.props(), n, bins) {
            let m = measure_step(dev, &s, &up, &expected, opts);
            let row = Row::new(s.kernel, s.step, input.name(), "u32", bins, 4 * n as u64);
            let r = m.into_row(row);
            progress(&format!("{tag} {} {}: {}", s.step, s.kernel, summary(&r)));
            report.rows.push(r);
        }
        if let Uploaded::U32(d) = up {
            drop(dev.free(d));
        }
    }
}

/// A row in a few words, for progress lines.
fn summary(r: &Row) -> String {
    match (r.median_ms, r.gbps) {
        (Some(ms), Some(g)) => format!("{ms:.3} ms, {g:.1} GB/s ({} runs)", r.reps),
        _ => r.note.clone().unwrap_or_else(|| "no result".into()),
    }
}

/// Times a CPU histogram: one checked run, then as many more as fit in the budget.
fn measure_cpu(f: &dyn Fn() -> Vec<u32>, expected: &[u32], opts: &Options) -> Measured {
    let t = Instant::now();
    let got = f();
    let first = t.elapsed();
    if let Some(d) = difference(expected, &got) {
        return Measured::Wrong(d);
    }
    if first * 2 >= opts.budget {
        return Measured::Ok {
            median: first,
            reps: 1,
            note: None,
        };
    }
    let (_, reps) = plan(first, 0, opts.reps, opts.budget.saturating_sub(first));
    let times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect();
    Measured::Ok {
        median: median(&times),
        reps,
        note: None,
    }
}

/// Measures the two references on the uploaded input and records them in the header
/// and as rows.
fn anchors(
    dev: &mut Device,
    up: &Uploaded,
    data: &HostData,
    input: Input,
    opts: &Options,
    report: &mut Report,
) {
    let bytes = data.len_bytes();
    let src = up.bytes();
    let vectors = (bytes / 16) as usize;
    let want_xor = data.vector_xor();
    let props = dev.props().clone();
    let resident = props.sm_count * props.blocks_per_sm(BLOCK);
    // No more blocks than give each thread four vectors (a short input), at least one.
    let needed = vectors.div_ceil(BLOCK as usize * 4).max(1) as u32;
    let mut best: Option<(f64, u32, u32, u32)> = None;
    let mut notes = Vec::new();
    let k = solutions::bench::read_bandwidth::KERNEL;
    for waves in [1u32, 2, 4] {
        let grid = (resident * waves).min(needed);
        if best.is_some_and(|b| b.1 == grid) {
            continue;
        }
        let sink = match dev.alloc::<u32>((grid * BLOCK) as usize) {
            Ok(s) => s,
            Err(e) => {
                notes.push(format!("read kernel: alloc failed: {}", first_line(&e)));
                break;
            }
        };
        let cfg = LaunchConfig::linear(grid, BLOCK);
        let args = (src, sink.slice());
        let m = (|| -> Result<(Duration, u32), String> {
            let wall = Instant::now();
            let probe = dev.launch(&k, cfg, args).map_err(|e| first_line(&e))?;
            let probe = probe.gpu_time.unwrap_or_else(|| wall.elapsed());
            let got = dev.download(&sink).map_err(|e| first_line(&e))?;
            let xor = got.iter().fold(0, |x, &w| x ^ w);
            if xor != want_xor {
                return Err(format!(
                    "{WRONG}: the read kernel's XOR is {xor:#010x}, the input's {want_xor:#010x}"
                ));
            }
            let (warmup, reps) = plan(probe, opts.warmup, opts.reps, opts.budget);
            let times = dev
                .time_launches(&k, cfg, args, warmup, reps)
                .map_err(|e| first_line(&e))?;
            Ok((median(&times), reps))
        })();
        let _ = dev.free(sink);
        match m {
            Ok((t, reps)) => {
                let gbps = bytes as f64 / t.as_secs_f64() / 1e9;
                if best.is_none_or(|b| gbps > b.0) {
                    best = Some((gbps, grid, waves, reps));
                }
            }
            Err(why) => notes.push(format!("read kernel <<<{grid}, {BLOCK}>>>: {why}")),
        }
    }
    let mut row = Row::new(
        "read_bandwidth (16-byte loads)",
        "ref",
        input.name(),
        "u8",
        0,
        bytes,
    );
    row = match best {
        Some((gbps, grid, waves, reps)) => {
            report.header.read_kernel_gbps = Some(gbps);
            report.header.read_kernel_launch = format!(
                "<<<{grid}, {BLOCK}>>> ({waves} wave(s) of resident blocks; the best of 1, 2, 4)"
            );
            row.measured(bytes as f64 / gbps / 1e6, reps).noted(format!(
                "<<<{grid}, {BLOCK}>>>, the best of 1, 2 and 4 waves"
            ))
        }
        None => row.failed(notes.join("; ")),
    };
    report.rows.push(row);

    // The copy: read + write bytes.
    let mut row = Row::new(
        "cuMemcpyDtoD (read + write bytes)",
        "ref",
        input.name(),
        "u8",
        0,
        2 * bytes,
    );
    let copied = (|| -> Result<(Duration, u32), String> {
        let dst = match up {
            Uploaded::U8(d) => dev.alloc::<u8>(d.len() as usize).map(Uploaded::U8),
            Uploaded::U32(d) => dev.alloc::<u32>(d.len() as usize).map(Uploaded::U32),
        }
        .map_err(|e| first_line(&e))?;
        let timed = |dev: &mut Device, w: u32, r: u32| match (&dst, up) {
            (Uploaded::U8(a), Uploaded::U8(b)) => dev.time_device_copies(a, b, w, r),
            (Uploaded::U32(a), Uploaded::U32(b)) => dev.time_device_copies(a, b, w, r),
            _ => Ok(Vec::new()),
        };
        let result = (|| {
            let probe = median(&timed(dev, 0, 1).map_err(|e| first_line(&e))?);
            let (warmup, reps) = plan(probe, opts.warmup, opts.reps, opts.budget);
            let times = timed(dev, warmup, reps).map_err(|e| first_line(&e))?;
            let same = match &dst {
                Uploaded::U8(a) => dev.download(a).map(|v| HostData::U8(v).vector_xor()),
                Uploaded::U32(a) => dev.download(a).map(|v| HostData::U32(v).vector_xor()),
            }
            .map_err(|e| first_line(&e))?
                == want_xor;
            if !same {
                return Err(format!("{WRONG}: the copy differs from its source"));
            }
            Ok((median(&times), reps))
        })();
        match dst {
            Uploaded::U8(d) => drop(dev.free(d)),
            Uploaded::U32(d) => drop(dev.free(d)),
        }
        result
    })();
    row = match copied {
        Ok((t, reps)) => {
            let r = row.measured(t.as_secs_f64() * 1e3, reps);
            report.header.copy_gbps = r.gbps;
            r
        }
        Err(why) => row.failed(why),
    };
    report.rows.push(row);
    report.header.read_bw_gbps = match (report.header.read_kernel_gbps, report.header.copy_gbps) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    report.header.notes.extend(notes);
}

/// Writes the input for CUB and PyTorch: into `--tmp`, else `/dev/shm` (memory, fast),
/// else the system's temporary directory when `/dev/shm` is missing or too small.
fn write_input(data: &HostData, opts: &Options, tag: &str) -> Result<PathBuf, String> {
    let name = format!(
        "ch09-bench-{}-{}.bin",
        std::process::id(),
        tag.trim_matches(['[', ']']).replace(' ', "-")
    );
    let dirs: Vec<PathBuf> = match &opts.tmp_dir {
        Some(d) => vec![d.clone()],
        None => vec![PathBuf::from("/dev/shm"), std::env::temp_dir()],
    };
    let bytes = data.bytes();
    let mut why = Vec::new();
    for d in dirs {
        if !d.is_dir() {
            continue;
        }
        let path = d.join(&name);
        match std::fs::write(&path, &bytes) {
            Ok(()) => return Ok(path),
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                why.push(format!("{}: {e}", path.display()));
            }
        }
    }
    Err(format!("cannot write the input file ({})", why.join("; ")))
}

/// The header: the device, the host, the options.
fn header(dev: &Device, opts: &Options) -> Header {
    let p = dev.props();
    let text = &opts.text;
    Header {
        gpu: p.name.clone(),
        sm_count: p.sm_count,
        compute_capability: format!("{}.{}", p.compute_capability.0, p.compute_capability.1),
        l2_bytes: p.l2_bytes,
        driver_version: chapter::provenance::nvidia_driver_version(),
        cuda_version: chapter::provenance::cuda_version(dev),
        date_utc: report::now_utc(),
        host_cpu: host_cpu(),
        host_threads: opts.cpu_threads,
        git_commit: git_commit(),
        command: opts.command.clone(),
        input_bytes: opts.size_bytes,
        warmup: opts.warmup,
        reps: opts.reps,
        budget_ms: opts.budget.as_millis() as u64,
        seed: opts.seed,
        text: format!(
            "{}, {} bytes, FNV-1a {:016x}, repeated to the input size (u32: its bytes widened)",
            text.1,
            text.0.len(),
            data::fnv1a(&text.0)
        ),
        method: "GPU kernels: median of event-timed launches after warm-ups, each launch timed \
                 alone; the histogram is zeroed by cuMemsetD8Async before every launch, outside \
                 the events (not timed); input upload not timed. CPU: host clock, same input. \
                 CUB and PyTorch: their own CUDA events around each call (CUB zeroes its \
                 histogram outside them; torch.bincount allocates its output inside them). \
                 GB/s = input bytes / median time (10^9 B/s)."
            .into(),
        ..Header::default()
    }
}

/// The host CPU's model name, from `/proc/cpuinfo`.
fn host_cpu() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// The course's commit: `CH09_GIT_COMMIT` (set by the GPU session script, which knows
/// it), else `git` in the workspace this crate was built from, else `unknown`.
fn git_commit() -> String {
    if let Ok(c) = std::env::var("CH09_GIT_COMMIT")
        && !c.trim().is_empty()
    {
        return c.trim().to_string();
    }
    let dir = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let dirty = git(&["status", "--porcelain"]).is_some_and(|s| !s.is_empty());
            if dirty { format!("{c}-dirty") } else { c }
        }
        _ => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_fit_the_budget() {
        let ms = Duration::from_millis;
        assert_eq!(plan(ms(1), 3, 20, ms(2000)), (3, 20));
        assert_eq!(plan(ms(100), 3, 20, ms(2000)), (0, 20));
        assert_eq!(plan(ms(250), 3, 20, ms(2000)), (0, 8));
        assert_eq!(plan(ms(900), 3, 20, ms(2000)), (0, 2));
        assert_eq!(plan(ms(5000), 3, 20, ms(2000)), (0, 1));
        assert_eq!(plan(Duration::ZERO, 3, 20, ms(2000)), (3, 20));
        assert_eq!(median(&[ms(3), ms(1), ms(2)]), ms(2));
        assert_eq!(median(&[ms(4), ms(1), ms(2), ms(3)]), ms(3));
    }

    #[test]
    fn the_steps_are_the_progressions() {
        let props = gpu_host::DeviceProps::emulated_h100();
        let n = 1 << 30;
        let steps = byte_steps(&REFERENCE, &mut Device::emulator(), n);
        let names: Vec<&str> = steps.iter().map(|s| s.kernel).collect();
        assert_eq!(
            names,
            [
                "histo_atomic",
                "histo_private_global",
                "histo_private_shared",
                "histo_private_dynamic",
                "histo_coarse_contiguous",
                "histo_coarse_interleaved",
                "histo_aggregate",
                "histo_warp_aggregate",
                "histo_fastest"
            ]
        );
        for s in &steps {
            let name = match s.launch {
                StepKernel::Bytes(k) => k.name,
                StepKernel::BytesWith(k, _) => k.name,
                StepKernel::Values(k) => k.name,
            };
            assert_eq!(name, s.kernel);
        }
        assert_eq!(steps[0].shape.grid, 132 * 8);
        assert_eq!(steps[1].out_len, 132 * 8 * 256);
        assert_eq!(steps[2].shape.grid, (1 << 30) / 256);
        let v = value_steps(&REFERENCE, &props, n / 4);
        assert_eq!(v[1].shape.shared_bytes, 4 * U32_BINS);
    }

    /// The whole pipeline on the emulator, on a small input: every kernel right, the
    /// references measured, CSV and JSON written.
    #[test]
    fn the_bench_runs_on_the_emulator() {
        let dir = std::env::temp_dir().join(format!("ch09-bench-test-{}", std::process::id()));
        let opts = Options {
            size_bytes: 8 << 10,
            warmup: 0,
            reps: 1,
            budget: Duration::from_secs(60),
            inputs: vec![Input::Skewed90, Input::Text],
            cub: Tool::Off,
            torch: Tool::Off,
            cpu_threads: 2,
            out_dir: dir.clone(),
            text: (b"the quick brown fox ".to_vec(), "a test".into()),
            ..Options::default()
        };
        let mut lines = Vec::new();
        let report = run_on(&mut Device::emulator(), &opts, &mut |l| {
            lines.push(l.to_string())
        });
        assert!(report.all_correct(), "{}", report.table());
        // 2 references + (9 kernels + 4 CPU) x 2 inputs + (3 kernels + 4 CPU) x 2 inputs.
        assert_eq!(report.rows.len(), 2 + 13 * 2 + 7 * 2, "{}", report.table());
        assert!(report.rows.iter().all(|r| r.pct_read_bw.is_some()));
        assert!(report.header.read_bw_gbps.is_some());
        let (csv, json) = report.write(&dir).unwrap();
        assert!(
            std::fs::read_to_string(csv)
                .unwrap()
                .contains("histo_fastest,9.9,text,u8,256,8192,")
        );
        assert!(
            std::fs::read_to_string(json)
                .unwrap()
                .contains("\"header\"")
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains("[u32 text] 9.14 histo_u32_shared"))
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    /// The variant sweep on the emulator: every variant right on every byte input, with
    /// a length that leaves a partial round of vectors and a tail of bytes.
    #[test]
    fn the_variant_sweep_runs_on_the_emulator() {
        let dir = std::env::temp_dir().join(format!("ch09-variants-test-{}", std::process::id()));
        let opts = Options {
            // 9.9's grid gives each thread about four vectors: 5 * 16 KiB + 5000 bytes is
            // 6 blocks (stride 1536 vectors) over 5432 vectors, so the first threads do a
            // round of four, the others single vectors, and 8 bytes are a tail.
            size_bytes: 5 * 16384 + 5000,
            warmup: 0,
            reps: 1,
            budget: Duration::from_secs(60),
            variants: true,
            cpu: false,
            cub: Tool::Off,
            torch: Tool::Off,
            cpu_threads: 2,
            out_dir: dir.clone(),
            text: (b"the quick brown fox ".to_vec(), "a test".into()),
            ..Options::default()
        };
        let mut lines = Vec::new();
        let report = run_on(&mut Device::emulator(), &opts, &mut |l| {
            lines.push(l.to_string())
        });
        assert!(report.all_correct(), "{}", report.table());
        // 2 references + 7 kernels x 4 byte inputs; no u32 input.
        assert_eq!(report.rows.len(), 2 + 7 * 4, "{}", report.table());
        for k in [
            "histo_fastest",
            "histo_fastest/b256",
            "histo_fastest/b1024",
            "fast_run_length",
            "fast_popc",
            "fast_warp_bins",
            "fast_lane_bins",
        ] {
            assert_eq!(
                report.rows.iter().filter(|r| r.implementation == k).count(),
                4,
                "{k}: {}",
                report.table()
            );
        }
        assert!(report.rows.iter().all(|r| r.dtype == "u8"));
        let _ = std::fs::remove_dir_all(dir);
    }

    /// The extension sweep on the emulator: `histo_cas` right on every byte input and
    /// every strategy right at every bin count.
    #[test]
    fn the_extension_sweep_runs_on_the_emulator() {
        let dir = std::env::temp_dir().join(format!("ch09-ext-test-{}", std::process::id()));
        let opts = Options {
            size_bytes: 3 * 4096 + 44,
            warmup: 0,
            reps: 1,
            budget: Duration::from_secs(60),
            extensions: true,
            dtypes: vec![Dtype::U8],
            cpu: false,
            cub: Tool::Off,
            torch: Tool::Off,
            cpu_threads: 2,
            out_dir: dir.clone(),
            text: (b"the quick brown fox ".to_vec(), "a test".into()),
            ..Options::default()
        };
        let report = run_on(&mut Device::emulator(), &opts, &mut |_| {});
        assert!(report.all_correct(), "{}", report.table());
        // 2 references + histo_cas x 4 byte inputs + RGB, weighted and joint on uniform +
        // the strategies: 3 at 8 and 16 bins, 2 at the 4 others.
        assert_eq!(
            report.rows.len(),
            2 + 4 + 3 + 3 * 2 + 2 * 4,
            "{}",
            report.table()
        );
        let count = |k: &str| report.rows.iter().filter(|r| r.implementation == k).count();
        assert_eq!(count("histo_cas"), 4, "{}", report.table());
        assert_eq!(count("histo_rgb"), 1, "{}", report.table());
        assert_eq!(count("histo_weighted"), 1, "{}", report.table());
        assert_eq!(count("histo_joint"), 1, "{}", report.table());
        assert_eq!(count("histo_registers"), 2, "{}", report.table());
        assert_eq!(count("histo_u32_shared"), 6, "{}", report.table());
        assert_eq!(count("histo_u32_global"), 6, "{}", report.table());
        for bins in STRATEGY_BINS {
            assert!(
                report
                    .rows
                    .iter()
                    .any(|r| r.implementation == "histo_u32_global" && r.bins == bins),
                "{bins}: {}",
                report.table()
            );
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
