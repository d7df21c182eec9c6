//! The counter tables of every reference kernel on fixed seeded inputs, locked with
//! `insta`: a change to a kernel, the emulator's model or the progression shows up as a
//! snapshot diff to review (`INSTA_UPDATE=always cargo test -p ch05-selftest --test snapshots`
//! rewrites them; commit the `.snap` files).
//!
//! These run the reference kernels whatever `COURSE_KERNELS` says. Every row must also
//! be right (but 5.5's in-place sum, which must be caught depending on the block order),
//! so a snapshot can never lock in a wrong result.

use ch05::kernels::REFERENCE;
use ch05::progression::{self, Params, Row};
use gpu_host::Device;

fn rows(p: &Params) -> Vec<Row> {
    progression::run(chapter::app::Steps::all(
        &mut Device::emulator(),
        &REFERENCE,
        p,
    ))
}

/// Asserts every row is right, and 5.5's in-place kernel is caught.
fn all_right(rows: &[Row]) {
    for r in rows {
        if r.kernel == "smooth_in_place" {
            assert_eq!(r.status, "order-dependent", "{r:#?}");
        } else {
            assert!(r.correct && r.status == "correct", "{r:#?}");
        }
    }
}

/// A length that is a multiple of nothing, blocks of 128, a small fixed grid for 5.3.
fn odd_length() -> Params {
    Params {
        n: 5003,
        block: 128,
        grid: Some(3),
        words_per_thread: 4,
        seed: 5,
        ..Params::default()
    }
}

/// Whole warps everywhere: n a multiple of every block, blocks of 64.
fn whole_warps() -> Params {
    Params {
        n: 4096,
        block: 64,
        grid: None,
        words_per_thread: 16,
        seed: 6,
        ..Params::default()
    }
}

#[test]
fn counters_odd_length() {
    let rows = rows(&odd_length());
    all_right(&rows);
    insta::assert_snapshot!("odd_length", progression::table(&rows, false));
}

#[test]
fn counters_whole_warps() {
    let rows = rows(&whole_warps());
    all_right(&rows);
    // On whole warps the uniform kernel has no divergent step and full SIMT efficiency,
    // while the two given kernels diverge in every warp.
    let uniform = rows
        .iter()
        .find(|r| r.kernel == "classify_uniform")
        .expect("row");
    assert_eq!(uniform.counters.divergent_steps, Some(0));
    assert_eq!(uniform.counters.simt_efficiency, Some(32.0));
    for k in ["classify_divergent", "classify_half_warp"] {
        let r = rows
            .iter()
            .find(|r| r.kernel == k && r.block == 64)
            .expect("row");
        assert_eq!(r.counters.divergent_steps, Some(4096 / 32), "{k}");
    }
    insta::assert_snapshot!("whole_warps", progression::table(&rows, false));
}

/// The same launch gives the same counters: the emulator is deterministic, and so is the
/// progression (seeded inputs, no clock, no hash order).
#[test]
fn counters_are_deterministic() {
    let p = Params {
        n: 3001,
        ..odd_length()
    };
    assert_eq!(rows(&p), rows(&p));
}
