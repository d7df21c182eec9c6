//! A submission's answers built to PTX, for grading on a GPU.
//!
//! The GPU runs what the driver is given as PTX, so grading a student on a GPU builds their
//! answers for `nvptx64-nvidia-cuda` at grading time, with the pinned nightly
//! ([`ptx_builder`]), from the same splice as the sandbox's build (their answer regions in
//! the course's pristine files, [`gpu_host::answers`]) and in the same clean environment
//! (only [`gpu_host::lane_build::ALLOWED_ENV`] reaches cargo, the machine's paths remapped
//! out of every message). An answer the sandbox put back to its stub stays put back; one
//! that compiles for the sandbox but not for the GPU (it uses `std`) is put back too, and
//! the outline says so, so both judges run the same code.
//!
//! The sandbox's build of the same sources finished within its budget, so this one ends too
//! (a `const` that never finishes evaluating stopped that one first).
//!
//! What a GPU grade needs of a submission lies in one folder ([`Prepared`]): the sandbox's
//! module and outline, the reference's module, and the PTX of both crates. `--prepare-gpu`
//! writes that folder on a machine with Rust; `--prepared` grades it on a GPU machine
//! without.

use gpu_host::answers;
use gpu_host::lane_build::{self, Attempt, Outline};
use gpu_host::lanes;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The files of a prepared submission's folder.
pub mod files {
    /// The student's answers built for the sandbox (or the text of why they could not be).
    pub const KERNELS_WASM: &str = "kernels.wasm";
    /// The reference solutions built for the sandbox (`COURSE_LANES_DIR` reads it).
    pub const SOLUTIONS_WASM: &str = "solutions.wasm";
    /// The student's answers built to PTX (`COURSE_PTX_DIR` reads it).
    pub const KERNELS_PTX: &str = "kernels.ptx";
    /// The reference solutions built to PTX.
    pub const SOLUTIONS_PTX: &str = "solutions.ptx";
    /// Why the submission could not be prepared, instead of the files above.
    pub const ERROR: &str = "error.txt";
}

/// The target folder of the PTX builds of submissions, under the course's `target/`: apart
/// from the course's own nvptx build, shared by every submission (each its own crate name).
pub const TARGET: &str = "nvptx-students";

/// What the reason of an answer that compiles for the sandbox but not for the GPU says.
pub const FOR_THE_GPU: &str = "for the GPU (nvptx64)";

/// How a refusal to grade on a GPU for want of the nightly starts.
pub const NEEDS_NIGHTLY: &str =
    "grading on a GPU builds each submission's answers to PTX with the pinned nightly";

/// The pinned nightly, checked to have what the PTX build needs; `Err` says which piece is
/// missing and the command that installs it.
pub fn toolchain() -> Result<ptx_builder::Toolchain, String> {
    ptx_builder::Toolchain::locate(&ptx_builder::toolchain_from_env())
        .map_err(|e| format!("{NEEDS_NIGHTLY}: {e}"))
}

/// The PTX of the student's answers in `src` (their `kernels/src`), spliced into the course
/// at `root` as the sandbox's build spliced them (`outline`, its outline: the exercises it
/// put back stay put back). An answer that does not compile for the GPU is put back to its
/// stub and added to `outline`. `Err` when nothing could be built.
pub fn build_ptx(
    src: &Path,
    root: &Path,
    tc: &ptx_builder::Toolchain,
    outline: &mut Outline,
) -> Result<String, String> {
    let pristine = root.join(answers::PRISTINE_DIR);
    let crate_name = lanes::student_crate(src);
    let ws = ptx_workspace(src, root);
    lane_build::scratch_workspace(root, &ws, &crate_name)?;
    let target = root.join("target").join(TARGET);
    let remap: Vec<String> = lane_build::remap_flags(root)
        .split('\u{1f}')
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect();
    let builder = ptx_builder::Builder::new(&crate_name)
        .toolchain(&tc.name)
        .workspace(&ws)
        .target_dir(&target)
        .out_dir(ws.join("ptx"))
        .quiet(true)
        .isolated(&lane_build::ALLOWED_ENV, &PROFILE_SETTINGS, &remap);
    let before: BTreeSet<String> = outline.broken.keys().cloned().collect();
    let (built, ptx_outline) = lane_build::rounds_timed(
        &mut |put_back| {
            let all: BTreeSet<String> = put_back.union(&before).cloned().collect();
            answers::splice(src, &pristine, &all)
        },
        &mut |answers, _limit| {
            // One build into the shared target folder at a time: its lock is held from
            // writing the sources to reading the PTX.
            let lock = lane_build::lock_target(&target)?;
            let t = Instant::now();
            answers::write(answers, &ws.join("kernels").join("src"))?;
            let built = builder.build_with(tc);
            drop(lock);
            let attempt = match built {
                Ok(ptx) if ptx.unresolved_externs().is_empty() => Attempt::Built(ptx.text.into()),
                Ok(ptx) => Attempt::Failed(format!(
                    "error: the PTX calls functions it does not define ({})",
                    ptx.unresolved_externs().join(" ")
                )),
                Err(ptx_builder::Error::BuildFailed { messages, .. }) => Attempt::Failed(messages),
                Err(e) => return Err(e.to_string()),
            };
            Ok((attempt, t.elapsed()))
        },
        lanes::build_limit(),
    );
    for (id, mut why) in ptx_outline.broken {
        if before.contains(&id) {
            continue;
        }
        // Its first words stay the sandbox's (the tools tell the kind of failure by them).
        if let Some(first) = why.first_mut() {
            *first = first.replacen(": ", &format!(": {FOR_THE_GPU}: "), 1);
        }
        outline.broken.insert(id, why);
    }
    let bytes = built.map_err(|why| why.replace("for the emulator", "for the GPU (nvptx64)"))?;
    String::from_utf8(bytes).map_err(|e| format!("the PTX is not text: {e}"))
}

/// The cargo profile of the PTX build of a submission, as `--config` settings: the course's
/// `[profile.ptx]` (a scratch workspace has none).
const PROFILE_SETTINGS: [&str; 6] = [
    "inherits=\"release\"",
    "debug=0",
    "lto=\"fat\"",
    "codegen-units=1",
    "panic=\"abort\"",
    "incremental=false",
];

/// The scratch workspace of the PTX build of the sources at `src`: beside the sandbox's.
fn ptx_workspace(src: &Path, root: &Path) -> PathBuf {
    let ws = lanes::student_workspace(src, root);
    let mut name = ws.file_name().unwrap_or_default().to_os_string();
    name.push("-ptx");
    ws.with_file_name(name)
}

/// Where a GPU grade of the sources at `src` keeps what it built (a [`Prepared`] folder
/// beside their sandbox build's scratch workspace).
pub fn scratch_dir(src: &Path, root: &Path) -> PathBuf {
    let ws = lanes::student_workspace(src, root);
    let mut name = ws.file_name().unwrap_or_default().to_os_string();
    name.push("-gpu");
    ws.with_file_name(name)
}

/// The reference solutions' PTX: the one built into this grader (`cuda` feature), else
/// built now from the course at `root` with toolchain `tc`.
pub fn reference_ptx(root: &Path, tc: &ptx_builder::Toolchain) -> Result<String, String> {
    #[cfg(feature = "cuda")]
    {
        let _ = (root, tc);
        Ok(chapter::device::SOLUTIONS_PTX.to_string())
    }
    #[cfg(not(feature = "cuda"))]
    {
        ptx_builder::Builder::new("solutions")
            .toolchain(&tc.name)
            .workspace(root)
            .quiet(true)
            .build_with(tc)
            .map(|p| p.text)
            .map_err(|e| format!("the reference solutions' PTX: {e}"))
    }
}

/// A submission's folder ready for a GPU: everything its grade reads (see [`files`]).
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The folder.
    pub dir: PathBuf,
}

impl Prepared {
    /// The environment variables that make a child of the grader grade this folder: its
    /// sandbox modules ([`lanes::module_env`], [`lanes::PREBUILT_ENV`]) and its PTX
    /// ([`chapter::device::PTX_DIR_ENV`]).
    pub fn env(&self) -> Vec<(String, std::ffi::OsString)> {
        vec![
            (
                lanes::module_env("kernels"),
                self.dir.join(files::KERNELS_WASM).into_os_string(),
            ),
            (
                lanes::PREBUILT_ENV.to_string(),
                self.dir.clone().into_os_string(),
            ),
            (
                chapter::device::PTX_DIR_ENV.to_string(),
                self.dir.clone().into_os_string(),
            ),
        ]
    }

    /// The folder as `--prepare-gpu` left it: `Err` with its `error.txt` when the
    /// submission could not be prepared, or naming the file that is missing.
    pub fn open(dir: &Path) -> Result<Prepared, String> {
        if let Ok(why) = std::fs::read_to_string(dir.join(files::ERROR)) {
            return Err(why.trim_end().to_string());
        }
        for f in [
            files::KERNELS_WASM,
            files::SOLUTIONS_WASM,
            files::KERNELS_PTX,
            files::SOLUTIONS_PTX,
        ] {
            if !dir.join(f).is_file() {
                return Err(format!(
                    "{} holds no {f}: not a folder written by --prepare-gpu",
                    dir.display()
                ));
            }
        }
        Ok(Prepared {
            dir: dir.to_path_buf(),
        })
    }

    /// What the sandbox's build left out (the outline written beside its module).
    pub fn outline(&self) -> Outline {
        std::fs::read_to_string(lanes::outline_path(&self.dir.join(files::KERNELS_WASM)))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }
}

/// Builds everything a GPU grade of the student's answers in `src` needs into `dir` (see
/// [`files`]): their sandbox module and outline, the reference's module (`solutions`,
/// built once per grader: pass it in), and the PTX of both. Returns the outline. `Err`
/// when the answers cannot be built at all (written as `dir/error.txt` too).
pub fn prepare(
    src: &Path,
    root: &Path,
    tc: &ptx_builder::Toolchain,
    reference: &Reference,
    dir: &Path,
) -> Result<Prepared, String> {
    let io = |p: &Path, e: std::io::Error| format!("cannot write {}: {e}", p.display());
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for f in [files::ERROR, files::KERNELS_PTX] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let result = (|| {
        let (module, mut outline) = lanes::build_submission(src, root)?;
        let bytes = std::fs::read(&module).map_err(|e| format!("{}: {e}", module.display()))?;
        if !bytes.starts_with(b"\0asm") {
            return Err(String::from_utf8_lossy(&bytes).into_owned());
        }
        let ptx = build_ptx(src, root, tc, &mut outline)?;
        let json = serde_json::to_string(&outline).map_err(|e| e.to_string())?;
        let wasm = dir.join(files::KERNELS_WASM);
        std::fs::write(&wasm, &bytes).map_err(|e| io(&wasm, e))?;
        let o = lanes::outline_path(&wasm);
        std::fs::write(&o, json).map_err(|e| io(&o, e))?;
        for (name, contents) in [
            (files::KERNELS_PTX, ptx.as_bytes()),
            (files::SOLUTIONS_PTX, reference.ptx.as_bytes()),
            (files::SOLUTIONS_WASM, &reference.wasm[..]),
        ] {
            let p = dir.join(name);
            std::fs::write(&p, contents).map_err(|e| io(&p, e))?;
        }
        Ok(Prepared {
            dir: dir.to_path_buf(),
        })
    })();
    if let Err(why) = &result {
        let p = dir.join(files::ERROR);
        std::fs::write(&p, format!("{why}\n")).map_err(|e| io(&p, e))?;
    }
    result
}

/// The reference solutions as a GPU grade needs them: PTX and sandbox module.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The PTX of `solutions`.
    pub ptx: String,
    /// `solutions` built for the sandbox.
    pub wasm: Vec<u8>,
}

impl Reference {
    /// Builds (or takes from this grader) both, from the course at `root`.
    pub fn build(root: &Path, tc: &ptx_builder::Toolchain) -> Result<Reference, String> {
        Ok(Reference {
            ptx: reference_ptx(root, tc)?,
            wasm: lanes::build("solutions", root)?,
        })
    }
}
