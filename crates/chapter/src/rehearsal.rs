//! The student's kernels on a GPU, rehearsed on the emulator first.
//!
//! On a GPU a `todo!()` is a trap, and a trap (or an access past a buffer) ends every
//! later launch of the process: one unsolved step would blank the rest of the table. So
//! `cargo run -p ch05 -- --device gpu --kernels student` (and `ch09`) runs each step on
//! the emulator with a small input first, and only a step that ran there goes to the GPU.

use crate::row::Row;

/// The statuses of a rehearsal that keep a step off the GPU: what would trap or hang
/// there (a wrong answer does not, and is worth timing).
pub const UNSAFE_ON_GPU: [&str; 6] = [
    "not implemented",
    "panicked",
    "out of bounds",
    "timed out",
    "barrier error",
    "livelock",
];

/// Runs `steps` one at a time: `rehearse(step)` on the emulator with a small input of
/// `small_n` elements, then, unless a row of it has a status of [`UNSAFE_ON_GPU`],
/// `run(step, progress)` on the GPU. A step kept off the GPU keeps the rehearsal's rows,
/// reporting `n` (the size asked for) and saying why in their notes, so that the table
/// still has a row for every kernel.
pub fn rehearse_then_run<E>(
    steps: &[&'static str],
    small_n: usize,
    n: u64,
    mut rehearse: impl FnMut(&'static str) -> Vec<Row<E>>,
    mut run: impl FnMut(&'static str, &mut dyn FnMut(&str)) -> Vec<Row<E>>,
    progress: &mut dyn FnMut(&str),
) -> Vec<Row<E>> {
    let mut rows = Vec::new();
    for &step in steps {
        let rehearsal = rehearse(step);
        if let Some(bad) = rehearsal
            .iter()
            .find(|r| UNSAFE_ON_GPU.contains(&r.status.as_str()))
        {
            progress(&format!(
                "step {step}: {} on the emulator, not run on the GPU",
                bad.status
            ));
            rows.extend(rehearsal.into_iter().map(|mut r| {
                let why = format!(
                    "{} on the emulator (n = {small_n}), so not launched on the GPU, where a \
                     fault ends every later launch of the process",
                    r.status
                );
                r.n = n;
                r.note = Some(match r.note.take() {
                    Some(n) => format!("{why}: {n}"),
                    None => why,
                });
                r
            }));
            continue;
        }
        rows.extend(run(step, progress));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::UNSAFE_ON_GPU;
    use course::Status;

    /// Every status kept off the GPU is a status a row can have, and every status that
    /// would trap or hang there is kept off (a spin hangs a GPU as it spins here).
    #[test]
    fn what_would_trap_or_hang_on_a_gpu_stays_off_it() {
        for label in UNSAFE_ON_GPU {
            assert!(
                Status::from_label(label).is_some(),
                "`{label}` is no status"
            );
        }
        for s in [
            Status::NotImplemented,
            Status::Panicked,
            Status::OutOfBounds,
            Status::TimedOut,
            Status::BarrierError,
            Status::Livelock,
        ] {
            assert!(UNSAFE_ON_GPU.contains(&s.label()), "{s:?}");
        }
    }
}
