#!/usr/bin/env bash
# Gradescope's autograder setup (runs once, as root, when the autograder image is built).
#
# The autograder zip is the pristine course (this repository at the commit you grade
# with) with this file and `run_autograder` copied to its top level: Gradescope unpacks it
# into /autograder/source. This installs stable Rust and the WebAssembly target, builds the
# grader, and grades the course's own stubs once, so that every later run starts from a
# cached build (the sandbox's dependencies compiled, the grader linked).
set -euo pipefail
SOURCE=${AUTOGRADER_SOURCE:-/autograder/source}
cd "$SOURCE"
if ! command -v cargo >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl build-essential >/dev/null
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    # shellcheck disable=SC1091
    . "$HOME/.cargo/env"
fi
rustup target add wasm32-unknown-unknown
cargo build --locked --release -p grade
# Warm the sandbox's build: the course's own stubs, graded once.
./target/release/grade --student . --exercise 5.1 --json >/dev/null
