//! `cargo run -p gpu-host --example build_lanes -- DIR`: builds the sandbox's modules
//! (`kernels.wasm`, `solutions.wasm`, see `gpu_host::lanes`) into DIR, for a machine that
//! runs the course's binaries without cargo (`COURSE_LANES_DIR=DIR`): the GPU machine of
//! `bench/prepare-gpu.sh`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: build_lanes DIR (writes DIR/kernels.wasm and DIR/solutions.wasm)");
        return ExitCode::FAILURE;
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("build_lanes: cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let root = match gpu_host::lanes::workspace_root() {
        Ok(root) => root,
        Err(e) => {
            eprintln!("build_lanes: {e}");
            return ExitCode::FAILURE;
        }
    };
    for name in gpu_host::lanes::SANDBOXED {
        let bytes = match gpu_host::lanes::build(name, &root) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("build_lanes: {e}");
                return ExitCode::FAILURE;
            }
        };
        let path = dir.join(format!("{name}.wasm"));
        if let Err(e) = std::fs::write(&path, bytes) {
            eprintln!("build_lanes: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("build_lanes: wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
