//! `cargo run -p ch10 --release --features cuda -- bench`: every reference kernel of the
//! chapter on a real GPU, against the read bandwidth, CUB's `DeviceReduce::Sum`,
//! `torch.sum` and the CPU, on 1 GiB of `u32` and 1 GiB of `f32` (uniform values).
//!
//! The bench is the course's (`crates/bench`: timing, warm-up, the read kernel and the
//! device copy, the anchors' machinery, the report); this module is the chapter's part:
//! its kernels as the progression launches them ([`steps`]), its inputs, its anchors'
//! names ([`CUB`], [`TORCH`]), how a result is checked, and its speed targets
//! ([`TARGETS`]). A reduction reads its input once and writes one word, so it can at
//! best run at the speed of reading: every row's `pct_read_bw` is a percentage of the
//! read bandwidth measured in the same run.
//!
//! **Checks.** A `u32` sum must equal the CPU's (wrapping); an `f32` sum must be within
//! the bound its order allows ([`reference::f32_bound`]: 10.9's depth for its kernel; for
//! CUB, PyTorch and the CPU, whose orders are theirs, a chain of `n / 1024` adds plus a
//! tree). 10.2's kernel races by design (`sum += x` from every thread): its time is
//! reported, its sum is not checked.

use crate::kernels::{CoarsenedKernel, Kernels, REFERENCE, SumF32Kernel, SumKernel};
use crate::{inputs, reference};
use ::bench::data::Input;
use ::bench::external::{self, Source};
use ::bench::measure::{
    Budget, HostData, Measured, Uploaded, first_line, measure_checked, measure_cpu_checked,
};
use ::bench::options::Common;
use ::bench::report::{Header, Report, Row, Target};
use ::bench::steps::Step;
use chapter::launch::{Shape, coarsened, one_per_thread};
use course::KernelSource;
use gpu_host::{Device, LaunchError};

/// Chapter 10's anchors: `cub::DeviceReduce::Sum` and `torch.sum`.
pub const CUB: &Source = &external::CUB_REDUCE;
/// The PyTorch anchor ([`CUB`]'s sibling).
pub const TORCH: &Source = &external::TORCH_SUM;

/// The speed targets (issue 48): on 1 GiB of uniform `u32` and `f32`, the fastest kernel
/// at 97 % of the read bandwidth or more, and ahead of CUB's `DeviceReduce::Sum`.
pub const TARGETS: [Target; 2] = [
    ("u32", "uniform", 97.0, Some(1.0)),
    ("f32", "uniform", 97.0, Some(1.0)),
];

/// Threads per block of every step: the progression's default, and 10.9's policy.
pub const BLOCK: u32 = solutions::ch10::FastestPolicy::BLOCK_THREADS;
/// Elements per thread of 10.7 (the progression's default `--coarsen`).
pub const COARSEN: u32 = 4;

/// The element type of an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// `u32` values, summed wrapping.
    U32,
    /// `f32` values.
    F32,
}

impl Dtype {
    /// Both, in the order the bench runs them.
    pub const ALL: [Dtype; 2] = [Dtype::U32, Dtype::F32];

    /// `u32` or `f32`, as in the results and on the anchors' command lines.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::U32 => "u32",
            Dtype::F32 => "f32",
        }
    }

    /// The type named `name`.
    pub fn from_name(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name() == name)
    }
}

/// A step's kernel, by the shape of its arguments.
#[derive(Clone, Copy, Debug)]
pub enum StepKernel {
    /// `(data: u32, sum)`.
    U32(SumKernel),
    /// 10.7's `(data: u32, sum, coarsen)`.
    Coarsened(CoarsenedKernel, u32),
    /// `(data: f32, sum)`.
    F32(SumF32Kernel),
}

/// What to measure and how: what every chapter's bench takes ([`Common`]), and the
/// chapter's own choices.
#[derive(Clone, Debug)]
pub struct Options {
    /// Size, launches, budget, anchors and where the results go.
    pub common: Common,
    /// The element types to run.
    pub dtypes: Vec<Dtype>,
    /// Only these steps (`10.9` …); all when empty.
    pub steps: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            common: Common::new("ch10-bench"),
            dtypes: Dtype::ALL.to_vec(),
            steps: Vec::new(),
        }
    }
}

/// The steps on `n` elements of `dtype`, launched as `cargo run -p ch10` launches them with
/// its defaults: 256-thread blocks; one element per thread for 10.2 and the trees; the
/// resident blocks (at most four elements per thread) for 10.3 and 10.8; 10.7's grid for
/// [`COARSEN`] elements per thread; 10.9's from the device's occupancy.
pub fn steps(k: &Kernels, dev: &mut Device, n: usize, dtype: Dtype) -> Vec<Step<StepKernel>> {
    let step = |step, kernel, launch, grid| Step {
        step,
        kernel,
        launch,
        shape: Shape::new(grid, BLOCK),
        out_len: 1,
    };
    let fastest = |dev: &mut Device, k: &dyn Fn(&mut Device) -> Result<u32, LaunchError>| {
        k(dev).unwrap_or_else(|_| {
            let props = dev.props();
            solutions::ch10::fastest_grid(props.sm_count, props.blocks_per_sm(BLOCK), BLOCK, n)
        })
    };
    if dtype == Dtype::F32 {
        let f = k.sum_fastest_f32;
        let grid = fastest(dev, &|d| crate::launch::fastest_grid(d, &f, n, BLOCK));
        return vec![step("10.9", "sum_fastest_f32", StepKernel::F32(f), grid)];
    }
    let props = dev.props().clone();
    let per_thread = one_per_thread(n, BLOCK);
    let resident = (props.sm_count * props.blocks_per_sm(BLOCK))
        .min(coarsened(n, BLOCK, 4))
        .max(1);
    let u = |s, name, kernel, grid| step(s, name, StepKernel::U32(kernel), grid);
    let f = k.sum_fastest_u32;
    let fastest_grid = fastest(dev, &|d| crate::launch::fastest_grid(d, &f, n, BLOCK));
    vec![
        u("10.2", "sum_naive", k.sum_naive, per_thread),
        u("10.3", "sum_atomic", k.sum_atomic, resident),
        u(
            "10.4",
            "sum_tree_interleaved",
            k.sum_tree_interleaved,
            per_thread,
        ),
        u(
            "10.5",
            "sum_tree_strided_index",
            k.sum_tree_strided_index,
            per_thread,
        ),
        u(
            "10.6",
            "sum_tree_sequential",
            k.sum_tree_sequential,
            per_thread,
        ),
        step(
            "10.7",
            "sum_coarsened",
            StepKernel::Coarsened(k.sum_coarsened, COARSEN),
            crate::launch::coarsened(n, BLOCK, COARSEN),
        ),
        u("10.8", "sum_warp_shuffle", k.sum_warp_shuffle, resident),
        u("10.9", "sum_fastest_u32", f, fastest_grid),
    ]
}

/// The right answer for one input: the `u32` sum, or the exact `f32` sum and `sum |x|`.
#[derive(Clone, Copy, Debug)]
enum Expected {
    U32(u32),
    F32 { exact: f64, mass: f64, n: usize },
}

impl Expected {
    /// Why `got` is not the sum of an order `depth` deep, if it is not.
    fn check(self, got: f64, depth: u64) -> Option<String> {
        match self {
            Expected::U32(want) => {
                (got != want as f64).then(|| format!("sum {got}, expected {want}"))
            }
            Expected::F32 { exact, mass, .. } => {
                let bound = reference::f32_bound(depth, mass);
                ((got - exact).abs() > bound).then(|| {
                    format!(
                        "sum {got}, exact {exact}: off by more than the order's bound {bound:.3e}"
                    )
                })
            }
        }
    }

    /// The depth allowed an order the bench does not know (CUB's, PyTorch's, the CPU
    /// rows'): a chain of `n / 1024` adds, then a tree.
    fn loose_depth(self) -> u64 {
        match self {
            Expected::U32(_) => 0,
            Expected::F32 { n, .. } => (n / 1024) as u64 + 64,
        }
    }
}

/// Opens GPU 0 with the reference PTX and runs the bench on it. Without a CUDA device
/// (or without the `cuda` feature) this is the host runtime's one clear `no CUDA device`
/// error, before any input is generated.
pub fn run(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Report, LaunchError> {
    let mut dev = crate::device::open_gpu(&[KernelSource::Reference])?;
    Ok(run_on(&mut dev, opts, progress))
}

/// The header: the device, the host, the options.
fn header(dev: &Device, opts: &Options) -> Header {
    Header {
        text: "-".into(),
        method: "GPU kernels: median of event-timed launches after warm-ups, each launch timed \
                 alone from a cold L2 (a kernel reads twice the L2 before every launch, and \
                 the sum is zeroed by cuMemsetD8Async, outside the events: not timed); input \
                 upload not timed. CPU: host clock, same input. CUB and PyTorch: their own CUDA \
                 events around each call, twice the L2 read before each too. GB/s = input \
                 bytes / median time (10^9 B/s)."
            .into(),
        ..::bench::provenance::header(dev, &opts.common)
    }
}

/// Runs the whole bench on `dev` (a GPU; the emulator works too, slowly, for tests): for
/// each element type, the references, the kernels, the CPU and the anchors. Never fails
/// as a whole: every failure is a row's or the header's note.
pub fn run_on(dev: &mut Device, opts: &Options, progress: &mut dyn FnMut(&str)) -> Report {
    let mut report = Report {
        header: header(dev, opts),
        rows: Vec::new(),
    };
    let budget = opts.common.budget();
    let (cub, torch) = external::tools(
        [
            (CUB, &opts.common.cub, "CUB"),
            (TORCH, &opts.common.torch, "torch.sum"),
        ],
        &opts.common.python,
        &opts.common.out_dir.join("tools"),
        dev.props().compute_capability,
        &mut report.header.notes,
    );
    let input = Input::Uniform.name();
    let mut warmed = false;
    for &dtype in &opts.dtypes {
        let tag = format!("[{} {input}]", dtype.name());
        let n = (opts.common.runs.size_bytes / 4) as usize;
        progress(&format!(
            "{tag} generating {} MiB",
            opts.common.runs.size_bytes >> 20
        ));
        // An f32 input travels as its bits: the device, the read kernel and the anchors'
        // files see the same bytes.
        let (data, expected) = match dtype {
            Dtype::U32 => {
                let d = inputs::uniform(n, 1000, opts.common.runs.seed);
                let sum = reference::sum_u32(&d);
                (HostData::U32(d), Expected::U32(sum))
            }
            Dtype::F32 => {
                let d = inputs::f32_uniform(n, 1000.0, opts.common.runs.seed);
                let (exact, mass) = reference::sum_f64(&d);
                let bits = d.iter().map(|x| x.to_bits()).collect();
                (HostData::U32(bits), Expected::F32 { exact, mass, n })
            }
        };
        let row =
            |name: &str, step: &str| Row::new(name, step, input, dtype.name(), 1, data.len_bytes());
        match Uploaded::of(dev, &data) {
            Err(e) => report.header.notes.push(format!(
                "{tag}: upload failed, GPU kernels not run: {}",
                first_line(&e)
            )),
            Ok(up) => {
                if !warmed {
                    warmed = true;
                    if !dev.is_emulator() {
                        progress(&format!("{tag} warming the GPU until its times settle"));
                        report.header.warm_up = ::bench::warm::warm_up(dev, &up);
                    }
                }
                progress(&format!("{tag} read bandwidth and device copy"));
                let at = report.rows.len();
                ::bench::reference::read_bandwidth(dev, &up, &data, input, &budget, &mut report);
                // Each element type has its own reference rows; every row's percentage
                // divides by the header's, the last type's.
                for r in &mut report.rows[at..] {
                    r.dtype = dtype.name().into();
                }
                for s in steps(&REFERENCE, dev, n, dtype) {
                    if !opts.steps.is_empty() && !opts.steps.iter().any(|x| x == s.step) {
                        continue;
                    }
                    let m = measure_step(dev, &s, &up, expected, n, &budget);
                    let r = m.into_row(row(s.kernel, s.step));
                    progress(&format!("{tag} {} {}: {}", s.step, s.kernel, r.summary()));
                    report.rows.push(r);
                }
                up.free(dev);
            }
        }
        if opts.common.cpu {
            let depth = expected.loose_depth();
            let rows: Vec<(String, Measured)> = match &data {
                HostData::U32(d) if dtype == Dtype::U32 => {
                    ::bench::cpu_sum::rows_u32(d, opts.common.cpu_threads)
                        .into_iter()
                        .map(|(name, f)| {
                            let check = |got: &u32| expected.check(*got as f64, depth);
                            (name, measure_cpu_checked(&f, &check, &budget))
                        })
                        .collect()
                }
                HostData::U32(bits) => {
                    let floats: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
                    ::bench::cpu_sum::rows_f32(&floats, opts.common.cpu_threads)
                        .into_iter()
                        .map(|(name, f)| {
                            let check = |got: &f64| expected.check(*got, depth);
                            (name, measure_cpu_checked(&f, &check, &budget))
                        })
                        .collect()
                }
                HostData::U8(_) => Vec::new(),
            };
            for (name, m) in rows {
                let r = m.into_row(row(&name, "cpu"));
                progress(&format!("{tag} {name}: {}", r.summary()));
                report.rows.push(r);
            }
        }
        let how = opts.common.runner("ch10");
        let check = |_: &[u64], sum: Option<f64>| match sum {
            Some(s) => expected.check(s, expected.loose_depth()),
            None => Some("no sum in its result".into()),
        };
        let rows = external::run_anchors(
            [
                ("cub::DeviceReduce::Sum", "cub", &cub),
                ("torch.sum", "torch", &torch),
            ],
            &data,
            (dtype.name(), 1),
            &how,
            &tag,
            &row,
            &check,
            &mut report.header.notes,
            progress,
        );
        report.rows.extend(rows);
    }
    report.set_percentages();
    report.set_targets(&TARGETS);
    report
}

/// Runs `step` on the uploaded input (`u32` values, or `f32` bits) and checks its sum.
fn measure_step(
    dev: &mut Device,
    step: &Step<StepKernel>,
    data: &Uploaded,
    expected: Expected,
    n: usize,
    budget: &Budget,
) -> Measured {
    let Uploaded::U32(d) = data else {
        return Measured::Failed("invariant: a sum's input is 4-byte words".into());
    };
    let cfg = step.shape.config();
    let depth = reference::fastest_depth(n, step.shape.grid, step.shape.block);
    // 10.2 loses updates by design: its time is the point, its sum is not checked.
    let racy = step.step == "10.2";
    let note = |m: Measured| match m {
        Measured::Ok { median, reps, .. } if racy => Measured::Ok {
            median,
            reps,
            note: Some("races by design (sum += x): the sum is not checked".into()),
        },
        m => m,
    };
    match step.launch {
        StepKernel::F32(k) => {
            let out = match dev.alloc::<f32>(1) {
                Ok(o) => o,
                Err(e) => return Measured::Failed(format!("alloc failed: {}", first_line(&e))),
            };
            let check = |got: &[f32]| match got.first() {
                Some(&g) => expected.check(g as f64, depth),
                None => Some("no sum".into()),
            };
            let args = (d.slice().cast::<f32>(), out.slice());
            let m = measure_checked(dev, &k, cfg, args, &out, &check, budget);
            let _ = dev.free(out);
            m
        }
        launch => {
            let out = match dev.alloc::<u32>(1) {
                Ok(o) => o,
                Err(e) => return Measured::Failed(format!("alloc failed: {}", first_line(&e))),
            };
            let check = |got: &[u32]| match got.first() {
                Some(_) if racy => None,
                Some(&g) => expected.check(g as f64, depth),
                None => Some("no sum".into()),
            };
            let m = match launch {
                StepKernel::Coarsened(k, c) => {
                    let args = (d.slice(), out.slice(), c);
                    measure_checked(dev, &k, cfg, args, &out, &check, budget)
                }
                StepKernel::U32(k) => {
                    measure_checked(dev, &k, cfg, (d.slice(), out.slice()), &out, &check, budget)
                }
                StepKernel::F32(_) => unreachable!("matched above"),
            };
            let _ = dev.free(out);
            note(m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole bench on the emulator, on a small input: every kernel right (10.2 timed,
    /// not checked), the references measured, CSV and JSON written.
    #[test]
    fn the_bench_runs_on_the_emulator() {
        let dir = std::env::temp_dir().join(format!("ch10-bench-test-{}", std::process::id()));
        let opts = Options {
            common: Common::small(16 << 10, dir.clone()),
            ..Options::default()
        };
        let report = run_on(&mut Device::emulator(), &opts, &mut |_| {});
        assert!(report.all_correct(), "{}", report.table());
        // Per type: 2 references; u32: 8 kernels, f32: 10.9's; 2 CPU rows each.
        assert_eq!(
            report.rows.len(),
            2 + 8 + 2 + 2 + 1 + 2,
            "{}",
            report.table()
        );
        let kernels: Vec<&str> = report
            .rows
            .iter()
            .filter(|r| r.is_kernel())
            .map(|r| r.implementation.as_str())
            .collect();
        assert_eq!(
            kernels,
            [
                "sum_naive",
                "sum_atomic",
                "sum_tree_interleaved",
                "sum_tree_strided_index",
                "sum_tree_sequential",
                "sum_coarsened",
                "sum_warp_shuffle",
                "sum_fastest_u32",
                "sum_fastest_f32"
            ]
        );
        assert!(report.rows.iter().all(|r| r.pct_read_bw.is_some()));
        assert_eq!(
            report.header.targets.len(),
            2,
            "{:?}",
            report.header.targets
        );
        let (csv, _) = report.write(&dir).unwrap();
        assert!(
            std::fs::read_to_string(csv)
                .unwrap()
                .contains("sum_fastest_f32,10.9,uniform,f32,1,16384,")
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A wrong `u32` sum and an `f32` sum past its order's bound are caught; one within
    /// it passes.
    #[test]
    fn sums_are_checked() {
        assert!(Expected::U32(7).check(7.0, 0).is_none());
        assert!(Expected::U32(7).check(6.0, 0).is_some());
        let f = Expected::F32 {
            exact: 1000.0,
            mass: 1000.0,
            n: 1 << 20,
        };
        // Depth 20: a bound of 20 * 2^-24 * 1000 = 1.19e-3.
        assert!(f.check(1000.0 + 1e-3, 20).is_none());
        assert!(f.check(1000.0 + 2e-3, 20).is_some());
        // The loose depth of 2^20 elements, 1088: a bound of 0.065.
        assert!(f.check(1000.06, f.loose_depth()).is_none());
        assert!(f.check(1000.07, f.loose_depth()).is_some());
    }
}
