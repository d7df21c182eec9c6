//! The sandbox's modules: the course's kernel crates built to WebAssembly.
//!
//! A kernel of the student's crate (`kernels`) or of the reference crate (`solutions`)
//! never runs as native code on the emulator: [`Device::launch`](crate::Device::launch)
//! runs it from that crate compiled for `wasm32-unknown-unknown`, one instance per lane
//! (`simt::wasm`). The first launch of a process builds the crate (an incremental build of
//! that one crate, in `target/lanes`, so no native binary relinks when the student edits a
//! kernel) and keeps the module for the rest of the process.
//!
//! Before building, the crate's sources are checked for what would let a kernel step out
//! of its lane ([`crate::sources`]): `unsafe` (with which it could read its stack or heap
//! before writing it, or declare imports), `include!`/`include_str!`/`include_bytes!`/
//! `#[path]` and symbolic links (code or data from outside the crate's `src/`, such as the
//! reference solutions). A build that runs past [`build_limit`] (a `const` that never
//! finishes evaluating, a macro that expands without end) is stopped and reported as such.
//!
//! A module can also come ready-made: `COURSE_LANES_KERNELS` (or `…_SOLUTIONS`) names
//! the `.wasm` file of that crate (the grader sets it for its child processes after
//! building a student's sources with [`build_student`]), and `COURSE_LANES_DIR` names a
//! folder holding `kernels.wasm` and `solutions.wasm` (a GPU machine with the course's
//! prebuilt binaries and no cargo).

use crate::bounded::{self, Bounded};
use crate::sources::{self, Scan};
use simt::wasm::WasmModule;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// Environment variable: the wall-clock limit of one build of a kernel crate, in seconds
/// ([`build_limit`]).
pub const BUILD_LIMIT_ENV: &str = "COURSE_BUILD_LIMIT_S";

/// The wall-clock limit of one build of a kernel crate for the sandbox: `COURSE_BUILD_LIMIT_S`
/// seconds, 600 when unset or unreadable. A last resort against sources whose compilation
/// never ends; a course build takes seconds (a first build on a slow laptop, a minute or
/// two, as it compiles the `gpu` crate and its macros for the sandbox too).
pub fn build_limit() -> std::time::Duration {
    std::time::Duration::from_secs(env_positive(BUILD_LIMIT_ENV).unwrap_or(600))
}

/// Environment variable: the data memory one build of a kernel crate may use, in MiB
/// ([`build_memory`]).
pub const BUILD_MEMORY_ENV: &str = "COURSE_BUILD_MEMORY_MB";

/// The data memory each process of one build of a kernel crate may use, on Linux:
/// `COURSE_BUILD_MEMORY_MB` MiB, 2048 when unset or unreadable. A course build needs
/// about 300 MB; a huge static array in the sources (rustc evaluates it in memory) stops
/// at the limit with rustc's own error, at its line, instead of taking the machine.
pub fn build_memory() -> u64 {
    env_positive(BUILD_MEMORY_ENV).unwrap_or(2048) << 20
}

/// The positive whole number environment variable `name` holds, if it holds one.
fn env_positive(name: &str) -> Option<u64> {
    std::env::var(name)
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .filter(|&n| n > 0)
}

/// The crates whose kernels run in the sandbox.
pub const SANDBOXED: [&str; 2] = ["kernels", "solutions"];

/// The stack of each lane, in bytes (the wasm linker's `-zstack-size`).
pub const LANE_STACK_BYTES: u32 = 64 * 1024;

/// The cargo profile of the sandbox's builds (see the workspace's `Cargo.toml`).
pub const PROFILE: &str = "lanes";

/// Environment variable naming a folder of prebuilt modules (`<crate>.wasm`).
pub const PREBUILT_ENV: &str = "COURSE_LANES_DIR";

/// The environment variable naming the prebuilt module of crate `name`
/// (`COURSE_LANES_KERNELS`).
pub fn module_env(name: &str) -> String {
    format!("COURSE_LANES_{}", name.to_uppercase())
}

type Loaded = Result<Arc<WasmModule>, String>;

fn loaded() -> &'static Mutex<HashMap<String, Loaded>> {
    static MODULES: OnceLock<Mutex<HashMap<String, Loaded>>> = OnceLock::new();
    MODULES.get_or_init(Default::default)
}

/// The course's root, found at run time ([`course_root::course_root`]: never the folder
/// this crate was built in, so a copied or moved course builds its own kernels). `Err`
/// says where it looked.
pub fn workspace_root() -> Result<PathBuf, String> {
    course_root::course_root()
}

/// The sandboxed module of crate `name`, built (once per process) on first use; `None`
/// when the crate is not sandboxed (its kernels run natively: the course's own test
/// fixtures and the emulator's tests). `Some(Err)` says why the module could not be had:
/// the crate does not compile (with the compiler's messages), or it uses what the sandbox
/// refuses.
pub fn module(name: &str) -> Option<Loaded> {
    if !SANDBOXED.contains(&name) {
        return None;
    }
    let mut map = loaded().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = map.get(name) {
        return Some(m.clone());
    }
    let m = load(name);
    map.insert(name.to_string(), m.clone());
    Some(m)
}

/// Fuel of one call of a host function: WebAssembly instructions, enough for a loop over
/// hundreds of millions of elements, few enough that an endless loop ends in seconds.
pub const HOST_FUEL: u64 = 20_000_000_000;

/// Calls host function `name` of sandboxed crate `module` (a `#[gpu::host]` function:
/// an exercise that is plain Rust) with `args`, in a lane of its own, and decodes its
/// result. A panic of the function (its `todo!()` included), a trap or running out of fuel
/// is a panic here with the lane's message, so that the checks' `catch_host` reports it
/// as it did when the function ran natively.
pub fn host_call<A: gpu::host_value::HostArgs, R: gpu::HostValue>(
    module: &str,
    name: &str,
    args: A,
) -> R {
    let m = match self::module(module) {
        Some(Ok(m)) => m,
        Some(Err(e)) => std::panic::panic_any(simt::lane::LanePanic {
            message: e,
            at: None,
        }),
        None => panic!("`{module}` is not a sandboxed crate"),
    };
    match m.call_host(
        name,
        &args.bytes(),
        HOST_FUEL,
        simt::meter::current().as_ref(),
    ) {
        Ok(bytes) => R::take(&mut &bytes[..])
            .unwrap_or_else(|| panic!("`{name}` returned bytes that are not its result type")),
        Err(failure) => std::panic::panic_any(failure),
    }
}

/// Forgets the modules loaded so far, so that the next launch builds them again (the
/// runner does this when the student saves a file).
pub fn forget() {
    loaded().lock().unwrap_or_else(|e| e.into_inner()).clear();
}

fn load(name: &str) -> Loaded {
    if let Some(file) = std::env::var_os(module_env(name)) {
        let bytes = std::fs::read(&file).map_err(|e| {
            format!(
                "{}={}: cannot read it: {e}",
                module_env(name),
                Path::new(&file).display()
            )
        })?;
        // Not a module but the text of why it could not be built (see `build_student`).
        if !bytes.starts_with(b"\0asm") {
            return Err(String::from_utf8_lossy(&bytes).into_owned());
        }
        return WasmModule::new(name, &bytes);
    }
    if let Some(dir) = std::env::var_os(PREBUILT_ENV) {
        let path = Path::new(&dir).join(format!("{name}.wasm"));
        let bytes = std::fs::read(&path).map_err(|e| {
            format!(
                "{PREBUILT_ENV}={}: cannot read {}: {e}",
                Path::new(&dir).display(),
                path.display()
            )
        })?;
        return WasmModule::new(name, &bytes);
    }
    let bytes = build(name, &workspace_root()?)?;
    WasmModule::new(name, &bytes)
}

/// The cargo profile of the sandbox's builds, as `--config` settings: optimised (the
/// emulator interprets every instruction), incremental (a student's edit rebuilds one
/// crate in about a second), and with the checks of a debug build, as the student's own
/// `cargo test` had them natively (an overflow panics with its line).
const PROFILE_SETTINGS: [&str; 7] = [
    "inherits=\"release\"",
    "debug=0",
    "opt-level=2",
    "incremental=true",
    "overflow-checks=true",
    "debug-assertions=true",
    "panic=\"abort\"",
];

/// Checks the sources of crate `name` under `root` for what the sandbox refuses (see the
/// module docs), then builds it for `wasm32-unknown-unknown` into `root/target/lanes`
/// and returns the module. Installs the wasm target with rustup if it is missing.
pub fn build(name: &str, root: &Path) -> Result<Vec<u8>, String> {
    checked(sources::scan(&root.join(name).join("src")), || {
        cargo_build(root, name, &root.join("target").join("lanes"))
    })
}

/// Runs `build` unless `scan` refused the sources; a file the check could not read fails
/// after the build (whose compile errors, if any, come first: see [`Scan::Unreadable`]).
fn checked<T>(scan: Scan, build: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match scan {
        Scan::Clean => build(),
        Scan::Refused(why) => Err(why),
        Scan::Unreadable(why) => build().and(Err(why)),
    }
}

/// Builds a student's sources, only the `.rs` files of `src` (their `kernels/src`),
/// as the course's pristine `kernels` crate of the workspace at `root`: the student's
/// manifest, build script and every other file play no part. The scratch workspace is
/// `root/target/lanes/students/<hash of src's path>` (one per student, so that several
/// can be graded at once); returns the module's path.
pub fn build_student(src: &Path, root: &Path) -> Result<PathBuf, String> {
    if !src.is_dir() {
        return Err(format!("{} is not a folder", src.display()));
    }
    let scan = sources::scan(src);
    if let Scan::Refused(why) = scan {
        return Err(why);
    }
    let key = path_key(src);
    let ws = root
        .join("target")
        .join("lanes")
        .join("students")
        .join(&key);
    let krate = ws.join("kernels");
    if copy_sources(src, &krate.join("src"))? == 0 {
        return Err(format!("{}: no .rs files", src.display()));
    }
    let io = |e: std::io::Error| format!("cannot prepare {}: {e}", ws.display());
    // The crate is named after the student, so that its module (the build's output file)
    // is never another student's: the course's `kernels` and each student's are built
    // into one target folder, which keeps the dependencies compiled once for all.
    let crate_name = format!("student-{key}");
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = {crate_name:?}\nedition.workspace = true\nversion.workspace = true\n\
             publish = false\n\n[lib]\npath = \"src/lib.rs\"\n\n[dependencies]\n\
             gpu.workspace = true\n"
        ),
    )
    .map_err(io)?;
    let _ = std::fs::copy(root.join("Cargo.lock"), ws.join("Cargo.lock"));
    let course = std::fs::read_to_string(root.join("Cargo.toml")).map_err(io)?;
    let package = course
        .split("[workspace.package]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .ok_or("the course's Cargo.toml has no [workspace.package]")?;
    let gpu = root.join("crates").join("gpu");
    let manifest = format!(
        "# Written by the course's grader: the student's sources as the pristine kernels crate.\n\
         [workspace]\nresolver = \"3\"\nmembers = [\"kernels\"]\n\n\
         [workspace.package]{package}\n\
         [workspace.dependencies]\ngpu = {{ path = {:?} }}\n",
        gpu.display().to_string()
    );
    std::fs::write(ws.join("Cargo.toml"), manifest).map_err(io)?;
    let bytes = checked(scan, || {
        cargo_build(&ws, &crate_name, &root.join("target").join("lanes"))
    })?;
    let module = ws.join("kernels.wasm");
    std::fs::write(&module, bytes).map_err(io)?;
    Ok(module)
}

/// A name for scratch folders of the sources at `path`: a hash of its canonical path (FNV-1a,
/// 16 hex digits), the same for every run on this machine.
pub fn path_key(path: &Path) -> String {
    let hash = path
        .canonicalize()
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        });
    format!("{hash:016x}")
}

/// Copies the `.rs` files of `src` into `out` (emptied first), keeping their folders;
/// returns how many. Refuses a symbolic link, as the sources' check does
/// ([`sources::rust_files`]).
pub fn copy_sources(src: &Path, out: &Path) -> Result<usize, String> {
    let files = sources::rust_files(src)?;
    let _ = std::fs::remove_dir_all(out);
    let io = |e: std::io::Error| format!("cannot copy the sources to {}: {e}", out.display());
    for file in &files {
        let rel = file.strip_prefix(src).map_err(|e| e.to_string())?;
        let to = out.join(rel);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        std::fs::copy(file, &to).map_err(io)?;
    }
    Ok(files.len())
}

/// [`build_student`], then makes its result what every process this one starts (and this
/// one) loads as the `kernels` module ([`module_env`]): the module, or, when the sources
/// could not be built, a file with the reason, which each launch then reports.
pub fn use_student(src: &Path, root: &Path) -> Result<(), String> {
    use_built(root, build_student(src, root))
}

/// Makes `built` (a module's path, or why none could be built) what every process this one
/// starts (and this one) loads as the `kernels` module ([`module_env`]). A reason is
/// written to a file of this process under `root/target/lanes`, which each launch then
/// reports.
pub fn use_built(root: &Path, built: Result<PathBuf, String>) -> Result<(), String> {
    let file = match built {
        Ok(path) => path,
        Err(why) => {
            let dir = root.join("target").join("lanes");
            let file = dir.join(format!("student-build-error-{}.txt", std::process::id()));
            std::fs::create_dir_all(&dir)
                .and_then(|()| std::fs::write(&file, why))
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            file
        }
    };
    // SAFETY: called before the grader starts any thread that reads the environment.
    unsafe { std::env::set_var(module_env("kernels"), &file) };
    forget();
    Ok(())
}

/// `cargo rustc` of crate `name` of the workspace at `ws` for `wasm32-unknown-unknown`,
/// as a cdylib with the lane's stack, into `target_dir`; the module's bytes.
///
/// Every build into `target_dir` writes the same output file (the course's `kernels`
/// and each student's are all crate `kernels`), so a lock file held from the build to the
/// read keeps concurrent builds (a grader's students, parallel tests) from reading each
/// other's module.
fn cargo_build(ws: &Path, name: &str, target_dir: &Path) -> Result<Vec<u8>, String> {
    std::fs::create_dir_all(target_dir)
        .map_err(|e| format!("cannot create {}: {e}", target_dir.display()))?;
    let lock_path = target_dir.join(".course-build.lock");
    let lock = std::fs::File::create(&lock_path)
        .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    let run = || {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.current_dir(ws)
            .args(["rustc", "--quiet", "--color", "never", "-p", name])
            .args(["--profile", PROFILE, "--target", "wasm32-unknown-unknown"]);
        for setting in PROFILE_SETTINGS {
            cmd.arg("--config")
                .arg(format!("profile.{PROFILE}.{setting}"));
        }
        cmd.arg("--target-dir")
            .arg(target_dir)
            .args(["--crate-type", "cdylib", "--"])
            .arg(format!("-Clink-arg=-zstack-size={LANE_STACK_BYTES}"))
            // Where the statics start: a pooled lane gets them back as they were.
            .arg("-Clink-arg=--export=__global_base")
            // A build of the workspace's host crates must not see these.
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_TARGET_DIR");
        let limit = build_limit();
        match bounded::run(cmd, limit, build_memory()) {
            Ok(Bounded::Done(out)) => Ok(out),
            Ok(Bounded::Stopped) => Err(format!(
                "the build of `{name}` for the emulator did not finish in {} s and was stopped \
                 (a wall-clock limit, the last resort: a `const` whose evaluation never ends, \
                 or a macro that expands without end?); {BUILD_LIMIT_ENV} sets the limit in seconds",
                limit.as_secs()
            )),
            Err(e) => Err(format!(
                "could not run cargo to build `{name}` for the sandbox: {e}"
            )),
        }
    };
    let mut out = run()?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() && missing_target(&stderr) {
        let added = Command::new("rustup")
            .args(["target", "add", "wasm32-unknown-unknown"])
            .output();
        match added {
            Ok(a) if a.status.success() => out = run()?,
            _ => {
                return Err(
                    "the emulator runs kernels as WebAssembly, and the wasm32 target is missing: \
                     run `rustup target add wasm32-unknown-unknown`"
                        .into(),
                );
            }
        }
    }
    if !out.status.success() {
        return Err(format!(
            "`{name}` does not compile for the emulator:\n{}",
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    let path = target_dir
        .join("wasm32-unknown-unknown")
        .join(PROFILE)
        .join(format!("{}.wasm", name.replace('-', "_")));
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "cargo built `{name}` but {} cannot be read: {e}",
            path.display()
        )
    })?;
    drop(lock);
    Ok(bytes)
}

fn missing_target(stderr: &str) -> bool {
    stderr.contains("target may not be installed")
        || stderr.contains("can't find crate for `core`")
        || stderr.contains("can't find crate for `std`")
}

#[cfg(test)]
mod tests {
    use super::checked;
    use crate::sources::Scan;

    #[test]
    fn a_refused_crate_is_not_built_and_an_unreadable_one_fails_after_its_build() {
        let built = std::cell::Cell::new(0);
        let ok = || {
            built.set(built.get() + 1);
            Ok(())
        };
        assert_eq!(checked(Scan::Clean, ok), Ok(()));
        assert_eq!(checked(Scan::Refused("no".into()), ok), Err("no".into()));
        assert_eq!(built.get(), 1, "a refused crate is never built");
        // rustc's error comes first; a build that succeeds is still refused.
        let failing = || Err::<(), _>("rustc: unterminated string".to_string());
        assert_eq!(
            checked(Scan::Unreadable("unread".into()), failing),
            Err("rustc: unterminated string".into())
        );
        assert_eq!(
            checked(Scan::Unreadable("unread".into()), ok),
            Err("unread".into())
        );
    }
}
