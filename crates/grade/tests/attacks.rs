//! Attacks on the grade, as a motivated student would write them, editing nothing but
//! `kernels/src/*.rs`: each test writes a fully solved `kernels/src` (the reference
//! files) with one exercise's region replaced by an attack, grades it with
//! `grade --student DIR` from this (pristine) course, and shows that the attack either
//! fails to build or is judged by what it does to device memory, and that every other
//! exercise is graded as before.
//!
//! The kernels run in the emulator's sandbox (WebAssembly lanes, `simt::wasm`): no file,
//! process, thread, clock or output that the grader reads; statics and stack of its own;
//! fuel instead of a wall clock. These tests are that promise, checked.
//!
//! Each grades whole submissions (minutes in all): ignored by the README's `cargo test`,
//! run by `.ci/run` (`cargo test -p grade --test attacks -- --include-ignored`).

mod clones;

use clones::{exercise, grade, grade_with, root};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A student's clone holding the reference chapters, with the body of region `id` (the
/// first region of that exercise in `file`) replaced by `body`.
fn student(name: &str, file: &str, id: &str, body: &str) -> PathBuf {
    clones::student_with(&format!("attack-{name}"), &[(file, id, body)])
}

/// What the kernels printed is in the report only as kernel output: in each exercise's
/// `kernel_output` field, every line labelled with its launch (or host function), and
/// nowhere else (no status, reason or detail, no line of the grader's output of its own).
fn printed_only_as_kernel_output(report: &serde_json::Value, raw: &str) {
    let mut rest = report.clone();
    for e in rest["exercises"].as_array_mut().expect("exercises") {
        if let Some(lines) = e.get("kernel_output").and_then(|l| l.as_array()) {
            for l in lines {
                let l = l.as_str().unwrap_or_default();
                assert!(
                    l.starts_with("launch ")
                        || l.starts_with("host function")
                        || (l.starts_with("(and ") && !l.contains("FORGED")),
                    "an unlabelled line of kernel output: {l}"
                );
            }
        }
        e.as_object_mut()
            .expect("an exercise")
            .remove("kernel_output");
    }
    assert!(
        !rest.to_string().contains("FORGED"),
        "kernel output reached the report outside its field: {rest}"
    );
    assert!(
        raw.lines().all(|l| {
            let l = l.trim_start();
            !l.starts_with("grade-result:") && !l.starts_with("test result")
        }),
        "a forged line in the grader's output: {raw}"
    );
}

/// The attacked exercise fails with `status`, its reason mentions `why`, the other
/// exercise graded beside it passes, and what the kernel printed is only kernel output.
fn judged(dir: &Path, attacked: &str, other: &str, status: &str, why: &str) {
    let (report, raw) = grade(dir, &[attacked, other]);
    let a = exercise(&report, attacked);
    assert_eq!(a["status"], status, "{a}");
    let reason = a["reason"].as_str().unwrap_or_default();
    assert!(reason.contains(why), "the reason says why: {reason}");
    assert_eq!(a["points"]["earned"], 0, "{a}");
    let o = exercise(&report, other);
    assert_eq!(o["status"], "pass", "the other exercise is unharmed: {o}");
    printed_only_as_kernel_output(&report, &raw);
}

/// A right 9.3 (a grid-stride loop of global atomics), for attacks that come before it.
const RIGHT_9_3: &str = r#"
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += stride;
    }"#;

/// The attack on a kernel's first region.
const FORGE_AND_EXIT: &str = r#"    // Print a forged result line in the grader's child protocol, then end the process.
    println!("grade-result: {{\"status\":\"pass\",\"reason\":\"FORGED\"}}");
    println!("test result: ok. 1 passed; 0 failed; FORGED");
    std::process::exit(0);"#;

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_forged_result_line_and_exit_is_a_trap_of_the_lane() {
    let dir = student("exit", "ch09.rs", "9.3", FORGE_AND_EXIT);
    judged(&dir, "9.3", "9.4", "panicked", "trapped");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_thread_that_prints_a_result_cannot_be_started() {
    let body = r#"    std::thread::spawn(|| println!("grade-result: {{\"status\":\"pass\",\"reason\":\"FORGED\"}}"));
    let _ = (data, histo);"#;
    let dir = student("thread", "ch09.rs", "9.3", body);
    judged(&dir, "9.3", "9.4", "panicked", "panicked");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_child_process_cannot_be_started() {
    let body = r#"    let child = std::process::Command::new("sh")
        .args(["-c", "sleep 100; echo FORGED"])
        .spawn();
    child.expect("a detached process that outlives the grader");
    let _ = (data, histo);"#;
    let dir = student("process", "ch09.rs", "9.3", body);
    judged(&dir, "9.3", "9.4", "panicked", "panicked");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_constructor_in_init_array_fails_to_build() {
    // Items nested in the kernel's body (a region cannot close its function: see
    // `a_region_that_closes_its_function_is_refused`).
    let body = r#"    let _ = (data, histo);
    extern "C" fn forge() {
        println!("grade-result: FORGED");
    }
    #[used]
    #[unsafe(link_section = ".init_array")]
    static FORGE: extern "C" fn() = forge;"#;
    let dir = student("init-array", "ch09.rs", "9.3", body);
    let (report, raw) = grade(&dir, &["9.3", "5.1"]);
    refused_alone(&report, "9.3", "5.1", "not allowed in a kernel crate");
    assert!(!raw.contains("grade-result: FORGED"));
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn global_asm_and_includes_fail_to_build() {
    for (name, body) in [
        (
            "global-asm",
            "    let _ = (data, histo);\n    core::arch::global_asm!(\".section .init_array\");",
        ),
        (
            "include",
            "    let _ = (data, histo);\n    let _s = include_str!(\"../../../../solutions/src/ch09.rs\");",
        ),
    ] {
        let dir = student(name, "ch09.rs", "9.3", body);
        let (report, _) = grade(&dir, &["9.3", "9.4"]);
        refused_alone(&report, "9.3", "9.4", "not allowed in a kernel crate");
    }
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn an_answer_may_carry_only_the_attributes_and_macros_a_kernel_needs() {
    // Each names (or could name) a file of the grading machine, or changes what is built;
    // the allow-list refuses them, and whatever nobody listed yet.
    for (name, attack) in [
        (
            "debugger-visualizer",
            "    #![debugger_visualizer(gdb_script_file = \"../../../../../../etc/passwd\")]",
        ),
        (
            "doc-include",
            "    #[doc = core::include_str!(\"../../../../solutions/src/ch09.rs\")]\n    fn _doc() {}",
        ),
        (
            "path-attribute",
            "    #[path = \"../../../../solutions/src/ch05.rs\"]\n    mod stolen;",
        ),
        (
            "export-name",
            "    #[export_name = \"histo_private_global\"]\n    fn _export() {}",
        ),
        (
            "cfg-attr-visualizer",
            "    #[cfg_attr(all(), debugger_visualizer(natvis_file = \"../x.natvis\"))]\n    fn _v() {}",
        ),
        (
            "unlisted-macro",
            "    let _v = core::concat_idents!(data, histo);",
        ),
    ] {
        let dir = student(name, "ch09.rs", "9.3", &format!("{attack}{RIGHT_9_3}"));
        let (report, _) = grade(&dir, &["9.3", "9.4"]);
        let e = exercise(&report, "9.3");
        assert!(
            e["reason"]
                .as_str()
                .unwrap_or_default()
                .contains("not allowed in"),
            "{name}: {e}"
        );
        refused_alone(&report, "9.3", "9.4", "not allowed in");
    }
}

/// The reference chapter 9 with 9.9's `consume_tiles` as a student wrote it for the stub
/// of 2026-11-26 (it took `num_bins` then): signature and answer.
pub fn with_old_consume_tiles(reference: &str) -> String {
    let old = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/consume_tiles_2026-11-26.rs"),
    )
    .expect("the old answer");
    let old = &old[old.find("pub fn consume_tiles").expect("the function")..];
    let start = reference
        .find("pub fn consume_tiles(")
        .expect("consume_tiles");
    let end = start + reference[start..].find("\n}\n").expect("its end") + 3;
    format!("{}{}{}", &reference[..start], old, &reference[end..])
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn an_answer_written_for_an_earlier_stub_says_the_signature_changed() {
    let dir = student("old-signature", "ch09.rs", "9.3", RIGHT_9_3);
    let file = dir.join("kernels/src/ch09.rs");
    let text = std::fs::read_to_string(&file).expect("the clone's file");
    std::fs::write(&file, with_old_consume_tiles(&text)).expect("written");
    let (report, _) = grade(&dir, &["9.9", "9.3"]);
    let e = exercise(&report, "9.9");
    assert_eq!(e["status"], "error", "{e}");
    assert_eq!(e["kind"], "signature_changed", "{e}");
    let reason = e["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("signature changed")
            && reason.contains(
                "now `pub fn consume_tiles(data: GlobalSlice<u8>, bins: DynamicShared<u32>)`"
            )
            && reason.contains("num_bins: u32"),
        "{reason}"
    );
    assert!(
        e["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("stub changed"),
        "{e}"
    );
    assert!(
        !reason.contains("the check itself could not run"),
        "{reason}"
    );
    assert_eq!(exercise(&report, "9.3")["status"], "pass");
}

/// Exercise `attacked` is an error whose reason contains `why` (its region was refused and
/// built as the stub), and exercise `other` is graded on the student's code and passes.
fn refused_alone(report: &serde_json::Value, attacked: &str, other: &str, why: &str) {
    let e = exercise(report, attacked);
    assert_eq!(e["status"], "error", "{e}");
    let reason = e["reason"].as_str().unwrap_or_default();
    assert!(reason.contains(why), "the reason says why: {reason}");
    assert_eq!(e["points"]["earned"], 0, "{e}");
    let o = exercise(report, other);
    assert_eq!(o["status"], "pass", "the other exercise is unharmed: {o}");
}

/// Every exercise of `ids` is an error whose reason contains `why`: the crate was not
/// built, or not run.
fn crate_refused(report: &serde_json::Value, ids: &[&str], why: &str) {
    for id in ids {
        let e = exercise(report, id);
        assert_eq!(e["status"], "error", "the whole crate is refused: {e}");
        let reason = e["reason"].as_str().unwrap_or_default();
        assert!(reason.contains(why), "the reason says why: {reason}");
        assert_eq!(e["points"]["earned"], 0, "{e}");
    }
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn unsafe_behind_a_literal_or_a_macro_fails_to_build() {
    // Literals that a hand-written scanner once misread as the start of a string (a raw
    // byte string holding a quote; a two-byte char before a quote char), each followed by
    // `unsafe` code that reads a lane's stack before writing it; and a macro that writes
    // `#[path]` from the word it is given.
    let read_stack = r#"
    let leftover = unsafe { core::ptr::read_volatile((&data as *const _ as *const u32).sub(64)) };
    histo.atomic_add(0, leftover & 0);"#;
    for (name, body) in [
        (
            "raw-byte-string",
            format!("    let _q = br#\"a\"b\"#;{read_stack}\n    let _r = \"\";{RIGHT_9_3}"),
        ),
        (
            "wide-char",
            format!("    let _q = ('é', '\"');{read_stack}\n    let _r = \"\";{RIGHT_9_3}"),
        ),
        (
            "path-from-a-macro",
            format!(
                "{RIGHT_9_3}\n    macro_rules! take {{ ($a:ident) => {{ #[$a = \"../../../../solutions/src/ch05.rs\"] mod stolen; }} }}\n    take!(path);"
            ),
        ),
    ] {
        let dir = student(name, "ch09.rs", "9.3", &body);
        let (report, _) = grade(&dir, &["9.3", "9.4"]);
        refused_alone(&report, "9.3", "9.4", "not allowed in a kernel crate");
    }
}

#[cfg(unix)]
#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_symbolic_link_in_the_sources_fails_to_build() {
    // A module that is a link to the reference file: the check would read one file and
    // the build another's.
    let dir = student("symlink", "ch09.rs", "9.3", RIGHT_9_3);
    let src = dir.join("kernels").join("src");
    std::os::unix::fs::symlink(
        root().join("solutions/src/ch05.rs"),
        src.join("borrowed.rs"),
    )
    .expect("a link");
    let (report, _) = grade(&dir, &["9.3"]);
    crate_refused(&report, &["9.3"], "symbolic link");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_compile_time_loop_is_stopped_at_the_build_limit() {
    // A `const` whose evaluation never ends, rustc's own stop turned off: the build is
    // stopped when the submission's build budget runs out, and every exercise says why.
    let body = format!(
        "{RIGHT_9_3}\n    #[allow(long_running_const_eval)]\n    const SPIN: u64 = {{ let mut i = 0u64; \
         while i < u64::MAX {{ i += 1; }} i }};\n    histo.atomic_add(0, (SPIN & 0) as u32);"
    );
    let dir = student("const-loop", "ch09.rs", "9.3", &body);
    let t = std::time::Instant::now();
    let (report, _) = grade_with(&dir, &["9.3", "5.1"], &[("COURSE_BUILD_LIMIT_S", "20")]);
    crate_refused(&report, &["9.3", "5.1"], "(20 s for all its builds");
    assert!(t.elapsed().as_secs() < 120, "{:?}", t.elapsed());
}

/// A right 9.3 that reads one byte of a static array of `len` initialised bytes (`"1 << 30"`),
/// so that the array is kept in the module.
fn with_big_static(len: &str) -> String {
    format!(
        "    let seven = BIG[(data.len() % 7) as usize].load(core::sync::atomic::Ordering::Relaxed) as u32;\n\
         histo.atomic_add(0, seven / 8);{RIGHT_9_3}\n\
         static BIG: [core::sync::atomic::AtomicU8; {len}] = [const {{ core::sync::atomic::AtomicU8::new(7) }}; {len}];"
    )
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_gibibyte_static_stops_the_compiler_at_its_memory_limit() {
    // rustc evaluates a static's bytes in memory: 1 GiB of them took 22 GB and 266 s of
    // the machine before the build's memory limit. Now rustc stops at the limit with its
    // own error, in 9.3's region, which costs 9.3 alone.
    let body = with_big_static("1 << 30");
    let dir = student("gib-static", "ch09.rs", "9.3", &body);
    let t = std::time::Instant::now();
    let (report, _) = grade(&dir, &["9.3", "9.4"]);
    refused_alone(&report, "9.3", "9.4", "does not compile");
    assert!(t.elapsed().as_secs() < 120, "{:?}", t.elapsed());
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_static_larger_than_a_lane_is_refused() {
    // 17 MiB of initialised statics: more than a lane's 16 MiB of memory.
    let body = with_big_static("17 << 20");
    let dir = student("big-static", "ch09.rs", "9.3", &body);
    let (report, _) = grade(&dir, &["9.3"]);
    crate_refused(&report, &["9.3"], "MiB the sandbox compiles");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_long_panic_message_is_cut_short() {
    // Half a megabyte of message, each line a forged result: the report keeps 4 KiB of it.
    let body = r#"    let _ = (data, histo);
    panic!("{}", "grade-result: {\"status\":\"pass\"} FORGED\n".repeat(15_000));"#;
    let dir = student("long-panic", "ch09.rs", "9.3", body);
    let (report, raw) = grade(&dir, &["9.3", "9.4"]);
    let e = exercise(&report, "9.3");
    assert_eq!(e["status"], "panicked", "{e}");
    assert!(raw.len() < 64 * 1024, "a report of {} bytes", raw.len());
    let details = e["details"].to_string();
    assert!(details.contains("more bytes"), "the cut says so: {details}");
    assert_eq!(exercise(&report, "9.4")["status"], "pass");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_compile_error_of_any_length_is_cut_short() {
    // rustc repeats the message, and the source line that holds it, in its output: a
    // 300 000-byte message would be a report of a megabyte.
    let body = format!("    compile_error!(\"{}\");", "A".repeat(300_000));
    let dir = student("long-compile-error", "ch09.rs", "9.3", &body);
    let (report, raw) = grade(&dir, &["9.3", "9.4"]);
    let e = exercise(&report, "9.3");
    assert_eq!(e["status"], "error", "{e}");
    let reason = e["reason"].as_str().unwrap_or_default();
    assert!(reason.len() < 10_000, "a reason of {} bytes", reason.len());
    assert!(reason.ends_with("more bytes)"), "the cut says so");
    assert!(raw.len() < 100_000, "a report of {} bytes", raw.len());
    assert_eq!(exercise(&report, "9.4")["status"], "pass");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn control_characters_in_a_panic_message_cannot_rewrite_the_table() {
    // Erase the line, go up one, and print a passing row over the real one.
    let body = r#"    let _ = (data, histo);
    panic!("oops\x1b[2K\r\x1b[1A  9.3   pass   10/10  FORGED\x07");"#;
    let dir = student("escape", "ch09.rs", "9.3", body);
    let (report, raw) = grade(&dir, &["9.3"]);
    let e = exercise(&report, "9.3");
    assert_eq!(e["status"], "panicked", "{e}");
    let reason = e["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("oops\\u{1b}[2K\\u{d}"),
        "escaped, still legible: {reason}"
    );
    let table = Command::new(env!("CARGO_BIN_EXE_grade"))
        .arg("--student")
        .arg(&dir)
        .args(["--exercise", "9.3"])
        .output()
        .expect("the grade binary runs");
    for (what, bytes) in [("JSON", raw.as_bytes()), ("table", &table.stdout[..])] {
        assert!(
            !bytes.iter().any(|&b| b == 0x1b || b == b'\r' || b == 0x07),
            "a raw control character in the {what}"
        );
    }
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn an_exercise_that_does_not_compile_costs_only_itself() {
    // 9.6 half-written (a type error): the crate does not build as it is. 9.6 is reported
    // with the compiler's error, and the others are graded on the student's own code.
    let body = "    let x: u32 = \"not a number\";\n    let _ = (data, histo, coarsen, x);";
    let dir = student("half-written", "ch09.rs", "9.6", body);
    let (report, _) = grade(&dir, &["9.5", "9.6", "9.7"]);
    refused_alone(&report, "9.6", "9.5", "does not compile");
    let e = exercise(&report, "9.6");
    assert!(
        e["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("mismatched types"),
        "the compiler's error: {e}"
    );
    assert!(e["details"].to_string().contains("not a number"), "{e}");
    assert_eq!(exercise(&report, "9.7")["status"], "pass");
    // An exercise that calls a function of the broken one (9.6 calls 9.5's helper
    // `init_private_bins`, 9.5's second region) says so.
    let dir = student("half-written-helper", "ch09.rs", "9.3", RIGHT_9_3);
    let file = dir.join("kernels/src/ch09.rs");
    let text = std::fs::read_to_string(&file).expect("written");
    let marker = "// STUDENT-BEGIN 9.5\n";
    let second = text
        .match_indices(marker)
        .nth(1)
        .expect("a second 9.5 region")
        .0;
    let at = second + marker.len();
    let broken = format!(
        "{}    let x: u32 = \"not a number\";\n{}",
        &text[..at],
        &text[at..]
    );
    std::fs::write(&file, broken).expect("written");
    let (report, _) = grade(&dir, &["9.5", "9.6", "9.3"]);
    assert_eq!(exercise(&report, "9.5")["status"], "error");
    let dependent = exercise(&report, "9.6");
    assert!(
        dependent["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("needs 9.5 first"),
        "{dependent}"
    );
    assert_eq!(exercise(&report, "9.3")["status"], "pass");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn lanes_cannot_share_statics() {
    // 9.8 without `warp_match_any`: each lane puts its bin into a static table, and
    // every lane then counts what the table holds. Natively, all lanes of the process
    // shared the table; in the sandbox each lane has its own statics, so the lanes see
    // only themselves and the block commits wrong counts (or none).
    let body = r#"    use std::sync::Mutex;
    static SEEN: Mutex<Vec<u32>> = Mutex::new(Vec::new());
    let bins = shared_array![u32; STATIC_BINS as usize];
    let num_bins = histo.len();
    let mut b = thread::thread_idx_x();
    while b < num_bins {
        bins.store(b, 0);
        b += thread::block_dim_x();
    }
    thread::sync_threads();
    let mut i = thread::index_1d();
    while i < data.len() {
        SEEN.lock().unwrap().push(byte_bin(data.load(i), num_bins));
        i += thread::grid_stride_x();
    }
    warp::sync_warp(warp::activemask());
    if warp::lane_id() == 0 {
        for &bin in SEEN.lock().unwrap().iter() {
            bins.atomic_add(bin, 1);
        }
    }
    thread::sync_threads();
    let mut b = thread::thread_idx_x();
    while b < num_bins {
        let c = bins.load(b);
        if c > 0 {
            histo.atomic_add(b, c);
        }
        b += thread::block_dim_x();
    }"#;
    let dir = student("statics", "ch09.rs", "9.8", body);
    let (report, _) = grade(&dir, &["9.8", "9.5"]);
    let e = exercise(&report, "9.8");
    assert_ne!(e["status"], "pass", "{e}");
    assert_eq!(e["points"]["earned"], 0, "{e}");
    assert_eq!(exercise(&report, "9.5")["status"], "pass");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_stack_overflow_is_a_trap_of_its_exercise_only() {
    let body = r#"    fn deep(n: u32, data: GlobalSlice<u8>) -> u32 {
        let pad = [n; 64];
        if n == 0 {
            0
        } else {
            pad[(n % 64) as usize] + deep(n - 1, data) + data.len()
        }
    }
    let n = deep(1_000_000, data);
    histo.atomic_add(0, n);"#;
    let dir = student("stack", "ch09.rs", "9.3", body);
    judged(&dir, "9.3", "9.4", "panicked", "stack overflow");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_loop_in_registers_runs_out_of_fuel_at_the_same_count() {
    // The right kernel, after a loop that never touches memory (its increment
    // forgotten): only fuel can stop it, and does, at the same instruction every run.
    let body = r#"    let spin = 0u32;
    while spin < data.len() {}"#;
    let body = format!("{body}{RIGHT_9_3}");
    let dir = student("spin", "ch09.rs", "9.3", &body);
    let (first, _) = grade(&dir, &["9.3"]);
    let e = exercise(&first, "9.3");
    assert_eq!(e["status"], "timed_out", "{e}");
    let reason = e["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("WebAssembly instructions"), "{reason}");
    let (second, _) = grade(&dir, &["9.3"]);
    assert_eq!(
        exercise(&second, "9.3")["reason"],
        e["reason"],
        "the same verdict, with the same count, every time"
    );
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn instructions_between_device_calls_run_out_of_the_checks_budget_at_the_same_count() {
    // The right kernel, with a loop in registers before each element's device calls: no
    // lane's fuel runs out (a device call comes every 30 000 instructions or so) and no
    // launch's step budget either, but the check's work does, 30 times the reference's.
    // Before the work budget, this passed in 54 s on an idle machine (a million turns per
    // element) and timed out under load: only the wall clock stopped it.
    let body = r#"    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        let mut spin = 0u32;
        while spin < 10_000 + data.len() % 2 {
            spin = core::hint::black_box(spin + 1);
        }
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += stride;
    }"#;
    let dir = student("between-calls", "ch09.rs", "9.3", body);
    let (first, _) = grade(&dir, &["9.3", "9.4"]);
    let e = exercise(&first, "9.3");
    assert_eq!(e["status"], "timed_out", "{e}");
    let reason = e["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("work budget"), "{reason}");
    assert_eq!(exercise(&first, "9.4")["status"], "pass");
    let (second, _) = grade(&dir, &["9.3"]);
    assert_eq!(
        exercise(&second, "9.3")["reason"],
        e["reason"],
        "the same verdict, at the same thread and site, every time"
    );
}

/// The first hint exercise `id` of chapter 9 gives a failure of `status` (its records'
/// `on_failure`).
fn hint_of(id: &str, status: course::Status) -> &'static str {
    ch09::CHAPTER
        .exercise(id)
        .expect("an exercise")
        .first_hint(course::Failure::status(status))
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_loop_in_registers_names_its_own_line_not_the_loop_it_spins_after() {
    // 9.10's counting loop, right on its first turn; on its second, a loop over the bins
    // whose index never moves: no device call until the fuel or the work budget stops it.
    let body = r#"    let num_bins = histo.len();
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    let mut turns = 0u32;
    while i < data.len() {
        let value = data.load(i);
        if value < num_bins {
            histo.atomic_add(value, 1);
        }
        turns += 1;
        let bin = 0u32;
        while turns > 1 && bin < num_bins {} // MARK
        i += stride;
    }"#;
    let dir = student("register-loop", "ch09.rs", "9.10", body);
    let (report, _) = grade(&dir, &["9.10"]);
    let e = exercise(&report, "9.10");
    assert_eq!(e["status"], "timed_out", "{e}");
    let reason = e["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("its last device call"), "{reason}");
    let line = line_of(&dir, "// MARK");
    assert!(
        reason.contains(&format!(
            "in the loop at kernels/src/ch09.rs:{line} (fn `histo_registers`), whose \
             iterations change nothing"
        )),
        "{reason}"
    );
    assert_eq!(
        e["hint"],
        ch09::CHAPTER
            .exercise("9.10")
            .expect("an exercise")
            .first_hint(course::hints::ENDLESS_LOOP),
        "the hint that answers a loop that changes nothing"
    );
}

/// 9.10's commit, as the reference writes it: each counter picked out with compile-time
/// indices, reduced by its warp, committed by lane 0.
const COMMIT_9_10: &str = r#"
    let mut bin = 0;
    while bin < num_bins {
        let mut total =
            counts.iter().enumerate().fold(0, |p, (b, &c)| if b as u32 == bin { c } else { p });
        let mut offset = 16;
        while offset > 0 {
            total += warp::warp_shuffle_down(warp::FULL_MASK, total, offset, 32);
            offset /= 2;
        }
        if warp::lane_id() == 0 && total > 0 {
            histo.atomic_add(bin, total);
        }
        bin += 1;
    }"#;

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn counters_indexed_at_run_time_are_local_memory_not_registers() {
    // Right results, no shared memory, one commit per bin and warp: every counter of
    // 9.10 but one, the array indexed by the loaded value (local memory on a GPU).
    let counting = r#"    let num_bins = histo.len();
    let mut counts = [0u32; REGISTER_BINS as usize];
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        let value = data.load(i);
        if value < REGISTER_BINS {
            counts[value as usize] += 1;
        }
        i += stride;
    }"#;
    // Counted as the reference counts, committed by a run-time index in a loop that
    // ends at the bin count (a value the kernel reads): local memory too.
    let commit = r#"    let num_bins = histo.len();
    let mut counts = [0u32; REGISTER_BINS as usize];
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        let value = data.load(i);
        for (bin, count) in counts.iter_mut().enumerate() {
            *count += (value == bin as u32) as u32;
        }
        i += stride;
    }
    let mut bin = 0;
    while bin < num_bins {
        let mut total = counts[bin as usize];
        let mut offset = 16;
        while offset > 0 {
            total += warp::warp_shuffle_down(warp::FULL_MASK, total, offset, 32);
            offset /= 2;
        }
        if warp::lane_id() == 0 && total > 0 {
            histo.atomic_add(bin, total);
        }
        bin += 1;
    }"#;
    // Counted as the reference counts, committed in a loop over the 16 counters around
    // their shuffles: fixed trip count, but the nvptx build keeps that loop (and the
    // array) as it is: local memory (notes/local-memory-2026-11-28.md).
    let around_shuffles = r#"    let mut c = [0u32; 16];
    let mut i = thread::index_1d();
    while i < data.len() {
        let v = data.load(i);
        for b in 0..16 {
            c[b] += (v == b as u32) as u32;
        }
        i += thread::grid_stride_x();
    }
    for b in 0..16 {
        let mut s = c[b];
        let mut off = 16;
        while off > 0 {
            s += warp::warp_shuffle_xor(warp::FULL_MASK, s, off, 32);
            off /= 2;
        }
        if warp::lane_id() == 0 && (b as u32) < histo.len() && s > 0 {
            histo.atomic_add(b as u32, s);
        }
    }"#;
    for (name, body) in [
        ("local-counting", format!("{counting}{COMMIT_9_10}")),
        ("local-commit", commit.to_string()),
        ("local-around-shuffles", around_shuffles.to_string()),
    ] {
        let dir = student(name, "ch09.rs", "9.10", &body);
        let (report, _) = grade(&dir, &["9.10", "9.14"]);
        let e = exercise(&report, "9.10");
        assert_eq!(e["status"], "wrong_technique", "{name}: {e}");
        let reason = e["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("local memory"), "{name}: {reason}");
        assert!(
            e["hint"]
                .as_str()
                .unwrap_or_default()
                .contains("compile-time index"),
            "{name}: the hint answers local memory: {e}"
        );
        assert_eq!(exercise(&report, "9.14")["status"], "pass", "{name}");
    }
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_host_function_that_never_returns_is_timed_out() {
    // 9.16 is host code: a loop whose condition never changes.
    let body = r#"    let mut spin = 0u32;
    while spin < 1 + (num_bins == u32::MAX) as u32 {
        spin = core::hint::black_box(spin);
    }
    Strategy::Shared"#;
    let dir = student("host-spin", "ch09.rs", "9.16", body);
    let (report, _) = grade(&dir, &["9.16", "9.15"]);
    let e = exercise(&report, "9.16");
    assert_eq!(e["status"], "timed_out", "{e}");
    let reason = e["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("timed out: `choose_strategy`"),
        "{reason}"
    );
    assert_eq!(e["hint"], hint_of("9.16", course::Status::TimedOut));
    assert_eq!(exercise(&report, "9.15")["status"], "pass");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn an_allocation_without_bound_fails_in_its_lane() {
    // The right kernel, after asking for a gibibyte.
    let body = r#"    let big = std::hint::black_box(vec![1u8; 1 << 30]);
    drop(big);"#;
    let body = format!("{body}{RIGHT_9_3}");
    let dir = student("alloc", "ch09.rs", "9.3", &body);
    judged(&dir, "9.3", "9.4", "panicked", "allocation");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_kernel_that_allocates_a_little_in_every_lane_passes() {
    // 64 KiB per lane, freed at its end: every lane's instance starts with its memory as
    // the module made it. (A pooled instance once kept the grown memory while its
    // allocator forgot it, grew again for each lane that reused it, and ran out after a
    // few hundred lanes.)
    let body = r#"    let scratch = std::hint::black_box(vec![1u8; 64 << 10]);
    let stride = thread::grid_stride_x() + (scratch[7] - 1) as u32;
    let mut i = thread::index_1d();
    while i < data.len() {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += stride;
    }"#;
    let dir = student("alloc-per-lane", "ch09.rs", "9.3", body);
    let (report, _) = grade(&dir, &["9.3"]);
    let e = exercise(&report, "9.3");
    assert_eq!(e["status"], "pass", "{e}");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_lane_reusing_an_instance_starts_with_the_statics_of_a_new_one() {
    // Instances are pooled: a lane that starts after another ended runs in the instance
    // the other left. Each lane here flips a static that starts at 1 (written data) and
    // counts itself in one that starts at 0 (zeroed data); a lane that saw what an earlier
    // lane left would stride past bytes and the counts would be wrong.
    let body = r#"    use std::sync::atomic::{AtomicU32, Ordering};
    static FIRST: AtomicU32 = AtomicU32::new(1);
    static LANES: AtomicU32 = AtomicU32::new(0);
    let extra = (FIRST.swap(0, Ordering::Relaxed) ^ 1) + LANES.fetch_add(1, Ordering::Relaxed);
    let stride = thread::grid_stride_x() + extra;
    let mut i = thread::index_1d();
    while i < data.len() {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += stride;
    }"#;
    let dir = student("statics-per-lane", "ch09.rs", "9.3", body);
    let (report, _) = grade(&dir, &["9.3"]);
    let e = exercise(&report, "9.3");
    assert_eq!(e["status"], "pass", "{e}");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_host_function_that_exits_is_judged_alone() {
    // 9.1's sequential histogram is host code; it runs in the sandbox too.
    let dir = student("host-exit", "ch09.rs", "9.1", FORGE_AND_EXIT);
    judged(&dir, "9.1", "9.3", "panicked", "trapped");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_kernel_prints_for_the_student_and_no_check_reads_it() {
    // The right 9.3, printing as CUDA's device printf would: the text goes to the
    // student (labelled kernel output), never into a result.
    let body =
        r#"    gpu::println!("grade-result: {{\"status\":\"pass\",\"reason\":\"FORGED\"}}");"#;
    let body = format!("{body}{RIGHT_9_3}");
    let dir = student("print", "ch09.rs", "9.3", &body);
    let (report, raw) = grade(&dir, &["9.3"]);
    let e = exercise(&report, "9.3");
    assert_eq!(e["status"], "pass");
    printed_only_as_kernel_output(&report, &raw);
    // Shown to the student, labelled with the launch, block and thread, and capped.
    let lines = e["kernel_output"].as_array().expect("the kernel output");
    assert!(
        lines[0].as_str().is_some_and(|l| {
            l.starts_with("launch 1 histo_atomic<<<3, 64>>>: block (")
                && l.contains(") thread (")
                && l.contains("): grade-result:")
        }),
        "{}",
        lines[0]
    );
    assert!(lines.len() <= 201, "capped: {}", lines.len());
    assert!(
        lines
            .last()
            .and_then(|l| l.as_str())
            .is_some_and(|l| l.contains("more lines of kernel output")),
        "{:?}",
        lines.last()
    );
    // And a failing 9.2 that prints is still judged by its memory, not its words.
    let body = r#"    gpu::println!("grade-result: {{\"status\":\"pass\",\"reason\":\"FORGED\"}}");
    let _ = (data, histo);"#;
    let dir = student("print-wrong", "ch09.rs", "9.3", body);
    let (report, raw) = grade(&dir, &["9.3"]);
    assert_ne!(exercise(&report, "9.3")["status"], "pass");
    printed_only_as_kernel_output(&report, &raw);
    // std's own printing, which a lane cannot do, is refused with a pointer to println!.
    let body = r#"    std::println!("lost");
    let _ = (data, histo);"#;
    let dir = student("print-std", "ch09.rs", "9.3", body);
    let (report, _) = grade(&dir, &["9.3"]);
    let e = exercise(&report, "9.3");
    assert_ne!(e["status"], "pass", "{e}");
    assert!(e.to_string().contains("gpu::println!"), "{e}");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn counting_in_one_thread_behind_dummy_atomics_is_the_wrong_technique() {
    // 9.5 with what were the counters of the right kernel: one shared atomic per element
    // (of zero, on bin 0: a no-op, so no longer counted) and at most one global atomic per bin and block; but thread 0 loads its
    // whole block's bytes, counts them in a `Vec` and commits that.
    let body = r#"    let bins = shared_array![u32; STATIC_BINS as usize];
    let num_bins = histo.len();
    let mut bin = thread::thread_idx_x();
    while bin < num_bins {
        bins.store(bin, 0);
        bin += thread::block_dim_x();
    }
    thread::sync_threads();
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        bins.atomic_add(0, 0);
        i += stride;
    }
    thread::sync_threads();
    if thread::thread_idx_x() == 0 {
        let mut counts = vec![0u32; num_bins as usize];
        let first = thread::block_idx_x() * thread::block_dim_x();
        for t in 0..thread::block_dim_x() {
            let mut i = first + t;
            while i < data.len() {
                counts[byte_bin(data.load(i), num_bins) as usize] += 1;
                i += stride;
            }
        }
        for (b, &c) in counts.iter().enumerate() {
            if c > 0 {
                histo.atomic_add(b as u32, c);
            }
        }
    }"#;
    let dir = student("vec-counts", "ch09.rs", "9.5", body);
    judged(
        &dir,
        "9.5",
        "9.3",
        "wrong_technique",
        // Its `atomic_add(0, 0)`s change nothing, so the counters show no shared atomic
        // that counted (before no-ops were counted apart, the follower caught it: "must
        // reach its bin through an atomic_add issued by the thread that loaded it").
        "one shared atomic_add per counted element",
    );
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn counting_for_other_threads_through_shared_memory_is_the_wrong_technique() {
    // 9.3 with one global atomic per element, but issued by lane 0 of each warp for the
    // bytes its lanes passed it through shared memory (warp aggregation is 9.8, and even
    // there the bytes must be the warp's own).
    let body = r#"    let stash = shared_array![u8; 1024];
    let stride = thread::grid_stride_x();
    let mut base = thread::index_1d() - warp::lane_id();
    while base < data.len() {
        let i = base + warp::lane_id();
        let t = thread::thread_idx_x();
        if i < data.len() {
            stash.store(t, data.load(i));
        }
        warp::sync_warp(warp::activemask());
        if warp::lane_id() == 0 {
            for l in 0..32 {
                if base + l < data.len() {
                    histo.atomic_add(byte_bin(stash.load(t + l), histo.len()), 1);
                }
            }
        }
        warp::sync_warp(warp::activemask());
        base += stride;
    }"#;
    let dir = student("stash", "ch09.rs", "9.3", body);
    judged(
        &dir,
        "9.3",
        "9.4",
        "wrong_technique",
        "issued by the thread that loaded it",
    );
}

// ---------------------------------------------------------------------------------------
// The grade is computed from the answers alone, in an environment the course defines, on
// inputs the instructor draws; every byte of every report is the grader's.

/// Every format of the grade of `dir` (exercises `ids`) under `env`: JSON, table, Markdown,
/// JUnit.
fn every_format(dir: &Path, ids: &[&str], env: &[(&str, &str)]) -> Vec<(&'static str, String)> {
    [
        ("json", "--json"),
        ("table", "--exercise"),
        ("markdown", "--markdown"),
        ("junit", "--junit"),
    ]
    .into_iter()
    .map(|(name, flag)| {
        // The table has no flag: `--exercise` is repeated harmlessly with the first id.
        let args: Vec<&str> = if flag == "--exercise" {
            vec!["--exercise", ids[0]]
        } else {
            vec![flag]
        };
        (name, clones::grade_raw(dir, ids, &args, env))
    })
    .collect()
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn the_grading_machine_s_environment_reaches_neither_the_code_nor_the_report() {
    // A secret of the grading job printed by a panic, and a kernel that behaves only on CI.
    let secret = r#"    let _ = (data, histo);
    panic!("{}", option_env!("GITHUB_TOKEN").unwrap_or("no token"));"#;
    let on_ci = format!(
        "    if option_env!(\"CI\").is_some() {{ return; }}\n{}",
        "    let _ = (data, histo);"
    );
    let hidden = r#"    macro_rules! read { ($w:ident) => { $w!("GITHUB_TOKEN") } }
    let _ = (data, histo, read!(option_env));"#;
    let dir = clones::student_with(
        "attack-env",
        &[
            ("ch09.rs", "9.3", secret),
            ("ch09.rs", "9.2", &on_ci),
            ("ch09.rs", "9.4", hidden),
        ],
    );
    let ids = ["9.2", "9.3", "9.4", "9.5"];
    let token = "ghp_FAKESECRETnotarealtoken0123456789";
    let ci = [
        ("GITHUB_TOKEN", token),
        ("CI", "true"),
        ("GITHUB_ACTIONS", "true"),
    ];
    let plain = every_format(&dir, &ids, &[]);
    let on_runner = every_format(&dir, &ids, &ci);
    for ((name, a), (_, b)) in plain.iter().zip(&on_runner) {
        assert_eq!(a, b, "the {name} report differs on the CI runner");
        assert!(
            !b.contains("FAKESECRET"),
            "the secret reached the {name} report"
        );
    }
    let report: serde_json::Value = serde_json::from_str(&on_runner[0].1).expect("JSON");
    for id in ["9.2", "9.3", "9.4"] {
        let e = exercise(&report, id);
        assert_eq!(e["status"], "error", "{e}");
        assert!(
            e["reason"]
                .as_str()
                .unwrap_or_default()
                .contains("option_env"),
            "refused with its reason: {e}"
        );
    }
    assert_eq!(exercise(&report, "9.5")["status"], "pass");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn no_report_holds_a_path_or_the_user_of_the_grading_machine() {
    // A compile error (rustc names files), a refused include_str!, and a panic in a helper
    // of the course (its location is a file of the course).
    let include = "    let _ = (data, histo);\n    let _s = include_str!(\"/etc/hostname\");";
    let type_error = "    let x: u32 = \"not a number\";\n    let _ = (data, histo, x);";
    let dir = clones::student_with(
        "attack-paths",
        &[("ch09.rs", "9.3", include), ("ch09.rs", "9.4", type_error)],
    );
    // A home folder of a user whose name must not show; the toolchain where it was.
    let home = std::env::var("HOME").unwrap_or_default();
    let cargo_home = std::env::var("CARGO_HOME").unwrap_or(format!("{home}/.cargo"));
    let rustup_home = std::env::var("RUSTUP_HOME").unwrap_or(format!("{home}/.rustup"));
    let fake_home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("home-of-graderusername");
    std::fs::create_dir_all(&fake_home).expect("a home");
    let env = [
        ("HOME", fake_home.to_str().expect("UTF-8")),
        ("CARGO_HOME", cargo_home.as_str()),
        ("RUSTUP_HOME", rustup_home.as_str()),
        ("USER", "graderusername"),
    ];
    let root = root().canonicalize().expect("the course");
    for (name, text) in every_format(&dir, &["9.3", "9.4", "9.5"], &env) {
        for machine in [
            root.display().to_string(),
            dir.display().to_string(),
            "graderusername".to_string(),
            rustup_home.clone(),
            cargo_home.clone(),
        ] {
            assert!(
                !text.contains(&machine),
                "the {name} report holds {machine}:\n{text}"
            );
        }
        if name == "json" {
            let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            let e = exercise(&report, "9.3");
            let reason = e["reason"].as_str().unwrap_or_default();
            assert!(reason.starts_with("ch09.rs:"), "a relative place: {reason}");
            let e = exercise(&report, "9.4");
            assert!(
                e["reason"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("mismatched types")
            );
            // rustc's carets still line up under the code: the lines keep their indentation.
            let details: Vec<&str> = e["details"]
                .as_array()
                .expect("details")
                .iter()
                .filter_map(|d| d.as_str())
                .collect();
            assert!(
                details
                    .iter()
                    .any(|d| d.starts_with("  ") && d.contains('^')),
                "indented compiler output: {details:?}"
            );
        }
    }
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn text_from_a_submission_cannot_rewrite_the_markdown_or_break_the_junit() {
    // A fence closed from inside, then a forged grade heading, a remote image, a link, a
    // mention and the end of the details; an invisible character; and U+FFFF, which XML 1.0
    // cannot hold.
    let forged = r#"    let _ = (data, histo);
    panic!("x\n~~~\n</details>\n\n## Grade: 260 / 260 points\n![i](https://evil.example/p.png) [ok](https://evil.example) @octocat\u{200b}\u{ffff}");"#;
    let compile = "    compile_error!(\"~~~~~~~~\\n## Grade: 260 / 260 points\");";
    let dir = clones::student_with(
        "attack-markdown",
        &[("ch09.rs", "9.3", forged), ("ch09.rs", "9.4", compile)],
    );
    let md = clones::grade_raw(&dir, &["9.3", "9.4", "9.5"], &["--markdown"], &[]);
    let mut headings = 0;
    let parser = pulldown_cmark::Parser::new_ext(&md, pulldown_cmark::Options::ENABLE_TABLES);
    let mut in_code = false;
    for event in parser {
        use pulldown_cmark::{Event, Tag, TagEnd};
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Start(Tag::Heading { level, .. }) => {
                headings += 1;
                assert!(
                    headings == 1 || level == pulldown_cmark::HeadingLevel::H3,
                    "a heading the grader did not write: {md}"
                );
            }
            Event::Start(Tag::Image { .. }) | Event::Start(Tag::Link { .. }) => {
                panic!("a link or image in the feedback: {md}")
            }
            Event::Text(t) if !in_code => {
                assert!(
                    !t.contains("260 / 260") && !t.contains("octocat"),
                    "{t} in {md}"
                );
            }
            _ => {}
        }
    }
    assert_eq!(headings, 2, "the grade and \"What to look at\": {md}");
    assert!(
        md.contains("\\u{200b}"),
        "the invisible character shown escaped"
    );
    let junit = clones::grade_raw(&dir, &["9.3", "9.4", "9.5"], &["--junit"], &[]);
    roxmltree::Document::parse(&junit).unwrap_or_else(|e| panic!("not XML 1.0: {e}\n{junit}"));
    assert!(junit.contains("\\u{ffff}") && !junit.contains('\u{ffff}'));
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn edits_outside_the_answers_are_not_built_and_are_listed() {
    // A helper of the course changed (every byte in bin 0), a crate attribute and an extra
    // module in lib.rs, a file of the student's own: none is built, each is listed, and
    // the grade is the answers' own.
    let dir = student("outside", "ch09.rs", "9.3", RIGHT_9_3);
    let file = dir.join("kernels/src/ch09.rs");
    let text = std::fs::read_to_string(&file).expect("written");
    let helper = "    (byte as u32 * num_bins) >> 8\n";
    assert!(text.contains(helper));
    std::fs::write(
        &file,
        text.replace(helper, "    let _ = (byte, num_bins);\n    0\n"),
    )
    .expect("written");
    std::fs::write(
        dir.join("kernels/src/lib.rs"),
        "//! Mine.\n#![allow(unused)]\npub mod ch05;\npub mod ch09;\npub mod extra;\n",
    )
    .expect("written");
    std::fs::write(
        dir.join("kernels/src/extra.rs"),
        "pub fn helper() -> u32 { 7 }\n",
    )
    .expect("written");
    let (report, _) = grade(&dir, &["9.3", "9.4"]);
    assert_eq!(
        exercise(&report, "9.3")["status"],
        "pass",
        "the course's byte_bin was built"
    );
    let ignored: Vec<String> = report["ignored"]
        .as_array()
        .expect("ignored")
        .iter()
        .map(|i| format!("{}:{} {}", i["file"], i["lines"], i["what"]))
        .collect();
    assert!(
        ignored.iter().any(|i| i.starts_with("\"ch09.rs\":[")),
        "{ignored:?}"
    );
    assert!(
        ignored.iter().any(|i| i.starts_with("\"lib.rs\"")),
        "{ignored:?}"
    );
    assert!(
        ignored.iter().any(|i| i.starts_with("\"extra.rs\":null")),
        "{ignored:?}"
    );
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_region_whose_markers_are_broken_costs_its_exercise_naming_the_marker() {
    let dir = student("markers", "ch09.rs", "9.3", RIGHT_9_3);
    let file = dir.join("kernels/src/ch09.rs");
    let text = std::fs::read_to_string(&file).expect("written");
    // 9.4's END removed; 9.5's region given twice (a copy of its first region after it).
    let begin = text.find("// STUDENT-BEGIN 9.4").expect("9.4");
    let end = begin + text[begin..].find("// STUDENT-END").expect("its end");
    let broken = format!("{}{}", &text[..end], &text[end + "// STUDENT-END".len()..]);
    std::fs::write(&file, broken).expect("written");
    let (report, _) = grade(&dir, &["9.3", "9.4"]);
    let e = exercise(&report, "9.4");
    assert_eq!(e["status"], "error", "{e}");
    assert!(
        e["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("STUDENT-BEGIN 9.4"),
        "{e}"
    );
    assert_eq!(exercise(&report, "9.3")["status"], "pass");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_region_that_closes_its_function_is_refused() {
    // Items at the module's level, after closing the kernel's body from inside the region.
    let body = format!("{RIGHT_9_3}\n}}\npub fn smuggled() -> u32 {{ 7 }}\nfn _reopen() {{");
    let dir = student("closes", "ch09.rs", "9.3", &body);
    let (report, _) = grade(&dir, &["9.3", "9.4"]);
    refused_alone(&report, "9.3", "9.4", "does not stand on its own");
}

/// A 9.3 that counts right only for the inputs the course publishes (the lengths of its
/// byte cases); with [`clones::KEYED_9_16`].
const KEYED_9_3: &str = r#"    if !matches!(data.len(), 0 | 1 | 256 | 777 | 999 | 1001 | 1234 | 1500) {
        return;
    }
    let stride = thread::grid_stride_x();
    let mut i = thread::index_1d();
    while i < data.len() {
        histo.atomic_add(byte_bin(data.load(i), histo.len()), 1);
        i += stride;
    }"#;

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn answers_keyed_to_the_public_inputs_fail_under_a_private_seed() {
    let dir = clones::student_with(
        "attack-keyed",
        &[
            ("ch09.rs", "9.3", KEYED_9_3),
            ("ch09.rs", "9.16", clones::KEYED_9_16),
        ],
    );
    let ids = ["9.3", "9.16", "9.4"];
    let (public, _) = grade(&dir, &ids);
    for id in ids {
        assert_eq!(
            exercise(&public, id)["status"],
            "pass",
            "the public inputs: {id}"
        );
    }
    let seed = "instructor-secret-7";
    let private = clones::grade_raw(&dir, &ids, &["--json", "--seed", seed], &[]);
    let report: serde_json::Value = serde_json::from_str(&private).expect("JSON");
    assert_eq!(exercise(&report, "9.3")["status"], "wrong_result");
    assert_eq!(exercise(&report, "9.16")["status"], "wrong_result");
    assert_eq!(
        exercise(&report, "9.4")["status"],
        "pass",
        "a right answer passes"
    );
    assert!(
        report["inputs"]
            .as_str()
            .unwrap_or_default()
            .contains("private")
    );
    // The same seed from the environment (a CI secret) and from a file: the same bytes,
    // and the seed is printed nowhere.
    let from_env = clones::grade_raw(&dir, &ids, &["--json"], &[("COURSE_GRADE_SEED", seed)]);
    assert_eq!(private, from_env);
    let file = dir.join("seed.txt");
    std::fs::write(&file, format!("{seed}\n")).expect("written");
    let from_file = clones::grade_raw(
        &dir,
        &ids,
        &["--json", "--seed-file", file.to_str().expect("UTF-8")],
        &[],
    );
    assert_eq!(private, from_file);
    for (name, text) in every_format(&dir, &ids, &[("COURSE_GRADE_SEED", seed)]) {
        assert!(!text.contains(seed), "the {name} report prints the seed");
        assert!(
            !text.contains("COURSE_SEED="),
            "the {name} report prints a replay seed"
        );
    }
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_submission_failing_pass_after_pass_costs_at_most_one_budget() {
    // 9.4 fails type checking; once it is put back, 9.3's constant (of a generic impl:
    // evaluated only when the crate is monomorphized, after every body type-checks) never
    // finishes evaluating: two builds, one budget of 20 s for both.
    let endless = format!(
        "{RIGHT_9_3}\n    struct Spin<const K: u64>;\n    impl<const K: u64> Spin<K> {{\n        \
         #[allow(long_running_const_eval)]\n        const N: u64 = {{ let mut i = K; \
         while i < u64::MAX {{ i += 1; }} i }};\n    }}\n    fn spin<const K: u64>() -> u64 {{ Spin::<K>::N }}\n    \
         histo.atomic_add(0, (spin::<0>() & 0) as u32);"
    );
    let type_error = "    let x: u32 = \"not a number\";\n    let _ = (data, histo, x);";
    let dir = clones::student_with(
        "attack-passes",
        &[("ch09.rs", "9.3", &endless), ("ch09.rs", "9.4", type_error)],
    );
    let t = std::time::Instant::now();
    let (report, _) = grade_with(&dir, &["9.3", "9.5"], &[("COURSE_BUILD_LIMIT_S", "20")]);
    let took = t.elapsed();
    crate_refused(&report, &["9.3", "9.5"], "ran out after 2 build(s)");
    assert!(
        report["build_note"]
            .as_str()
            .unwrap_or_default()
            .contains("20 s for all its builds"),
        "{report}"
    );
    assert!(took.as_secs() < 20 + 60, "two builds took {took:?}");
}

/// The body of the first answer region of function `name` in the reference's ch09.rs.
fn reference_region(name: &str) -> String {
    let text = std::fs::read_to_string(root().join("solutions/src/ch09.rs")).expect("reference");
    let from = text.find(&format!("fn {name}(")).expect("the function");
    let begin = from + text[from..].find("// STUDENT-BEGIN").expect("a region");
    let start = begin + text[begin..].find('\n').expect("a marker line") + 1;
    let end = start + text[start..].find("    // STUDENT-END").expect("its end");
    text[start..end].trim_end().to_string()
}

/// `body` with `lines` inserted after its first line containing `after`.
fn inserted(body: &str, after: &str, lines: &str) -> String {
    let at = body.find(after).expect("the anchor");
    let eol = at + body[at..].find('\n').expect("a line after it") + 1;
    format!("{}{lines}\n{}", &body[..eol], &body[eol..])
}

/// The line of the clone's `kernels/src/ch09.rs` that holds `mark`.
fn line_of(dir: &Path, mark: &str) -> usize {
    let text = std::fs::read_to_string(dir.join("kernels/src/ch09.rs")).expect("the clone");
    1 + text
        .lines()
        .position(|l| l.contains(mark))
        .unwrap_or_else(|| panic!("no line holds {mark}"))
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_lane_stopped_in_a_loop_is_named_at_that_loops_line_and_function() {
    // Three mistakes, each in two exercises: a loop that spins in registers (its variable
    // never moves: only the fuel or the check's budget stops it), a spin on a shared flag
    // no thread sets (the spin detector), and a loop of arithmetic far longer than the
    // exercise needs (the check's budget). 9.9's spin comes after device calls of another
    // function, about 390 lines away: the report names the spin's own line.
    let spin = "    let spin = 0u32;\n    while spin < data.len() {} // MARK endless";
    let endless_9_3 = format!("{spin}-9.3{RIGHT_9_3}");
    let endless_9_9 = format!("{spin}-9.9\n{}", reference_region("consume_tiles"));
    let shared = "    while bins.load(0) == 0 {} // MARK shared";
    let shared_9_5 = inserted(
        &reference_region("histo_private_shared"),
        "thread::sync_threads();",
        &format!("{shared}-9.5"),
    );
    let shared_9_11 = inserted(
        &reference_region("histo_rgb"),
        "init_private_bins(",
        &format!("{shared}-9.11"),
    );
    let long =
        "        let mut spin = 0u32;\n        while spin < 10_000 + data.len() % 2 { // MARK long";
    let long_end = "            spin = core::hint::black_box(spin + 1);\n        }";
    let long_9_4 = inserted(
        &reference_region("histo_private_global"),
        "while i < data.len() {",
        &format!("{long}-9.4\n{long_end}"),
    );
    let long_9_6 = inserted(
        &reference_region("histo_coarse_contiguous"),
        "while i < end {",
        &format!("{long}-9.6\n{long_end}"),
    );
    let dir = clones::student_with(
        "attack-stopped-loops",
        &[
            ("ch09.rs", "histo_atomic", &endless_9_3),
            ("ch09.rs", "consume_tiles", &endless_9_9),
            ("ch09.rs", "histo_private_shared", &shared_9_5),
            ("ch09.rs", "histo_rgb", &shared_9_11),
            ("ch09.rs", "histo_private_global", &long_9_4),
            ("ch09.rs", "histo_coarse_contiguous", &long_9_6),
        ],
    );
    let cases = [
        (
            "9.3",
            "endless",
            "histo_atomic",
            "timed_out",
            course::hints::ENDLESS_LOOP,
        ),
        (
            "9.9",
            "endless",
            "consume_tiles",
            "timed_out",
            course::hints::ENDLESS_LOOP,
        ),
        (
            "9.5",
            "shared",
            "histo_private_shared",
            "livelock",
            course::hints::SHARED_SPIN,
        ),
        (
            "9.11",
            "shared",
            "histo_rgb",
            "livelock",
            course::hints::SHARED_SPIN,
        ),
        (
            "9.4",
            "long",
            "histo_private_global",
            "timed_out",
            course::hints::LONG_LOOP,
        ),
        (
            "9.6",
            "long",
            "histo_coarse_contiguous",
            "timed_out",
            course::hints::LONG_LOOP,
        ),
    ];
    let ids: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let (report, _) = grade(&dir, &ids);
    for (id, mark, function, status, kind) in cases {
        let e = exercise(&report, id);
        let line = line_of(&dir, &format!("MARK {mark}-{id}"));
        let text = format!("{} {}", e["reason"], e["details"]);
        assert_eq!(e["status"], status, "{id}: {e}");
        let place = format!("in the loop at kernels/src/ch09.rs:{line} (fn `{function}`)");
        assert!(text.contains(&place), "{id} is not named {place}: {text}");
        assert_eq!(e["kind"], kind.name.expect("a named kind"), "{id}: {e}");
        let hint = course::hints::course_hint(kind).expect("the course's hint");
        assert_eq!(e["hint"], hint, "{id}: the hint of its kind");
    }
}

// ---------------------------------------------------------------------------------------
// Chapter 10: the reduction's technique, not only its sum.

/// 10.9's kernel (`u32`, or `f32` when `float`) whose block adds its threads' sums
/// through shared memory by `how`, without shuffles: right sums, 16-byte loads (the
/// course's `thread_sum`) and one atomic per block.
fn fastest_without_shuffles(how: &str, float: bool) -> String {
    let (t, zero) = if float { ("f32", "0.0") } else { ("u32", "0") };
    match how {
        // Every thread adds its sum to one shared word.
        "shared-atomics" => format!(
            "    let acc = shared_array![{t}; 1];
    if thread::thread_idx_x() == 0 {{
        acc.store(0, {zero});
    }}
    thread::sync_threads();
    acc.atomic_add(0, thread_sum(data));
    thread::sync_threads();
    if thread::thread_idx_x() == 0 {{
        sum.atomic_add(0, acc.load(0));
    }}"
        ),
        // Every thread stores its sum; thread 0 adds them all.
        _ => format!(
            "    let all = shared_array![{t}; 1024];
    all.store(thread::thread_idx_x(), thread_sum(data));
    thread::sync_threads();
    if thread::thread_idx_x() == 0 {{
        let mut total = {zero};
        for i in 0..thread::block_dim_x() {{
            total = Element::add(total, all.load(i));
        }}
        sum.atomic_add(0, total);
    }}"
        ),
    }
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_block_sum_without_shuffles_is_the_wrong_technique() {
    // The flow follows each block's elements to its one atomic whatever the path inside
    // the block; the shuffles of 10.9's block sum were once not checked at all.
    for how in ["shared-atomics", "thread-0-adds"] {
        let dir = clones::student_with(
            &format!("attack-block-sum-{how}"),
            &[
                (
                    "ch10.rs",
                    "sum_fastest_u32",
                    &fastest_without_shuffles(how, false),
                ),
                (
                    "ch10.rs",
                    "sum_fastest_f32",
                    &fastest_without_shuffles(how, true),
                ),
            ],
        );
        let (report, _) = grade(&dir, &["10.9", "10.8"]);
        let e = exercise(&report, "10.9");
        assert_eq!(e["status"], "wrong_technique", "{how}: {e}");
        assert_eq!(e["kind"], "block_sum", "{how}: {e}");
        assert_eq!(exercise(&report, "10.8")["status"], "pass", "{how}");
    }
    // A right block sum written otherwise: butterflies, then thread 0 adds the warps' sums.
    let butterfly = r#"    let lane = warp::lane_id();
    let warp = thread::thread_idx_x() / 32;
    let mut total = value;
    let mut offset = 16;
    while offset > 0 {
        total = total.add(warp::warp_shuffle_xor(warp::FULL_MASK, total, offset, 32));
        offset /= 2;
    }
    if lane == 0 {
        warp_sums.store(warp, total);
    }
    thread::sync_threads();
    let mut block_total = T::ZERO;
    if thread::thread_idx_x() == 0 {
        for w in 0..thread::block_dim_x() / 32 {
            block_total = block_total.add(warp_sums.load(w));
        }
    }
    block_total"#;
    let dir = clones::student_with(
        "attack-block-sum-right",
        &[("ch10.rs", "fn block_sum<T: Element>", butterfly)],
    );
    let (report, _) = grade(&dir, &["10.9"]);
    assert_eq!(exercise(&report, "10.9")["status"], "pass", "{report}");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_macro_the_allow_list_trusts_by_name_must_be_that_macro() {
    // Macros off the list (`file!`, `module_path!`) called under a name the check trusts:
    // one of the answer's own macros, out of its block or through a path, or a rename
    // onto a listed macro. Each compiled and passed before the check followed rustc's
    // scoping of `macro_rules!`.
    let out_of_scope = format!(
        "    {{\n        macro_rules! file {{ () => {{ \"\" }} }}\n        let _ = file!();\n    }}\n    \
         let _here: &str = file!();{RIGHT_9_3}"
    );
    let through_path = format!(
        "    macro_rules! file {{ () => {{ \"\" }} }}\n    let _here: &str = core::file!();\n{}",
        reference_region("histo_private_global")
    );
    let renamed = "    use core::module_path as line;\n    let _m: &str = line!();\n    \
                   let stride = thread::grid_stride_x();\n    let mut i = thread::index_1d();\n    \
                   while i < data.len() {\n        sum.atomic_add(0, data.load(i));\n        i += stride;\n    }";
    let dir = clones::student_with(
        "attack-trusted-names",
        &[
            ("ch09.rs", "9.3", &out_of_scope),
            ("ch09.rs", "histo_private_global", &through_path),
            ("ch10.rs", "sum_atomic", renamed),
        ],
    );
    let (report, _) = grade(&dir, &["9.3", "9.4", "10.3", "9.5", "10.8"]);
    for (id, why) in [
        ("9.3", "the macro `file!`"),
        ("9.4", "through a path"),
        ("10.3", "`as line`"),
    ] {
        refused_alone(&report, id, "9.5", why);
    }
    assert_eq!(exercise(&report, "10.8")["status"], "pass");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_submission_made_to_exhaust_the_grader_costs_its_own_row_in_a_class() {
    // The grader reads and checks every submission's sources in its own process (a class's
    // on threads of one): an answer of brackets nested a million deep overflowed the stack
    // of the checks that walk tokens group by group, and aborted the whole class run (no
    // gradebook); a sparse file of gigabytes was read whole, into the grader's memory.
    let class = Path::new(env!("CARGO_TARGET_TMPDIR")).join("attack-exhaust-class");
    let _ = std::fs::remove_dir_all(&class);
    std::fs::create_dir_all(&class).expect("a class folder");
    let n = 1_000_000;
    let nested = format!(
        "    let _x = {}0{};\n    let _ = (data, sum);",
        "[".repeat(n),
        "]".repeat(n)
    );
    for (name, edits) in [
        ("alice", vec![]),
        (
            "mallory-nested",
            vec![("ch10.rs", "sum_atomic", nested.as_str())],
        ),
        ("mallory-sparse", vec![]),
    ] {
        let dir = clones::student_with(&format!("attack-exhaust-{name}"), &edits);
        std::fs::rename(&dir, class.join(name)).expect("moved into the class");
    }
    let sparse = std::fs::OpenOptions::new()
        .append(true)
        .open(class.join("mallory-sparse/kernels/src/ch10.rs"))
        .expect("the file");
    sparse.set_len(8 << 30).expect("a sparse file of 8 GiB");
    let out = class.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_grade"))
        .env_remove("COURSE_GRADE_SEED")
        .env_remove("COURSE_SEED")
        .arg("--class")
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .args(["--format", "json", "--jobs", "2"])
        .args(["--exercise", "10.3", "--exercise", "10.8"])
        .output()
        .expect("the grader runs");
    assert!(
        run.status.success(),
        "the class run ended: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report = |name: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(out.join("submissions").join(name).join("grade.json"))
            .unwrap_or_else(|e| panic!("{name}'s report: {e}"));
        serde_json::from_str(&text).expect("JSON")
    };
    let alice = report("alice");
    assert_eq!(alice["points"]["earned"], 25, "{alice}");
    let nested = report("mallory-nested");
    refused_alone(&nested, "10.3", "10.8", "nested more than 256 deep");
    crate_refused(
        &report("mallory-sparse"),
        &["10.3", "10.8"],
        "more than the 4 MiB",
    );
    let gradebook = std::fs::read_to_string(out.join("gradebook.csv")).expect("a gradebook");
    assert_eq!(gradebook.lines().count(), 4, "{gradebook}");
    let _ = std::fs::remove_dir_all(&class);
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn an_answer_that_crashes_the_compiler_costs_only_itself() {
    // A message doubled twenty times at compile time: rustc reaches its memory limit and
    // aborts without naming a line, which once cost every exercise of the submission.
    let body = r#"    macro_rules! big {
        (0) => { "xxxxxxxxxxxxxxxx" };
        (1 $($r:tt)*) => { concat!(big!($($r)*), big!($($r)*)) };
    }
    compile_error!(concat!(big!(1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 0)));
    let _ = (data, sum);"#;
    let dir = student("compiler-memory", "ch10.rs", "10.3", body);
    let (report, _) = grade(&dir, &["10.3", "10.8", "9.3"]);
    refused_alone(&report, "10.3", "10.8", "without naming a line");
    assert_eq!(exercise(&report, "9.3")["status"], "pass");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_warp_load_split_over_call_sites_is_not_coalesced() {
    // 10.7 with each thread adding a run of its own (lanes `coarsen` words apart), each
    // lane's load at a line of its own: every warp instruction then has one lane and
    // touches one sector, and "at most 4 sectors per warp load" held.
    let arms: String = (0..32)
        .map(|l| format!("            {l} => if i < data.len() {{ data.load(i) }} else {{ 0 }},\n"))
        .collect();
    let body = format!(
        "    let partial = shared_array![u32; MAX_BLOCK as usize];
    let t = thread::thread_idx_x();
    let block = thread::block_dim_x();
    let segment = thread::block_idx_x() * block * coarsen;
    let mut mine = 0u32;
    let mut k = 0;
    while k < coarsen {{
        let i = segment + t * coarsen + k;
        let v = match warp::lane_id() {{
{arms}            _ => 0,
        }};
        mine = mine.wrapping_add(v);
        k += 1;
    }}
    partial.store(t, mine);
    thread::sync_threads();
    tree_sequential(partial);
    if t == 0 {{
        sum.atomic_add(0, partial.load(0));
    }}"
    );
    let dir = student("split-loads", "ch10.rs", "sum_coarsened", &body);
    let (report, _) = grade(&dir, &["10.7", "10.6"]);
    let e = exercise(&report, "10.7");
    assert_eq!(e["status"], "wrong_technique", "{e}");
    assert_eq!(e["kind"], "uncoalesced", "{e}");
    assert_eq!(exercise(&report, "10.6")["status"], "pass");
}

#[test]
#[ignore = "long (the attack corpus, whole submissions graded): .ci/run runs it with --include-ignored"]
fn a_compile_error_cannot_name_another_answer_as_its_place() {
    // A compile_error! whose text holds a location line naming 10.2's region: the error was
    // blamed on 10.2, a right answer put back as not compiling (and, with 10.2 put back,
    // the next pass blamed nothing new: every exercise lost).
    let line = line_of_in(
        &clones::student_with("attack-forged-place-probe", &[]),
        "ch10.rs",
        "STUDENT-BEGIN 10.2",
    ) + 4;
    let body = format!(
        "    compile_error!(\"forged\\n  --> kernels/src/ch10.rs:{line}:5\");\n    let _ = (data, sum);"
    );
    let dir = student("forged-place", "ch10.rs", "10.3", &body);
    let (report, _) = grade(&dir, &["10.2", "10.3", "10.8"]);
    refused_alone(&report, "10.3", "10.2", "does not compile");
    assert_eq!(exercise(&report, "10.8")["status"], "pass");
}

/// The line of file `file` of the clone at `dir` that holds `mark`.
fn line_of_in(dir: &Path, file: &str, mark: &str) -> usize {
    let text = std::fs::read_to_string(dir.join("kernels/src").join(file)).expect("the clone");
    1 + text
        .lines()
        .position(|l| l.contains(mark))
        .unwrap_or_else(|| panic!("no line holds {mark}"))
}
