//! The student's answers, built for the sandbox from the course's own files.
//!
//! Only the answer regions of the student's `kernels/src/*.rs` are built, each put into
//! the course's pristine copy of its file ([`gpu_host::answers`]); an answer that does not
//! compile is built as its stub and costs only its own exercise, all builds of one
//! submission sharing one budget ([`gpu_host::lane_build`]). Everything else the student
//! changed is listed in the report as ignored.

use gpu_host::lanes::Outline;
use std::path::Path;

/// Builds the student's sources `src` (their `kernels/src`) for the sandbox as the course
/// at `root` does, and makes the result the module every check loads
/// ([`gpu_host::lanes::use_student`]). Returns what was left out.
pub fn build(src: &Path, root: &Path) -> Result<Outline, String> {
    gpu_host::lanes::use_student(src, root)
}

/// [`build`] for the course's own `kernels/src` at `root` (grading a clone in place). Where
/// the environment already names the module to load (`COURSE_LANES_KERNELS`, or a folder
/// of prebuilt modules: [`gpu_host::lanes::PREBUILT_ENV`]), nothing is built and that
/// module is graded, with the outline written beside it if there is one.
pub fn build_in_place(root: &Path) -> Result<Outline, String> {
    if std::env::var_os(gpu_host::lanes::module_env("kernels")).is_some()
        || std::env::var_os(gpu_host::lanes::PREBUILT_ENV).is_some()
    {
        return Ok(gpu_host::lanes::outline());
    }
    build(&root.join("kernels").join("src"), root)
}
