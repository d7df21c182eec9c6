//! What every chapter's launchers share: a launch's result ([`Run`]), the download-and-free
//! that ends every launch ([`finish`]), a one-dimensional launch shape ([`Shape`]) and the
//! grids of one element per thread, of coarsened threads and of the resident blocks.

use gpu_host::{
    Device, DeviceBuffer, DeviceProps, DeviceValue, LaunchConfig, LaunchError, LaunchReport,
};

/// What a launch produced: the output, the report (counters on the emulator, the time on
/// a GPU) and the configuration it ran with.
#[derive(Clone, Debug)]
pub struct Run<T> {
    /// The downloaded output buffer.
    pub out: Vec<T>,
    /// The launch's report: counters and findings on the emulator, time on a GPU.
    pub report: LaunchReport,
    /// Blocks launched (all dimensions multiplied).
    pub grid: u32,
    /// Threads per block (all dimensions multiplied).
    pub block: u32,
    /// Device address of the output buffer, to tell its atomics apart in the report's
    /// flow.
    pub output_addr: u64,
    /// Device addresses of the input buffers, in the kernel's argument order.
    pub input_addrs: Vec<u64>,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
}

impl<T: std::fmt::Display> crate::checking::Launched for Run<T> {
    type Item = T;
    fn report(&self) -> &LaunchReport {
        &self.report
    }
    fn output(&self) -> &[T] {
        &self.out
    }
}

/// Downloads `out` after a launch of `cfg` and frees the buffers
/// ([`download_and_free`]): the launch's [`Run`], with the buffers' addresses.
pub fn finish<T: DeviceValue, I: DeviceValue>(
    dev: &mut Device,
    launched: Result<LaunchReport, LaunchError>,
    out: DeviceBuffer<T>,
    inputs: Vec<DeviceBuffer<I>>,
    cfg: LaunchConfig,
) -> Result<Run<T>, LaunchError> {
    let output_addr = out.slice().addr();
    let input_addrs = inputs.iter().map(|b| b.slice().addr()).collect();
    let (out, report) = download_and_free(dev, launched, out, inputs)?;
    Ok(Run {
        out,
        report,
        grid: cfg.blocks() as u32,
        block: cfg.threads_per_block() as u32,
        output_addr,
        input_addrs,
        shared_bytes: cfg.dynamic_shared_bytes,
    })
}

/// Shared memory a block may use without opting in: 48 KiB, on every GPU since Kepler.
pub const DEFAULT_SHARED_BYTES: u32 = simt::hardware::DEFAULT_SHARED_LIMIT;

/// `<<<grid, block, shared_bytes>>>` in one dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
}

impl Shape {
    /// `<<<grid, block>>>`, no dynamic shared memory.
    pub fn new(grid: u32, block: u32) -> Self {
        Shape {
            grid,
            block,
            shared_bytes: 0,
        }
    }

    /// With `bins` 4-byte counters of dynamic shared memory (a private copy).
    pub fn with_bins(self, bins: u32) -> Self {
        Shape {
            shared_bytes: bins * 4,
            ..self
        }
    }

    /// The launch of sliced private copies: `bins` bins cut into slices of at most
    /// `max_words` counters (dynamic shared memory: one slice), and `blocks` rounded up to
    /// whole chunks of `ceil(bins / slice)` blocks, so that every block counts.
    pub fn sliced(blocks: u32, block: u32, bins: u32, max_words: u32) -> Self {
        let words = bins.clamp(1, max_words.max(1));
        let slices = bins.div_ceil(words).max(1);
        Shape::new(blocks.div_ceil(slices).max(1) * slices, block).with_bins(words)
    }

    /// The launch configuration; above CUDA's default 48 KiB of shared memory per block
    /// it opts in to more, as `cudaFuncSetAttribute(MaxDynamicSharedMemorySize)` does (the
    /// device refuses more than it has: 227 KiB on an H100).
    pub fn config(self) -> LaunchConfig {
        let cfg = LaunchConfig::linear(self.grid, self.block).with_shared(self.shared_bytes);
        if self.shared_bytes > DEFAULT_SHARED_BYTES {
            cfg.with_max_shared(self.shared_bytes)
        } else {
            cfg
        }
    }
}

/// Blocks when each thread handles `coarsen` elements: `ceil(n / (block * coarsen))`, at
/// least 1 (coarsening by `C` cuts the blocks by `C`; a `coarsen` of 0 counts as 1).
pub fn coarsened(n: usize, block: u32, coarsen: u32) -> u32 {
    n.div_ceil(block as usize * coarsen.max(1) as usize).max(1) as u32
}

/// A grid sized from the device: the blocks it keeps resident at once (`sm_count *
/// blocks per SM`), but no more than give each thread `per_thread` elements; at least 1.
pub fn device_grid(props: &DeviceProps, n: usize, block: u32, per_thread: u32) -> u32 {
    let resident = props.sm_count * props.blocks_per_sm(block);
    resident.min(coarsened(n, block, per_thread))
}

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

    #[test]
    fn grids() {
        assert_eq!(coarsened(1000, 64, 4), 4);
        assert_eq!(coarsened(1024, 64, 4), 4);
        assert_eq!(coarsened(1025, 64, 4), 5);
        assert_eq!(coarsened(0, 64, 4), 1);
        assert_eq!(
            coarsened(100, 64, 0),
            2,
            "no coarsening, not a division by zero"
        );
        let props = DeviceProps::emulated_h100();
        assert_eq!(device_grid(&props, 1 << 30, 256, 1), 132 * 8);
        assert_eq!(device_grid(&props, 1000, 256, 1), 4);
    }

    #[test]
    fn slices_round_the_grid_to_whole_chunks() {
        let s = Shape::sliced(10, 256, 65_536, 12_288);
        assert_eq!(s.grid % 6, 0);
        assert_eq!(s.shared_bytes, 4 * 12_288);
        assert_eq!(
            Shape::new(1, 32).with_bins(4).config().dynamic_shared_bytes,
            16
        );
    }
}
