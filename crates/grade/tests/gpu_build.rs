//! A submission's answers built to PTX for a GPU grade (`grade --prepare-gpu`), without a
//! GPU: the PTX is the submission's, spliced into the course's files as the sandbox's build
//! splices them, never the course's own `kernels/`. Needs the pinned nightly, so it is
//! ignored by a plain `cargo test` and run by `.ci/run`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A scratch submission: the course's stubs, with 5.1's one-block answer written with a
/// constant no course file holds.
fn submission(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gpu-build-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let src = dir.join("kernels").join("src");
    std::fs::create_dir_all(&src).expect("a scratch folder");
    // Every file of the shipped stubs: lib.rs and one per chapter of the course.
    let pristine = root().join("crates/learn/pristine");
    let files = std::fs::read_dir(&pristine).expect("the pristine stubs");
    for f in files.filter_map(|e| e.ok()).map(|e| e.file_name()) {
        if !f.to_string_lossy().ends_with(".rs") {
            continue;
        }
        let text = std::fs::read_to_string(pristine.join(&f)).expect("the pristine stubs");
        let text = text.replace(
            "todo!(\"5.1 mul_one_block: a[i] = b[i] * c[i] with i = thread_idx_x()\")",
            "let i = thread::thread_idx_x();\n    a.store(i, b.load(i).wrapping_mul(c.load(i)) ^ 6221137);",
        );
        std::fs::write(src.join(f), text).expect("written");
    }
    dir
}

#[test]
#[ignore = "builds PTX with the pinned nightly (.ci/run runs it)"]
fn the_ptx_of_a_submission_holds_its_own_answer() {
    let sub = submission("answer");
    let out = sub.join("prepared");
    let run = Command::new(env!("CARGO_BIN_EXE_grade"))
        .arg("--student")
        .arg(&sub)
        .arg("--prepare-gpu")
        .arg(&out)
        .output()
        .expect("the grader runs");
    let said = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{said}");
    let ptx = std::fs::read_to_string(out.join("kernels.ptx")).expect("the submission's PTX");
    let reference = std::fs::read_to_string(out.join("solutions.ptx")).expect("the reference's");
    assert!(ptx.contains(".entry mul_one_block("), "{ptx}");
    // The submission's answer is in it; nothing of the course's kernels/ is (the stub's
    // 5.1 traps; the reference's has no such constant).
    assert!(
        ptx.contains("6221137"),
        "the answer's constant is not in the PTX"
    );
    assert!(!reference.contains("6221137"));
    assert!(reference.contains(".entry mul_one_block("));
    let wasm = std::fs::read(out.join("kernels.wasm")).expect("the sandbox's module");
    assert!(wasm.starts_with(b"\0asm"));
    let outline: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("kernels.wasm.outline.json")).expect("the outline"),
    )
    .expect("JSON");
    assert_eq!(outline["broken"], serde_json::json!({}), "{outline}");
    // No path of this machine in the PTX (the sandbox's remapping applies).
    let here = std::fs::canonicalize(root()).expect("the root");
    assert!(!ptx.contains(&here.display().to_string()));
}

/// An answer that builds for the sandbox but not for the GPU (`std` is not there) is put
/// back to its stub on both judges, and the outline says it does not compile for the GPU.
#[test]
#[ignore = "builds PTX with the pinned nightly (.ci/run runs it)"]
fn an_answer_only_the_sandbox_builds_is_put_back_for_both_judges() {
    let sub = submission("std-only");
    let ch05 = sub.join("kernels/src/ch05.rs");
    let text = std::fs::read_to_string(&ch05).expect("ch05");
    let text = text.replace(
        "todo!(\"5.1 mul_blocks: i = block_idx_x * block_dim_x + thread_idx_x, guarded by i < n\")",
        "let v: std::vec::Vec<u32> = std::vec::Vec::new();\n    let _ = v;",
    );
    std::fs::write(&ch05, text).expect("written");
    let out = sub.join("prepared");
    let run = Command::new(env!("CARGO_BIN_EXE_grade"))
        .arg("--student")
        .arg(&sub)
        .arg("--prepare-gpu")
        .arg(&out)
        .output()
        .expect("the grader runs");
    let said = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{said}");
    let outline: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("kernels.wasm.outline.json")).expect("the outline"),
    )
    .expect("JSON");
    let why = outline["broken"]["5.1"][0].as_str().unwrap_or_default();
    assert!(
        why.starts_with(gpu_host::lane_build::DOES_NOT_COMPILE)
            && why.contains(grade::gpu_build::FOR_THE_GPU)
            && why.contains("`std`"),
        "{outline}"
    );
    let ptx = std::fs::read_to_string(out.join("kernels.ptx")).expect("the PTX");
    assert!(!ptx.contains("6221137"), "5.1 was put back whole");
}

/// A GPU report holds each timed kernel's time and GB/s beside the reference's: in the
/// JSON (read back as written), the table and the Markdown. The times are a fake: what a
/// GPU run puts into the report lines.
#[test]
fn the_gpu_report_shows_each_kernel_beside_the_reference() {
    use grade::gpu_times::{Gbps, KernelTime};
    use grade::render::{Format, render};
    let chapters = grade::chapters();
    let ch09 = chapters.iter().find(|c| c.id == "ch09").expect("ch09");
    let ex = ch09.exercise("9.4").expect("9.4");
    let mut line = grade::ExerciseReport::new(ch09, ex, course::Outcome::pass("ok"));
    line.gpu_times = vec![KernelTime {
        kernel: ex.kernels[0].to_string(),
        bytes: 4_000_000,
        threads: 1_000_000,
        student_ns: 40_000,
        student_gbps: Gbps::of(4_000_000, 40_000),
        reference_ns: Some(16_000),
        reference_gbps: Some(Gbps::of(4_000_000, 16_000)),
    }];
    let report = grade::Report::new(
        course::KernelSource::Student,
        grade::Limits::CHECKS,
        &chapters,
        vec![line],
        None,
    )
    .on(&grade::Target::Gpu {
        name: "NVIDIA H200".into(),
        driver: "CUDA 13.0".into(),
    });
    let json = render(&report, Format::Json);
    let back: grade::Report = serde_json::from_str(&json).expect("the report reads back");
    assert_eq!(back.exercises[0].gpu_times, report.exercises[0].gpu_times);
    let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let t = &value["exercises"][0]["gpu_times"][0];
    assert_eq!(t["student_ns"], 40_000);
    assert_eq!(t["reference_ns"], 16_000);
    assert_eq!(t["student_gbps"], 100.0);
    assert_eq!(t["reference_gbps"], 250.0);
    let table = render(&report, Format::Table);
    assert!(
        table.contains("0.040 ms, 100.0 GB/s (reference 0.016 ms, 250.0 GB/s: 2.50x its time)"),
        "{table}"
    );
    let md = render(&report, Format::Markdown);
    assert!(md.contains("### Kernel times on the GPU"), "{md}");
    assert!(
        md.contains("| 4000000 | 0.040 | 100.0 | 0.016 | 250.0 | 2.50x |"),
        "{md}"
    );
    // An emulator report has none, and its JSON no `gpu_times` key.
    let mut plain = report.clone();
    plain.exercises[0].gpu_times.clear();
    assert!(!render(&plain, Format::Json).contains("gpu_times"));
    assert!(!render(&plain, Format::Table).contains("kernel times on the GPU"));
}
