//! The toy chapter as the shared command runs it.

use crate::progression::{NoExtra, Params};
use chapter::app::Progression;
use chapter::cli::DeviceArg;

/// The toy chapter for [`chapter::app`].
pub struct Toy;

impl Progression for Toy {
    chapter::conventional_progression!(NoExtra);
    const TRACE_DEFAULTS: &'static str = "--n 256 --block 64";
    const NAME: &'static str = "ch01";
    const ABOUT: &'static str = "A toy chapter of one exercise.";
    const TRACE_HELP: &'static str = "Instead of the table: draw one step to FILE.svg.";
    const AFTER_HELP: &'static str = "A test fixture.";
    const LEGEND: &'static str = "counters: st.req = global store requests";
    const GBPS: &'static str = "bytes moved / time";

    fn check(p: &Params, _device: DeviceArg) -> Result<Params, String> {
        if p.block == 0 || p.block > 1024 {
            return Err(format!("--block must be 1 to 1024, got {}", p.block));
        }
        Ok(p.clone())
    }

    fn elements(p: &Params) -> u64 {
        p.n as u64
    }

    fn describe(p: &Params) -> String {
        format!("n = {}, block {}", p.n, p.block)
    }

    fn rehearsal_params(p: &Params) -> Params {
        Params { n: 64, ..p.clone() }
    }
}
