//! Verification by decrementing (`cargo run -p ch09 -- verify`): every bin back at zero
//! for the reference kernels, and a wrong kernel caught at the bin it got wrong, by the
//! count it got wrong. Reference kernels and fixtures only: nothing here reads `kernels/`.

use ch09::kernels::{Kernels, REFERENCE};
use ch09::progression::Params;
use ch09::verify::{Residue, run};
use gpu::prelude::*;
use gpu_host::Device;
use solutions::ch09::byte_bin;

fn params(n: usize) -> Params {
    Params {
        n: Some(n),
        ..Params::default()
    }
}

/// The residues of `step`'s kernels of `k` on `n` uniform bytes.
fn residues(k: &Kernels, step: &str, n: usize) -> Vec<Residue> {
    let verdicts = run(&mut Device::emulator(), k, step, &params(n)).unwrap();
    assert!(!verdicts.is_empty());
    verdicts
        .into_iter()
        .map(|v| v.outcome.unwrap_or_else(|o| panic!("{step}: {}", o.reason)))
        .collect()
}

#[test]
fn the_reference_kernels_leave_every_bin_at_zero() {
    for step in ["9.3", "9.4", "9.5", "9.6", "9.9", "9.10", "9.14", "9.17"] {
        for r in residues(&REFERENCE, step, 3000) {
            assert!(r.is_zero(), "{step}: {r:?}");
        }
    }
}

#[test]
fn the_naive_kernel_is_caught_short() {
    let [r] = &residues(&REFERENCE, "9.2", 3000)[..] else {
        panic!("9.2 has one kernel")
    };
    assert!(r.nonzero > 0, "9.2 loses updates on uniform bytes: {r:?}");
    assert!(r.first.is_some_and(|(_, left)| left < 0), "{r:?}");
    assert!(r.total < 0, "lost updates leave bins below zero: {r:?}");
}

/// 9.3's grid-stride loop that stops one element early.
#[kernel]
fn atomic_skips_last(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let mut i = thread::index_1d();
    while i + 1 < data.len() {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += thread::grid_stride_x();
    }
}

/// 9.3's loop that counts element 0 twice.
#[kernel]
fn atomic_counts_first_twice(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let mut i = thread::index_1d();
    if i == 0 {
        histo.atomic_add(byte_bin(data.load(0), histo.len()), 1);
    }
    while i < data.len() {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += thread::grid_stride_x();
    }
}

#[test]
fn a_wrong_kernel_is_named_at_its_bin_and_by_its_count() {
    let n = 3000;
    let p = params(n);
    let data = ch09::inputs::bytes(&p.input, n, p.seed);
    let bin = |i: usize| byte_bin(data[i], p.bins);
    let skips = Kernels {
        histo_atomic: atomic_skips_last::KERNEL,
        ..REFERENCE
    };
    let [r] = &residues(&skips, "9.3", n)[..] else {
        panic!("9.3 has one kernel")
    };
    assert_eq!(
        (r.nonzero, r.first, r.total),
        (1, Some((bin(n - 1), -1)), -1)
    );
    let twice = Kernels {
        histo_atomic: atomic_counts_first_twice::KERNEL,
        ..REFERENCE
    };
    let [r] = &residues(&twice, "9.3", n)[..] else {
        panic!("9.3 has one kernel")
    };
    assert_eq!((r.nonzero, r.first, r.total), (1, Some((bin(0), 1)), 1));
    let verdict = &run(&mut Device::emulator(), &twice, "9.3", &p).unwrap()[0];
    assert!(!verdict.is_right());
    let line = verdict.line();
    assert!(
        line.contains(&format!(
            "bin {} left at 1 (1 count too many): WRONG",
            bin(0)
        )),
        "{line}"
    );
}

#[test]
fn steps_without_the_check_say_why() {
    let e = run(&mut Device::emulator(), &REFERENCE, "9.12", &params(100)).unwrap_err();
    assert!(e.contains("weights"), "{e}");
    let e = run(&mut Device::emulator(), &REFERENCE, "9.16", &params(100)).unwrap_err();
    assert!(e.contains("9.10"), "{e}");
}

/// A host function's sandbox is sized to its arguments: 9.1's sequential loop over 17 MiB
/// (more than a lane's own 16 MiB) runs, as the progression runs it at 16 Mi and beyond.
#[test]
fn the_sequential_loop_runs_in_its_sandbox_at_the_progression_s_sizes() {
    let n = 17 << 20;
    let data = vec![7u8; n];
    let bins = (REFERENCE.histogram_sequential)(&data);
    assert_eq!(bins.len(), 256);
    assert_eq!(bins[7] as usize, n);
    assert_eq!(bins.iter().map(|&b| b as usize).sum::<usize>(), n);
}
