//! The sandbox's modules kept once for every copy of a course on a machine.
//!
//! A module is a function of its inputs: the crate's sources (for `kernels`, the student's
//! files and the course's stubs they are spliced into), the `gpu` crate and its macros,
//! the workspace's manifest and lock file, the toolchain and the sandbox's profile. Keyed
//! by a hash of all of them, a module built in one copy of the course is read back by
//! the next copy's first launch instead of being built again (a fresh clone, a student's
//! second checkout, a copy an instructor grades from). Any edit changes the key, so a
//! stale module is never read.
//!
//! The folder is `COURSE_LANES_CACHE` (`off` turns the cache off), else
//! `$XDG_CACHE_HOME/gpu-course/lanes`, else `~/.cache/gpu-course/lanes`. Only the course's
//! own modules use it (the runner's, `cargo test`'s): the grader builds every submission
//! itself, in its own workspace.

use std::path::{Path, PathBuf};

/// Environment variable: the cache's folder, or `off`.
pub const CACHE_ENV: &str = "COURSE_LANES_CACHE";

/// The cache's folder, if the cache is on and there is a place for it.
pub fn dir() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os(CACHE_ENV) {
        let v = PathBuf::from(v);
        return (!v.as_os_str().is_empty() && v != Path::new("off")).then_some(v);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("gpu-course").join("lanes"))
}

/// The key of module `name` of the course at `root`: a hash of every input named in the
/// module docs, and of `settings` (the profile). `None` when an input cannot be read (the
/// module is then built as usual).
pub fn key(root: &Path, name: &str, settings: &[&str]) -> Option<String> {
    let mut inputs = vec![
        root.join(name),
        root.join("crates").join("gpu"),
        root.join("crates").join("gpu-macros"),
        root.join("Cargo.toml"),
        root.join("Cargo.lock"),
    ];
    if name == "kernels" {
        inputs.push(root.join(crate::answers::PRISTINE_DIR));
    }
    let mut files = Vec::new();
    for input in &inputs {
        collect(input, &mut files).ok()?;
    }
    files.sort();
    let mut h = Hash::new();
    h.add(name.as_bytes());
    h.add(toolchain()?.as_bytes());
    for s in settings {
        h.add(s.as_bytes());
    }
    for f in &files {
        h.add(
            f.strip_prefix(root)
                .unwrap_or(f)
                .to_string_lossy()
                .as_bytes(),
        );
        h.add(&std::fs::read(f).ok()?);
    }
    Some(h.hex())
}

/// The module and its outline (JSON) stored under `key`, if any.
pub fn get(dir: &Path, name: &str, key: &str) -> Option<(Vec<u8>, Option<String>)> {
    let module = std::fs::read(dir.join(format!("{name}-{key}.wasm"))).ok()?;
    if !module.starts_with(b"\0asm") {
        return None;
    }
    let outline = std::fs::read_to_string(dir.join(format!("{name}-{key}.outline.json"))).ok();
    Some((module, outline))
}

/// Stores a module (and its outline) under `key`; a failure to write is ignored (the
/// cache only saves time). Each file is written beside its place and renamed into it, so
/// a copy reading at the same time sees the whole file or none.
pub fn put(dir: &Path, name: &str, key: &str, module: &[u8], outline: Option<&str>) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let write = |file: String, bytes: &[u8]| {
        let tmp = dir.join(format!("{file}.{}.tmp", std::process::id()));
        if std::fs::write(&tmp, bytes).is_ok() {
            let _ = std::fs::rename(&tmp, dir.join(&file));
        }
        let _ = std::fs::remove_file(&tmp);
    };
    // The outline first: a module found without its outline would be read as having none.
    if let Some(o) = outline {
        write(format!("{name}-{key}.outline.json"), o.as_bytes());
    }
    write(format!("{name}-{key}.wasm"), module);
    evict(dir, name);
}

/// How many modules of one crate the cache keeps: a student's every save is a new key,
/// and only the last few (another copy's stubs, the reference) are worth keeping.
pub const KEPT: usize = 8;

/// Removes all but the [`KEPT`] newest modules of crate `name` (and their outlines).
fn evict(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{name}-");
    let mut modules: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with(&prefix)
                    && n.ends_with(".wasm")
                    && n[prefix.len()..n.len() - 5]
                        .bytes()
                        .all(|b| b.is_ascii_hexdigit())
            })
        })
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    modules.sort_by_key(|m| std::cmp::Reverse(m.0));
    for (_, old) in modules.into_iter().skip(KEPT) {
        let _ = std::fs::remove_file(old.with_extension("outline.json"));
        let _ = std::fs::remove_file(&old);
    }
}

/// Every file under `path` (or `path` itself), skipping build folders and hidden entries.
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    for entry in std::fs::read_dir(path)? {
        let p = entry?.path();
        let skip = p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.') || n == "target");
        if !skip {
            collect(&p, out)?;
        }
    }
    Ok(())
}

/// The toolchain the sandbox builds with (`rustc -vV`: version, commit, host), once.
fn toolchain() -> Option<String> {
    static VERSION: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    VERSION
        .get_or_init(|| {
            let out = std::process::Command::new("rustc")
                .arg("-vV")
                .output()
                .ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
        })
        .clone()
}

/// Two FNV-1a hashes of 64 bits ([`crate::fnv`]) with different offsets, each input length-prefixed: a
/// 128-bit key (an accidental match between two courses' inputs is not a concern).
struct Hash([u64; 2]);

impl Hash {
    fn new() -> Self {
        Hash([crate::fnv::OFFSET, 0x6c62_272e_07bb_0142])
    }

    fn add(&mut self, bytes: &[u8]) {
        for h in &mut self.0 {
            *h = crate::fnv::extend(*h, &(bytes.len() as u64).to_le_bytes());
            *h = crate::fnv::extend(*h, bytes);
        }
    }

    fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.0[0], self.0[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn course(dir: &Path) {
        for (f, text) in [
            ("solutions/src/lib.rs", "pub fn a() {}"),
            ("solutions/Cargo.toml", "[package]"),
            ("crates/gpu/src/lib.rs", "//! gpu"),
            ("crates/gpu-macros/src/lib.rs", "//! macros"),
            ("Cargo.toml", "[workspace]"),
            ("Cargo.lock", "# lock"),
            ("solutions/target/junk", "ignored"),
        ] {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    /// Two copies of a course at different paths share a key; an edit of the crate or of
    /// the `gpu` crate, or another profile, changes it; build folders do not count.
    #[test]
    fn the_key_is_the_inputs_not_the_place() {
        let base = std::env::temp_dir().join(format!("lane-cache-{}", std::process::id()));
        let (a, b) = (base.join("a"), base.join("b"));
        course(&a);
        course(&b);
        let key = |root: &Path| key(root, "solutions", &["opt-level=2"]).unwrap();
        assert_eq!(key(&a), key(&b));
        std::fs::write(b.join("solutions/target/junk"), "other").unwrap();
        assert_eq!(key(&a), key(&b), "a build folder changed the key");
        std::fs::write(b.join("crates/gpu/src/lib.rs"), "//! gpu 2").unwrap();
        assert_ne!(key(&a), key(&b), "an edit of the gpu crate kept the key");
        course(&b);
        std::fs::write(b.join("solutions/src/lib.rs"), "pub fn b() {}").unwrap();
        assert_ne!(key(&a), key(&b), "an edit of the crate kept the key");
        assert_ne!(
            key(&a),
            super::key(&a, "solutions", &["opt-level=3"]).unwrap(),
            "another profile kept the key"
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    /// What is put is got back, outline included; a file that is not a module is not.
    #[test]
    fn modules_are_stored_and_read_back() {
        let dir = std::env::temp_dir().join(format!("lane-cache-store-{}", std::process::id()));
        put(
            &dir,
            "kernels",
            "k1",
            b"\0asm-module",
            Some("{\"broken\":{}}"),
        );
        let (m, o) = get(&dir, "kernels", "k1").unwrap();
        assert_eq!(m, b"\0asm-module");
        assert_eq!(o.as_deref(), Some("{\"broken\":{}}"));
        assert!(get(&dir, "kernels", "k2").is_none());
        std::fs::write(dir.join("kernels-k3.wasm"), b"not a module").unwrap();
        assert!(get(&dir, "kernels", "k3").is_none());
        for i in 0..KEPT + 3 {
            put(&dir, "kernels", &format!("{i:02x}"), b"\0asm", Some("{}"));
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let kept = std::fs::read_dir(&dir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                let name = name.to_string_lossy();
                name.starts_with("kernels-") && name.ends_with(".wasm")
            })
            .count();
        assert_eq!(
            kept,
            KEPT + 2,
            "the newest {KEPT} saves, and k1 and k3 (not hex keys)"
        );
        assert!(get(&dir, "kernels", &format!("{:02x}", KEPT + 2)).is_some());
        assert!(
            get(&dir, "kernels", "00").is_none(),
            "the oldest save was kept"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
