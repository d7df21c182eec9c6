//! The host runtime on the emulator backend: memory, typed launches, reports, and
//! invalid configurations rejected with CUDA's wording.

use gpu::prelude::*;
use gpu_host::{Device, LaunchConfig, LaunchError};

/// `y[i] = a * x[i] + y[i]` for `i < n`.
#[kernel]
fn saxpy(n: u32, a: f32, x: GlobalSlice<f32>, y: GlobalSlice<f32>) {
    let i = thread::index_1d();
    if i < n {
        y.store(i, a * x.load(i) + y.load(i));
    }
}

/// Writes the sum of the block's thread indices, computed through static and dynamic
/// shared memory, to `out[blockIdx.x]`.
#[kernel]
fn block_sum(out: GlobalSlice<u32>) {
    let total = shared_array![u32; 1];
    let scratch = dynamic_shared![u32];
    let t = thread::thread_idx_x();
    if t == 0 {
        total.store(0, 0);
    }
    scratch.store(t, t);
    thread::sync_threads();
    total.atomic_add(0, scratch.load(t));
    thread::sync_threads();
    if t == 0 {
        out.store(thread::block_idx_x(), total.load(0) + scratch.len() * 1000);
    }
}

#[test]
fn upload_launch_download() {
    let mut dev = Device::emulator();
    let n = 100usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let xs = dev.upload(&x).unwrap();
    let ys = dev.alloc::<f32>(n).unwrap();
    dev.fill(&ys, 1.0).unwrap();
    let report = dev
        .launch(
            &saxpy::KERNEL,
            LaunchConfig::linear(4, 32),
            (n as u32, 2.0, xs.slice(), ys.slice()),
        )
        .unwrap();
    let y = dev.download(&ys).unwrap();
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, 2.0 * i as f32 + 1.0);
    }
    let c = report.counters().expect("the emulator counts");
    // 100 elements over 4 warps-worth of blocks of 32: 4 warps, each 3 memory instructions
    // (load x, load y, store y), except the last block's warp with no element in range.
    assert_eq!(c.global_store_requests, 4);
    assert_eq!(c.global_load_requests, 8);
    assert!(report.findings().is_empty());
    assert_eq!(report.gpu_time, None);
}

#[test]
fn static_and_dynamic_shared_memory_are_laid_out_by_the_kernel() {
    assert_eq!(
        block_sum::STATIC_SHARED_BYTES,
        16,
        "one u32, rounded up to 16 bytes"
    );
    let mut dev = Device::emulator();
    let out = dev.alloc::<u32>(2).unwrap();
    dev.launch(
        &block_sum::KERNEL,
        LaunchConfig::linear(2, 64).with_shared(64 * 4),
        (out.slice(),),
    )
    .unwrap();
    let got = dev.download(&out).unwrap();
    let sum: u32 = (0..64).sum();
    assert_eq!(got, vec![sum + 64 * 1000; 2]);
}

#[test]
fn invalid_configurations_use_cudas_words() {
    let mut dev = Device::emulator();
    let out = dev.alloc::<u32>(1).unwrap();
    let cases = [
        (
            LaunchConfig::linear(1, 0),
            "cudaErrorInvalidConfiguration",
            "zero dimension",
        ),
        (
            LaunchConfig::linear(0, 32),
            "cudaErrorInvalidConfiguration",
            "zero dimension",
        ),
        (
            LaunchConfig::linear(1, 1025),
            "cudaErrorInvalidConfiguration",
            "per-dimension limits",
        ),
        (
            LaunchConfig::dims((1, 1, 1), (64, 32, 1)),
            "cudaErrorInvalidConfiguration",
            "at most 1024",
        ),
        (
            LaunchConfig::dims((1, 65536, 1), (32, 1, 1)),
            "cudaErrorInvalidConfiguration",
            "exceeds the limits",
        ),
        (
            LaunchConfig::linear(1, 32).with_shared(48 * 1024),
            "cudaErrorInvalidValue",
            "without opting in",
        ),
        (
            LaunchConfig::linear(1, 32).with_max_shared(300 * 1024),
            "cudaErrorInvalidValue",
            "at most",
        ),
    ];
    for (cfg, code, words) in cases {
        match dev.launch(&block_sum::KERNEL, cfg, (out.slice(),)) {
            Err(e @ LaunchError::InvalidConfig { cuda_error, .. }) => {
                assert_eq!(cuda_error, code, "{cfg:?}");
                assert!(e.to_string().contains(words), "{cfg:?}: {e}");
            }
            other => panic!("{cfg:?} should be rejected, got {other:?}"),
        }
    }
    // Opting in lifts the 48 KiB limit.
    let ok = LaunchConfig::linear(1, 32)
        .with_shared(64 * 1024)
        .with_max_shared(100 * 1024);
    dev.launch(&block_sum::KERNEL, ok, (out.slice(),)).unwrap();
}

#[test]
fn buffers_are_checked() {
    let mut a = Device::emulator();
    let mut b = Device::emulator();
    let buf = a.alloc::<u32>(4).unwrap();
    assert!(
        b.download(&buf)
            .unwrap_err()
            .to_string()
            .contains("another device")
    );
    assert!(
        a.copy_to_device(&buf, &[1, 2, 3])
            .unwrap_err()
            .to_string()
            .contains("3 elements into a buffer of 4")
    );
    a.copy_to_device(&buf, &[1, 2, 3, 4]).unwrap();
    assert_eq!(a.download(&buf).unwrap(), vec![1, 2, 3, 4]);
    a.free(buf).unwrap();
}

#[test]
fn a_kernel_called_outside_a_launch_says_so() {
    let r = std::panic::catch_unwind(|| {
        saxpy(
            0,
            1.0,
            unsafe { GlobalSlice::from_raw_parts(0, 0) },
            unsafe { GlobalSlice::from_raw_parts(0, 0) },
        )
    });
    let payload = r.unwrap_err();
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(msg.contains("outside a kernel launch"), "{msg}");
}

#[test]
fn benchmark_helpers_reset_and_copy() {
    let mut dev = Device::emulator();
    // `saxpy` with a = 1 and x = 1 adds 1 to y: an accumulating kernel. Zeroed before
    // each of the 2 + 3 launches, y ends at one launch's result.
    let x = dev.upload(&[1.0f32; 40]).unwrap();
    let y = dev.upload(&[7.0f32; 40]).unwrap();
    let times = dev
        .time_launches_zeroed(
            &saxpy::KERNEL,
            LaunchConfig::linear(2, 32),
            (40, 1.0, x.slice(), y.slice()),
            &y,
            2,
            3,
        )
        .unwrap();
    assert_eq!(times.len(), 3);
    assert_eq!(dev.download(&y).unwrap(), vec![1.0; 40]);
    // Copies between buffers of one device, of the same length only.
    dev.copy_device_to_device(&y, &x).unwrap();
    assert_eq!(dev.download(&y).unwrap(), vec![1.0; 40]);
    assert_eq!(dev.time_device_copies(&x, &y, 1, 2).unwrap().len(), 2);
    let short = dev.alloc::<f32>(3).unwrap();
    let e = dev.copy_device_to_device(&short, &x).unwrap_err();
    assert!(
        e.to_string()
            .contains("copy of 40 elements into a buffer of 3"),
        "{e}"
    );
    let mut other = Device::emulator();
    let foreign = other.alloc::<f32>(40).unwrap();
    assert!(dev.copy_device_to_device(&foreign, &x).is_err());
}

#[test]
fn occupancy_counts_threads_and_shared_memory() {
    let mut dev = Device::emulator();
    let props = dev.props().clone();
    // Threads alone: 2048 per SM.
    assert_eq!(props.blocks_per_sm_with_shared(256, 0), 8);
    // 32 KiB (+ 1 KiB reserved) per block: 228 KiB hold 6, fewer than the 8 by threads.
    assert_eq!(props.blocks_per_sm_with_shared(256, 32 * 1024), 6);
    assert_eq!(props.blocks_per_sm_with_shared(1024, 32 * 1024), 2);
    // A block too big for one SM still counts as one (the launch decides if it runs).
    assert_eq!(props.blocks_per_sm_with_shared(256, 300 * 1024), 1);
    // The device's query adds the kernel's static shared memory (4 bytes here) to the
    // launch's dynamic shared memory: 8 blocks by threads, then 6 by 33 KiB + 4 bytes.
    let cfg = LaunchConfig::linear(1, 256);
    assert_eq!(
        dev.max_active_blocks_per_sm(&block_sum::KERNEL, cfg)
            .unwrap(),
        8
    );
    let cfg = LaunchConfig::linear(1, 256).with_shared(32 * 1024);
    assert_eq!(
        dev.max_active_blocks_per_sm(&block_sum::KERNEL, cfg)
            .unwrap(),
        6
    );
    let cfg = LaunchConfig::linear(1, 256).with_shared(45 * 1024);
    assert_eq!(
        dev.max_active_blocks_per_sm(&block_sum::KERNEL, cfg)
            .unwrap(),
        4
    );
    // An invalid configuration is the launch's error, not an answer.
    let cfg = LaunchConfig::linear(1, 2048);
    assert!(matches!(
        dev.max_active_blocks_per_sm(&block_sum::KERNEL, cfg),
        Err(LaunchError::InvalidConfig { .. })
    ));
}
