//! Verification by decrementing, CUDA by Example's check:
//! `cargo run -p ch09 -- verify --step 9.5`.
//!
//! A step's kernel counts the input into its bins; then, on the same device and the same
//! bins, [`solutions::verify::histo_decrement()`] subtracts one from the bin of every
//! element. A kernel that counted right leaves every bin at zero. One that did not leaves
//! its error behind, bin by bin: the first bin that is not zero, and by how much (a bin
//! that ends below zero was counted short: updates lost; above zero, counted too often).
//! Only the verdict needs to come back from the GPU, not a second histogram from the CPU.
//!
//! It runs any step whose kernels count bytes or `u32` values into one histogram (9.2 to
//! 9.10, 9.14, 9.15 and 9.17), with the launch the progression gives them, on the
//! progression's input (`--n`, `--bins`, `--input`, ...). 9.1 runs on the host; 9.11 to
//! 9.13 count pixels, weights and pairs into other shapes of bins; 9.16 runs 9.10's and
//! 9.14's kernels (verify those).

use crate::checks::strategy_fits;
use crate::inputs;
use crate::kernels::{ByteKernel, ByteKernelWith, Kernels, Strategy, U32Kernel};
use crate::launch::{self, Shape, coarsened, device_grid, one_per_thread};
use crate::progression::Params;
use chapter::declared::Grid;
use course::Outcome;
use gpu_host::{Device, DeviceBuffer, GlobalSlice, LaunchError};
use solutions::ch09::{REGISTER_BINS, STATIC_BINS};
use solutions::verify::{histo_decrement, histo_decrement_values};

/// Threads per block of the decrementing kernel.
pub const DECREMENT_BLOCK: u32 = 256;

/// The steps this check runs, in order.
pub const STEPS: [&str; 12] = [
    "9.2", "9.3", "9.4", "9.5", "9.6", "9.7", "9.8", "9.9", "9.10", "9.14", "9.15", "9.17",
];

/// What one counting kernel of a step left in its bins after the decrement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Residue {
    /// Bins that are not back at zero.
    pub nonzero: u32,
    /// The first of them: its number and what is left in it, read as a signed count
    /// (below zero: the kernel counted that bin short).
    pub first: Option<(u32, i64)>,
    /// What is left in all the bins together: the counts the kernel lost (below zero) or
    /// added (above).
    pub total: i64,
}

impl Residue {
    /// The residue of bins `left` after the decrement.
    pub fn of(left: &[u32]) -> Residue {
        let signed = |v: u32| v as i32 as i64;
        Residue {
            nonzero: left.iter().filter(|&&v| v != 0).count() as u32,
            first: left
                .iter()
                .position(|&v| v != 0)
                .map(|b| (b as u32, signed(left[b]))),
            total: left.iter().map(|&v| signed(v)).sum(),
        }
    }

    /// Every bin back at zero: the kernel counted right.
    pub fn is_zero(&self) -> bool {
        self.nonzero == 0
    }
}

/// One counting kernel of a step, checked by decrementing.
#[derive(Debug)]
pub struct Verdict {
    /// The kernel, as the progression names it.
    pub kernel: String,
    /// Its bins.
    pub bins: u32,
    /// Its launch.
    pub shape: Shape,
    /// The decrementing kernel's grid (blocks of [`DECREMENT_BLOCK`]).
    pub decrement_grid: u32,
    /// What the bins held after the decrement, or why the check could not run: the
    /// counting kernel failed (not implemented, a fault), or the decrement did.
    pub outcome: Result<Residue, Outcome>,
}

impl Verdict {
    /// Whether the kernel counted right.
    pub fn is_right(&self) -> bool {
        matches!(&self.outcome, Ok(r) if r.is_zero())
    }

    /// What the student reads: the two launches, then the verdict (lines of at most 80
    /// columns, the second and later indented by two spaces).
    pub fn line(&self) -> String {
        let launch = format!(
            "{} <<<{}, {}>>>, then histo_decrement <<<{}, {DECREMENT_BLOCK}>>>",
            self.kernel, self.shape.grid, self.shape.block, self.decrement_grid
        );
        let verdict = match &self.outcome {
            Ok(r) if r.is_zero() => format!("all {} bins back at 0: right", self.bins),
            Ok(r) => {
                let (bin, left) = r.first.unwrap_or((0, 0));
                format!(
                    "bin {bin} left at {left} ({}): WRONG\n{} of {} bins not 0, {} in all",
                    how_far(left),
                    r.nonzero,
                    self.bins,
                    how_far(r.total),
                )
            }
            Err(o) => format!(
                "{}: {}",
                o.status.label(),
                o.reason.lines().next().unwrap_or_default()
            ),
        };
        let text = format!("{launch}\n{verdict}");
        chapter::table::wrap_lines(&text.replace('\n', "\n  "), chapter::table::NOTE_WIDTH)
    }
}

/// `-3` as "3 counts short", `2` as "2 counts too many".
fn how_far(left: i64) -> String {
    let n = left.unsigned_abs();
    let counts = if n == 1 { "count" } else { "counts" };
    match left {
        0 => "none off".into(),
        l if l < 0 => format!("{n} {counts} short"),
        _ => format!("{n} {counts} too many"),
    }
}

/// A counting kernel of a step and its launch.
enum Counting<'a> {
    /// A byte kernel `(data, histo)`: `out_len` counters, the first `bins` the result.
    Bytes(&'a ByteKernel, u32),
    /// A byte kernel `(data, histo, arg)`.
    BytesWith(&'a ByteKernelWith, u32, u32),
    /// A `u32` kernel `(values, histo)`.
    Values(&'a U32Kernel),
}

/// A planned launch: name, bins, shape and kernel.
struct Plan<'a> {
    name: String,
    bins: u32,
    shape: Shape,
    counting: Counting<'a>,
}

/// Why `step` has no check by decrementing, or `None` when it has one.
pub fn unsupported(step: &str) -> Option<String> {
    if STEPS.contains(&step) {
        return None;
    }
    Some(match step {
        "9.1" => {
            "9.1's histogram runs on the host: the progression compares it with the CPU's".into()
        }
        "9.11" | "9.12" | "9.13" => format!(
            "{step} counts pixels, weights or pairs into bins of its own shape; the decrement counts bytes and u32 values"
        ),
        "9.16" => {
            "9.16 runs 9.10's and 9.14's kernels: verify those (--step 9.10, --step 9.14)".into()
        }
        other => format!(
            "no step {other} to verify by decrementing: the steps are {}",
            STEPS.join(", ")
        ),
    })
}

/// The launches of `step` on `n` elements, as the progression makes them.
fn plans<'a>(
    dev: &mut Device,
    k: &'a Kernels,
    step: &str,
    p: &Params,
    n: usize,
) -> Result<Vec<Plan<'a>>, String> {
    if let Some(why) = unsupported(step) {
        return Err(why);
    }
    let (bins, block) = (p.bins, p.block);
    let stride_grid = |dev: &Device| {
        p.grid
            .unwrap_or_else(|| device_grid(dev.props(), n, block, p.coarsen))
    };
    let shared_limit = dev.props().shared_bytes_per_block;
    let fits = |b: u32| strategy_fits(Strategy::Shared, b, shared_limit);
    let no_room = |name: &str| {
        format!(
            "{name}'s {bins} bins do not fit in {} KiB of shared memory",
            shared_limit / 1024
        )
    };
    let plan = |name: &str, bins: u32, shape: Shape, counting: Counting<'a>| Plan {
        name: name.to_string(),
        bins,
        shape,
        counting,
    };
    if let Some(launches) = chapter::declared::launches_of(&crate::LAUNCHES, step) {
        let mut out = Vec::new();
        for l in launches {
            let grid = match l.grid {
                Grid::Stride => stride_grid(dev),
                Grid::OnePerThread => one_per_thread(n, block),
            };
            let mut shape = Shape::new(grid, block);
            if l.shared_bins {
                if !fits(bins) {
                    return Err(no_room(l.kernel));
                }
                shape = shape.with_bins(bins);
            }
            let kernel = k.named(l.kernel);
            let counting = if let Some(kb) = kernel.and_then(|x| x.downcast_ref::<ByteKernel>()) {
                Counting::Bytes(kb, bins)
            } else if let Some(kv) = kernel.and_then(|x| x.downcast_ref::<U32Kernel>()) {
                Counting::Values(kv)
            } else {
                return Err(format!("{}: neither a byte nor a u32 kernel", l.kernel));
            };
            out.push(plan(l.kernel, bins, shape, counting));
        }
        return Ok(out);
    }
    Ok(match step {
        "9.4" => {
            let shape = Shape::new(stride_grid(dev), block);
            let out_len = shape.grid * bins;
            vec![plan(
                "histo_private_global",
                bins,
                shape,
                Counting::BytesWith(&k.histo_private_global, out_len, bins),
            )]
        }
        "9.5" => {
            if !fits(bins) {
                return Err(no_room("histo_private_dynamic"));
            }
            let shape = Shape::new(one_per_thread(n, block), block);
            let mut v = Vec::new();
            if bins <= STATIC_BINS {
                let c = Counting::Bytes(&k.histo_private_shared, bins);
                v.push(plan("histo_private_shared", bins, shape, c));
            }
            let c = Counting::Bytes(&k.histo_private_dynamic, bins);
            v.push(plan(
                "histo_private_dynamic",
                bins,
                shape.with_bins(bins),
                c,
            ));
            v
        }
        "9.6" => {
            if !fits(bins) {
                return Err(no_room("histo_coarse_contiguous"));
            }
            let (grid, c) = match p.grid {
                None => (coarsened(n, block, p.coarsen), p.coarsen),
                Some(g) => (g, (n.div_ceil(g as usize * block as usize)).max(1) as u32),
            };
            let shape = Shape::new(grid, block).with_bins(bins);
            vec![
                plan(
                    &format!("histo_coarse_contiguous (C = {c})"),
                    bins,
                    shape,
                    Counting::BytesWith(&k.histo_coarse_contiguous, bins, c),
                ),
                plan(
                    "histo_coarse_interleaved",
                    bins,
                    shape,
                    Counting::Bytes(&k.histo_coarse_interleaved, bins),
                ),
            ]
        }
        "9.9" => {
            let shape = launch::fastest_shape(dev, &k.histo_fastest, n, block)
                .map_err(|e| e.to_string())?;
            let shape = Shape {
                grid: p.grid.unwrap_or(shape.grid),
                ..shape
            };
            if shape.shared_bytes > dev.props().shared_bytes_per_block_optin {
                return Err(format!(
                    "histo_fastest's lane columns need {} bytes of shared memory; a block may have {}",
                    shape.shared_bytes,
                    dev.props().shared_bytes_per_block_optin
                ));
            }
            let c = Counting::Bytes(&k.histo_fastest, bins);
            vec![plan("histo_fastest", bins, shape, c)]
        }
        "9.10" => {
            let b = bins.min(REGISTER_BINS);
            let shape = Shape::new(stride_grid(dev), block);
            vec![plan(
                "histo_registers",
                b,
                shape,
                Counting::Values(&k.histo_registers),
            )]
        }
        "9.17" => {
            let grid = stride_grid(dev);
            let sliced = Shape::sliced(grid, block, bins, shared_limit / 4);
            vec![
                plan(
                    "histo_u32_global",
                    bins,
                    Shape::new(grid, block),
                    Counting::Values(&k.histo_u32_global),
                ),
                plan(
                    "histo_u32_sliced",
                    bins,
                    sliced,
                    Counting::Values(&k.histo_u32_sliced),
                ),
            ]
        }
        other => return Err(format!("step {other} has no plan (a bug of the chapter)")),
    })
}

/// Runs `step`'s counting kernels of `k` on `dev` with the progression's parameters `p`,
/// each followed by the decrement on its bins. An error (one line) when the step has no
/// such check or its bins do not fit.
pub fn run(dev: &mut Device, k: &Kernels, step: &str, p: &Params) -> Result<Vec<Verdict>, String> {
    let n = p.elements();
    let plans = plans(dev, k, step, p, n)?;
    let mut bytes: Option<Vec<u8>> = None;
    let mut out = Vec::new();
    for plan in plans {
        let decrement_grid = device_grid(dev.props(), n, DECREMENT_BLOCK, p.coarsen);
        let dec = Shape::new(decrement_grid, DECREMENT_BLOCK).config();
        let outcome = match plan.counting {
            Counting::Values(kernel) => {
                let values = inputs::values(&p.input, n, plan.bins, p.seed);
                count_then_decrement(dev, &values, plan.bins, plan.bins, |dev, d, h| {
                    dev.launch(kernel, plan.shape.config(), (d, h))?;
                    dev.launch(
                        &histo_decrement_values::KERNEL,
                        dec,
                        (d, h.prefix(plan.bins)),
                    )
                })
            }
            Counting::Bytes(kernel, out_len) => {
                let data = bytes.get_or_insert_with(|| inputs::bytes(&p.input, n, p.seed));
                count_then_decrement(dev, data, out_len, plan.bins, |dev, d, h| {
                    dev.launch(kernel, plan.shape.config(), (d, h))?;
                    dev.launch(&histo_decrement::KERNEL, dec, (d, h.prefix(plan.bins)))
                })
            }
            Counting::BytesWith(kernel, out_len, arg) => {
                let data = bytes.get_or_insert_with(|| inputs::bytes(&p.input, n, p.seed));
                count_then_decrement(dev, data, out_len, plan.bins, |dev, d, h| {
                    dev.launch(kernel, plan.shape.config(), (d, h, arg))?;
                    dev.launch(&histo_decrement::KERNEL, dec, (d, h.prefix(plan.bins)))
                })
            }
        };
        out.push(Verdict {
            kernel: plan.name,
            bins: plan.bins,
            shape: plan.shape,
            decrement_grid,
            outcome: outcome.map_err(|e| Outcome::from_launch_error(&e)),
        });
    }
    Ok(out)
}

/// Uploads `data`, zeroes `out_len` counters, runs `launches` (the count, then the
/// decrement) on them, and reads back the first `bins`; frees both buffers either way.
fn count_then_decrement<T: gpu_host::DeviceValue>(
    dev: &mut Device,
    data: &[T],
    out_len: u32,
    bins: u32,
    launches: impl FnOnce(
        &mut Device,
        GlobalSlice<T>,
        GlobalSlice<u32>,
    ) -> Result<gpu_host::LaunchReport, LaunchError>,
) -> Result<Residue, LaunchError> {
    let d = dev.upload(data)?;
    let h: DeviceBuffer<u32> = match dev.alloc(out_len as usize) {
        Ok(h) => h,
        Err(e) => {
            let _ = dev.free(d);
            return Err(e);
        }
    };
    let ran = launches(dev, d.slice(), h.slice());
    let left = ran.and_then(|_| dev.download(&h));
    let _ = dev.free(d);
    let _ = dev.free(h);
    let left = left?;
    Ok(Residue::of(&left[..(bins as usize).min(left.len())]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn residues_read_as_signed_counts() {
        let r = Residue::of(&[0, 0, u32::MAX - 2, 5, 0]);
        assert_eq!(r.nonzero, 2);
        assert_eq!(r.first, Some((2, -3)));
        assert_eq!(r.total, 2);
        assert!(Residue::of(&[0; 8]).is_zero());
        assert_eq!(how_far(-3), "3 counts short");
        assert_eq!(how_far(1), "1 count too many");
    }

    #[test]
    fn every_step_is_verified_or_says_why_not() {
        for step in crate::progression::STEPS {
            let why = unsupported(step);
            assert_eq!(why.is_none(), STEPS.contains(&step), "{step}: {why:?}");
        }
        assert!(unsupported("9.99").unwrap().contains("9.2, 9.3"));
    }
}
