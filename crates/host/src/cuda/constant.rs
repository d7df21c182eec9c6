//! Constant memory on a GPU: finding a `.const` array of a loaded module and copying to it.

use super::{CudaBackend, error};
use crate::{LaunchError, Result};
use std::ffi::{CString, c_void};

/// The `.const` arrays a module's PTX declares and the name of one of its kernels:
/// `.visible .const .align 16 .b8 NAME[1024];` and `.visible .entry NAME(`.
pub(super) fn declared(ptx: &str) -> (Vec<String>, Option<String>) {
    let mut constants = Vec::new();
    let mut entry = None;
    for line in ptx.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"//") {
            continue;
        }
        if let Some(i) = words.iter().position(|&w| w == ".const")
            && let Some(last) = words.get(i + 1..).and_then(|w| w.last())
        {
            let name = last.split(['[', ';', '=']).next().unwrap_or("");
            if !name.is_empty() && !name.starts_with('.') {
                constants.push(name.to_string());
            }
        }
        if entry.is_none()
            && let Some(i) = words.iter().position(|&w| w == ".entry")
            && let Some(name) = words.get(i + 1)
        {
            entry = Some(name.split('(').next().unwrap_or("").to_string());
        }
    }
    (constants, entry.filter(|e| !e.is_empty()))
}

impl CudaBackend {
    /// Which loaded module declares the constant array `name`: the only one, or the one
    /// whose key is a directory of `file`, where the array is declared.
    fn constant_module(&self, name: &str, file: &str) -> Result<usize> {
        let having: Vec<usize> = (0..self.modules.len())
            .filter(|&i| self.modules[i].constants.iter().any(|c| c == name))
            .collect();
        let dirs: Vec<&str> = file.split(['/', '\\']).collect();
        let by_dir: Vec<usize> = having
            .iter()
            .copied()
            .filter(|&i| dirs.contains(&self.modules[i].key.as_str()))
            .collect();
        match (having.as_slice(), by_dir.as_slice()) {
            ([one], _) | (_, [one]) => Ok(*one),
            ([], _) => Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidSymbol",
                message: format!(
                    "constant array `{name}` ({file}): no loaded module declares it; load its \
                     crate's PTX first (Device::load_ptx)"
                ),
            }),
            _ => Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidSymbol",
                message: format!(
                    "constant array `{name}` ({file}) is declared by several loaded modules"
                ),
            }),
        }
    }

    /// Copies `bytes` into the constant array `name` declared in `file`
    /// (`cuModuleGetGlobal` + `cuMemcpyHtoD`), which must have exactly that many bytes.
    pub(crate) fn set_constant(&mut self, name: &str, file: &str, bytes: &[u8]) -> Result<()> {
        self.activate()?;
        let m = self.constant_module(name, file)?;
        let Some(entry) = self.modules[m].entry.clone() else {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidSymbol",
                message: format!("module `{}` has no kernel", self.modules[m].key),
            });
        };
        let func = match self.modules[m].module.get_function(&entry) {
            Ok(f) => f.to_raw(),
            Err(e) => return Err(self.fail("cuModuleGetFunction", error::code_of(e))),
        };
        let mut module: cust_raw::CUmodule = std::ptr::null_mut();
        // SAFETY: an out-pointer and a live function handle.
        let r = unsafe { cust_raw::cuFuncGetModule(&mut module, func) };
        self.check_raw("cuFuncGetModule", r)?;
        let symbol = CString::new(name).map_err(|_| LaunchError::InvalidConfig {
            cuda_error: "cudaErrorInvalidSymbol",
            message: format!("constant array name `{name}` has a NUL byte"),
        })?;
        let (mut ptr, mut size): (cust_raw::CUdeviceptr, usize) = (0, 0);
        // SAFETY: out-pointers, a live module handle and a NUL-terminated name.
        let r =
            unsafe { cust_raw::cuModuleGetGlobal_v2(&mut ptr, &mut size, module, symbol.as_ptr()) };
        self.check_raw("cuModuleGetGlobal", r)?;
        if size != bytes.len() {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: format!(
                    "constant array `{name}` has {size} bytes in the module; {} were given",
                    bytes.len()
                ),
            });
        }
        // SAFETY: `ptr` is the module's array of `size` bytes, `bytes` as many host bytes.
        let r =
            unsafe { cust_raw::cuMemcpyHtoD_v2(ptr, bytes.as_ptr() as *const c_void, bytes.len()) };
        self.check_raw("cuMemcpyHtoD (to constant memory)", r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_constant_arrays_and_a_kernel_of_a_module() {
        let ptx = "//\n.version 7.8\n// Start of file scope inline assembly\n\
                   .visible .const .align 16 .b8 LETTER_BIN[1024];\n\
                   .const .align 4 .u32 SCALE;\n\
                   .extern .shared .align 16 .b8 gpu_launch_sized_workgroup_mem[];\n\
                   // .globl\tletters_constant\n\
                   .visible .entry letters_constant(\n\t.param .u64 p\n)\n\
                   .visible .entry other(\n";
        let (constants, entry) = declared(ptx);
        assert_eq!(constants, ["LETTER_BIN", "SCALE"]);
        assert_eq!(entry.as_deref(), Some("letters_constant"));
        assert_eq!(declared(".version 7.8\n"), (Vec::new(), None));
    }
}
