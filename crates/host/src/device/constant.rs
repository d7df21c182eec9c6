//! Setting constant memory from the host (`cudaMemcpyToSymbol`).

use super::{Backend, Device};
use crate::buffer::as_bytes;
use crate::{LaunchError, Result};
use gpu::constant::{ConstantArray, ConstantSymbol};

impl Device {
    /// Sets the constant array `array` (declared with `gpu::constant!`) to `data`, which
    /// must have exactly its length: `cudaMemcpyToSymbol`. Every later launch of a
    /// kernel of its crate reads these values.
    ///
    /// On a GPU the array is found by name in the loaded module of its crate
    /// (`cuModuleGetGlobal`; load the PTX first) and copied with `cuMemcpyHtoD`; on the
    /// emulator it is kept with the device's memory, under the address its name gives.
    pub fn set_constant<S: ConstantSymbol>(
        &mut self,
        array: &ConstantArray<S>,
        data: &[S::Elem],
    ) -> Result<()> {
        if data.len() != S::LEN as usize {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: format!(
                    "constant array `{}` holds {} elements; {} were given",
                    S::NAME,
                    S::LEN,
                    data.len()
                ),
            });
        }
        let bytes = as_bytes(data);
        match &mut self.backend {
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu.set_constant(S::NAME, array.file, bytes),
            Backend::Emulator { .. } => {
                let _ = array;
                self.memory()?
                    .set_constant(S::NAME, bytes)
                    .map_err(|message| LaunchError::InvalidConfig {
                        cuda_error: "cudaErrorInvalidSymbol",
                        message,
                    })
            }
        }
    }
}
