//! # `ptx-builder`: kernel crates to PTX, with rustc's own NVPTX backend
//!
//! The course's kernels are ordinary Rust crates (`kernels`, `solutions`, `api-probe`)
//! built twice: for the host with stable Rust, where the SIMT emulator runs them, and for
//! `nvptx64-nvidia-cuda`, where they become PTX that the CUDA driver JIT-compiles for the
//! GPU. This crate does the second build. It plays the role of Rust-CUDA's
//! `cuda_builder`, but drives rustc's built-in NVPTX backend (LLVM's, via a pinned
//! nightly) instead of `rustc_codegen_nvvm`, which needs an LLVM 7 that no current
//! toolchain provides.
//!
//! What a build does, and why:
//!
//! 1. **Checks the toolchain** ([`Toolchain::locate`]): the pinned nightly
//!    ([`PINNED_TOOLCHAIN`], overridable with the [`TOOLCHAIN_ENV`] variable), its
//!    `rust-src` component (`-Zbuild-std=core` compiles `core` for the GPU from source:
//!    rustup ships no prebuilt `core` for nvptx64) and its `llvm-tools` component (the
//!    linker below needs `llvm-link`, `opt` and `llc` of the same LLVM as rustc). Each
//!    missing piece is one [`Error`] whose message is the exact `rustup` command that
//!    installs it.
//! 2. **Runs cargo** from that toolchain: `cargo rustc -p PKG --lib --profile ptx
//!    --target nvptx64-nvidia-cuda --crate-type cdylib -Zbuild-std=core`, in its own
//!    target directory (`target/nvptx`), so it never invalidates or locks the host
//!    build's artifacts. The workspace's `[profile.ptx]` gives fat LTO and one codegen
//!    unit: the whole kernel, `gpu` and `core` included, is optimised as one module and
//!    the PTX holds nothing but the kernels. Everything target-specific is passed with
//!    `--config` on the command line, never in a `.cargo/config.toml`, which would also
//!    apply to the host build.
//! 3. **Links with a stand-in for `llvm-bitcode-linker`** ([`LINKER_SCRIPT`],
//!    `crates/ptx-builder/llbc-link.sh`): rustc links an nvptx64 cdylib through that
//!    rustup component, which is not published for the pinned nightly. The script links
//!    the LLVM bitcode with `llvm-link`, internalises everything but the kernels, and
//!    emits PTX with `llc`.
//! 4. **Copies the PTX** to `target/ptx/PKG.ptx` (only when it changed, so a host crate
//!    that embeds it is not rebuilt for nothing) and returns it as [`Ptx`].
//!
//! Rebuilds: cargo rebuilds when a kernel source changes, as for any crate. The linker
//! script is compiled into this crate (`include_str!`) and written to the target
//! directory under a name that carries a hash of its contents; cargo's fingerprint
//! includes the linker's path, so editing the script relinks every kernel crate.
//!
//! ```no_run
//! let ptx = ptx_builder::Builder::new("solutions").build()?;
//! println!("{} kernels in {}", ptx.entries().len(), ptx.path.display());
//! # Ok::<(), ptx_builder::Error>(())
//! ```
//!
//! From the command line: `cargo run -p ptx-builder -- solutions` (see `--help`).
#![deny(missing_docs)]

use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The nightly the PTX build uses. The features it relies on (`abi_ptx`,
/// `gpu_launch_sized_workgroup_mem`, `-Cpanic=immediate-abort`, the `ptx-kernel` ABI) are
/// unstable and move between nightlies, so the course pins one that was seen to work end
/// to end (rustc 1.97.0-nightly e50aa6fba, LLVM 22), and CI installs the same.
pub const PINNED_TOOLCHAIN: &str = "nightly-2026-05-20";

/// Environment variable that overrides [`PINNED_TOOLCHAIN`] (a rustup toolchain name),
/// e.g. to try a newer nightly before moving the pin.
pub const TOOLCHAIN_ENV: &str = "PTX_BUILDER_TOOLCHAIN";

/// The rustc target: 64-bit PTX for the CUDA driver.
pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// The default GPU architecture: `sm_70` (Volta), the oldest rustc's nvptx64 target
/// builds for and the oldest with every instruction the kernels use (`match.any.sync`,
/// the `*.sync` warp intrinsics). The driver compiles PTX for the GPU it runs on, so
/// `sm_70` PTX runs on every NVIDIA GPU from compute capability 7.0 on (a T4, an RTX 20
/// to 50, an A100, L4, H100, H200), at the speed of PTX built for that GPU
/// (`notes/arch-sm70-h100-2026-11-26/`: the H100's bench from `sm_70` and `sm_90` PTX); the
/// host refuses PTX newer than its GPU with a message naming both
/// (`gpu_host::MIN_COMPUTE_CAPABILITY`).
pub const DEFAULT_ARCH: &str = "sm_70";

/// The cargo profile of the PTX build, defined in the workspace's `Cargo.toml` (fat LTO,
/// one codegen unit, `panic = "abort"`, no debug info).
pub const PROFILE: &str = "ptx";

/// The workspace packages that hold kernels, for tools that build them all.
pub const KERNEL_PACKAGES: [&str; 3] = ["kernels", "solutions", "api-probe"];

/// The stand-in for rustc's `llvm-bitcode-linker` (`crates/ptx-builder/llbc-link.sh`),
/// compiled in so that a change to it rebuilds the builder and, through the hashed file
/// name it is written under, relinks every kernel crate.
pub const LINKER_SCRIPT: &str = include_str!("../llbc-link.sh");

/// Environment variable through which the builder tells the linker script where the
/// toolchain's LLVM tools are, so it does not depend on which `rustc` is on `PATH`.
pub const LLVM_BIN_ENV: &str = "LLBC_LLVM_BIN";

/// The rustup command that installs the pinned toolchain with everything the PTX build
/// needs, for error messages and docs.
pub fn install_command(toolchain: &str) -> String {
    format!("rustup toolchain install {toolchain} --profile minimal -c rust-src -c llvm-tools")
}

/// The toolchain to use: [`TOOLCHAIN_ENV`] if set and not empty, else
/// [`PINNED_TOOLCHAIN`].
pub fn toolchain_from_env() -> String {
    match std::env::var(TOOLCHAIN_ENV) {
        Ok(t) if !t.trim().is_empty() => t.trim().to_string(),
        _ => PINNED_TOOLCHAIN.to_string(),
    }
}

/// The course this builder runs in, found at run time ([`course_root::course_root`]), or,
/// where none is found, the current folder (whose missing packages the build then names).
/// Kernel packages are looked up there unless [`Builder::workspace`] says otherwise.
pub fn workspace_root() -> PathBuf {
    course_root::course_root()
        .or_else(|_| std::env::current_dir())
        .unwrap_or_else(|_| PathBuf::from("."))
}

/// Why a PTX build could not run or failed. Every message is one line that says what to
/// do; the binary prints it as `error: MESSAGE` and exits with status 1.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// `rustup` is not on `PATH`: the builder needs it to find the pinned nightly.
    RustupMissing {
        /// The toolchain that was asked for.
        toolchain: String,
    },
    /// The toolchain is not installed.
    ToolchainMissing {
        /// The toolchain that was asked for.
        toolchain: String,
    },
    /// A rustup component the build needs is missing from the toolchain.
    ComponentMissing {
        /// The toolchain.
        toolchain: String,
        /// The component: `rust-src`, `llvm-tools` or `cargo`.
        component: &'static str,
        /// What it is needed for.
        needed_for: &'static str,
    },
    /// rustup or the toolchain's rustc failed in an unexpected way.
    Toolchain {
        /// The toolchain.
        toolchain: String,
        /// The command that failed and its first line of error output.
        message: String,
    },
    /// Reading or writing a file failed.
    Io {
        /// What was being done, e.g. `writing /path/llbc-link-….sh`.
        what: String,
        /// The operating system's error.
        source: io::Error,
    },
    /// The nvptx64 build of the package failed; cargo and rustc printed why (on standard
    /// error, or in `messages` for an [isolated](Builder::isolated) build).
    BuildFailed {
        /// The package.
        package: String,
        /// Cargo's exit status.
        status: std::process::ExitStatus,
        /// The compiler's messages, when the build captured them; empty otherwise.
        messages: String,
    },
    /// Cargo succeeded but reported no `.ptx` file for the package's library.
    NoPtx {
        /// The package.
        package: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::RustupMissing { toolchain } => write!(
                f,
                "rustup not found on PATH; the PTX build needs it to run toolchain {toolchain}: install rustup (https://rustup.rs), then run: {}",
                install_command(toolchain)
            ),
            Error::ToolchainMissing { toolchain } => write!(
                f,
                "toolchain {toolchain}, which the PTX build uses, is not installed; install it with: {}",
                install_command(toolchain)
            ),
            Error::ComponentMissing {
                toolchain,
                component,
                needed_for,
            } => write!(
                f,
                "toolchain {toolchain} lacks the {component} component ({needed_for}); install it with: rustup component add --toolchain {toolchain} {component}"
            ),
            Error::Toolchain { toolchain, message } => {
                write!(f, "toolchain {toolchain}: {message}")
            }
            Error::Io { what, source } => write!(f, "{what}: {source}"),
            Error::BuildFailed {
                package,
                status,
                messages,
            } if messages.is_empty() => write!(
                f,
                "building {package} for {TARGET} failed (cargo {status}); the compiler's messages are above"
            ),
            Error::BuildFailed {
                package, status, ..
            } => write!(
                f,
                "building {package} for {TARGET} failed (cargo {status}): the compiler's messages follow"
            ),
            Error::NoPtx { package } => write!(
                f,
                "cargo built {package} for {TARGET} but reported no .ptx file for its library"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn io_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> Error {
    let what = what.into();
    move |source| Error::Io { what, source }
}

/// A rustup toolchain checked to have what the PTX build needs.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// The name it was asked for, e.g. `nightly-2026-05-20`.
    pub name: String,
    /// Its `rustc -V`, e.g. `rustc 1.97.0-nightly (e50aa6fba 2026-05-19)`.
    pub version: String,
    /// Its `rustc`.
    pub rustc: PathBuf,
    /// Its `cargo`.
    pub cargo: PathBuf,
    /// `rustc --print sysroot`.
    pub sysroot: PathBuf,
    /// The `llvm-tools` binaries (`llvm-link`, `opt`, `llc`, `llvm-ar`).
    pub llvm_bin: PathBuf,
}

/// The LLVM tools the linker script runs.
const LLVM_TOOLS: [&str; 4] = ["llvm-ar", "llvm-link", "opt", "llc"];

impl Toolchain {
    /// Finds toolchain `name` through rustup and checks that it has `cargo`, `rust-src`
    /// and `llvm-tools`. Never installs anything (rustup's auto-install is switched off
    /// for these queries): a missing piece is an [`Error`] naming the command to run.
    pub fn locate(name: &str) -> Result<Toolchain, Error> {
        let rustc = PathBuf::from(rustup_which(name, "rustc")?);
        let cargo = PathBuf::from(rustup_which(name, "cargo")?);
        let vv = run_tool(name, &rustc, ["-vV"])?;
        let version = vv.lines().next().unwrap_or_default().to_string();
        let host = vv
            .lines()
            .find_map(|l| l.strip_prefix("host: "))
            .ok_or_else(|| Error::Toolchain {
                toolchain: name.to_string(),
                message: format!("`{} -vV` printed no host line", rustc.display()),
            })?
            .to_string();
        let sysroot = PathBuf::from(run_tool(name, &rustc, ["--print", "sysroot"])?.trim());
        let core = sysroot.join("lib/rustlib/src/rust/library/core/src/lib.rs");
        if !core.is_file() {
            return Err(Error::ComponentMissing {
                toolchain: name.to_string(),
                component: "rust-src",
                needed_for: "-Zbuild-std=core compiles core for the GPU from source",
            });
        }
        let llvm_bin = sysroot.join("lib/rustlib").join(&host).join("bin");
        let exe = std::env::consts::EXE_SUFFIX;
        if LLVM_TOOLS
            .iter()
            .any(|t| !llvm_bin.join(format!("{t}{exe}")).is_file())
        {
            return Err(Error::ComponentMissing {
                toolchain: name.to_string(),
                component: "llvm-tools",
                needed_for: "the PTX linker runs its llvm-link, opt and llc",
            });
        }
        Ok(Toolchain {
            name: name.to_string(),
            version,
            rustc,
            cargo,
            sysroot,
            llvm_bin,
        })
    }
}

/// `rustup which --toolchain NAME BINARY`, with rustup's own error output kept to
/// ourselves (it may carry a backtrace) and turned into one [`Error`].
fn rustup_which(toolchain: &str, binary: &str) -> Result<String, Error> {
    let out = Command::new("rustup")
        .args(["which", "--toolchain", toolchain, binary])
        .env("RUSTUP_AUTO_INSTALL", "0")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                Error::RustupMissing {
                    toolchain: toolchain.to_string(),
                }
            } else {
                Error::Io {
                    what: "running rustup".into(),
                    source: e,
                }
            }
        })?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).trim().to_string());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let toolchain = toolchain.to_string();
    // rustup says "toolchain 'T' is not installed" for the toolchain and
    // "'cargo' is not installed for the toolchain 'T'" for a missing binary.
    if stderr.contains("is not installed for") && binary == "cargo" {
        Err(Error::ComponentMissing {
            toolchain,
            component: "cargo",
            needed_for: "it drives the build",
        })
    } else if stderr.contains("is not installed") && !stderr.contains("is not installed for") {
        Err(Error::ToolchainMissing { toolchain })
    } else {
        let message = format!(
            "`rustup which --toolchain {toolchain} {binary}` failed: {}",
            first_line(&stderr)
        );
        Err(Error::Toolchain { toolchain, message })
    }
}

fn first_line(s: &str) -> &str {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("(no message)")
}

fn run_tool<I, S>(toolchain: &str, program: &Path, args: I) -> Result<String, Error>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<S> = args.into_iter().collect();
    let shown = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let out = Command::new(program)
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .map_err(io_err(format!("running {}", program.display())))?;
    if !out.status.success() {
        return Err(Error::Toolchain {
            toolchain: toolchain.to_string(),
            message: format!(
                "`{} {shown}` failed: {}",
                program.display(),
                first_line(&String::from_utf8_lossy(&out.stderr))
            ),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A 64-bit FNV-1a hash (the `fnv` crate): stable across Rust versions and platforms,
/// unlike `std`'s `DefaultHasher`, so the linker script's file name only changes with
/// its contents.
fn fnv1a(bytes: &[u8]) -> u64 {
    use std::hash::Hasher as _;
    let mut h = fnv::FnvHasher::default();
    h.write(bytes);
    h.finish()
}

/// A TOML basic string, for `--config KEY=VALUE` on cargo's command line.
fn toml_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes `contents` to `path` unless it already holds exactly that, through a temporary
/// file and a rename so a concurrent reader (or `exec`) never sees half a file.
fn write_if_changed(path: &Path, contents: &[u8], executable: bool) -> Result<bool, Error> {
    if std::fs::read(path).is_ok_and(|old| old == contents) {
        return Ok(false);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io_err(format!("creating {}", dir.display())))?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, contents).map_err(io_err(format!("writing {}", tmp.display())))?;
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
            .map_err(io_err(format!("making {} executable", tmp.display())))?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    std::fs::rename(&tmp, path).map_err(io_err(format!("writing {}", path.display())))?;
    Ok(true)
}

/// Removes linker scripts of earlier builder versions from `dir` (best effort: a file
/// another build still uses is recreated by that build).
fn remove_stale_linkers(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p != keep && name.starts_with("llbc-link-") && name.ends_with(".sh") {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// The PTX of one package, as built.
#[derive(Clone, Debug)]
pub struct Ptx {
    /// The package it was built from.
    pub package: String,
    /// Where the builder copied it (`target/ptx/PKG.ptx` by default).
    pub path: PathBuf,
    /// The PTX text, what `cuModuleLoadData` takes.
    pub text: String,
}

impl Ptx {
    /// The kernel entry points (`.entry NAME(`), in file order: one per `#[kernel]`.
    pub fn entries(&self) -> Vec<&str> {
        self.text
            .lines()
            .filter_map(|l| {
                let rest = l.trim_start();
                let rest = rest.strip_prefix(".visible ").unwrap_or(rest);
                let rest = rest.strip_prefix(".entry ")?;
                Some(rest.split(['(', ' ']).next().unwrap_or(rest).trim())
            })
            .collect()
    }

    /// Declarations of functions the PTX calls but does not define (`.extern .func`):
    /// `ptxas` rejects them ("Unresolved extern function"). A call into `core` that the
    /// linker could not resolve, e.g. a panic path, shows up here.
    pub fn unresolved_externs(&self) -> Vec<&str> {
        self.text
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with(".extern .func"))
            .collect()
    }
}

/// Builds one workspace package into PTX. See the crate docs for what it runs and why.
#[derive(Clone, Debug)]
pub struct Builder {
    package: String,
    arch: String,
    toolchain: String,
    workspace: PathBuf,
    target_dir: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    quiet: bool,
    isolated: Option<Isolated>,
}

/// The settings of a build of code the builder does not trust (a student's answers, see
/// [`Builder::isolated`]).
#[derive(Clone, Debug)]
struct Isolated {
    env: Vec<String>,
    profile: Vec<String>,
    rustflags: Vec<String>,
}

impl Builder {
    /// A build of workspace package `package` for [`DEFAULT_ARCH`] with the toolchain of
    /// [`toolchain_from_env`].
    pub fn new(package: impl Into<String>) -> Self {
        Builder {
            package: package.into(),
            arch: DEFAULT_ARCH.to_string(),
            toolchain: toolchain_from_env(),
            workspace: workspace_root(),
            target_dir: None,
            out_dir: None,
            quiet: false,
            isolated: None,
        }
    }

    /// The GPU architecture, `sm_XX` (rustc's `-Ctarget-cpu`). The PTX's `.target` line
    /// says it; the driver refuses to load it on an older GPU.
    pub fn arch(mut self, arch: impl Into<String>) -> Self {
        self.arch = arch.into();
        self
    }

    /// The rustup toolchain to build with, instead of the pinned nightly.
    pub fn toolchain(mut self, toolchain: impl Into<String>) -> Self {
        self.toolchain = toolchain.into();
        self
    }

    /// The workspace holding the package (default: [`workspace_root`]).
    pub fn workspace(mut self, dir: impl Into<PathBuf>) -> Self {
        self.workspace = dir.into();
        self
    }

    /// Cargo's target directory for the nvptx64 build (default `WORKSPACE/target/nvptx`):
    /// separate from the host's, so the two builds never rebuild or lock each other.
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// Where the PTX is copied to as `PKG.ptx` (default `WORKSPACE/target/ptx`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Passes `--quiet` to cargo (errors and warnings are still shown).
    pub fn quiet(mut self, quiet: bool) -> Self {
        self.quiet = quiet;
        self
    }

    /// Builds untrusted code (a student's answers in a scratch workspace) as the course's
    /// sandbox builds it: cargo sees none of this process's environment but the variables
    /// named in `env` (where the toolchain and cargo live), the profile [`PROFILE`] is
    /// given on the command line (`profile_settings`, e.g. `inherits="release"`: a
    /// scratch workspace has no `[profile.ptx]`), `rustflags` are added to the target's
    /// (`--remap-path-prefix`, so no path of the machine is in a message), and the
    /// compiler's messages are captured into [`Error::BuildFailed`] instead of shown.
    pub fn isolated(
        mut self,
        env: &[&str],
        profile_settings: &[&str],
        rustflags: &[String],
    ) -> Self {
        self.isolated = Some(Isolated {
            env: env.iter().map(|s| s.to_string()).collect(),
            profile: profile_settings.iter().map(|s| s.to_string()).collect(),
            rustflags: rustflags.to_vec(),
        });
        self
    }

    /// The package this builds.
    pub fn package(&self) -> &str {
        &self.package
    }

    /// The toolchain name this builds with.
    pub fn toolchain_name(&self) -> &str {
        &self.toolchain
    }

    /// The nvptx64 target directory in use.
    pub fn target_dir_path(&self) -> PathBuf {
        self.target_dir
            .clone()
            .unwrap_or_else(|| self.workspace.join("target/nvptx"))
    }

    /// Where the PTX lands: `OUT_DIR/PKG.ptx`.
    pub fn ptx_path(&self) -> PathBuf {
        self.out_dir
            .clone()
            .unwrap_or_else(|| self.workspace.join("target/ptx"))
            .join(format!("{}.ptx", self.package))
    }

    /// Checks the toolchain, then builds. Progress and compiler messages go to stderr.
    pub fn build(&self) -> Result<Ptx, Error> {
        let tc = Toolchain::locate(&self.toolchain)?;
        self.build_with(&tc)
    }

    /// Builds with a toolchain already checked by [`Toolchain::locate`] (to check it once
    /// for several packages).
    pub fn build_with(&self, tc: &Toolchain) -> Result<Ptx, Error> {
        let target_dir = self.target_dir_path();
        let linker = target_dir.join(format!(
            "llbc-link-{:016x}.sh",
            fnv1a(LINKER_SCRIPT.as_bytes())
        ));
        write_if_changed(&linker, LINKER_SCRIPT.as_bytes(), true)?;
        remove_stale_linkers(&target_dir, &linker);

        let mut cmd = self.cargo_command(tc, &linker);
        let stderr = if self.isolated.is_some() {
            Stdio::piped()
        } else {
            Stdio::inherit()
        };
        let out = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .output()
            .map_err(io_err(format!("running {}", tc.cargo.display())))?;
        if !out.status.success() {
            return Err(Error::BuildFailed {
                package: self.package.clone(),
                status: out.status,
                messages: String::from_utf8_lossy(&out.stderr).trim_end().to_string(),
            });
        }
        let built = ptx_artifact(&String::from_utf8_lossy(&out.stdout), &self.package).ok_or_else(
            || Error::NoPtx {
                package: self.package.clone(),
            },
        )?;
        let text = std::fs::read_to_string(&built)
            .map_err(io_err(format!("reading {}", built.display())))?;
        let path = self.ptx_path();
        write_if_changed(&path, text.as_bytes(), false)?;
        Ok(Ptx {
            package: self.package.clone(),
            path,
            text,
        })
    }

    /// The cargo invocation, for inspection: the toolchain's own `cargo` and `rustc`
    /// (not whatever `cargo` is on `PATH`), a clean environment (no `RUSTFLAGS` or
    /// wrappers meant for the host build), and every nvptx setting as `--config`.
    pub fn cargo_command(&self, tc: &Toolchain, linker: &Path) -> Command {
        let mut cmd = Command::new(&tc.cargo);
        cmd.arg("rustc")
            .args(["-p", &self.package, "--lib"])
            .args(["--profile", PROFILE, "--target", TARGET])
            .args(["--crate-type", "cdylib", "-Zbuild-std=core"])
            .arg("--manifest-path")
            .arg(self.workspace.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(self.target_dir_path())
            .arg("--message-format=json-render-diagnostics")
            .arg("--config")
            .arg(format!(
                "target.{TARGET}.linker={}",
                toml_str(&linker.to_string_lossy())
            ))
            .arg("--config");
        let mut flags = vec![
            toml_str(&format!("-Ctarget-cpu={}", self.arch)),
            toml_str("-Zunstable-options"),
            // No unwinding and no panic formatting on the GPU: a panic is `trap`.
            toml_str("-Cpanic=immediate-abort"),
        ];
        if let Some(iso) = &self.isolated {
            flags.extend(iso.rustflags.iter().map(|f| toml_str(f)));
        }
        cmd.arg(format!("target.{TARGET}.rustflags=[{}]", flags.join(", ")));
        if self.quiet {
            cmd.arg("--quiet");
        }
        if let Some(iso) = &self.isolated {
            for setting in &iso.profile {
                cmd.arg("--config")
                    .arg(format!("profile.{PROFILE}.{setting}"));
            }
            cmd.args(["--color", "never"]).env_clear();
            for name in &iso.env {
                if let Some(v) = std::env::var_os(name) {
                    cmd.env(name, v);
                }
            }
        }
        // Settings meant for the host build would replace or wrap ours.
        for var in [
            "RUSTFLAGS",
            "CARGO_ENCODED_RUSTFLAGS",
            "CARGO_BUILD_RUSTFLAGS",
            "RUSTC_WRAPPER",
            "RUSTC_WORKSPACE_WRAPPER",
            "CARGO_BUILD_RUSTC_WRAPPER",
            "CARGO_TARGET_DIR",
            "CARGO_BUILD_TARGET_DIR",
            "CARGO_BUILD_TARGET",
            "CARGO_INCREMENTAL",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("RUSTC", &tc.rustc)
            .env("RUSTUP_TOOLCHAIN", &tc.name)
            .env(LLVM_BIN_ENV, &tc.llvm_bin);
        cmd
    }
}

/// The `.ptx` file of `package`'s library among cargo's JSON messages.
fn ptx_artifact(json_lines: &str, package: &str) -> Option<PathBuf> {
    let lib_name = package.replace('-', "_");
    json_lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == lib_name.as_str())
        .flat_map(|m| {
            m["filenames"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
        })
        .filter_map(|f| f.as_str().map(PathBuf::from))
        .rfind(|p| p.extension().is_some_and(|e| e == "ptx"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_strings_are_quoted() {
        assert_eq!(toml_str(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(toml_str("/x/y.sh"), "\"/x/y.sh\"");
    }

    #[test]
    fn linker_name_follows_contents() {
        assert_ne!(fnv1a(b"a"), fnv1a(b"b"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(
            fnv1a(b"a"),
            0xaf63_dc4c_8601_ec8c,
            "FNV-1a's published value"
        );
    }

    #[test]
    fn finds_the_ptx_artifact() {
        let msgs = r#"{"reason":"compiler-artifact","target":{"name":"gpu"},"filenames":["/t/libgpu.rlib"]}
{"reason":"compiler-artifact","target":{"name":"api_probe"},"filenames":["/t/api_probe.ptx"]}
{"reason":"build-finished","success":true}"#;
        assert_eq!(
            ptx_artifact(msgs, "api-probe"),
            Some(PathBuf::from("/t/api_probe.ptx"))
        );
        assert_eq!(ptx_artifact(msgs, "gpu"), None);
    }

    #[test]
    fn lists_entries_and_externs() {
        let ptx = Ptx {
            package: "p".into(),
            path: "p.ptx".into(),
            text: ".visible .entry a(\n.param .u64 x\n)\n.entry b()\n.extern .func f();\n".into(),
        };
        assert_eq!(ptx.entries(), ["a", "b"]);
        assert_eq!(ptx.unresolved_externs(), [".extern .func f();"]);
    }

    #[test]
    fn a_missing_toolchain_names_the_fix() {
        match Toolchain::locate("nightly-1999-01-01") {
            Err(e @ Error::ToolchainMissing { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains(&install_command("nightly-1999-01-01")),
                    "{msg}"
                );
                assert!(!msg.contains('\n'), "{msg}");
            }
            // A machine without rustup gets its own one-line message.
            Err(e @ Error::RustupMissing { .. }) => assert!(!e.to_string().contains('\n')),
            other => panic!("expected a missing toolchain, got {other:?}"),
        }
    }
}
