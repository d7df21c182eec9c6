//! `cargo run -p figures`: writes the book's figures to `book/src/figures/` (see the
//! crate's documentation). `cargo run -p figures -- --help` lists the options.

use clap::Parser;
use figures::{FIGURES_DIR, all_figures, load_bench, newest_bench, newest_extensions, repo_root};
use std::path::PathBuf;
use std::process::ExitCode;

/// Writes the book's SVG figures (book/src/figures/) from the GPU bench's JSON and the
/// emulator's counters. Same inputs, byte-identical files.
///
/// The size sweep's figure (ch09-sizes.svg) comes from the newest sizes-u8-*.json and
/// sizes-u32-*.json (`ch09 bench --sizes ...`) of notes/ or a folder in it, by the date of
/// their runs, when both are there.
#[derive(Parser, Debug)]
#[command(name = "figures")]
struct Cli {
    /// The bench JSON [default: the newest notes/bench-*.json].
    #[arg(long, value_name = "FILE")]
    bench: Option<PathBuf>,
    /// The extension sweep's JSON, for 9.16's strategy figure [default: the newest
    /// notes/extensions-*.json; none: no strategy figure].
    #[arg(long, value_name = "FILE")]
    extensions: Option<PathBuf>,
    /// The driver the captions name [default: the JSON's driver_version, or the one
    /// notes/gpu-runs.md records for the GPU].
    #[arg(long, value_name = "VER")]
    driver: Option<String>,
    /// Where to write [default: book/src/figures].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write nothing; fail if a committed figure differs.
    #[arg(long)]
    check: bool,
}

fn main() -> ExitCode {
    let Cli {
        bench,
        extensions,
        driver,
        out,
        check,
    } = Cli::parse();
    let root = repo_root();
    let Some(bench) = bench.or_else(|| newest_bench(&root.join("notes"))) else {
        eprintln!("error: no notes/bench-*.json: pass --bench FILE");
        return ExitCode::from(2);
    };
    let extensions = extensions.or_else(|| newest_extensions(&root.join("notes")));
    let figures = match load_bench(&bench, driver.as_deref()).and_then(|b| {
        let ext = match &extensions {
            Some(p) => Some(load_bench(p, driver.as_deref())?),
            None => None,
        };
        let sizes = figures::sizes::load_sizes(&root.join("notes")).transpose()?;
        all_figures(&b, ext.as_ref(), sizes.as_ref())
    }) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let shown = out.clone().unwrap_or_else(|| FIGURES_DIR.into());
    let out = out.unwrap_or_else(|| root.join(FIGURES_DIR));
    let mut stale = 0;
    for f in &figures {
        let phone = f.phone.as_ref().map(|svg| (f.phone_name(), svg));
        let files = std::iter::once((f.name.to_string(), &f.svg)).chain(phone);
        for (name, svg) in files {
            let path = out.join(&name);
            if check {
                if std::fs::read_to_string(&path).ok().as_deref() != Some(svg.as_str()) {
                    eprintln!("stale: {}", path.display());
                    stale += 1;
                }
                continue;
            }
            if let Err(e) = std::fs::create_dir_all(&out).and_then(|_| std::fs::write(&path, svg)) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
            println!("wrote {}", shown.join(&name).display());
        }
    }
    if stale > 0 {
        eprintln!("{stale} figure(s) out of date: run `cargo run -p figures`");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
