//! A chapter's progression row ([`Row`]): one type for every chapter, whose own columns
//! are its `extra`, so that the table, its notes ([`crate::table::notes`]), the GPU
//! rehearsal ([`crate::rehearsal`]) and the trace ([`crate::trace`]) read the same fields
//! in every chapter.

use crate::timing::GpuTime;
use serde::Serialize;

/// The emulator's counters of a row under the names of the Nsight Compute metrics they
/// model ([`simt::Counters::ncu_metrics`]): the `ncu` object of a progression's `--json --ncu-names`
/// row, which the fidelity run (`bench/fidelity.py`) reads to know what to
/// ask `ncu` for and what to compare. `None` on a GPU or for a launch that failed.
pub type NcuCounters = Option<std::collections::BTreeMap<&'static str, u64>>;

/// [`NcuCounters`] of a launch's counters.
pub fn ncu_counters(c: Option<&simt::Counters>) -> NcuCounters {
    c.map(|c| c.ncu_metrics().into_iter().collect())
}

/// The emulator's counters of one row, as every chapter's table and JSON show them (a
/// chapter's table picks the columns it is about); all `None` on a GPU, and for host code.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    /// Counted warp instructions (memory, atomics, collectives, barriers).
    pub warp_instructions: Option<u64>,
    /// Active lanes per counted warp instruction: 32 is every lane doing work (rounded
    /// to 1/100 of a lane, so that the JSON is stable text).
    pub simt_efficiency: Option<f64>,
    /// Warp instructions that ran with part of the warp's live lanes (divergence).
    pub divergent_steps: Option<u64>,
    /// Global load warp instructions.
    pub global_load_requests: Option<u64>,
    /// 32-byte sectors those loads touched.
    pub global_load_sectors: Option<u64>,
    /// Global store warp instructions.
    pub global_store_requests: Option<u64>,
    /// 32-byte sectors those stores touched.
    pub global_store_sectors: Option<u64>,
    /// Lanes that performed a global atomic.
    pub global_atomics: Option<u64>,
    /// Lanes that performed a shared atomic.
    pub shared_atomics: Option<u64>,
    /// Most lanes of one atomic instruction on one address, global or shared.
    pub worst_serialization: Option<u64>,
    /// Extra shared-memory wavefronts from bank conflicts of loads and stores.
    pub bank_conflicts: Option<u64>,
    /// Extra passes of shared atomic instructions from bank conflicts (what 9.9's lane
    /// columns remove).
    pub atomic_bank_conflicts: Option<u64>,
    /// Failed `atomic_cas` attempts.
    pub cas_failures: Option<u64>,
    /// Block barriers released.
    pub barriers: Option<u64>,
    /// Counts the bins are short of the input's (updates lost to a race): chapter 9's,
    /// computed from the output; `None` when the step did not complete or its output is
    /// not counts.
    pub lost_updates: Option<u64>,
}

impl Counters {
    /// The counters of a launch (`None` on a GPU: all `None`); no lost updates.
    pub fn from(c: Option<&simt::Counters>) -> Self {
        let f = |g: fn(&simt::Counters) -> u64| c.map(g);
        Counters {
            warp_instructions: f(|c| c.warp_instructions),
            simt_efficiency: c.map(|c| (c.simt_efficiency() * 100.0).round() / 100.0),
            divergent_steps: f(|c| c.divergent_steps),
            global_load_requests: f(|c| c.global_load_requests),
            global_load_sectors: f(|c| c.global_load_sectors),
            global_store_requests: f(|c| c.global_store_requests),
            global_store_sectors: f(|c| c.global_store_sectors),
            global_atomics: f(|c| c.global_atomic_lanes),
            shared_atomics: f(|c| c.shared_atomic_lanes),
            worst_serialization: f(|c| c.global_atomic_max_depth.max(c.shared_atomic_max_depth)),
            bank_conflicts: f(|c| c.bank_conflicts),
            atomic_bank_conflicts: f(|c| c.shared_atomic_bank_conflicts),
            cas_failures: f(|c| c.cas_failures),
            barriers: f(|c| c.barriers),
            lost_updates: None,
        }
    }
}

/// One kernel (or host function) of one step, run once: a progression's row in every
/// chapter. What differs between chapters is `E`, the launch's own columns (flattened
/// into the JSON: chapter 5's `launch`, chapter 9's `bins`); the rest, and so the JSON
/// that `learn`, `figures` and the book read, is the same everywhere.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row<E> {
    /// The exercise id, `"9.5"`.
    pub step: &'static str,
    /// The kernel (or host function) run.
    pub kernel: String,
    /// `"correct"`, `"wrong"`, `"race"`, `"order-dependent"`, `"not implemented"`,
    /// `"skipped"`, or the kind of launch error.
    pub status: String,
    /// Whether the output equals the CPU reference.
    pub correct: bool,
    /// Elements the step counts or computes.
    pub n: u64,
    /// The chapter's own columns of the launch.
    #[serde(flatten)]
    pub extra: E,
    /// Blocks launched, all dimensions multiplied (0 for host code).
    pub grid: u32,
    /// Threads per block, all dimensions multiplied (0 for host code).
    pub block: u32,
    /// The emulator's counters.
    pub counters: Counters,
    /// A remark: why a step was skipped, the error's first line, a race's first finding.
    pub note: Option<String>,
    /// On a GPU, the launch's time (CUDA events) and the bytes it moved; absent on the
    /// emulator, whose times say nothing about a GPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuTime>,
    /// On the emulator, its counters under Nsight Compute's metric names: what the
    /// fidelity run compares with `ncu` ([`ncu_counters`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ncu: NcuCounters,
}

impl<E> Row<E> {
    /// This row with what a launch gave: on an error, its kind as the status and its
    /// first line as the note; else the launch's grid and block, the emulator's counters
    /// (with their Nsight Compute names), the GPU's time over `bytes`, whether `correct`
    /// finds the output right, and the status: a race's first finding before right or
    /// wrong. Every chapter's progression reads a launch this one way.
    pub fn launched<T>(
        mut self,
        run: Result<crate::launch::Run<T>, gpu_host::LaunchError>,
        bytes: u64,
        correct: impl FnOnce(&[T]) -> bool,
    ) -> Self {
        match run {
            Err(e) => {
                let o = course::Outcome::from_launch_error(&e);
                self.status = o.status.label().to_string();
                self.note = Some(o.reason);
            }
            Ok(run) => {
                self.grid = run.grid;
                self.block = run.block;
                self.counters = Counters::from(run.report.counters());
                self.ncu = ncu_counters(run.report.counters());
                self.gpu = run.report.gpu_time.map(|t| GpuTime {
                    ns: t.as_nanos() as u64,
                    bytes,
                });
                self.correct = correct(&run.out);
                self.status = match course::findings_outcome(run.report.findings()) {
                    Some(o) => {
                        self.note = Some(o.reason);
                        o.status.label().to_string()
                    }
                    None if self.correct => "correct".into(),
                    None => "wrong".into(),
                };
            }
        }
        self
    }

    /// A row of `kernel` in `step` over `n` elements, with `status` and the chapter's
    /// `extra` columns, and nothing else yet: not correct, no launch, no counters, no
    /// note. A chapter fills in the rest with `Row { grid, .. Row::new(..) }`.
    pub fn new(
        step: &'static str,
        kernel: impl Into<String>,
        status: impl Into<String>,
        n: u64,
        extra: E,
    ) -> Self {
        Row {
            step,
            kernel: kernel.into(),
            status: status.into(),
            correct: false,
            n,
            extra,
            grid: 0,
            block: 0,
            counters: Counters::default(),
            note: None,
            gpu: None,
            ncu: None,
        }
    }
}
