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

pub use crate::lane_build::Outline;
use crate::lane_build::{self, Attempt};
use crate::lane_cache;
use crate::sources::{self, Scan};
use simt::wasm::WasmModule;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Environment variable: the wall-clock budget of all the builds of one submission, in
/// seconds ([`build_limit`]).
pub const BUILD_LIMIT_ENV: &str = "COURSE_BUILD_LIMIT_S";

/// The wall-clock budget of the builds of one kernel crate for the sandbox:
/// `COURSE_BUILD_LIMIT_S` seconds, 600 when unset or unreadable. Every build of one
/// submission (the first, and each one after answers that do not compile are put back)
/// draws on it, so a submission costs at most this whatever it does. A last resort against
/// sources whose compilation never ends; a course build takes seconds (a first build on a
/// slow laptop, a minute or two, as it compiles the `gpu` crate and its macros for the
/// sandbox too).
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
            timed_out: false,
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
    *outline_slot().lock().unwrap_or_else(|e| e.into_inner()) = None;
}

fn outline_slot() -> &'static Mutex<Option<Outline>> {
    static OUTLINE: OnceLock<Mutex<Option<Outline>>> = OnceLock::new();
    OUTLINE.get_or_init(Default::default)
}

/// What the build of the student's answers (the `kernels` module this process runs) left
/// out: exercises put back to their stub and edits outside the regions. Builds the module
/// if it is not loaded yet; empty for a prebuilt module that comes with no outline.
pub fn outline() -> Outline {
    let _ = module("kernels");
    outline_slot()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_default()
}

/// Why exercise `id`'s answer was not built (put back to the course's stub: it does not
/// compile, its markers are broken, or it holds what the sandbox refuses), if it was not:
/// the first line says why, the rest are details.
pub fn broken(id: &str) -> Option<Vec<String>> {
    outline().broken.remove(id)
}

/// The file beside module file `module` that holds its [`Outline`].
pub fn outline_path(module: &Path) -> PathBuf {
    let mut name = module.file_name().unwrap_or_default().to_os_string();
    name.push(".outline.json");
    module.with_file_name(name)
}

fn load(name: &str) -> Loaded {
    if let Some(file) = std::env::var_os(module_env(name)) {
        let file = PathBuf::from(file);
        if let Ok(text) = std::fs::read_to_string(outline_path(&file))
            && let Ok(o) = serde_json::from_str::<Outline>(&text)
        {
            *outline_slot().lock().unwrap_or_else(|e| e.into_inner()) = Some(o);
        }
        let bytes = std::fs::read(&file).map_err(|e| {
            format!(
                "{}={}: cannot read it: {e}",
                module_env(name),
                file.display()
            )
        })?;
        // Not a module but the text of why it could not be built (see `use_built`).
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
    let root = workspace_root()?;
    // Built once for every copy of the course on this machine (`crate::lane_cache`).
    let cache = lane_cache::dir()
        .and_then(|dir| lane_cache::key(&root, name, &PROFILE_SETTINGS).map(|key| (dir, key)));
    if let Some((dir, key)) = &cache
        && let Some((bytes, outline)) = lane_cache::get(dir, name, key)
    {
        if name == "kernels" {
            let outline: Outline = outline
                .and_then(|o| serde_json::from_str(&o).ok())
                .unwrap_or_default();
            note_ignored(&outline);
            *outline_slot().lock().unwrap_or_else(|e| e.into_inner()) = Some(outline);
        }
        return WasmModule::new(name, &bytes);
    }
    let keep = |bytes: &[u8], outline: Option<&Outline>| {
        if let Some((dir, key)) = &cache {
            let outline = outline.and_then(|o| serde_json::to_string(o).ok());
            lane_cache::put(dir, name, key, bytes, outline.as_deref());
        }
    };
    if name == "kernels" {
        let (module, outline) = build_kernels(&root.join("kernels").join("src"), &root);
        note_ignored(&outline);
        // Only a build of one round: more (answers put back) may end on the budget, and a
        // result that depends on the clock is not a function of the inputs.
        if let Ok(bytes) = &module
            && outline.note.is_none()
        {
            keep(bytes, Some(&outline));
        }
        *outline_slot().lock().unwrap_or_else(|e| e.into_inner()) = Some(outline);
        return WasmModule::new(name, &module?);
    }
    let bytes = build(name, &root)?;
    keep(&bytes, None);
    WasmModule::new(name, &bytes)
}

/// Tells the student, once per process and past the test harness's capture, which of their
/// edits outside the answer regions are not built.
fn note_ignored(outline: &Outline) {
    if outline.ignored.is_empty() {
        return;
    }
    let mut text = String::from(
        "note: edits outside the answer regions of kernels/src are not built and do not count \
         (put helpers inside a region, between STUDENT-BEGIN and STUDENT-END):\n",
    );
    for i in &outline.ignored {
        text.push_str(&format!("  {}\n", i.describe()));
    }
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), text.as_bytes());
}

/// The cargo profile of the sandbox's builds, as `--config` settings: optimised (the
/// emulator interprets every instruction), incremental (a student's edit rebuilds one
/// crate in about a second), and with the checks of a debug build, as the student's own
/// `cargo test` had them natively (an overflow panics with its line), and line tables (a
/// lane stopped in a loop is reported at that loop's line: `simt::loops`).
pub(crate) const PROFILE_SETTINGS: [&str; 7] = [
    "inherits=\"release\"",
    "debug=\"line-tables-only\"",
    "opt-level=2",
    "incremental=true",
    "overflow-checks=true",
    "debug-assertions=true",
    "panic=\"abort\"",
];

/// The module of crate `name` of the course at `root`, built for `wasm32-unknown-unknown`
/// into `root/target/lanes`: for `kernels`, the student's answers in the course's files
/// ([`build_kernels`], an answer that does not compile built as its stub); for `solutions`,
/// the reference crate as it is, once its sources pass the sandbox's check.
pub fn build(name: &str, root: &Path) -> Result<Vec<u8>, String> {
    if name == "kernels" {
        return build_kernels(&root.join("kernels").join("src"), root).0;
    }
    let src = root.join(name).join("src");
    let run = || {
        let target = root.join("target").join("lanes");
        let flags = lane_build::remap_flags(root);
        match lane_build::cargo_build(root, name, &target, build_limit(), &flags)? {
            Attempt::Built(bytes) => Ok(bytes),
            Attempt::Failed(why) => Err(format!(
                "`{name}` does not compile for the emulator:\n{why}"
            )),
            Attempt::Stopped => Err(format!(
                "the build of `{name}` for the emulator did not finish in {} s and was stopped \
                 ({BUILD_LIMIT_ENV} sets the limit in seconds)",
                build_limit().as_secs()
            )),
        }
    };
    match sources::scan(&src) {
        Scan::Clean => run(),
        Scan::Refused(why) => Err(why),
        Scan::Unreadable(why) => run().and(Err(why)),
    }
}

/// The student's answers in `src` (their `kernels/src`) built for the sandbox by the course
/// at `root` (see [`crate::answers`] and [`crate::lane_build`]), in the scratch workspace
/// `root/target/lanes/students/<hash of src's path>` (one per student, so that several can
/// be built at once): the module, or why none could be built, and what was left out.
pub fn build_kernels(src: &Path, root: &Path) -> (Result<Vec<u8>, String>, Outline) {
    // A link on the way to the sources is refused before anything is read through it.
    if src
        .parent()
        .is_some_and(|k| std::fs::symlink_metadata(k).is_ok())
        && let Err(why) = sources::own_folders(src)
    {
        return (Err(why), Outline::default());
    }
    if !src.is_dir() {
        return (
            Err(format!(
                "cannot find the student's kernels: {} is not a folder",
                display_in(src, root)
            )),
            Outline::default(),
        );
    }
    let ws = student_workspace(src, root);
    lane_build::build_answers(src, root, &ws)
}

/// The scratch workspace of the student's sources at `src`, under the course at `root`:
/// where their answers are spliced into the course's files and built.
pub fn student_workspace(src: &Path, root: &Path) -> PathBuf {
    root.join("target")
        .join("lanes")
        .join("students")
        .join(path_key(src))
}

/// `path` relative to `root` when it lies inside it (no path of the machine in a message).
fn display_in(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// [`build_kernels`], the module and its [`Outline`] written into the student's scratch
/// workspace (`kernels.wasm`, [`outline_path`]); returns the module's path, or why none
/// could be built.
pub fn build_student(src: &Path, root: &Path) -> Result<PathBuf, String> {
    let (module, outline) = build_kernels(src, root);
    let ws = student_workspace(src, root);
    let file = ws.join("kernels.wasm");
    let written = write_module(&file, module, &outline)?;
    written.map(|()| file)
}

/// Writes `module` (or why there is none, as text) to `file` and `outline` beside it;
/// `Ok(Err(why))` when there is no module.
fn write_module(
    file: &Path,
    module: Result<Vec<u8>, String>,
    outline: &Outline,
) -> Result<Result<(), String>, String> {
    let io = |p: &Path, e: std::io::Error| format!("cannot write {}: {e}", p.display());
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let json = serde_json::to_string(outline).map_err(|e| e.to_string())?;
    // Written aside and renamed: a process reading beside this one reads a whole file.
    let part = file.with_extension(format!("{}.part", std::process::id()));
    let outline_file = outline_path(file);
    std::fs::write(&part, &json)
        .and_then(|()| std::fs::rename(&part, &outline_file))
        .map_err(|e| io(&outline_file, e))?;
    let (bytes, result) = match module {
        Ok(bytes) => (bytes, Ok(())),
        Err(why) => (why.clone().into_bytes(), Err(why)),
    };
    std::fs::write(&part, bytes)
        .and_then(|()| std::fs::rename(&part, file))
        .map_err(|e| io(file, e))?;
    Ok(result)
}

/// The name of the crate that builds the student's sources at `src` in their scratch
/// workspace (one per student, so that builds into one target folder never collide).
pub fn student_crate(src: &Path) -> String {
    format!("student-{}", path_key(src))
}

/// A name for scratch folders of the sources at `path`: a hash of its canonical path (FNV-1a,
/// 16 hex digits), the same for every run on this machine.
pub fn path_key(path: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    format!(
        "{:016x}",
        crate::fnv::hash(path.display().to_string().as_bytes())
    )
}

/// [`build_kernels`], the module (or a file with the reason it could not be built, which
/// each launch then reports) and its [`Outline`] written into the student's scratch
/// workspace for the processes that load it ([`module_env`]): the module file's path and
/// the outline. `Err` only when the files cannot be written.
pub fn build_submission(src: &Path, root: &Path) -> Result<(PathBuf, Outline), String> {
    let (module, outline) = build_kernels(src, root);
    let file = student_workspace(src, root).join("kernels.wasm");
    let _ = write_module(&file, module, &outline)?;
    Ok((file, outline))
}

/// [`build_submission`], then makes its module what every process this one starts (and
/// this one) loads as the `kernels` module ([`module_env`]), each check reading its
/// outline ([`broken`]). Returns the outline.
pub fn use_student(src: &Path, root: &Path) -> Result<Outline, String> {
    let (file, outline) = build_submission(src, root)?;
    set_kernels(&file);
    Ok(outline)
}

fn set_kernels(file: &Path) {
    // SAFETY: called before the grader starts any thread that reads the environment.
    unsafe { std::env::set_var(module_env("kernels"), file) };
    forget();
}
