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
//! manifest changes (the `rerun-if-changed` lines below), and the nested cargo then
//! rebuilds what changed. A missing nightly, `rust-src` or `llvm-tools` fails the build
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
        let target_dir = nvptx_target_dir(&out_dir, &workspace);
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
