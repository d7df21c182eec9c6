//! What the shared pieces need to know of a chapter's progression row.
//!
//! Each chapter has its own row type (its own columns and counters), but the table's
//! notes ([`crate::table::notes`]), the GPU rehearsal ([`crate::rehearsal`]) and the trace
//! ([`crate::trace`]) only read a row's step, kernel, status and note, and the rehearsal
//! rewrites its size and note. This trait is that much of a row.

/// A row of a chapter's progression: one kernel of one step, run once.
pub trait StepRow {
    /// The exercise id, `"9.5"`: the first column, and the start of a note's line.
    fn step(&self) -> &str;
    /// The kernel (or host function) the row ran: what a note and a trace title name.
    fn kernel(&self) -> &str;
    /// `"correct"`, `"wrong"`, `"not implemented"`, ...: what the rehearsal tests before
    /// it lets a step onto a GPU, and what a trace's summary reports.
    fn status(&self) -> &str;
    /// The row's remark, if any: printed under the table.
    fn note(&self) -> Option<&str>;
    /// Replaces the remark: the rehearsal says why a step stayed off the GPU.
    fn set_note(&mut self, note: Option<String>);
    /// Sets the elements the row reports: a rehearsed row ran a small input but stands
    /// for the size the student asked for.
    fn set_n(&mut self, n: u64);
    /// Drops the row's counters under Nsight Compute's names ([`NcuCounters`]): they are
    /// printed only when `--ncu-names` asks for them.
    fn drop_ncu(&mut self);
}

/// The emulator's counters of a row under the names of the Nsight Compute metrics they
/// model ([`simt::Counters::ncu_metrics`]): the `ncu` object of a progression's `--json --ncu-names`
/// row, which the fidelity run (`chapters/ch09/bench/fidelity.py`) reads to know what to
/// ask `ncu` for and what to compare. `None` on a GPU or for a launch that failed.
pub type NcuCounters = Option<std::collections::BTreeMap<&'static str, u64>>;

/// [`NcuCounters`] of a launch's counters.
pub fn ncu_counters(c: Option<&simt::Counters>) -> NcuCounters {
    c.map(|c| c.ncu_metrics().into_iter().collect())
}
