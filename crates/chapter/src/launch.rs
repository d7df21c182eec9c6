//! What both chapters' launchers share: the grid of one element per thread, and the
//! download-and-free that ends every launch.

use gpu_host::{Device, DeviceBuffer, DeviceValue, LaunchError, LaunchReport};

/// Blocks for one element per thread: `ceil(n / block)`, at least 1 (a grid of zero
/// blocks is not a launch, and an empty input must still run the kernel's guard).
pub fn one_per_thread(n: usize, block: u32) -> u32 {
    n.div_ceil(block as usize).max(1) as u32
}

/// Downloads `out` after a launch, then frees it and the `inputs` (best effort: a device
/// lost to a faulted or timed-out launch cannot free, and the launch's error is the one
/// that matters). Returns the output and the launch's report, for the chapter's `Run`.
pub fn download_and_free<T: DeviceValue, I: DeviceValue>(
    dev: &mut Device,
    launched: Result<LaunchReport, LaunchError>,
    out: DeviceBuffer<T>,
    inputs: Vec<DeviceBuffer<I>>,
) -> Result<(Vec<T>, LaunchReport), LaunchError> {
    let result = launched.and_then(|report| Ok((dev.download(&out)?, report)));
    let _ = dev.free(out);
    for buf in inputs {
        let _ = dev.free(buf);
    }
    result
}

/// `gpu::Kernel` of the reference kernel `solutions::$chapter::$name` (names, signatures
/// and the source file's name are the same in the student's crate), moved to crate
/// `$krate` (`"kernels"` or `"solutions"`): the emulator runs it from that crate's
/// WebAssembly build, which also says how much static shared memory the kernel declares.
/// So no native code of the student's crate is linked into any binary of the course.
#[macro_export]
macro_rules! sandboxed {
    ($krate:literal, $chapter:ident, $name:ident) => {
        gpu::Kernel {
            module: $krate,
            file: concat!($krate, "/src/", stringify!($chapter), ".rs"),
            ..solutions::$chapter::$name::KERNEL
        }
    };
}

/// Defines a chapter's two kernel tables, `STUDENT` (crate `kernels`) and `REFERENCE`
/// (crate `solutions`), and `kernels(source)`, which picks one: checks, the progression
/// and the grader go through it and never name a crate.
///
/// A table is the chapter's `Kernels` struct: `source`, then each of `kernels` run in the
/// emulator's sandbox from that crate's WebAssembly build ([`sandboxed!`](crate::sandboxed)),
/// and each `host` function, `name(arg: Type, ..) -> Return`, called as its `#[gpu::host]`
/// export in a WebAssembly lane ([`gpu_host::lanes::host_call`]), never the native code.
/// The same names and signatures are in both crates. A chapter's build script writes this
/// invocation and the `Kernels` struct from its records (`chapter_records::kernel_table_rs`).
#[macro_export]
macro_rules! kernel_tables {
    (
        chapter $chapter:ident;
        kernels [$($k:ident),* $(,)?];
        host [$($h:ident($($a:ident: $t:ty),*) -> $r:ty),* $(,)?];
    ) => {
        $crate::kernel_tables!(@table STUDENT Student "kernels" $chapter [$($k),*] [$($h($($a: $t),*) -> $r),*]);
        $crate::kernel_tables!(@table REFERENCE Reference "solutions" $chapter [$($k),*] [$($h($($a: $t),*) -> $r),*]);

        impl Kernels {
            /// The kernel named `name` (a record's name for it), as `Any`: the caller
            /// downcasts it to the signature it launches (a declared launch,
            /// `chapter::declared`). `None` for a name that is not a kernel of the table.
            pub fn named(&self, name: &str) -> Option<&dyn std::any::Any> {
                match name {
                    $(stringify!($k) => Some(&self.$k),)*
                    _ => None,
                }
            }
        }

        /// The table of `source`.
        pub fn kernels(source: course::KernelSource) -> &'static Kernels {
            match source {
                course::KernelSource::Student => &STUDENT,
                course::KernelSource::Reference => &REFERENCE,
            }
        }
    };
    (@table $name:ident $source:ident $krate:literal $chapter:ident [$($k:ident),*] [$($h:ident($($a:ident: $t:ty),*) -> $r:ty),*]) => {
        #[doc = concat!("The kernels of crate `", $krate, "` (`", $krate, "::", stringify!($chapter), "`).")]
        pub static $name: Kernels = Kernels {
            source: course::KernelSource::$source,
            $($k: $crate::sandboxed!($krate, $chapter, $k),)*
            $($h: {
                fn f($($a: $t),*) -> $r {
                    gpu_host::lanes::host_call($krate, stringify!($h), ($($a,)*))
                }
                f
            },)*
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_element_per_thread_takes_at_least_one_block() {
        assert_eq!(one_per_thread(0, 64), 1);
        assert_eq!(one_per_thread(64, 64), 1);
        assert_eq!(one_per_thread(65, 64), 2);
    }
}
