//! The counter tables of every reference kernel on fixed seeded inputs, locked with
//! `insta`: a change to a kernel, the emulator's model or the progression shows up as a
//! snapshot diff to review (`INSTA_UPDATE=always cargo test -p ch10-selftest --test
//! snapshots` rewrites them; commit the `.snap` files).
//!
//! These run the reference kernels whatever `COURSE_KERNELS` says. Every row must also be
//! right (but 10.2's, which is the race), so a snapshot can never lock in a wrong sum.

use ch10::kernels::REFERENCE;
use ch10::progression::{self, Params, Row};
use gpu_host::Device;

fn rows(p: &Params) -> Vec<Row> {
    progression::run(chapter::app::Steps::all(
        &mut Device::emulator(),
        &REFERENCE,
        p,
    ))
}

/// Every row is right, and 10.2 is the race.
fn all_right(rows: &[Row]) {
    for r in rows {
        if r.step == "10.2" {
            assert_eq!(r.status, "race", "{r:#?}");
        } else {
            assert!(r.correct && r.status == "correct", "{r:#?}");
        }
    }
}

/// The table without its notes (10.2's note quotes the lanes' stored values).
fn table(rows: &[Row]) -> String {
    chapter::table::progression(&progression::LAYOUT, rows, false, &[])
}

#[test]
fn counters_odd_length() {
    let p = chapter::app::defaults_with::<Params>("--n 5003 --block 128 --grid 3 --seed 5");
    let rows = rows(&p);
    all_right(&rows);
    insta::assert_snapshot!("odd_length", table(&rows));
}

/// On whole blocks the two trees whose busy threads come first take the same divergent
/// steps (only the rounds under 32 threads), the interleaved one many more; only the
/// strided index has bank conflicts.
#[test]
fn counters_whole_blocks() {
    let p = chapter::app::defaults_with::<Params>("--n 8192 --block 256 --grid 4 --seed 6");
    let rows = rows(&p);
    all_right(&rows);
    let of = |k: &str| {
        rows.iter()
            .find(|r| r.kernel == k)
            .expect("row")
            .counters
            .clone()
    };
    let (i, s, q) = (
        of("sum_tree_interleaved"),
        of("sum_tree_strided_index"),
        of("sum_tree_sequential"),
    );
    assert_eq!(s.divergent_steps, q.divergent_steps);
    assert!(i.divergent_steps > s.divergent_steps);
    assert_eq!((i.bank_conflicts, q.bank_conflicts), (Some(0), Some(0)));
    assert!(s.bank_conflicts > Some(0));
    insta::assert_snapshot!("whole_blocks", table(&rows));
}

/// The same launch gives the same counters: the emulator is deterministic, and so is the
/// progression (seeded inputs, no clock, no hash order).
#[test]
fn counters_are_deterministic() {
    let p = chapter::app::defaults_with::<Params>("--n 3001 --block 64 --grid 2");
    assert_eq!(rows(&p), rows(&p));
}
