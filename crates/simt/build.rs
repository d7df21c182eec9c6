//! Build script of `simt`: says, once, that the first build is a long one.
//!
//! The emulator is the first crate of the course that cargo builds, and the course's
//! first build (the emulator, the WebAssembly interpreter, the chapters, the grader)
//! takes minutes on a small machine, with nothing on screen but crate names. Cargo runs
//! this script once per target directory and profile (it reruns only when the script
//! changes), so the note appears on that first build and never on the quick ones after it.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!(
        "cargo::warning=first build of the course: compiling the emulator and its dependencies \
         takes a few minutes on a 2-core machine, once; after it, a check takes seconds"
    );
}
