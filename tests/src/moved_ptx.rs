//! The PTX is always this checkout's: a course built with `--features cuda`, copied with
//! its file times kept (`cp -a`, with its `target/`, and again built with the original's
//! target folder), one region of the copy edited: the copy's binary embeds the copy's
//! kernel, the original's still the original's (read in the PTX text each binary holds).
//!
//! Needs the pinned nightly (the PTX build), as `.ci/ptx-check` installs it; no GPU.

use crate::moved::{copy_course, write_5_1};
use std::path::Path;
use std::process::Command;

/// A number only the copy's 5.1 holds: its PTX writes it as a decimal immediate.
const MARKERS: [u32; 2] = [1_592_594_996, 1_592_595_123];

/// 5.1's two answers with `marker` mixed into every stored value.
fn marked(marker: u32) -> [String; 2] {
    [
        format!(
            "    let i = thread::thread_idx_x();\n    a.store(i, b.load(i).wrapping_mul(c.load(i)) ^ {marker});"
        ),
        format!(
            "    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();\n    \
             if i < a.len() {{\n        a.store(i, b.load(i).wrapping_mul(c.load(i)) ^ {marker});\n    }}"
        ),
    ]
}

/// `cargo build -p ch05 --features cuda` in the course at `dir` into `target`; the
/// binary's bytes.
fn build(dir: &Path, target: &Path) -> Result<Vec<u8>, String> {
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(dir)
        .args(["build", "-q", "-p", "ch05", "--features", "cuda"])
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove(course_root::ROOT_ENV)
        .env_remove("COURSE_CHECKOUT")
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo build --features cuda in {} failed:\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let exe = target
        .join("debug")
        .join(format!("ch05{}", std::env::consts::EXE_SUFFIX));
    std::fs::read(&exe).map_err(|e| format!("cannot read {}: {e}", exe.display()))
}

fn holds(binary: &[u8], marker: u32) -> bool {
    let text = marker.to_string();
    binary.windows(text.len()).any(|w| w == text.as_bytes())
}

/// `cp -a FROM TO`: a copy that keeps file times, as a student's archive does.
fn copy_keeping_times(from: &Path, to: &Path) -> Result<(), String> {
    let ok = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .map_err(|e| format!("cannot run cp: {e}"))?;
    ok.success()
        .then_some(())
        .ok_or_else(|| format!("cp -a {} {} failed", from.display(), to.display()))
}

/// The stage (see the module docs), in `scratch`, seeding the original's target folder
/// from `root`'s (so that only the course's own crates are built again). Leaves `scratch`
/// empty on success.
pub fn check(root: &Path, scratch: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(scratch);
    let original = scratch.join("original");
    std::fs::create_dir_all(original.join("target"))
        .map_err(|e| format!("cannot create {}: {e}", original.display()))?;
    copy_course(root, &original)?;
    // Only what cargo reuses (the compiled dependencies, their build scripts' output and
    // fingerprints): not the incremental caches, the tests' scratch folders or the
    // binaries, which would make each copy of the course many GiB.
    let seed = root.join("target").join("debug");
    let debug = original.join("target").join("debug");
    std::fs::create_dir_all(&debug)
        .map_err(|e| format!("cannot create {}: {e}", debug.display()))?;
    for part in ["deps", "build", ".fingerprint"] {
        if seed.join(part).is_dir() {
            copy_keeping_times(&seed.join(part), &debug.join(part))?;
        }
    }
    let own = original.join("target");
    let first = build(&original, &own)?;
    if MARKERS.iter().any(|&m| holds(&first, m)) {
        return Err("the original's binary holds a marker before any copy wrote it".into());
    }
    // A copy with its target folder, its file times kept, one region edited.
    let copy = scratch.join("copy with its target");
    copy_keeping_times(&original, &copy)?;
    let [one, blocks] = marked(MARKERS[0]);
    write_5_1(&copy, &[&one, &blocks])?;
    if !holds(&build(&copy, &copy.join("target"))?, MARKERS[0]) {
        return Err("a copy built with its copied target/ embeds the original's PTX".into());
    }
    // A copy built with the original's target folder (a shared CARGO_TARGET_DIR).
    let shared = scratch.join("copy sharing the target");
    copy_keeping_times(&original, &shared)?;
    let _ = std::fs::remove_dir_all(shared.join("target"));
    let [one, blocks] = marked(MARKERS[1]);
    write_5_1(&shared, &[&one, &blocks])?;
    if !holds(&build(&shared, &own)?, MARKERS[1]) {
        return Err(
            "a copy built with the original's target folder embeds the original's PTX".into(),
        );
    }
    // And the original, built again in its own folder: its own kernels, not the copy's.
    if holds(&build(&original, &own)?, MARKERS[1]) {
        return Err(
            "the original, built after a copy shared its target folder, embeds the copy's PTX"
                .into(),
        );
    }
    let _ = std::fs::remove_dir_all(scratch);
    Ok(())
}
