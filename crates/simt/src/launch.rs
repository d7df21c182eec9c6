//! Launching a kernel on the emulator: validate the configuration, run the blocks,
//! collect the report. The watchdog runs the launch on a worker thread so that a lane
//! spinning in registers cannot hang the caller.

use crate::config::Config;
use crate::memory::GlobalMemory;
use crate::report::{LaunchError, LaunchReport};
use crate::schedule::Exec;
use std::sync::Arc;
use std::sync::mpsc;

use crate::spec::{KernelBody, LastSeen, LaunchSpec};

/// Runs `kernel` over the grid of `spec` against `mem`.
///
/// Returns the report of a completed launch, or the error that ended it. Memory keeps
/// whatever the kernel wrote before an error, as on a GPU. With a watchdog in `config`,
/// the launch runs on a worker thread; if it outlives the watchdog the memory is lost
/// (the spinning lane still owns it) and later launches on `mem` report the device lost.
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
    crate::lane::install_panic_hook();
    let last_seen = Arc::new(LastSeen::default());
    let Some(limit) = config.watchdog else {
        return Exec::new(mem, *spec, config.clone(), last_seen).run(&kernel);
    };
    let (tx, rx) = mpsc::channel();
    let mut owned = std::mem::take(mem);
    let (spec2, config2, seen2) = (*spec, config.clone(), last_seen.clone());
    let worker = std::thread::Builder::new()
        .name("simt-launch".into())
        .spawn(move || {
            let result = Exec::new(&mut owned, spec2, config2, seen2).run(&kernel);
            let _ = tx.send((owned, result));
        });
    if let Err(e) = worker {
        return Err(LaunchError::DeviceLost {
            message: format!("could not start the launch thread: {e}"),
        });
    }
    match rx.recv_timeout(limit) {
        Ok((back, result)) => {
            *mem = back;
            result
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            mem.lost = true;
            Err(LaunchError::DeviceLost {
                message: "the emulator failed internally (a bug in simt; please report it)".into(),
            })
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            mem.lost = true;
            Err(LaunchError::TimedOut {
                after: limit,
                last_seen: last_seen.get(),
            })
        }
    }
}
