//! What a launch tells: counters and findings when it completes, an error when it cannot.
//!
//! The wording follows NVIDIA compute-sanitizer where it has the check, so that a student
//! who later runs the real tool recognises it. `Display` is written for students: where,
//! what, and what to look at next.

use crate::counters::{Counters, LineCounters};
use crate::loops::CodeLoop;
use serde::Serialize;
use std::fmt;
use std::time::Duration;

/// A thread of the grid: its block and thread index, as `(x,y,z)` triples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ThreadRef {
    /// `blockIdx`
    pub block: [u32; 3],
    /// `threadIdx`
    pub thread: [u32; 3],
}

impl fmt::Display for ThreadRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [tx, ty, tz] = self.thread;
        let [bx, by, bz] = self.block;
        write!(f, "thread ({tx},{ty},{tz}) in block ({bx},{by},{bz})")
    }
}

/// A kernel source location, `file:line:column`.
pub type SiteName = String;

/// A problem found in a launch that did complete: the data may be wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum Finding {
    /// racecheck: two threads of different warps touched one shared-memory word with no
    /// barrier between them, at least one of them writing (or one a plain access, the
    /// other an atomic). Reported once per pair of sites, with how often it happened.
    SharedHazard {
        /// `"Write-after-Write"`, `"Read-after-Write"` or `"Write-after-Read"`.
        kind: &'static str,
        /// The earlier access: site and thread.
        first: (SiteName, ThreadRef),
        /// The later access: site and thread.
        second: (SiteName, ThreadRef),
        /// Byte offset of the word in shared memory.
        offset: u64,
        /// How many times this pair of sites conflicted.
        count: u64,
    },
    /// Global-memory hazard (this project's extension; compute-sanitizer does not check
    /// global memory for races): a plain load or store of an address another warp stored
    /// to earlier in the same launch, with no ordering between them.
    GlobalHazard {
        /// `"Write-after-Write"` or `"Read-after-Write"`.
        kind: &'static str,
        /// The earlier store: site and thread.
        first: (SiteName, ThreadRef),
        /// The later access: site and thread.
        second: (SiteName, ThreadRef),
        /// Device address.
        address: u64,
        /// How many times this pair of sites conflicted.
        count: u64,
    },
    /// Several lanes of one warp stored to the same address in the same step: one wins,
    /// the others' updates are lost. Reported once per site.
    ConflictingStores {
        /// Global or shared.
        space: &'static str,
        /// Site of the store.
        site: SiteName,
        /// The first such step: the lanes' block/warp and how many lanes stored there.
        example: String,
        /// Steps in which it happened.
        steps: u64,
        /// Store lanes overwritten in total.
        lost: u64,
    },
    /// initcheck: a read of shared memory that no thread of the block has written.
    UninitializedShared {
        /// Site of the read.
        site: SiteName,
        /// The first thread that read it.
        thread: ThreadRef,
        /// Byte offset in shared memory.
        offset: u64,
        /// How many lanes read uninitialized memory at this site.
        count: u64,
    },
    /// A shuffle read from a lane that did not take part: the value is undefined on a GPU
    /// (the emulator returns the reader's own value).
    ShuffleFromInactiveLane {
        /// Site of the shuffle.
        site: SiteName,
        /// The reading thread.
        thread: ThreadRef,
        /// The lane it read from.
        source_lane: u32,
    },
}

impl Finding {
    /// Is this a data race (racecheck, or the global-memory extension)?
    pub fn is_race(&self) -> bool {
        matches!(
            self,
            Finding::SharedHazard { .. }
                | Finding::GlobalHazard { .. }
                | Finding::ConflictingStores { .. }
        )
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::SharedHazard {
                kind,
                first,
                second,
                offset,
                count,
            } => write!(
                f,
                "racecheck: {kind} hazard on __shared__ memory at byte offset {offset}: \
                 {} by {} and {} by {}, with no __syncthreads() between them ({count}x)",
                first.0, first.1, second.0, second.1
            ),
            Finding::GlobalHazard {
                kind,
                first,
                second,
                address,
                count,
            } => write!(
                f,
                "global race (simt extension): {kind} hazard on __global__ address {address:#x}: \
                 stored at {} by {}, then touched at {} by {}, without atomics ({count}x)",
                first.0, first.1, second.0, second.1
            ),
            Finding::ConflictingStores {
                space,
                site,
                example,
                steps,
                lost,
            } => write!(
                f,
                "{space} write-write conflict at {site}: {example}; in {steps} step(s) {lost} store(s) were overwritten \
                 by another lane of the same warp (lost updates)"
            ),
            Finding::UninitializedShared {
                site,
                thread,
                offset,
                count,
            } => write!(
                f,
                "initcheck: Uninitialized __shared__ memory read at {site} by {thread}: byte offset {offset} \
                 was never written by this block ({count} lane(s)); shared memory is not zero-filled"
            ),
            Finding::ShuffleFromInactiveLane {
                site,
                thread,
                source_lane,
            } => write!(
                f,
                "shuffle at {site} by {thread} read lane {source_lane}, which did not take part: undefined on a GPU"
            ),
        }
    }
}

/// A completed launch: what happened and what was found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LaunchReport {
    /// Counters of the whole launch.
    pub counters: Counters,
    /// Counters per kernel source line, sorted by file and line.
    pub lines: Vec<LineCounters>,
    /// Hazards and other findings, in the order first seen.
    pub findings: Vec<Finding>,
    /// Blocks run.
    pub blocks: u64,
    /// Threads run.
    pub threads: u64,
    /// What the kernel printed (`gpu::println!`, CUDA's device `printf`), one entry per
    /// call, labelled with its thread. For the student's eyes only: no check reads it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<String>,
    /// Where the data went, when [`Config::record_flow`](crate::Config::record_flow) asked
    /// for it ([`crate::flow`]).
    #[serde(skip)]
    pub flow: Option<std::sync::Arc<crate::flow::Flow>>,
}

impl LaunchReport {
    /// Does any finding report a data race?
    pub fn has_race(&self) -> bool {
        self.findings.iter().any(Finding::is_race)
    }

    /// The counters of source line `line` of the file whose name ends with `file_suffix`
    /// (`"tests/counters.rs"`), or `None` if no counted operation ran there.
    pub fn line(&self, file_suffix: &str, line: u32) -> Option<&Counters> {
        self.lines
            .iter()
            .find(|l| l.line == line && l.file.ends_with(file_suffix))
            .map(|l| &l.counters)
    }
}

/// Where a group of threads waits, for barrier and deadlock reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitSite {
    /// What they wait in (`__syncthreads`, `__shfl_sync`, ...) or spin on (`__global__
    /// read of size 4`), or "exited".
    pub what: String,
    /// The site, or empty for "exited".
    pub site: SiteName,
    /// The threads, as compact ranges of linear thread indices in the block
    /// (`threadIdx.x + threadIdx.y * blockDim.x + ...`): "0-31, 40".
    pub threads: String,
    /// They are not blocked but spin: they keep repeating the same operation here,
    /// which never sees a change (a deadlock report).
    pub spinning: bool,
    /// The loop of their code they were in, for spinning threads and those a step budget
    /// stopped (sandboxed lanes only: [`crate::loops`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_loop: Option<CodeLoop>,
}

impl fmt::Display for WaitSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let one = !self.threads.contains([',', '-']);
        let who = if one { "thread" } else { "threads" };
        let s = if one { "s" } else { "" };
        if self.site.is_empty() {
            write!(f, "{who} {} {}", self.threads, self.what)
        } else if self.spinning {
            write!(
                f,
                "{who} {} spin{s}, repeating {} {} at {}",
                self.threads,
                article(&self.what),
                self.what,
                self.site
            )?;
            self.write_loop(f)
        } else {
            write!(
                f,
                "{who} {} wait{s} in {} at {}",
                self.threads, self.what, self.site
            )?;
            self.write_loop(f)
        }
    }
}

impl WaitSite {
    fn write_loop(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.in_loop {
            Some(l) => write!(f, ", {l}"),
            None => Ok(()),
        }
    }
}

/// Why a launch did not complete.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub enum LaunchError {
    /// The launch configuration is invalid; the message uses CUDA's wording.
    InvalidConfig {
        /// CUDA's error name, e.g. `cudaErrorInvalidConfiguration`.
        cuda_error: &'static str,
        /// What is wrong and the limit.
        message: String,
    },
    /// memcheck: an access outside the handle, or misaligned for its size.
    MemoryFault {
        /// `"out of bounds"` or `"misaligned"`.
        kind: &'static str,
        /// e.g. `__global__ read of size 4`.
        access: String,
        /// The offending thread.
        thread: ThreadRef,
        /// Kernel source location.
        site: SiteName,
        /// The element index the kernel used.
        index: u64,
        /// The handle's length in elements.
        len: u64,
        /// Device address (global) or byte offset (shared).
        address: u64,
    },
    /// A lane panicked (a `todo!()`, an `unwrap` on `None`, an overflow in debug builds).
    LanePanic {
        /// The panicking thread.
        thread: ThreadRef,
        /// The panic message.
        message: String,
        /// Where it panicked.
        site: SiteName,
    },
    /// A sandboxed lane ran its whole fuel (a count of WebAssembly instructions,
    /// [`LaneLimits::fuel`](crate::wasm::LaneLimits::fuel) of
    /// [`Config::lane_limits`](crate::Config::lane_limits)) without reaching a device call:
    /// a loop that never touches memory (`while i < n {}` with the increment forgotten).
    /// The count is the same on every machine and under any load, so the verdict is too.
    FuelExhausted {
        /// The thread.
        thread: ThreadRef,
        /// The fuel it ran through.
        fuel: u64,
        /// The last device call it made (empty if none).
        site: SiteName,
        /// The loop that call was in, as the emulator learned it from the lane's jumps
        /// back ([`LoopPlace`]), if the lane had looped.
        in_loop: Option<LoopPlace>,
        /// The loop of the code the lane was running when it stopped, when its module's
        /// loops are known ([`crate::loops`]): where it is, not where it last called.
        at: Option<Box<CodeLoop>>,
    },
    /// The check's work budget ([`WorkBudget`](crate::meter::WorkBudget) of
    /// [`Config::meter`](crate::Config::meter)) ran out: its launches and host calls
    /// together ran more WebAssembly instructions, or took more warp steps, than it allows.
    /// A count, so the verdict is the same on every machine and under any load.
    WorkBudgetExceeded {
        /// Which kind of work.
        work: crate::meter::Work,
        /// The budget of that kind.
        budget: u64,
        /// The thread that was running when it ran out (for warp steps: the first lane of
        /// the step that went past it).
        thread: Option<ThreadRef>,
        /// That thread's last device call (empty if none).
        site: SiteName,
        /// The loop that call was in, if the lane had looped ([`LoopPlace`]).
        in_loop: Option<LoopPlace>,
        /// The loop of the code that thread was running, when known ([`crate::loops`]).
        at: Option<Box<CodeLoop>>,
    },
    /// A sandboxed lane trapped: a stack overflow, an allocation past the lane's memory, an
    /// integer division by zero, ... The other lanes, the launch's memory and the process
    /// are unharmed.
    LaneTrap {
        /// The thread.
        thread: ThreadRef,
        /// What happened, in words.
        what: String,
        /// The last device call it made (empty if none).
        site: SiteName,
    },
    /// synccheck: a `__syncthreads()` not reached by every thread of the block, or reached
    /// at different sites.
    BarrierDivergence {
        /// The block.
        block: [u32; 3],
        /// Where each group of threads is.
        waits: Vec<WaitSite>,
    },
    /// synccheck: a warp collective whose mask names lanes that cannot reach it
    /// (exited, at another collective or barrier), or a lane outside its own mask.
    WarpDivergence {
        /// The collective.
        what: String,
        /// Its site.
        site: SiteName,
        /// The first lane in it.
        thread: ThreadRef,
        /// The mask the code passed.
        mask: u32,
        /// What is wrong.
        message: String,
    },
    /// Nothing in a block can make progress, and it is not a barrier or collective
    /// divergence: threads spin-wait (see `Config::spin_steps`) for a change that no
    /// thread still able to run will make, while the others wait at a barrier or have
    /// exited.
    Deadlock {
        /// The block.
        block: [u32; 3],
        /// Where each group of threads waits.
        waits: Vec<WaitSite>,
    },
    /// The launch took more warp steps than its budget: most likely an infinite loop.
    StepBudgetExceeded {
        /// The budget.
        budget: u64,
        /// Where the running lanes were.
        waits: Vec<WaitSite>,
        /// The block being run.
        block: [u32; 3],
    },
    /// The launch ran past its wall-clock limit: a lane spins without touching memory.
    TimedOut {
        /// The limit.
        after: Duration,
        /// The last site a lane was seen at, and which thread.
        last_seen: Option<(SiteName, ThreadRef)>,
    },
    /// The device cannot be used: its memory was lost with a launch that timed out, or
    /// (on a GPU) an earlier kernel fault left its CUDA context unusable.
    DeviceLost {
        /// Why.
        message: String,
    },
    /// A CUDA driver call failed on a real GPU (`cuda` backend). Faults inside a kernel
    /// (an illegal address, a trap from a Rust panic) surface here, at the call that waits
    /// for the kernel; the GPU cannot say which thread or line: the emulator can.
    Driver {
        /// The driver API call that reported it, e.g. `cuLaunchKernel`.
        call: &'static str,
        /// CUDA's name for the error, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        code: String,
        /// What it means and what to try next.
        message: String,
    },
    /// No CUDA device can be used here: no NVIDIA driver (`libcuda.so.1`), `cuInit`
    /// failed, or no GPU with that ordinal.
    NoDevice {
        /// What is missing and what to do instead.
        message: String,
    },
    /// The kernel crate could not be built for the sandbox: it does not compile (the
    /// message holds the compiler's errors), or it uses what the sandbox refuses.
    Build {
        /// Why, with the compiler's output.
        message: String,
    },
}

impl LaunchError {
    /// A short name of the kind of failure, for tables.
    pub fn kind(&self) -> &'static str {
        match self {
            LaunchError::InvalidConfig { .. } => "invalid launch configuration",
            LaunchError::MemoryFault { .. } => "out of bounds",
            LaunchError::LanePanic { .. } => "panicked",
            LaunchError::FuelExhausted { .. } => "timed out",
            LaunchError::WorkBudgetExceeded { .. } => "timed out",
            LaunchError::LaneTrap { .. } => "trapped",
            LaunchError::BarrierDivergence { .. } => "barrier error",
            LaunchError::WarpDivergence { .. } => "warp collective error",
            LaunchError::Deadlock { waits, .. } if waits.iter().any(|w| w.spinning) => "livelock",
            LaunchError::Deadlock { .. } => "deadlock",
            LaunchError::StepBudgetExceeded { .. } => "timed out",
            LaunchError::TimedOut { .. } => "timed out",
            LaunchError::DeviceLost { .. } => "device lost",
            LaunchError::Driver { .. } => "CUDA error",
            LaunchError::NoDevice { .. } => "no CUDA device",
            LaunchError::Build { .. } => "build error",
        }
    }
}

fn list(f: &mut fmt::Formatter<'_>, waits: &[WaitSite]) -> fmt::Result {
    for w in waits {
        write!(f, "\n    {w}")?;
    }
    Ok(())
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::InvalidConfig {
                cuda_error,
                message,
            } => {
                write!(f, "invalid launch ({cuda_error}): {message}")
            }
            LaunchError::MemoryFault {
                kind,
                access,
                thread,
                site,
                index,
                len,
                address,
            } => write!(
                f,
                "memcheck: Invalid {access} at {site} by {thread}: index {index} is {kind} \
                 (the buffer has {len} elements; address {address:#x})"
            ),
            LaunchError::LanePanic {
                thread,
                message,
                site,
            } => {
                write!(f, "{thread} panicked at {site}: {message}")
            }
            LaunchError::FuelExhausted {
                thread,
                fuel,
                site,
                in_loop,
                at,
            } => {
                write!(
                    f,
                    "timed out: {thread} ran {fuel} WebAssembly instructions without reaching a \
                     device call"
                )?;
                match at {
                    Some(at) => write!(f, ", {at}")?,
                    None => write!(f, " (a loop that never touches memory?)")?,
                }
                if !site.is_empty() {
                    write!(f, "; its last device call was at {site}")?;
                }
                if let (Some(l), None) = (in_loop, at) {
                    write!(f, ", {l}")?;
                }
                Ok(())
            }
            LaunchError::WorkBudgetExceeded {
                work,
                budget,
                thread,
                site,
                in_loop,
                at,
            } => {
                let what = match work {
                    crate::meter::Work::Instructions => "WebAssembly instructions",
                    crate::meter::Work::WarpSteps => "warp steps",
                };
                write!(
                    f,
                    "timed out: the check's launches and host calls ran more than {budget} {what} \
                     in all (its work budget, a count: the same on every machine; a loop that \
                     runs far longer than the exercise needs?)"
                )?;
                if let Some(t) = thread {
                    write!(f, "; {t} was running")?;
                }
                match (at, site.is_empty()) {
                    (Some(at), true) => write!(f, " {at}")?,
                    (Some(at), false) => write!(f, " {at}; its last device call was at {site}")?,
                    (None, false) => write!(f, ", its last device call at {site}")?,
                    (None, true) => {}
                }
                if let (Some(l), None) = (in_loop, at) {
                    write!(f, ", {l}")?;
                }
                Ok(())
            }
            LaunchError::LaneTrap { thread, what, site } => {
                write!(f, "{thread} trapped: {what}")?;
                if !site.is_empty() {
                    write!(f, "; its last device call was at {site}")?;
                }
                Ok(())
            }
            LaunchError::BarrierDivergence { block, waits } => {
                let [x, y, z] = block;
                write!(
                    f,
                    "synccheck: Barrier error detected in block ({x},{y},{z}): __syncthreads() must be reached \
                     by every thread of the block, at the same place:"
                )?;
                list(f, waits)
            }
            LaunchError::WarpDivergence {
                what,
                site,
                thread,
                mask,
                message,
            } => write!(
                f,
                "synccheck: {what} at {site} ({thread}, mask {mask:#010x}): {message}"
            ),
            LaunchError::Deadlock { block, waits } if waits.iter().any(|w| w.spinning) => {
                let [x, y, z] = block;
                write!(
                    f,
                    "livelock in block ({x},{y},{z}): threads spin forever, each repeating an operation \
                     that sees no change, and no thread still running will change it (a CAS retried with \
                     the value it expected, not the one it found, fails forever; blocks run one after \
                     another: a block cannot wait for a later one, nor a thread for one held at a barrier):"
                )?;
                list(f, waits)
            }
            LaunchError::Deadlock { block, waits } => {
                let [x, y, z] = block;
                write!(
                    f,
                    "deadlock in block ({x},{y},{z}): no thread can make progress; threads in a spin loop keep \
                     re-reading memory that no thread still running will change (blocks run one after another: \
                     a block cannot wait for a later one, nor a thread for one held at a barrier):"
                )?;
                list(f, waits)
            }
            LaunchError::StepBudgetExceeded {
                budget,
                waits,
                block,
            } => {
                let [x, y, z] = block;
                write!(
                    f,
                    "timed out: the launch took more than {budget} warp steps (in block ({x},{y},{z})); \
                     this might be caused by an infinite loop. Lanes were at:"
                )?;
                list(f, waits)
            }
            LaunchError::TimedOut { after, last_seen } => {
                write!(
                    f,
                    "timed out after {:.1} s of wall-clock time (the emulator's last-resort watchdog): the \
                     launch ran too long, or a lane spins in a loop that never touches memory",
                    after.as_secs_f64()
                )?;
                if let Some((site, t)) = last_seen {
                    write!(f, "; last seen at {site} ({t})")?;
                }
                Ok(())
            }
            LaunchError::DeviceLost { message } => write!(f, "device lost: {message}"),
            LaunchError::Driver {
                call,
                code,
                message,
            } => write!(f, "CUDA error {code} in {call}: {message}"),
            LaunchError::NoDevice { message } => write!(f, "no CUDA device: {message}"),
            LaunchError::Build { message } => write!(
                f,
                "the kernels could not be built for the emulator: {message}"
            ),
        }
    }
}

impl std::error::Error for LaunchError {}

/// Where a lane was in the kernel's loops when a limit stopped it: the innermost loop the
/// emulator learned from the lane's jumps back (the emulator sees device calls only, so a
/// loop is known by the lines of the device calls in it), and the lane's iteration of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LoopPlace {
    /// The file of the loop's device calls.
    pub file: String,
    /// The line of its first device call (where each iteration jumps back to).
    pub first_line: u32,
    /// The line of the last device call seen in it.
    pub last_line: u32,
    /// The lane's iteration of it (1 for the first time round).
    pub iteration: u32,
}

impl fmt::Display for LoopPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines = if self.first_line == self.last_line {
            format!("line {}", self.first_line)
        } else {
            format!("lines {} to {}", self.first_line, self.last_line)
        };
        write!(
            f,
            "in iteration {} of the loop whose device calls are at {lines} of {}",
            self.iteration, self.file
        )
    }
}

/// Formats a sorted set of linear thread indices as compact ranges: `0-31, 40, 64-95`.
pub fn ranges(ids: &[u32]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let start = ids[i];
        let mut end = start;
        while i + 1 < ids.len() && ids[i + 1] == end + 1 {
            i += 1;
            end = ids[i];
        }
        out.push(if start == end {
            format!("{start}")
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    out.join(", ")
}

/// The indefinite article for an operation's name: "an" before a vowel (`an atomicCAS on
/// __global__`), "a" otherwise (`a __global__ read of size 4`); underscores are skipped.
fn article(what: &str) -> &'static str {
    match what.trim_start_matches('_').chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'A' | 'E' | 'I' | 'O' | 'U') => "an",
        _ => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spin_names_its_operation_with_its_article() {
        let spin = |what: &str, threads: &str| {
            WaitSite {
                what: what.to_string(),
                site: "kernels/src/ch09.rs:40:9".into(),
                threads: threads.to_string(),
                spinning: true,
                in_loop: None,
            }
            .to_string()
        };
        assert_eq!(
            spin("atomicCAS on __global__", "0-31"),
            "threads 0-31 spin, repeating an atomicCAS on __global__ at kernels/src/ch09.rs:40:9"
        );
        assert_eq!(
            spin("__global__ read of size 4", "3"),
            "thread 3 spins, repeating a __global__ read of size 4 at kernels/src/ch09.rs:40:9"
        );
    }

    #[test]
    fn a_lane_out_of_fuel_is_named_in_its_loop_before_its_last_call() {
        let spin = CodeLoop {
            file: "kernels/src/ch09.rs".into(),
            line: 716,
            function: "consume_tiles".into(),
            device_calls: false,
            changes: false,
        };
        let e = |at: Option<CodeLoop>| {
            LaunchError::FuelExhausted {
                thread: ThreadRef {
                    block: [0; 3],
                    thread: [0; 3],
                },
                fuel: 10,
                site: "kernels/src/ch09.rs:321:5".into(),
                in_loop: None,
                at: at.map(Box::new),
            }
            .to_string()
        };
        let text = e(Some(spin.clone()));
        assert!(
            text.contains(
                "without reaching a device call, in the loop at kernels/src/ch09.rs:716 (fn \
                 `consume_tiles`), whose iterations change nothing, so it never ends; its last \
                 device call was at kernels/src/ch09.rs:321:5"
            ),
            "{text}"
        );
        let long = CodeLoop {
            changes: true,
            ..spin
        };
        assert!(e(Some(long)).contains("(fn `consume_tiles`), which makes no device call;"));
        assert!(e(None).contains("(a loop that never touches memory?)"));
    }
}
