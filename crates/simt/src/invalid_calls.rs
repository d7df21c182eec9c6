//! A device call whose words no operation encodes to: only a module written by hand can
//! send one (the `gpu` crate's wasm backend encodes every call from an `Op`, and a kernel
//! cannot declare an import of its own without `unsafe`, which the course's builder
//! refuses). The scheduler decodes every call, so such a call is the lane's trap, at the
//! call's own site, and never an operation.
//!
//! The module below is built byte by byte: a kernel that makes one `gpu.call` with given
//! words, and the two exports through which the sandbox reads a call's `Location`.

use crate::wasm::WasmModule;
use crate::wasm_bytes::{header, name, section, sleb, uleb};
use crate::{Config, GlobalMemory, KernelBody, LaunchError, LaunchSpec};
use std::sync::Arc;

/// The file, line and column the module's `Location` reports.
const FILE: &str = "hand-made.rs";
const LINE: u32 = 7;
const COLUMN: u32 = 9;
/// Where the file name lies in the module's memory.
const FILE_AT: u32 = 64;
/// The address the kernel passes as its call's `Location` (any: the exports below answer
/// for every address).
const LOC: i32 = 16;

/// A function body without locals that returns the constant `v`.
fn returns_i64(v: i64) -> Vec<u8> {
    let mut body = vec![0, 0x42];
    sleb(v, &mut body);
    body.push(0x0b);
    body
}

/// A module whose kernel `k` makes one device call `gpu.call` with `words`.
fn module(words: [u64; 6]) -> Vec<u8> {
    const I32: u8 = 0x7f;
    const I64: u8 = 0x7e;
    let mut m = header();
    // Types: 0 the device call, 1 the kernel, 2 the `Location` exports.
    let mut types = vec![3];
    types.extend([0x60, 7, I32, I64, I64, I64, I64, I64, I64, 1, I64]);
    types.extend([0x60, 0, 0]);
    types.extend([0x60, 1, I32, 1, I64]);
    section(1, &types, &mut m);
    let mut imports = vec![1];
    name("gpu", &mut imports);
    name("call", &mut imports);
    imports.extend([0, 0]);
    section(2, &imports, &mut m);
    // Functions 1 (the kernel), 2 and 3 (the `Location` exports); 0 is the import.
    section(3, &[3, 1, 2, 2], &mut m);
    // One memory of one page.
    section(5, &[1, 0, 1], &mut m);
    let mut exports = vec![4];
    for (export, kind, index) in [
        ("memory", 2, 0),
        ("__gpu_kernel_k", 0, 1),
        ("__gpu_location_file", 0, 2),
        ("__gpu_location_line", 0, 3),
    ] {
        name(export, &mut exports);
        exports.extend([kind, index]);
    }
    section(7, &exports, &mut m);
    let mut kernel = vec![0, 0x41];
    sleb(LOC as i64, &mut kernel);
    for w in words {
        kernel.push(0x42);
        sleb(w as i64, &mut kernel);
    }
    // call 0; drop (the result); end
    kernel.extend([0x10, 0, 0x1a, 0x0b]);
    let mut code = vec![3];
    for body in [
        kernel,
        returns_i64(((FILE_AT as i64) << 32) | FILE.len() as i64),
        returns_i64(((LINE as i64) << 32) | COLUMN as i64),
    ] {
        uleb(body.len() as u64, &mut code);
        code.extend(body);
    }
    section(10, &code, &mut m);
    let mut data = vec![1, 0, 0x41];
    sleb(FILE_AT as i64, &mut data);
    data.push(0x0b);
    name(FILE, &mut data);
    section(11, &data, &mut m);
    m
}

/// Runs kernel `k` of a module that calls with `words`, one block of 32 threads.
fn run(words: [u64; 6]) -> Result<(), LaunchError> {
    let module = WasmModule::new("hand-made", &module(words)).expect("the module compiles");
    let body = KernelBody::Wasm {
        module,
        kernel: "k".into(),
        args: Arc::from(Vec::new()),
    };
    let mut mem = GlobalMemory::new();
    crate::launch(
        &mut mem,
        &LaunchSpec::linear(1, 32),
        body,
        &Config::default(),
    )
    .map(|_| ())
}

#[test]
fn a_call_an_operation_encodes_to_runs() {
    // The words of a barrier (`__syncthreads()`): the module and its call are sound, so
    // the failures below come from the words alone.
    assert_eq!(run([3, 0, 0, 0, 0, 0]).map_err(|e| e.to_string()), Ok(()));
}

#[test]
fn a_call_no_operation_encodes_to_is_the_lanes_trap_at_its_site() {
    let site = format!("{FILE}:{LINE}:{COLUMN}");
    // No such kind; a shared atomic of no such type; a global load of 3 bytes.
    for words in [
        [99, 0, 0, 0, 0, 0],
        [2 | 1 << 8 | 9 << 16, 0, 0, 1, 0, 0],
        [3 << 16, 0, 0, 1, 0, 0],
    ] {
        match run(words) {
            Err(LaunchError::LaneTrap {
                thread,
                what,
                site: at,
            }) => {
                assert_eq!(what, "an invalid device call", "{words:?}");
                assert_eq!(at, site, "{words:?}");
                assert_eq!(thread.thread, [0, 0, 0], "the first lane traps first");
            }
            other => panic!("{words:?}: expected the lane's trap, got {other:?}"),
        }
    }
}
