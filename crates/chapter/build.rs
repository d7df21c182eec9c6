//! Build script of `chapter`: with the `cuda` feature, builds the kernels to PTX, once for
//! every chapter crate.
//!
//! The role `cuda_builder` plays in Rust-CUDA: the student's `kernels` crate and the
//! reference `solutions` crate are compiled for `nvptx64-nvidia-cuda` by
//! `ptx_builder` (the pinned nightly, rustc's own NVPTX backend, a target directory of
//! its own), and the PTX is written to `OUT_DIR`, where `src/device.rs` embeds it with
//! `include_str!`. A chapter binary (`ch05`, `ch09`) or the grader built with `--features
//! cuda` therefore carries the PTX
//! of the very kernels it was built with, and needs no file beside it on the GPU machine.
//!
//! Without the feature this script does nothing: the default build needs no nightly.
//!
//! Rebuilds: cargo reruns this script when a kernel source, the device API or a
//! manifest changes (the `rerun-if-changed` lines below), and when the checkout changes
//! (`COURSE_CHECKOUT`, the workspace's absolute path, from `.cargo/config.toml`): cargo's
//! output folder for this script is the same wherever the workspace lies, so without it a
//! copy of the course (its file times kept) built with the original's target folder would
//! embed the original's PTX. The nested cargo builds in a target folder of this checkout's
//! own (`nvptx/<hash of the checkout's path>`), for the same reason. A missing nightly, `rust-src` or `llvm-tools` fails the build
//! with the builder's one-line message naming the `rustup` command; a kernel that does
//! not compile for the GPU fails it with the compiler's messages.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    #[cfg(feature = "cuda")]
    ptx::build();
}

#[cfg(feature = "cuda")]
mod ptx {
    use std::path::{Path, PathBuf};

    /// The crates whose PTX the chapter embeds: the student's stubs and the references.
    const PACKAGES: [&str; 2] = ["kernels", "solutions"];

    /// Environment variable naming the checkout being built (`.cargo/config.toml`'s
    /// `[env]`, an absolute path): a change of it reruns this script.
    const CHECKOUT_ENV: &str = "COURSE_CHECKOUT";

    /// What a kernel's PTX depends on, relative to the workspace root.
    const INPUTS: [&str; 10] = [
        "kernels/src",
        "kernels/Cargo.toml",
        "solutions/src",
        "solutions/Cargo.toml",
        "crates/gpu/src",
        "crates/gpu/Cargo.toml",
        "crates/gpu-macros/src",
        "crates/gpu-macros/Cargo.toml",
        // The workspace manifest holds `[profile.ptx]`; the lock file the versions.
        "Cargo.toml",
        "Cargo.lock",
    ];

    pub(super) fn build() {
        let out_dir = PathBuf::from(env("OUT_DIR"));
        let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR"));
        println!("cargo::rerun-if-env-changed={CHECKOUT_ENV}");
        let workspace = manifest
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_else(ptx_builder::workspace_root);
        for input in INPUTS {
            println!(
                "cargo::rerun-if-changed={}",
                workspace.join(input).display()
            );
        }
        println!("cargo::rerun-if-env-changed={}", ptx_builder::TOOLCHAIN_ENV);

        let toolchain = ptx_builder::toolchain_from_env();
        let tc = match ptx_builder::Toolchain::locate(&toolchain) {
            Ok(tc) => tc,
            Err(e) => {
                // One clean line (cargo prints `error: chapter@0.1.0: MESSAGE`), no dump of
                // this script's output: the message says what to install.
                println!(
                    "cargo::error=the `cuda` feature builds the kernels to PTX with a pinned \
                     nightly: {e}"
                );
                return;
            }
        };
        let target_dir = nvptx_target_dir(&out_dir, &workspace).join(checkout_key(&workspace));
        for package in PACKAGES {
            let built = ptx_builder::Builder::new(package)
                .toolchain(&tc.name)
                .workspace(&workspace)
                .target_dir(&target_dir)
                .out_dir(&out_dir)
                .quiet(true)
                .build_with(&tc);
            match built {
                Ok(ptx) if ptx.unresolved_externs().is_empty() => {}
                Ok(ptx) => fail(&format!(
                    "the PTX of `{package}` calls functions it does not define ({}); the \
                     driver would refuse it. A panic path of `core` that the linker could \
                     not resolve is the usual cause",
                    ptx.unresolved_externs().join(" ")
                )),
                // The nested cargo's messages (a kernel that does not compile for the GPU)
                // are on this script's stderr, which cargo shows when the script fails.
                Err(e) => fail(&e.to_string()),
            }
        }
    }

    /// A name for this checkout's own nvptx target folder: a hash (FNV-1a, 16 hex digits)
    /// of the workspace's canonical path. Two checkouts sharing a target folder would
    /// otherwise share the nested build's artifacts, whose freshness cargo judges by file
    /// times that a copy keeps.
    fn checkout_key(workspace: &Path) -> String {
        let path = workspace
            .canonicalize()
            .unwrap_or_else(|_| workspace.to_path_buf());
        let hash = path
            .display()
            .to_string()
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
            });
        format!("{hash:016x}")
    }

    /// Fails the build showing this script's stderr (the compiler's messages) and `why`.
    fn fail(why: &str) -> ! {
        eprintln!("error: {why}");
        std::process::exit(1);
    }

    fn env(name: &str) -> String {
        match std::env::var(name) {
            Ok(v) => v,
            Err(_) => fail(&format!("cargo did not set {name} for the build script")),
        }
    }

    /// The nvptx64 build's own target directory, `nvptx/` inside the host build's target
    /// directory (so `CARGO_TARGET_DIR` and `cargo clean` cover it, and it never shares
    /// locks or artifacts with the host build). `OUT_DIR` is
    /// `TARGET_DIR[/TRIPLE]/PROFILE/build/chapter-HASH/out`; when that shape is not found,
    /// the workspace's `target/nvptx`.
    fn nvptx_target_dir(out_dir: &Path, workspace: &Path) -> PathBuf {
        let build = out_dir
            .ancestors()
            .find(|p| p.file_name().is_some_and(|n| n == "build"));
        let root = build.and_then(Path::parent).and_then(Path::parent);
        let root = match (root, std::env::var("TARGET")) {
            (Some(r), Ok(triple)) if r.file_name().is_some_and(|n| *n == *triple) => r.parent(),
            (r, _) => r,
        };
        match root {
            Some(r) => r.join("nvptx"),
            None => workspace.join("target/nvptx"),
        }
    }
}
