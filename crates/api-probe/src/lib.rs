//! Probe kernels: every device API function, in kernels (filled in by the PTX pipeline work).
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
