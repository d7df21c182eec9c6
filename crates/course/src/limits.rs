//! How long a student's exercise may run before it is stopped and scored "timed out":
//! one set of limits for every check, whoever runs it (`cargo test -p chNN`, the runner,
//! the grader), so a kernel gets the same verdict from each.

use gpu_host::{Config, WorkBudget};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The limits of a check: knobs of the emulator for every launch, and a wall-clock limit
/// for a whole exercise (the grader's, which runs each exercise in a child process).
///
/// Why not the emulator's defaults ([`Config::default`])? Those are made for the course's
/// own large launches (the progression, the bench): a 50 000 000-step budget and a 60 s
/// watchdog, each overridable from the environment. A check runs a stranger's code on
/// small inputs and must give the same verdict on every machine and from every command:
/// so the limits are fixed numbers (the environment is not read), tight enough that a
/// clone whose every kernel spins forever is graded in minutes, and still far above
/// what the reference kernels need (their largest check launch takes under 10 000 warp
/// steps).
///
/// Every limit but the two wall clocks counts work, not time, and so stops a kernel at
/// the same point on every machine under any load: the step budget (a loop that touches
/// memory), the spin detector (a spin-wait on a flag), the sandbox's fuel (a lane that
/// loops in registers: [`gpu_host::LaneLimits`], a fixed number of WebAssembly
/// instructions between two device calls) and the check's work budget (all its launches
/// and host calls together: [`Limits::work`]). The wall-clock limits remain as a last
/// resort and say so when they fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Most warp steps one launch may take ([`Config::step_budget`]): catches an
    /// infinite loop that touches memory, deterministically (the same step every run).
    pub step_budget: u64,
    /// Steps a block may repeat without progress before the launch is reported as a
    /// livelock (threads spin: [`Config::spin_steps`]): catches a spin-wait on a flag no
    /// thread will set, and a CAS retried forever.
    pub spin_steps: u64,
    /// Wall-clock limit of one launch, in milliseconds ([`Config::watchdog`]): a last
    /// resort. A sandboxed lane spinning in registers (`while i < n {}`) runs out of fuel
    /// first; only a native kernel (the emulator's own tests) can need it.
    pub launch_watchdog_ms: u64,
    /// Wall-clock limit of one exercise's whole check, in milliseconds: catches a host
    /// function of the student's that never returns (9.1's sequential loop, a
    /// prediction), and many slow launches that each stay under the other limits.
    pub exercise_timeout_ms: u64,
    /// The work all launches and host calls of one check may do together, counted in
    /// WebAssembly instructions and warp steps ([`gpu_host::meter`]): a kernel that stays
    /// under the step budget and its lanes' fuel in every launch, but burns instructions
    /// between its device calls, is stopped at the same count on every machine instead of
    /// by [`exercise_timeout_ms`](Self::exercise_timeout_ms)'s wall clock under load.
    pub work: WorkBudget,
}

impl Limits {
    /// The limits of every check: `cargo test -p chNN`, `cargo run -p learn` and
    /// `cargo run -p grade` (unless its options say otherwise).
    pub const CHECKS: Limits = Limits {
        step_budget: 500_000,
        spin_steps: 100_000,
        // Last resorts, far above what the counted limits take to fire on a machine loaded
        // well beyond its cores (notes/clock-2026-11-28.md): a clock that fires anyway is
        // the grading machine's fault, reported as "not graded" (Outcome::machine_too_slow).
        launch_watchdog_ms: 120_000,
        exercise_timeout_ms: 300_000,
        // The reference checks take at most 113 M instructions and 61 000 warp steps
        // (9.9: 256 x 32 counters per block, its rounds followed on a grid of 64-thread
        // blocks too); a budget 16 to 18 times that runs a few seconds on the emulator.
        work: WorkBudget {
            instructions: 2_000_000_000,
            warp_steps: 1_000_000,
        },
    };

    /// The emulator configuration of every device a check runs on. Blocks run in the
    /// emulator's default order; each check picks its own seeded block order.
    pub fn simt_config(&self) -> Config {
        Config {
            step_budget: self.step_budget,
            watchdog: Some(Duration::from_millis(self.launch_watchdog_ms)),
            spin_steps: self.spin_steps,
            stack_bytes: 256 * 1024,
            // Fixed (the environment is not read): fuel counts instructions, so a lane
            // spinning in registers is stopped at the same point on every machine. A
            // lane's memory is 2 MiB (its stack and statics take 128 KiB; the course's
            // kernels allocate nothing): a block of 1024 lanes that each allocate all
            // they may holds 2 GiB, not the 16 GiB of the default 16 MiB.
            lane_limits: gpu_host::LaneLimits {
                memory_bytes: 2 << 20,
                ..gpu_host::LaneLimits::default()
            },
            // A new meter: one budget for all the launches of the check's device.
            meter: Some(gpu_host::Meter::new(self.work)),
            block_order_seed: None,
            trace: None,
            // The checks that follow the data turn it on for their launches.
            record_flow: false,
            // The checks of kernels that must order their lanes turn it on.
            lane_hazards: false,
        }
    }

    /// The per-exercise limit as a [`Duration`].
    pub fn exercise_timeout(&self) -> Duration {
        Duration::from_millis(self.exercise_timeout_ms)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::CHECKS
    }
}
