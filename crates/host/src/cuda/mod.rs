//! The real-GPU backend (`cuda` feature): the same `#[kernel]`s, launched through `cust`
//! on the PTX that `rustc`'s NVPTX backend made of them.
//!
//! What happens where, and why:
//!
//! - **Driver.** `libcuda.so.1` is loaded when a CUDA device is first asked for
//!   ([`Device::cuda`](crate::Device::cuda)), not when the program starts (see `driver.rs`):
//!   a binary built with `--features cuda` starts and runs its emulator tests on a machine
//!   with no NVIDIA driver, and `Device::cuda()` there answers [`LaunchError::NoDevice`].
//! - **Context.** Each [`Device`](crate::Device) creates its own CUDA context rather than
//!   sharing the device's primary context. A kernel fault (an illegal address) is sticky:
//!   the faulting device answers [`LaunchError::DeviceLost`] from then on. It is not
//!   contained, though: on an H200 with driver 580.159.04 (2026-11-22) the *other* contexts
//!   of the same process failed with `CUDA_ERROR_ILLEGAL_ADDRESS` as well. Code that may
//!   fault (a student's kernel) belongs in its own process when other work must go on.
//!   The context is made current on the calling thread by every operation, so a `Device`
//!   may move between threads.
//! - **Modules.** PTX is loaded once per device and key ([`Device::load_ptx`](crate::Device::load_ptx)),
//!   and a launch finds its kernel by the PTX entry name that `#[kernel]` records.
//! - **Launch.** One stream per device; every launch is bracketed by two events, so
//!   [`LaunchReport::gpu_time`](crate::LaunchReport::gpu_time) is the GPU's own measure of
//!   the kernel, and waited for, so a fault is reported by the launch that caused it.
//! - **Errors.** Every driver status becomes [`LaunchError::Driver`] with CUDA's error name
//!   and a hint; nothing here panics on a driver error.
//!
//! What the GPU cannot tell: counters, races, the thread and line of a fault. Those are
//! the emulator's ([`Device::emulator`](crate::Device::emulator)).

mod driver;
mod error;
mod flush;

use crate::props::DeviceProps;
use crate::{LaunchError, Result};
use cust::context::legacy::{Context, ContextFlags, CurrentContext};
use cust::device::{Device as CuDevice, DeviceAttribute};
use cust::event::{Event, EventFlags};
use cust::function::{BlockSize, GridSize};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use simt::LaunchSpec;
use std::collections::BTreeMap;
use std::ffi::{CString, c_void};
use std::time::Duration;

// CUDA's default limit of shared memory per block, above which a kernel must opt in.
use simt::hardware::DEFAULT_SHARED_LIMIT;

/// The state of one CUDA device: its context, stream, timing events, loaded modules and
/// live allocations. Opaque: reach it through [`Device`](crate::Device).
pub struct CudaBackend {
    // Field order is drop order: everything that lives in the context goes before it.
    /// Loaded PTX modules, in load order.
    modules: Vec<LoadedModule>,
    /// Which module holds a kernel, by (entry name, source file of the kernel).
    resolved: BTreeMap<(&'static str, &'static str), usize>,
    /// Timing events, reused from launch to launch.
    events: Vec<Event>,
    /// The stream every launch goes to.
    stream: Stream,
    /// Live allocations: device address → bytes.
    allocations: BTreeMap<u64, usize>,
    /// Set after a sticky error: why the context cannot be used any more.
    lost: Option<String>,
    /// What every timed operation runs first ([`flush`]), made at the first timed call.
    /// Before `ctx`: fields drop in order, and its module must be unloaded while the
    /// context lives (after it, `cuModuleUnload` fails with CUDA_ERROR_CONTEXT_IS_DESTROYED,
    /// which compute-sanitizer reported).
    l2_flush: Option<L2Flush>,
    /// The context; destroyed last.
    ctx: Context,
    /// The device ordinal.
    ordinal: u32,
    /// `cuDriverGetVersion`: e.g. 13000 for CUDA 13.0.
    driver_version: i32,
    /// The device's L2 size in bytes ([`DeviceProps::l2_bytes`]).
    l2_bytes: usize,
    /// The device's SMs: the flush kernel's grid.
    sm_count: u32,
    /// The device's compute capability, which every PTX loaded must not exceed.
    compute_capability: (u32, u32),
}

/// The L2 flush of timed operations ([`flush`]): the kernel's module, the buffer it reads
/// and its grid.
struct L2Flush {
    module: Module,
    addr: u64,
    bytes: usize,
    grid: u32,
}

// SAFETY: a CUDA context may be used from any thread once made current there, and every
// operation of this backend makes it current first (`activate`); `Device` hands out the
// backend only through `&mut self` methods, so no two threads use it at once.
unsafe impl Send for CudaBackend {}
// SAFETY: shared references to the backend reach no driver state (all its methods that
// call the driver take `&mut self`).
unsafe impl Sync for CudaBackend {}

struct LoadedModule {
    key: String,
    ptx_hash: u64,
    module: Module,
}

impl std::fmt::Debug for CudaBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaBackend")
            .field("ordinal", &self.ordinal)
            .field(
                "modules",
                &self.modules.iter().map(|m| &m.key).collect::<Vec<_>>(),
            )
            .field("allocations", &self.allocations.len())
            .field("lost", &self.lost)
            .finish()
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        // Modules, events and the stream are destroyed in the context they live in.
        let _ = CurrentContext::set_current(&self.ctx);
    }
}

fn no_device(message: String) -> LaunchError {
    LaunchError::NoDevice { message }
}

/// How many CUDA devices this machine has; 0 when there is no driver or `cuInit` fails.
pub(crate) fn device_count() -> u32 {
    if driver::load().is_err() || driver::init() != 0 {
        return 0;
    }
    CuDevice::num_devices().unwrap_or(0)
}

/// Device `ordinal`'s name and compute capability, or `None` (no driver, no such device).
pub(crate) fn device_capability(ordinal: u32) -> Option<(String, (u32, u32))> {
    if device_count() <= ordinal {
        return None;
    }
    let dev = CuDevice::get_device(ordinal).ok()?;
    let major = attr(dev, DeviceAttribute::ComputeCapabilityMajor).ok()?;
    let minor = attr(dev, DeviceAttribute::ComputeCapabilityMinor).ok()?;
    Some((dev.name().ok()?, (major, minor)))
}

/// Loads the driver and initialises it, with one clear error when that is impossible.
fn init_driver() -> Result<()> {
    if let Err(why) = driver::load() {
        return Err(no_device(format!(
            "no CUDA driver found ({why}): run on a machine with an NVIDIA GPU and driver, \
             or use Device::emulator()"
        )));
    }
    let status = driver::init();
    if status != 0 {
        let (name, description) = driver::error_text(status);
        let why = description.map(|d| format!(" ({d})")).unwrap_or_default();
        let extra = if status == 34 {
            ": the CUDA toolkit's stub libcuda was found before the driver's; remove its \
             directory from LD_LIBRARY_PATH"
        } else {
            ""
        };
        return Err(no_device(format!(
            "the CUDA driver ({}) is installed but cuInit failed with {name}{why}{extra}; \
             is there an NVIDIA GPU, and may this user use it? Device::emulator() runs \
             everywhere",
            driver::LIBCUDA
        )));
    }
    Ok(())
}

fn attr(dev: CuDevice, a: DeviceAttribute) -> Result<u32> {
    dev.get_attribute(a)
        .map(|v| v.max(0) as u32)
        .map_err(|e| error::from_cust("cuDeviceGetAttribute", e))
}

impl CudaBackend {
    /// Opens device `ordinal`: driver, context, stream, properties.
    pub(crate) fn open(ordinal: u32) -> Result<(CudaBackend, DeviceProps)> {
        init_driver()?;
        let count = CuDevice::num_devices().map_err(|e| error::from_cust("cuDeviceGetCount", e))?;
        if ordinal >= count {
            return Err(no_device(format!(
                "CUDA device {ordinal} was asked for; this machine has {count} \
                 (ordinals start at 0)"
            )));
        }
        let dev = CuDevice::get_device(ordinal).map_err(|e| error::from_cust("cuDeviceGet", e))?;
        let props = props_of(dev)?;
        let (major, minor) = props.compute_capability;
        if (major, minor) < crate::MIN_COMPUTE_CAPABILITY {
            let (fmaj, fmin) = crate::MIN_COMPUTE_CAPABILITY;
            return Err(no_device(format!(
                "CUDA device {ordinal} ({}) has compute capability {major}.{minor}; the \
                 course's kernels need {fmaj}.{fmin} (sm_{fmaj}{fmin}, Volta) or later, the \
                 oldest architecture rustc builds PTX for. Its checks run on the emulator \
                 (Device::emulator()) on any machine",
                props.name
            )));
        }
        let driver_version = cust::CudaApiVersion::get()
            .map(|v| v.major() * 1000 + v.minor() * 10)
            .map_err(|e| error::from_cust("cuDriverGetVersion", e))?;
        // A context of our own (cuCtxCreate), current on this thread from now on.
        let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, dev)
            .map_err(|e| error::from_cust("cuCtxCreate", e))?;
        let stream = Stream::new(StreamFlags::DEFAULT, None)
            .map_err(|e| error::from_cust("cuStreamCreate", e))?;
        Ok((
            CudaBackend {
                modules: Vec::new(),
                resolved: BTreeMap::new(),
                events: Vec::new(),
                stream,
                allocations: BTreeMap::new(),
                lost: None,
                ctx,
                ordinal,
                driver_version,
                l2_bytes: props.l2_bytes as usize,
                sm_count: props.sm_count,
                compute_capability: props.compute_capability,
                l2_flush: None,
            },
            props,
        ))
    }

    /// The driver's CUDA version, as (major, minor).
    pub(crate) fn driver_version(&self) -> (u32, u32) {
        let v = self.driver_version.max(0) as u32;
        (v / 1000, (v % 1000) / 10)
    }

    /// Makes the context current on this thread; refuses after a sticky error.
    fn activate(&self) -> Result<()> {
        if let Some(why) = &self.lost {
            return Err(LaunchError::DeviceLost {
                message: why.clone(),
            });
        }
        CurrentContext::set_current(&self.ctx).map_err(|e| error::from_cust("cuCtxSetCurrent", e))
    }

    /// Turns a failed status into a report, marking the device lost after a sticky error.
    fn fail(&mut self, call: &'static str, code: i32) -> LaunchError {
        let err = error::from_code(call, code);
        if let (true, LaunchError::Driver { code, .. }) = (error::is_sticky(code), &err) {
            self.lost = Some(format!(
                "an earlier kernel failed with {code} and left this device's CUDA context \
                 unusable; create a new Device"
            ));
        }
        err
    }

    fn check(&mut self, call: &'static str, r: cust::error::CudaResult<()>) -> Result<()> {
        r.map_err(|e| self.fail(call, error::code_of(e)))
    }

    fn check_raw(&mut self, call: &'static str, r: cust_raw::CUresult) -> Result<()> {
        if r == cust_raw::CUresult::CUDA_SUCCESS {
            Ok(())
        } else {
            Err(self.fail(call, r as i32))
        }
    }

    /// Makes the L2 flush ([`flush`]) at the first timed call: its buffer (twice the L2,
    /// zeroed) and its module.
    fn ensure_l2_flush(&mut self) -> Result<()> {
        if self.l2_flush.is_some() {
            return Ok(());
        }
        let bytes = flush::flush_bytes(self.l2_bytes);
        let addr = self.alloc(bytes)?;
        let text = CString::new(flush::PTX).expect("invariant: the flush PTX has no NUL");
        let module = Module::from_ptx_cstr(&text, &[]).map_err(|e| {
            self.fail(
                "cuModuleLoadDataEx (the L2 flush kernel)",
                error::code_of(e),
            )
        })?;
        self.l2_flush = Some(L2Flush {
            module,
            addr,
            bytes,
            grid: self.sm_count.max(1) * flush::BLOCKS_PER_SM,
        });
        Ok(())
    }

    /// Allocates `bytes` (at least 1, so that every buffer has its own address), zeroed.
    pub(crate) fn alloc(&mut self, bytes: usize) -> Result<u64> {
        self.activate()?;
        let size = bytes.max(1);
        // SAFETY: a plain allocation of `size` bytes; the pointer is tracked and freed by
        // `free` or with the context.
        let ptr = unsafe { cust::memory::cuda_malloc::<u8>(size) };
        let ptr = ptr.map_err(|e| self.fail("cuMemAlloc", error::code_of(e)))?;
        let addr = ptr.as_raw();
        self.allocations.insert(addr, size);
        // SAFETY: `addr` is a live allocation of `size` bytes.
        let r = unsafe { cust_raw::cuMemsetD8_v2(addr, 0, size) };
        self.check_raw("cuMemsetD8", r)?;
        Ok(addr)
    }

    fn live(&self, addr: u64, bytes: usize) -> Result<()> {
        match self.allocations.get(&addr) {
            Some(&size) if bytes <= size => Ok(()),
            _ => Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: "the buffer was already freed".into(),
            }),
        }
    }

    /// Copies host bytes to device address `addr`.
    pub(crate) fn write(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        self.activate()?;
        self.live(addr, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: `addr` is a live allocation of at least `data.len()` bytes.
        let r =
            unsafe { cust::memory::memcpy_htod(addr, data.as_ptr() as *const c_void, data.len()) };
        self.check("cuMemcpyHtoD", r)
    }

    /// Copies device bytes at `addr` into `out`.
    pub(crate) fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<()> {
        self.activate()?;
        self.live(addr, out.len())?;
        if out.is_empty() {
            return Ok(());
        }
        // SAFETY: `addr` holds at least `out.len()` bytes; `out` is writable host memory.
        let r =
            unsafe { cust_raw::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, addr, out.len()) };
        self.check_raw("cuMemcpyDtoH", r)
    }

    /// Sets `count` elements of `pattern.len()` bytes each at `addr` to `pattern`: with
    /// `cuMemsetD8/16/32` when the pattern allows, else by copying from the host.
    pub(crate) fn fill(&mut self, addr: u64, pattern: &[u8], count: usize) -> Result<()> {
        self.activate()?;
        self.live(addr, pattern.len() * count)?;
        if count == 0 {
            return Ok(());
        }
        let words: Vec<u32> = pattern
            .chunks(4)
            .filter(|c| c.len() == 4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        // SAFETY (all three): `addr` holds `pattern.len() * count` bytes.
        let r = match pattern.len() {
            1 => unsafe { cust_raw::cuMemsetD8_v2(addr, pattern[0], count) },
            2 => unsafe {
                cust_raw::cuMemsetD16_v2(addr, u16::from_le_bytes([pattern[0], pattern[1]]), count)
            },
            n if n % 4 == 0 && words.iter().all(|&w| w == words[0]) => unsafe {
                cust_raw::cuMemsetD32_v2(addr, words[0], count * n / 4)
            },
            _ => {
                let data: Vec<u8> = pattern
                    .iter()
                    .copied()
                    .cycle()
                    .take(pattern.len() * count)
                    .collect();
                return self.write(addr, &data);
            }
        };
        self.check_raw("cuMemset", r)
    }

    /// Frees the allocation at `addr`.
    pub(crate) fn free(&mut self, addr: u64) -> Result<()> {
        if self.allocations.remove(&addr).is_none() {
            return Err(LaunchError::InvalidConfig {
                cuda_error: "cudaErrorInvalidValue",
                message: "the buffer was already freed".into(),
            });
        }
        self.activate()?;
        let ptr = cust::memory::DevicePointer::<u8>::from_raw(addr);
        // SAFETY: `addr` came from `cuda_malloc` and was live until the line above.
        let r = unsafe { cust::memory::cuda_free(ptr) };
        self.check("cuMemFree", r)
    }

    /// Waits for all work on the device.
    pub(crate) fn synchronize(&mut self) -> Result<()> {
        self.activate()?;
        let r = self.stream.synchronize();
        self.check("cuStreamSynchronize", r)
    }

    /// Loads `ptx` as the module `key`, once: the same text again is a no-op, new text
    /// replaces the module (and forgets which kernels were found where).
    pub(crate) fn load_ptx(&mut self, key: &str, ptx: &str) -> Result<()> {
        self.activate()?;
        if let Some((major, minor)) = crate::ptx_target(ptx) {
            let (dmaj, dmin) = self.compute_capability;
            if (dmaj, dmin) < (major, minor) {
                return Err(LaunchError::NoDevice {
                    message: format!(
                        "the PTX of module `{key}` targets sm_{major}{minor}, and this GPU has \
                         compute capability {dmaj}.{dmin}: the driver cannot run it. Build the \
                         PTX for this GPU or an older one (`cargo run -p ptx-builder -- --arch \
                         sm_{dmaj}{dmin}`; the course's default is sm_70, which every GPU from \
                         compute capability 7.0 on runs)"
                    ),
                });
            }
        }
        let hash = fnv1a(ptx.as_bytes());
        if self
            .modules
            .iter()
            .any(|m| m.key == key && m.ptx_hash == hash)
        {
            return Ok(());
        }
        let text = CString::new(ptx).map_err(|_| LaunchError::InvalidConfig {
            cuda_error: "cudaErrorInvalidPtx",
            message: format!("the PTX of module `{key}` contains a NUL byte: is it PTX text?"),
        })?;
        let module = match Module::from_ptx_cstr(&text, &[]) {
            Ok(m) => m,
            Err(e) => {
                let code = error::code_of(e);
                let mut err = self.fail("cuModuleLoadDataEx", code);
                if let LaunchError::Driver { message, .. } = &mut err {
                    if let Some(log) = jit_error_log(&text) {
                        message.push_str(&format!(". The PTX compiler said:\n{log}"));
                    }
                    message.push_str(&format!(" (module `{key}`)"));
                }
                return Err(err);
            }
        };
        self.resolved.clear();
        let loaded = LoadedModule {
            key: key.to_string(),
            ptx_hash: hash,
            module,
        };
        match self.modules.iter_mut().find(|m| m.key == key) {
            Some(slot) => *slot = loaded,
            None => self.modules.push(loaded),
        }
        Ok(())
    }

    /// The keys of the loaded modules, in load order.
    pub(crate) fn module_keys(&self) -> Vec<String> {
        self.modules.iter().map(|m| m.key.clone()).collect()
    }

    /// Which module holds `name`: the only one that has it, or, when several do (the
    /// student's `kernels` and the `solutions` share entry names), the one whose key is
    /// a directory in the kernel's source path (`solutions/src/ch09.rs` → `solutions`).
    fn resolve(&mut self, name: &'static str, file: &'static str) -> Result<usize> {
        if let Some(&i) = self.resolved.get(&(name, file)) {
            return Ok(i);
        }
        let having: Vec<usize> = (0..self.modules.len())
            .filter(|&i| self.modules[i].module.get_function(name).is_ok())
            .collect();
        let dirs: Vec<&str> = file.split(['/', '\\']).collect();
        let chosen = match having.as_slice() {
            [] => {
                let keys = self.module_keys();
                let loaded = if keys.is_empty() {
                    "no PTX module is loaded".to_string()
                } else {
                    format!("the loaded modules ({}) do not have it", keys.join(", "))
                };
                return Err(LaunchError::Driver {
                    call: "cuModuleGetFunction",
                    code: "CUDA_ERROR_NOT_FOUND".into(),
                    message: format!(
                        "kernel `{name}` ({file}): {loaded}. Build the PTX of its crate \
                         (cargo run -p ptx-builder) and load it with Device::load_ptx"
                    ),
                });
            }
            [one] => *one,
            many => {
                let by_dir: Vec<usize> = many
                    .iter()
                    .copied()
                    .filter(|&i| dirs.contains(&self.modules[i].key.as_str()))
                    .collect();
                match by_dir.as_slice() {
                    [one] => *one,
                    _ => {
                        let keys: Vec<&str> =
                            many.iter().map(|&i| self.modules[i].key.as_str()).collect();
                        return Err(LaunchError::InvalidConfig {
                            cuda_error: "cudaErrorInvalidDeviceFunction",
                            message: format!(
                                "kernel `{name}` ({file}) is in several loaded modules ({}); \
                                 load each crate's PTX under its package name so the kernel's \
                                 source path tells them apart",
                                keys.join(", ")
                            ),
                        });
                    }
                }
            }
        };
        self.resolved.insert((name, file), chosen);
        Ok(chosen)
    }

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor` for `kernel` with `spec`'s block and
    /// shared memory (after the same opt-in a launch makes above 48 KiB).
    pub(crate) fn max_active_blocks(
        &mut self,
        kernel: (&'static str, &'static str),
        spec: &LaunchSpec,
        opt_in: Option<u32>,
    ) -> Result<u32> {
        self.activate()?;
        let m = self.resolve(kernel.0, kernel.1)?;
        let func = match self.modules[m].module.get_function(kernel.0) {
            Ok(f) => f.to_raw(),
            Err(e) => return Err(self.fail("cuModuleGetFunction", error::code_of(e))),
        };
        let shared = spec.shared_bytes;
        if let Err(r) = opt_in_shared(func, shared, opt_in) {
            return Err(self.fail("cuFuncSetAttribute", r));
        }
        let threads = spec.block.iter().product::<u32>();
        let mut blocks = 0i32;
        // SAFETY: an out-pointer and a live function handle.
        let r = unsafe {
            cust_raw::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut blocks,
                func,
                threads as i32,
                shared as usize,
            )
        };
        if r != cust_raw::CUresult::CUDA_SUCCESS {
            return Err(self.fail("cuOccupancyMaxActiveBlocksPerMultiprocessor", r as i32));
        }
        Ok(blocks.max(0) as u32)
    }

    fn ensure_events(&mut self, n: usize) -> Result<()> {
        while self.events.len() < n {
            let e = Event::new(EventFlags::DEFAULT);
            let e = e.map_err(|e| self.fail("cuEventCreate", error::code_of(e)))?;
            self.events.push(e);
        }
        Ok(())
    }

    /// Launches `name` `warmup + reps` times with `params` (pointers to each argument, as
    /// `cuLaunchKernel` takes them) and waits; returns the event-timed duration of each of
    /// the last `reps` launches.
    ///
    /// `spec` was validated by the caller; `opt_in` is the launch's explicit opt-in to more
    /// shared memory per block. With `zero = Some((addr, bytes))`, those bytes are set to 0
    /// (`cuMemsetD8Async` on the launch's stream) before every launch, outside the two
    /// events that time it: each timed launch then starts from a fresh output, as a
    /// benchmark of an accumulating kernel (a histogram) needs.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch(
        &mut self,
        kernel: (&'static str, &'static str),
        spec: &LaunchSpec,
        opt_in: Option<u32>,
        params: &[*mut c_void],
        zero: Option<(u64, usize)>,
        warmup: u32,
        reps: u32,
    ) -> Result<Vec<Duration>> {
        self.activate()?;
        if let Some((addr, bytes)) = zero {
            self.live(addr, bytes)?;
        }
        let m = self.resolve(kernel.0, kernel.1)?;
        self.ensure_l2_flush()?;
        self.ensure_events(events_needed(reps))?;
        let shared = spec.shared_bytes;
        let this = &*self;
        let func = match this.modules[m].module.get_function(kernel.0) {
            Ok(f) => f,
            Err(e) => return Err(self.fail("cuModuleGetFunction", error::code_of(e))),
        };
        if let Err(r) = opt_in_shared(func.to_raw(), shared, opt_in) {
            return Err(self.fail("cuFuncSetAttribute", r));
        }
        let launch_one = |this: &CudaBackend| {
            let [gx, gy, gz] = spec.grid;
            let [bx, by, bz] = spec.block;
            // SAFETY: `params` points at the kernel's arguments, whose types `#[kernel]`
            // checked against its signature; they outlive this call, which copies them.
            unsafe {
                this.stream.launch(
                    &func,
                    GridSize::xyz(gx, gy, gz),
                    BlockSize::xyz(bx, by, bz),
                    shared,
                    params,
                )
            }
            .map_err(|e| ("cuLaunchKernel", error::code_of(e)))
        };
        let timed = this.timed(warmup, reps, zero, launch_one);
        self.finish_timed(timed, "cuStreamSynchronize (waiting for the kernel)")
    }

    /// Copies `bytes` from device address `src` to `dst` (`cuMemcpyDtoD`), and waits.
    pub(crate) fn copy_dtod(&mut self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        self.activate()?;
        self.live(dst, bytes)?;
        self.live(src, bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: both addresses are live allocations of at least `bytes` bytes.
        let r = unsafe { cust_raw::cuMemcpyDtoD_v2(dst, src, bytes) };
        self.check_raw("cuMemcpyDtoD", r)
    }

    /// Copies `bytes` from `src` to `dst` on the device `warmup + reps` times
    /// (`cuMemcpyDtoDAsync` on the device's stream) and returns the event-timed duration
    /// of each of the last `reps` copies: the driver's own device-to-device copy, the
    /// reference a bandwidth-bound kernel is compared with.
    pub(crate) fn time_copies(
        &mut self,
        dst: u64,
        src: u64,
        bytes: usize,
        warmup: u32,
        reps: u32,
    ) -> Result<Vec<Duration>> {
        self.activate()?;
        self.live(dst, bytes)?;
        self.live(src, bytes)?;
        self.ensure_l2_flush()?;
        self.ensure_events(events_needed(reps))?;
        let copy_one = |this: &CudaBackend| {
            // SAFETY: both addresses are live allocations of at least `bytes` bytes, and
            // the stream belongs to this context.
            let r =
                unsafe { cust_raw::cuMemcpyDtoDAsync_v2(dst, src, bytes, this.stream.as_inner()) };
            raw_ok("cuMemcpyDtoDAsync", r)
        };
        let timed = self.timed(warmup, reps, None, copy_one);
        self.finish_timed(timed, "cuStreamSynchronize (waiting for the copy)")
    }

    /// Runs `op` on the stream `warmup` times, then `reps` times timed with events, then
    /// waits for the stream; the events and the L2 flush must exist already
    /// ([`events_needed`], [`CudaBackend::ensure_l2_flush`]).
    ///
    /// Before every operation, outside the two events that time it, the flush kernel reads
    /// twice the L2's size ([`flush`]: each operation starts from a cold L2, as a kernel
    /// over fresh data does), and the `zero` bytes, if any, are set to 0
    /// (`cuMemsetD8Async`: each run of an accumulating kernel starts from a fresh output).
    ///
    /// Returns the durations, or the first failed call and its status code; after a
    /// failure the stream is still waited for, so a kernel fault is reported here.
    fn timed(
        &self,
        warmup: u32,
        reps: u32,
        zero: Option<(u64, usize)>,
        op: impl Fn(&CudaBackend) -> std::result::Result<(), (&'static str, i32)>,
    ) -> Timed {
        let Some(l2) = &self.l2_flush else {
            return Timed::Failed(("the L2 flush (not made)", 0));
        };
        let flush_fn = match l2.module.get_function(flush::ENTRY) {
            Ok(f) => f,
            Err(e) => return Timed::Failed(("cuModuleGetFunction", error::code_of(e))),
        };
        let flush = || -> std::result::Result<(), (&'static str, i32)> {
            let (mut src, mut vectors, mut sink) = (l2.addr, (l2.bytes / 16) as u64, l2.addr);
            let params = [
                &mut src as *mut u64 as *mut c_void,
                &mut vectors as *mut u64 as *mut c_void,
                &mut sink as *mut u64 as *mut c_void,
            ];
            // SAFETY: the flush kernel takes three u64 parameters, which `params` points
            // at for the length of the call (it copies them); it reads `vectors` 16-byte
            // vectors from `src`, this backend's own live allocation of `l2.bytes` bytes,
            // and never writes `sink` (the buffer is zeroed, the XOR never matches).
            unsafe {
                self.stream.launch(
                    &flush_fn,
                    GridSize::x(l2.grid),
                    BlockSize::x(flush::BLOCK),
                    0,
                    &params,
                )
            }
            .map_err(|e| ("cuLaunchKernel (the L2 flush)", error::code_of(e)))
        };
        let reset = || -> std::result::Result<(), (&'static str, i32)> {
            flush()?;
            match zero {
                Some((addr, bytes)) if bytes > 0 => {
                    // SAFETY: the caller checked that `addr` holds `bytes` live bytes; the
                    // stream belongs to this context.
                    let r = unsafe {
                        cust_raw::cuMemsetD8Async(addr, 0, bytes, self.stream.as_inner())
                    };
                    raw_ok("cuMemsetD8Async", r)
                }
                _ => Ok(()),
            }
        };
        let record = |i: usize| {
            self.events[i]
                .record(&self.stream)
                .map_err(|e| ("cuEventRecord", error::code_of(e)))
        };
        let run = || -> std::result::Result<(), (&'static str, i32)> {
            for _ in 0..warmup {
                reset()?;
                op(self)?;
            }
            for i in 0..reps as usize {
                reset()?;
                record(2 * i)?;
                op(self)?;
                record(2 * i + 1)?;
            }
            Ok(())
        };
        let status = run();
        // Wait even after a failed call, so that a fault is reported here.
        let waited = self.stream.synchronize().map_err(error::code_of);
        if let Err(e) = status {
            return Timed::Failed(e);
        }
        if let Err(code) = waited {
            return Timed::WaitFailed(code);
        }
        let mut times = Vec::with_capacity(reps as usize);
        for i in 0..reps as usize {
            let (start, end) = (2 * i, 2 * i + 1);
            match self.events[end].elapsed(&self.events[start]) {
                Ok(t) => times.push(t),
                Err(e) => return Timed::Failed(("cuEventElapsedTime", error::code_of(e))),
            }
        }
        Timed::Done(times)
    }

    /// Turns what [`timed`](Self::timed) found into the result, marking the device lost
    /// after a sticky error; `wait_call` names the wait in the report.
    fn finish_timed(&mut self, t: Timed, wait_call: &'static str) -> Result<Vec<Duration>> {
        match t {
            Timed::Done(times) => Ok(times),
            Timed::Failed((call, code)) => Err(self.fail(call, code)),
            Timed::WaitFailed(code) => Err(self.fail(wait_call, code)),
        }
    }
}

/// What a run of timed operations on the stream came to.
enum Timed {
    /// The durations of the timed operations.
    Done(Vec<Duration>),
    /// A call failed: which, and its status code.
    Failed((&'static str, i32)),
    /// Every call was accepted but waiting for the stream failed (a kernel fault).
    WaitFailed(i32),
}

/// Events a timed run of `reps` operations needs: a pair per operation (each is preceded
/// by its untimed reset, [`CudaBackend::timed`]).
fn events_needed(reps: u32) -> usize {
    2 * reps as usize
}

/// A raw driver status as the result [`CudaBackend::timed`] works with.
fn raw_ok(
    call: &'static str,
    r: cust_raw::CUresult,
) -> std::result::Result<(), (&'static str, i32)> {
    if r == cust_raw::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err((call, r as i32))
    }
}

/// The PTX compiler's error log for `ptx`, from a second load with a log buffer (cust's
/// loader does not ask for one).
fn jit_error_log(ptx: &CString) -> Option<String> {
    use cust_raw::CUjit_option::{CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
    // cuModuleLoadDataEx takes values that fit in a pointer by value.
    let mut values = [log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
    let mut module: cust_raw::CUmodule = std::ptr::null_mut();
    // SAFETY: NUL-terminated PTX; two options with their values; the log buffer outlives
    // the call.
    let r = unsafe {
        cust_raw::cuModuleLoadDataEx(
            &mut module,
            ptx.as_ptr() as *const c_void,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if r == cust_raw::CUresult::CUDA_SUCCESS && !module.is_null() {
        // SAFETY: the module was just loaded and nothing else knows of it.
        unsafe { cust_raw::cuModuleUnload(module) };
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    let text = String::from_utf8_lossy(&log[..end]).trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// 64-bit FNV-1a (the `fnv` crate): tells whether a module's PTX changed, deterministically.
fn fnv1a(bytes: &[u8]) -> u64 {
    use std::hash::Hasher as _;
    let mut h = fnv::FnvHasher::default();
    h.write(bytes);
    h.finish()
}

/// Above 48 KiB a kernel must opt in to more shared memory
/// (`cudaFuncAttributeMaxDynamicSharedMemorySize`), for a launch and for the occupancy
/// query alike: sets the attribute of `func` to `shared` bytes, or the launch's explicit
/// `opt_in` if larger, when either asks for it. All of a kernel's shared memory, its
/// `shared_array!`s included, is dynamic shared memory on the GPU, so the attribute
/// covers it all. `Err` is the driver's code.
fn opt_in_shared(
    func: cust_raw::CUfunction,
    shared: u32,
    opt_in: Option<u32>,
) -> std::result::Result<(), i32> {
    if opt_in.is_none() && shared <= DEFAULT_SHARED_LIMIT {
        return Ok(());
    }
    let want = opt_in.unwrap_or(shared).max(shared);
    // SAFETY: a live function handle; the attribute takes a byte count.
    let r = unsafe {
        cust_raw::cuFuncSetAttribute(
            func,
            cust_raw::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            want as i32,
        )
    };
    if r == cust_raw::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(r as i32)
    }
}

/// A device attribute `cust`'s `DeviceAttribute` does not list, by its raw number.
fn raw_attr(dev: CuDevice, attribute: cust_raw::CUdevice_attribute) -> Result<u32> {
    let mut value = 0i32;
    // SAFETY: an out-pointer and a valid attribute of a valid device.
    let r = unsafe { cust_raw::cuDeviceGetAttribute(&mut value, attribute, dev.as_raw()) };
    if r != cust_raw::CUresult::CUDA_SUCCESS {
        return Err(error::from_code("cuDeviceGetAttribute", r as i32));
    }
    Ok(value.max(0) as u32)
}

/// The device's properties, from the driver.
fn props_of(dev: CuDevice) -> Result<DeviceProps> {
    let name = dev
        .name()
        .map_err(|e| error::from_cust("cuDeviceGetName", e))?;
    use cust_raw::CUdevice_attribute as A;
    let optin = raw_attr(
        dev,
        A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
    )?;
    let reserved = raw_attr(dev, A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)?;
    Ok(DeviceProps {
        name,
        sm_count: attr(dev, DeviceAttribute::MultiprocessorCount)?,
        compute_capability: (
            attr(dev, DeviceAttribute::ComputeCapabilityMajor)?,
            attr(dev, DeviceAttribute::ComputeCapabilityMinor)?,
        ),
        max_threads_per_block: attr(dev, DeviceAttribute::MaxThreadsPerBlock)?,
        max_threads_per_sm: attr(dev, DeviceAttribute::MaxThreadsPerMultiprocessor)?,
        shared_bytes_per_block: attr(dev, DeviceAttribute::MaxSharedMemoryPerBlock)?,
        shared_bytes_per_block_optin: optin,
        shared_bytes_per_sm: attr(dev, DeviceAttribute::MaxSharedMemoryPerMultiprocessor)?,
        reserved_shared_bytes_per_block: reserved,
        l2_bytes: attr(dev, DeviceAttribute::L2CacheSize)? as u64,
        warp_size: attr(dev, DeviceAttribute::WarpSize)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_stable() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(
            fnv1a(b"a"),
            0xaf63_dc4c_8601_ec8c,
            "FNV-1a's published value"
        );
        assert_ne!(fnv1a(b"a"), fnv1a(b"b"));
    }

    #[test]
    fn a_device_still_moves_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<crate::Device>();
    }

    #[test]
    fn sticky_errors_are_the_fault_ones() {
        assert!(error::is_sticky(700));
        assert!(!error::is_sticky(701));
    }
}
