//! Knobs of a launch: the step budget, the spin detector, the watchdog, the lane stacks.

use std::time::Duration;

/// How an emulated launch is run. Every field has a default that an environment variable
/// can override, so a test or the grader can tighten it without code changes.
#[derive(Clone, Debug)]
pub struct Config {
    /// Most warp steps one launch may take before it is stopped and reported as a
    /// probable infinite loop. Default 50 000 000, or `SIMT_STEP_BUDGET`.
    pub step_budget: u64,
    /// Wall-clock limit of one launch. A lane that spins in pure register code
    /// (`while i < n {}` with the increment forgotten) never reaches a scheduling point and
    /// cannot be preempted, so the launch runs on a worker thread and is abandoned after
    /// this long, reported as timed out with the last site seen. `None` runs the launch on
    /// the calling thread with no limit. Default 60 s, or `SIMT_WATCHDOG_SECS` (0 = none).
    pub watchdog: Option<Duration>,
    /// Steps a block may repeat without progress before it is reported as deadlocked.
    /// A thread that spin-waits for a flag no running thread will set (one set by a later
    /// block, or by a thread held at a barrier) keeps re-reading the same memory: when,
    /// for this many consecutive steps, no step of the block changed memory, released a
    /// barrier or ended a thread, and every step repeated one seen before in that stretch
    /// (same lanes, site, operands and results), the launch ends with
    /// [`LaunchError::Deadlock`](crate::LaunchError::Deadlock), naming where each thread
    /// spins or waits. A loop that only re-reads unchanged memory that many times in a
    /// row, yet would end (counting in registers), is misreported: raise the number for
    /// such a kernel. Default 100 000, or `SIMT_SPIN_STEPS` (0 = never; the step budget
    /// and the watchdog still apply).
    pub spin_steps: u64,
    /// Stack size of each lane's coroutine, in bytes. Default 256 KiB, or
    /// `SIMT_STACK_BYTES`.
    pub stack_bytes: usize,
    /// The budgets of each sandboxed (WebAssembly) lane: the fuel it may burn between two
    /// device calls and the memory it may grow to ([`crate::wasm::LaneLimits`]). Fuel
    /// counts instructions, not seconds, so a lane that never reaches a device call is
    /// stopped at the same point on every machine and under any load. Default 200 000 000
    /// instructions (`SIMT_FUEL`) and 16 MiB.
    pub lane_limits: crate::wasm::LaneLimits,
    /// The work budget shared by every launch made with this configuration (and so by a
    /// device's launches: a check's device), counted in WebAssembly instructions and warp
    /// steps ([`crate::meter`]). `None`, the default, counts nothing: the course's own
    /// large launches (the progression, the bench) are bounded by the step budget only.
    pub meter: Option<std::sync::Arc<crate::meter::Meter>>,
    /// The order in which blocks run: `None` is ascending linear block index; `Some(seed)`
    /// is a seeded permutation, to catch kernels whose result depends on block order.
    pub block_order_seed: Option<u64>,
    /// Where to deliver a [`Trace`](crate::trace::Trace) of each launch's memory accesses
    /// (for a picture of the access pattern and of atomic contention). `None`, the
    /// default, records nothing and costs one test per warp step.
    pub trace: Option<crate::trace::TraceSink>,
    /// Record each launch's [`Flow`](crate::flow::Flow) (every global load and atomic, per
    /// thread, with its value) into its report, so that a check can follow the data to
    /// the atomics that counted it. Off by default: it costs memory per operation.
    pub record_flow: bool,
    /// Racecheck between the lanes of one warp too: a shared word one lane wrote and
    /// another reads or writes, with neither a barrier nor a `__syncwarp` of their warp
    /// between them, is a hazard (since Volta the lanes of a warp are not in lockstep).
    /// Off by default: lockstep orders a warp's accesses (see `check`); a check turns it on
    /// where a kernel must order its lanes itself (a tree's rounds in shared memory).
    pub lane_hazards: bool,
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.trim().parse().ok()
}

impl Default for Config {
    fn default() -> Self {
        Config {
            step_budget: env_u64("SIMT_STEP_BUDGET").unwrap_or(50_000_000),
            watchdog: match env_u64("SIMT_WATCHDOG_SECS") {
                Some(0) => None,
                Some(s) => Some(Duration::from_secs(s)),
                None => Some(Duration::from_secs(60)),
            },
            spin_steps: env_u64("SIMT_SPIN_STEPS").unwrap_or(100_000),
            stack_bytes: env_u64("SIMT_STACK_BYTES").map_or(256 * 1024, |b| b as usize),
            lane_limits: crate::wasm::LaneLimits {
                fuel: env_u64("SIMT_FUEL").unwrap_or(crate::wasm::LaneLimits::default().fuel),
                ..crate::wasm::LaneLimits::default()
            },
            meter: None,
            block_order_seed: None,
            trace: None,
            record_flow: false,
            lane_hazards: false,
        }
    }
}
