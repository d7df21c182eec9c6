//! What a kernel printed survives its failure: a launch that panics, goes out of bounds,
//! races, spins or runs out of fuel still shows its kernel output (labelled, in its own
//! field), in the grader's report as in `cargo test` and the runner, which take it from
//! the same place (`gpu_host::kernel_output`).

mod clones;

use clones::{exercise, grade};

/// 9.3's answer: print a line, then fail the way `fail` does.
fn printing_then(name: &str, fail: &str) -> std::path::PathBuf {
    let body = format!(
        "    gpu::println!(\"SEEN before the failure, thread {{}}\", thread::index_1d());\n{fail}"
    );
    clones::student_with(&format!("output-{name}"), &[("ch09.rs", "9.3", &body)])
}

#[test]
fn kernel_output_is_kept_whatever_ends_the_launch() {
    let cases = [
        (
            "panic",
            "    let local = [1u32; 4];\n    let k = local[data.len() as usize % 7 + 4];\n    histo.atomic_add(0, k);",
            &["panicked"][..],
        ),
        (
            "out-of-bounds",
            "    let _ = data.load(data.len() + 64);\n    let _ = histo;",
            &["out_of_bounds"][..],
        ),
        (
            "race",
            "    let i = thread::index_1d();\n    if i < data.len() {\n        let b = byte_bin(data.load(i), histo.len());\n        histo.store(b, histo.load(b) + 1);\n    }",
            &["race", "wrong_result"][..],
        ),
        (
            "spin",
            "    while histo.load(0) != 4_000_000_000 {}\n    let _ = data;",
            &["livelock", "barrier_error"][..],
        ),
        (
            "fuel",
            "    let spin = 0u32;\n    while spin < data.len() + 1 {}\n    let _ = histo;",
            &["timed_out"][..],
        ),
    ];
    for (name, fail, statuses) in cases {
        let dir = printing_then(name, fail);
        let (report, _) = grade(&dir, &["9.3"]);
        let e = exercise(&report, "9.3");
        let status = e["status"].as_str().unwrap_or_default();
        assert!(statuses.contains(&status), "{name}: {e}");
        let lines = e["kernel_output"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: no kernel output in {e}"));
        assert!(
            lines.iter().any(|l| {
                let l = l.as_str().unwrap_or_default();
                l.starts_with("launch ") && l.contains("SEEN before the failure")
            }),
            "{name}: {lines:?}"
        );
    }
}
