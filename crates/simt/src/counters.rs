//! Counters of a launch, per launch and per kernel source line.
//!
//! They model what Nsight Compute measures; each field names the metric it stands for.
//! The model counts only the operations that go through the device API (memory,
//! atomics, warp collectives, barriers); arithmetic in registers is not counted.

use serde::Serialize;

/// Event counts of one launch (or one source line of it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Warp instructions that touch memory, synchronise or talk across lanes: one per
    /// step (`smsp__inst_executed` restricted to those instructions). A barrier counts
    /// one per warp.
    pub warp_instructions: u64,
    /// Active lanes summed over those instructions: `lane_ops / warp_instructions` is the
    /// SIMT efficiency (`smsp__thread_inst_executed_per_inst_executed`).
    pub lane_ops: u64,
    /// Steps whose active mask was not every live lane of the warp: divergence
    /// (`smsp__sass_branch_targets_threads_divergent`, roughly). Lanes that have exited
    /// are not live: after `if i >= n { return; }` the rest of the warp is not divergent,
    /// though its SIMT efficiency (`lane_ops / warp_instructions`) drops.
    pub divergent_steps: u64,
    /// Global load warp instructions (`l1tex__t_requests_pipe_lsu_mem_global_op_ld`).
    pub global_load_requests: u64,
    /// 32-byte sectors those loads touched (`l1tex__t_sectors_pipe_lsu_mem_global_op_ld`).
    pub global_load_sectors: u64,
    /// Global store warp instructions (`l1tex__t_requests_pipe_lsu_mem_global_op_st`).
    pub global_store_requests: u64,
    /// 32-byte sectors those stores touched (`l1tex__t_sectors_pipe_lsu_mem_global_op_st`).
    pub global_store_sectors: u64,
    /// Store lanes whose value was overwritten in the same step by a higher lane storing
    /// to the same address: updates lost inside one warp instruction.
    pub overwritten_stores: u64,
    /// Shared-memory load warp instructions (`smsp__inst_executed_op_shared_ld`).
    pub shared_load_requests: u64,
    /// Shared-memory store warp instructions (`smsp__inst_executed_op_shared_st`).
    pub shared_store_requests: u64,
    /// Extra shared-memory wavefronts caused by bank conflicts: for each request, the most
    /// distinct 4-byte words any one of the 32 banks had to serve, minus one
    /// (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared`). Lanes reading one word share
    /// it (broadcast) and cost nothing. 8-byte accesses are served by half-warps and
    /// 16-byte ones by quarter-warps (a pass moves at most 128 bytes): the count is per
    /// pass, so consecutive `u64` or `U32x4` accesses are conflict-free. Shared atomics are
    /// not counted here.
    pub bank_conflicts: u64,
    /// Worst bank conflict of one request: 1 = conflict-free, 32 = 32-way.
    pub max_bank_ways: u64,
    /// Global atomic warp instructions (`l1tex__t_requests_pipe_lsu_mem_global_op_atom`,
    /// plus the `red` variant).
    pub global_atomic_requests: u64,
    /// Lanes whose global atomic could change memory: one per element for a per-element
    /// atomic. An atomic that changed nothing (an add of zero, a failed compare-and-swap)
    /// is not counted here but in [`global_atomic_noop_lanes`](Self::global_atomic_noop_lanes).
    pub global_atomic_lanes: u64,
    /// Lanes whose global atomic could not change memory (an add of 0 or ±0.0, a failed or
    /// same-value compare-and-swap, an exchange, min, max or bitwise op that left the word
    /// as it was): shown as such, never evidence of a technique.
    pub global_atomic_noop_lanes: u64,
    /// Distinct addresses of global atomics, summed over requests.
    pub global_atomic_addresses: u64,
    /// Global atomic updates that had to wait behind another lane on the same address
    /// in the same request, summed: `lanes - distinct addresses`.
    pub global_atomic_serialized: u64,
    /// Serialization depth: the most lanes on one address in one global atomic request.
    pub global_atomic_max_depth: u64,
    /// Shared atomic warp instructions (`smsp__inst_executed_op_shared_atom`): one per
    /// integer atomic, and one per round of an `f32` add, which sm_90 runs as a loop of a
    /// load and a compare-and-swap (each round's load is a shared load request, with its
    /// bank conflicts).
    pub shared_atomic_requests: u64,
    /// Lanes whose shared atomic could change memory (no-ops are counted apart, as for
    /// [`global_atomic_lanes`](Self::global_atomic_lanes)).
    pub shared_atomic_lanes: u64,
    /// Lanes whose shared atomic could not change memory (see
    /// [`global_atomic_noop_lanes`](Self::global_atomic_noop_lanes)).
    pub shared_atomic_noop_lanes: u64,
    /// Distinct addresses of shared atomics, summed over requests.
    pub shared_atomic_addresses: u64,
    /// Shared atomic updates serialized behind another lane on the same address.
    pub shared_atomic_serialized: u64,
    /// Serialization depth of shared atomics.
    pub shared_atomic_max_depth: u64,
    /// Extra passes of shared atomic instructions caused by bank conflicts
    /// (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom`): per request, the most
    /// one bank serves, minus one. What a bank serves depends on the instruction: an
    /// integer `+1` (sm_90's `ATOMS.POPC.INC`) combines the lanes on one word, so it counts
    /// distinct words, as [`bank_conflicts`](Self::bank_conflicts) does for loads; any
    /// other integer shared atomic (`ATOMS.ADD` with a variable operand, ...) serves each
    /// lane on a word in a pass of its own, so it counts lanes. A call site is taken as
    /// `+1` when every instruction it issued added 1 to 32-bit integers (the emulator sees
    /// values, not the compiled code). An `f32` add's loop has none: a lane whose swap
    /// would conflict fails and goes round again (its rounds are in
    /// [`shared_atomic_requests`](Self::shared_atomic_requests)). On an H100 this is what
    /// bounds a shared-memory histogram of uniform bytes: with one counter per bin, the
    /// 32 lanes' bins fall in random banks, about 3.5 distinct words in the busiest.
    pub shared_atomic_bank_conflicts: u64,
    /// Worst bank conflict of one shared atomic request: 1 = conflict-free.
    pub shared_atomic_max_bank_ways: u64,
    /// `atomicCAS` lanes whose compare failed (the retries of a CAS loop).
    pub cas_failures: u64,
    /// `atomicCAS` lanes whose compare succeeded and whose new value differs from the old:
    /// the swaps that changed memory, one per element of a CAS-built add.
    pub cas_successes: u64,
    /// Warp collective instructions (shuffle, vote, match, syncwarp, activemask).
    pub warp_collectives: u64,
    /// Block-wide barriers released (`__syncthreads`), counted once per block.
    pub barriers: u64,
    /// Constant-memory load warp instructions (`ld.const`, `LDC` in SASS): the emulator's
    /// own count, beside no Nsight Compute metric.
    pub constant_load_requests: u64,
    /// Extra passes of those loads: the constant cache serves one address per pass and
    /// broadcasts it to every lane that asked, so a request whose lanes read `k` distinct
    /// addresses takes `k` passes; this sums `k - 1` over the requests. A lookup table
    /// indexed by the data (every lane its own entry) serializes here; a value every lane
    /// reads at once (a bin count, a coefficient) costs nothing.
    pub constant_serialized: u64,
    /// The most distinct addresses of one constant load request: 1 = a broadcast.
    pub constant_max_addresses: u64,
    /// Loads and stores in the kernel's code that reach an array on the thread's own
    /// stack at a run-time offset: one computed from data, or the counter of a loop that
    /// ends on data or calls the device (shuffles, atomics). The nvptx build keeps such an
    /// array in local memory, not registers, in every case measured; a short loop it may
    /// unroll all the same, so this is an estimate (9.10's check reads it). Counted in the
    /// code once per launch, not per execution ([`crate::local_memory`]); no ncu metric.
    pub local_memory_sites: u64,
}

impl Counters {
    /// Adds `other` into `self` (maxima are combined with `max`).
    pub fn add(&mut self, o: &Counters) {
        self.warp_instructions += o.warp_instructions;
        self.lane_ops += o.lane_ops;
        self.divergent_steps += o.divergent_steps;
        self.global_load_requests += o.global_load_requests;
        self.global_load_sectors += o.global_load_sectors;
        self.global_store_requests += o.global_store_requests;
        self.global_store_sectors += o.global_store_sectors;
        self.overwritten_stores += o.overwritten_stores;
        self.shared_load_requests += o.shared_load_requests;
        self.shared_store_requests += o.shared_store_requests;
        self.bank_conflicts += o.bank_conflicts;
        self.max_bank_ways = self.max_bank_ways.max(o.max_bank_ways);
        self.global_atomic_requests += o.global_atomic_requests;
        self.global_atomic_lanes += o.global_atomic_lanes;
        self.global_atomic_noop_lanes += o.global_atomic_noop_lanes;
        self.global_atomic_addresses += o.global_atomic_addresses;
        self.global_atomic_serialized += o.global_atomic_serialized;
        self.global_atomic_max_depth = self.global_atomic_max_depth.max(o.global_atomic_max_depth);
        self.shared_atomic_requests += o.shared_atomic_requests;
        self.shared_atomic_lanes += o.shared_atomic_lanes;
        self.shared_atomic_noop_lanes += o.shared_atomic_noop_lanes;
        self.shared_atomic_addresses += o.shared_atomic_addresses;
        self.shared_atomic_serialized += o.shared_atomic_serialized;
        self.shared_atomic_max_depth = self.shared_atomic_max_depth.max(o.shared_atomic_max_depth);
        self.shared_atomic_bank_conflicts += o.shared_atomic_bank_conflicts;
        self.shared_atomic_max_bank_ways = self
            .shared_atomic_max_bank_ways
            .max(o.shared_atomic_max_bank_ways);
        self.cas_failures += o.cas_failures;
        self.cas_successes += o.cas_successes;
        self.warp_collectives += o.warp_collectives;
        self.barriers += o.barriers;
        self.constant_load_requests += o.constant_load_requests;
        self.constant_serialized += o.constant_serialized;
        self.constant_max_addresses = self.constant_max_addresses.max(o.constant_max_addresses);
        self.local_memory_sites = self.local_memory_sites.max(o.local_memory_sites);
    }

    /// The counters under the names of the Nsight Compute metrics they model, for the
    /// fidelity run (`bench/fidelity.py`), which asks `ncu` for exactly
    /// these metrics and sets the GPU's value beside the emulator's. A name joined by `+`
    /// is the sum of those metrics (a global atomic is `atom` or `red`, a shared bank
    /// conflict a load's or a store's). Kept beside the fields so that the mapping and
    /// the model change together.
    pub fn ncu_metrics(&self) -> [(&'static str, u64); NCU_METRICS] {
        [
            (
                "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                self.global_load_requests,
            ),
            (
                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                self.global_load_sectors,
            ),
            (
                "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                self.global_store_requests,
            ),
            (
                "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                self.global_store_sectors,
            ),
            (
                "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum+l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
                self.global_atomic_requests,
            ),
            (
                "smsp__inst_executed_op_shared_ld.sum",
                self.shared_load_requests,
            ),
            (
                "smsp__inst_executed_op_shared_st.sum",
                self.shared_store_requests,
            ),
            (
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum+l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                self.bank_conflicts,
            ),
            (
                "smsp__inst_executed_op_shared_atom.sum",
                self.shared_atomic_requests,
            ),
            (
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
                self.shared_atomic_bank_conflicts,
            ),
        ]
    }

    /// SIMT efficiency: average active lanes per counted warp instruction (32 is best).
    pub fn simt_efficiency(&self) -> f64 {
        if self.warp_instructions == 0 {
            0.0
        } else {
            self.lane_ops as f64 / self.warp_instructions as f64
        }
    }

    /// Sectors per global load request: 4 for 32 coalesced `u32`, 32 for a stride of 32.
    pub fn sectors_per_load_request(&self) -> f64 {
        if self.global_load_requests == 0 {
            0.0
        } else {
            self.global_load_sectors as f64 / self.global_load_requests as f64
        }
    }

    /// All atomics that could change memory, global and shared, counted per lane.
    pub fn atomic_lanes(&self) -> u64 {
        self.global_atomic_lanes + self.shared_atomic_lanes
    }
}

/// How many metrics [`Counters::ncu_metrics`] names.
pub const NCU_METRICS: usize = 10;

/// Counters of one kernel source line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineCounters {
    /// Source file, as the compiler names it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// What happened on that line.
    pub counters: Counters,
}
