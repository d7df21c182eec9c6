//! Which device a chapter runs on, and the PTX a GPU needs.
//!
//! Everything in a chapter (checks, progression, bench) takes a `&mut Device`; this
//! module decides which one. The SIMT emulator is always there. A real GPU needs the
//! `cuda` feature: then `build.rs` has compiled the student's `kernels` and the reference
//! `solutions` to PTX with the pinned nightly (the kernels of every chapter), and this
//! crate embeds both (`KERNELS_PTX`, `SOLUTIONS_PTX`, items of that feature), so a
//! chapter's binary carries the PTX of the very kernels it was built with and runs on a GPU
//! machine that has no Rust.
//!
//! The checks pick their device from the environment ([`choice_from_env`]):
//! `COURSE_DEVICE=emulator` or `gpu`, and by default the GPU when the build has the `cuda`
//! feature and the machine a CUDA device, else the emulator with a note (so CI, which
//! builds with the feature but has no GPU, passes or fails the same way).

use course::KernelSource;
use gpu_host::{Device, LaunchError};

/// The environment variable that picks the checks' device: `emulator`, `gpu` or `auto`.
pub const DEVICE_ENV: &str = "COURSE_DEVICE";

/// The PTX of the student's `kernels` crate, built by `build.rs` (feature `cuda`).
#[cfg(feature = "cuda")]
pub const KERNELS_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// The PTX of the reference `solutions` crate (every chapter's kernels and the benches'),
/// built by `build.rs` (feature `cuda`).
#[cfg(feature = "cuda")]
pub const SOLUTIONS_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/solutions.ptx"));

/// The environment variable naming a folder whose `kernels.ptx` and `solutions.ptx` a GPU
/// loads instead of the PTX embedded at build time (which targets `sm_70`, the course's
/// floor): to run the same binary from PTX built for another architecture
/// (`cargo run -p ptx-builder -- --arch sm_90 --out-dir DIR kernels solutions`), as the
/// GPU scripts do to compare the two.
pub const PTX_DIR_ENV: &str = "COURSE_PTX_DIR";

/// Where to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The SIMT emulator, always.
    Emulator,
    /// A real GPU, or an error saying why there is none.
    Gpu,
    /// The GPU when this build has the `cuda` feature and the machine a CUDA device,
    /// else the emulator.
    Auto,
    /// The emulator, but each check in a child process as on a GPU
    /// (`COURSE_DEVICE=emulator-isolated`): tests the isolation of GPU checks on a
    /// machine without a GPU.
    #[doc(hidden)]
    IsolatedEmulator,
}

/// The device chosen by [`DEVICE_ENV`]; unset or empty means [`Choice::Auto`].
pub fn choice_from_env() -> Result<Choice, String> {
    match std::env::var(DEVICE_ENV) {
        Err(_) => Ok(Choice::Auto),
        Ok(v) => match v.trim() {
            "" | "auto" => Ok(Choice::Auto),
            "emulator" | "emu" => Ok(Choice::Emulator),
            "gpu" | "cuda" => Ok(Choice::Gpu),
            "emulator-isolated" => Ok(Choice::IsolatedEmulator),
            other => Err(format!(
                "{DEVICE_ENV}={other} is not a device: use emulator, gpu or auto"
            )),
        },
    }
}

/// Whether this build has the GPU backend (the `cuda` feature).
pub const fn has_cuda() -> bool {
    cfg!(feature = "cuda")
}

/// The module key and PTX text of `source`'s crate: what [`Device::load_ptx`] takes.
#[cfg(feature = "cuda")]
pub fn ptx(source: KernelSource) -> (&'static str, &'static str) {
    match source {
        KernelSource::Student => ("kernels", KERNELS_PTX),
        KernelSource::Reference => ("solutions", SOLUTIONS_PTX),
    }
}

/// The error of asking for a GPU in a build without the `cuda` feature.
pub fn no_cuda_build() -> LaunchError {
    LaunchError::NoDevice {
        message: "this build has no GPU backend: build with the `cuda` feature \
                  (e.g. `cargo run -p ch09 --features cuda -- --device gpu`)"
            .into(),
    }
}

/// Opens CUDA device 0 and loads the PTX of every crate in `sources`. Without a GPU (no
/// driver, no device) this is the host runtime's one [`LaunchError::NoDevice`]; without
/// the `cuda` feature, [`no_cuda_build`].
pub fn open_gpu(sources: &[KernelSource]) -> Result<Device, LaunchError> {
    #[cfg(feature = "cuda")]
    {
        let mut dev = Device::cuda()?;
        let dir = std::env::var_os(PTX_DIR_ENV).filter(|d| !d.is_empty());
        for &s in sources {
            let (key, text) = ptx(s);
            match &dir {
                None => dev.load_ptx(key, text)?,
                Some(dir) => {
                    let path = std::path::Path::new(dir).join(format!("{key}.ptx"));
                    let text = std::fs::read_to_string(&path).map_err(|e| LaunchError::Build {
                        message: format!("{PTX_DIR_ENV}: cannot read {}: {e}", path.display()),
                    })?;
                    dev.load_ptx(key, &text)?;
                }
            }
        }
        Ok(dev)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = sources;
        Err(no_cuda_build())
    }
}

/// How many CUDA devices this machine has; 0 without the `cuda` feature, a driver or a
/// GPU. Cheap: it initialises the driver but creates no context.
pub fn gpu_count() -> u32 {
    #[cfg(feature = "cuda")]
    {
        Device::cuda_device_count()
    }
    #[cfg(not(feature = "cuda"))]
    {
        0
    }
}

/// Where the checks run, as [`select`] decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selected {
    /// The emulator; `note` says why when a GPU was possible but not there.
    Emulator {
        /// Why not the GPU (a build with the `cuda` feature on a machine without one).
        note: Option<String>,
    },
    /// CUDA device 0.
    Gpu,
    /// The emulator, each check in a child process (see [`Choice::IsolatedEmulator`]).
    #[doc(hidden)]
    IsolatedEmulator,
}

/// Resolves `choice` against this build and machine: [`Choice::Gpu`] without a GPU is an
/// error (one line, for a test's panic); [`Choice::Auto`] falls back to the emulator, with
/// a note when the build could have used a GPU.
pub fn select(choice: Choice) -> Result<Selected, String> {
    match choice {
        Choice::Emulator => Ok(Selected::Emulator { note: None }),
        Choice::IsolatedEmulator => Ok(Selected::IsolatedEmulator),
        Choice::Gpu if !has_cuda() => Err(format!(
            "{DEVICE_ENV}=gpu, but this build has no GPU backend: add `--features cuda`"
        )),
        Choice::Gpu if gpu_count() == 0 => Err(format!(
            "{DEVICE_ENV}=gpu, but this machine has no CUDA device (no NVIDIA driver, or \
             no GPU visible)"
        )),
        Choice::Gpu => match below_floor() {
            Some(why) => Err(format!("{DEVICE_ENV}=gpu, but {why}")),
            None => Ok(Selected::Gpu),
        },
        Choice::Auto if !has_cuda() => Ok(Selected::Emulator { note: None }),
        Choice::Auto if gpu_count() == 0 => Ok(Selected::Emulator {
            note: Some(
                "built with the `cuda` feature, but this machine has no CUDA device: the \
                 checks run on the emulator"
                    .into(),
            ),
        }),
        Choice::Auto => match below_floor() {
            Some(why) => Ok(Selected::Emulator {
                note: Some(format!("{why}: the checks run on the emulator")),
            }),
            None => Ok(Selected::Gpu),
        },
    }
}

/// Why CUDA device 0 cannot run the course, when it is older than
/// [`gpu_host::MIN_COMPUTE_CAPABILITY`]: its name and compute capability.
fn below_floor() -> Option<String> {
    #[cfg(feature = "cuda")]
    {
        let (name, cc) = Device::cuda_device_capability(0)?;
        floor_message(&name, cc)
    }
    #[cfg(not(feature = "cuda"))]
    {
        None
    }
}

/// The sentence for a GPU of compute capability `cc` named `name`, when it is below the
/// course's floor; `None` when the course runs on it.
pub fn floor_message(name: &str, cc: (u32, u32)) -> Option<String> {
    let floor = gpu_host::MIN_COMPUTE_CAPABILITY;
    (cc < floor).then(|| {
        format!(
            "this machine's GPU ({name}) has compute capability {}.{}, below the {}.{} \
             (sm_{}{}) the course's kernels need",
            cc.0, cc.1, floor.0, floor.1, floor.0, floor.1
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_below_the_floor_is_named_with_its_compute_capability() {
        let m = floor_message("Tesla P100", (6, 0)).expect("6.0 is below the floor");
        assert!(m.contains("Tesla P100"), "{m}");
        assert!(m.contains("compute capability 6.0"), "{m}");
        assert!(m.contains("7.0 (sm_70)"), "{m}");
        assert_eq!(floor_message("Tesla V100", (7, 0)), None);
        assert_eq!(floor_message("NVIDIA H100 80GB HBM3", (9, 0)), None);
    }

    #[test]
    fn the_emulator_is_always_there() {
        assert_eq!(
            select(Choice::Emulator),
            Ok(Selected::Emulator { note: None })
        );
        if gpu_count() == 0 {
            let e = select(Choice::Gpu).unwrap_err();
            assert!(e.contains(DEVICE_ENV), "{e}");
            match select(Choice::Auto) {
                Ok(Selected::Emulator { note }) => assert_eq!(note.is_some(), has_cuda()),
                other => panic!("{other:?}"),
            }
            assert!(matches!(
                open_gpu(&[KernelSource::Reference]),
                Err(LaunchError::NoDevice { .. })
            ));
        }
    }

    #[cfg(feature = "cuda")]
    #[test]
    fn the_ptx_of_both_crates_is_embedded() {
        for (source, kernel) in [
            (KernelSource::Student, "histo_fastest"),
            (KernelSource::Reference, "histo_fastest"),
            (KernelSource::Reference, "read_bandwidth"),
            (KernelSource::Reference, "histo_shared_no_barrier"),
            (KernelSource::Student, "histo_shared_n"),
            (KernelSource::Reference, "histo_shared_n"),
            (KernelSource::Reference, "mul_grid_stride"),
            (KernelSource::Reference, "smooth_in_place"),
        ] {
            let (_, text) = ptx(source);
            assert!(
                text.contains(&format!(".entry {kernel}(")),
                "{source:?} lacks {kernel}"
            );
            assert!(!text.contains(".extern .func"), "{source:?}");
        }
    }
}
