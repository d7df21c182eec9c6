//! The toy chapter's check: the products, one thread per element.

use crate::kernels::{Kernels, kernels};
use chapter::checking::exactly;
use course::{KernelSource, Outcome};
use gpu_host::{Device, LaunchConfig, LaunchReport};

// `ex_1_1` and `check_with`, from `exercises.toml`.
include!(concat!(env!("OUT_DIR"), "/checks.rs"));

/// A launch's products and report, as a check reads them.
struct Products(Vec<u32>, LaunchReport);

impl chapter::checking::Launched for Products {
    type Item = u32;
    fn report(&self) -> &LaunchReport {
        &self.1
    }
    fn output(&self) -> &[u32] {
        &self.0
    }
}

/// 1.1: right on a length that is not a whole number of blocks, one store per element.
fn check_1_1(ctx: &mut Ctx<'_>) -> Checked {
    let n = 1000;
    let b: Vec<u32> = (0..n).map(|i| i * 3 + ctx.seed as u32).collect();
    let c: Vec<u32> = (0..n).map(|i| i % 5).collect();
    let expected: Vec<u32> = b.iter().zip(&c).map(|(x, y)| x.wrapping_mul(*y)).collect();
    let cfg = LaunchConfig::linear(chapter::launch::one_per_thread(n as usize, 128), 128);
    let case = format!("n = {n}");
    let run = crate::progression::multiply(&mut *ctx.dev, ctx.k, &b, &c, cfg)
        .map(|(out, report)| Products(out, report));
    let run = ctx.verify_output(&case, run, "product", &expected, "", exactly)?;
    if let Some(c) = chapter::checking::counters(&run)
        && c.global_store_requests != (n as u64).div_ceil(32)
    {
        return Err(ctx.technique(&case, "one store per element, one warp request per 32"));
    }
    Ok(format!("1.1: {n} products right{}", ctx.technique_note()))
}
