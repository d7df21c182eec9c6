//! Smoke test of the CUDA backend on a real GPU: the `api-probe` kernels, compiled to PTX
//! by rustc's NVPTX backend, launched through the same typed `Device::launch` as on the
//! emulator, with every output compared bit for bit against the emulator's.
//!
//! ```text
//! cargo run -p ptx-builder -- api-probe                      # target/ptx/api-probe.ptx
//! cargo run -p gpu-host --features cuda --example cuda_smoke -- target/ptx/api-probe.ptx
//! ```
//!
//! What it checks, in order: the device's properties; module load; index functions in
//! 3-D, memory of every width, static + dynamic shared memory, every warp intrinsic and
//! the global atomics, each equal to the emulator; a launch past 48 KiB of shared memory
//! with and without opting in; an invalid configuration rejected before the driver with
//! the emulator's words; event timing; and a kernel fault (a store to an unmapped
//! address) reported as `CUDA_ERROR_ILLEGAL_ADDRESS` on a second device, which is then
//! lost, while the first keeps working.
//!
//! Exit status: 0 all good, 1 a check failed (each failure is printed), 2 no CUDA device
//! here (the `NoDevice` message says why).

use api_probe::{
    ATOMIC_BLOCK, ATOMIC_GRID, INDEX_FIELDS, SHARED_FIELDS, WARP_FIELDS, WARP_FIELDS_64,
    WARP_FIELDS_F32, atomics_global_u32, index_probe, memory_probe, shared_probe, slot, warp_probe,
};
use gpu::value::U32x4;
use gpu_host::{Device, DeviceValue, GlobalSlice, LaunchConfig, LaunchError};
use std::process::ExitCode;
use std::time::Duration;

/// One output buffer, as bits, to compare across backends.
type Bits = Vec<u128>;

fn bits<T: DeviceValue>(v: Vec<T>) -> Bits {
    v.into_iter().map(DeviceValue::to_bits).collect()
}

/// Runs one probe on a device: uploads, launches, downloads; returns its outputs.
type Probe = fn(&mut Device) -> Result<Vec<Bits>, LaunchError>;

fn indices(dev: &mut Device) -> Result<Vec<Bits>, LaunchError> {
    let (grid, block) = ((2, 3, 2), (4, 3, 2));
    let threads = 2 * 3 * 2 * 4 * 3 * 2;
    let out = dev.alloc::<u32>(threads * INDEX_FIELDS as usize)?;
    dev.launch(
        &index_probe::KERNEL,
        LaunchConfig::dims(grid, block),
        (out.slice(),),
    )?;
    Ok(vec![bits(dev.download(&out)?)])
}

fn memory(dev: &mut Device) -> Result<Vec<Bits>, LaunchError> {
    let bytes = dev.upload(&(0..64u8).collect::<Vec<_>>())?;
    let rev = dev.alloc::<u8>(64)?;
    let words = dev.alloc::<u32>(16)?;
    let vecs = dev.alloc::<U32x4>(4)?;
    let wide = dev.alloc::<u64>(8)?;
    let xf = dev.upload(&[1.5f32, -2.25, 3.0e-3, 7.0])?;
    let xd = dev.upload(&[1.5f64, -2.25, 3.0e-300])?;
    let meta = dev.alloc::<u32>(6)?;
    dev.launch(
        &memory_probe::KERNEL,
        LaunchConfig::linear(1, 32),
        (
            bytes.slice(),
            rev.slice(),
            words.slice(),
            vecs.slice(),
            wide.slice(),
            xf.slice(),
            xd.slice(),
            meta.slice(),
        ),
    )?;
    Ok(vec![
        bits(dev.download(&rev)?),
        bits(dev.download(&words)?),
        bits(dev.download(&vecs)?),
        bits(dev.download(&wide)?),
        bits(dev.download(&xf)?),
        bits(dev.download(&xd)?),
        bits(dev.download(&meta)?),
    ])
}

fn shared_with(dev: &mut Device, cfg: LaunchConfig) -> Result<Vec<Bits>, LaunchError> {
    let out = dev.alloc::<u32>(64 * SHARED_FIELDS as usize)?;
    dev.launch(&shared_probe::KERNEL, cfg, (out.slice(),))?;
    Ok(vec![bits(dev.download(&out)?)])
}

fn shared(dev: &mut Device) -> Result<Vec<Bits>, LaunchError> {
    shared_with(dev, LaunchConfig::linear(1, 64).with_shared(256))
}

/// 100 KiB of dynamic shared memory: past the 48 KiB default, so the launch opts in.
fn shared_large(dev: &mut Device) -> Result<Vec<Bits>, LaunchError> {
    let dynamic = 100 * 1024;
    let cfg = LaunchConfig::linear(1, 64)
        .with_shared(dynamic)
        .with_max_shared(dynamic + shared_probe::KERNEL.static_shared_bytes);
    shared_with(dev, cfg)
}

fn warps(dev: &mut Device) -> Result<Vec<Bits>, LaunchError> {
    let (blocks, block) = (3u32, 64u32);
    let n = (blocks * block) as usize;
    let out = dev.alloc::<u32>(n * WARP_FIELDS as usize)?;
    let out64 = dev.alloc::<u64>(n * WARP_FIELDS_64 as usize)?;
    let outf = dev.alloc::<f32>(n * WARP_FIELDS_F32 as usize)?;
    dev.launch(
        &warp_probe::KERNEL,
        LaunchConfig::linear(blocks, block),
        (out.slice(), out64.slice(), outf.slice()),
    )?;
    Ok(vec![
        bits(dev.download(&out)?),
        bits(dev.download(&out64)?),
        bits(dev.download(&outf)?),
    ])
}

/// The global atomics. The exchange slot's final value and the old values the exchanges
/// return depend on the order threads arrive in, which differs between the GPU and the
/// emulator's lockstep schedule: those are compared as a multiset (every value that was
/// ever in the slot), the other slots exactly.
fn atomics(dev: &mut Device) -> Result<Vec<Bits>, LaunchError> {
    let init: [u32; 9] = [10, 1000, u32::MAX - 5, 3, 77, 40, u32::MAX, 0, 0x5555_5555];
    let threads = (ATOMIC_GRID * ATOMIC_BLOCK) as usize;
    let a = dev.upload(&init)?;
    let olds = dev.alloc::<u32>(threads)?;
    dev.launch(
        &atomics_global_u32::KERNEL,
        LaunchConfig::linear(ATOMIC_GRID, ATOMIC_BLOCK),
        (a.slice(), olds.slice()),
    )?;
    let mut slots = dev.download(&a)?;
    let mut seen = dev.download(&olds)?;
    seen.push(slots[slot::EXCH as usize]);
    seen.sort_unstable();
    slots[slot::EXCH as usize] = 0;
    Ok(vec![bits(slots), bits(seen)])
}

struct Smoke {
    failures: Vec<String>,
}

impl Smoke {
    fn check(&mut self, what: &str, ok: bool, detail: impl FnOnce() -> String) {
        if ok {
            println!("  ok    {what}");
        } else {
            let d = detail();
            println!("  FAIL  {what}: {d}");
            self.failures.push(format!("{what}: {d}"));
        }
    }

    /// Runs `probe` on both devices and compares every output buffer.
    fn same(&mut self, what: &str, probe: Probe, gpu: &mut Device, emu: &mut Device) {
        let want = probe(emu);
        let got = probe(gpu);
        match (want, got) {
            (Ok(want), Ok(got)) => {
                let first_diff = want.iter().zip(&got).enumerate().find_map(|(b, (w, g))| {
                    if w.len() != g.len() {
                        return Some(format!("buffer {b}: {} vs {} elements", g.len(), w.len()));
                    }
                    let i = w.iter().zip(g).position(|(x, y)| x != y)?;
                    Some(format!(
                        "buffer {b}, element {i}: GPU {:#x}, emulator {:#x}",
                        g[i], w[i]
                    ))
                });
                self.check(
                    &format!("{what}: GPU equals emulator"),
                    first_diff.is_none(),
                    || first_diff.unwrap_or_default(),
                );
            }
            (Err(e), _) => self.check(what, false, || format!("on the emulator: {e}")),
            (_, Err(e)) => self.check(what, false, || format!("on the GPU: {e}")),
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn main() -> ExitCode {
    let ptx_path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/ptx/api-probe.ptx".into());
    if ptx_path == "-h" || ptx_path == "--help" {
        println!("usage: cuda_smoke [API_PROBE.ptx]   (default target/ptx/api-probe.ptx)");
        return ExitCode::SUCCESS;
    }

    let mut gpu = match Device::cuda() {
        Ok(d) => d,
        Err(e @ LaunchError::NoDevice { .. }) => {
            eprintln!("cuda_smoke: {e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("cuda_smoke: could not open the GPU: {e}");
            return ExitCode::FAILURE;
        }
    };
    let p = gpu.props().clone();
    let (major, minor) = gpu.driver_version().unwrap_or_default();
    println!("device: {}", p.name);
    println!(
        "  compute capability {}.{}, {} SMs, warp {}, driver CUDA {major}.{minor}",
        p.compute_capability.0, p.compute_capability.1, p.sm_count, p.warp_size
    );
    println!(
        "  threads: {} per block, {} per SM; shared memory per block: {} B ({} B opt-in); L2 {} B",
        p.max_threads_per_block,
        p.max_threads_per_sm,
        p.shared_bytes_per_block,
        p.shared_bytes_per_block_optin,
        p.l2_bytes
    );

    let ptx = match std::fs::read_to_string(&ptx_path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!(
                "cuda_smoke: cannot read {ptx_path}: {e}\n  build it with: cargo run -p ptx-builder -- api-probe"
            );
            return ExitCode::FAILURE;
        }
    };
    let mut s = Smoke {
        failures: Vec::new(),
    };
    let loaded = gpu.load_ptx("api-probe", &ptx);
    s.check(&format!("load {ptx_path}"), loaded.is_ok(), || {
        loaded
            .as_ref()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    });
    if loaded.is_err() {
        println!("FAILED: the PTX did not load");
        return ExitCode::FAILURE;
    }
    let again = gpu.load_ptx("api-probe", &ptx);
    s.check("the same PTX again is a no-op", again.is_ok(), || {
        format!("{again:?}")
    });

    let mut emu = Device::emulator();
    s.same(
        "index_probe (3-D grid and block)",
        indices,
        &mut gpu,
        &mut emu,
    );
    s.same(
        "memory_probe (u8..u64, f32, f64, U32x4)",
        memory,
        &mut gpu,
        &mut emu,
    );
    s.same(
        "shared_probe (static + 256 B dynamic)",
        shared,
        &mut gpu,
        &mut emu,
    );
    s.same(
        "shared_probe (100 KiB dynamic, opted in)",
        shared_large,
        &mut gpu,
        &mut emu,
    );
    s.same(
        "warp_probe (every warp intrinsic)",
        warps,
        &mut gpu,
        &mut emu,
    );
    s.same("atomics_global_u32", atomics, &mut gpu, &mut emu);

    // Past 48 KiB without opting in, and 1025 threads: both backends refuse, in the same
    // words, before anything runs.
    let big = LaunchConfig::linear(1, 64).with_shared(100 * 1024);
    for (what, cfg) in [
        ("100 KiB without opting in", big),
        ("1025 threads per block", LaunchConfig::linear(1, 1025)),
    ] {
        let mut msg = Vec::new();
        for dev in [&mut gpu, &mut emu] {
            let out = dev.alloc::<u32>(64 * SHARED_FIELDS as usize);
            let r = out.and_then(|o| dev.launch(&shared_probe::KERNEL, cfg, (o.slice(),)));
            msg.push(match r {
                Err(e @ LaunchError::InvalidConfig { .. }) => Some(e.to_string()),
                _ => None,
            });
        }
        s.check(
            &format!("{what}: rejected as on the emulator"),
            msg[0].is_some() && msg[0] == msg[1],
            || format!("GPU {:?} vs emulator {:?}", msg[0], msg[1]),
        );
    }

    // Timing with events: a launch reports its GPU time, and a benchmark gets one
    // duration per repetition.
    let threads: u32 = 1024 * 256;
    match gpu.alloc::<u32>((threads * INDEX_FIELDS) as usize) {
        Ok(out) => {
            let cfg = LaunchConfig::linear(threads / 256, 256);
            let one = gpu.launch(&index_probe::KERNEL, cfg, (out.slice(),));
            s.check(
                "a launch reports its event-timed GPU time",
                matches!(&one, Ok(r) if r.gpu_time.is_some_and(|t| t > Duration::ZERO)),
                || format!("{one:?}"),
            );
            match gpu.time_launches(&index_probe::KERNEL, cfg, (out.slice(),), 3, 20) {
                Ok(times) => {
                    let ok = times.len() == 20 && times.iter().all(|t| *t > Duration::ZERO);
                    let m = median(times);
                    let bytes = threads as f64 * INDEX_FIELDS as f64 * 4.0;
                    println!(
                        "        index_probe, {threads} threads: median {:.1} us over 20 launches, {:.0} GB/s written",
                        m.as_secs_f64() * 1e6,
                        bytes / m.as_secs_f64().max(1e-12) / 1e9
                    );
                    s.check("time_launches: 20 positive durations", ok, String::new);
                }
                Err(e) => s.check("time_launches", false, || e.to_string()),
            }
        }
        Err(e) => s.check("allocate 20 MiB", false, || e.to_string()),
    }

    // A kernel fault on a second device: reported by its launch and sticky for that
    // device. It is NOT harmless to the first: on an H200 with driver 580.159.04 the first
    // device's next call failed with CUDA_ERROR_ILLEGAL_ADDRESS too, although it has its
    // own context. So the last step only reports what the driver does.
    match Device::cuda() {
        Ok(mut victim) => {
            let r = victim.load_ptx("api-probe", &ptx).and_then(|()| {
                // SAFETY (deliberately violated): no allocation lives at 0x100; the store
                // faults. That is the point of this check.
                let bogus = unsafe { GlobalSlice::<u32>::from_raw_parts(0x100, 1 << 20) };
                victim.launch(&index_probe::KERNEL, LaunchConfig::linear(1, 32), (bogus,))
            });
            s.check(
                "a store to an unmapped address is CUDA_ERROR_ILLEGAL_ADDRESS",
                matches!(&r, Err(LaunchError::Driver { code, .. }) if code == "CUDA_ERROR_ILLEGAL_ADDRESS"),
                || format!("{r:?}"),
            );
            if let Err(e) = &r {
                println!("        {e}");
            }
            let after = victim.alloc::<u32>(1);
            s.check(
                "the faulted device is lost",
                matches!(after, Err(LaunchError::DeviceLost { .. })),
                || format!("{after:?}"),
            );
        }
        Err(e) => s.check("open a second device", false, || e.to_string()),
    }
    match gpu.alloc::<u32>(1) {
        Ok(_) => println!("  note  the first device survived the other device's fault"),
        Err(e) => println!(
            "  note  the other device's fault also ended the first device: {}",
            e.kind()
        ),
    }

    if s.failures.is_empty() {
        println!("ALL CHECKS PASSED on {}", p.name);
        ExitCode::SUCCESS
    } else {
        println!("{} CHECK(S) FAILED:", s.failures.len());
        for f in &s.failures {
            println!("  {f}");
        }
        ExitCode::FAILURE
    }
}
