//! The device: memory, launches, and the backend behind them.

use crate::buffer::{DeviceBuffer, as_bytes, from_bytes};
use crate::config::LaunchConfig;
use crate::props::DeviceProps;
use crate::{Config, Counters, Finding, LaunchError, Result};
use gpu::{DeviceValue, Kernel, KernelArgs};
use simt::{GlobalMemory, LaunchSpec};
use std::marker::PhantomData;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

mod constant;
pub(crate) mod streams;

/// Where kernels run. The emulator is always there; the real GPU (`cust`) joins it behind
/// the `cuda` feature.
#[non_exhaustive]
pub enum Backend {
    /// The deterministic SIMT emulator.
    Emulator {
        /// Its global memory.
        memory: GlobalMemory,
        /// How launches run (step budget, watchdog).
        config: Config,
    },
    /// A real NVIDIA GPU through the CUDA driver (`cust`): see [`crate::cuda`].
    #[cfg(feature = "cuda")]
    Cuda(crate::cuda::CudaBackend),
}

/// What a launch reports. On the emulator, the counters and findings; on a GPU, the time.
#[derive(Clone, Debug, Default)]
pub struct LaunchReport {
    /// The emulator's report (counters, per-line counters, findings).
    pub emulator: Option<simt::LaunchReport>,
    /// Time of the launch on a GPU, measured with events.
    pub gpu_time: Option<Duration>,
}

impl LaunchReport {
    /// The emulator's counters, if the launch was emulated.
    pub fn counters(&self) -> Option<&Counters> {
        self.emulator.as_ref().map(|r| &r.counters)
    }

    /// The emulator's findings (races, uninitialised reads); empty on a GPU.
    pub fn findings(&self) -> &[Finding] {
        self.emulator
            .as_ref()
            .map_or(&[], |r| r.findings.as_slice())
    }
}

/// A device: allocate, copy, launch.
pub struct Device {
    backend: Backend,
    props: DeviceProps,
    id: u64,
    /// The emulator's record of launches on streams ([`Device::timeline`]).
    timeline: streams::Timeline,
    /// A GPU's timed launches so far ([`Device::take_gpu_launches`]).
    gpu_launches: Vec<GpuLaunch>,
}

/// One kernel launch on a GPU through [`Device::launch`], as the device recorded it: which
/// kernel, how big, how long. The grader reads them to time a student's kernel beside the
/// reference's on the same inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuLaunch {
    /// The kernel's name (its PTX entry).
    pub kernel: &'static str,
    /// The crate that defines it (`kernels`, `solutions`).
    pub module: &'static str,
    /// Threads launched (grid times block).
    pub threads: u64,
    /// Bytes of the device slices it was handed ([`KernelArgs::bytes`]).
    pub bytes: u64,
    /// Its time, between two CUDA events around the launch.
    pub time: Duration,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let backend = match &self.backend {
            Backend::Emulator { .. } => "emulator",
            #[cfg(feature = "cuda")]
            Backend::Cuda(_) => "cuda",
        };
        f.debug_struct("Device")
            .field("backend", &backend)
            .field("name", &self.props.name)
            .field("id", &self.id)
            .finish()
    }
}

impl Device {
    /// The SIMT emulator, with the default [`Config`] (environment overrides apply).
    pub fn emulator() -> Self {
        Self::emulator_with(Config::default())
    }

    /// The SIMT emulator with an explicit configuration.
    pub fn emulator_with(config: Config) -> Self {
        Device {
            backend: Backend::Emulator {
                memory: GlobalMemory::new(),
                config,
            },
            props: DeviceProps::emulated_h100(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            timeline: streams::Timeline::default(),
            gpu_launches: Vec::new(),
        }
    }

    /// GPU 0, through the CUDA driver (`cuda` feature).
    ///
    /// Fails with [`LaunchError::NoDevice`] when this machine cannot run CUDA: no NVIDIA
    /// driver (`libcuda.so.1` is loaded now, not at program start, so the same binary runs
    /// its emulator work anywhere), `cuInit` failing, or no GPU. Load the kernels' PTX with
    /// [`load_ptx`](Self::load_ptx) before launching.
    #[cfg(feature = "cuda")]
    pub fn cuda() -> Result<Self> {
        Self::cuda_ordinal(0)
    }

    /// GPU number `ordinal` (as `nvidia-smi` and `CUDA_VISIBLE_DEVICES` count them).
    ///
    /// The device gets a CUDA context of its own, so a kernel fault that poisons it (an
    /// illegal address) ends this `Device` only, not others in the same process.
    #[cfg(feature = "cuda")]
    pub fn cuda_ordinal(ordinal: u32) -> Result<Self> {
        let (gpu, props) = crate::cuda::CudaBackend::open(ordinal)?;
        Ok(Device {
            backend: Backend::Cuda(gpu),
            props,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            timeline: streams::Timeline::default(),
            gpu_launches: Vec::new(),
        })
    }

    /// How many CUDA devices this machine has: 0 with no driver, no GPU, or `cuInit`
    /// failing. Tests use it to skip GPU checks with a note rather than fail.
    #[cfg(feature = "cuda")]
    pub fn cuda_device_count() -> u32 {
        crate::cuda::device_count()
    }

    /// CUDA device `ordinal`'s name and compute capability, without creating a context;
    /// `None` when there is no such device (or no driver). A GPU below
    /// [`MIN_COMPUTE_CAPABILITY`](crate::MIN_COMPUTE_CAPABILITY) is one the course cannot
    /// run on: the checks use it to stay on the emulator and say why.
    #[cfg(feature = "cuda")]
    pub fn cuda_device_capability(ordinal: u32) -> Option<(String, (u32, u32))> {
        crate::cuda::device_capability(ordinal)
    }

    /// The CUDA version the driver supports, as (major, minor), e.g. (13, 0); `None` on
    /// the emulator. Benchmarks print it beside the GPU's name.
    pub fn driver_version(&self) -> Option<(u32, u32)> {
        match &self.backend {
            Backend::Emulator { .. } => None,
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => Some(gpu.driver_version()),
        }
    }

    /// The keys of the PTX modules loaded on this device, in load order (empty on the
    /// emulator).
    pub fn loaded_modules(&self) -> Vec<String> {
        match &self.backend {
            Backend::Emulator { .. } => Vec::new(),
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu.module_keys(),
        }
    }

    /// What the device is.
    pub fn props(&self) -> &DeviceProps {
        &self.props
    }

    /// Is this the emulator (counters available)?
    pub fn is_emulator(&self) -> bool {
        matches!(self.backend, Backend::Emulator { .. })
    }

    /// The emulator's configuration, to adjust (e.g. a tighter step budget for a check).
    pub fn emulator_config_mut(&mut self) -> Option<&mut Config> {
        match &mut self.backend {
            Backend::Emulator { config, .. } => Some(config),
            #[cfg(feature = "cuda")]
            Backend::Cuda(_) => None,
        }
    }

    /// Loads PTX text as the module `key` (use the package name: `"kernels"`,
    /// `"solutions"`, `"api-probe"`), so that launches of that crate's `#[kernel]`s find
    /// their entry points in it. Loaded once: the same text again is a no-op; new text
    /// replaces the module. When two modules hold a kernel of the same name (the student's
    /// stub and the solution), the kernel's source path picks the module whose key is one
    /// of its directories (`solutions/src/ch09.rs` → `solutions`).
    ///
    /// On the emulator this does nothing: it runs the kernels' host bodies, not PTX. So
    /// code that runs on either backend may load its PTX unconditionally.
    pub fn load_ptx(&mut self, key: &str, ptx: &str) -> Result<()> {
        let _ = (key, ptx);
        match &mut self.backend {
            Backend::Emulator { .. } => Ok(()),
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu.load_ptx(key, ptx),
        }
    }

    /// [`load_ptx`](Self::load_ptx) from a `.ptx` file (e.g. `target/ptx/solutions.ptx`).
    /// The file is read only on a GPU backend; on the emulator this does nothing.
    pub fn load_ptx_file(&mut self, key: &str, path: impl AsRef<Path>) -> Result<()> {
        if self.is_emulator() {
            return Ok(());
        }
        let path = path.as_ref();
        let ptx = std::fs::read_to_string(path).map_err(|e| LaunchError::InvalidConfig {
            cuda_error: "cudaErrorFileNotFound",
            message: format!(
                "cannot read the PTX file {}: {e}; build it first (cargo run -p ptx-builder)",
                path.display()
            ),
        })?;
        self.load_ptx(key, &ptx)
    }

    /// Waits until all work submitted to the device has finished (`cudaDeviceSynchronize`),
    /// on its streams too. [`Device::launch`] already waits, so this is needed after
    /// launches on streams ([`Device::launch_on`]); on the emulator, where every launch
    /// has finished when it returns, it only orders later stream launches after earlier
    /// ones in [`Device::timeline`].
    pub fn synchronize(&mut self) -> Result<()> {
        match &mut self.backend {
            Backend::Emulator { .. } => {
                self.timeline.device_synchronized();
                Ok(())
            }
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu.synchronize(),
        }
    }

    fn check_len(len: usize) -> Result<u32> {
        u32::try_from(len).map_err(|_| LaunchError::InvalidConfig {
            cuda_error: "cudaErrorInvalidValue",
            message: format!(
                "a buffer holds at most {} elements; asked for {len}",
                u32::MAX
            ),
        })
    }

    fn memory(&mut self) -> Result<&mut GlobalMemory> {
        match &mut self.backend {
            #[cfg(feature = "cuda")]
            Backend::Cuda(_) => Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorNotSupported",
                message: "invariant: emulator memory asked of a GPU device".into(),
            }),
            Backend::Emulator { memory, .. } => {
                if memory.is_lost() {
                    return Err(LaunchError::DeviceLost {
                        message: "an earlier launch timed out and its memory could not be recovered; create a new device".into(),
                    });
                }
                Ok(memory)
            }
        }
    }

    fn own<T: DeviceValue>(&self, buf: &DeviceBuffer<T>) -> Result<()> {
        if buf.device != self.id {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: "this buffer belongs to another device".into(),
            });
        }
        Ok(())
    }

    /// Allocates `len` zeroed elements (`cudaMalloc` + `cudaMemset(0)`).
    pub fn alloc<T: DeviceValue>(&mut self, len: usize) -> Result<DeviceBuffer<T>> {
        let n = Self::check_len(len)?;
        let id = self.id;
        let bytes = len * std::mem::size_of::<T>();
        let addr = match &mut self.backend {
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu.alloc(bytes)?,
            _ => self.memory()?.alloc(bytes),
        };
        Ok(DeviceBuffer {
            addr,
            len: n,
            device: id,
            _t: PhantomData,
        })
    }

    /// Allocates a buffer holding a copy of `data` (`cudaMalloc` + `cudaMemcpy`).
    pub fn upload<T: DeviceValue>(&mut self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let buf = self.alloc::<T>(data.len())?;
        self.copy_to_device(&buf, data)?;
        Ok(buf)
    }

    /// Copies `data` into `buf`, which must have the same length.
    pub fn copy_to_device<T: DeviceValue>(
        &mut self,
        buf: &DeviceBuffer<T>,
        data: &[T],
    ) -> Result<()> {
        self.own(buf)?;
        if data.len() != buf.len as usize {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: format!(
                    "copy of {} elements into a buffer of {}",
                    data.len(),
                    buf.len
                ),
            });
        }
        let addr = buf.addr;
        #[cfg(feature = "cuda")]
        if let Backend::Cuda(gpu) = &mut self.backend {
            return gpu.write(addr, as_bytes(data));
        }
        let dst = self.memory()?.bytes_mut(addr).ok_or_else(freed)?;
        dst.copy_from_slice(as_bytes(data));
        Ok(())
    }

    /// Copies `buf` back to the host.
    pub fn download<T: DeviceValue>(&mut self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.own(buf)?;
        let mut out = vec![T::from_bits(0); buf.len as usize];
        let addr = buf.addr;
        #[cfg(feature = "cuda")]
        if let Backend::Cuda(gpu) = &mut self.backend {
            gpu.read(addr, crate::buffer::as_bytes_mut(&mut out))?;
            return Ok(out);
        }
        let src = self.memory()?.bytes(addr).ok_or_else(freed)?;
        from_bytes(src, &mut out);
        Ok(out)
    }

    /// Sets every element of `buf` to `value` (`cudaMemset` generalised).
    pub fn fill<T: DeviceValue>(&mut self, buf: &DeviceBuffer<T>, value: T) -> Result<()> {
        self.own(buf)?;
        #[cfg(feature = "cuda")]
        if let Backend::Cuda(gpu) = &mut self.backend {
            return gpu.fill(buf.addr, as_bytes(&[value]), buf.len as usize);
        }
        let data = vec![value; buf.len as usize];
        self.copy_to_device(buf, &data)
    }

    /// Frees `buf` (`cudaFree`).
    pub fn free<T: DeviceValue>(&mut self, buf: DeviceBuffer<T>) -> Result<()> {
        self.own(&buf)?;
        let addr = buf.addr;
        #[cfg(feature = "cuda")]
        if let Backend::Cuda(gpu) = &mut self.backend {
            return gpu.free(addr);
        }
        if !self.memory()?.free(addr) {
            return Err(freed());
        }
        Ok(())
    }

    /// Launches `kernel` with `cfg` and `args`, and waits for it.
    ///
    /// The configuration is checked against CUDA's limits first (0 threads, more than
    /// 1024 threads per block, more than 48 KiB of shared memory without opting in, grid
    /// dimensions past the maximum), with CUDA's wording, on both backends. The kernel's
    /// static shared arrays are added to the dynamic shared bytes, as the CUDA runtime
    /// does (on the GPU they live at the start of the launch-sized shared memory).
    ///
    /// On the emulator the report has counters and findings; on a GPU it has the kernel's
    /// time, measured with events around the launch, and a fault inside the kernel is an
    /// error of this launch ([`LaunchError::Driver`]).
    pub fn launch<A: KernelArgs>(
        &mut self,
        kernel: &Kernel<A>,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<LaunchReport> {
        let spec = self.spec(kernel, &cfg)?;
        match &mut self.backend {
            Backend::Emulator { .. } => self.run_emulated(kernel, &spec, &cfg, args),
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => {
                spec.validate()?;
                let params = args.param_ptrs();
                let times = gpu.launch(
                    (kernel.name, kernel.file),
                    &spec,
                    cfg.max_shared_bytes,
                    &params,
                    None,
                    0,
                    1,
                )?;
                let time = times.first().copied();
                if let Some(time) = time {
                    self.gpu_launches.push(GpuLaunch {
                        kernel: kernel.name,
                        module: kernel.module,
                        threads: cfg.blocks() * cfg.threads_per_block(),
                        bytes: args.bytes(),
                        time,
                    });
                }
                Ok(LaunchReport {
                    emulator: None,
                    gpu_time: time,
                })
            }
        }
    }

    /// Runs `kernel` on the emulator with `spec` and `args` (the emulator's half of
    /// [`Device::launch`], which [`Device::launch_on`] shares).
    fn run_emulated<A: KernelArgs>(
        &mut self,
        kernel: &Kernel<A>,
        spec: &LaunchSpec,
        cfg: &LaunchConfig,
        args: A,
    ) -> Result<LaunchReport> {
        let (memory, config) = match &mut self.backend {
            Backend::Emulator { memory, config } => (memory, config),
            #[cfg(feature = "cuda")]
            Backend::Cuda(_) => {
                return Err(LaunchError::InvalidConfig {
                    cuda_error: "cudaErrorNotSupported",
                    message: "invariant: an emulated launch asked of a GPU device".into(),
                });
            }
        };
        let body = match crate::lanes::module(kernel.module) {
            Some(Ok(module)) => simt::KernelBody::Wasm {
                module,
                kernel: kernel.name.to_string(),
                args: args.words().into(),
            },
            Some(Err(message)) => return Err(LaunchError::Build { message }),
            None => {
                let host = kernel.host;
                simt::KernelBody::native(move || host(args))
            }
        };
        let report = simt::launch(memory, spec, body, config);
        // What the kernel printed (`gpu::println!`), for the student: labelled with this
        // launch and kept beside the check's result, never part of it
        // (`simt::kernel_output`). A launch that fails keeps its number too.
        // A failed launch's lines come from the emulator's side channel: the student needs
        // them most when the kernel panicked or went out of bounds.
        let failed;
        let printed = match &report {
            Ok(r) => &r.output[..],
            Err(_) => {
                failed = simt::kernel_output::take_failed_launch();
                &failed[..]
            }
        };
        simt::kernel_output::launched(&launch_label(kernel.name, cfg), printed);
        if let Some(sink) = &config.trace {
            sink.name_last(kernel.name);
        }
        let report = report?;
        Ok(LaunchReport {
            emulator: Some(report),
            gpu_time: None,
        })
    }

    /// The launches this device ran on a GPU through [`launch`](Self::launch) since the
    /// last call, oldest first, and forgets them; always empty on the emulator.
    pub fn take_gpu_launches(&mut self) -> Vec<GpuLaunch> {
        std::mem::take(&mut self.gpu_launches)
    }

    /// How many blocks of `kernel` one SM keeps resident at once with `cfg`'s block and
    /// shared memory (`cudaOccupancyMaxActiveBlocksPerMultiprocessor`); at least 1.
    ///
    /// A grid of `sm_count` times this is one wave, the grid a grid-stride kernel wants:
    /// a block more than fit starts only when a whole block has finished, and with equal
    /// work per block the last partial wave costs as much as a full one. On a GPU the
    /// driver counts everything that limits residency, registers included (the part the
    /// host cannot know: ptxas chooses them); on the emulator, which has no registers,
    /// threads and shared memory ([`DeviceProps::blocks_per_sm_with_shared`]).
    pub fn max_active_blocks_per_sm<A: KernelArgs>(
        &mut self,
        kernel: &Kernel<A>,
        cfg: LaunchConfig,
    ) -> Result<u32> {
        let spec = self.spec(kernel, &cfg)?;
        spec.validate()?;
        let threads = spec.block.iter().product::<u32>();
        match &mut self.backend {
            Backend::Emulator { .. } => Ok(self
                .props
                .blocks_per_sm_with_shared(threads, spec.shared_bytes)),
            #[cfg(feature = "cuda")]
            Backend::Cuda(gpu) => gpu
                .max_active_blocks((kernel.name, kernel.file), &spec, cfg.max_shared_bytes)
                .map(|n| n.max(1)),
        }
    }

    /// Launches `kernel` `warmup` times untimed, then `reps` times each timed on its own,
    /// and returns the `reps` durations (for a benchmark's median). The arguments are the
    /// same for every launch: a kernel that accumulates (a histogram) keeps accumulating.
    ///
    /// On a GPU each duration is the time between two events recorded on the stream around
    /// that launch (`cudaEventElapsedTime`), with no host round trip between launches. On
    /// the emulator it is the host's wall-clock time of the emulation: it says how fast the
    /// emulator is, nothing about a GPU.
    pub fn time_launches<A: KernelArgs>(
        &mut self,
        kernel: &Kernel<A>,
        cfg: LaunchConfig,
        args: A,
        warmup: u32,
        reps: u32,
    ) -> Result<Vec<Duration>> {
        #[cfg(feature = "cuda")]
        if let Backend::Cuda(gpu) = &mut self.backend {
            let spec = {
                let limit = shared_limit(&self.props, &cfg)?;
                make_spec(static_shared_bytes(kernel)?, &cfg, limit)
            };
            spec.validate()?;
            let params = args.param_ptrs();
            return gpu.launch(
                (kernel.name, kernel.file),
                &spec,
                cfg.max_shared_bytes,
                &params,
                None,
                warmup,
                reps,
            );
        }
        for _ in 0..warmup {
            self.launch(kernel, cfg, args)?;
        }
        let mut times = Vec::with_capacity(reps as usize);
        for _ in 0..reps {
            let t = Instant::now();
            self.launch(kernel, cfg, args)?;
            times.push(t.elapsed());
        }
        Ok(times)
    }

    /// [`time_launches`](Self::time_launches) for a kernel that accumulates into `zero`
    /// (a histogram): `zero` is set to 0 before every launch, warm-ups included, and the
    /// reset is *not* timed. So each timed launch does the work of one real launch from a
    /// fresh output, and after the call `zero` holds the result of exactly one launch,
    /// which the caller can check.
    ///
    /// On a GPU the reset is a `cuMemsetD8Async` on the launch's stream, outside the pair
    /// of events recorded around each launch; on the emulator it is a fill between
    /// launches and the durations are host wall-clock time of the emulation.
    pub fn time_launches_zeroed<A: KernelArgs, T: DeviceValue>(
        &mut self,
        kernel: &Kernel<A>,
        cfg: LaunchConfig,
        args: A,
        zero: &DeviceBuffer<T>,
        warmup: u32,
        reps: u32,
    ) -> Result<Vec<Duration>> {
        self.own(zero)?;
        #[cfg(feature = "cuda")]
        if let Backend::Cuda(gpu) = &mut self.backend {
            let spec = {
                let limit = shared_limit(&self.props, &cfg)?;
                make_spec(static_shared_bytes(kernel)?, &cfg, limit)
            };
            spec.validate()?;
            let params = args.param_ptrs();
            return gpu.launch(
                (kernel.name, kernel.file),
                &spec,
                cfg.max_shared_bytes,
                &params,
                Some((zero.addr, zero.bytes())),
                warmup,
                reps,
            );
        }
        let blank = T::from_bits(0);
        for _ in 0..warmup {
            self.fill(zero, blank)?;
            self.launch(kernel, cfg, args)?;
        }
        let mut times = Vec::with_capacity(reps as usize);
        for _ in 0..reps {
            self.fill(zero, blank)?;
            let t = Instant::now();
            self.launch(kernel, cfg, args)?;
            times.push(t.elapsed());
        }
        Ok(times)
    }

    /// Copies `src` into `dst` on the device (`cudaMemcpyDeviceToDevice`), which must have
    /// the same length.
    pub fn copy_device_to_device<T: DeviceValue>(
        &mut self,
        dst: &DeviceBuffer<T>,
        src: &DeviceBuffer<T>,
    ) -> Result<()> {
        self.check_copy(dst, src)?;
        #[cfg(feature = "cuda")]
        if let Backend::Cuda(gpu) = &mut self.backend {
            return gpu.copy_dtod(dst.addr, src.addr, src.bytes());
        }
        let data = self.download(src)?;
        self.copy_to_device(dst, &data)
    }

    /// Copies `src` into `dst` on the device `warmup` times untimed, then `reps` times each
    /// timed on its own, and returns the `reps` durations: the device's copy bandwidth,
    /// which a benchmark measures beside its kernels (a copy reads and writes each byte).
    ///
    /// On a GPU each copy is a `cuMemcpyDtoDAsync` between two events on the device's
    /// stream. On the emulator it is a host copy timed by the host's clock, which says
    /// nothing about a GPU.
    pub fn time_device_copies<T: DeviceValue>(
        &mut self,
        dst: &DeviceBuffer<T>,
        src: &DeviceBuffer<T>,
        warmup: u32,
        reps: u32,
    ) -> Result<Vec<Duration>> {
        self.check_copy(dst, src)?;
        #[cfg(feature = "cuda")]
        if let Backend::Cuda(gpu) = &mut self.backend {
            return gpu.time_copies(dst.addr, src.addr, src.bytes(), warmup, reps);
        }
        for _ in 0..warmup {
            self.copy_device_to_device(dst, src)?;
        }
        let mut times = Vec::with_capacity(reps as usize);
        for _ in 0..reps {
            let t = Instant::now();
            self.copy_device_to_device(dst, src)?;
            times.push(t.elapsed());
        }
        Ok(times)
    }

    /// Both buffers are this device's and have the same length.
    fn check_copy<T: DeviceValue>(
        &self,
        dst: &DeviceBuffer<T>,
        src: &DeviceBuffer<T>,
    ) -> Result<()> {
        self.own(dst)?;
        self.own(src)?;
        if dst.len != src.len {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: format!("copy of {} elements into a buffer of {}", src.len, dst.len),
            });
        }
        Ok(())
    }

    /// The launch as the backends see it: grid, block, all shared bytes and their limit.
    fn spec<A: KernelArgs>(&self, kernel: &Kernel<A>, cfg: &LaunchConfig) -> Result<LaunchSpec> {
        let limit = shared_limit(&self.props, cfg)?;
        Ok(make_spec(static_shared_bytes(kernel)?, cfg, limit))
    }
}

/// The most shared memory a block of this launch may use: the device's default, or the
/// launch's opt-in if the device allows that much.
fn shared_limit(props: &DeviceProps, cfg: &LaunchConfig) -> Result<u32> {
    match cfg.max_shared_bytes {
        None => Ok(props.shared_bytes_per_block),
        Some(b) if b <= props.shared_bytes_per_block_optin => Ok(b),
        Some(b) => Err(LaunchError::InvalidConfig {
            cuda_error: "cudaErrorInvalidValue",
            message: format!(
                "invalid argument: opt-in of {b} bytes of shared memory per block; this device allows at most {}",
                props.shared_bytes_per_block_optin
            ),
        }),
    }
}

/// The kernel's static shared memory: for a kernel of a sandboxed crate, what that
/// crate's WebAssembly build declares (the student's `shared_array!`s, which the
/// reference's metadata cannot know); for any other, its `#[kernel]` metadata.
fn static_shared_bytes<A: KernelArgs>(kernel: &Kernel<A>) -> Result<u32> {
    match crate::lanes::module(kernel.module) {
        None => Ok(kernel.static_shared_bytes),
        Some(Err(message)) => Err(LaunchError::Build { message }),
        Some(Ok(m)) => m
            .static_shared_bytes(kernel.name)
            .map_err(|message| LaunchError::Build { message }),
    }
}

fn make_spec(static_shared: u32, cfg: &LaunchConfig, limit: u32) -> LaunchSpec {
    let shared = static_shared as u64 + cfg.dynamic_shared_bytes as u64;
    LaunchSpec {
        grid: [cfg.grid.x, cfg.grid.y, cfg.grid.z],
        block: [cfg.block.x, cfg.block.y, cfg.block.z],
        shared_bytes: u32::try_from(shared).unwrap_or(u32::MAX),
        max_shared_bytes: limit,
    }
}

fn freed() -> LaunchError {
    LaunchError::InvalidConfig {
        cuda_error: "cudaErrorInvalidValue",
        message: "the buffer was already freed".into(),
    }
}

/// A launch as kernel output names it: `histo_atomic<<<3, 64>>>`, or with every
/// dimension where the grid or block has more than one (`<<<(3,2,1), (32,4,1)>>>`).
pub fn launch_label(kernel: &str, cfg: &LaunchConfig) -> String {
    let dim = |d: &crate::Dim3| {
        if d.y == 1 && d.z == 1 {
            d.x.to_string()
        } else {
            format!("({},{},{})", d.x, d.y, d.z)
        }
    };
    format!("{kernel}<<<{}, {}>>>", dim(&cfg.grid), dim(&cfg.block))
}
