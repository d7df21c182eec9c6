//! The counter tables of every reference kernel on fixed seeded inputs, locked with
//! `insta`: a change to a kernel, the emulator's model or the progression shows up as a
//! snapshot diff to review (`INSTA_UPDATE=always cargo test -p ch09-selftest --test snapshots`
//! rewrites them; commit the `.snap` files).
//!
//! These run the reference kernels whatever `COURSE_KERNELS` says.

use ch09::inputs::InputKind;
use ch09::kernels::REFERENCE;
use ch09::progression::{self, Params, Row};
use gpu_host::Device;

fn rows(p: &Params) -> Vec<Row> {
    progression::run(chapter::app::Steps::all(
        &mut Device::emulator(),
        &REFERENCE,
        p,
    ))
}

/// Uniform bytes, a length that is a multiple of nothing, 256 bins.
fn uniform() -> Params {
    Params {
        n: Some(5003),
        bins: 256,
        block: 128,
        grid: None,
        coarsen: 4,
        input: InputKind::Uniform,
        seed: 9,
    }
}

/// A hot bin: 90% zeros, 64 bins, a fixed grid.
fn skewed() -> Params {
    Params {
        n: Some(4099),
        bins: 64,
        block: 96,
        grid: Some(3),
        coarsen: 8,
        input: InputKind::Skew(90),
        seed: 11,
    }
}

#[test]
fn counters_uniform_256_bins() {
    let rows = rows(&uniform());
    assert!(
        rows.iter()
            .filter(|r| r.step != "9.2" && r.status != "skipped")
            .all(|r| r.correct),
        "{rows:#?}"
    );
    insta::assert_snapshot!("uniform_256_bins", progression::table(&rows, false));
}

#[test]
fn counters_skewed_64_bins() {
    let rows = rows(&skewed());
    assert!(
        rows.iter()
            .filter(|r| r.step != "9.2" && r.status != "skipped")
            .all(|r| r.correct),
        "{rows:#?}"
    );
    insta::assert_snapshot!("skewed_64_bins", progression::table(&rows, false));
}

/// The same launch gives the same counters: the emulator is deterministic, and so is the
/// progression (seeded inputs, no clock, no hash order).
#[test]
fn counters_are_deterministic() {
    let p = Params {
        n: Some(3001),
        ..skewed()
    };
    assert_eq!(rows(&p), rows(&p));
}
