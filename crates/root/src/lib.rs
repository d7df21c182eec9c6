//! The course's root folder, found at run time.
//!
//! A path fixed when a tool was compiled (`env!("CARGO_MANIFEST_DIR")`) is wrong as soon as
//! the course is copied, moved, renamed or shares a target folder with another course: a
//! test binary built in one folder would check another folder's kernels. So every tool
//! asks here, and the root is looked for, in order, at:
//!
//! 1. `COURSE_ROOT` ([`ROOT_ENV`]), when set: that folder, or an error;
//! 2. `CARGO_MANIFEST_DIR` as cargo sets it when it *runs* a test or a binary (`cargo test`,
//!    `cargo run`), and each folder above it;
//! 3. the current folder and each folder above it;
//! 4. the folder of the running binary and each folder above it (a tool run directly, as
//!    `target/debug/learn`).
//!
//! A course root is a folder holding a `Cargo.toml` with a `[workspace]` and the student's
//! crate `kernels/` ([`is_course_root`]).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Environment variable naming the course's root explicitly (overrides the search).
pub const ROOT_ENV: &str = "COURSE_ROOT";

/// Is `dir` the root of a course: a workspace manifest beside the student's `kernels/` crate?
pub fn is_course_root(dir: &Path) -> bool {
    dir.join("kernels").join("Cargo.toml").is_file()
        && std::fs::read_to_string(dir.join("Cargo.toml"))
            .is_ok_and(|t| t.lines().any(|l| l.trim() == "[workspace]"))
}

/// The course's root, found once per process (see the module docs). `Err` is a message that
/// says every place looked at.
pub fn course_root() -> Result<PathBuf, String> {
    static ROOT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    ROOT.get_or_init(|| find(std::env::var_os(ROOT_ENV).map(PathBuf::from), &starts()))
        .clone()
}

/// The folders the search starts from, in order (2 to 4 of the module docs), with what
/// each is, for the error message.
fn starts() -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        out.push(("CARGO_MANIFEST_DIR", PathBuf::from(dir)));
    }
    if let Ok(dir) = std::env::current_dir() {
        out.push(("the current folder", dir));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        out.push(("the running binary's folder", dir));
    }
    out
}

/// The root: `explicit` if given (and a course), else the first course root at or above
/// one of `starts`, in order.
pub fn find(explicit: Option<PathBuf>, starts: &[(&str, PathBuf)]) -> Result<PathBuf, String> {
    if let Some(dir) = explicit {
        return if is_course_root(&dir) {
            Ok(canonical(&dir))
        } else {
            Err(format!(
                "{ROOT_ENV}={} is not a course (no Cargo.toml with [workspace] beside a kernels/ \
                 crate there)",
                dir.display()
            ))
        };
    }
    for (_, start) in starts {
        if let Some(root) = start.ancestors().find(|d| is_course_root(d)) {
            return Ok(canonical(root));
        }
    }
    let looked: Vec<String> = starts
        .iter()
        .map(|(what, dir)| format!("{what} ({}) and the folders above it", dir.display()))
        .collect();
    Err(format!(
        "cannot find the course (a Cargo.toml with [workspace] beside a kernels/ crate): looked \
         at {}; run the command inside the course's folder, or set {ROOT_ENV}",
        if looked.is_empty() {
            "nothing (no current folder)".to_string()
        } else {
            looked.join(", ")
        }
    ))
}

fn canonical(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn course(dir: &Path) {
        std::fs::create_dir_all(dir.join("kernels/src")).unwrap();
        std::fs::write(dir.join("kernels/Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(dir.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("course-root-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_first_start_inside_a_course_wins_and_the_search_goes_up() {
        let base = scratch("up");
        let (a, b) = (base.join("a"), base.join("b"));
        course(&a);
        course(&b);
        std::fs::create_dir_all(b.join("crates/learn")).unwrap();
        let found = find(
            None,
            &[
                ("outside", base.clone()),
                ("b's crate", b.join("crates/learn")),
                ("a", a.clone()),
            ],
        );
        assert_eq!(found, Ok(canonical(&b)));
        assert_eq!(
            find(Some(a.clone()), &[("b", b.clone())]),
            Ok(canonical(&a))
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn no_course_says_where_it_looked() {
        let base = scratch("none");
        let e = find(None, &[("the current folder", base.clone())]).unwrap_err();
        assert!(
            e.contains(&base.display().to_string()) && e.contains(ROOT_ENV),
            "{e}"
        );
        let e = find(Some(base.clone()), &[]).unwrap_err();
        assert!(e.contains("is not a course"), "{e}");
        // A workspace without the student's crate is not a course.
        std::fs::write(base.join("Cargo.toml"), "[workspace]\n").unwrap();
        assert!(find(None, &[("here", base.clone())]).is_err());
        let _ = std::fs::remove_dir_all(&base);
    }
}
