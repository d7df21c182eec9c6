//! Launching a kernel on the emulator: validate the configuration, run the blocks,
//! collect the report. The watchdog runs the launch on a worker thread so that a lane
//! spinning in registers cannot hang the caller.

use crate::config::Config;
use crate::memory::GlobalMemory;
use crate::report::{LaunchError, LaunchReport};
use crate::schedule::Exec;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use crate::spec::{KernelBody, LastSeen, LaunchSpec};

/// How long a launch past its watchdog has to stop and give its memory back before the
/// memory is declared lost (a quarter of the watchdog's limit when that is shorter, so
/// that a short watchdog still answers soon): a launch stops at its next warp step, which
/// a sandboxed lane reaches within its fuel (200 million WebAssembly instructions at
/// most, about a second), so ten seconds is ample.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// Runs `kernel` over the grid of `spec` against `mem`.
///
/// Returns the report of a completed launch, or the error that ended it. Memory keeps
/// whatever the kernel wrote before an error, as on a GPU. With a watchdog in `config`,
/// the launch runs on a worker thread; if it outlives the watchdog it is asked to stop at
/// its next warp step and reported as timed out. Its memory comes back (as the kernel
/// left it) when it stops within ten seconds (or a quarter of the limit); otherwise (a
/// native lane spinning in registers still owns it) the memory is lost and later
/// launches on `mem` report the device lost.
pub fn launch(
    mem: &mut GlobalMemory,
    spec: &LaunchSpec,
    kernel: KernelBody,
    config: &Config,
) -> Result<LaunchReport, LaunchError> {
    if mem.lost {
        return Err(LaunchError::DeviceLost {
            message: "an earlier launch timed out and its memory could not be recovered; create a new device".into(),
        });
    }
    spec.validate()?;
    let local_sites = match &kernel {
        KernelBody::Wasm { module, kernel, .. } => module.local_memory_sites(kernel).len() as u64,
        KernelBody::Native(_) => 0,
    };
    launch_counted(mem, spec, kernel, config).map(|mut r| {
        r.counters.local_memory_sites = local_sites;
        r
    })
}

/// [`launch`] with the counters of its lanes' operations only.
fn launch_counted(
    mem: &mut GlobalMemory,
    spec: &LaunchSpec,
    kernel: KernelBody,
    config: &Config,
) -> Result<LaunchReport, LaunchError> {
    crate::lane::install_panic_hook();
    let last_seen = Arc::new(LastSeen::default());
    let Some(limit) = config.watchdog else {
        let result = Exec::new(mem, *spec, config.clone(), last_seen).run(&kernel);
        if result.is_err() {
            crate::kernel_output::failed_launch(crate::lane::take_output());
        }
        return result;
    };
    let (tx, rx) = mpsc::channel();
    let mut owned = std::mem::take(mem);
    let (spec2, config2, seen2) = (*spec, config.clone(), last_seen.clone());
    let worker = std::thread::Builder::new()
        .name("simt-launch".into())
        .spawn(move || {
            let result = Exec::new(&mut owned, spec2, config2, seen2).run(&kernel);
            // What the lanes printed before the launch failed, kept for the student.
            let printed = if result.is_err() {
                crate::lane::take_output()
            } else {
                Vec::new()
            };
            let _ = tx.send((owned, result, printed));
        });
    if let Err(e) = worker {
        return Err(LaunchError::DeviceLost {
            message: format!("could not start the launch thread: {e}"),
        });
    }
    match rx.recv_timeout(limit) {
        Ok((back, result, printed)) => {
            *mem = back;
            if result.is_err() {
                crate::kernel_output::failed_launch(printed);
            }
            result
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            mem.lost = true;
            Err(LaunchError::DeviceLost {
                message: "the emulator failed internally (a bug in simt; please report it)".into(),
            })
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            // Where the lanes were when the limit passed, before the stop moves them.
            let seen = last_seen.get();
            // Ask the launch to stop at its next warp step. A sandboxed lane reaches one
            // within its fuel (a register loop runs out of fuel and ends the launch), so
            // the memory comes back and the device stays usable; a native lane spinning
            // in registers never does, and its memory is lost with it.
            last_seen.request_stop();
            match rx.recv_timeout(STOP_GRACE.min(limit / 4)) {
                Ok((back, _, printed)) => {
                    *mem = back;
                    crate::kernel_output::failed_launch(printed);
                }
                Err(_) => mem.lost = true,
            }
            Err(LaunchError::TimedOut {
                after: limit,
                last_seen: seen,
            })
        }
    }
}
