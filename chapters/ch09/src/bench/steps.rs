//! The kernels the bench launches, as the progression launches them: the byte steps, the
//! variant, extension and strategy sweeps, and the `u32` steps, each with its grid.

use super::*;

/// One GPU kernel of the progression, as the bench launches it ([`::bench::steps::Step`]).
pub type Step = ::bench::steps::Step<StepKernel>;

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
        FASTEST_SHARED_BYTES,
        FastestPolicy::VECS_PER_THREAD,
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

/// The separator of a same-grid row's name ([`::bench::steps::SAME_GRID`]).
pub use ::bench::steps::SAME_GRID;

/// A byte step's kernel and output length on another launch `shape`, for the same-grid
/// mode ([`::bench::steps::same_grid_steps`]): 9.6's contiguous kernel gets the coarsening
/// that covers `n` bytes on that grid, and 9.4's output holds a copy of the bins per block
/// of that grid.
pub fn retarget(s: &Step, shape: Shape, n: usize) -> (StepKernel, u32) {
    let bins = s.out_len / s.shape.grid.max(1);
    match s.launch {
        StepKernel::BytesWith(k, _) if s.kernel == "histo_coarse_contiguous" => {
            let threads = shape.grid as usize * shape.block as usize;
            (
                StepKernel::BytesWith(k, n.div_ceil(threads).max(1) as u32),
                s.out_len,
            )
        }
        StepKernel::BytesWith(k, b) if s.kernel == "histo_private_global" => {
            (StepKernel::BytesWith(k, b), shape.grid * bins)
        }
        other => (other, s.out_len),
    }
}

/// [`launch::one_wave`] for `kernel` on `n` bytes, at least `vecs_per_thread` vectors per
/// thread; if the device cannot answer the occupancy query, a grid from its thread and
/// shared-memory limits.
pub(super) fn wave(
    dev: &mut Device,
    kernel: &ByteKernel,
    n: usize,
    block: u32,
    shared_bytes: u32,
    vecs_per_thread: u32,
) -> Shape {
    crate::launch::one_wave(dev, kernel, n, block, shared_bytes, vecs_per_thread).unwrap_or_else(
        |_| {
            let props = dev.props();
            let per_sm = props.blocks_per_sm_with_shared(block, shared_bytes);
            Shape {
                grid: fastest_grid_coarsened(props.sm_count, per_sm, block, n, vecs_per_thread),
                block,
                shared_bytes,
            }
        },
    )
}

/// The variant sweep on `n` bytes: 9.9's `histo_fastest` (step `9.9`) at its policy's
/// block and at 256 and 1024 threads, and the designs it was chosen from
/// (`solutions::bench`, step `var`): [`fast_run_length`](solutions::bench::fast_run_length())
/// (the first 9.9), [`fast_popc`](solutions::bench::fast_popc()),
/// [`fast_warp_bins`](solutions::bench::fast_warp_bins()),
/// [`fast_lane_bins`](solutions::bench::fast_lane_bins()),
/// [`fast_bin_columns`](solutions::bench::fast_bin_columns()) (9.9 before it counted byte
/// values) and [`fast_wide_columns`](solutions::bench::fast_wide_columns()), and 9.9 at its policy's block
/// but coarsened otherwise (`histo_fastest/v16`, `/v4`: 16 or 4 vectors per thread, where
/// the policy has 8). Every grid
/// is one wave, sized from the device's occupancy for that kernel, block and shared
/// memory (`wave`).
pub fn variant_steps(dev: &mut Device, n: usize) -> Vec<Step> {
    use solutions::bench as b;
    let bins = U8_BINS;
    let fastest = solutions::ch09::histo_fastest::KERNEL;
    let columns = FASTEST_SHARED_BYTES / 4;
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
        (
            "var",
            "fast_bin_columns",
            b::fast_bin_columns::KERNEL,
            policy,
            bins * solutions::ch09::FastestPolicy::LANE_COPIES,
        ),
        (
            "var",
            "fast_wide_columns",
            b::fast_wide_columns::KERNEL,
            policy,
            2 * columns,
        ),
    ];
    let vecs = FastestPolicy::VECS_PER_THREAD;
    let mut out: Vec<Step> = steps
        .into_iter()
        .map(|(step, name, kernel, block, shared_bins)| Step {
            step,
            kernel: name,
            launch: StepKernel::Bytes(kernel),
            shape: wave(dev, &kernel, n, block, shared_bins * 4, vecs),
            out_len: bins,
        })
        .collect();
    // 9.9 coarsened otherwise: at least 16 (the policy before 2026-11-25) or 4 vectors per
    // thread before the grid stops growing (the policy's 8).
    for (name, vecs) in [("histo_fastest/v16", 16), ("histo_fastest/v4", 4)] {
        out.push(Step {
            step: "9.9",
            kernel: name,
            launch: StepKernel::Bytes(fastest),
            shape: wave(dev, &fastest, n, policy, columns * 4, vecs),
            out_len: bins,
        });
    }
    out
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

/// Threads per block of [`solutions::bench::u32_vectors()`], launched one block per SM:
/// every block zeroes and commits all 4096 bins, so the fewest blocks that fill the SMs
/// commit least; 1024 threads with four 16-byte loads each keep enough bytes in flight.
/// Measured on an H100 against 132x512, 264x512, 264x1024, 528x512 and 1056x256: the
/// best or within 3 % of it from 16 MiB to 1 GiB (notes/limits-h100-2026-11-24.md).
pub const U32_VECTORS_BLOCK: u32 = 1024;

/// Bins of one slice of 9.17's sliced kernels in the bench: 32 768 `u32` counters,
/// 128 KiB of shared memory (opted in), one 1024-thread block per SM; 65 536 bins make
/// two slices, whose blocks read each chunk together (once from DRAM, once from L2).
pub const SLICE_BINS: u32 = 32 * 1024;

/// The `u32` steps on `n` values into `bins` bins: 9.14's global kernel on the
/// progression's resident grid; up to [`MAX_U32_BINS`](solutions::ch09::MAX_U32_BINS)
/// 9.14's shared kernel there too and [`solutions::bench::u32_vectors()`] (9.14 with
/// 9.9's loads), one block per SM; past it, 9.17's `histo_u32_sliced` on the resident grid
/// (slices of the default 48 KiB) and [`solutions::bench::u32_sliced_vectors()`] with
/// slices of at most [`SLICE_BINS`], one 1024-thread block per SM and slice.
pub fn value_steps(k: &Kernels, props: &gpu_host::DeviceProps, n: usize, bins: u32) -> Vec<Step> {
    let resident = Shape::new(device_grid(props, n, BLOCK, COARSEN), BLOCK);
    let step = |step, kernel, launch, shape| Step {
        step,
        kernel,
        launch: StepKernel::Values(launch),
        shape,
        out_len: bins,
    };
    let mut steps = vec![step(
        "9.14",
        "histo_u32_global",
        k.histo_u32_global,
        resident,
    )];
    if bins <= solutions::ch09::MAX_U32_BINS {
        steps.push(step(
            "9.14",
            "histo_u32_shared",
            k.histo_u32_shared,
            resident.with_bins(bins),
        ));
        steps.push(step(
            "9.14",
            "u32_vectors",
            solutions::bench::u32_vectors::KERNEL,
            Shape::new(props.sm_count, U32_VECTORS_BLOCK).with_bins(bins),
        ));
    } else {
        steps.push(step(
            "9.17",
            "histo_u32_sliced",
            k.histo_u32_sliced,
            Shape::sliced(resident.grid, BLOCK, bins, props.shared_bytes_per_block / 4),
        ));
        // As many 1024-thread blocks per SM as its threads and shared memory take.
        let per_sm = props.blocks_per_sm_with_shared(U32_VECTORS_BLOCK, bins.min(SLICE_BINS) * 4);
        steps.push(step(
            "9.17",
            "u32_sliced_vectors",
            solutions::bench::u32_sliced_vectors::KERNEL,
            Shape::sliced(props.sm_count * per_sm, U32_VECTORS_BLOCK, bins, SLICE_BINS),
        ));
    }
    steps
}
