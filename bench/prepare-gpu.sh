#!/usr/bin/env bash
# bench/prepare-gpu.sh: build, on a machine with Rust (no GPU needed),
# everything a GPU machine *without* Rust needs to run the course's chapters for real, into
# one folder (default .gpu/ at the workspace root, git-ignored):
#
#   ch09                   the chapter's binary, release, --features cuda (PTX embedded):
#                          the progression (--device gpu), bench, demo-racecheck
#   ch09-exercises         the student checks (chapters/ch09/tests/exercises.rs)
#   ch09-unit              ch09's unit tests (embedded PTX)
#   ch05                   chapter 5's binary, release, --features cuda: the progression
#                          (--device gpu) and its bench (blocks per SM, four histograms)
#   ch05-exercises         chapter 5's student checks (chapters/ch05/tests/exercises.rs)
#   course-solutions-pass  the course self-test's "every solution passes" (tests/)
#   cuda_smoke             gpu-host's backend smoke test (reads ptx/api-probe.ptx)
#   ptx/*.ptx              kernels, solutions, api-probe (for cuda_smoke, ptxas, reading),
#                          built for sm_70 as the binaries embed them
#   ptx-sm_90/*.ptx        the same built for sm_90: COURSE_PTX_DIR=DIR/ptx-sm_90 makes the
#                          binaries load these instead (the H100's same-speed check)
#   lanes/*.wasm           kernels, solutions as the emulator's sandbox runs them (the
#                          session scripts point COURSE_LANES_DIR here: no cargo there)
#   cub_histogram.cu       CUB's histogram, compiled with nvcc on the GPU machine
#   torch_bincount.py      torch.bincount, where PyTorch is
#   bench-text.md          the book's chapters concatenated: the bench's text input
#   COMMIT                 the commit it was built from (-dirty with local changes)
#   gpu-session.sh         runs it all there: bash DIR/gpu-session.sh [OUT_DIR]
#   gpu-variants.sh        9.9 against its experimental variants (bench --variants, ncu,
#                          racecheck on the demo): bash DIR/gpu-variants.sh [OUT_DIR]
#   gpu-extensions.sh      9.15's histo_cas and 9.16's strategy sweep (bench --extensions):
#                          bash DIR/gpu-extensions.sh [OUT_DIR]
#   gpu-fidelity.sh        the emulator's counters against Nsight Compute (fidelity.py over
#                          both chapters, atomics_probe.cu): bash DIR/gpu-fidelity.sh [OUT_DIR]
#   gpu-limits.sh          where the kernels are not yet at the limit: CPU baselines, a size
#                          sweep, 4 GiB, ncu of 9.14 and 9.9: bash DIR/gpu-limits.sh [OUT_DIR]
#   gpu-limit-profile.sh   9.9 and u32_vectors at the GPU's limit and why (variants, ncu,
#                          the size sweep, --same-grid, 9.7 against 9.8): bash DIR/gpu-limit-profile.sh
#   gpu-arch-check.sh      the checks and the bench from sm_70 PTX against sm_90 PTX, and the
#                          fidelity script's ncu side at seeded shapes: bash DIR/gpu-arch-check.sh
#   gpu-fidelity-ncu.sh    the fidelity script's ncu side alone at seeded shapes, and 9.9's
#                          one exception at two shapes: bash DIR/gpu-fidelity-ncu.sh
#   ch10                   chapter 10's binary, release, --features cuda: the progression
#                          (--device gpu) and its bench (every step, CUB, torch.sum, 1 GiB)
#   gpu-ch10.sh            chapter 10's bench there: bash DIR/gpu-ch10.sh [OUT_DIR]
#   gpu-ch05.sh            chapter 5 there: its checks (stubs fail, references pass), the
#                          progression and its bench: bash DIR/gpu-ch05.sh [OUT_DIR]
#
# Every binary is built with --features cuda, which links no CUDA library: the driver's
# libcuda.so.1 is loaded when a GPU is first asked for (crates/host/README.md). Binaries
# built on Debian 12 need glibc >= 2.34 there. Debug info is stripped to keep the folder
# small (it must stay under 60 MiB; this script fails if it does not).
#
# Needs: cargo (stable), the pinned nightly with rust-src and llvm-tools (the PTX build;
# the error says how to install it), python3 (reads cargo's JSON), strip.
# Honours CARGO_TARGET_DIR.
#
# Usage: bash bench/prepare-gpu.sh [--chapter CH]... [--bench-only] [DIR]
#   --chapter CH   only chapter CH's binaries (repeatable; default: every chapter with a
#                  bench, ch05, ch09 and ch10). The session scripts take the same --chapter.
#   --bench-only   only what the chapters' bench needs: their binaries, the sandbox's
#                  modules, the anchors' sources, the text input, COMMIT and the session
#                  scripts (no test binaries, PTX or course self-test): a small folder, for
#                  comparing two builds.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
CHAPTERS=()
BENCH_ONLY=0
DEST=
while [ $# -gt 0 ]; do
  case "$1" in
    --chapter) CHAPTERS+=("$2"); shift 2 ;;
    --chapter=*) CHAPTERS+=("${1#--chapter=}"); shift ;;
    --bench-only) BENCH_ONLY=1; shift ;;
    -*) echo "prepare-gpu: unknown option $1" >&2; exit 2 ;;
    *) DEST=$1; shift ;;
  esac
done
[ ${#CHAPTERS[@]} -gt 0 ] || CHAPTERS=(ch05 ch09 ch10)
DEST=${DEST:-$ROOT/.gpu}
LIMIT_MIB=60
# Whether chapter $1 is asked for.
wanted() { [[ " ${CHAPTERS[*]} " == *" $1 "* ]]; }
for ch in "${CHAPTERS[@]}"; do
  [ -d "chapters/$ch" ] || { echo "prepare-gpu: no chapter $ch (chapters/$ch)" >&2; exit 2; }
done

say() { echo "prepare-gpu: $*" >&2; }
die() {
  echo "prepare-gpu: FAILED: $*" >&2
  exit 1
}

for tool in cargo python3 strip; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not on PATH"
done
case "$DEST" in
  /*) ;;
  *) DEST=$ROOT/$DEST ;;
esac
[ "$DEST" != "$ROOT" ] && [ "$DEST" != "/" ] || die "refusing to use $DEST as the output folder"

# Executables among cargo's JSON messages (stdin): "TARGET KIND PROFILE PATH" per line.
artifacts() {
  python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        t = m["target"]
        kind = "test" if m["profile"]["test"] else ",".join(t["kind"])
        print(t["name"], kind, m["executable"], sep="\t")
'
}

# Runs cargo with JSON messages (diagnostics still rendered on stderr) and prints the
# executables it built.
build() {
  local out
  out=$(cargo "$@" --message-format=json-render-diagnostics) || die "cargo $* failed"
  artifacts <<<"$out"
}

# The path of executable TARGET of KIND among the lines on stdin.
pick() {
  awk -F'\t' -v t="$1" -v k="$2" '$1 == t && $2 == k { print $3 }' | tail -n 1
}

say "building into $DEST"
rm -rf "$DEST"
mkdir -p "$DEST/ptx"

for ch in "${CHAPTERS[@]}"; do
  say "$ch, release, --features cuda (builds the kernels to PTX with the pinned nightly)"
  bin=$(build build --release -p "$ch" --features cuda --bin "$ch" | pick "$ch" bin)
  [ -n "$bin" ] || die "cargo reported no $ch binary"
  cp "$bin" "$DEST/$ch"
  [ "$BENCH_ONLY" -eq 1 ] && continue
  say "$ch's student checks, --features cuda"
  tests=$(build test --no-run -p "$ch" --features cuda --lib --test exercises)
  exe=$(pick exercises test <<<"$tests")
  [ -n "$exe" ] || die "cargo reported no $ch exercises test binary"
  cp "$exe" "$DEST/$ch-exercises"
  if [ "$ch" = ch09 ]; then
    unit=$(pick ch09 test <<<"$tests")
    [ -n "$unit" ] || die "cargo reported no ch09 unit test binary"
    cp "$unit" "$DEST/ch09-unit"
  fi
done

if [ "$BENCH_ONLY" -eq 0 ]; then
  say "the course self-test (solutions_pass), --features cuda"
  selftest=$(build test --no-run -p course-tests --features cuda --test solutions_pass | pick solutions_pass test)
  [ -n "$selftest" ] || die "cargo reported no solutions_pass test binary"
  cp "$selftest" "$DEST/course-solutions-pass"

  say "the cuda_smoke example and the PTX"
  smoke=$(build build --release -p gpu-host --features cuda --example cuda_smoke | pick cuda_smoke example)
  [ -n "$smoke" ] || die "cargo reported no cuda_smoke example"
  cp "$smoke" "$DEST/cuda_smoke"
  cargo run --quiet -p ptx-builder -- --quiet --out-dir "$DEST/ptx" kernels solutions api-probe >&2 ||
    die "the PTX build failed"
  cargo run --quiet -p ptx-builder -- --quiet --arch sm_90 --out-dir "$DEST/ptx-sm_90" \
    kernels solutions api-probe >&2 || die "the PTX build for sm_90 failed"
  # The default build last, so that target/ptx holds what the binaries embed.
  cargo run --quiet -p ptx-builder -- --quiet kernels solutions api-probe >/dev/null 2>&1 || true

fi

# The sandbox's modules, in every folder (--bench-only too): the binaries ask the emulator's
# build of a kernel what it declares (chapter 5's and 10's benches fail without them there).
say "the sandbox's modules (the emulator runs every kernel as WebAssembly)"
cargo run --quiet -p gpu-host --example build_lanes -- "$DEST/lanes" >&2 ||
  die "the WebAssembly build of the kernels failed"
export COURSE_LANES_DIR="$DEST/lanes"

say "bench sources, text, commit, session script"
# Every chapter's anchors (CUB programs, PyTorch scripts): the binaries embed them too.
cp bench/cub_*.cu bench/cub_timing.cuh bench/torch_*.py "$DEST/"
cp bench/gpu-session.sh "$DEST/gpu-session.sh"
cp bench/gpu-variants.sh "$DEST/gpu-variants.sh"
cp bench/gpu-extensions.sh "$DEST/gpu-extensions.sh"
cp bench/gpu-limits.sh "$DEST/gpu-limits.sh"
cp bench/gpu-limit-profile.sh bench/gpu-arch-check.sh \
  bench/gpu-fidelity-ncu.sh "$DEST/"
cp bench/gpu-fidelity.sh bench/fidelity.py bench/atomics_probe.cu "$DEST/"
cp bench/gpu-ch05.sh bench/gpu-ch10.sh "$DEST/"
cp crates/chapter/gpu-env.sh "$DEST/gpu-env.sh"
# The same text the bench reads from the workspace: book/src/**/*.md in path order, each
# followed by a newline.
python3 - "$ROOT/book/src" "$DEST/bench-text.md" <<'EOF'
import pathlib, sys
src, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
files = sorted((p for p in src.rglob("*.md") if p.is_file()), key=lambda p: p.parts)
dest.write_bytes(b"".join(p.read_bytes() + b"\n" for p in files))
print(f"prepare-gpu: bench-text.md: {len(files)} files, {dest.stat().st_size} bytes", file=sys.stderr)
EOF
[ -s "$DEST/bench-text.md" ] || rm -f "$DEST/bench-text.md"
if commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
  [ -z "$(git status --porcelain 2>/dev/null)" ] || commit="$commit-dirty"
else
  commit=unknown
fi
echo "$commit" >"$DEST/COMMIT"

for f in ch05 ch05-exercises ch09 ch09-exercises ch09-unit ch10 ch10-exercises course-solutions-pass cuda_smoke; do
  [ ! -f "$DEST/$f" ] || strip --strip-debug "$DEST/$f"
done
chmod +x "$DEST/gpu-limit-profile.sh" "$DEST/gpu-arch-check.sh" "$DEST/gpu-fidelity-ncu.sh"
chmod +x "$DEST/gpu-session.sh" "$DEST/gpu-variants.sh" "$DEST/gpu-extensions.sh" "$DEST/gpu-ch05.sh" "$DEST/gpu-ch10.sh" "$DEST/gpu-fidelity.sh" "$DEST/gpu-limits.sh"

# --- checks that need no GPU -------------------------------------------------------------
say "checking the folder here (no GPU)"
for ch in "${CHAPTERS[@]}"; do
  if readelf -d "$DEST/$ch" 2>/dev/null | grep -q 'libcuda'; then
    die "$ch links libcuda directly; it must load it at run time"
  fi
done
if wanted ch09; then
set +e
msg=$("$DEST/ch09" bench --size-mib 1 --skip cpu,cub,torch --out "$DEST/.bench-check" 2>&1)
rc=$?
set -e
rm -rf "$DEST/.bench-check"
if [ "$rc" -eq 0 ]; then
  say "note: this machine has a GPU, so the bench ran (exit 0)"
elif ! grep -q "no CUDA device" <<<"$msg"; then
  die "the bench without a GPU should say \"no CUDA device\"; it said: $msg"
fi
"$DEST/ch09" --n 4096 --step 9.9 >/dev/null || die "the ch09 binary does not run here"
fi
if wanted ch05; then
"$DEST/ch05" --n 4096 --step 5.6 >/dev/null || die "the ch05 binary does not run here"
set +e
msg=$("$DEST/ch05" bench --size-mib 1 --out "$DEST/.bench-check" 2>&1)
rc=$?
set -e
rm -rf "$DEST/.bench-check"
if [ "$rc" -ne 0 ] && ! grep -q "no CUDA device" <<<"$msg"; then
  die "ch05 bench without a GPU should say why it cannot run; it said: $msg"
fi
fi
if [ -f "$DEST/ch09-unit" ]; then
  COURSE_DEVICE=emulator "$DEST/ch09-unit" --quiet device:: >/dev/null 2>&1 ||
    die "ch09-unit's device tests fail"
fi

size=$(du -sb "$DEST" | cut -f1)
mib=$(((size + 1048575) / 1048576))
ls -la "$DEST" >&2
[ "$mib" -le "$LIMIT_MIB" ] || die "$DEST is $mib MiB, more than $LIMIT_MIB MiB"
say "done: $DEST ($mib MiB, commit $commit)"
say "on the GPU machine: bash $(basename "$DEST")/gpu-session.sh [OUT_DIR]"
