//! 5.1 to 5.3: from the loop to a kernel, indices in 1, 2 and 3 dimensions, and the
//! grid-stride loop.

use super::{Checked, Ctx, counters};
use crate::inputs::{random_len, values};
use crate::launch::{self, one_per_thread};
use crate::reference::{self, Access};
use chapter::checking::exactly;
use course::words::count;
use course::{Outcome, Status, catch_host};
use gpu_host::LaunchConfig;
use solutions::ch05::{BLOCKS_PER_SM, SPMD_HALF, SPMD_N, UNWRITTEN};

/// Values of the 5.1/5.3 inputs stay below this: products below 2^32, so a wrong element
/// is a wrong value.
const VALUE_LIMIT: u32 = 1 << 15;

/// The hint a missing bounds guard gets.
const GUARD: &str = "the length is not a multiple of the block: the threads past the end \
                     must not touch the arrays (`if i < a.len()`)";

/// Store and load requests of a `mul` run must match the model `expected`: one load of
/// `b`, one of `c` and one store of `a` per warp and round with elements.
fn mul_technique(
    ctx: &Ctx,
    case: &str,
    run: &launch::Run,
    expected: Access,
) -> Result<(), Outcome> {
    let Some(c) = counters(run) else {
        return Ok(());
    };
    if c.global_store_requests != expected.requests || c.global_store_sectors != expected.sectors {
        return Err(ctx
            .technique(
                case,
                format!(
                    "{} touching {}, where one store per element from consecutive threads \
                     makes {} and {}",
                    count(c.global_store_requests, "store request"),
                    count(c.global_store_sectors, "sector"),
                    count(expected.requests, "request"),
                    count(expected.sectors, "sector")
                ),
            )
            .detail("each element must be written once, by the thread that owns it"));
    }
    if c.global_load_requests != 2 * expected.requests
        || c.global_load_sectors != 2 * expected.sectors
    {
        return Err(ctx.technique(
            case,
            format!(
                "{} touching {}, where one load of b[i] and one of c[i] per element make {} \
                 and {}",
                count(c.global_load_requests, "load request"),
                count(c.global_load_sectors, "sector"),
                count(2 * expected.requests, "request"),
                count(2 * expected.sectors, "sector")
            ),
        ));
    }
    Ok(())
}

/// 5.1: `mul_one_block` on one block of 128 (and of 64), `mul_blocks` on two blocks of 64
/// and on lengths that are not a multiple of the block.
pub(super) fn check_5_1(ctx: &mut Ctx) -> Checked {
    let seed = ctx.seed;
    for (n, case) in [
        (SPMD_N as usize, "n = 128, <<<1, 128>>>"),
        (64, "n = 64, <<<1, 64>>>"),
    ] {
        let b = values(n, VALUE_LIMIT, seed);
        let c = values(n, VALUE_LIMIT, seed + 1);
        let cfg = LaunchConfig::linear(1, n as u32);
        let run = launch::mul(ctx.dev, &ctx.k.mul_one_block, &b, &c, cfg);
        let run = ctx.verify_output(case, run, "a[]", &reference::mul(&b, &c), "", exactly)?;
        mul_technique(
            ctx,
            case,
            &run,
            reference::one_per_thread(1, n as u32, n as u64, 4),
        )?;
    }
    let random = random_len(3000, seed);
    let mut cases = vec![
        (SPMD_N as usize, SPMD_HALF),
        (course::draw::n(100), 64),
        (1, 64),
        (0, 64),
        (129, 64),
        (65, 96),
    ];
    cases.push((random, 128));
    for (n, block) in cases {
        let grid = one_per_thread(n, block);
        let case = format!("mul_blocks, n = {n}, <<<{grid}, {block}>>>");
        let b = values(n, VALUE_LIMIT, seed + n as u64);
        let c = values(n, VALUE_LIMIT, seed + 7 * n as u64);
        let cfg = LaunchConfig::linear(grid, block);
        let run = launch::mul(ctx.dev, &ctx.k.mul_blocks, &b, &c, cfg);
        let guard = if n % block as usize != 0 { GUARD } else { "" };
        let run = ctx.verify_output(&case, run, "a[]", &reference::mul(&b, &c), guard, exactly)?;
        mul_technique(
            ctx,
            &case,
            &run,
            reference::one_per_thread(grid, block, n as u64, 4),
        )?;
    }
    Ok(format!(
        "one block of 128 and two of 64 compute a = b * c; lengths 0, 1, 65, {}, 129 and {random} \
         are guarded; one load of b and c and one store of a per element{}",
        course::draw::n(100),
        ctx.technique_note()
    ))
}

/// The first wrong element of a coordinate output, described with its coordinates.
fn first_wrong(expected: &[u32], got: &[u32], unpack: impl Fn(u32) -> String) -> Option<String> {
    let i = (0..expected.len()).find(|&i| expected[i] != got[i])?;
    let wrong = (0..expected.len())
        .filter(|&i| expected[i] != got[i])
        .count();
    let what = if got[i] == UNWRITTEN {
        "no thread wrote it".to_string()
    } else {
        format!("it holds the coordinates of thread {}", unpack(got[i]))
    };
    Some(format!(
        "{wrong} of {} elements are wrong; the first, element {i}, should hold {}, but {what}",
        expected.len(),
        unpack(expected[i])
    ))
}

/// 5.2: every element of 2-D and 3-D launches of several non-square shapes holds its own
/// coordinates, and each thread stores once.
pub(super) fn check_5_2(ctx: &mut Ctx) -> Checked {
    let mut rng = course::Rng::new(ctx.seed);
    let random_2d = (
        (1 + rng.below(4) as u32, 1 + rng.below(4) as u32),
        (8 * (1 + rng.below(4) as u32), 1 + rng.below(6) as u32),
    );
    let shapes_2d = [
        ((3, 2), (32, 4)),
        ((1, 5), (16, 2)),
        ((2, 3), (8, 8)),
        random_2d,
    ];
    let unpack2 = |v: u32| format!("({}, {})", v & 0xffff, v >> 16);
    for (grid, block) in shapes_2d {
        let case = format!(
            "write_coords_2d <<<({}, {}), ({}, {})>>>",
            grid.0, grid.1, block.0, block.1
        );
        let cfg = LaunchConfig::dims((grid.0, grid.1, 1), (block.0, block.1, 1));
        let run = launch::coords(ctx.dev, &ctx.k.write_coords_2d, cfg);
        let oob = "is the row length grid_dim_x * block_dim_x, and is x the column?";
        let run = run.map_err(|e| ctx.launch_error(&case, &e, oob))?;
        let expected = reference::coords_2d(grid, block);
        // Before the race a row length other than the grid's width makes (two threads
        // on one element): every written element is then where that row length puts it.
        let width = grid.0 * block.0;
        if run.out != expected
            && let Some(row) = row_length_used(&run.out)
            && row != width
        {
            return Err(ctx.on(&case)(
                Outcome::failed(
                    crate::failures::ROW_LENGTH,
                    format!(
                        "every written element (x, y) is at {row} * y + x: rows of {row} \
                         elements, but the grid is {width} threads wide"
                    ),
                )
                .detail(format!(
                    "the grid's width in threads: {} blocks of {} threads in x",
                    grid.0, block.0
                )),
            ));
        }
        if let Some(out) = course::findings_outcome(run.report.findings()) {
            return Err(ctx.on(&case)(out));
        }
        if let Some(why) = first_wrong(&expected, &run.out, unpack2) {
            return Err(ctx.on(&case)(
                Outcome::fail(Status::WrongResult, why).detail(
                    "element (x, y) is at (grid_dim_x * block_dim_x) * y + x: x varies fastest; \
                 a transposed index or a row length taken from y shows on a non-square grid",
                ),
            ));
        }
        stores_once(ctx, &case, &run)?;
    }
    let unpack3 = |v: u32| format!("({}, {}, {})", v & 0x3ff, (v >> 10) & 0x3ff, v >> 20);
    for (grid, block) in [
        ((2, 2, 2), (8, 4, 2)),
        ((1, 3, 2), (32, 1, 3)),
        ((3, 1, 1), (4, 2, 5)),
    ] {
        let case = format!(
            "write_coords_3d <<<({}, {}, {}), ({}, {}, {})>>>",
            grid.0, grid.1, grid.2, block.0, block.1, block.2
        );
        let cfg = LaunchConfig::dims(grid, block);
        let run = launch::coords(ctx.dev, &ctx.k.write_coords_3d, cfg);
        let run = ctx.launched(
            &case,
            run,
            "width = grid_dim_x * block_dim_x, height = grid_dim_y * block_dim_y",
        )?;
        let expected = reference::coords_3d(grid, block);
        if let Some(why) = first_wrong(&expected, &run.out, unpack3) {
            return Err(ctx.on(&case)(
                Outcome::fail(Status::WrongResult, why)
                    .detail("element (x, y, z) is at (height * z + y) * width + x"),
            ));
        }
        stores_once(ctx, &case, &run)?;
    }
    Ok(format!(
        "every element of four 2-D and three 3-D grids (non-square, {}x{} threads at random) \
         holds its own coordinates, one store per thread{}",
        random_2d.0.0 * random_2d.1.0,
        random_2d.0.1 * random_2d.1.1,
        ctx.technique_note()
    ))
}

/// The row length a 2-D coordinate output was written with, if one explains every
/// written element: element `i` holding `(x, y)` with `y > 0` gives `(i - x) / y`, and
/// every element must agree (`None` when they do not, or no row but the first is written).
fn row_length_used(got: &[u32]) -> Option<u32> {
    let mut row = None;
    for (i, &v) in got.iter().enumerate() {
        if v == UNWRITTEN {
            continue;
        }
        let (x, y, i) = (v & 0xffff, v >> 16, i as u32);
        if y == 0 {
            if i != x {
                return None;
            }
            continue;
        }
        if i < x || (i - x) % y != 0 {
            return None;
        }
        let r = (i - x) / y;
        if *row.get_or_insert(r) != r {
            return None;
        }
    }
    row
}

/// One store instruction per warp: each thread stores its element once.
fn stores_once(ctx: &Ctx, case: &str, run: &launch::Run) -> Result<(), Outcome> {
    let Some(c) = counters(run) else {
        return Ok(());
    };
    let warps = run.grid as u64 * (run.block as u64).div_ceil(32);
    if c.global_store_requests != warps {
        return Err(ctx.technique(
            case,
            format!(
                "{} for {}: each thread should store its own element exactly once",
                count(c.global_store_requests, "store request"),
                count(warps, "warp")
            ),
        ));
    }
    Ok(())
}

/// 5.3: `stride_grid` against the rule, then `mul_grid_stride` on fixed grids far smaller
/// than `n`, with exactly the loads and stores of the grid-stride model.
pub(super) fn check_5_3(ctx: &mut Ctx) -> Checked {
    let grid_fn = ctx.k.stride_grid;
    let cases: [(u32, u32, u32); 6] = [
        (132, 1 << 30, 256),
        (132, 1000, 256),
        (1, 0, 256),
        (80, 20480, 256),
        (16, 100_000, 128),
        (7, 1, 32),
    ];
    // With a private seed, arguments drawn besides the published ones: SMs 1 to 200, n up
    // to 2^31, blocks of whole warps.
    let drawn = course::draw::extra(0x53, 18, 0, u32::MAX as u64);
    let drawn = drawn.chunks(3).map(|c| {
        (
            1 + (c[0] % 200) as u32,
            (c[1] % (1 << 31)) as u32,
            32 * (1 + (c[2] % 32) as u32),
        )
    });
    for (sm, n, block) in cases.into_iter().chain(drawn) {
        let expected = (sm * BLOCKS_PER_SM).min(n.div_ceil(block)).max(1);
        let got = catch_host(|| grid_fn(sm, n, block))?;
        if got != expected {
            return Err(Outcome::failed(
                crate::failures::STRIDE_GRID,
                format!(
                    "stride_grid({sm} SMs, n = {n}, block {block}) = {got}, expected {expected}"
                ),
            )
            .detail(format!(
                "{BLOCKS_PER_SM} blocks per SM, but never more than ceil(n / block) blocks, and at least 1"
            )));
        }
    }
    let seed = ctx.seed;
    let random = random_len(6000, seed);
    let launches: [(usize, u32, u32); 9] = [
        (0, 2, 64),
        (1, 2, 64),
        (31, 2, 64),
        (128, 2, 64),
        (129, 2, 64),
        (course::draw::n(1000), 3, 32),
        (course::draw::n(4097), 2, 128),
        (random, 4, 64),
        (course::draw::n(3000), 1, 1000),
    ];
    for (n, grid, block) in launches {
        let case = format!("mul_grid_stride, n = {n}, <<<{grid}, {block}>>>");
        let b = values(n, VALUE_LIMIT, seed + n as u64);
        let c = values(n, VALUE_LIMIT, seed + 3 * n as u64);
        let run = launch::mul(
            ctx.dev,
            &ctx.k.mul_grid_stride,
            &b,
            &c,
            LaunchConfig::linear(grid, block),
        );
        let run = ctx.verify_output(&case, run, "a[]", &reference::mul(&b, &c), GUARD, exactly)?;
        mul_technique(
            ctx,
            &case,
            &run,
            reference::grid_stride(grid, block, n as u64, 4),
        )?;
    }
    Ok(format!(
        "stride_grid follows the rule; lengths 0 to 4097 and {random} on grids of 32 to 1000 \
         threads are right, each round of a warp reading 32 consecutive elements{}",
        ctx.technique_note()
    ))
}
