//! The sandbox: lanes that are WebAssembly instances.
//!
//! A kernel crate built for `wasm32-unknown-unknown` (the `gpu` crate's wasm32 backend)
//! exports each `#[kernel]` as `__gpu_kernel_<name>` and reaches the emulator only through
//! the imports of module `gpu` defined here: one device call that parks the lane
//! (`crate::lane::park_at`, exactly where a native lane's coroutine parks), the special
//! registers, the kernel's arguments, a panic report and `printf`. No WASI is linked, so a
//! kernel has no files, clocks, processes, threads or output the checker reads; each lane
//! has its own instance (its own linear memory, stack and statics); device memory lives in
//! the emulator only.
//!
//! Each lane's instance runs on the lane's coroutine (the emulator's lanes are coroutines
//! either way): the device-call import suspends the coroutine in the middle of the wasm
//! call, and the scheduler resumes it with the result. Three budgets make every verdict
//! independent of the machine and its load:
//!
//! - **fuel**: a lane may execute [`LaneLimits::fuel`] WebAssembly instructions between
//!   two device calls (wasmi's fuel metering); past that it is stopped, reported as timed
//!   out with its last device call ([`LaunchError::FuelExhausted`]);
//! - **memory**: a lane's linear memory may grow to [`LaneLimits::memory_bytes`]; an
//!   allocation past it fails, and the lane is reported as trapped;
//! - **stack**: the lane's stack is what the module was linked with (64 KiB by the course's
//!   builder); an overflow is a trap of that lane.
//!
//! Instances are pooled per module: a lane that ends gives its instance back, and the next
//! lane gets it with its statics restored to their initial bytes, so no state passes from
//! one lane to another (the builder refuses `unsafe` code, without which a kernel cannot
//! read its stack or heap before writing it, nor write the module's constants, which the
//! restore therefore skips: see `rodata.rs`).

use crate::lane::{self, LanePanic};
use crate::loops::{CodeLoop, LOOP_GLOBAL, Loops};
use crate::meter::Meter;
use crate::op::wire;
use crate::report::LaunchError;
use crate::site::{Site, fmt_site, intern};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use wasmi::{
    Caller, Config as WasmConfig, Engine, Extern, Linker, Memory, Module, Store, TrapCode,
    TypedFunc,
};

/// The budgets of one sandboxed lane (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneLimits {
    /// WebAssembly instructions a lane may run between two device calls.
    pub fuel: u64,
    /// Most bytes a lane's linear memory may grow to.
    pub memory_bytes: usize,
}

impl Default for LaneLimits {
    fn default() -> Self {
        LaneLimits {
            fuel: 200_000_000,
            memory_bytes: 16 << 20,
        }
    }
}

/// The largest module [`WasmModule::new`] compiles: a lane's whole memory by default. A
/// module's statics must fit in its lanes' memory, and its code is a few hundred KiB (the
/// course's are under 100 KiB), so a larger module is refused before wasmi reads it.
pub const MAX_MODULE_BYTES: usize = 16 << 20;

/// What the `gpu` crate's `#[kernel]` puts before a kernel's name in its export.
pub const KERNEL_EXPORT_PREFIX: &str = "__gpu_kernel_";

/// A kernel crate compiled to WebAssembly, ready to run lanes.
pub struct WasmModule {
    name: String,
    id: u64,
    engine: Engine,
    module: Module,
    linker: Linker<LaneData>,
    /// Instances of lanes that ended, ready for the next lane (boxed: a lane's coroutine
    /// holds a pointer to its instance, which must not move).
    #[allow(clippy::vec_box)]
    pool: Mutex<Vec<Box<WasmLane>>>,
    /// Each kernel's static shared bytes, asked once (every launch needs them).
    shared_bytes: Mutex<FxHashMap<String, u32>>,
    /// The initial bytes of the statics, shared by the module's instances that start with
    /// the same (all of them, the start-up being deterministic): a lane's restore copies
    /// from bytes the cache holds, not from a copy of its own.
    statics: Mutex<Option<Arc<[u8]>>>,
    /// Where the module's constants lie in a lane's memory ([`crate::rodata`]): a
    /// pooled lane's restore skips them.
    read_only: Vec<std::ops::Range<usize>>,
    /// Each kernel's loads and stores of a run-time-indexed stack array
    /// ([`crate::local_memory`]), kernels with none absent.
    local_sites: FxHashMap<String, Vec<crate::local_memory::LocalSite>>,
    /// The module's loops, by the number its loop heads set ([`crate::loops`]).
    loops: Arc<Loops>,
}

impl std::fmt::Debug for WasmModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WasmModule({})", self.name)
    }
}

/// What a lane's store holds for its imports.
pub(crate) struct LaneData {
    args: Arc<[u64]>,
    /// The upper 64 bits of the last device call's result (16-byte loads).
    hi: u64,
    /// The message and location the lane's panic hook reported.
    panic: Option<(String, String)>,
    /// The size a denied `memory.grow` asked for.
    denied: Option<usize>,
    /// The lane's linear memory (set once the instance exists: its imports read it
    /// without looking up the export by name).
    memory: Option<Memory>,
    limits: LaneLimits,
    module: u64,
    last_site: Option<Site>,
    /// The check's work meter, if any ([`crate::meter`]).
    meter: Option<Arc<Meter>>,
    /// Threads of the lane's block: its grants are its share of what the meter has left.
    threads: u32,
    /// The fuel of the lane's last grant.
    granted: u64,
    /// The meter ran out while this lane ran.
    over_budget: bool,
}

impl LaneData {
    /// A new grant of fuel: the lane's own limit, or its share of the meter's budget.
    fn grant(&mut self) -> u64 {
        self.granted = match &self.meter {
            Some(m) => m.grant(self.limits.fuel, self.threads),
            None => self.limits.fuel,
        };
        self.granted
    }

    /// Counts on the meter what the lane ran of its grant (`left` fuel remains); `false`
    /// once the meter is past its budget.
    fn charge(&mut self, left: u64) -> bool {
        let Some(m) = &self.meter else { return true };
        let used = self.granted.saturating_sub(left);
        self.granted = left;
        if !m.charge_instructions(used) {
            self.over_budget = true;
        }
        !self.over_budget
    }

    /// The budget failure of this lane (the meter's instruction budget), at `site`.
    fn budget_failure(&self, site: String) -> LaneFailure {
        let budget = self.meter.as_ref().map_or(0, |m| m.budget().instructions);
        LaneFailure::Budget(budget, site)
    }
}

/// Entries of the site cache (a power of two).
const SITE_CACHE: usize = 256;

impl wasmi::ResourceLimiter for LaneData {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> Result<bool, wasmi_core::LimiterError> {
        if desired > self.limits.memory_bytes {
            self.denied = Some(desired);
            return Ok(false);
        }
        Ok(true)
    }
    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> Result<bool, wasmi_core::LimiterError> {
        Ok(desired <= 4096)
    }
    fn instances(&self) -> usize {
        1
    }
    fn tables(&self) -> usize {
        1
    }
    fn memories(&self) -> usize {
        1
    }
}

/// How a sandboxed lane failed.
pub(crate) enum LaneFailure {
    /// It panicked: message and location.
    Panic(String, String),
    /// It ran out of fuel.
    Fuel(u64, String),
    /// The check's work meter ran out of instructions while it ran: the budget, and its
    /// last site.
    Budget(u64, String),
    /// It trapped: what, and its last site.
    Trap(String, String),
}

/// One lane's instance: its store, memory and the initial bytes of its statics.
pub(crate) struct WasmLane {
    store: Store<LaneData>,
    instance: wasmi::Instance,
    memory: Memory,
    /// The memory's size in pages when the instance was made ([`WasmModule::give_back`]).
    initial_pages: u64,
    /// The bytes of the module's data (statics) as instantiated, from `data_start`.
    statics: Arc<[u8]>,
    data_start: usize,
    /// The ranges of memory a reuse restores from `statics`: all of them but the
    /// module's constants.
    restore: Vec<std::ops::Range<usize>>,
    stack_pointer: Option<(wasmi::Global, wasmi::Val)>,
    /// The global its loop heads set, and the module's table of loops ([`crate::loops`]).
    loop_global: Option<wasmi::Global>,
    loops: Arc<Loops>,
    /// It ran out of fuel (its own, or its grant of the check's budget): it stopped in its
    /// code, not at a device call.
    out_of_fuel: bool,
    func: Option<TypedFunc<(), ()>>,
    /// The export `func` is (the next lane of the same kernel skips the lookup).
    export: String,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl WasmModule {
    /// Compiles `wasm` (a kernel crate built for `wasm32-unknown-unknown`) under `name`
    /// (for messages). Fails with a one-line reason when the bytes are not a module of
    /// the course's device API.
    pub fn new(name: &str, wasm: &[u8]) -> Result<Arc<WasmModule>, String> {
        if wasm.len() > MAX_MODULE_BYTES {
            return Err(format!(
                "{name}: the module is {} MiB, more than the {} MiB the sandbox compiles \
                 (a large static array? a lane's memory holds {} MiB in all)",
                wasm.len() >> 20,
                MAX_MODULE_BYTES >> 20,
                LaneLimits::default().memory_bytes >> 20
            ));
        }
        let mut config = WasmConfig::default();
        config.consume_fuel(true);
        let engine = Engine::new(&config);
        let (code, loops) = crate::loops::instrument(wasm);
        let module = Module::new(&engine, &code[..])
            .map_err(|e| format!("{name}: not a WebAssembly module the emulator can run: {e}"))?;
        for import in module.imports() {
            if import.module() != "gpu" {
                return Err(format!(
                    "{name}: imports `{}.{}`, which the sandbox does not provide (a kernel reaches \
                     nothing but the device API)",
                    import.module(),
                    import.name()
                ));
            }
        }
        let mut linker = Linker::<LaneData>::new(&engine);
        define_imports(&mut linker).map_err(|e| format!("{name}: {e}"))?;
        Ok(Arc::new(WasmModule {
            name: name.to_string(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            engine,
            module,
            linker,
            pool: Mutex::new(Vec::new()),
            shared_bytes: Mutex::new(FxHashMap::default()),
            statics: Mutex::new(None),
            read_only: crate::rodata::read_only_ranges(wasm),
            local_sites: crate::local_memory::sites_by_kernel(wasm),
            loops: Arc::new(loops),
        }))
    }

    /// The module's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The export that runs kernel `kernel` in one lane.
    pub fn kernel_export(kernel: &str) -> String {
        format!("{KERNEL_EXPORT_PREFIX}{kernel}")
    }

    /// The loads and stores of kernel `kernel`'s code that index an array on its stack
    /// at a data-dependent offset: what a GPU keeps in local memory.
    pub fn local_memory_sites(&self, kernel: &str) -> &[crate::local_memory::LocalSite] {
        self.local_sites.get(kernel).map_or(&[], Vec::as_slice)
    }

    /// Does the module export kernel `kernel`?
    pub fn has_kernel(&self, kernel: &str) -> bool {
        let export = Self::kernel_export(kernel);
        self.module.exports().any(|e| e.name() == export)
    }

    /// A lane's instance ready to run `export` with `args`: a pooled one with its statics
    /// restored, or a new one.
    pub(crate) fn lane(
        &self,
        export: &str,
        args: &Arc<[u64]>,
        limits: LaneLimits,
        meter: Option<&Arc<Meter>>,
        threads: u32,
    ) -> Result<Box<WasmLane>, LaunchError> {
        let mut lane = self.take(limits, meter, threads)?;
        lane.store.data_mut().args = args.clone();
        if lane.func.is_none() || lane.export != export {
            let func = lane
                .instance
                .get_typed_func::<(), ()>(&lane.store, export)
                .map_err(|_| LaunchError::DeviceLost {
                    message: format!(
                        "{}: no kernel export `{export}` (is the kernel a `#[kernel]` fn of this crate?)",
                        self.name
                    ),
                })?;
            lane.func = Some(func);
            lane.export = export.to_string();
        }
        Ok(lane)
    }

    /// An instance for a new lane or call, under `limits`: a pooled one with its statics
    /// restored, or a new one; its per-use state cleared and its fuel set.
    fn take(
        &self,
        limits: LaneLimits,
        meter: Option<&Arc<Meter>>,
        threads: u32,
    ) -> Result<Box<WasmLane>, LaunchError> {
        let pooled = self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut lane = match pooled {
            Some(mut l) => {
                l.reset();
                l
            }
            None => self.instantiate(limits)?,
        };
        let data = lane.store.data_mut();
        data.limits = limits;
        data.panic = None;
        data.denied = None;
        data.last_site = None;
        data.hi = 0;
        data.meter = meter.cloned();
        data.threads = threads;
        data.over_budget = false;
        let fuel = data.grant();
        lane.store
            .set_fuel(fuel)
            .map_err(|e| self.lost(format!("fuel: {e}")))?;
        Ok(lane)
    }

    /// Runs host function `name` of the module (a `#[gpu::host]` export) in a lane of its
    /// own, its memory sized to its arguments ([`host_memory`]: a 1 GiB input fits);
    /// on `input` (the encoded arguments, `gpu::host_value`), with `fuel`
    /// instructions in all; returns its encoded result. It is sandboxed as a kernel is:
    /// it can reach no device state, no host and no other lane.
    /// With a `meter` (a check's: [`crate::meter::current`]), the call draws its fuel from
    /// the meter's budget and counts what it ran there.
    pub fn call_host(
        &self,
        name: &str,
        input: &[u8],
        fuel: u64,
        meter: Option<&Arc<Meter>>,
    ) -> Result<Vec<u8>, LanePanic> {
        let plain = |message: String| LanePanic {
            message,
            at: None,
            timed_out: false,
        };
        let timed_out = |message: String| LanePanic {
            message,
            at: None,
            timed_out: true,
        };
        let limits = LaneLimits {
            fuel,
            memory_bytes: host_memory(input.len()),
        };
        let export = format!("__gpu_host_{name}");
        let mut lane = self
            .take(limits, meter, 1)
            .map_err(|e| plain(e.to_string()))?;
        let alloc = lane
            .instance
            .get_typed_func::<u32, u32>(&lane.store, "__gpu_alloc")
            .map_err(|_| {
                plain(format!(
                    "{}: no `__gpu_alloc` export (not a kernel crate?)",
                    self.name
                ))
            })?;
        let func = lane
            .instance
            .get_typed_func::<(u32, u32), u64>(&lane.store, &export)
            .map_err(|_| {
                plain(format!(
                    "{}: no host function `{name}` (is it marked `#[gpu::host]`?)",
                    self.name
                ))
            })?;
        let result = (|| {
            let ptr = alloc
                .call(&mut lane.store, input.len() as u32)
                .map_err(|e| lane.failure(e))?;
            lane.memory
                .write(&mut lane.store, ptr as usize, input)
                .map_err(|e| LaneFailure::Trap(e.to_string(), String::new()))?;
            let out = crate::kernel_output::in_host_function(name, || {
                func.call(&mut lane.store, (ptr, input.len() as u32))
            })
            .map_err(|e| lane.failure(e))?;
            let left = lane.store.get_fuel().unwrap_or(0);
            if !lane.store.data_mut().charge(left) {
                return Err(lane.store.data().budget_failure(String::new()));
            }
            let (p, n) = ((out >> 32) as usize, (out & 0xffff_ffff) as usize);
            lane.memory
                .data(&lane.store)
                .get(p..p + n)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| {
                    LaneFailure::Trap("a result outside its memory".into(), String::new())
                })
        })();
        let in_loop = match result {
            Err(LaneFailure::Fuel(..) | LaneFailure::Budget(..)) => lane.code_loop(),
            _ => None,
        };
        match result {
            Ok(bytes) => {
                self.give_back(lane);
                Ok(bytes)
            }
            Err(LaneFailure::Panic(message, location)) => {
                // `file:line:column` -> `file:line`, as the checks quote a host panic.
                let at = location
                    .rsplit_once(':')
                    .map(|(file_line, _)| file_line.to_string())
                    .filter(|s| !s.is_empty());
                Err(LanePanic {
                    message,
                    at,
                    timed_out: false,
                })
            }
            Err(LaneFailure::Fuel(fuel, _)) => Err(timed_out(format!(
                "timed out: `{name}` ran {fuel} WebAssembly instructions without returning{}",
                in_loop.map_or(" (an endless loop?)".to_string(), |l| format!(", {l}"))
            ))),
            Err(LaneFailure::Budget(budget, _)) => Err(timed_out(format!(
                "timed out: `{name}` ran past the check's work budget ({budget} WebAssembly \
                 instructions for all its launches and host calls together, a count: the same \
                 on every machine; an endless loop?){}",
                in_loop.map_or(String::new(), |l| format!("; it was {l}"))
            ))),
            Err(LaneFailure::Trap(what, _)) => Err(plain(format!("`{name}` trapped: {what}"))),
        }
    }

    /// The static shared memory kernel `kernel` declares (its `shared_array!`s), from
    /// the module's `__gpu_shared_<kernel>` export.
    pub fn static_shared_bytes(&self, kernel: &str) -> Result<u32, String> {
        let missing = || {
            format!(
                "{}: no kernel `{kernel}` (is it a `#[kernel]` fn of this crate, with the \
                 course's name?)",
                self.name
            )
        };
        let cached = self.shared_bytes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&bytes) = cached.get(kernel) {
            return Ok(bytes);
        }
        drop(cached);
        let mut lane = self
            .take(LaneLimits::default(), None, 1)
            .map_err(|e| e.to_string())?;
        let f = lane
            .instance
            .get_typed_func::<(), u32>(&lane.store, &format!("__gpu_shared_{kernel}"))
            .map_err(|_| missing())?;
        let bytes = f.call(&mut lane.store, ()).map_err(|e| e.to_string())?;
        self.give_back(lane);
        self.shared_bytes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(kernel.to_string(), bytes);
        Ok(bytes)
    }

    /// Gives a finished lane's instance back to the pool.
    ///
    /// An instance whose memory grew (the lane allocated) is dropped instead: its
    /// allocator's state lives in the statics, which the next lane gets back as they were
    /// at the start, so the allocator would grow the memory again for every lane that
    /// reuses it, and a kernel allocating 64 KiB per lane ran out of its 16 MiB after a
    /// few hundred lanes. The grown memory (what the lane left in it) goes with it.
    pub(crate) fn give_back(&self, lane: Box<WasmLane>) {
        if lane.memory.size(&lane.store) != lane.initial_pages {
            return;
        }
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() < 1024 {
            pool.push(lane);
        }
    }

    fn lost(&self, message: String) -> LaunchError {
        LaunchError::DeviceLost {
            message: format!("{}: {message}", self.name),
        }
    }

    /// `bytes` as shared statics: the module's copy when it holds the same bytes.
    fn shared_statics(&self, bytes: &[u8]) -> Arc<[u8]> {
        let mut shared = self.statics.lock().unwrap_or_else(|e| e.into_inner());
        match &*shared {
            Some(s) if **s == *bytes => s.clone(),
            Some(_) => Arc::from(bytes),
            None => shared.insert(Arc::from(bytes)).clone(),
        }
    }

    fn instantiate(&self, limits: LaneLimits) -> Result<Box<WasmLane>, LaunchError> {
        let data = LaneData {
            args: Arc::from(Vec::new()),
            hi: 0,
            panic: None,
            denied: None,
            memory: None,
            limits,
            module: self.id,
            last_site: None,
            meter: None,
            threads: 1,
            granted: limits.fuel,
            over_budget: false,
        };
        let mut store = Store::new(&self.engine, data);
        store.limiter(|d| d as &mut dyn wasmi::ResourceLimiter);
        store
            .set_fuel(limits.fuel)
            .map_err(|e| self.lost(format!("fuel: {e}")))?;
        let instance = self
            .linker
            .instantiate_and_start(&mut store, &self.module)
            .map_err(|e| match store.data().denied {
                Some(asked) => self.lost(format!(
                    "a lane needs {} KiB of memory to start (its statics and stack), more than \
                     the {} KiB a lane may have: a large static array?",
                    asked / 1024,
                    limits.memory_bytes / 1024
                )),
                None => self.lost(format!("could not instantiate a lane: {e}")),
            })?;
        let memory = instance
            .get_memory(&store, "memory")
            .ok_or_else(|| self.lost("the module exports no memory".into()))?;
        store.data_mut().memory = Some(memory);
        // The lane's start-up (its panic hook) runs once, before the statics are taken as
        // the state every reuse restores: a pooled lane starts where a new one would be
        // after `__gpu_lane_init`, without paying for it again.
        if let Ok(init) = instance.get_typed_func::<(), ()>(&store, "__gpu_lane_init") {
            init.call(&mut store, ())
                .map_err(|e| self.lost(format!("the lane's start-up failed: {e}")))?;
            store
                .set_fuel(limits.fuel)
                .map_err(|e| self.lost(format!("fuel: {e}")))?;
        }
        // The statics lie between the data's start (`__global_base`, which the course's
        // builder exports; the stack comes first, below it) and `__heap_base`; without
        // those globals, all of the initial memory.
        let global = |name: &str| {
            instance
                .get_global(&store, name)
                .and_then(|g| g.get(&store).i32())
                .map(|v| v as u32 as usize)
        };
        let size = memory.data(&store).len();
        let data_start = global("__global_base")
            .or_else(|| global("__stack_pointer"))
            .unwrap_or(0)
            .min(size);
        let data_end = global("__heap_base")
            .unwrap_or(size)
            .clamp(data_start, size);
        let statics = self.shared_statics(&memory.data(&store)[data_start..data_end]);
        let restore = crate::rodata::writable(data_start..data_end, &self.read_only);
        let stack_pointer = instance
            .get_global(&store, "__stack_pointer")
            .map(|g| (g, g.get(&store)));
        let initial_pages = memory.size(&store);
        let loop_global = instance.get_global(&store, LOOP_GLOBAL);
        Ok(Box::new(WasmLane {
            loop_global,
            out_of_fuel: false,
            loops: self.loops.clone(),
            store,
            instance,
            memory,
            statics,
            initial_pages,
            data_start,
            restore,
            stack_pointer,
            func: None,
            export: String::new(),
        }))
    }
}

impl WasmLane {
    /// Restores the statics and the stack pointer as a new instance has them.
    fn reset(&mut self) {
        let memory = self.memory.data_mut(&mut self.store);
        for r in &self.restore {
            let from = r.start - self.data_start..r.end - self.data_start;
            if let (Some(mem), Some(bytes)) = (memory.get_mut(r.clone()), self.statics.get(from)) {
                mem.copy_from_slice(bytes);
            }
        }
        if let Some((g, v)) = &self.stack_pointer {
            let _ = g.set(&mut self.store, v.clone());
        }
        if let Some(g) = self.loop_global {
            let _ = g.set(&mut self.store, wasmi::Val::I32(0));
        }
        self.out_of_fuel = false;
    }

    /// The loop of its code the lane is in, if its module's loops are known
    /// ([`crate::loops`]): the innermost loop it last started an iteration of. A lane
    /// stopped at a device call (parked, or its budget checked there) has left any loop
    /// that makes none, so such a loop is not where it is.
    pub(crate) fn code_loop(&self) -> Option<CodeLoop> {
        let id = self.loop_global?.get(&self.store).i32()?;
        let l = self.loops.get(id)?;
        (self.out_of_fuel || l.device_calls).then(|| l.clone())
    }

    /// Runs the lane's kernel to its end. Called on the lane's coroutine: device calls
    /// suspend it.
    pub(crate) fn run(&mut self) -> Result<(), LaneFailure> {
        let func = self
            .func
            .expect("invariant: a lane is prepared before it runs");
        match func.call(&mut self.store, ()) {
            Ok(()) => {
                let left = self.store.get_fuel().unwrap_or(0);
                let data = self.store.data_mut();
                if data.charge(left) {
                    Ok(())
                } else {
                    let site = data.last_site.map(fmt_site).unwrap_or_default();
                    Err(data.budget_failure(site))
                }
            }
            Err(e) => Err(self.failure(e)),
        }
    }

    /// What a trap of this lane means, with what its store recorded.
    fn failure(&mut self, e: wasmi::Error) -> LaneFailure {
        self.out_of_fuel = e.as_trap_code() == Some(TrapCode::OutOfFuel);
        let data = self.store.data_mut();
        let site = data.last_site.map(fmt_site).unwrap_or_default();
        if let Some((message, location)) = data.panic.take() {
            return LaneFailure::Panic(message, location);
        }
        if data.over_budget {
            return data.budget_failure(site);
        }
        let what = match e.as_trap_code() {
            Some(TrapCode::OutOfFuel) => {
                // A grant cut short by the meter ran out: the budget, not the lane's fuel.
                let cut = data.granted < data.limits.fuel;
                if !data.charge(0) || cut {
                    return data.budget_failure(site);
                }
                return LaneFailure::Fuel(data.limits.fuel, site);
            }
            Some(TrapCode::UnreachableCodeReached) if data.denied.is_some() => format!(
                "an allocation failed: the lane's memory would have grown to {} bytes, more than \
                 its {} MiB",
                data.denied.unwrap_or_default(),
                data.limits.memory_bytes >> 20
            ),
            Some(TrapCode::UnreachableCodeReached) => {
                "it aborted (`std::process::exit`, `abort` or an allocation failure)".to_string()
            }
            // Safe Rust checks every index, so the only access outside the lane's own
            // memory is the stack running past its start.
            Some(TrapCode::MemoryOutOfBounds) | Some(TrapCode::StackOverflow) => {
                "stack overflow (deep recursion, or a large local array: the lane has a 64 KiB stack)"
                    .to_string()
            }
            Some(TrapCode::IntegerDivisionByZero) => "integer division by zero".to_string(),
            Some(TrapCode::IntegerOverflow) => "integer overflow".to_string(),
            Some(code) => format!("{code}"),
            None => format!("{e}"),
        };
        LaneFailure::Trap(what, site)
    }
}

/// A device call's location as the lane passes it: module, and the address of the
/// call's `Location` in the lane's memory (the same in every instance of the module).
type SiteKey = (u64, u32);

thread_local! {
    /// Interned sites by (module, `Location` address): a device call's location is looked
    /// up here before the lane is asked for its file, line and column.
    static SITES: RefCell<FxHashMap<SiteKey, Site>> = RefCell::new(FxHashMap::default());
    /// The sites of recent device calls: a direct-mapped cache in front of `SITES`, shared
    /// by every lane on this thread (the lanes of a warp call from the same places, so a
    /// loop's calls hit it, in lines the cache already holds).
    static RECENT: RefCell<[(SiteKey, Option<Site>); SITE_CACHE]> =
        const { RefCell::new([((0, 0), None); SITE_CACHE]) };
}

fn memory_of(caller: &Caller<'_, LaneData>) -> Result<Memory, wasmi::Error> {
    caller
        .data()
        .memory
        .ok_or_else(|| wasmi::Error::new("the lane has no memory"))
}

/// The memory a host function's lane may grow to for arguments of `input` bytes: a
/// kernel lane's [`LaneLimits::memory_bytes`] plus twice the arguments (they are copied in,
/// and a function may keep one copy of its own, as a sequential loop over a `Vec` does),
/// at most what a 32-bit WebAssembly memory holds. The progression's 9.1 at 16 MiB or
/// 1 GiB runs in its sandbox like any other size.
pub fn host_memory(input: usize) -> usize {
    const WASM32_MAX: usize = 4 << 30;
    LaneLimits::default()
        .memory_bytes
        .saturating_add(input.saturating_mul(2))
        .min(WASM32_MAX - (64 << 10))
}

/// The fuel one print costs besides its bytes: the host's work of a call.
const PRINT_CALL_FUEL: u64 = 100;

/// Charges a print of `len` bytes to the lane's fuel ([`PRINT_CALL_FUEL`] and one unit a
/// byte, whether the text is kept or not), so that printing is bounded by a count, as
/// instructions are, and not by a wall clock: a kernel that prints a 4 KiB line a
/// million times runs out of fuel, or of the check's work budget, at the same print on
/// every machine. A lane left with less fuel than the print costs stops at its next
/// instruction.
fn charge_printing(caller: &mut Caller<'_, LaneData>, len: u32) -> Result<(), wasmi::Error> {
    let left = caller.get_fuel()?;
    caller.set_fuel(left.saturating_sub(PRINT_CALL_FUEL + u64::from(len)))
}

/// The most bytes of one panic message, file name or printed line read from a lane: a
/// kernel's panic message goes into every report of its exercise, and a megabyte of it
/// would be a megabyte of report.
const TEXT_LIMIT: u32 = 4096;

fn read_str(caller: &Caller<'_, LaneData>, ptr: u32, len: u32) -> Result<String, wasmi::Error> {
    let mem = memory_of(caller)?;
    let bytes = mem
        .data(caller)
        .get(ptr as usize..(ptr as usize).saturating_add(len as usize))
        .ok_or_else(|| wasmi::Error::new("a string outside the lane's memory"))?;
    Ok(crate::text::printable(&String::from_utf8_lossy(bytes)))
}

/// Calls the lane's export `name` (one of `gpu`'s `__gpu_location_*`) on `loc`.
fn location_part(
    caller: &mut Caller<'_, LaneData>,
    name: &str,
    loc: u32,
) -> Result<(u32, u32), wasmi::Error> {
    let f = match caller.get_export(name) {
        Some(Extern::Func(f)) => f.typed::<u32, u64>(&*caller)?,
        _ => {
            return Err(wasmi::Error::new(format!(
                "the lane has no `{name}` export"
            )));
        }
    };
    let v = f.call(&mut *caller, loc)?;
    Ok(((v >> 32) as u32, v as u32))
}

/// The site of the device call whose `Location` lies at `loc` in the lane's memory.
#[inline]
fn site_of(caller: &mut Caller<'_, LaneData>, loc: u32) -> Result<Site, wasmi::Error> {
    let key = (caller.data().module, loc);
    let slot = (loc >> 2 ^ (key.0 as u32) << 7) as usize % SITE_CACHE;
    if let Some(s) = RECENT.with(|r| match r.borrow()[slot] {
        (k, s) if k == key => s,
        _ => None,
    }) {
        return Ok(s);
    }
    let s = match SITES.with(|m| m.borrow().get(&key).copied()) {
        Some(s) => s,
        None => {
            let (file, len) = location_part(caller, "__gpu_location_file", loc)?;
            let (line, column) = location_part(caller, "__gpu_location_line", loc)?;
            let s = intern(&read_str(caller, file, len)?, line, column);
            SITES.with(|m| m.borrow_mut().insert(key, s));
            s
        }
    };
    RECENT.with(|r| r.borrow_mut()[slot] = (key, Some(s)));
    Ok(s)
}

/// The special registers a lane reads with `gpu.specials` when its kernel starts: `threadIdx` (0-2),
/// `blockIdx` (3-5), `blockDim` (6-8), `gridDim` (9-11), `%laneid` (12) and the launch's
/// shared bytes (13).
fn special(i: u32) -> u32 {
    let d = (i % 3) as usize;
    match i {
        0..=2 => lane::thread_idx()[d],
        3..=5 => lane::block_idx()[d],
        6..=8 => lane::block_dim()[d],
        9..=11 => lane::grid_dim()[d],
        12 => lane::lane_id(),
        13 => lane::shared_bytes(),
        _ => 0,
    }
}

/// The trap of a device call made outside a launch (by a sandboxed host function).
fn outside() -> wasmi::Error {
    wasmi::Error::new("a device function was called outside a kernel launch")
}

fn define_imports(linker: &mut Linker<LaneData>) -> Result<(), wasmi::Error> {
    linker.func_wrap(
        "gpu",
        "specials",
        move |mut caller: Caller<'_, LaneData>, out: u32, n: u32| -> Result<(), wasmi::Error> {
            if !lane::in_launch() {
                return Err(outside());
            }
            let n = n.min(64) as usize;
            let mut bytes = [0u8; 4 * 64];
            for (i, word) in bytes.chunks_exact_mut(4).take(n).enumerate() {
                word.copy_from_slice(&special(i as u32).to_le_bytes());
            }
            memory_of(&caller)?
                .write(&mut caller, out as usize, &bytes[..4 * n])
                .map_err(|_| {
                    wasmi::Error::new("special registers written outside the lane's memory")
                })
        },
    )?;
    linker.func_wrap(
        "gpu",
        "arg",
        |caller: Caller<'_, LaneData>, i: u32| -> Result<u64, wasmi::Error> {
            caller.data().args.get(i as usize).copied().ok_or_else(|| {
                wasmi::Error::new(format!(
                    "the kernel read argument word {i}, but the launch passed {}",
                    caller.data().args.len()
                ))
            })
        },
    )?;
    linker.func_wrap("gpu", "result_hi", |caller: Caller<'_, LaneData>| -> u64 {
        caller.data().hi
    })?;
    /// Parks the lane on the operation of words `w` at the call whose `Location` is at
    /// `loc`; returns the low 64 bits of its result (the high ones wait in `hi`).
    #[inline(always)]
    fn call(
        caller: &mut Caller<'_, LaneData>,
        loc: u32,
        w: &wire::Words,
    ) -> Result<u64, wasmi::Error> {
        let site = site_of(caller, loc)?;
        caller.data_mut().last_site = Some(site);
        // Only a metered lane (a check's) reads its fuel on every device call.
        if caller.data().meter.is_some() {
            let left = caller.get_fuel()?;
            if !caller.data_mut().charge(left) {
                return Err(wasmi::Error::new("the check's work budget ran out"));
            }
        }
        let r = lane::try_park_at(site, w).ok_or_else(outside)?;
        let data = caller.data_mut();
        data.hi = (r >> 64) as u64;
        let fuel = data.grant();
        caller.set_fuel(fuel)?;
        Ok(r as u64)
    }
    linker.func_wrap(
        "gpu",
        "call",
        |mut caller: Caller<'_, LaneData>,
         loc: u32,
         w0: u64,
         w1: u64,
         w2: u64,
         w3: u64,
         w4: u64,
         w5: u64|
         -> Result<u64, wasmi::Error> { call(&mut caller, loc, &[w0, w1, w2, w3, w4, w5]) },
    )?;
    linker.func_wrap(
        "gpu",
        "call4",
        |mut caller: Caller<'_, LaneData>,
         loc: u32,
         w0: u64,
         w1: u64,
         w2: u64,
         w3: u64|
         -> Result<u64, wasmi::Error> { call(&mut caller, loc, &[w0, w1, w2, w3, 0, 0]) },
    )?;
    linker.func_wrap(
        "gpu",
        "panic",
        |mut caller: Caller<'_, LaneData>,
         msg: u32,
         msg_len: u32,
         file: u32,
         file_len: u32,
         line: u32,
         column: u32|
         -> Result<(), wasmi::Error> {
            let mut message = read_str(&caller, msg, msg_len.min(TEXT_LIMIT))?;
            if msg_len > TEXT_LIMIT {
                message.push_str(&format!(
                    " … (the message goes on for {} more bytes)",
                    msg_len - TEXT_LIMIT
                ));
            }
            let location = if file_len > 0 {
                let file = read_str(&caller, file, file_len.min(TEXT_LIMIT))?;
                format!("{file}:{line}:{column}")
            } else {
                String::new()
            };
            caller.data_mut().panic = Some((message, location));
            Ok(())
        },
    )?;
    linker.func_wrap(
        "gpu",
        "print",
        |mut caller: Caller<'_, LaneData>, ptr: u32, len: u32| -> Result<(), wasmi::Error> {
            charge_printing(&mut caller, len)?;
            if lane::printing_is_full() {
                return Ok(());
            }
            let text = read_str(&caller, ptr, len.min(TEXT_LIMIT))?;
            lane::print(&text);
            Ok(())
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{LaneLimits, host_memory};

    #[test]
    fn a_host_function_s_memory_grows_with_its_arguments() {
        let lane = LaneLimits::default().memory_bytes;
        assert_eq!(host_memory(0), lane);
        assert_eq!(host_memory(16 << 20), lane + (32 << 20));
        assert!(host_memory(1 << 30) > 2 << 30);
        assert!(host_memory(usize::MAX) < 4 << 30, "within a 32-bit memory");
    }
}
