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
//! `cuMemsetD8Async` *outside* those events (not timed), and a kernel reads twice the L2's
//! size before it too (gpu-host's flush), so that every launch (the read kernel's, the
//! copy's, CUB's and PyTorch's alike) starts from a cold, clean L2: an input smaller than
//! the L2 (50 MiB on the H100) is otherwise read from the cache from the second launch on,
//! and the read kernel "read" 16 MiB in 6.0 µs (`notes/cold-l2-h100-2026-11-25.md`). When one launch is slow (global
//! atomics on one-value input take about a second per GiB), fewer launches are made so
//! that a case takes about `--budget-ms` (at least one timed launch; `reps` in the
//! results says how many). The row's time is the median. Before the first timed case the
//! GPU is kept busy until its times settle (`crates/bench/src/warm.rs`): clocks follow the load, and the first
//! case after an idle spell or a profiler ran 3.5 times slower than a rerun. CPU loops are timed with the
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
//! speed targets (issues 4 and 40) with what this run reached ([`TARGETS`]). Progress
//! goes to stderr.

mod measure;
mod options;
mod provenance;
mod steps;
mod sweeps;

use measure::*;
pub use options::*;
use provenance::*;
pub use steps::*;
use sweeps::*;

/// The suffix of a student's row's implementation (`histo_atomic (yours)`).
pub use ::bench::YOURS;
/// The bench's pieces every chapter shares, under the names this module has always given
/// them (the crate is `bench`).
pub use ::bench::options::{Common, CommonArgs};
pub use ::bench::{cpu, cpu_simd, data, external, report, sizes};
/// The median of `times` and how many runs fit a budget ([`chapter::timing`]).
pub use ::bench::{median, plan};

use crate::device;
use crate::kernels::{ByteKernel, ByteKernelWith, Kernels, REFERENCE, U32Kernel};
use crate::launch::{Shape, coarsened, device_grid, one_per_thread};
use ::bench::measure::{
    HostData, Measured, Uploaded, difference, first_line, measure_checked, measure_cpu,
    measure_kernel, weighted_difference,
};
use ::bench::steps::{same_grid_steps, same_grid_summary};
use ::bench::warm::warm_up;
use course::KernelSource;
use data::Input;
use gpu_host::{Device, DeviceBuffer, LaunchError};
use report::{Header, Report, Row};
use solutions::ch09::{FASTEST_SHARED_BYTES, FastestPolicy, fastest_grid_coarsened};
use std::path::{Path, PathBuf};

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
    Ok(sweep_sizes(&mut dev, opts, sizes, progress))
}

/// [`run_on`] at each of `sizes` (bytes) on `dev`, each size's results in its own folder
/// under `opts.common.out_dir` ([`sizes::sweep`]).
pub fn sweep_sizes(
    dev: &mut Device,
    opts: &Options,
    sizes: &[u64],
    progress: &mut dyn FnMut(&str),
) -> sizes::SizeSweep {
    sizes::sweep(
        sizes,
        &opts.common.out_dir,
        progress,
        |bytes, out_dir, progress| {
            let o = Options {
                common: Common {
                    runs: chapter::timing::BenchRuns {
                        size_bytes: bytes,
                        ..opts.common.runs
                    },
                    out_dir,
                    ..opts.common.clone()
                },
                ..opts.clone()
            };
            run_on(dev, &o, progress)
        },
    )
}

/// Elements of the emulator's rehearsal of a student's step, before the GPU.
pub const REHEARSAL_BYTES: usize = 1 << 16;

/// The student's kernels of every step (`--kernels student`), on `data` (uploaded to `dev`
/// as `up`): each step first rehearsed on the emulator on the input's first
/// [`REHEARSAL_BYTES`]; one that fails there to run (a `todo!()`, an access out of
/// bounds, a hang) is not launched on the GPU, where a fault ends every later launch of
/// the context, and its row says why. The others run on a device of their own (a CUDA
/// context apart from the reference's), opened again after a launch that fails. On the
/// emulator, the steps run on `dev` itself. Rows as `(implementation, step, measure)`.
#[allow(clippy::too_many_arguments)]
fn student_rows(
    dev: &mut Device,
    data: &HostData,
    up: &Uploaded,
    expected: &[u32],
    dtype: Dtype,
    opts: &Options,
    tag: &str,
    progress: &mut dyn FnMut(&str),
) -> Vec<(String, &'static str, Measured)> {
    let k = crate::kernels::kernels(KernelSource::Student);
    let bins = dtype.bins(opts);
    let wanted = |s: &Step| opts.steps.is_empty() || opts.steps.iter().any(|x| x == s.step);
    let steps_on = |dev: &mut Device, n_bytes: usize| -> Vec<Step> {
        match dtype {
            Dtype::U8 => byte_steps(k, dev, n_bytes),
            Dtype::U32 => value_steps(k, dev.props(), n_bytes / 4, bins),
        }
    };
    let mut out = Vec::new();
    let name = |s: &Step| format!("{}{YOURS}", s.kernel);
    if dev.is_emulator() {
        for s in steps_on(dev, data.len_bytes() as usize)
            .into_iter()
            .filter(wanted)
        {
            let m = measure_step(dev, &s, up, expected, opts);
            out.push((name(&s), s.step, m));
        }
        return out;
    }
    // The rehearsal's input: the first bytes of the same input, and its histogram.
    let small = match data {
        HostData::U8(d) => HostData::U8(d[..d.len().min(REHEARSAL_BYTES)].to_vec()),
        HostData::U32(d) => HostData::U32(d[..d.len().min(REHEARSAL_BYTES / 4)].to_vec()),
    };
    let small_expected = match &small {
        HostData::U8(d) => cpu::threaded(d, bins, 1),
        HostData::U32(d) => cpu::threaded(d, bins, 1),
    };
    let once = Options {
        common: Common {
            runs: chapter::timing::BenchRuns {
                warmup: 0,
                reps: 1,
                ..opts.common.runs
            },
            ..opts.common.clone()
        },
        ..opts.clone()
    };
    let mut emu = Device::emulator();
    let small_up = Uploaded::of(&mut emu, &small);
    let rehearsal_steps = steps_on(&mut emu, small.len_bytes() as usize);
    let open = || {
        device::open_gpu(&[KernelSource::Student]).and_then(|mut d| {
            let up = Uploaded::of(&mut d, data)?;
            Ok((d, up))
        })
    };
    let mut gpu = open();
    // The launch shapes from the device that runs them (9.9's grid asks it for occupancy).
    let steps = match &mut gpu {
        Ok((sdev, _)) => steps_on(sdev, data.len_bytes() as usize),
        Err(_) => steps_on(dev, data.len_bytes() as usize),
    };
    for s in steps.into_iter().filter(wanted) {
        let rehearsed = match (
            &small_up,
            rehearsal_steps.iter().find(|r| r.kernel == s.kernel),
        ) {
            (Ok(small_up), Some(r)) => measure_step(&mut emu, r, small_up, &small_expected, &once),
            (Err(e), _) => {
                Measured::Failed(format!("the emulator's upload failed: {}", first_line(e)))
            }
            (_, None) => Measured::Failed("invariant: no rehearsal of this step".into()),
        };
        if let Measured::Failed(why) = rehearsed {
            progress(&format!(
                "{tag} {} {}: fails on the emulator, not run on the GPU",
                s.step,
                name(&s)
            ));
            out.push((
                name(&s),
                s.step,
                Measured::Failed(format!(
                    "not run on the GPU: on the emulator ({} bytes) it failed: {}",
                    small.len_bytes(),
                    first_line(&why)
                )),
            ));
            continue;
        }
        if gpu.is_err() {
            gpu = open();
        }
        let (sdev, sup) = match gpu.as_mut() {
            Ok(g) => (&mut g.0, &g.1),
            Err(e) => {
                let why = format!("the GPU for your kernels: {}", first_line(e));
                out.push((name(&s), s.step, Measured::Failed(why)));
                continue;
            }
        };
        let m = measure_step(sdev, &s, sup, expected, opts);
        if matches!(m, Measured::Failed(_)) {
            // Its context may be lost: the next step opens a fresh one.
            gpu = Err(LaunchError::NoDevice {
                message: "closed after a failed launch".into(),
            });
        }
        progress(&format!("{tag} {} {}: measured", s.step, name(&s)));
        out.push((name(&s), s.step, m));
    }
    out
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
    let (cub, torch) = external::tools(
        [
            (CUB, &opts.common.cub, "CUB"),
            (TORCH, &opts.common.torch, "torch.bincount"),
        ],
        &opts.common.python,
        &opts.common.out_dir.join("tools"),
        dev.props().compute_capability,
        &mut report.header.notes,
    );
    for &dtype in &opts.dtypes {
        if (opts.variants || opts.extensions) && dtype != Dtype::U8 {
            continue;
        }
        for &input in &opts.inputs {
            let tag = format!("[{} {}]", dtype.name(), input.name());
            progress(&format!(
                "{tag} generating {} MiB",
                opts.common.runs.size_bytes >> 20
            ));
            let data = match dtype {
                Dtype::U8 => HostData::U8(data::bytes(
                    input,
                    opts.common.runs.size_bytes as usize,
                    opts.common.runs.seed,
                    &opts.text.0,
                )),
                Dtype::U32 => HostData::U32(data::values(
                    input,
                    (opts.common.runs.size_bytes / 4) as usize,
                    opts.u32_bins,
                    opts.common.runs.seed,
                    &opts.text.0,
                )),
            };
            let bins = dtype.bins(opts);
            let expected = match &data {
                HostData::U8(d) => cpu::threaded(d, bins, opts.common.cpu_threads),
                HostData::U32(d) => cpu::threaded(d, bins, opts.common.cpu_threads),
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
            let uploaded = Uploaded::of(dev, &data);
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
                        if !dev.is_emulator() {
                            progress(&format!("{tag} warming the GPU until its times settle"));
                            report.header.warm_up = warm_up(dev, &up);
                            progress(&format!("{tag} {}", report.header.warm_up));
                        }
                        progress(&format!("{tag} read bandwidth and device copy"));
                        ::bench::reference::read_bandwidth(
                            dev,
                            &up,
                            &data,
                            input.name(),
                            &opts.common.budget(),
                            &mut report,
                        );
                    }
                    let steps = match dtype {
                        // The extension sweep's byte kernels run below, on their own sizes.
                        Dtype::U8 if opts.extensions => Vec::new(),
                        Dtype::U8 if opts.variants => variant_steps(dev, data.len_bytes() as usize),
                        Dtype::U8 if opts.same_grid => same_grid_steps(
                            byte_steps(&REFERENCE, dev, data.len_bytes() as usize),
                            |s, shape| retarget(s, shape, data.len_bytes() as usize),
                        ),
                        Dtype::U8 => byte_steps(&REFERENCE, dev, data.len_bytes() as usize),
                        Dtype::U32 => value_steps(
                            &REFERENCE,
                            dev.props(),
                            data.len_bytes() as usize / 4,
                            bins,
                        ),
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
                        progress(&format!("{tag} {} {}: {}", s.step, s.kernel, r.summary()));
                        report.rows.push(r);
                    }
                    if opts.student {
                        let rows =
                            student_rows(dev, &data, &up, &expected, dtype, opts, &tag, progress);
                        report.rows.extend(
                            rows.into_iter()
                                .map(|(kernel, step, m)| m.into_row(row(&kernel, step))),
                        );
                    }
                    if let (true, Uploaded::U8(up), HostData::U8(d)) = (opts.extensions, &up, &data)
                    {
                        cas_sweep(dev, d, input, opts, &tag, progress, &mut report);
                        if input == Input::Uniform {
                            rgb_and_joint(dev, up, d, opts, &tag, progress, &mut report);
                        }
                    }
                    up.free(dev);
                }
            }

            // The CPU of this machine.
            if opts.common.cpu {
                let rows = match &data {
                    HostData::U8(d) => cpu::rows(d, bins, opts.common.cpu_threads),
                    HostData::U32(d) => cpu::rows(d, bins, opts.common.cpu_threads),
                };
                for (name, f) in rows {
                    let r = measure_cpu(&f, &expected, &opts.common.budget())
                        .into_row(row(&name, "cpu"));
                    progress(&format!("{tag} {name}: {}", r.summary()));
                    report.rows.push(r);
                }
            }

            // CUB and PyTorch, on the same input written to a file.
            let how = opts.common.runner("ch09");
            let rows = external::run_anchors(
                [
                    ("cub::DeviceHistogram::HistogramEven", "cub", &cub),
                    ("torch.bincount", "torch", &torch),
                ],
                &data,
                (dtype.name(), bins),
                &how,
                &tag,
                &row,
                &|bins, _| difference(&expected, bins),
                &mut report.header.notes,
                progress,
            );
            report.rows.extend(rows);
        }
    }
    if opts.extensions {
        strategy_sweep(dev, opts, progress, &mut report);
    }
    if opts.same_grid {
        report.header.notes.extend(same_grid_summary(&report.rows));
    }
    report.set_percentages();
    report.set_targets(&TARGETS);
    report
}
