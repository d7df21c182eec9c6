//! 1-, 2- and 3-D grids and blocks, blocks whose size is not a multiple of 32 (threads
//! are numbered x fastest and cut into warps of 32 in that order), and invalid launch
//! configurations rejected with CUDA's wording before anything runs.

mod common;

use common::{device, emu};
use gpu::prelude::*;
use gpu_host::{LaunchConfig, LaunchError};
use simt::LaunchSpec;

/// Fields each thread writes.
const F: u32 = 9;

/// Each thread writes what it knows about itself, at its global linear index.
#[kernel]
fn whoami(out: GlobalSlice<u32>) {
    let (x, y, z) = thread::index_3d();
    let (gx, gy) = (
        thread::grid_dim_x() * thread::block_dim_x(),
        thread::grid_dim_y() * thread::block_dim_y(),
    );
    let i = x + gx * (y + gy * z);
    let r = [
        thread::thread_idx_x(),
        thread::thread_idx_y(),
        thread::thread_idx_z(),
        thread::block_idx_x(),
        thread::block_idx_y(),
        thread::block_idx_z(),
        thread::thread_idx_linear(),
        warp::lane_id(),
        warp::activemask(),
    ];
    for (k, v) in r.iter().enumerate() {
        out.store(i * F + k as u32, *v);
    }
}

fn check(grid: (u32, u32, u32), block: (u32, u32, u32)) {
    let cfg = LaunchConfig::dims(grid, block);
    let threads = cfg.threads_per_block() as u32;
    let n = (cfg.blocks() as u32) * threads;
    let mut dev = device();
    let out = dev.alloc::<u32>((n * F) as usize).unwrap();
    let r = dev.launch(&whoami::KERNEL, cfg, (out.slice(),)).unwrap();
    let out = dev.download(&out).unwrap();
    let warps = threads.div_ceil(32);
    let (gx, gy) = (grid.0 * block.0, grid.1 * block.1);
    let mut seen = vec![false; n as usize];
    for bz in 0..grid.2 {
        for by in 0..grid.1 {
            for bx in 0..grid.0 {
                for tz in 0..block.2 {
                    for ty in 0..block.1 {
                        for tx in 0..block.0 {
                            let (x, y, z) =
                                (bx * block.0 + tx, by * block.1 + ty, bz * block.2 + tz);
                            let i = x + gx * (y + gy * z);
                            seen[i as usize] = true;
                            let linear = tx + block.0 * (ty + block.1 * tz);
                            let warp = linear / 32;
                            // The last warp of a block holds the remainder.
                            let lanes = (threads - warp * 32).min(32);
                            let mask = if lanes == 32 {
                                u32::MAX
                            } else {
                                (1 << lanes) - 1
                            };
                            let want = [tx, ty, tz, bx, by, bz, linear, linear % 32, mask];
                            let at = (i * F) as usize;
                            assert_eq!(out[at..at + F as usize], want, "{cfg:?}: thread {i}");
                        }
                    }
                }
            }
        }
    }
    assert!(seen.iter().all(|&s| s), "every global index written once");
    let e = emu(&r);
    assert_eq!(e.blocks, cfg.blocks());
    assert_eq!(e.threads, n as u64);
    // One activemask and 9 stores per warp.
    assert_eq!(
        e.counters.warp_instructions,
        cfg.blocks() * warps as u64 * 10
    );
    assert_eq!(
        e.counters.global_store_requests,
        cfg.blocks() * warps as u64 * 9
    );
    assert!(e.findings.is_empty(), "{:#?}", e.findings);
}

#[test]
fn one_dimensional_with_a_block_of_50() {
    check((3, 1, 1), (50, 1, 1));
}

#[test]
fn two_dimensional_with_a_block_of_7x5() {
    check((2, 3, 1), (7, 5, 1));
}

#[test]
fn three_dimensional_with_a_block_of_5x3x2() {
    check((2, 2, 3), (5, 3, 2));
}

#[test]
fn three_dimensional_with_full_warps() {
    check((1, 1, 2), (4, 4, 4));
}

#[test]
fn the_largest_block() {
    check((1, 1, 1), (32, 32, 1));
}

#[test]
fn invalid_configurations_are_rejected_with_cudas_words() {
    let spec = |grid: [u32; 3], block: [u32; 3], shared: u32| LaunchSpec {
        grid,
        block,
        shared_bytes: shared,
        max_shared_bytes: simt::hardware::DEFAULT_SHARED_LIMIT,
    };
    let config = |m: &str| LaunchError::InvalidConfig {
        cuda_error: "cudaErrorInvalidConfiguration",
        message: format!("invalid configuration argument: {m}"),
    };
    let cases = [
        (
            spec([1, 1, 1], [0, 1, 1], 0),
            config("blockDim (0,1,1) has a zero dimension; a block needs at least one thread"),
        ),
        (
            spec([1, 0, 1], [32, 1, 1], 0),
            config("gridDim (1,0,1) has a zero dimension; a grid needs at least one block"),
        ),
        (
            spec([1, 1, 1], [1025, 1, 1], 0),
            config("blockDim (1025,1,1) exceeds the per-dimension limits (1024, 1024, 64)"),
        ),
        (
            spec([1, 1, 1], [1, 1, 65], 0),
            config("blockDim (1,1,65) exceeds the per-dimension limits (1024, 1024, 64)"),
        ),
        (
            spec([1, 1, 1], [32, 33, 1], 0),
            config("blockDim (32,33,1) has 1056 threads; a block holds at most 1024"),
        ),
        (
            spec([1 << 31, 1, 1], [32, 1, 1], 0),
            config("gridDim (2147483648,1,1) exceeds the limits (2147483647, 65535, 65535)"),
        ),
        (
            spec([1, 65536, 1], [32, 1, 1], 0),
            config("gridDim (1,65536,1) exceeds the limits (2147483647, 65535, 65535)"),
        ),
        (
            spec([1, 1, 65536], [32, 1, 1], 0),
            config("gridDim (1,1,65536) exceeds the limits (2147483647, 65535, 65535)"),
        ),
        (
            spec([1, 1, 1], [32, 1, 1], 48 * 1024 + 1),
            LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: "invalid argument: 49153 bytes of shared memory per block requested, more than the \
                          49152 allowed without opting in (cudaFuncAttributeMaxDynamicSharedMemorySize)"
                    .into(),
            },
        ),
    ];
    for (s, want) in cases {
        assert_eq!(s.validate(), Err(want), "{s:?}");
    }
    // At the limits, and with an opt-in, it is valid.
    assert_eq!(
        spec([i32::MAX as u32, 65535, 65535], [1024, 1, 1], 48 * 1024).validate(),
        Ok(())
    );
    assert_eq!(spec([1, 1, 1], [1, 1024, 1], 0).validate(), Ok(()));
    let opted = LaunchSpec {
        max_shared_bytes: 100 * 1024,
        ..spec([1, 1, 1], [32, 1, 1], 64 * 1024)
    };
    assert_eq!(opted.validate(), Ok(()));

    // Through the host runtime, before anything runs: the kernel never starts.
    let mut dev = device();
    let out = dev.alloc::<u32>(1).unwrap();
    for cfg in [
        LaunchConfig::linear(1, 0),
        LaunchConfig::linear(1, 2048),
        LaunchConfig::dims((1, 70000, 1), (1, 1, 1)),
        LaunchConfig::linear(1, 1).with_shared(64 * 1024),
    ] {
        let e = dev
            .launch(&whoami::KERNEL, cfg, (out.slice(),))
            .unwrap_err();
        assert!(
            matches!(e, LaunchError::InvalidConfig { .. }),
            "{cfg:?}: {e:?}"
        );
        assert!(
            e.to_string().starts_with("invalid launch (cudaError"),
            "{e}"
        );
    }
    assert_eq!(dev.download(&out).unwrap(), vec![0]);
}
