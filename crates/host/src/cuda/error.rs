//! Driver errors as the one report type, [`LaunchError`], worded for students.

use super::driver;
use crate::LaunchError;
use cust::error::CudaError;

/// Status codes after which the CUDA context cannot be used any more ("sticky" errors:
/// every later call in the context returns them again). The device is then marked lost.
const STICKY: &[i32] = &[
    700, // CUDA_ERROR_ILLEGAL_ADDRESS
    702, // CUDA_ERROR_LAUNCH_TIMEOUT
    710, // CUDA_ERROR_ASSERT
    714, // CUDA_ERROR_HARDWARE_STACK_ERROR
    715, // CUDA_ERROR_ILLEGAL_INSTRUCTION
    716, // CUDA_ERROR_MISALIGNED_ADDRESS
    717, // CUDA_ERROR_INVALID_ADDRESS_SPACE
    718, // CUDA_ERROR_INVALID_PC
    719, // CUDA_ERROR_LAUNCH_FAILED
];

/// Is `code` an error after which the context is unusable?
pub(crate) fn is_sticky(code: i32) -> bool {
    STICKY.contains(&code)
}

/// What to do about the common errors, in the course's terms.
fn hint(code: i32) -> &'static str {
    match code {
        2 => "The GPU is out of memory: free buffers you no longer need, or use smaller inputs",
        200 | 209 | 218 | 222 => {
            "The PTX could not be compiled for this GPU: rebuild it with the course's pinned \
             nightly (cargo run -p ptx-builder), for an sm_ the GPU has, with a driver at least \
             as new as the PTX ISA version it names"
        }
        500 => "No such kernel entry in the loaded PTX: is the PTX up to date with the source?",
        700 => {
            "A thread accessed memory outside every allocation (an index past the end of a \
             buffer?). Run the same launch on Device::emulator() to see which thread and line, \
             or run the program under compute-sanitizer"
        }
        701 => {
            "The block needs more registers or shared memory than an SM has: use fewer \
             threads per block or less shared memory"
        }
        702 => "The kernel ran too long and the display watchdog stopped it: is a loop endless?",
        715 | 719 => {
            "A thread trapped: on the GPU a Rust panic (a todo!(), an index out of bounds, an \
             unwrap on None, an overflow) becomes a trap. Run the same launch on \
             Device::emulator() to see the panic message, the thread and the line"
        }
        716 => "A load or store used an address not aligned to its size",
        _ => "",
    }
}

/// Builds the report for a failed driver call from the raw status code.
pub(crate) fn from_code(call: &'static str, code: i32) -> LaunchError {
    let (name, description) = driver::error_text(code);
    let mut parts: Vec<&str> = Vec::new();
    if let Some(d) = &description {
        parts.push(d);
    }
    if !hint(code).is_empty() {
        parts.push(hint(code));
    }
    if is_sticky(code) {
        parts.push(
            "This error is sticky: the device's CUDA context cannot be used any more; create a new Device",
        );
    }
    let message = if parts.is_empty() {
        "the driver gave no description".to_string()
    } else {
        parts.join(". ")
    };
    LaunchError::Driver {
        call,
        code: name,
        message,
    }
}

/// Builds the report for a failed `cust` call.
pub(crate) fn from_cust(call: &'static str, e: CudaError) -> LaunchError {
    match e {
        CudaError::InvalidMemoryAllocation => LaunchError::Driver {
            call,
            code: "CUDA_ERROR_INVALID_VALUE".into(),
            message: "cust refused the allocation (zero or too many bytes)".into(),
        },
        other => from_code(call, other as u32 as i32),
    }
}

/// The code of a `cust` error, for [`is_sticky`].
pub(crate) fn code_of(e: CudaError) -> i32 {
    e as u32 as i32
}
