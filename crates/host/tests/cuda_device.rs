//! The `cuda` backend on this machine's real GPU, or, without one, the single clear error.
//!
//! Without a driver or GPU (CI, laptops) the GPU checks are skipped with a printed note;
//! `no_device_is_one_clear_error` checks what a student sees instead. With a GPU, the
//! `api-probe` kernels run from `target/ptx/api-probe.ptx` (build it with
//! `cargo run -p ptx-builder -- api-probe`; `GPU_HOST_PTX_DIR` names another directory)
//! and must give the emulator's results bit for bit. The `cuda_smoke` example checks more.
#![cfg(feature = "cuda")]

use api_probe::{INDEX_FIELDS, SHARED_FIELDS, index_probe, shared_probe};
use gpu_host::{Device, LaunchConfig, LaunchError};
use std::io::Write;
use std::path::PathBuf;

/// Prints past the test harness's output capture, so the note shows in a plain
/// `cargo test` run (a skipped GPU check should be visible, not silent).
fn note(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "note: {text}");
}

fn gpu_or_note(test: &str) -> Option<Device> {
    if Device::cuda_device_count() == 0 {
        note(&format!(
            "{test}: no CUDA device here, GPU check skipped (the emulator tests still ran)"
        ));
        return None;
    }
    match Device::cuda() {
        Ok(d) => Some(d),
        Err(e) => panic!("a CUDA device is counted but cannot be opened: {e}"),
    }
}

fn api_probe_ptx(test: &str) -> Option<String> {
    let dir = std::env::var_os("GPU_HOST_PTX_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/ptx"));
    let path = dir.join("api-probe.ptx");
    match std::fs::read_to_string(&path) {
        Ok(t) => Some(t),
        Err(e) => {
            note(&format!(
                "{test}: {} not readable ({e}), GPU check skipped; build it with `cargo run -p ptx-builder -- api-probe`",
                path.display()
            ));
            None
        }
    }
}

#[test]
fn no_device_is_one_clear_error() {
    if Device::cuda_device_count() > 0 {
        note("no_device_is_one_clear_error: this machine has a CUDA device, skipped");
        return;
    }
    match Device::cuda() {
        Err(e @ LaunchError::NoDevice { .. }) => {
            let m = e.to_string();
            assert!(m.starts_with("no CUDA device: "), "{m}");
            assert!(m.contains("Device::emulator()"), "{m}");
            assert_eq!(e.kind(), "no CUDA device");
        }
        other => panic!("expected LaunchError::NoDevice, got {other:?}"),
    }
    // Asking again gives the same answer (the failed load is remembered, not retried).
    assert!(matches!(
        Device::cuda_ordinal(1),
        Err(LaunchError::NoDevice { .. })
    ));
}

/// Runs `index_probe` and `shared_probe` (with an opt-in past 48 KiB) on `dev`.
fn probes(dev: &mut Device) -> Vec<Vec<u32>> {
    let threads = 2 * 3 * 2 * 4 * 3 * 2;
    let out = dev.alloc::<u32>(threads * INDEX_FIELDS as usize).unwrap();
    dev.launch(
        &index_probe::KERNEL,
        LaunchConfig::dims((2, 3, 2), (4, 3, 2)),
        (out.slice(),),
    )
    .unwrap();
    let shared = dev.alloc::<u32>(64 * SHARED_FIELDS as usize).unwrap();
    let dynamic = 64 * 1024;
    let cfg = LaunchConfig::linear(1, 64)
        .with_shared(dynamic)
        .with_max_shared(dynamic + shared_probe::KERNEL.static_shared_bytes);
    dev.launch(&shared_probe::KERNEL, cfg, (shared.slice(),))
        .unwrap();
    vec![dev.download(&out).unwrap(), dev.download(&shared).unwrap()]
}

#[test]
fn api_probe_on_the_gpu_matches_the_emulator() {
    let test = "api_probe_on_the_gpu_matches_the_emulator";
    let Some(mut gpu) = gpu_or_note(test) else {
        return;
    };
    let Some(ptx) = api_probe_ptx(test) else {
        return;
    };
    gpu.load_ptx("api-probe", &ptx).unwrap();
    let got = probes(&mut gpu);
    let want = probes(&mut Device::emulator());
    assert_eq!(got, want, "GPU ({}) vs emulator", gpu.props().name);
}
