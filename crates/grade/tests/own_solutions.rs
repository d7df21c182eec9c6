//! A student's own solutions: kernels that are right but written differently from the
//! reference pass, and the classic mistakes fail with the verdict that names them.
//!
//! The technique checks follow the data (a shared atomic per counted byte, one atomic per
//! run, one per distinct bin and warp step...), not the reference's text: a grid-stride loop
//! written with the block arithmetic, a commit with `red_add`, a warp loop that votes on
//! whether any lane has an element, the highest peer as leader, a butterfly reduction. Each
//! of these is a choice a student makes that the reference does not, and each must pass. And
//! a missing barrier must not pass because the emulator's one schedule happens to give the
//! right counts.

mod clones;

use clones::{exercise, grade, student_with};

/// 9.3 with the grid's size from the block arithmetic and `red_add` (an atomic whose old
/// value is not wanted): still one global atomic per element.
const ATOMIC_RED: &str = r#"    let n = data.len();
    let stride = thread::grid_dim_x() * thread::block_dim_x();
    let mut i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    while i < n {
        histo.red_add(byte_bin(data.load(i), histo.len()), 1);
        i += stride;
    }"#;

/// 9.5 zeroing all 256 static bins (not only `histo.len()`), committing what is nonzero.
const SHARED_ALL_BINS: &str = r#"    let private = shared_array![u32; 256];
    let t = thread::thread_idx_x();
    let mut k = t;
    while k < STATIC_BINS {
        private.store(k, 0);
        k += thread::block_dim_x();
    }
    thread::sync_threads();
    let i = thread::index_1d();
    if i < data.len() {
        private.atomic_add(byte_bin(data.load(i), histo.len()), 1);
    }
    thread::sync_threads();
    let mut k = t;
    while k < histo.len() {
        let c = private.load(k);
        if c > 0 {
            histo.atomic_add(k, c);
        }
        k += thread::block_dim_x();
    }"#;

/// 9.7 with the run restarted at zero and counted after the comparison.
const RUNS_RESTARTED: &str = r#"    let bins = dynamic_shared![u32];
    let nb = histo.len();
    init_private_bins(bins, nb);
    let mut run_bin = NO_BIN;
    let mut run_len = 0u32;
    let mut i = thread::index_1d();
    while i < data.len() {
        let b = byte_bin(data.load(i), nb);
        if b != run_bin {
            if run_len != 0 {
                bins.atomic_add(run_bin, run_len);
            }
            run_bin = b;
            run_len = 0;
        }
        run_len += 1;
        i += thread::grid_stride_x();
    }
    if run_len != 0 {
        bins.atomic_add(run_bin, run_len);
    }
    store_output(bins, histo);"#;

/// 9.8 looping while any lane of the warp has an element (a vote, not lane 0's index), the
/// highest peer adding for its group.
const WARP_VOTE_HIGHEST: &str = r#"    let bins = dynamic_shared![u32];
    let nb = histo.len();
    init_private_bins(bins, nb);
    let lane = warp::lane_id();
    let mut i = thread::index_1d();
    while warp::warp_vote_any(warp::FULL_MASK, i < data.len()) {
        let b = if i < data.len() { byte_bin(data.load(i), nb) } else { NO_BIN };
        let peers = warp::warp_match_any(warp::FULL_MASK, b);
        if b != NO_BIN && 31 - peers.leading_zeros() == lane {
            bins.atomic_add(b, peers.count_ones());
        }
        i += thread::grid_stride_x();
    }
    store_output(bins, histo);"#;

/// 9.10 with a butterfly (`shfl_xor`) reduction: every lane ends with the warp's total.
const REGISTERS_BUTTERFLY: &str = r#"    let mut c = [0u32; 16];
    let mut i = thread::index_1d();
    while i < data.len() {
        let v = data.load(i);
        for b in 0..16 {
            c[b] += (v == b as u32) as u32;
        }
        i += thread::grid_stride_x();
    }
    let lane = warp::lane_id();
    for b in 0..16 {
        let mut s = c[b];
        let mut off = 16;
        while off > 0 {
            s += warp::warp_shuffle_xor(warp::FULL_MASK, s, off, 32);
            off /= 2;
        }
        if lane == 0 && (b as u32) < histo.len() && s > 0 {
            histo.atomic_add(b as u32, s);
        }
    }"#;

#[test]
fn right_kernels_written_differently_from_the_reference_pass() {
    let dir = student_with(
        "own-solutions",
        &[
            ("ch09.rs", "9.3", ATOMIC_RED),
            ("ch09.rs", "9.5", SHARED_ALL_BINS),
            ("ch09.rs", "9.7", RUNS_RESTARTED),
            ("ch09.rs", "9.8", WARP_VOTE_HIGHEST),
            ("ch09.rs", "9.10", REGISTERS_BUTTERFLY),
        ],
    );
    let ids = ["9.3", "9.5", "9.7", "9.8", "9.10"];
    let (report, _) = grade(&dir, &ids);
    for id in ids {
        let e = exercise(&report, id);
        assert_eq!(e["status"], "pass", "{id}: {e}");
        assert_eq!(e["points"]["earned"], e["points"]["possible"], "{e}");
    }
}

#[test]
fn a_missing_barrier_fails_even_where_the_schedule_gives_the_right_counts() {
    // 9.5 without the barrier between zeroing and counting: on the emulator every warp
    // zeroes in its first step, before any counts, so the bins come out right; racecheck
    // still sees a warp's atomic on a word another warp zeroed with no barrier between.
    let no_first_barrier = SHARED_ALL_BINS.replacen("    thread::sync_threads();\n", "", 1);
    // 9.4 committing without waiting for the block: other warps are still counting.
    let no_commit_barrier = r#"    let mine = thread::block_idx_x() * num_bins;
    let mut i = thread::index_1d();
    while i < data.len() {
        histo.atomic_add(mine + byte_bin(data.load(i), num_bins), 1);
        i += thread::grid_stride_x();
    }
    if thread::block_idx_x() != 0 {
        let mut b = thread::thread_idx_x();
        while b < num_bins {
            let c = histo.load(mine + b);
            if c != 0 {
                histo.atomic_add(b, c);
            }
            b += thread::block_dim_x();
        }
    }"#;
    let dir = student_with(
        "own-mistakes",
        &[
            ("ch09.rs", "9.4", no_commit_barrier),
            ("ch09.rs", "9.5", &no_first_barrier),
        ],
    );
    let (report, _) = grade(&dir, &["9.4", "9.5", "9.3"]);
    let e = exercise(&report, "9.5");
    assert_eq!(e["status"], "race", "{e}");
    let reason = e["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("no __syncthreads()"), "{reason}");
    let e = exercise(&report, "9.4");
    assert_ne!(e["status"], "pass", "{e}");
    assert_eq!(e["points"]["earned"], 0, "{e}");
    let other = exercise(&report, "9.3");
    assert_eq!(other["status"], "pass", "{other}");
}

/// The reference and a student's own solutions pass on inputs drawn from 20 private seeds
/// (values, sizes, host functions' arguments): no check holds an assumption only the
/// public inputs meet. Every exercise of the reference; the own solutions' exercises.
#[test]
fn the_reference_and_own_solutions_pass_under_twenty_private_seeds() {
    let dir = student_with(
        "own-solutions-seeded",
        &[
            ("ch09.rs", "9.3", ATOMIC_RED),
            ("ch09.rs", "9.5", SHARED_ALL_BINS),
            ("ch09.rs", "9.7", RUNS_RESTARTED),
            ("ch09.rs", "9.8", WARP_VOTE_HIGHEST),
            ("ch09.rs", "9.10", REGISTERS_BUTTERFLY),
        ],
    );
    let ids = ["9.3", "9.5", "9.7", "9.8", "9.10"];
    let mut failures = Vec::new();
    for seed in 1..=20 {
        let seed = format!("private seed {seed} of the own-solutions test");
        let reference = std::process::Command::new(env!("CARGO_BIN_EXE_grade"))
            .args(["--kernels", "reference", "--json", "--seed", &seed])
            .env_remove("COURSE_SEED")
            .output()
            .expect("the grader runs");
        let report: serde_json::Value =
            serde_json::from_slice(&reference.stdout).expect("the JSON report");
        for e in report["exercises"].as_array().expect("exercises") {
            if e["status"] != "pass" {
                failures.push(format!("reference {} under `{seed}`: {e}", e["id"]));
            }
        }
        let own = clones::grade_raw(&dir, &ids, &["--json", "--seed", &seed], &[]);
        let own: serde_json::Value = serde_json::from_str(&own).expect("the JSON report");
        for id in ids {
            let e = exercise(&own, id);
            if e["status"] != "pass" {
                failures.push(format!("own {id} under `{seed}`: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
