//! A chapter 9 step measured on its input ([`::bench::measure`] times it).

use super::*;
use ::bench::measure::measure_kernel;

/// Runs `step` on the uploaded input `data` (bytes or values, as the step takes).
pub(super) fn measure_step(
    dev: &mut Device,
    step: &Step,
    data: &Uploaded,
    expected: &[u32],
    opts: &Options,
) -> Measured {
    let out = match dev.alloc::<u32>(step.out_len as usize) {
        Ok(o) => o,
        Err(e) => return Measured::Failed(format!("alloc failed: {}", first_line(&e))),
    };
    let cfg = step.shape.config();
    let h = out.slice();
    let m = match (step.launch, data) {
        (StepKernel::Bytes(k), Uploaded::U8(d)) => measure_kernel(
            dev,
            &k,
            cfg,
            (d.slice(), h),
            &out,
            expected,
            &opts.common.budget(),
        ),
        (StepKernel::BytesWith(k, arg), Uploaded::U8(d)) => measure_kernel(
            dev,
            &k,
            cfg,
            (d.slice(), h, arg),
            &out,
            expected,
            &opts.common.budget(),
        ),
        (StepKernel::Values(k), Uploaded::U32(d)) => measure_kernel(
            dev,
            &k,
            cfg,
            (d.slice(), h),
            &out,
            expected,
            &opts.common.budget(),
        ),
        _ => Measured::Failed("invariant: a step got the other element type".into()),
    };
    let _ = dev.free(out);
    m
}
