//! The toy chapter's progression: one step, one launch.

use crate::kernels::Kernels;
use chapter::app::Steps;
use chapter::row::Counters;
use gpu_host::{Device, LaunchConfig};
use serde::Serialize;

/// The toy's options.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct Params {
    /// Elements.
    #[arg(long, value_name = "N", default_value_t = 4096)]
    pub n: usize,
    /// Threads per block.
    #[arg(long, value_name = "T", default_value_t = 128)]
    pub block: u32,
}

/// Every step's id: the registry's exercises (`exercises.toml`).
pub const STEPS: [&str; crate::STEP_IDS.len()] = crate::STEP_IDS;

/// The toy's own column: none.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NoExtra {}

/// A row.
pub type Row = chapter::row::Row<NoExtra>;

/// The table: step, kernel, status, n, then the stores' counters.
pub const LAYOUT: chapter::table::Layout<Row> = chapter::table::Layout {
    emulator: &["step", "kernel", "status", "n", "st.req"],
    gpu: &["step", "kernel", "status", "n", "ms", "GB/s"],
    left: 3,
    lead: |r| {
        vec![
            r.step.to_string(),
            r.kernel.clone(),
            r.status.clone(),
            r.n.to_string(),
        ]
    },
    counters: |r| vec![chapter::table::opt(r.counters.global_store_requests)],
    tail: |_| Vec::new(),
};

/// Runs the toy's step (when `s` asks for it).
pub fn run(mut s: Steps<'_, Kernels, Params>) -> Vec<Row> {
    let (k, p) = (s.kernels, s.params);
    if !s.wants("1.1") {
        return Vec::new();
    }
    s.say("step 1.1");
    let b: Vec<u32> = (0..p.n as u32).collect();
    let c: Vec<u32> = (0..p.n as u32).map(|x| x % 7).collect();
    let expected: Vec<u32> = b.iter().zip(&c).map(|(x, y)| x.wrapping_mul(*y)).collect();
    let cfg = LaunchConfig::linear(chapter::launch::one_per_thread(p.n, p.block), p.block);
    let mut row = Row {
        grid: cfg.blocks() as u32,
        block: p.block,
        ..Row::new("1.1", k.mul_blocks.name, "", p.n as u64, NoExtra {})
    };
    match multiply(s.dev, k, &b, &c, cfg) {
        Ok((out, report)) => {
            row.correct = out == expected;
            row.status = if row.correct { "correct" } else { "wrong" }.into();
            row.counters = Counters::from(report.counters());
        }
        Err(e) => {
            let o = course::Outcome::from_launch_error(&e);
            row.status = o.status.label().into();
            row.note = Some(o.reason);
        }
    }
    vec![row]
}

/// One launch of 1.1's kernel: the products and the launch's report.
pub fn multiply(
    dev: &mut Device,
    k: &Kernels,
    b: &[u32],
    c: &[u32],
    cfg: LaunchConfig,
) -> Result<(Vec<u32>, gpu_host::LaunchReport), gpu_host::LaunchError> {
    let (db, dc) = (dev.upload(b)?, dev.upload(c)?);
    let a = dev.alloc::<u32>(b.len())?;
    let launched = dev.launch(&k.mul_blocks, cfg, (a.slice(), db.slice(), dc.slice()));
    chapter::launch::download_and_free(dev, launched, a, vec![db, dc])
}
