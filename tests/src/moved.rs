//! One course wherever it lies: the journey's last stage copies the course, renames the
//! copy, changes a kernel in it, and asks `cargo test`, the runner and the grader, run by
//! cargo in the copy with this course's target folder shared (`CARGO_TARGET_DIR`), for
//! their verdicts: each must judge the copy's kernels, and the sandbox's builds must lie
//! under the copy's own `target/`. The tools find the course at run time
//! ([`course_root`]), never at build time.

use std::path::Path;
use std::process::{Command, Output};

/// Folders of a course that are not its sources (build output and local state).
const NOT_SOURCES: [&str; 5] = ["target", ".git", ".course", "book/book", ".gpu"];

/// Copies the course at `from` into `to`: every file but build output and local state.
pub fn copy_course(from: &Path, to: &Path) -> Result<(), String> {
    copy_below(from, to, Path::new(""))
}

fn copy_below(from: &Path, to: &Path, rel: &Path) -> Result<(), String> {
    let dir = from.join(rel);
    let io = |p: &Path, e: std::io::Error| format!("cannot copy {}: {e}", p.display());
    for entry in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
        let entry = entry.map_err(|e| io(&dir, e))?;
        let rel = rel.join(entry.file_name());
        let name = rel.to_string_lossy().replace('\\', "/");
        if NOT_SOURCES.contains(&name.as_str()) || name.starts_with("target-") {
            continue;
        }
        let kind = entry.file_type().map_err(|e| io(&entry.path(), e))?;
        if kind.is_dir() {
            std::fs::create_dir_all(to.join(&rel)).map_err(|e| io(&to.join(&rel), e))?;
            copy_below(from, to, &rel)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(&rel)).map_err(|e| io(&entry.path(), e))?;
        }
    }
    Ok(())
}

/// `cargo ARGS` in the course at `dir` with the target folder `target`, in the environment
/// a student's shell would have (no replay seed, no prebuilt module, no named root).
fn cargo_in(dir: &Path, target: &Path, args: &[&str]) -> Result<Output, String> {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(dir)
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_TERM_COLOR", "never")
        .env("RUST_BACKTRACE", "0")
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove(course_root::ROOT_ENV)
        .env_remove("COURSE_SEED")
        .env_remove("COURSE_LANES_KERNELS")
        .env_remove("COURSE_LANES_SOLUTIONS")
        .env_remove("COURSE_LANES_DIR")
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Writes `bodies` as the regions of exercise 5.1 (one per function it asks for, in file
/// order) in the course at `dir`.
pub fn write_5_1(dir: &Path, bodies: &[&str]) -> Result<(), String> {
    let file = dir.join("kernels/src/ch05.rs");
    let mut text = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let found = course::regions::regions(&text)?;
    let mine: Vec<_> = found.iter().filter(|r| r.id == "5.1").collect();
    if mine.len() != bodies.len() {
        return Err(format!(
            "5.1 has {} regions, not {}",
            mine.len(),
            bodies.len()
        ));
    }
    for (region, body) in mine.iter().zip(bodies).rev() {
        text.replace_range(region.body.clone(), &format!("{body}\n"));
    }
    std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))
}

/// What the three tools say of 5.1 in the course at `dir`: `cargo test`'s output, the
/// runner's status line, the grader's status key.
fn verdicts(dir: &Path, target: &Path) -> Result<(String, String, String), String> {
    let test = text(&cargo_in(
        dir,
        target,
        &["test", "-q", "-p", "ch05", "--test", "exercises", "ex_5_01"],
    )?);
    let runner = text(&cargo_in(
        dir,
        target,
        &[
            "run",
            "-q",
            "-p",
            "learn",
            "--",
            "--once",
            "--exercise",
            "5.1",
        ],
    )?);
    let status = runner
        .lines()
        .find(|l| l.trim_start().starts_with("status:"))
        .ok_or_else(|| format!("the runner printed no status:\n{runner}"))?
        .to_string();
    let graded = cargo_in(
        dir,
        target,
        &[
            "run",
            "-q",
            "-p",
            "grade",
            "--",
            "--exercise",
            "5.1",
            "--json",
        ],
    )?;
    let report: serde_json::Value = serde_json::from_slice(&graded.stdout)
        .map_err(|e| format!("the grader's JSON ({e}): {}", text(&graded)))?;
    let key = report["exercises"][0]["status"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    Ok((test, status, key))
}

/// The stage: copies the course at `root` under `scratch`, renames the copy, and checks that
/// the three tools judge the copy's 5.1, first a stub that only the copy holds, then the
/// reference's answer (see the module docs). Leaves `scratch` empty on success.
pub fn check(root: &Path, scratch: &Path) -> Result<(), String> {
    let target = root.join("target");
    let _ = std::fs::remove_dir_all(scratch);
    let copy = scratch.join("course copy");
    std::fs::create_dir_all(&copy).map_err(|e| format!("cannot create {}: {e}", copy.display()))?;
    copy_course(root, &copy)?;
    let renamed = scratch.join("renamed course");
    std::fs::rename(&copy, &renamed).map_err(|e| format!("cannot rename the copy: {e}"))?;

    // A message only the copy's kernels hold: whatever this course's own kernels/ holds, a
    // tool that checked it could not show this.
    let marker = "the copy's own 5.1, not yet written";
    let stub = format!("    todo!(\"{marker}\")");
    write_5_1(&renamed, &[&stub, &stub])?;
    let (test, status, key) = verdicts(&renamed, &target)?;
    if !test.contains(marker) {
        return Err(format!(
            "cargo test in the copy checked another course:\n{test}"
        ));
    }
    if !status.contains(marker) {
        return Err(format!(
            "the runner in the copy checked another course: {status}"
        ));
    }
    if key != "not_implemented" {
        return Err(format!(
            "the grader in the copy said {key}, not not_implemented"
        ));
    }

    let reference = root.join("solutions/src/ch05.rs");
    let solved = std::fs::read_to_string(&reference)
        .map_err(|e| format!("cannot read {}: {e}", reference.display()))?;
    let bodies: Vec<&str> = course::regions::regions(&solved)?
        .into_iter()
        .filter(|r| r.id == "5.1")
        .map(|r| solved[r.body].trim_end_matches('\n'))
        .collect();
    write_5_1(&renamed, &bodies)?;
    let (test, status, key) = verdicts(&renamed, &target)?;
    if !test.contains("test result: ok. 1 passed") {
        return Err(format!(
            "cargo test in the copy did not pass its solved 5.1:\n{test}"
        ));
    }
    if !status.contains("PASS") || key != "pass" {
        return Err(format!(
            "the runner ({status}) or the grader ({key}) did not pass the copy's solved 5.1"
        ));
    }
    if !renamed.join("target/lanes").is_dir() {
        return Err("the sandbox's builds are not under the copy's own target/".into());
    }
    let _ = std::fs::remove_dir_all(scratch);
    Ok(())
}
