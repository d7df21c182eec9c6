//! `ptx-builder`: builds kernel crates of the workspace into PTX from the command line.
//!
//! `cargo run -p ptx-builder -- kernels solutions` writes `target/ptx/kernels.ptx` and
//! `target/ptx/solutions.ptx`; see `--help`. The library (`ptx_builder::Builder`) does the
//! work; this only parses arguments and prints one line per package, or one `error:`
//! line and exit status 1.

use clap::Parser;
use ptx_builder::{
    Builder, DEFAULT_ARCH, KERNEL_PACKAGES, PINNED_TOOLCHAIN, TOOLCHAIN_ENV, Toolchain,
};
use std::path::PathBuf;
use std::process::ExitCode;

/// Builds workspace packages into PTX for nvptx64-nvidia-cuda with the pinned nightly.
#[derive(Parser, Debug)]
#[command(
    version,
    about,
    after_help = format!(
        "The toolchain is {PINNED_TOOLCHAIN} unless {TOOLCHAIN_ENV} or --toolchain names another; it \
         needs the rust-src and llvm-tools components:\n  rustup toolchain install {PINNED_TOOLCHAIN} \
         --profile minimal -c rust-src -c llvm-tools\nKernel packages: {}.",
        KERNEL_PACKAGES.join(", ")
    )
)]
struct Args {
    /// Workspace packages to build (e.g. kernels, solutions, api-probe).
    #[arg(required_unless_present_any = ["check_toolchain", "print_toolchain"])]
    packages: Vec<String>,

    /// GPU architecture (rustc's -Ctarget-cpu).
    #[arg(long, default_value = DEFAULT_ARCH)]
    arch: String,

    /// Rustup toolchain to build with [default: $PTX_BUILDER_TOOLCHAIN, else the pinned nightly].
    #[arg(long)]
    toolchain: Option<String>,

    /// Where to copy PKG.ptx [default: WORKSPACE/target/ptx].
    #[arg(long)]
    out_dir: Option<PathBuf>,

    /// Cargo target directory of the nvptx64 build [default: WORKSPACE/target/nvptx].
    #[arg(long)]
    target_dir: Option<PathBuf>,

    /// Only check that the toolchain and its components are installed.
    #[arg(long)]
    check_toolchain: bool,

    /// Only print the toolchain's name (for scripts that install it).
    #[arg(long)]
    print_toolchain: bool,

    /// Pass --quiet to cargo.
    #[arg(short, long)]
    quiet: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), ptx_builder::Error> {
    let toolchain = args
        .toolchain
        .clone()
        .unwrap_or_else(ptx_builder::toolchain_from_env);
    if args.print_toolchain {
        println!("{toolchain}");
        return Ok(());
    }
    let tc = Toolchain::locate(&toolchain)?;
    if args.check_toolchain {
        println!(
            "toolchain {} ({}): rust-src and llvm-tools present",
            tc.name, tc.version
        );
        return Ok(());
    }
    for package in &args.packages {
        let mut b = Builder::new(package)
            .arch(&args.arch)
            .toolchain(&toolchain)
            .quiet(args.quiet);
        if let Some(d) = &args.out_dir {
            b = b.out_dir(d);
        }
        if let Some(d) = &args.target_dir {
            b = b.target_dir(d);
        }
        let ptx = b.build_with(&tc)?;
        println!(
            "{package}: {} kernel entries -> {}",
            ptx.entries().len(),
            ptx.path.display()
        );
    }
    Ok(())
}
